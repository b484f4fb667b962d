//! What wraps every request: its id, log line and metrics, the security headers, the
//! cross-site refusal, a panic caught as one 500, `HEAD` as `GET`, the API's refusal of bad
//! credentials and the page cache for anonymous visitors.

pub mod credentials;
pub mod head;
pub mod observe;
pub mod page_cache;
pub mod panics;
pub mod private;
pub mod same_origin;

use actix_web::http::header;
use actix_web::middleware::DefaultHeaders;

/// No inline script, no framing, no sniffing: on every answer. `'wasm-unsafe-eval'` lets
/// the console compile the scoring engine (`/static/rules.wasm`) and nothing else: it does
/// not allow `eval` of script text.
pub const SECURITY_HEADERS: [(header::HeaderName, &str); 4] = [
    (
        header::CONTENT_SECURITY_POLICY,
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; \
         object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    (header::X_FRAME_OPTIONS, "DENY"),
    (header::REFERRER_POLICY, "same-origin"),
];

/// [`SECURITY_HEADERS`] on every answer.
pub fn security_headers() -> DefaultHeaders {
    SECURITY_HEADERS
        .into_iter()
        .fold(DefaultHeaders::new(), |headers, header| headers.add(header))
}
