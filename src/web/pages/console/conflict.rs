//! The clear conflict page (409): what happened (focused, "Error: " in the title), the
//! current state, a link to reload.

use crate::web::respond::private_page;
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use askama::Template;

use super::{back_to_console, result_words, supervised};
use crate::domain::ErrorCode;
use crate::domain::MatchId;
use crate::service::ServiceError;
use crate::service::night::match_view::MatchView;
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::Authed;
use crate::web::view::nav::Nav;

#[derive(Template)]
#[template(path = "console/conflict.html")]
struct ConflictPage {
    nav: Nav,
    m: MatchView,
    message: String,
    result: String,
    /// A stale version: someone else changed the match (otherwise the message says why).
    stale: bool,
}

/// Nothing was saved: `message` says why, and the match as it is now is shown.
pub(super) async fn conflict(
    state: &AppState,
    who: &Authed,
    id: MatchId,
    code: ErrorCode,
    message: String,
) -> Result<HttpResponse, PageError> {
    let view = supervised(state, who, id).await?;
    private_page(
        StatusCode::CONFLICT,
        ConflictPage {
            nav: who.nav(),
            result: result_words(&view),
            m: view,
            message,
            stale: code == ErrorCode::VersionConflict,
        },
    )
}

/// The answer to a console post once the service has answered: back to the console when it
/// was done, this page when the match changed under the form; any other error as it is.
pub(super) async fn after_post<T>(
    state: &AppState,
    who: &Authed,
    id: MatchId,
    done: Result<T, ServiceError>,
) -> Result<HttpResponse, PageError> {
    match done {
        Ok(_) => Ok(back_to_console(id)),
        Err(ServiceError::Conflict { code, message }) => {
            conflict(state, who, id, code, message).await
        }
        Err(e) => Err(e.into()),
    }
}
