//! Nothing shown to a logged-in user is kept by a browser or a proxy: every answer to a
//! request that may be answered for someone (a session cookie; under `/api/` also an
//! `Authorization: Bearer` header) gets `Cache-Control: no-store` (pages carry the session's CSRF token, and a shared
//! computer's back button must not show them after a logout). A page asked with an
//! `Authorization` header and no session is the anonymous page (pages never read the header)
//! and is cached as any. Static assets are the same for everyone and keep their own caching.

use actix_web::Error;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;

use crate::web::extract::{bearer_header, session_id};

pub async fn no_store_when_logged_in(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let api = req.path().starts_with("/api/");
    let private = !req.path().starts_with("/static/")
        && (session_id(req.request()).is_some() || (api && bearer_header(req.request()).is_some()));
    let mut response = next.call(req).await?;
    if private {
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    Ok(response)
}
