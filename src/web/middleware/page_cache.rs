//! Public pages rendered once per change, for anonymous visitors.
//!
//! On league night hundreds of phones and the TV ask for the same few pages (a match, the
//! standings, the scoreboard, the bracket) while the data changes a few times a minute. A GET
//! of a public path by a visitor who is not logged in is answered from the copy made at the current `data_version` (a counter that triggers bump
//! in the transaction of every change to leagues, teams, matches, hands and brackets:
//! migration 0005), so it is never older than the last commit; a copy is also dropped after
//! [`FRESH_FOR`], for what depends on the clock ("this week", "updated at"). Logged-in users
//! (whose pages carry their name and CSRF token) always get a fresh render. The answer says
//! `X-Page-Cache: hit` or `miss`.
//!
//! "Not logged in" is what the handlers go by ([`crate::web::extract`]): a page by its session
//! cookie alone, so a page asked with an `Authorization` header (a proxy's HTTP Basic login,
//! a token) and no session is the anonymous page, and may be served from the copy or make it;
//! an API read by its bearer token or its cookie, so a read with either is answered afresh
//! (and a bad token is refused before it gets here).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use actix_web::body::{self, BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::web::{Bytes, Data};
use actix_web::{Error, HttpResponse};

use crate::domain::Timestamp;
use crate::web::AppState;
use crate::web::extract::{bearer_header, session_id};

/// How long a copy may serve when nothing changes (clock-dependent parts of a page).
pub const FRESH_FOR: Duration = Duration::from_secs(5);

/// Copies kept at most; past that the cache starts again empty (query strings are free text).
const MAX_ENTRIES: usize = 1024;

const CACHE_HEADER: HeaderName = HeaderName::from_static("x-page-cache");

/// The copies, by path and query.
#[derive(Debug)]
pub struct PageCache {
    enabled: bool,
    entries: Mutex<HashMap<String, Copy>>,
}

#[derive(Debug, Clone)]
struct Copy {
    version: i64,
    /// On the service's clock (a test that moves the clock sees the copy age).
    made: Timestamp,
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl PageCache {
    pub fn new(enabled: bool) -> PageCache {
        PageCache {
            enabled,
            entries: Mutex::new(HashMap::new()),
        }
    }

    fn get(&self, key: &str, version: i64, now: Timestamp) -> Option<Copy> {
        let entries = self.entries.lock().ok()?;
        let copy = entries.get(key)?;
        let age = (now.0 - copy.made.0).to_std().unwrap_or(Duration::MAX);
        (copy.version == version && age < FRESH_FOR).then(|| copy.clone())
    }

    fn put(&self, key: String, copy: Copy) {
        if let Ok(mut entries) = self.entries.lock() {
            if entries.len() >= MAX_ENTRIES && !entries.contains_key(&key) {
                entries.clear();
            }
            entries.insert(key, copy);
        }
    }
}

/// A GET that the handlers answer as they answer anyone not logged in.
fn cacheable(req: &ServiceRequest) -> bool {
    let api = req.path().starts_with("/api/");
    req.method() == Method::GET
        && session_id(req.request()).is_none()
        && !(api && bearer_header(req.request()).is_some())
}

fn answer(copy: Copy, hit: &'static str) -> HttpResponse {
    let mut response = HttpResponse::with_body(copy.status, BoxBody::new(copy.body));
    *response.headers_mut() = copy.headers;
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
    let Some(state) = state.filter(|s| s.pages.enabled && cacheable(&req)) else {
        return Ok(next.call(req).await?.map_into_boxed_body());
    };
    // Without the counter there is no safe copy: render as usual.
    let Ok(version) = state.db.data_version().await else {
        return Ok(next.call(req).await?.map_into_boxed_body());
    };
    let key = req.uri().to_string();
    let now = state.db.clock().now();
    if let Some(copy) = state.pages.get(&key, version, now) {
        state.metrics.page_cache(true);
        return Ok(req.into_response(answer(copy, "hit")));
    }
    state.metrics.page_cache(false);
    let response = next.call(req).await?;
    if response.status() != StatusCode::OK || response.headers().contains_key(header::SET_COOKIE) {
        return Ok(response.map_into_boxed_body());
    }
    let (req, response) = response.into_parts();
    let (head, body) = response.into_parts();
    let body = body::to_bytes(body)
        .await
        .map_err(|_| actix_web::error::ErrorInternalServerError("page body"))?;
    let copy = Copy {
        version,
        made: now,
        status: head.status(),
        headers: head.headers().clone(),
        body,
    };
    state.pages.put(key, copy.clone());
    Ok(ServiceResponse::new(req, answer(copy, "miss")))
}
