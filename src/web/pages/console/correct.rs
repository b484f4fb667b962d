//! Correcting a recorded hand: the form prefilled with the hand, a reason, the hand's
//! history; and, when an admin's correction changes who plays in started playoff matches,
//! the page that shows exactly what resets and asks to confirm it (docs/scoring.md,
//! "Playoffs").

use crate::web::respond::private_page;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;

use super::conflict::{after_post, conflict};
use super::form::{FormContext, FormView, HandForm, form_view};
use super::{ErrorSummary, Fields, idempotency_key, lineup, supervised, when};
use crate::domain::ErrorCode;
use crate::domain::{Field, FieldError};
use crate::domain::{MatchId, MatchStatus, words};
use crate::rules::hand::{HandInput, TeamHandInput};
use crate::service::night::match_view::MatchView;
use crate::service::night::matches;
use crate::service::{ServiceError, night::console_views};
use crate::web::AppState;
use crate::web::error::{AppError, PageError};
use crate::web::extract::{Authed, CsrfForm, Supervisor};
use crate::web::pages::hand_form::form_error;
use crate::web::view::nav::Nav;
use crate::web::view::scoresheet::{bids_text, tricks_text};

struct RevisionLine {
    revision: i64,
    recorded_at: String,
    reason: String,
    summary: String,
}

#[derive(Template)]
#[template(path = "console/edit.html")]
struct EditPage {
    nav: Nav,
    m: MatchView,
    number: usize,
    f: FormView,
    /// The error summary at the top (a refused correction).
    summary: Option<ErrorSummary>,
    history: Vec<RevisionLine>,
    /// The match before this hand, for the engine's preview and checks (`match_data`).
    match_data: Option<String>,
}

/// A hand in one line, for the history, the teams by name: "Hall 5: bid 4 + nil, took
/// 5 + 0; The Aces: ...".
fn summary(hand: &HandInput, names: [&str; 2]) -> String {
    if hand.misdeal {
        return "misdeal".into();
    }
    let team = |name: &str, t: Option<&TeamHandInput>| {
        t.map_or_else(String::new, |t| {
            format!("{name}: bid {}, took {}", bids_text(t), tricks_text(t))
        })
    };
    let mut s = format!(
        "{}; {}",
        team(names[0], hand.a.as_ref()),
        team(names[1], hand.b.as_ref())
    );
    if let Some(r) = &hand.revokes {
        s.push_str(&format!(
            "; revokes: {} {}, {} {}",
            names[0], r.a, names[1], r.b
        ));
    }
    if hand.time_called {
        s.push_str("; time called");
    }
    s
}

/// The correction form of hand `number`; `typed` is a correction sent back with its error.
async fn render_edit(
    state: &AppState,
    who: &Authed,
    view: MatchView,
    number: usize,
    typed: Option<(&HandForm, &FieldError)>,
    status: StatusCode,
) -> Result<HttpResponse, PageError> {
    let index = number
        .checked_sub(1)
        .filter(|i| *i < view.hands.len())
        .ok_or(AppError::NotFound)?;
    if !matches!(view.status, MatchStatus::InProgress | MatchStatus::Complete) {
        return Err(AppError::NotFound.into());
    }
    let players = lineup(state, &view, number).await?;
    let (form, error) = match typed {
        Some((f, e)) => (f.clone(), Some(e)),
        None => (HandForm::of_hand(&view.hands[index].hand), None),
    };
    // The match as it stood before this hand: the bids it allowed, whose deal it was.
    let mut before = view.clone();
    before.hands.truncate(index);
    let ctx = FormContext {
        before: &before,
        players: &players,
        action: format!("/supervise/matches/{}/hands/{number}", view.id),
        correction: true,
    };
    let mut form = form_view(&ctx, &form, error);
    // The hand in play when time ran out stays the time-called one (as `correct` keeps it).
    let time_called = view.hands[index].hand.time_called;
    let match_data = super::match_data::correction_data(&before, time_called);
    let zone = state.db.clock().zone();
    let names = [view.team_a.name.as_str(), view.team_b.name.as_str()];
    let history = console_views::revisions(&state.db, view.id, number)
        .await?
        .into_iter()
        .map(|r| RevisionLine {
            revision: r.revision,
            recorded_at: when(r.recorded_at, zone),
            reason: r.reason.unwrap_or_default(),
            summary: r
                .hand
                .as_ref()
                .map(|h| summary(h, names))
                .unwrap_or_default(),
        })
        .collect();
    private_page(
        status,
        EditPage {
            nav: who.nav(),
            summary: form.summary.take(),
            m: view,
            number,
            f: form,
            history,
            match_data,
        },
    )
}

#[get("/supervise/matches/{id}/hands/{number}/edit")]
pub(super) async fn edit_hand(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    path: web::Path<(MatchId, usize)>,
) -> Result<HttpResponse, PageError> {
    let (id, number) = path.into_inner();
    let view = supervised(&state, &who, id).await?;
    render_edit(&state, &who, view, number, None, StatusCode::OK).await
}

#[post("/supervise/matches/{id}/hands/{number}")]
pub(super) async fn correct(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    path: web::Path<(MatchId, usize)>,
    CsrfForm(fields): Fields,
) -> Result<HttpResponse, PageError> {
    let (id, number) = path.into_inner();
    let form = HandForm::from_pairs(&fields);
    let key = idempotency_key(&fields).map_err(AppError::Invalid)?;
    let view = supervised(&state, &who, id).await?;
    let parsed = form.expected_version().and_then(|v| {
        if form.reason.trim().is_empty() {
            return Err(form_error(
                Field::REASON,
                "say why the hand is corrected (e.g. \"seat 3 took 4, not 3\")".into(),
            ));
        }
        form.to_input(number).map(|h| (v, h))
    });
    let corrected = match parsed {
        Err(e) => Err(ServiceError::Invalid(e)),
        Ok((version, mut hand)) => {
            // The hand in play when time ran out stays the time-called one.
            if !hand.misdeal
                && let Some(recorded) = number.checked_sub(1).and_then(|i| view.hands.get(i))
            {
                hand.time_called = recorded.hand.time_called;
            }
            let correction = matches::Correction {
                number: i64::try_from(number).map_err(|_| AppError::NotFound)?,
                hand: &hand,
                reason: &form.reason,
                expected_version: version,
                reset_bracket_path: form.reset_bracket_path,
                idempotency_key: key.as_ref(),
            };
            matches::correct_hand(&state.db, &who.user, id, &correction).await
        }
    };
    match corrected {
        Err(ServiceError::ResetNeeded(ids)) if who.user.is_admin() => {
            render_reset(&state, &who, view, number, &form.reason, &fields, &ids).await
        }
        Err(ServiceError::ResetNeeded(ids)) => {
            let list = ids.iter().map(|id| format!("#{id}")).collect::<Vec<_>>();
            let message = format!(
                "This correction changes who won, and the playoff match(es) {} that followed have already started. Ask the coordinator (an admin) to make it: they see exactly what resets and confirm it.",
                list.join(", ")
            );
            conflict(&state, &who, id, ErrorCode::BracketResetNeeded, message).await
        }
        Err(ServiceError::Invalid(e)) => {
            render_edit(
                &state,
                &who,
                view,
                number,
                Some((&form, &e)),
                StatusCode::UNPROCESSABLE_ENTITY,
            )
            .await
        }
        done => after_post(&state, &who, id, done).await,
    }
}

// ---------------------------------------------------------------- bracket path reset

struct ResetLine {
    id: MatchId,
    teams: String,
    score: String,
    state: String,
    hands: usize,
}

#[derive(Template)]
#[template(path = "console/reset.html")]
struct ResetPage {
    nav: Nav,
    m: MatchView,
    number: usize,
    reason: String,
    resets: Vec<ResetLine>,
    /// The correction as typed, sent again with the confirmation.
    fields: Vec<(String, String)>,
}

/// An admin's correction would change who plays in started playoff matches: show exactly
/// which (their teams, score and hands), and ask to confirm the reset.
async fn render_reset(
    state: &AppState,
    who: &Authed,
    view: MatchView,
    number: usize,
    reason: &str,
    fields: &[(String, String)],
    ids: &[MatchId],
) -> Result<HttpResponse, PageError> {
    let views = crate::service::night::match_view::views_after_write(&state.db, ids).await?;
    let mut resets = Vec::with_capacity(views.len());
    for m in views {
        resets.push(ResetLine {
            id: m.id,
            teams: format!("{} v {}", m.team_a.name, m.team_b.name),
            score: format!(
                "{} – {}",
                words::points(m.a.score),
                words::points(m.b.score)
            ),
            state: crate::service::views::summaries::state_words(&m),
            hands: m.hands.len(),
        });
    }
    private_page(
        StatusCode::CONFLICT,
        ResetPage {
            nav: who.nav(),
            m: view,
            number,
            reason: reason.to_string(),
            resets,
            fields: fields
                .iter()
                .filter(|(name, _)| name != "csrf" && name != "reset_bracket_path")
                .cloned()
                .collect(),
        },
    )
}
