//! `GET /metrics`: what an operator's Prometheus scrapes, in the Prometheus text format
//! (version 0.0.4).
//!
//! - `http_requests_total{route,method,status}` and `http_request_duration_seconds{route}`:
//!   every answer, counted by the route's pattern as declared (`/api/v1/matches/{id}/hands`,
//!   never the path asked, so a client cannot grow the label sets), `unmatched` when no route
//!   took the request, `unknown` for one that panicked (the request is gone by then);
//! - `group_commit_batch_size`, `group_commit_wait_seconds`, `group_commit_batch_seconds`:
//!   the writer's batches (`db/group_commit.rs`);
//! - `db_pool_connections{pool,state}` and `db_pool_max_connections{pool}`: the database
//!   pools, read at each scrape;
//! - `page_cache_requests_total{result}`: the public pages' copies, `hit` or `miss`;
//! - `notices{status}`: the notices by email, `pending`, `sent` or `failed`, read at each
//!   scrape.
//!
//! Only a client on this machine (a loopback address) or a trusted reverse proxy
//! (`--trusted-proxy`) may scrape, judged by the client address as the login throttle sees it
//! ([`crate::web::client_address`]): a request a trusted proxy forwards from outside names
//! its outside client in `X-Forwarded-For` and is refused. Anyone else gets the 404 of a path
//! that does not exist, for every method (the route is not in [`crate::web::page_routes`],
//! so a wrong method is no 405 that would name it).

use std::net::IpAddr;
use std::time::Duration;

use actix_web::http::{Method, StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, guard, web};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::db::Db;
use crate::web::AppState;
use crate::web::error::AppError;

/// Seconds: 1 ms to 10 s.
const LATENCY_BUCKETS: [f64; 13] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// The route label of a request no route took (a 404, or a 405 of the API's fallback).
pub const UNMATCHED: &str = "unmatched";
/// The route label of a request that panicked: its route went with it.
pub const UNKNOWN: &str = "unknown";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: String,
    method: &'static str,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabel {
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CacheLabel {
    result: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct NoticeLabel {
    status: &'static str,
}

type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;

/// The metrics of one running service (each test's server has its own).
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    durations: Histograms<RouteLabel>,
    page_cache: Family<CacheLabel, Counter>,
    notices: Family<NoticeLabel, Gauge>,
}

impl Metrics {
    /// Every metric of the service on `db`, counting from zero.
    pub fn new(db: &Db) -> Metrics {
        let mut registry = Registry::default();
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "http_requests",
            "Answers by route pattern, method and status",
            requests.clone(),
        );
        let durations: Histograms<RouteLabel> =
            Family::new_with_constructor(|| Histogram::new(LATENCY_BUCKETS));
        registry.register(
            "http_request_duration_seconds",
            "Time from a request's arrival to its answer's headers, by route pattern",
            durations.clone(),
        );
        let page_cache = Family::<CacheLabel, Counter>::default();
        registry.register(
            "page_cache_requests",
            "Public reads of anonymous visitors: served from the copy (hit) or rendered (miss)",
            page_cache.clone(),
        );
        let batches = db.batch_metrics();
        registry.register(
            "group_commit_batch_size",
            "Write requests committed together in one transaction",
            batches.sizes.clone(),
        );
        registry.register(
            "group_commit_wait_seconds",
            "Time a write request waited in the queue for the writer",
            batches.waits.clone(),
        );
        registry.register(
            "group_commit_batch_seconds",
            "Time the writer took over one batch, from BEGIN to COMMIT",
            batches.durations.clone(),
        );
        registry.register_collector(Box::new(Pools(db.clone())));
        let notices = Family::<NoticeLabel, Gauge>::default();
        registry.register(
            "notices",
            "Notices by email by status: pending (waiting to be sent or retried), sent, failed",
            notices.clone(),
        );
        Metrics {
            registry,
            requests,
            durations,
            page_cache,
            notices,
        }
    }

    /// Counts one answer of `route` (a pattern, [`UNMATCHED`] or [`UNKNOWN`]).
    pub fn answered(&self, route: &str, method: &Method, status: StatusCode, took: Duration) {
        self.requests
            .get_or_create(&RequestLabels {
                route: route.to_string(),
                method: method_label(method),
                status: status.as_u16(),
            })
            .inc();
        self.durations
            .get_or_create(&RouteLabel {
                route: route.to_string(),
            })
            .observe(took.as_secs_f64());
    }

    /// Counts a public read served from the page cache's copy (`hit`) or rendered (`miss`).
    pub fn page_cache(&self, hit: bool) {
        let result = if hit { "hit" } else { "miss" };
        self.page_cache.get_or_create(&CacheLabel { result }).inc();
    }

    /// Every metric in the Prometheus text format.
    pub fn encode(&self) -> Result<String, std::fmt::Error> {
        let mut text = String::new();
        prometheus_client::encoding::prometheus_text::encode(&mut text, &self.registry)?;
        Ok(text)
    }
}

/// The method as a label: the standard ones, anything else `other` (a client may send any
/// token as a method).
fn method_label(method: &Method) -> &'static str {
    [
        Method::GET,
        Method::HEAD,
        Method::POST,
        Method::PUT,
        Method::PATCH,
        Method::DELETE,
        Method::OPTIONS,
    ]
    .iter()
    .find(|m| *m == method)
    .map_or("other", |m| m.as_str())
}

/// The database pools' connections, read at each scrape.
#[derive(Debug)]
struct Pools(Db);

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PoolState {
    pool: &'static str,
    state: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PoolName {
    pool: &'static str,
}

impl Collector for Pools {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let connections = Family::<PoolState, Gauge>::default();
        let max = Family::<PoolName, Gauge>::default();
        for pool in self.0.pool_use() {
            for (state, n) in [("in_use", pool.in_use), ("idle", pool.idle)] {
                connections
                    .get_or_create(&PoolState {
                        pool: pool.pool,
                        state,
                    })
                    .set(i64::from(n));
            }
            max.get_or_create(&PoolName { pool: pool.pool })
                .set(i64::from(pool.max));
        }
        connections.encode(encoder.encode_descriptor(
            "db_pool_connections",
            "Open database connections by pool: lent out (in_use) or waiting (idle)",
            None,
            connections.metric_type(),
        )?)?;
        max.encode(encoder.encode_descriptor(
            "db_pool_max_connections",
            "The most connections each database pool opens",
            None,
            max.metric_type(),
        )?)
    }
}

/// `GET /metrics` (and `HEAD`), guarded on the resource so that any other method falls
/// through to the 404 of an unknown path.
pub fn route(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/metrics").guard(guard::Get()).to(metrics));
}

async fn metrics(state: web::Data<AppState>, req: HttpRequest) -> Result<HttpResponse, AppError> {
    if !may_scrape(&state, &req) {
        return Ok(crate::web::not_found(req).await);
    }
    for (status, n) in crate::service::notices::listing::counts(&state.db).await? {
        let label = NoticeLabel {
            status: status.as_str(),
        };
        state.metrics.notices.get_or_create(&label).set(n);
    }
    let text = state
        .metrics
        .encode()
        .map_err(|e| AppError::Internal(format!("encoding the metrics: {e}")))?;
    Ok(HttpResponse::Ok()
        .content_type(prometheus_client::encoding::prometheus_text::CONTENT_TYPE)
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(text))
}

/// Whether `req` comes from this machine or from a trusted reverse proxy itself (not from a
/// client the proxy forwards: see the module's documentation).
fn may_scrape(state: &AppState, req: &HttpRequest) -> bool {
    allowed(state.client_address.of(req), &state.client_address)
}

fn allowed(client: IpAddr, proxies: &crate::web::client_address::ClientAddress) -> bool {
    client.is_loopback() || proxies.is_trusted(client)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::web::client_address::ClientAddress;

    #[test]
    fn only_loopback_and_trusted_proxies_may_scrape() {
        let proxies = ClientAddress::trusting(vec!["10.1.0.0/16".parse().unwrap()]);
        for (client, may) in [
            ("127.0.0.1", true),
            ("127.0.0.2", true),
            ("::1", true),
            ("10.1.2.3", true),
            ("10.2.0.1", false),
            ("203.0.113.7", false),
            ("0.0.0.0", false),
        ] {
            assert_eq!(allowed(client.parse().unwrap(), &proxies), may, "{client}");
        }
    }

    #[test]
    fn methods_are_a_bounded_label() {
        assert_eq!(method_label(&Method::GET), "GET");
        assert_eq!(method_label(&Method::from_bytes(b"BREW").unwrap()), "other");
    }
}
