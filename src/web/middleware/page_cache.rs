//! Public pages rendered once per change, for anonymous visitors.
//!
//! On league night hundreds of phones and the TV ask for the same few pages (a match, the
//! standings, the scoreboard, the bracket) while the data changes a few times a minute. A GET
//! of a public path by a visitor who is not logged in is answered from the copy made at the
//! current `data_version` (a counter that triggers bump in the transaction of every change to
//! leagues, teams, matches, hands and brackets: migration 0005), so it is never older than the
//! last commit; a copy is also dropped after [`FRESH_FOR`], for what depends on the clock
//! ("this week", "updated at"). Logged-in users (whose pages carry their name and CSRF token)
//! always get a fresh render. The answer says `X-Page-Cache: hit` or `miss`.
//!
//! A copy is keyed by the path and the query parameters its page reads ([`PARAMS`]), sorted
//! and re-encoded: any other parameter is ignored by the handlers, so `?x=1`, `?x=2`, …
//! are the same page and the same copy (a visitor cannot make copies at will). The copies
//! are bounded in bytes (`--page-cache-mb`): past the bound the least recently used go.
//!
//! "Not logged in" is what the handlers go by ([`crate::web::extract`]): a page by its session
//! cookie alone, so a page asked with an `Authorization` header (a proxy's HTTP Basic login,
//! a token) and no session is the anonymous page, and may be served from the copy or make it;
//! an API read by its bearer token or its cookie, so a read with either is answered afresh
//! (and a bad token is refused before it gets here).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::body::{self, BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::web::{Bytes, Data};
use actix_web::{Error, HttpMessage, HttpResponse};
use hashlink::LruCache;

use crate::domain::Timestamp;
use crate::web::AppState;
use crate::web::extract::{bearer_header, session_id};
use crate::web::middleware::observe::RoutePattern;
use crate::web::page_routes::path_matches;

/// How long a copy may serve when nothing changes (clock-dependent parts of a page).
pub const FRESH_FOR: Duration = Duration::from_secs(5);

/// The bound when none is given (`--page-cache-mb`), in MiB and in bytes.
pub const DEFAULT_MB: usize = 64;
pub const DEFAULT_BYTES: usize = DEFAULT_MB << 20;

/// What a copy costs beyond its key, headers and body (the entry, its `Arc`, the LRU's
/// links), counted so that many tiny copies cannot outgrow the bound.
const ENTRY_OVERHEAD: usize = 256;

const CACHE_HEADER: HeaderName = HeaderName::from_static("x-page-cache");

/// The query parameters each public read takes (its handler's `web::Query`): the only ones a
/// copy's key keeps. A route not listed takes none. `a_public_read_with_a_query_is_listed`
/// checks the routes against the handlers.
pub const PARAMS: &[(&str, &[&str])] = &[
    // `ListQuery` (api/leagues.rs).
    ("/api/v1/leagues", &["archived"]),
    // `MatchPageQuery` (api/matches.rs).
    ("/api/v1/leagues/{slug}/matches", &["after", "limit"]),
    // `WeekQuery` (pages/public/schedule.rs), also the team page's.
    ("/leagues/{slug}/schedule", &["week"]),
    ("/leagues/{slug}/teams/{id}", &["week"]),
    // `BoardQuery` (pages/public/scoreboard.rs), and the leagues both boards show.
    ("/scoreboard", &["league", "tv"]),
    ("/api/v1/scoreboard", &["league"]),
];

/// The copies, by page, least recently used first, and their size in bytes.
#[derive(Debug)]
pub struct PageCache {
    /// At most this many bytes of copies; 0: no copies at all.
    bound: usize,
    entries: Mutex<Entries>,
}

#[derive(Debug)]
struct Entries {
    copies: LruCache<String, Arc<Copy>>,
    bytes: usize,
}

#[derive(Debug)]
struct Copy {
    version: i64,
    /// On the service's clock (a test that moves the clock sees the copy age).
    made: Timestamp,
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
    /// The pattern of the route that made it, for the log line and metrics of a hit.
    route: Option<RoutePattern>,
}

impl Copy {
    /// What the copy holds under `key`, as the bound counts it.
    fn size(&self, key: &str) -> usize {
        let headers: usize = self
            .headers
            .iter()
            .map(|(name, value)| name.as_str().len() + value.len())
            .sum();
        key.len() + headers + self.body.len() + ENTRY_OVERHEAD
    }
}

impl PageCache {
    /// A cache of at most `bound` bytes of copies (0: off, every page rendered afresh).
    pub fn new(bound: usize) -> PageCache {
        PageCache {
            bound,
            entries: Mutex::new(Entries {
                copies: LruCache::new_unbounded(),
                bytes: 0,
            }),
        }
    }

    fn enabled(&self) -> bool {
        self.bound > 0
    }

    /// The copy under `key` if it is of `version` and fresh at `now` (then the most recently
    /// used); a stale one is dropped.
    fn get(&self, key: &str, version: i64, now: Timestamp) -> Option<Arc<Copy>> {
        let mut entries = self.entries.lock().ok()?;
        let copy = entries.copies.get(key)?;
        let age = (now.0 - copy.made.0).to_std().unwrap_or(Duration::MAX);
        if copy.version == version && age < FRESH_FOR {
            return Some(Arc::clone(copy));
        }
        entries.remove(key);
        None
    }

    /// Keeps `copy` under `key`, then lets the least recently used go until the copies fit.
    fn put(&self, key: String, copy: Arc<Copy>) {
        let size = copy.size(&key);
        let Ok(mut entries) = self.entries.lock() else {
            return;
        };
        entries.remove(&key);
        if size > self.bound {
            return;
        }
        entries.bytes += size;
        entries.copies.insert(key, copy);
        while entries.bytes > self.bound {
            let Some((key, old)) = entries.copies.remove_lru() else {
                break;
            };
            entries.bytes -= old.size(&key);
        }
    }

    /// The bytes the copies hold now.
    pub fn bytes(&self) -> usize {
        self.entries.lock().map(|e| e.bytes).unwrap_or(0)
    }
}

impl Entries {
    fn remove(&mut self, key: &str) {
        if let Some(old) = self.copies.remove(key) {
            self.bytes -= old.size(key);
        }
    }
}

/// The copy's key for a GET of `path?query`: the path, then the parameters its page reads
/// ([`PARAMS`]) decoded, in name order (a name given twice keeps its values' order: the
/// handler refuses it anyway), encoded again. Any other parameter is left out.
pub fn key(path: &str, query: &str) -> String {
    let known = PARAMS
        .iter()
        .find(|(template, _)| path_matches(template, path))
        .map_or(&[][..], |(_, names)| *names);
    let mut pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
        .filter(|(name, _)| known.contains(&name.as_ref()))
        .map(|(name, value)| (name.into_owned(), value.into_owned()))
        .collect();
    if pairs.is_empty() {
        return path.to_string();
    }
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    query.extend_pairs(pairs);
    format!("{path}?{}", query.finish())
}

/// A GET that the handlers answer as they answer anyone not logged in.
fn cacheable(req: &ServiceRequest) -> bool {
    let api = req.path().starts_with("/api/");
    req.method() == Method::GET
        && session_id(req.request()).is_none()
        && !(api && bearer_header(req.request()).is_some())
}

fn answer(copy: &Copy, hit: &'static str) -> HttpResponse {
    let mut response = HttpResponse::with_body(copy.status, BoxBody::new(copy.body.clone()));
    *response.headers_mut() = copy.headers.clone();
    response
        .headers_mut()
        .insert(CACHE_HEADER, HeaderValue::from_static(hit));
    response
}

/// The middleware (`actix_web::middleware::from_fn`), wrapping the scope of public reads
/// (`web::routes`).
pub async fn serve_cached(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let state = req.app_data::<Data<AppState>>().cloned();
    let Some(state) = state.filter(|s| s.pages.enabled() && cacheable(&req)) else {
        return Ok(next.call(req).await?.map_into_boxed_body());
    };
    // Without the counter there is no safe copy: render as usual.
    let Ok(version) = state.db.data_version().await else {
        return Ok(next.call(req).await?.map_into_boxed_body());
    };
    let key = key(req.path(), req.query_string());
    let now = state.db.clock().now();
    if let Some(copy) = state.pages.get(&key, version, now) {
        state.metrics.page_cache(true);
        if let Some(route) = &copy.route {
            req.extensions_mut().insert(route.clone());
        }
        return Ok(req.into_response(answer(&copy, "hit")));
    }
    state.metrics.page_cache(false);
    let response = next.call(req).await?;
    if response.status() != StatusCode::OK || response.headers().contains_key(header::SET_COOKIE) {
        return Ok(response.map_into_boxed_body());
    }
    // Routed: actix knows the pattern from the route taken, cheaply.
    let route = response
        .request()
        .match_pattern()
        .map(|p| RoutePattern(p.into()));
    let (req, response) = response.into_parts();
    let (head, body) = response.into_parts();
    let body = body::to_bytes(body)
        .await
        .map_err(|_| actix_web::error::ErrorInternalServerError("page body"))?;
    // Kept in an allocation of its own size: the rendered one may have up to twice that
    // capacity (a growing buffer), which the bound would not see.
    let body = Bytes::copy_from_slice(&body);
    let copy = Arc::new(Copy {
        version,
        made: now,
        status: head.status(),
        headers: head.headers().clone(),
        body,
        route,
    });
    state.pages.put(key, Arc::clone(&copy));
    Ok(ServiceResponse::new(req, answer(&copy, "miss")))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn a_key_keeps_the_parameters_its_page_reads_sorted() {
        assert_eq!(
            key("/leagues/fall/standings", "x=1&y=2"),
            "/leagues/fall/standings"
        );
        assert_eq!(
            key("/leagues/fall/schedule", "x=1"),
            "/leagues/fall/schedule"
        );
        assert_eq!(
            key("/leagues/fall/schedule", "x=1&week=2026-11-24&z"),
            "/leagues/fall/schedule?week=2026-11-24"
        );
        // Spelt another way, the same value: the same key.
        assert_eq!(
            key("/leagues/fall/schedule", "week=%61ll"),
            key("/leagues/fall/schedule", "week=all")
        );
        assert_eq!(
            key("/api/v1/leagues/fall/matches", "x=9&limit=5&after=12"),
            "/api/v1/leagues/fall/matches?after=12&limit=5"
        );
        // A name given twice stays twice, in its order (the handler refuses it).
        assert_eq!(key("/scoreboard", "tv=1&a=b&tv=0"), "/scoreboard?tv=1&tv=0");
        assert_eq!(
            key("/api/v1/leagues", "archived=true"),
            "/api/v1/leagues?archived=true"
        );
    }

    fn copy(body: &[u8]) -> Arc<Copy> {
        Arc::new(Copy {
            version: 1,
            made: Timestamp(chrono::DateTime::UNIX_EPOCH),
            status: StatusCode::OK,
            headers: HeaderMap::new(),
            body: Bytes::copy_from_slice(body),
            route: None,
        })
    }

    const AT: Timestamp = Timestamp(chrono::DateTime::UNIX_EPOCH);

    #[test]
    fn past_the_bound_the_least_recently_used_copy_goes() {
        let page = [0u8; 1000];
        // Room for two copies of `/a`-like keys, not three.
        let one = copy(&page).size("/a");
        let cache = PageCache::new(2 * one + one / 2);
        cache.put("/a".into(), copy(&page));
        cache.put("/b".into(), copy(&page));
        assert_eq!(cache.bytes(), 2 * one);
        // `/a` used last: `/b` is the one to go.
        assert!(cache.get("/a", 1, AT).is_some());
        cache.put("/c".into(), copy(&page));
        assert!(cache.get("/b", 1, AT).is_none());
        assert!(cache.get("/a", 1, AT).is_some());
        assert!(cache.get("/c", 1, AT).is_some());
        assert_eq!(cache.bytes(), 2 * one);
        // A copy bigger than the whole bound is not kept, and drops none.
        cache.put("/big".into(), copy(&[0u8; 5000]));
        assert!(cache.get("/big", 1, AT).is_none());
        assert_eq!(cache.bytes(), 2 * one);
        // Replaced, a copy is counted once; stale, it goes.
        cache.put("/a".into(), copy(&page));
        assert_eq!(cache.bytes(), 2 * one);
        assert!(cache.get("/a", 2, AT).is_none());
        assert_eq!(cache.bytes(), one);
    }

    #[test]
    fn many_distinct_pages_stay_within_the_bound() {
        let cache = PageCache::new(100_000);
        for i in 0..10_000 {
            cache.put(format!("/matches/{i}"), copy(&[0u8; 700]));
            assert!(cache.bytes() <= 100_000);
        }
        assert!(cache.get("/matches/9999", 1, AT).is_some());
        assert!(cache.get("/matches/0", 1, AT).is_none());
    }

    /// The `#[get("…")]` routes of `source` whose handler takes a `web::Query`.
    fn routes_with_a_query(source: &str) -> Vec<String> {
        let mut found = Vec::new();
        let mut route = None;
        for line in source.lines().map(str::trim) {
            if let Some(rest) = line.strip_prefix("#[get(\"") {
                route = rest.split('"').next().map(str::to_string);
            // Written in two pieces so that tests/api/page_fuzz.rs, which reads this source
            // for the structs that handlers read their query into, does not take it for one.
            } else if (line.contains(concat!("web::Query", "<"))
                || line.contains(concat!("league_filter", "(&")))
                && let Some(route) = route.take()
            {
                found.push(route);
            }
        }
        found
    }

    #[test]
    fn a_public_read_with_a_query_is_listed() {
        let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/web");
        let mut files: Vec<_> = std::fs::read_dir(web.join("pages/public"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        // The modules of `api::public_reads`.
        for module in [
            "leagues",
            "teams",
            "divisions",
            "matches",
            "standings",
            "playoffs",
            "scoreboard",
            "player_stats",
        ] {
            files.push(web.join(format!("api/{module}.rs")));
        }
        let mut found = Vec::new();
        for file in files {
            found.extend(routes_with_a_query(&std::fs::read_to_string(file).unwrap()));
        }
        found.sort();
        let mut listed: Vec<String> = PARAMS.iter().map(|(r, _)| r.to_string()).collect();
        listed.sort();
        assert_eq!(found, listed);
    }
}
