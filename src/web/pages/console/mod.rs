//! The supervisor console, made for a phone at a noisy table: tonight's matches, and per
//! match the score, the clock, the hand-entry form (dealer and first bidder shown, only the
//! bids the rules allow now), the scoresheet with each hand's breakdown, corrections with a
//! reason and their history, time calls and forfeits, check-in before the start (with the
//! forfeit offered once the grace period has passed) and sportsmanship ratings after the end.
//! Every write goes through `service::matches` or `service::conduct` (the same functions as
//! the JSON API), every read through a service function. Works without JavaScript;
//! `console.js` only adds the countdown, the live "tricks sum to 13" check and the focus on
//! an error summary.
//!
//! - [`tonight`]: the evening's list (`/supervise`);
//! - [`match_console`]: a match's console, start, record a hand, call time, forfeit;
//! - [`conduct`]: check-in, the forfeit offered after the grace period (its confirmation
//!   page), sportsmanship ratings;
//! - [`correct`]: correcting a hand, and an admin's confirmation of a bracket-path reset;
//! - [`form`]: the hand form, for a new hand and a correction;
//! - [`conflict`]: the page when the match changed under a form.
//!
//! Every handler takes a [`Supervisor`](crate::web::extract::Supervisor) (anyone else is sent
//! to the login form) and every post a [`CsrfForm`] (403 without the session's token).

mod conduct;
mod conflict;
mod correct;
mod form;
mod match_console;
mod offline;
mod tonight;

use actix_web::{HttpResponse, web};

use crate::domain::{GameStatus, MatchId, MatchStatus};
use crate::service::console_views;
use crate::service::match_view::MatchView;
use crate::web::AppState;
use crate::web::error::{AppError, PageError};
use crate::web::extract::{Authed, CsrfForm};
use crate::web::respond::see_other;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(tonight::tonight)
        .service(match_console::console)
        .service(match_console::start)
        .service(match_console::record)
        .service(match_console::call_time)
        .service(match_console::forfeit)
        .service(conduct::confirm_forfeit)
        .service(conduct::check_in)
        .service(conduct::rate)
        .service(correct::edit_hand)
        .service(correct::correct)
        .service(offline::service_worker);
}

/// A console form as posted: every field in order (the hand form's names vary).
type Fields = CsrfForm<Vec<(String, String)>>;

/// The console of match `id`.
fn console_path(id: MatchId) -> String {
    format!("/supervise/matches/{id}")
}

/// Back to the console after a post (POST/redirect/GET).
fn back_to_console(id: MatchId) -> HttpResponse {
    see_other(&console_path(id))
}

/// A match the user may supervise (404 for anyone else: it does not exist for them).
async fn supervised(state: &AppState, who: &Authed, id: MatchId) -> Result<MatchView, PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    Ok(console_views::supervised(&mut conn, &who.user, id).await?)
}

/// The players at the table of `view`, `[team][player]`.
async fn lineup(state: &AppState, view: &MatchView) -> Result<[[String; 2]; 2], PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    Ok(console_views::lineup(&mut conn, view).await?)
}

/// The result in words, prominent: who won and how, or the state of play.
fn result_words(view: &MatchView) -> String {
    if view.status == MatchStatus::InProgress
        && view.game_status == GameStatus::InProgress
        && view.time_called_at.is_some()
    {
        return "Time called: this is the last hand".into();
    }
    crate::service::summaries::state_words(view)
}
