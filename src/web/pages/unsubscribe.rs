//! The unsubscribe link of every notice by email (RFC 8058): `GET /unsubscribe/{token}` shows
//! whether this address gets the league's notices, with one button to stop or restart them;
//! `POST /unsubscribe/{token}` stops them (a mail program's one-click unsubscribe posts
//! `List-Unsubscribe=One-Click` there, without a session); `POST …/resubscribe` starts them
//! again. The token is the secret: no login, and the address is never shown.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;

use crate::service::notices::subscriptions;
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::respond::{html, no_store};
use crate::web::view::nav::Nav;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(show).service(stop).service(restart);
}

#[derive(Template)]
#[template(path = "notices/unsubscribe.html")]
struct UnsubscribePage {
    nav: Nav,
    title: String,
    state: String,
    league: String,
    token: String,
    stopped: bool,
}

/// The page of subscription `token` as it stands; 404 for a token no notice gave.
async fn render(state: &AppState, token: &str, title: &str) -> Result<HttpResponse, PageError> {
    let sub = subscriptions::by_token(&state.db, token).await?;
    let league = sub.league_name;
    let said = if sub.stopped {
        format!("This address no longer gets {league}'s notices by email.")
    } else {
        format!(
            "This address gets {league}'s notices by email (a match moved, postponed or cancelled, a forfeit, the playoffs, a corrected result)."
        )
    };
    let body = UnsubscribePage {
        nav: Nav::default(),
        title: title.into(),
        state: said,
        league,
        token: token.into(),
        stopped: sub.stopped,
    }
    .render()?;
    // The address holds a secret (the token): kept by no cache.
    Ok(no_store(html(StatusCode::OK, body)))
}

#[get("/unsubscribe/{token}")]
async fn show(
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    render(&state, &token, "Notices by email").await
}

#[post("/unsubscribe/{token}")]
async fn stop(
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    subscriptions::set(&state.db, &token, true).await?;
    render(&state, &token, "Notices stopped").await
}

#[post("/unsubscribe/{token}/resubscribe")]
async fn restart(
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    subscriptions::set(&state.db, &token, false).await?;
    render(&state, &token, "Notices started again").await
}
