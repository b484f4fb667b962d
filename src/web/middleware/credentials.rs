//! An API request whose `Authorization: Bearer …` header is malformed, or names an unknown or
//! revoked token, is refused with 401 before any route, reads included (docs/api.md §2.3): the
//! public reads need no credentials, but a client sending bad ones must learn it at once, not
//! on its first write. Pages never read the header ([`crate::web::extract`]). A session or
//! token of a user who must first replace a one-time password is refused here too (403).

use actix_web::Error;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;

use crate::web::extract::refuse_bad_credentials;

pub async fn refuse_bad_api_credentials(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    if let Some(refusal) = refuse_bad_credentials(req.request()).await {
        return Ok(req.into_response(refusal));
    }
    Ok(next.call(req).await?.map_into_boxed_body())
}
