//! Nothing shown to a logged-in user is kept by a browser or a proxy: every answer to a
//! request with a session cookie or a bearer token gets `Cache-Control: no-store` (pages carry
//! the session's CSRF token, and a shared computer's back button must not show them after a
//! logout). Static assets are the same for everyone and keep their own caching.

use actix_web::Error;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;

use crate::web::extract::SESSION_COOKIE;

pub async fn no_store_when_logged_in(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let private = !req.path().starts_with("/static/")
        && (req.cookie(SESSION_COOKIE).is_some()
            || req.headers().contains_key(header::AUTHORIZATION));
    let mut response = next.call(req).await?;
    if private {
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    Ok(response)
}
