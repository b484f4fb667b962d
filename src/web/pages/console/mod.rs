//! The supervisor console, made for a phone at a noisy table: tonight's matches, and per
//! match the score, the clock, the hand-entry form (dealer and first bidder shown, only the
//! bids the rules allow now), the scoresheet with each hand's breakdown, corrections with a
//! reason and their history, time calls and forfeits, check-in before the start (with the
//! forfeit offered once the grace period has passed) and sportsmanship ratings after the end.
//! Every write goes through `service::night::matches`, `service::night::conduct` or `service::night::lineups` (the
//! same functions as the JSON API), every read through a service function. Works without
//! JavaScript; `console.js` only adds the countdown, the live "tricks sum to 13" check, the
//! focus on an error summary (and on the field a summary's link points to), and a lineup's
//! card reader and camera scan.
//!
//! Made for a phone: a refused post comes back with one [`ErrorSummary`] at the top of the
//! page (`templates/console/error_summary.html`, focused on load, a link to each bad field,
//! the title starting "Error: "), each message next to its field; the teams are named in
//! every message ([`message_of`]); one date and time format ([`when`], [`when_local`]); the
//! scoresheet is a card per hand on a narrow screen; calling time and a forfeit take a
//! second tap on a clearly different button.
//!
//! - [`tonight`]: the evening's list (`/supervise`);
//! - [`match_console`]: a match's console, start, record a hand, call time, forfeit;
//! - [`conduct`]: check-in, the forfeit offered after the grace period (its confirmation
//!   page), sportsmanship ratings;
//! - [`lineup`]: each team's two players at the table (picked, or by student ID), before
//!   the first hand and as a substitution;
//! - [`correct`]: correcting a hand, and an admin's confirmation of a bracket-path reset;
//! - [`form`]: the hand form, for a new hand and a correction;
//! - [`conflict`]: the page when the match changed under a form.
//!
//! Every handler takes a [`Supervisor`](crate::web::extract::Supervisor) (anyone else is sent
//! to the login form) and every post a [`CsrfForm`] (403 without the session's token).

mod conduct;
mod conduct_posts;
mod conflict;
mod correct;
pub mod form;
mod lineup;
mod match_console;
mod match_data;
mod offline;
mod tonight;

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, HttpResponse, web};
use futures_util::future::LocalBoxFuture;

use crate::domain::{
    FieldError, GameStatus, IdempotencyKey, LocalTime, MatchId, MatchStatus, Timestamp,
};
use crate::service::night::console_views;
use crate::service::night::match_view::MatchView;
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Authed, CsrfForm, Supervisor};
use crate::web::respond::see_other;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(tonight::tonight)
        .service(tonight::fill_tables)
        .service(match_console::console)
        .service(match_console::start)
        .service(match_console::record)
        .service(match_console::call_time)
        .service(match_console::call_to_table)
        .service(match_console::forfeit)
        .service(conduct_posts::confirm_forfeit)
        .service(conduct_posts::check_in)
        .service(conduct_posts::rate)
        .service(match_console::set_lineup)
        .service(correct::edit_hand)
        .service(correct::correct)
        .service(offline::service_worker);
}

/// A console form as posted: every field in order (the hand form's names vary).
type Fields = CsrfForm<Vec<(String, String)>>;

/// A console form posted about match `id` (`/supervise/matches/{id}/…`): who posted it and
/// its fields. Extracted as the [`Supervisor`], the path's id and the [`Fields`], in that
/// order, so a refusal is the one each of them gives (the login form, 404, 403).
struct ConsolePost {
    who: Authed,
    id: MatchId,
    fields: Vec<(String, String)>,
}

impl FromRequest for ConsolePost {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let parts = <(Supervisor, web::Path<MatchId>, Fields)>::from_request(req, payload);
        Box::pin(async move {
            let (Supervisor(who), id, CsrfForm(fields)) = parts.await?;
            Ok(ConsolePost {
                who,
                id: id.into_inner(),
                fields,
            })
        })
    }
}

/// The value of field `name` of a posted form ("" when absent).
pub(super) fn field<'a>(fields: &'a [(String, String)], name: &str) -> &'a str {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map_or("", |(_, v)| v.as_str())
}

/// The hidden `idempotency_key` of a console form, if it has one (a page rendered before
/// the forms had one has not): a form sent again with it answers the same redirect and
/// changes nothing (docs/api.md §7.8); one that is not a key is refused.
fn idempotency_key(fields: &[(String, String)]) -> Result<Option<IdempotencyKey>, FieldError> {
    Ok(IdempotencyKey::from_form(field(fields, "idempotency_key"))?)
}

/// The console of match `id`.
fn console_path(id: MatchId) -> String {
    format!("/supervise/matches/{id}")
}

/// Back to the console after a post (POST/redirect/GET).
fn back_to_console(id: MatchId) -> HttpResponse {
    see_other(&console_path(id))
}

/// Back to the console after a recorded hand, opened at the next hand's form (`#next-hand`;
/// console.js puts the focus on its first bid), not 900 px above it.
fn to_next_hand(id: MatchId) -> HttpResponse {
    see_other(&format!("{}#next-hand", console_path(id)))
}

/// A match the user may supervise (404 for anyone else: it does not exist for them).
async fn supervised(state: &AppState, who: &Authed, id: MatchId) -> Result<MatchView, PageError> {
    Ok(console_views::supervised(&state.db, &who.user, id).await?)
}

/// The players at the table of `view` at hand `hand` (its lineup then, else the team's first
/// two players), `[team][player]`.
async fn lineup(
    state: &AppState,
    view: &MatchView,
    hand: usize,
) -> Result<[[String; 2]; 2], PageError> {
    Ok(console_views::lineup(&state.db, view, hand).await?)
}

/// The result in words, prominent: who won and how, or the state of play.
fn result_words(view: &MatchView) -> String {
    if view.status == MatchStatus::InProgress
        && view.game_status == GameStatus::InProgress
        && view.time_called_at.is_some()
    {
        return "Time called: this is the last hand".into();
    }
    crate::service::views::summaries::state_words(view)
}

/// The error summary at the top of a console page after a refused post
/// (`templates/console/error_summary.html`): focused on load, a title that says what was not
/// done, and each problem as a link to its field.
pub(super) struct ErrorSummary {
    /// The element's id: `error-summary`, except where older pages named it (`rating-error`,
    /// `console-conflict`).
    pub id: &'static str,
    /// "The hand was not recorded".
    pub title: String,
    pub items: Vec<SummaryItem>,
}

/// One problem of an [`ErrorSummary`]: its message and the id of the field it links to.
pub(super) struct SummaryItem {
    pub message: String,
    pub target: String,
}

impl ErrorSummary {
    /// A summary of one problem.
    pub fn one(
        id: &'static str,
        title: impl Into<String>,
        message: impl Into<String>,
        target: impl Into<String>,
    ) -> ErrorSummary {
        ErrorSummary {
            id,
            title: title.into(),
            items: vec![SummaryItem {
                message: message.into(),
                target: target.into(),
            }],
        }
    }
}

/// `e`'s message as the console says it: each team by its name (`names`, team a's first),
/// where the API says "team a" (the message keeps its parts, [`FieldError::message_naming`]).
pub(super) fn message_of(e: &FieldError, names: [&str; 2]) -> String {
    e.message_naming(|team| names[team.index()])
}

/// The console's one date and time format, in the league's wall-clock time:
/// "Mon 23 Nov, 19:00".
pub(super) fn when_local(t: LocalTime) -> String {
    t.0.format("%a %-d %b, %H:%M").to_string()
}

/// An instant in the console's format, in time zone `zone`.
pub(super) fn when(t: Timestamp, zone: chrono_tz::Tz) -> String {
    when_local(LocalTime(t.0.with_timezone(&zone).naive_local()))
}

/// A form as posted, from `(name, value)` pairs (for the tests of the console's forms).
#[cfg(test)]
fn test_pairs(fields: &[(&str, &str)]) -> Vec<(String, String)> {
    fields
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_time_format() {
        let t = LocalTime::parse("2026-11-23T19:00").ok();
        assert_eq!(t.map(when_local).as_deref(), Some("Mon 23 Nov, 19:00"));
        let stamp = Timestamp::parse("2026-11-23T18:50:00Z").ok();
        assert_eq!(
            stamp
                .map(|s| when(s, chrono_tz::America::New_York))
                .as_deref(),
            Some("Mon 23 Nov, 13:50")
        );
    }
}
