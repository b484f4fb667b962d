//! The forms of the captain's page: a lineup, "we can't play", a request to move a match,
//! a dispute. Each answers the page with what was saved, or again with the form's error by
//! it and what it held (`teams::Refusal`).

use actix_web::{HttpResponse, post, web};
use serde::Deserialize;

use super::teams::{Refusal, teams_page};
use super::{check_csrf, form};
use crate::domain::{MatchId, PlayerId};
use crate::service::ServiceError;
use crate::service::night::disputes::{self, NewDisputeInput};
use crate::service::night::lineups::{self, LineupInput};
use crate::service::night::matches::{self, DefaultInput, Defaulter};
use crate::service::people::captains::Captain;
use crate::service::term::requests::{self, NewRequest};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::CaptainSession;
use crate::web::respond::see_other;

#[derive(Deserialize, Default)]
#[serde(default)]
struct LineupForm {
    csrf: String,
    #[serde(rename = "match")]
    match_id: String,
    team: String,
    seat1: String,
    seat2: String,
}

/// Sets a coming match's lineup for the captain's team.
#[post("/captain/lineup")]
pub(super) async fn set_lineup(
    state: web::Data<AppState>,
    CaptainSession(captain): CaptainSession,
    body: web::Bytes,
) -> Result<HttpResponse, PageError> {
    let form: LineupForm = form(&body);
    check_csrf(&captain, &form.csrf)?;
    let Ok(match_id) = form.match_id.trim().parse::<i64>().map(MatchId) else {
        return Err(PageError(crate::web::error::AppError::NotFound));
    };
    let seats = [form.seat1, form.seat2].map(|s| s.trim().parse::<i64>().ok().map(PlayerId));
    let [Some(seat1), Some(seat2)] = seats else {
        let refused = Refusal {
            form: format!("lineup-{match_id}"),
            message: "Choose both players: seat 1 and seat 2.".into(),
            seats,
            kept: Vec::new(),
        };
        return teams_page(&state, &captain, None, Some(refused)).await;
    };
    let input = LineupInput {
        team: form.team,
        players: Some(vec![seat1, seat2]),
        student_ids: None,
        idempotency_key: None,
    };
    match lineups::captain_sets_lineup(&state.db, &captain, match_id, &input).await {
        Ok(_) => Ok(see_other("/captain?saved=lineup")),
        Err(e) => {
            let refused = Refusal {
                seats,
                ..Refusal::of("lineup", match_id, e)?
            };
            teams_page(&state, &captain, None, Some(refused)).await
        }
    }
}

/// The match id a captain's form names; no such match otherwise (404).
fn match_of(text: &str) -> Result<MatchId, PageError> {
    text.trim()
        .parse::<i64>()
        .map(MatchId)
        .map_err(|_| PageError(crate::web::error::AppError::NotFound))
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct DefaultForm {
    csrf: String,
    #[serde(rename = "match")]
    match_id: String,
    team: String,
    reason: String,
}

/// "We can't play": the match ends as a default.
#[post("/captain/default")]
pub(super) async fn default_match(
    state: web::Data<AppState>,
    CaptainSession(captain): CaptainSession,
    body: web::Bytes,
) -> Result<HttpResponse, PageError> {
    let form: DefaultForm = form(&body);
    check_csrf(&captain, &form.csrf)?;
    let id = match_of(&form.match_id)?;
    let input = DefaultInput {
        team: form.team,
        reason: form.reason.clone(),
    };
    let done = matches::default(&state.db, Defaulter::Captain(&captain), id, &input).await;
    answered(
        &state,
        &captain,
        done.map(|_| "default"),
        ("default", id),
        vec![form.reason],
    )
    .await
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct MoveForm {
    csrf: String,
    #[serde(rename = "match")]
    match_id: String,
    reason: String,
    time1: String,
    time2: String,
    time3: String,
}

/// Asks the coordinator to move a coming match.
#[post("/captain/reschedule")]
pub(super) async fn ask_to_move(
    state: web::Data<AppState>,
    CaptainSession(captain): CaptainSession,
    body: web::Bytes,
) -> Result<HttpResponse, PageError> {
    let form: MoveForm = form(&body);
    check_csrf(&captain, &form.csrf)?;
    let id = match_of(&form.match_id)?;
    let times = [&form.time1, &form.time2, &form.time3];
    let input = NewRequest {
        reason: form.reason.clone(),
        proposals: times
            .iter()
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .collect(),
    };
    let done = requests::request(&state.db, &captain, id, &input).await;
    let kept = vec![form.reason, form.time1, form.time2, form.time3];
    answered(&state, &captain, done.map(|_| "move"), ("move", id), kept).await
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct DisputeForm {
    csrf: String,
    #[serde(rename = "match")]
    match_id: String,
    category: String,
    reason: String,
}

/// Disputes a recorded result.
#[post("/captain/dispute")]
pub(super) async fn dispute(
    state: web::Data<AppState>,
    CaptainSession(captain): CaptainSession,
    body: web::Bytes,
) -> Result<HttpResponse, PageError> {
    let form: DisputeForm = form(&body);
    check_csrf(&captain, &form.csrf)?;
    let id = match_of(&form.match_id)?;
    let input = NewDisputeInput {
        category: form.category.clone(),
        reason: form.reason.clone(),
    };
    let done = disputes::file(&state.db, &captain, id, &input).await;
    let kept = vec![form.reason, form.category];
    answered(
        &state,
        &captain,
        done.map(|_| "dispute"),
        ("dispute", id),
        kept,
    )
    .await
}

/// Back to the page with what was saved, or the page again with the form's error by it and
/// what it held.
async fn answered<T>(
    state: &AppState,
    captain: &Captain,
    done: Result<T, ServiceError>,
    (kind, id): (&str, MatchId),
    kept: Vec<String>,
) -> Result<HttpResponse, PageError>
where
    T: Into<&'static str>,
{
    match done {
        Ok(saved) => Ok(see_other(&format!("/captain?saved={}", saved.into()))),
        Err(e) => {
            let refused = Refusal {
                kept,
                ..Refusal::of(kind, id, e)?
            };
            teams_page(state, captain, None, Some(refused)).await
        }
    }
}
