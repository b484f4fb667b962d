//! Who is asking, decided before a handler runs. A handler names what it needs and gets
//! nothing else:
//!
//! - [`Viewer`]: anyone (public pages show a login link or the user's name);
//! - [`Supervisor`]: anyone logged in (supervisors and the coordinator; the service decides
//!   which leagues they may touch);
//! - [`Admin`]: the coordinator;
//! - [`CsrfForm<T>`]: a form post whose session CSRF token is right (refused with 403
//!   before the handler otherwise);
//! - [`ApiJson<T>`]: a JSON body of the API's shape (415 unless sent as `application/json`,
//!   400 for not JSON, 422 naming the field).
//!
//! Where the identity comes from depends on where the request goes (docs/api.md §2.3, §2.4):
//!
//! - a page (any path outside `/api/`) is asked by a browser, and only its session cookie
//!   counts. An `Authorization` header is never read there: a proxy's HTTP Basic login or a
//!   stranger's bearer token does not make a page refuse anyone. A page that needs a login,
//!   asked with one of our API tokens (`Bearer spim_…`) and no session, answers 401 (a
//!   token is not a login, and a login form means nothing to a script);
//! - the API (`/api/`) takes a bearer token or the session cookie. A `Bearer` header there
//!   must hold a valid token of ours: malformed, unknown or revoked is a 401 on every route,
//!   reads included ([`refuse_bad_credentials`] runs before any route). A header of another
//!   scheme (a proxy's HTTP Basic login, which a browser behind it sends everywhere) is not
//!   read there either.
//!
//! An API write (any method but GET/HEAD under `/api/`) acts for a bearer token, or for a
//! browser session only together with the session's CSRF token in `X-CSRF-Token` (for the
//! pages' own scripts): the cookie alone is refused with 403, whatever the Origin.
//!
//! A refusal is JSON under `/api/`; a page sends an anonymous browser to the login form and
//! back, and shows anyone else an error page. A database error is a 500/503, never
//! "anonymous".

use crate::domain::ErrorCode;
use std::future::Future;
use std::pin::Pin;

use actix_web::http::{Method, StatusCode, header};
use actix_web::{FromRequest, HttpMessage, HttpRequest, HttpResponse, ResponseError, web};
use serde::de::DeserializeOwned;

use crate::domain::FieldError;
use crate::service::people::captains::{self, Captain};
use crate::service::{User, people::accounts};
use crate::web::AppState;
use crate::web::error::{AppError, PageError};
use crate::web::respond::see_other;
use crate::web::view::nav::Nav;

/// The session cookie's name with `--insecure-cookies`.
pub const SESSION_COOKIE: &str = "spades_session";

/// The session cookie's name when cookies are `Secure` (the default). A browser takes a
/// `__Host-` cookie only from this very host, over HTTPS, with `Path=/` and no `Domain`, so a
/// site on a sibling subdomain (`*.example.edu`) can neither set nor overwrite it. The prefix
/// needs `Secure`, hence the plain name with `--insecure-cookies`.
pub const SECURE_SESSION_COOKIE: &str = "__Host-spades_session";

/// The prefix of every API token (`accounts::create_token`).
const TOKEN_PREFIX: &str = "spim_";

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
    /// The user's password is a one-time password: until they choose their own, every page
    /// but the account page sends them there and the API answers 403
    /// `password_change_required` (docs/api.md §13.4).
    pub must_change_password: bool,
}

impl Authed {
    /// The CSRF token to put in forms.
    pub fn csrf(&self) -> &str {
        match &self.via {
            Via::Session { csrf, .. } => csrf,
            Via::Token => "",
        }
    }

    /// The site header for this user.
    pub fn nav(&self) -> Nav {
        Nav::of(&self.user, self.csrf())
    }

    /// A form post comes from a session and carries the session's CSRF token.
    pub fn check_csrf(&self, sent: &str) -> Result<(), AppError> {
        match &self.via {
            Via::Session { csrf, .. } if constant_eq(csrf, sent) => Ok(()),
            Via::Session { .. } => Err(AppError::Forbidden(
                "the form is out of date or not from this site (CSRF check failed): reload the page and try again".into(),
            )),
            Via::Token => Err(AppError::Forbidden(
                "a form is posted from a browser session, not with an API token".into(),
            )),
        }
    }
}

/// Whether two secrets are equal, in a time that does not depend on where they differ.
pub(crate) fn constant_eq(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Whether `req` is for the JSON API (else it is for a page).
fn is_api(req: &HttpRequest) -> bool {
    req.path().starts_with("/api/")
}

/// The session cookie's id, under the name this instance uses ([`AppState::session_cookie`]).
pub fn session_id(req: &HttpRequest) -> Option<String> {
    let state = req.app_data::<web::Data<AppState>>()?;
    req.cookie(state.session_cookie())
        .map(|c| c.value().to_string())
}

/// The request carries one of our API tokens (`Authorization: Bearer spim_…`), valid or
/// not. Anything else in the header (Basic, Digest, another service's bearer) is not ours.
fn sends_api_token(req: &HttpRequest) -> bool {
    authorization(req)
        .and_then(bearer)
        .is_some_and(|token| token.starts_with(TOKEN_PREFIX))
}

/// The `Authorization` header, if it is of the `Bearer` scheme (in any case, RFC 9110
/// §11.1): the one scheme the API reads. Another scheme (a proxy's `Basic` or `Digest`
/// login, which a browser behind it sends with every request) is nobody's business here.
pub fn bearer_header(req: &HttpRequest) -> Option<&str> {
    authorization(req).filter(|value| {
        value
            .split(' ')
            .next()
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("bearer"))
    })
}

/// The `Authorization` header as text (a value that is not visible ASCII is no credential).
fn authorization(req: &HttpRequest) -> Option<&str> {
    req.headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
}

/// The token of an `Authorization: Bearer <token>` header value (the word as written in
/// docs/api.md §2.3).
fn bearer(value: &str) -> Option<&str> {
    value.strip_prefix("Bearer ").map(str::trim)
}

/// Reads the identity of a request, if any: a page's from its session cookie only, the API's
/// from its bearer token, else its session cookie. Cached per request.
async fn identify(req: &HttpRequest) -> Result<Option<Authed>, AppError> {
    if let Some(found) = req.extensions().get::<Option<Authed>>() {
        return Ok(found.clone());
    }
    let state = req
        .app_data::<web::Data<AppState>>()
        .ok_or_else(|| AppError::Internal("no app state".into()))?;
    let found = match bearer_header(req) {
        Some(value) if is_api(req) => {
            let token = bearer(value).ok_or_else(|| {
                AppError::Unauthorized("use Authorization: Bearer <token>".into())
            })?;
            let holder = accounts::token_holder(&state.db, token)
                .await?
                .ok_or_else(|| {
                    AppError::Unauthorized(
                        "the API token is not valid (revoked or mistyped)".into(),
                    )
                })?;
            Some(Authed {
                user: holder.user,
                via: Via::Token,
                must_change_password: holder.must_change_password,
            })
        }
        _ => match session_id(req) {
            Some(id) => accounts::session_user(&state.db, &id)
                .await?
                .map(|live| Authed {
                    user: live.user,
                    via: Via::Session {
                        id,
                        csrf: live.csrf,
                    },
                    must_change_password: live.must_change_password,
                }),
            None => None,
        },
    };
    req.extensions_mut().insert(found.clone());
    Ok(found)
}

/// Refuses an API request whose `Bearer` header is malformed, or names a token that is
/// unknown or revoked, with its 401, before any route: reads too, which need no credentials
/// but must not answer as if bad ones were fine. Refuses too, with 403
/// `password_change_required`, the session or token of a user whose password is a one-time
/// password, on every route alike. `None`: go on.
pub async fn refuse_bad_credentials(req: &HttpRequest) -> Option<HttpResponse> {
    if !is_api(req) || (bearer_header(req).is_none() && session_id(req).is_none()) {
        return None;
    }
    let refused = match identify(req).await {
        Ok(found) => check_password_changed(req, &found).err(),
        Err(e) => Some(e),
    };
    refused.map(|e| e.error_response())
}

/// Why an extractor refused: JSON under `/api/`, else the way to the login form (for an
/// anonymous browser) or an HTML error page.
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
pub struct Refused {
    error: AppError,
    api: bool,
    /// An anonymous browser at a page: sent to the login form rather than shown a 401.
    to_login: bool,
    /// Where a page comes back to after logging in (GET requests only).
    back: Option<String>,
    /// Where an anonymous browser goes instead of the login form.
    to: Option<&'static str>,
}

impl Refused {
    /// No captain session: the API's 401, a page's way to `/captain` to ask for a link.
    fn captain(req: &HttpRequest) -> Refused {
        Refused {
            error: AppError::Unauthorized(
                "sign in as a captain first: ask for a link at /captain".into(),
            ),
            api: is_api(req),
            to_login: false,
            back: None,
            to: Some("/captain"),
        }
    }

    fn new(req: &HttpRequest, error: AppError) -> Refused {
        let api = is_api(req);
        let error = match error {
            // A script sent a token to a page: a login form would mean nothing to it.
            AppError::Unauthorized(_) if !api && sends_api_token(req) => AppError::Unauthorized(
                "pages take a browser session: log in; an API token (Authorization: Bearer …) works under /api/ only".into(),
            ),
            // A client that sent another scheme (Basic) hoping it counts.
            AppError::Unauthorized(_)
                if api && bearer_header(req).is_none() && authorization(req).is_some() =>
            {
                AppError::Unauthorized(
                    "the API reads only Authorization: Bearer <token> (an API token); this Authorization header is not read".into(),
                )
            }
            error => error,
        };
        Refused {
            error,
            api,
            to_login: !api && !sends_api_token(req),
            back: (req.method() == Method::GET).then(|| req.path().to_string()),
            to: None,
        }
    }
}

impl ResponseError for Refused {
    fn status_code(&self) -> StatusCode {
        match (&self.error, self.api) {
            (AppError::Unauthorized(_), false) if self.to_login || self.to.is_some() => {
                StatusCode::SEE_OTHER
            }
            (AppError::PasswordChangeRequired, false) => StatusCode::SEE_OTHER,
            (e, _) => e.status_code(),
        }
    }

    fn error_response(&self) -> HttpResponse {
        match (&self.error, self.api) {
            (e, true) => e.error_response(),
            (AppError::Unauthorized(_), false) if self.to.is_some() => {
                see_other(self.to.unwrap_or("/"))
            }
            (AppError::Unauthorized(_), false) if self.to_login => {
                let next: String = self
                    .back
                    .as_deref()
                    .unwrap_or("")
                    .chars()
                    .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '-' | '_' | '.'))
                    .collect();
                if next.is_empty() {
                    see_other("/login")
                } else {
                    see_other(&format!("/login?next={next}"))
                }
            }
            // A one-time password: the account page, where the user chooses their own.
            (AppError::PasswordChangeRequired, false) => see_other("/account"),
            // A token sent to a page: the page says so (a 401), with no login form.
            (AppError::Unauthorized(message), false) => {
                crate::web::error::error_page(StatusCode::UNAUTHORIZED, message.clone())
            }
            (e, false) => PageError(e.clone()).error_response(),
        }
    }
}

type Extracted<T> = Pin<Box<dyn Future<Output = Result<T, Refused>>>>;

/// What an extractor of identity ([`Viewer`], [`Supervisor`], [`Admin`]) accepts: the
/// request's identity (`None`: anonymous), or why not.
trait FromIdentity: Sized {
    fn from_identity(found: Option<Authed>) -> Result<Self, AppError>;
}

/// The header a page's script sends the session's CSRF token in, for an API write.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// An API write with a session cookie must carry the session's CSRF token in
/// [`CSRF_HEADER`]: a cookie is sent by the browser on its own, the header only by our pages.
fn check_api_write(req: &HttpRequest, found: &Option<Authed>) -> Result<(), AppError> {
    let write = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    match found {
        Some(
            authed @ Authed {
                via: Via::Session { .. },
                ..
            },
        ) if write && is_api(req) => {
            let sent = req
                .headers()
                .get(CSRF_HEADER)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            authed.check_csrf(sent).map_err(|_| {
                AppError::Forbidden(
                    "an API write with a session cookie needs the session's CSRF token in the X-CSRF-Token header; scripts and other programs use a bearer token (Authorization: Bearer …)".into(),
                )
            })
        }
        _ => Ok(()),
    }
}

/// The pages a user whose password is a one-time password may still reach: the account
/// page, where they choose their own, and logging in or out.
const WHILE_PASSWORD_CHANGE: &[(Method, &str)] = &[
    (Method::GET, "/account"),
    (Method::POST, "/account/password"),
    (Method::GET, "/login"),
    (Method::POST, "/logout"),
];

/// A user whose password is a one-time password (session or token) is refused everything
/// but [`WHILE_PASSWORD_CHANGE`] until they have chosen their own: the API with 403
/// `password_change_required`, a page by a redirect to the account page (docs/api.md §13.4).
fn check_password_changed(req: &HttpRequest, found: &Option<Authed>) -> Result<(), AppError> {
    let allowed = !is_api(req)
        && WHILE_PASSWORD_CHANGE
            .iter()
            .any(|(method, path)| req.method() == method && req.path() == *path);
    match found {
        Some(Authed {
            must_change_password: true,
            ..
        }) if !allowed => Err(AppError::PasswordChangeRequired),
        _ => Ok(()),
    }
}

/// The identity of `req` as `T` accepts it, or the refusal.
async fn identified<T: FromIdentity>(req: &HttpRequest) -> Result<T, Refused> {
    let found = identify(req).await.map_err(|e| Refused::new(req, e))?;
    check_password_changed(req, &found).map_err(|e| Refused::new(req, e))?;
    check_api_write(req, &found).map_err(|e| Refused::new(req, e))?;
    T::from_identity(found).map_err(|e| Refused::new(req, e))
}

/// `FromRequest` for the extractors of identity.
macro_rules! extract_identity {
    ($($name:ident),*) => {$(
        impl FromRequest for $name {
            type Error = Refused;
            type Future = Extracted<Self>;

            fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
                let req = req.clone();
                Box::pin(async move { identified(&req).await })
            }
        }
    )*};
}

extract_identity!(Viewer, Supervisor, Admin);

/// Anyone: the logged-in user, if there is one.
pub struct Viewer(pub Option<Authed>);

impl Viewer {
    pub fn nav(&self) -> Nav {
        self.0.as_ref().map(Authed::nav).unwrap_or_default()
    }

    pub fn user(&self) -> Option<&User> {
        self.0.as_ref().map(|a| &a.user)
    }
}

impl FromIdentity for Viewer {
    fn from_identity(found: Option<Authed>) -> Result<Self, AppError> {
        Ok(Viewer(found))
    }
}

/// Anyone logged in: a supervisor or the coordinator.
pub struct Supervisor(pub Authed);

impl FromIdentity for Supervisor {
    fn from_identity(found: Option<Authed>) -> Result<Self, AppError> {
        found
            .map(Supervisor)
            .ok_or_else(|| AppError::Unauthorized("log in first".into()))
    }
}

/// The coordinator (403 for a supervisor).
pub struct Admin(pub Authed);

impl FromIdentity for Admin {
    fn from_identity(found: Option<Authed>) -> Result<Self, AppError> {
        let Supervisor(authed) = Supervisor::from_identity(found)?;
        if !authed.user.is_admin() {
            return Err(AppError::Forbidden(
                "only an admin (the IM coordinator) may do this".into(),
            ));
        }
        Ok(Admin(authed))
    }
}

/// A captain's session (docs/api.md §20), under the session cookie: their page, and the
/// API calls a captain may make. An API write needs the session's CSRF token in
/// [`CSRF_HEADER`], as an account's session does. Anyone else: 401 (a page sends them to
/// `/captain`).
pub struct CaptainSession(pub Captain);

/// The captain of the request's session cookie, if it is a live captain session.
async fn captain_of(req: &HttpRequest) -> Result<Option<Captain>, AppError> {
    let (Some(state), Some(id)) = (req.app_data::<web::Data<AppState>>(), session_id(req)) else {
        return Ok(None);
    };
    let captain = captains::session(&state.db, &id).await?;
    let write = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if let Some(c) = &captain
        && write
        && is_api(req)
    {
        let sent = req
            .headers()
            .get(CSRF_HEADER)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !constant_eq(&c.csrf, sent) {
            return Err(AppError::Forbidden(
                "an API write with a session cookie needs the session's CSRF token in the X-CSRF-Token header".into(),
            ));
        }
    }
    Ok(captain)
}

impl FromRequest for CaptainSession {
    type Error = Refused;
    type Future = Extracted<Self>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            match captain_of(&req).await {
                Ok(Some(captain)) => Ok(CaptainSession(captain)),
                Ok(None) => Err(Refused::captain(&req)),
                Err(e) => Err(Refused::new(&req, e)),
            }
        })
    }
}

/// Who acts on a match where a captain may too (a lineup, a default): an account (a
/// supervisor's rights are checked by the service), or a captain for their own team.
pub enum Acting {
    Staff(Authed),
    Captain(Captain),
}

impl FromRequest for Acting {
    type Error = Refused;
    type Future = Extracted<Self>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            if let Ok(Supervisor(authed)) = identified::<Supervisor>(&req).await {
                return Ok(Acting::Staff(authed));
            }
            match captain_of(&req).await {
                Ok(Some(captain)) => Ok(Acting::Captain(captain)),
                // Not a captain either: the account's refusal (401, 403 for a missing CSRF
                // header or a password to change) says what to do.
                Ok(None) => identified::<Supervisor>(&req)
                    .await
                    .map(|Supervisor(authed)| Acting::Staff(authed)),
                Err(e) => Err(Refused::new(&req, e)),
            }
        })
    }
}

/// A form post (`application/x-www-form-urlencoded`) of `T` from a browser session, whose
/// `csrf` field is the session's token.
pub struct CsrfForm<T>(pub T);

#[derive(serde::Deserialize)]
struct CsrfField {
    #[serde(default)]
    csrf: String,
}

impl<T: DeserializeOwned + 'static> FromRequest for CsrfForm<T> {
    type Error = Refused;
    type Future = Extracted<Self>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        let body = web::Bytes::from_request(&req, payload);
        Box::pin(async move {
            let Supervisor(authed) = identified(&req).await?;
            let body = body.await.map_err(|e| {
                Refused::new(
                    &req,
                    AppError::Malformed(format!("the form could not be read: {e}")),
                )
            })?;
            let sent: CsrfField = serde_urlencoded::from_bytes(&body).unwrap_or(CsrfField {
                csrf: String::new(),
            });
            authed
                .check_csrf(&sent.csrf)
                .map_err(|e| Refused::new(&req, e))?;
            let form = serde_urlencoded::from_bytes(&body).map_err(|e| {
                Refused::new(
                    &req,
                    AppError::Malformed(format!(
                        "the form is not valid: {}",
                        crate::rules::strict::in_words(&e.to_string())
                    )),
                )
            })?;
            Ok(CsrfForm(form))
        })
    }
}

/// A JSON body read into `T`: a body not declared `application/json` (or `…+json`) is a
/// 415, not JSON at all a 400, JSON of the wrong shape a 422 naming the field, a body over the
/// size limit a 413.
///
/// The verdict waits for the handler ([`ApiJson::into_inner`]): extractors run at the same
/// time, so an error here would otherwise race the caller's credentials, and a request with
/// bad credentials must get its 401/403 whatever its body.
pub struct ApiJson<T>(Result<T, AppError>);

impl<T> ApiJson<T> {
    /// The body, once the handler's other extractors (the caller's rights) have passed.
    pub fn into_inner(self) -> Result<T, AppError> {
        self.0
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for ApiJson<T> {
    type Error = AppError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, AppError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        let parsed = read_json(req, payload, None);
        Box::pin(async move { Ok(ApiJson(parsed.await)) })
    }
}

/// Reads a JSON body into `T` (see [`ApiJson`]); an empty body, whatever its content type,
/// reads as `empty` where one is given (a body a route may go without).
fn read_json<T: DeserializeOwned + 'static>(
    req: &HttpRequest,
    payload: &mut actix_web::dev::Payload,
    empty: Option<T>,
) -> impl Future<Output = Result<T, AppError>> + 'static {
    let declared_json = is_json(req);
    let body = web::Bytes::from_request(req, payload);
    async move {
        match (body.await, empty) {
            (Ok(body), Some(empty)) if body.is_empty() => Ok(empty),
            // Too large comes first: it is what the client must change whatever it sends.
            (Ok(_), _) if !declared_json => Err(AppError::UnsupportedMediaType),
            (Ok(body), _) => parse(&body),
            (Err(e), _) => Err(unreadable(e)),
        }
    }
}

/// The error of a body that could not be read: too large (413), or cut off.
fn unreadable(e: actix_web::Error) -> AppError {
    if e.as_response_error().status_code() == StatusCode::PAYLOAD_TOO_LARGE {
        AppError::TooLarge
    } else {
        tracing::debug!(error = %e, "a body that could not be read");
        AppError::Malformed("the body could not be read in full; send it again".into())
    }
}

/// A JSON body a route may go without, otherwise as [`ApiJson`]: an empty body, whatever its
/// content type, is none, and so is JSON's `null` (`POST /api/v1/matches/{id}/start` took no
/// body before it took an idempotency key, and is still sent without one).
pub struct OptionalApiJson<T>(Result<Option<T>, AppError>);

impl<T> OptionalApiJson<T> {
    /// The body if one was sent, once the handler's other extractors have passed.
    pub fn into_inner(self) -> Result<Option<T>, AppError> {
        self.0
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for OptionalApiJson<T> {
    type Error = AppError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, AppError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        // JSON's `null` reads as none too, being an `Option`.
        let parsed = read_json(req, payload, Some(None));
        Box::pin(async move { Ok(OptionalApiJson(parsed.await)) })
    }
}

/// The request says its body is JSON: `application/json` or `application/…+json`, with any
/// parameters (`; charset=utf-8`).
pub(crate) fn is_json(req: &HttpRequest) -> bool {
    let essence = content_type(req);
    essence == "application/json"
        || essence
            .strip_prefix("application/")
            .is_some_and(|sub| sub.ends_with("+json"))
}

/// The request says its body is CSV text: `text/csv`, or `text/plain` (what a file picker or
/// a shell often sends), with any parameters.
pub(crate) fn is_csv(req: &HttpRequest) -> bool {
    matches!(content_type(req).as_str(), "text/csv" | "text/plain")
}

/// The media type of the request's body without its parameters, in lower case ("" when
/// none is said).
fn content_type(req: &HttpRequest) -> String {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Reads a JSON body into `T` (a struct only from an object, [`crate::rules::strict`]), naming
/// the field of a wrong shape (422) or 400 for not JSON.
pub fn parse<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, AppError> {
    // Not JSON at all is a 400, JSON of the wrong shape a 422.
    let value = crate::rules::strict::read_body(body).map_err(AppError::Malformed)?;
    crate::rules::strict::from_value(value).map_err(|e| {
        let (path, words) = field_in_words(&e.path().to_string(), &e.inner().to_string());
        let message = format!("{path}: {words}");
        AppError::Invalid(if path == "." {
            FieldError::new(ErrorCode::InvalidRequest, message)
        } else {
            FieldError::at(ErrorCode::InvalidRequest, path, message)
        })
    })
}

/// A deserializer's refusal at `path` as the field it is about and the words of
/// [`crate::rules::strict::in_words`]: a missing field is named itself (`teams[0].name`).
pub fn field_in_words(path: &str, message: &str) -> (String, String) {
    let words = crate::rules::strict::in_words(message);
    let missing = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next());
    match missing {
        Some(field) if path == "." => (field.to_string(), words),
        Some(field) => (format!("{path}.{field}"), words),
        None => (path.to_string(), words),
    }
}

/// The leagues a board's `?league=` names (repeatable; none: every league). A value that is
/// not a league's slug is no league: 404, as in a path.
pub fn league_filter(req: &HttpRequest) -> Result<Vec<crate::domain::Slug>, AppError> {
    url::form_urlencoded::parse(req.query_string().as_bytes())
        .filter(|(key, _)| key == "league")
        .map(|(_, value)| value.parse().map_err(|_| AppError::NotFound))
        .collect()
}
