//! A match's console: the score, the clock, the hand form, the scoresheet, check-in and
//! ratings ([`super::conduct`]); and its posts: start, record a hand, call time, forfeit.
//!
//! A refused post comes back as the console with one error summary at the top
//! ([`ErrorSummary`], "Error: " in the title). Calling time takes two taps: "Call time…"
//! opens the confirmation (a `<details>`, no script needed) whose "Yes, call time now" posts
//! with `confirm`; a post without it (an older page) only shows that confirmation. A
//! forfeit's first tap opens its confirmation page ([`super::conduct_posts::confirm_forfeit`]).

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use askama::Template;

use super::conduct::{self, ConductView, RatingForm, conduct_view};
use super::conflict::after_post;
use super::form::{FormContext, FormView, HandForm, form_view};
use super::lineup::{LineupForm, LineupsView, lineups_view};
use super::{
    ConsolePost, ErrorSummary, back_to_console, idempotency_key, lineup, message_of, result_words,
    supervised, to_next_hand, when, when_local,
};
use crate::domain::ErrorCode;
use crate::domain::{Clock, ForfeitSide, GameStatus, MatchId, MatchStatus, TextEnum, Timestamp};
use crate::domain::{FieldError, IdempotencyKey};
use crate::rules::{Stage, Team};
use crate::service::ServiceError;
use crate::service::night::console_views;
use crate::service::night::lineups;
use crate::service::night::match_view::MatchView;
use crate::service::night::match_view::Seat;
use crate::service::night::matches::{self, ForfeitInput};
use crate::service::night::queue::MatchQueue;
use crate::service::people::accounts::random_hex;
use crate::service::term::leagues::League;
use crate::web::AppState;
use crate::web::error::{AppError, PageError};
use crate::web::extract::{Authed, Supervisor};
use crate::web::respond::{html, no_store, prefers_minimal, recorded_hand};
use crate::web::view::nav::Nav;
use crate::web::view::scoresheet::Scoresheet;

#[derive(Template)]
#[template(path = "console/console.html")]
struct ConsolePage {
    nav: Nav,
    m: MatchView,
    /// The room's tables, for a match of a league with tables not started: its call and
    /// the tables to call it to.
    queue: Option<QueueBox>,
    /// The league's name, for the breadcrumb.
    league_name: String,
    players: [[String; 2]; 2],
    result: String,
    over: bool,
    scheduled: bool,
    live: bool,
    tiebreak: bool,
    time_limit: Option<u32>,
    time_left: String,
    ends_at: String,
    /// The service's time as it made the page (RFC 3339): `console.js` takes the phone's
    /// clock's difference from it out of the countdown.
    served_at: String,
    /// When the clock runs out, as the console shows times ("Mon 23 Nov, 19:30").
    ends_at_text: String,
    time_called: bool,
    /// When time was called ("Mon 23 Nov, 19:21").
    time_called_at: String,
    /// The call-time confirmation is shown open (a post without the confirmation).
    confirm_time: bool,
    /// When the match is scheduled ("Mon 23 Nov, 19:00").
    scheduled_at: Option<String>,
    sheet: Scoresheet,
    form: Option<FormView>,
    /// The match for the hand form's live preview (`match_data`), JSON safe in `<script>`.
    match_data: Option<String>,
    /// The error summary at the top (a refused post).
    summary: Option<ErrorSummary>,
    /// A message for the whole page (e.g. a hand sent after the game is over).
    page_error: Option<String>,
    forfeit_error: Option<String>,
    forfeit_open: bool,
    /// A playoff match: a double forfeit needs the admin to choose who advances.
    playoff: bool,
    /// Check-in, the grace period's forfeit offer, sportsmanship ratings.
    conduct: ConductView,
    /// Each team's lineup, and its form (before the end).
    lineups: Option<LineupsView>,
    /// Where the league sets lineups before the first hand: the ones still missing
    /// ("Set Tar Heels' lineup before the first hand"), shown instead of the hand form.
    lineup_missing: Vec<String>,
    /// This page's idempotency key, fresh for each render: each form posts it with its own
    /// suffix (`-start`, `-check-in-a`...), so a resend records nothing twice.
    action_key: String,
}

/// The clock: the time left in words, and when it runs out (RFC 3339, for `console.js`).
/// A service clock set back before the start reads as the start, so the time left is never
/// more than the limit.
fn time_left(view: &MatchView, now: Timestamp) -> (String, String) {
    let Some(ends) = view.ends_at else {
        return (String::new(), String::new());
    };
    let now = view.started_at.map_or(now, |began| now.max(began));
    let left = (ends.0 - now.0).num_seconds();
    let words = if view.time_called_at.is_some() || left <= 0 {
        "Time is up: finish this hand".to_string()
    } else {
        format!("{}:{:02} left", left / 60, left % 60)
    };
    (words, ends.to_string())
}

/// What a console shows besides the match: a form sent back with its error, or a refusal.
#[derive(Default)]
pub(super) struct Shown<'a> {
    /// A hand sent back with its error.
    pub typed: Option<(&'a HandForm, &'a FieldError)>,
    /// A forfeit refused.
    pub forfeit_error: Option<String>,
    /// Ratings sent back with their error.
    pub ratings: Option<(RatingForm, FieldError)>,
    /// A write refused because the match moved on (a check-in after the start...).
    pub conflict: Option<String>,
    /// A time call posted without its confirmation: show the confirmation.
    pub confirm_time: bool,
    /// The forfeit's button the error is about (`forfeit-a`...).
    pub forfeit_target: Option<String>,
    /// A lineup sent back with its error.
    pub lineup: Option<(LineupForm, FieldError)>,
}

/// `view` with the viewer's own sportsmanship note, the only one their console shows (a note
/// is for its author and the admins).
async fn with_own_note(
    state: &AppState,
    who: &Authed,
    mut view: MatchView,
) -> Result<MatchView, PageError> {
    if let Some(ratings) = &mut view.sportsmanship {
        ratings.note =
            crate::service::night::conduct::own_note(&state.db, &who.user, view.id).await?;
    }
    Ok(view)
}

/// The console of `view`, with what `shown` adds.
pub(super) async fn render_console(
    state: &AppState,
    who: &Authed,
    view: MatchView,
    status: StatusCode,
    shown: Shown<'_>,
) -> Result<HttpResponse, PageError> {
    let view = with_own_note(state, who, view).await?;
    let players = lineup(state, &view, view.hands.len() + 1).await?;
    let league = conduct::league(state, &view).await?;
    let queue = crate::service::night::queue::for_match(&state.db, &league, view.id, view.status)
        .await?
        .map(|q| QueueBox::of(q, state.db.clock().zone()));
    let rosters = if view.is_over() {
        Default::default()
    } else {
        [
            crate::service::night::lineups::roster(&state.db, view.team_a.id).await?,
            crate::service::night::lineups::roster(&state.db, view.team_b.id).await?,
        ]
    };
    let mut page = console_page(
        who.nav(),
        view,
        (players, rosters),
        league,
        state.db.clock(),
        shown,
    );
    page.queue = queue;
    Ok(no_store(html(status, page.render()?)))
}

/// A match's place in the queue on its console (docs/api.md §21.1).
struct QueueBox {
    /// Its call: the table as said, when, and "no show?".
    called: Option<(String, String, bool)>,
    /// A table is free to call it to.
    any_free: bool,
    /// The queue calls matches by itself.
    auto: bool,
    /// The league's tables, as stored and as said, free for the match or not.
    tables: Vec<(String, String, bool)>,
}

impl QueueBox {
    fn of(q: MatchQueue, zone: chrono_tz::Tz) -> QueueBox {
        let shown = crate::domain::table_name::shown;
        QueueBox {
            any_free: q.tables.iter().any(|(_, free)| *free),
            auto: q.auto,
            called: q
                .called
                .map(|(table, at, no_show)| (shown(&table), when(at, zone), no_show)),
            tables: q
                .tables
                .into_iter()
                .map(|(name, free)| (shown(&name), name, free))
                .collect(),
        }
    }
}

/// The page's view model: match `view` of `league`, its `players` at the table and each
/// team's active roster, and what `shown` adds.
fn console_page(
    nav: Nav,
    view: MatchView,
    (players, rosters): ([[String; 2]; 2], [Vec<Seat>; 2]),
    league: League,
    clock: &Clock,
    shown: Shown<'_>,
) -> ConsolePage {
    let typed = shown.typed;
    let zone = clock.zone();
    let names = [view.team_a.name.as_str(), view.team_b.name.as_str()];
    let conduct = conduct_view(
        &view,
        &league.settings,
        clock.local_now(),
        zone,
        shown.ratings.as_ref().map(|(f, e)| (f, e)),
    );
    let live = view.status == MatchStatus::InProgress;
    let lineup_missing = lineup_missing(&view, &league);
    let lineups = lineups_view(&view, &rosters, shown.lineup.as_ref().map(|(f, e)| (f, e)));
    let mut form = (live && lineup_missing.is_empty()).then(|| hand_form(&view, &players, typed));
    let page_error = match (&form, typed) {
        (None, Some((_, e))) => Some(message_of(e, names)),
        _ => None,
    };
    let lineup_summary =
        lineups
            .as_ref()
            .and_then(|l| l.error.as_ref())
            .map(|(message, target)| {
                ErrorSummary::one("error-summary", "The lineup was not set", message, target)
            });
    let summary = summary(
        form.as_mut()
            .and_then(|f| f.summary.take())
            .or(lineup_summary),
        &conduct,
        page_error.as_deref(),
        shown.forfeit_error.as_deref(),
        shown.forfeit_target,
        shown.conflict,
    );
    let (time_left, ends_at) = time_left(&view, clock.now());
    let match_data = form
        .as_ref()
        .and_then(|_| super::match_data::match_data(&view, clock.now()));
    ConsolePage {
        nav,
        queue: None,
        league_name: league.row.name,
        players,
        result: result_words(&view),
        over: view.is_over(),
        scheduled: view.status == MatchStatus::Scheduled,
        live,
        tiebreak: view.game_status == GameStatus::Tiebreak,
        time_limit: view.rules.time_limit_minutes,
        time_left,
        ends_at,
        served_at: clock.now().to_string(),
        ends_at_text: view.ends_at.map(|t| when(t, zone)).unwrap_or_default(),
        time_called: view.time_called_at.is_some(),
        time_called_at: view
            .time_called_at
            .map(|t| when(t, zone))
            .unwrap_or_default(),
        confirm_time: shown.confirm_time,
        scheduled_at: view.scheduled_at.map(when_local),
        sheet: sheet(&view),
        form,
        match_data,
        summary,
        page_error,
        forfeit_open: shown.forfeit_error.is_some(),
        forfeit_error: shown.forfeit_error,
        playoff: view.stage != Stage::Regular,
        conduct,
        lineups,
        lineup_missing,
        action_key: random_hex(16),
        m: view,
    }
}

/// Where `league` sets lineups before the first hand and `view` has none played: a line per
/// team whose lineup is missing ("Set Tar Heels' lineup before the first hand").
fn lineup_missing(view: &MatchView, league: &League) -> Vec<String> {
    if !league.settings.lineups.required || !view.hands.is_empty() || view.is_over() {
        return Vec::new();
    }
    [
        (&view.lineup.a, &view.team_a.name),
        (&view.lineup.b, &view.team_b.name),
    ]
    .into_iter()
    .filter(|(set, _)| set.is_none())
    .map(|(_, name)| format!("Set {name}'s lineup before the first hand"))
    .collect()
}

/// The hand form of a match in progress: blank, or `typed` sent back with its error.
fn hand_form(
    view: &MatchView,
    players: &[[String; 2]; 2],
    typed: Option<(&HandForm, &FieldError)>,
) -> FormView {
    let ctx = FormContext {
        before: view,
        players,
        action: format!("/supervise/matches/{}/hands", view.id),
        correction: false,
    };
    let blank = HandForm::default();
    let (form, error) = match typed {
        Some((f, e)) => (f, Some(e)),
        None => (&blank, None),
    };
    form_view(&ctx, form, error)
}

/// One summary at the top, for whatever was refused, first found first: the hand form's,
/// the ratings', a hand sent with no form open (`page_error`), a forfeit (its button
/// `forfeit_target`), a write refused because the match moved on (`conflict`).
fn summary(
    form: Option<ErrorSummary>,
    conduct: &ConductView,
    page_error: Option<&str>,
    forfeit_error: Option<&str>,
    forfeit_target: Option<String>,
    conflict: Option<String>,
) -> Option<ErrorSummary> {
    let ratings =
        conduct
            .ratings
            .as_ref()
            .and_then(|r| r.error.as_ref())
            .map(|(message, target)| {
                ErrorSummary::one("rating-error", "Ratings not saved", message, target)
            });
    form.or(ratings)
        .or_else(|| {
            page_error.map(|e| {
                ErrorSummary::one(
                    "error-summary",
                    "The hand was not recorded",
                    e,
                    "hand-error",
                )
            })
        })
        .or_else(|| {
            forfeit_error.map(|e| {
                let target = forfeit_target.unwrap_or_else(|| "forfeit-a".into());
                ErrorSummary::one("error-summary", "The forfeit was not recorded", e, target)
            })
        })
        .or_else(|| {
            conflict.map(|c| ErrorSummary::one("console-conflict", "Not saved", c, "game-status"))
        })
}

/// The scoresheet as the console shows it: cards, and a correction link per hand once
/// play started.
fn sheet(view: &MatchView) -> Scoresheet {
    let can_correct = matches!(view.status, MatchStatus::InProgress | MatchStatus::Complete);
    Scoresheet {
        classes: false,
        cards: true,
        correct: can_correct.then_some(view.id),
        ..Scoresheet::of_match(view).with_breakdown(view)
    }
}

#[get("/supervise/matches/{id}")]
pub(super) async fn console(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    id: web::Path<MatchId>,
) -> Result<HttpResponse, PageError> {
    let view = supervised(&state, &who, *id).await?;
    render_console(&state, &who, view, StatusCode::OK, Shown::default()).await
}

#[post("/supervise/matches/{id}/start")]
pub(super) async fn start(
    state: web::Data<AppState>,
    ConsolePost { who, id, fields }: ConsolePost,
) -> Result<HttpResponse, PageError> {
    let key = idempotency_key(&fields).map_err(AppError::Invalid)?;
    match matches::start(&state.db, &who.user, id, key.as_ref()).await {
        // A double tap on Start: it is started, show it.
        Err(ServiceError::Conflict {
            code: ErrorCode::NotScheduled,
            ..
        }) if supervised(&state, &who, id).await?.status == MatchStatus::InProgress => {
            Ok(back_to_console(id))
        }
        started => after_post(&state, &who, id, started).await,
    }
}

/// Records a hand: back to the console at the next hand's form, or, asked with `Prefer:
/// return=minimal` (the outbox, `static/outbox/transport.js`), the hand's totals as the API
/// answers them, whose size does not grow with the match. A refusal is a page either way.
#[post("/supervise/matches/{id}/hands")]
pub(super) async fn record(
    state: web::Data<AppState>,
    request: HttpRequest,
    ConsolePost { who, id, fields }: ConsolePost,
) -> Result<HttpResponse, PageError> {
    let form = HandForm::from_pairs(&fields);
    // The match's row, not its view: a recorded hand's post costs the same at any hand.
    let number = console_views::next_hand(&state.db, &who.user, id).await?;
    let parsed = form.expected_version().and_then(|v| {
        let key = IdempotencyKey::from_form(&form.key)?;
        form.to_input(number).map(|h| (v, h, key))
    });
    let e = match parsed {
        Err(e) => e,
        Ok((version, hand, key)) => {
            // Either answer needs only the totals: the light one is recorded (and kept with
            // the key, for a resend).
            let entry = matches::NewHandEntry {
                hand: &hand,
                expected_version: version,
                idempotency_key: key.as_ref(),
                shape: matches::AnswerShape::Minimal,
            };
            match matches::record_hand(&state.db, &who.user, id, &entry).await {
                Err(ServiceError::Invalid(e)) => e,
                Ok(recorded) if prefers_minimal(&request) => {
                    return Ok(no_store(recorded_hand(recorded.into_minimal())));
                }
                Ok(_) => return Ok(to_next_hand(id)),
                refused => return after_post(&state, &who, id, refused).await,
            }
        }
    };
    // Refused: the console again, with what was typed.
    let view = supervised(&state, &who, id).await?;
    let shown = Shown {
        typed: Some((&form, &e)),
        ..Shown::default()
    };
    render_console(&state, &who, view, StatusCode::UNPROCESSABLE_ENTITY, shown).await
}

#[post("/supervise/matches/{id}/time")]
pub(super) async fn call_time(
    state: web::Data<AppState>,
    ConsolePost { who, id, fields }: ConsolePost,
) -> Result<HttpResponse, PageError> {
    // The caller's rights before the form: 404 outside their leagues, whatever was sent.
    let view = supervised(&state, &who, id).await?;
    let form = HandForm::from_pairs(&fields);
    let version = form.expected_version().map_err(AppError::Invalid)?;
    if !form.confirm {
        // Not confirmed (a page without the confirmation step): nothing is called; the
        // console shows the confirmation.
        let shown = Shown {
            confirm_time: true,
            ..Shown::default()
        };
        return render_console(&state, &who, view, StatusCode::OK, shown).await;
    }
    let key = idempotency_key(&fields).map_err(AppError::Invalid)?;
    let called = matches::call_time(&state.db, &who.user, id, version, key.as_ref()).await;
    after_post(&state, &who, id, called).await
}

#[post("/supervise/matches/{id}/forfeit")]
pub(super) async fn forfeit(
    state: web::Data<AppState>,
    ConsolePost { who, id, fields }: ConsolePost,
) -> Result<HttpResponse, PageError> {
    let form = HandForm::from_pairs(&fields);
    let view = supervised(&state, &who, id).await?;
    let side = form.forfeit_side();
    let problem = match (side, form.confirm) {
        (None, _) => "choose which team forfeits".to_string(),
        (Some(_), false) => "a forfeit ends the match: tap the team that forfeits, then confirm \
             it with \u{201c}Yes, record the forfeit\u{201d}"
            .to_string(),
        (Some(side), true) => {
            let input = ForfeitInput {
                team: side.as_str().to_string(),
                advance: form.advance.clone(),
                expected_version: form.version.trim().parse().ok(),
                idempotency_key: idempotency_key(&fields).map_err(AppError::Invalid)?,
            };
            match matches::forfeit(&state.db, &who.user, id, &input).await {
                Err(ServiceError::Invalid(e)) => {
                    message_of(&e, [&view.team_a.name, &view.team_b.name])
                }
                done => return after_post(&state, &who, id, done).await,
            }
        }
    };
    let target = match (side, form.advance.as_deref()) {
        (Some(ForfeitSide::Both), Some(advance)) => format!("forfeit-both-{advance}"),
        (Some(side), _) => format!("forfeit-{}", side.as_str()),
        (None, _) => "forfeit-a".to_string(),
    };
    let shown = Shown {
        forfeit_error: Some(problem),
        forfeit_target: Some(target),
        ..Shown::default()
    };
    render_console(&state, &who, view, StatusCode::UNPROCESSABLE_ENTITY, shown).await
}

/// The console again after a write refused because the match moved on: 409, the message
/// at the top, the match as it is now.
pub(super) async fn refused(
    state: &AppState,
    who: &Authed,
    id: MatchId,
    message: String,
) -> Result<HttpResponse, PageError> {
    let view = supervised(state, who, id).await?;
    let shown = Shown {
        conflict: Some(message),
        ..Shown::default()
    };
    render_console(state, who, view, StatusCode::CONFLICT, shown).await
}

/// Sets a team's lineup (from the next hand on, once a hand was played).
#[post("/supervise/matches/{id}/lineup")]
pub(super) async fn set_lineup(
    state: web::Data<AppState>,
    ConsolePost { who, id, fields }: ConsolePost,
) -> Result<HttpResponse, PageError> {
    let form = LineupForm::from_pairs(&fields);
    // The caller's rights before the form: 404 outside their leagues, whatever was sent.
    let view = supervised(&state, &who, id).await?;
    let team_name = match form.team() {
        Some(Team::B) => view.team_b.name.clone(),
        _ => view.team_a.name.clone(),
    };
    let error = match form.to_input(&team_name) {
        Err(e) => e,
        Ok(input) => match lineups::set_lineup(&state.db, &who.user, id, &input).await {
            Ok(_) => return Ok(back_to_console(id)),
            Err(ServiceError::Invalid(e)) => e,
            Err(ServiceError::Conflict { message, .. }) => {
                return refused(&state, &who, id, message).await;
            }
            Err(e) => return Err(e.into()),
        },
    };
    let view = supervised(&state, &who, id).await?;
    let shown = Shown {
        lineup: Some((form, error)),
        ..Shown::default()
    };
    render_console(&state, &who, view, StatusCode::UNPROCESSABLE_ENTITY, shown).await
}

/// Calls the match to the table the form names, or puts it back in the queue (the form's
/// `put_back` button); then the console. A table taken meanwhile is the conflict page, as
/// any write the match moved past; a call that names no table is refused, never taken for a
/// put-back.
#[post("/supervise/matches/{id}/call")]
pub(super) async fn call_to_table(
    state: web::Data<AppState>,
    ConsolePost { who, id, fields }: ConsolePost,
) -> Result<HttpResponse, PageError> {
    supervised(&state, &who, id).await?;
    let field = |name: &str| {
        fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.trim())
    };
    let table = match (field("put_back"), field("table")) {
        (Some(_), _) => None,
        (None, Some(t)) if !t.is_empty() => Some(t.to_string()),
        (None, _) => {
            let e = ServiceError::invalid(ErrorCode::InvalidInput, "table", "choose a free table");
            return Err(AppError::from(e).into());
        }
    };
    let input = crate::service::night::queue::CallInput { table };
    let called = crate::service::night::queue::call(&state.db, &who.user, id, &input).await;
    after_post(&state, &who, id, called).await
}
