//! Who is asking: a session cookie (pages) or a bearer token (API). Authorization is decided
//! here once per scope, not in each handler: [`Authed`] for any logged-in user, [`Admin`]
//! for the coordinator. Also the CSRF check, the cross-site refusal and login throttling.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use actix_web::body::EitherBody;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform, forward_ready};
use actix_web::http::{Method, header};
use actix_web::{FromRequest, HttpMessage, HttpRequest, HttpResponse, ResponseError, web};

use super::AppState;
use super::error::AppError;
use crate::service::{User, accounts};

pub const SESSION_COOKIE: &str = "spades_session";

/// How the user proved who they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Via {
    /// A browser session, with its CSRF token.
    Session {
        id: String,
        csrf: String,
    },
    Token,
}

/// A logged-in user (401 otherwise).
#[derive(Debug, Clone)]
pub struct Authed {
    pub user: User,
    pub via: Via,
}

impl Authed {
    /// The CSRF token to put in forms.
    pub fn csrf(&self) -> &str {
        match &self.via {
            Via::Session { csrf, .. } => csrf,
            Via::Token => "",
        }
    }

    /// Form posts from a session must carry the session's CSRF token.
    pub fn check_csrf(&self, sent: &str) -> Result<(), AppError> {
        match &self.via {
            Via::Session { csrf, .. } if constant_eq(csrf, sent) => Ok(()),
            Via::Session { .. } => Err(AppError::Forbidden(
                "the form is out of date or not from this site (CSRF check failed): reload the page and try again".into(),
            )),
            Via::Token => Ok(()),
        }
    }
}

fn constant_eq(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Reads the identity of a request, if any. Cached per request.
pub async fn identify(req: &HttpRequest) -> Result<Option<Authed>, AppError> {
    if let Some(found) = req.extensions().get::<Option<Authed>>() {
        return Ok(found.clone());
    }
    let state = req
        .app_data::<web::Data<AppState>>()
        .ok_or_else(|| AppError::Internal("no app state".into()))?;
    let found = if let Some(value) = req.headers().get(header::AUTHORIZATION) {
        let token = value
            .to_str()
            .ok()
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim)
            .ok_or_else(|| AppError::Unauthorized("use Authorization: Bearer <token>".into()))?;
        let user = accounts::token_user(&state.db, token)
            .await?
            .ok_or_else(|| {
                AppError::Unauthorized("the API token is not valid (revoked or mistyped)".into())
            })?;
        Some(Authed {
            user,
            via: Via::Token,
        })
    } else if let Some(cookie) = req.cookie(SESSION_COOKIE) {
        let id = cookie.value().to_string();
        accounts::session_user(&state.db, &id)
            .await?
            .map(|(user, csrf)| Authed {
                user,
                via: Via::Session { id, csrf },
            })
    } else {
        None
    };
    req.extensions_mut().insert(found.clone());
    Ok(found)
}

impl FromRequest for Authed {
    type Error = AppError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            identify(&req)
                .await?
                .ok_or_else(|| AppError::Unauthorized("log in first".into()))
        })
    }
}

/// A logged-in user who may or may not be there (public pages show a login link).
pub struct MaybeAuthed(pub Option<Authed>);

impl FromRequest for MaybeAuthed {
    type Error = AppError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move { Ok(MaybeAuthed(identify(&req).await.unwrap_or(None))) })
    }
}

/// The coordinator (403 for a supervisor, 401 for nobody).
pub struct Admin(pub Authed);

impl FromRequest for Admin {
    type Error = AppError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let authed = identify(&req)
                .await?
                .ok_or_else(|| AppError::Unauthorized("log in first".into()))?;
            if !authed.user.is_admin() {
                return Err(AppError::Forbidden(
                    "only an admin (the IM coordinator) may do this".into(),
                ));
            }
            Ok(Admin(authed))
        })
    }
}

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

/// Failed logins per IP and per username in a sliding window; decided before any hashing.
pub struct Throttle {
    failures: Mutex<HashMap<String, Vec<Instant>>>,
    window: Duration,
    per_user: usize,
    per_ip: usize,
}

impl Default for Throttle {
    fn default() -> Self {
        Throttle {
            failures: Mutex::new(HashMap::new()),
            window: Duration::from_secs(15 * 60),
            per_user: 5,
            per_ip: 20,
        }
    }
}

impl Throttle {
    /// Seconds to wait before another try, if this IP or username is locked out.
    pub fn retry_after(&self, ip: &str, username: &str) -> Option<u64> {
        let mut map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        let mut wait = None;
        for (key, limit) in [
            (format!("ip:{ip}"), self.per_ip),
            (format!("user:{}", username.to_lowercase()), self.per_user),
        ] {
            if let Some(times) = map.get_mut(&key) {
                times.retain(|t| now.duration_since(*t) < self.window);
                if times.len() >= limit
                    && let Some(oldest) = times.first()
                {
                    let left = self
                        .window
                        .saturating_sub(now.duration_since(*oldest))
                        .as_secs()
                        .max(1);
                    wait = Some(wait.map_or(left, |w: u64| w.max(left)));
                }
            }
        }
        wait
    }

    pub fn failed(&self, ip: &str, username: &str) {
        let mut map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        for key in [
            format!("ip:{ip}"),
            format!("user:{}", username.to_lowercase()),
        ] {
            map.entry(key).or_default().push(now);
        }
    }

    pub fn succeeded(&self, username: &str) {
        let mut map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        map.remove(&format!("user:{}", username.to_lowercase()));
    }
}

/// The peer address of a request (for throttling).
pub fn client_ip(req: &HttpRequest) -> String {
    req.peer_addr()
        .map_or_else(|| "unknown".into(), |a| a.ip().to_string())
}

/// `Cache-Control: no-store` for pages only a logged-in user sees.
pub fn private(mut response: HttpResponse) -> HttpResponse {
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-store"),
    );
    response
}
