//! Refuses unsafe requests sent from another site (CSRF defence in depth, beside the
//! per-session token that `CsrfForm` checks).

use std::future::Future;
use std::pin::Pin;

use actix_web::ResponseError;
use actix_web::body::EitherBody;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform, forward_ready};
use actix_web::http::{Method, header};

use crate::web::error::AppError;

/// Refuses unsafe requests sent from another site: `Sec-Fetch-Site: cross-site`, or an
/// `Origin` whose host is not this one.
pub struct SameOrigin;

impl<S, B> Transform<S, ServiceRequest> for SameOrigin
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error> + 'static,
    B: 'static,
{
    type Response = ServiceResponse<EitherBody<B>>;
    type Error = actix_web::Error;
    type Transform = SameOriginService<S>;
    type InitError = ();
    type Future = std::future::Ready<Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        std::future::ready(Ok(SameOriginService { service }))
    }
}

pub struct SameOriginService<S> {
    service: S,
}

fn cross_site(req: &ServiceRequest) -> bool {
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return false;
    }
    let headers = req.headers();
    if headers
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == "cross-site" || v == "same-site")
    {
        return true;
    }
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let origin_host = origin
        .split_once("://")
        .map_or(origin, |(_, rest)| rest)
        .trim_end_matches('/');
    // Behind a reverse proxy the public host may arrive as X-Forwarded-Host.
    let same = [header::HOST.as_str(), "x-forwarded-host"]
        .iter()
        .any(|name| {
            headers
                .get(*name)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|host| origin_host.eq_ignore_ascii_case(host.trim()))
        });
    origin == "null" || !same
}

impl<S, B> Service<ServiceRequest> for SameOriginService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error> + 'static,
    B: 'static,
{
    type Response = ServiceResponse<EitherBody<B>>;
    type Error = actix_web::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>>>>;

    forward_ready!(service);

    fn call(&self, req: ServiceRequest) -> Self::Future {
        if cross_site(&req) {
            let response =
                AppError::Forbidden("cross-site requests are refused".into()).error_response();
            return Box::pin(async move { Ok(req.into_response(response).map_into_right_body()) });
        }
        let fut = self.service.call(req);
        Box::pin(async move { Ok(fut.await?.map_into_left_body()) })
    }
}
