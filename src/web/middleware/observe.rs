//! What an operator sees of each request: its id, one log line, its metrics.
//!
//! The outermost middleware. For every request it
//! - picks the request id: the `X-Request-Id` a trusted reverse proxy sent (`--trusted-proxy`;
//!   nginx's `$request_id`) when it is 1 to 64 letters, digits, `.`, `_` or `-`, else a new one
//!   (16 random bytes in hex), and puts it on the answer, whatever the answer (an error, a
//!   404, a cached page, a panic's 500);
//! - runs the request inside a `request` span carrying `request_id`, so every log line written
//!   while answering it (an internal error's cause, a panic) names it;
//! - logs one line at info when it is answered: method, route pattern, status, milliseconds.
//!   Never the path asked, its query string, a header or the body: they may hold a token, a
//!   password or a name (the route pattern is what the code declares, `/leagues/{slug}`);
//! - counts it in [`crate::web::metrics`].
//!
//! A small middleware of its own rather than `tracing-actix-web`: that crate's root span
//! records the whole target (query string included), the user agent and the client address,
//! makes its own request id (a UUID it never takes from a proxy), and puts none on the
//! answer; what is needed here is these few lines.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::web::Data;
use actix_web::{HttpResponse, ResponseError};
use tracing::Instrument;

use crate::web::AppState;
use crate::web::metrics::{UNKNOWN, UNMATCHED};

pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The longest request id taken from a proxy.
const MAX_ID_LEN: usize = 64;

pub async fn observe(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let data = req.app_data::<Data<AppState>>().cloned();
    let state = data.as_ref().map(|d| d.get_ref());
    let id = request_id(&req, state);
    // The method asked (`HEAD` is answered as `GET` further in).
    let method = req.method().clone();
    // At the error level, so that it is on whenever any line of the request is logged (an
    // error's line has its id even under `SPADES_LOG=warn`).
    let span = tracing::error_span!("request", request_id = %id);
    let answered = next.call(req).instrument(span.clone()).await;
    let header = HeaderValue::from_str(&id).ok();
    match answered {
        Ok(mut response) => {
            let route = route_of(response.request());
            seen(&span, state, &method, &route, response.status(), started);
            if let Some(header) = header {
                response.headers_mut().insert(REQUEST_ID, header);
            }
            Ok(response)
        }
        // An error no handler turned into an answer (a panic caught by `panics`): answered
        // from the error, which gets the id too.
        Err(error) => {
            let status = error.as_response_error().status_code();
            seen(&span, state, &method, UNKNOWN, status, started);
            Err(WithRequestId { error, header }.into())
        }
    }
}

/// The route pattern a request was answered by, [`UNMATCHED`] for none. A page served from
/// the page cache was never routed, and actix would find its pattern by trying every route
/// again (a regex each): the cache hands over the pattern it kept with the copy instead.
fn route_of(req: &actix_web::HttpRequest) -> String {
    use actix_web::HttpMessage;
    if let Some(route) = req.extensions().get::<RoutePattern>() {
        return route.0.to_string();
    }
    req.match_pattern().unwrap_or_else(|| UNMATCHED.to_string())
}

/// The pattern of the route that made an answer, put on a request answered without routing.
#[derive(Debug, Clone)]
pub struct RoutePattern(pub std::sync::Arc<str>);

/// The log line and the metrics of an answered request.
fn seen(
    span: &tracing::Span,
    state: Option<&AppState>,
    method: &Method,
    route: &str,
    status: StatusCode,
    started: Instant,
) {
    let took = started.elapsed();
    if let Some(state) = state {
        state.metrics.answered(route, method, status, took);
    }
    // Inside the span (not only its child): a JSON line lists the spans entered.
    span.in_scope(|| {
        tracing::info!(
            method = %method,
            route,
            status = status.as_u16(),
            ms = (took.as_secs_f64() * 100_000.0).round() / 100.0,
            "answered"
        );
    });
}

/// The id a trusted proxy sent, if it is one; else a new one.
fn request_id(req: &ServiceRequest, state: Option<&AppState>) -> String {
    let from_proxy = state.is_some_and(|s| s.client_address.peer_is_trusted(req.request()));
    from_proxy
        .then(|| req.headers().get(REQUEST_ID))
        .flatten()
        .and_then(|v| v.to_str().ok())
        .filter(|v| is_sane(v))
        .map_or_else(fresh_id, str::to_string)
}

/// 1 to [`MAX_ID_LEN`] ASCII letters, digits, `.`, `_` or `-`: safe in a header and a log
/// line, and no one's free text.
fn is_sane(id: &str) -> bool {
    (1..=MAX_ID_LEN).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// 16 random bytes in hex (from a counter and the time, should the system's random source
/// ever fail: an id must be unique, not secret).
fn fresh_id() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        bytes[..8].copy_from_slice(&nanos.to_be_bytes());
        bytes[8..].copy_from_slice(&n.to_be_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// An error answered with the request's id on it.
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
struct WithRequestId {
    error: actix_web::Error,
    header: Option<HeaderValue>,
}

impl ResponseError for WithRequestId {
    fn status_code(&self) -> StatusCode {
        self.error.as_response_error().status_code()
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = self.error.error_response();
        if let Some(header) = &self.header {
            response.headers_mut().insert(REQUEST_ID, header.clone());
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_short_plain_ids_are_taken() {
        for id in ["a", "0123456789abcdef", "req-1.2_3", &"x".repeat(64)] {
            assert!(is_sane(id), "{id:?}");
        }
        for id in [
            "",
            &"x".repeat(65),
            "two words",
            "a\"b",
            "caf\u{e9}",
            "a\tb",
            "name@example.edu",
        ] {
            assert!(!is_sane(id), "{id:?}");
        }
    }

    #[test]
    fn fresh_ids_are_32_hex_digits_and_differ() {
        let (a, b) = (fresh_id(), fresh_id());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()), "{a}");
        assert_ne!(a, b);
    }
}
