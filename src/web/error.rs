//! One error type for every handler, rendered as the API's JSON error shape under `/api/`
//! and as an HTML page elsewhere. Internal causes are logged, never shown.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;

use crate::domain::{ErrorCode, FieldError};

/// The body of every JSON error (docs/api.md §3.1).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    pub error: FieldError,
    /// The matches a refusal is about, where it lists them (`unplayed_matches`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<i64>>)]
    pub matches: Option<Vec<crate::domain::MatchId>>,
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum AppError {
    /// The body is not JSON (400).
    #[error("{0}")]
    Malformed(String),
    /// The input is well-formed but wrong: an invalid hand, unknown rules (422).
    #[error("{0}")]
    Invalid(FieldError),
    #[error("not found")]
    NotFound,
    /// No or bad credentials (401).
    #[error("{0}")]
    Unauthorized(String),
    /// Logged in, but not allowed (403).
    #[error("{0}")]
    Forbidden(String),
    /// A session logged in with a one-time password, at the API (403).
    #[error("choose your own password first")]
    PasswordChangeRequired,
    /// The state changed under the request: stale version, already started... (409).
    #[error("{message}")]
    Conflict { code: ErrorCode, message: String },
    /// A conflict about these matches, listed beside the error (409).
    #[error("{message}")]
    ConflictOnMatches {
        code: ErrorCode,
        message: String,
        matches: Vec<crate::domain::MatchId>,
    },
    /// A conflict on one field of the input, a name already used (409, with the field).
    #[error("{}", .0.message)]
    ConflictOn(FieldError),
    /// The body is over the size limit (413).
    #[error("too large")]
    TooLarge,
    /// No route under this path answers this method (405); these methods do.
    #[error("method not allowed")]
    MethodNotAllowed(Vec<&'static str>),
    /// A write whose body is not declared `application/json` (415).
    #[error("unsupported media type")]
    UnsupportedMediaType,
    /// A roster sent as other than CSV text (415).
    #[error("not CSV")]
    NotCsv,
    /// The database stayed busy: nothing was saved, the client should send again (503).
    #[error("busy")]
    Busy,
    #[error("internal error: {0}")]
    Internal(String),
    /// Answering panicked (500, as `Internal`); the panic hook has logged it
    /// (`middleware::panics`), so the answer logs nothing more.
    #[error("internal error: a panic")]
    Panicked,
}

impl AppError {
    /// Why no route answered `method` on a path that `allowed` methods answer (none: an
    /// unknown path): 405 with those methods, else 404.
    pub fn unrouted(
        method: &actix_web::http::Method,
        allowed: Option<Vec<&'static str>>,
    ) -> AppError {
        match allowed {
            Some(allowed) if !allowed.contains(&method.as_str()) => {
                AppError::MethodNotAllowed(allowed)
            }
            _ => AppError::NotFound,
        }
    }

    fn code_and_message(&self) -> (ErrorCode, String) {
        match self {
            AppError::Malformed(m) => (ErrorCode::Malformed, m.clone()),
            AppError::Invalid(e) => (e.code, e.message.clone()),
            AppError::NotFound => (ErrorCode::NotFound, "not found".into()),
            AppError::Unauthorized(m) => (ErrorCode::Unauthorized, m.clone()),
            AppError::Forbidden(m) => (ErrorCode::Forbidden, m.clone()),
            AppError::PasswordChangeRequired => (
                ErrorCode::PasswordChangeRequired,
                "you logged in with a one-time password: choose your own on the account page (/account) first".into(),
            ),
            AppError::Conflict { code, message }
            | AppError::ConflictOnMatches { code, message, .. } => (*code, message.clone()),
            AppError::ConflictOn(e) => (e.code, e.message.clone()),
            AppError::TooLarge => (
                ErrorCode::TooLarge,
                "the body is too large (256 KiB at most)".into(),
            ),
            AppError::MethodNotAllowed(allowed) => (
                ErrorCode::MethodNotAllowed,
                format!("this path answers {} only", allowed.join(", ")),
            ),
            AppError::UnsupportedMediaType => (
                ErrorCode::UnsupportedMediaType,
                "send the body as JSON with Content-Type: application/json".into(),
            ),
            AppError::NotCsv => (
                ErrorCode::UnsupportedMediaType,
                "send the roster as CSV text with Content-Type: text/csv".into(),
            ),
            AppError::Busy => (
                ErrorCode::Busy,
                "the server is busy: not saved, send again".into(),
            ),
            AppError::Internal(_) | AppError::Panicked => {
                (ErrorCode::Internal, "internal error".into())
            }
        }
    }

    pub fn body(&self) -> ErrorBody {
        match self {
            AppError::Invalid(e) | AppError::ConflictOn(e) => ErrorBody {
                error: e.clone(),
                matches: None,
            },
            other => {
                let (code, message) = other.code_and_message();
                let matches = match other {
                    AppError::ConflictOnMatches { matches, .. } => Some(matches.clone()),
                    _ => None,
                };
                ErrorBody {
                    error: FieldError::new(code, message),
                    matches,
                }
            }
        }
    }
}

impl From<FieldError> for AppError {
    fn from(e: FieldError) -> Self {
        AppError::Invalid(e)
    }
}

impl From<crate::service::ServiceError> for AppError {
    fn from(e: crate::service::ServiceError) -> Self {
        use crate::service::ServiceError as S;
        match e {
            S::NotFound => AppError::NotFound,
            S::Forbidden(m) => AppError::Forbidden(m),
            S::Invalid(e) => AppError::Invalid(e),
            S::Conflict { code, message } => AppError::Conflict { code, message },
            S::ConflictOn(e) => AppError::ConflictOn(e),
            S::Unplayed { message, matches } => AppError::ConflictOnMatches {
                code: ErrorCode::UnplayedMatches,
                message,
                matches,
            },
            S::ResetNeeded(ids) => AppError::Conflict {
                code: ErrorCode::BracketResetNeeded,
                message: format!(
                    "this correction changes who plays in match(es) {}, already started; an admin confirms resetting them (they are cancelled, their hands kept) by sending the correction again with \"reset_bracket_path\": true",
                    ids.iter()
                        .map(|id| format!("#{id}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
            S::Busy => AppError::Busy,
            S::Corrupt(cause) => AppError::Internal(format!("corrupt stored data: {cause}")),
            S::Db(e) => AppError::Internal(cause_chain(&e)),
        }
    }
}

impl From<sqlx::Error> for AppError {
    /// Busy (the store's busy or lock-timeout code, or no pooled connection in time) is a
    /// 503, anything else a 500.
    fn from(e: sqlx::Error) -> Self {
        crate::service::ServiceError::from(e).into()
    }
}

impl From<askama::Error> for AppError {
    fn from(e: askama::Error) -> Self {
        AppError::Internal(format!("template: {}", cause_chain(&e)))
    }
}

/// `e` and each of its causes, `: `-separated, for the one log line of an internal error: a
/// cause whose words its error already repeats is not repeated.
pub fn cause_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let words = c.to_string();
        if !text.contains(&words) {
            text.push_str(": ");
            text.push_str(&words);
        }
        cause = c.source();
    }
    text
}

impl ResponseError for AppError {
    fn status_code(&self) -> StatusCode {
        match self {
            AppError::Malformed(_) => StatusCode::BAD_REQUEST,
            AppError::Invalid(_) => StatusCode::UNPROCESSABLE_ENTITY,
            AppError::NotFound => StatusCode::NOT_FOUND,
            AppError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            AppError::Forbidden(_) | AppError::PasswordChangeRequired => StatusCode::FORBIDDEN,
            AppError::Conflict { .. }
            | AppError::ConflictOn(_)
            | AppError::ConflictOnMatches { .. } => StatusCode::CONFLICT,
            AppError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            AppError::UnsupportedMediaType | AppError::NotCsv => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            AppError::Busy => StatusCode::SERVICE_UNAVAILABLE,
            AppError::Internal(_) | AppError::Panicked => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// JSON; pages wrap their errors in [`PageError`] to get HTML.
    fn error_response(&self) -> HttpResponse {
        // Logged here, once, inside the request's span (its id): nowhere else.
        if let AppError::Internal(cause) = self {
            tracing::error!(%cause, "request failed");
        }
        let mut response = HttpResponse::build(self.status_code());
        if matches!(self, AppError::Busy) {
            response.insert_header(("Retry-After", "1"));
        }
        if let AppError::MethodNotAllowed(allowed) = self {
            response.insert_header((actix_web::http::header::ALLOW, allowed.join(", ")));
        }
        response.json(self.body())
    }
}

/// An [`AppError`] shown as an HTML page.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PageError(#[from] pub AppError);

impl From<crate::service::ServiceError> for PageError {
    fn from(e: crate::service::ServiceError) -> Self {
        PageError(e.into())
    }
}

impl From<askama::Error> for PageError {
    fn from(e: askama::Error) -> Self {
        PageError(e.into())
    }
}

#[derive(askama::Template)]
#[template(path = "error.html")]
struct ErrorPage {
    nav: crate::web::view::nav::Nav,
    status: u16,
    title: String,
    message: String,
}

impl ResponseError for PageError {
    fn status_code(&self) -> StatusCode {
        self.0.status_code()
    }

    fn error_response(&self) -> HttpResponse {
        if let AppError::Internal(cause) = &self.0 {
            tracing::error!(%cause, "page failed");
        }
        // A page that needs a login sends the browser to the login form.
        if let AppError::Unauthorized(_) = &self.0 {
            return HttpResponse::SeeOther()
                .insert_header((actix_web::http::header::LOCATION, "/login"))
                .finish();
        }
        let mut response = error_page(self.status_code(), self.0.code_and_message().1);
        if let AppError::MethodNotAllowed(allowed) = &self.0
            && let Ok(value) = HeaderValue::from_str(&allowed.join(", "))
        {
            response.headers_mut().insert(header::ALLOW, value);
        }
        response
    }
}

/// The HTML error page of `status` saying `message`.
pub fn error_page(status: StatusCode, message: String) -> HttpResponse {
    let page = ErrorPage {
        nav: crate::web::view::nav::Nav::default(),
        status: status.as_u16(),
        title: status.canonical_reason().unwrap_or("Error").to_string(),
        message,
    };
    let html = askama::Template::render(&page)
        .unwrap_or_else(|_| "<!doctype html><title>Error</title><p>Error</p>".into());
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .body(html)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("outer")]
    struct Outer(#[source] Middle);

    #[derive(Debug, thiserror::Error)]
    #[error("middle: {0}")]
    struct Middle(#[source] std::io::Error);

    #[test]
    fn the_cause_chain_names_each_cause_once() {
        let e = Outer(Middle(std::io::Error::other("disk full")));
        // `middle` already says `disk full`: not repeated.
        assert_eq!(cause_chain(&e), "outer: middle: disk full");
        let e = sqlx::Error::Io(std::io::Error::other("connection reset"));
        assert_eq!(
            cause_chain(&e),
            "error communicating with database: connection reset"
        );
    }
}
