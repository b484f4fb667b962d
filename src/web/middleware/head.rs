//! `HEAD` answers as `GET` does, without the body: the request's method becomes `GET` before
//! the routes are matched, so every `GET` route (pages and API) answers `HEAD` with the same
//! status and headers. The body is dropped on the wire by actix-http's HTTP/1 codec, which
//! remembers that the request it read was a `HEAD` and writes the answer's headers
//! (`Content-Length` included) but no body.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;

pub async fn head_as_get(
    mut req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    if req.method() == Method::HEAD {
        req.head_mut().method = Method::GET;
    }
    next.call(req).await
}
