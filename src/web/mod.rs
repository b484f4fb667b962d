//! HTTP: pages (HTML), the JSON API, static assets, and the headers every answer carries.

pub mod api;
pub mod client_address;
pub mod error;
pub mod extract;
pub mod metrics;
pub mod middleware;
pub mod page_routes;
pub mod pages;
pub mod respond;
pub mod view;

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, web};

use crate::db::Db;
use error::{AppError, PageError};

/// What every handler can reach.
pub struct AppState {
    pub db: Db,
    /// Who the client is (the peer, or what a trusted proxy says).
    pub client_address: client_address::ClientAddress,
    /// Mark the session cookie `Secure` (off only for plain HTTP on a closed network).
    pub secure_cookies: bool,
    /// Public pages for anonymous visitors, rendered once per change.
    pub pages: middleware::page_cache::PageCache,
    /// The key of the login throttle's device cookies (the database's, read at first use).
    pub device_keys: crate::service::people::device_cookie::DeviceKeys,
    /// What `GET /metrics` shows.
    pub metrics: metrics::Metrics,
    /// Campus sign-in (OpenID Connect), when configured.
    pub campus: Option<crate::service::people::oidc::CampusSignIn>,
    /// The mail relay of notices in words (no password), when configured.
    pub mail: Option<String>,
    /// The relay one-time passwords are emailed through, when configured.
    pub mailer: Option<crate::service::notices::password_mail::Mailer>,
}

impl AppState {
    /// The name of the session cookie: `__Host-spades_session` when cookies are `Secure`,
    /// `spades_session` without (a `__Host-` cookie must be `Secure`).
    pub fn session_cookie(&self) -> &'static str {
        if self.secure_cookies {
            extract::SECURE_SESSION_COOKIE
        } else {
            extract::SESSION_COOKIE
        }
    }
}

/// Every route. What anyone may read about a league night comes last, in one scope wrapped
/// by the page cache; everything else (writes, pages of logged-in users, home, rules, the
/// calculator) comes first, so a path both have (`GET` and `POST /api/v1/leagues`) reaches
/// the write only by its method. All of it sits in a scope that turns `HEAD` into `GET`
/// before routing ([`middleware::head`]), so every `GET` route answers `HEAD` too, and that
/// refuses an API request with bad credentials before any route
/// ([`middleware::credentials`]), so no cached or public read answers it.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.app_data(web::PathConfig::default().error_handler(path_error))
        .app_data(web::QueryConfig::default().error_handler(query_error))
        .service(
            web::scope("")
                .wrap(actix_web::middleware::from_fn(
                    middleware::head::head_as_get,
                ))
                .configure(panic_probe)
                .wrap(actix_web::middleware::from_fn(
                    middleware::credentials::refuse_bad_api_credentials,
                ))
                .service(healthz)
                .configure(metrics::route)
                .service(asset)
                .service(module_asset)
                .configure(api::routes)
                .configure(pages::routes)
                .service(
                    web::scope("")
                        .wrap(actix_web::middleware::from_fn(
                            middleware::page_cache::serve_cached,
                        ))
                        .configure(api::public_reads)
                        .configure(pages::public::routes)
                        .configure(pages::public::bracket::routes)
                        // The scope takes every path left, so it answers the 404s (and the
                        // API's 405s) too.
                        .default_service(web::to(not_found)),
                ),
        );
}

/// For a proxy's health checks: 200 when the store answers and takes writes, 503 when it
/// answers read-only (a PostgreSQL standby: this instance must not get traffic), and which
/// store it is: `{"status":"ok","store":"postgresql","writable":true}`.
#[get("/healthz")]
async fn healthz(state: web::Data<AppState>) -> Result<HttpResponse, AppError> {
    let writable = state.db.writable().await?;
    let body = serde_json::json!({
        "status": if writable { "ok" } else { "read_only" },
        "store": state.db.kind().as_str(),
        "writable": writable,
    });
    let status = if writable {
        actix_web::http::StatusCode::OK
    } else {
        actix_web::http::StatusCode::SERVICE_UNAVAILABLE
    };
    Ok(HttpResponse::build(status).json(body))
}

/// A file of `static/`, compiled into the binary so it runs from anywhere.
macro_rules! asset {
    ($name:literal, $type:literal) => {
        (
            $name,
            $type,
            include_bytes!(concat!("../../static/", $name)),
        )
    };
}

const ASSETS: &[(&str, &str, &[u8])] = &[
    asset!("style.css", "text/css; charset=utf-8"),
    asset!("print.css", "text/css; charset=utf-8"),
    asset!("admin.css", "text/css; charset=utf-8"),
    asset!("console.css", "text/css; charset=utf-8"),
    asset!("public.css", "text/css; charset=utf-8"),
    asset!("bracket.css", "text/css; charset=utf-8"),
    asset!("calculator.js", "text/javascript; charset=utf-8"),
    asset!("console.js", "text/javascript; charset=utf-8"),
    // The console's outbox: ES modules, served under /static/outbox/ (they import each other).
    asset!("outbox/main.js", "text/javascript; charset=utf-8"),
    asset!("outbox/browser.js", "text/javascript; charset=utf-8"),
    asset!("outbox/queue.js", "text/javascript; charset=utf-8"),
    asset!("outbox/transport.js", "text/javascript; charset=utf-8"),
    asset!("outbox/ui.js", "text/javascript; charset=utf-8"),
    asset!("outbox/words.js", "text/javascript; charset=utf-8"),
    asset!("session.js", "text/javascript; charset=utf-8"),
    asset!("public.js", "text/javascript; charset=utf-8"),
    asset!("bracket.js", "text/javascript; charset=utf-8"),
    asset!("file_box.js", "text/javascript; charset=utf-8"),
    asset!("menu.js", "text/javascript; charset=utf-8"),
    asset!("favicon.svg", "image/svg+xml"),
    // The scoring engine for the console (rules-wasm/, refreshed as its test says).
    asset!("rules.wasm", "application/wasm"),
    // The console's ES modules (served under /static/console/).
    asset!("console/engine.js", "text/javascript; charset=utf-8"),
    asset!("console/preview.js", "text/javascript; charset=utf-8"),
    asset!("console/form.js", "text/javascript; charset=utf-8"),
    // The league form's live preview of the rules (served under /static/admin/).
    asset!("admin/rules_form.js", "text/javascript; charset=utf-8"),
];

#[get("/static/{name}")]
async fn asset(name: web::Path<String>) -> Result<HttpResponse, PageError> {
    serve_asset(&name)
}

/// The file `name` of [`ASSETS`], or a 404.
fn serve_asset(name: &str) -> Result<HttpResponse, PageError> {
    let (_, content_type, body) = ASSETS
        .iter()
        .find(|(file, _, _)| *file == name)
        .ok_or(AppError::NotFound)?;
    Ok(HttpResponse::Ok()
        .content_type(*content_type)
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .body(*body))
}

/// One of the console's ES modules, `static/console/{module}` (the preview and the engine)
/// or `static/outbox/{module}` (the outbox): imported by path, so they keep their folder.
#[get("/static/{folder}/{module}")]
async fn module_asset(path: web::Path<(String, String)>) -> Result<HttpResponse, PageError> {
    let (folder, module) = path.into_inner();
    serve_asset(&format!("{folder}/{module}"))
}

/// Anything else: a 405 (with `Allow`) for a known path asked with a method it does not
/// answer, else a 404; JSON under the API ([`api::fallback`]), HTML pages elsewhere
/// ([`page_routes`]).
pub async fn not_found(request: HttpRequest) -> HttpResponse {
    use actix_web::ResponseError;
    if request.path().starts_with("/api/") {
        api::fallback::unrouted(request.method(), request.path()).error_response()
    } else {
        PageError(page_routes::unrouted(request.method(), request.path())).error_response()
    }
}

/// A query string that does not read (`?week=a&week=b`, `?id=abc` where a number belongs): a
/// 400, `malformed` in the JSON error shape under the API, an HTML page elsewhere, rather
/// than actix's plain-text one.
fn query_error(
    error: actix_web::error::QueryPayloadError,
    request: &HttpRequest,
) -> actix_web::Error {
    let why = match &error {
        actix_web::error::QueryPayloadError::Deserialize(e) => query_words(&e.to_string()),
        _ => "it is not a query string".to_string(),
    };
    let error = AppError::Malformed(format!("the query string does not read: {why}"));
    if request.path().starts_with("/api/") {
        error.into()
    } else {
        PageError(error).into()
    }
}

/// Why a query string's values do not read, in words: never the parser's own (`invalid digit
/// found in string`, ``provided string was not `true` or `false` ``).
fn query_words(said: &str) -> String {
    if let Some(rest) = said.strip_prefix("duplicate field `") {
        let name = rest.split('`').next().unwrap_or_default();
        return format!("\"{name}\" is given twice");
    }
    let words = crate::rules::strict::in_words(said);
    if words != said {
        return words;
    }
    if said.contains("`true` or `false`") {
        return "a value must be true or false".into();
    }
    "a value is not of the kind its parameter takes (a whole number, true or false, a day)".into()
}

/// Only in a debug build, and only when `SPADES_PANIC_PROBE=1`: `GET /__panic` and
/// `GET /api/v1/__panic` panic, for the test that a panic is one 500 and one log line
/// (tests/api/panics.rs). Release builds do not have it.
fn panic_probe(cfg: &mut web::ServiceConfig) {
    #[cfg(debug_assertions)]
    if std::env::var_os("SPADES_PANIC_PROBE").is_some_and(|v| v == "1") {
        async fn probe() -> HttpResponse {
            panic!("the panic probe was asked to panic")
        }
        cfg.route("/__panic", web::get().to(probe))
            .route("/api/v1/__panic", web::get().to(probe));
    }
    #[cfg(not(debug_assertions))]
    let _ = cfg;
}

/// A path segment that does not parse (`/api/v1/matches/abc`): no such thing, a 404 (JSON
/// under the API, an HTML page elsewhere) rather than actix's plain-text one.
fn path_error(_: actix_web::error::PathError, request: &HttpRequest) -> actix_web::Error {
    if request.path().starts_with("/api/") {
        AppError::NotFound.into()
    } else {
        PageError(AppError::NotFound).into()
    }
}

#[cfg(test)]
mod tests {
    use actix_web::test::TestRequest;

    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Week {
        week: Option<String>,
    }

    #[test]
    fn a_query_that_does_not_read_is_a_400_in_the_shape_of_the_path() {
        for (path, content_type) in [
            ("/api/v1/leagues", "application/json"),
            ("/leagues/fall/schedule", "text/html; charset=utf-8"),
        ] {
            let error = serde_urlencoded::from_str::<Week>("week=a&week=b").unwrap_err();
            let request = TestRequest::get().uri(path).to_http_request();
            let response = query_error(
                actix_web::error::QueryPayloadError::Deserialize(error),
                &request,
            )
            .as_response_error()
            .error_response();
            assert_eq!(response.status(), 400, "{path}");
            assert_eq!(
                response.headers().get("content-type").unwrap(),
                content_type,
                "{path}"
            );
        }
    }

    #[test]
    fn a_query_that_does_not_read_is_said_in_words_never_the_parsers() {
        assert_eq!(
            query_words("duplicate field `week`"),
            "\"week\" is given twice"
        );
        assert_eq!(
            query_words("provided string was not `true` or `false`"),
            "a value must be true or false"
        );
        let number = query_words("invalid digit found in string");
        assert!(number.starts_with("a value is not of the kind"), "{number}");
        assert_eq!(
            query_words("unknown field `x`, expected `week`"),
            "\"x\" is not a field this takes"
        );
    }
}
