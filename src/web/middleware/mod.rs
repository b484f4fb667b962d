//! What wraps every request: the security headers, the cross-site refusal, `HEAD` as `GET`,
//! the API's refusal of bad credentials and the page cache for anonymous visitors.

pub mod credentials;
pub mod head;
pub mod page_cache;
pub mod private;
pub mod same_origin;

use actix_web::http::header;
use actix_web::middleware::DefaultHeaders;

/// No inline script, no framing, no sniffing.
pub fn security_headers() -> DefaultHeaders {
    DefaultHeaders::new()
        .add((
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
             object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        ))
        .add((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .add((header::X_FRAME_OPTIONS, "DENY"))
        .add((header::REFERRER_POLICY, "same-origin"))
}
