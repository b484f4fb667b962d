//! Changing the schedule (admin): a match's time, table or teams, postponing, cancelling,
//! moving a league night (docs/api.md §6.8).

use crate::domain::Slug;
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, HttpResponse, get, patch, post, web};
use futures_util::future::LocalBoxFuture;
use serde::de::DeserializeOwned;

use crate::domain::MatchId;
use crate::service::night::match_view::MatchView;
use crate::service::term::admin_schedule::{MatchSaved, ScheduleWarning, warnings_after_write};
use crate::service::term::reschedule::{
    self, CallOff, MatchChange, NightMove, NightMoved, RoundSchedule,
};
use crate::service::term::schedule_warnings::{self, StandingWarning};
use crate::web::AppState;
use crate::web::api::responses::{
    AdminOnly, BodyRefused, NoSuchLeague, SupervisorOnly, Unauthenticated,
};
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::{Admin, ApiJson, Authed, Supervisor};

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(change_match)
        .service(postpone)
        .service(cancel)
        .service(move_night)
        .service(schedule_round)
        .service(schedule_warnings_of);
}

#[derive(serde::Serialize, utoipa::ToSchema)]
pub(crate) struct StandingWarnings {
    /// Empty when the schedule is clean.
    warnings: Vec<StandingWarning>,
}

/// The schedule's warnings as it stands: every clash among the matches still to play (a
/// table booked twice, a team playing twice a night, a pairing scheduled twice), computed
/// at each read (the coordinator, or a supervisor of the league).
#[utoipa::path(
    get,
    path = "/api/v1/leagues/{slug}/schedule/warnings",
    tag = "matches",
    params(Slug),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the warnings, empty when the schedule is clean", body = StandingWarnings),
        (status = 404, description = "no such league, or a league the supervisor does not run", body = ErrorBody),
        Unauthenticated,
        SupervisorOnly,
    )
)]
#[get("/api/v1/leagues/{slug}/schedule/warnings")]
async fn schedule_warnings_of(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, AppError> {
    let standing = schedule_warnings::of_league(&state.db, &who.user, &slug).await?;
    Ok(HttpResponse::Ok().json(StandingWarnings { warnings: standing }))
}

/// An admin's write to match `id` (`/api/v1/matches/{id}…`): who sent it and the body (its
/// verdict still waits for [`ApiJson::into_inner`]). Extracted as the [`Admin`], the path and
/// the [`ApiJson`], in that order, so a refusal is the one each of them gives.
struct MatchWrite<T> {
    who: Authed,
    id: MatchId,
    body: ApiJson<T>,
}

impl<T: DeserializeOwned + 'static> FromRequest for MatchWrite<T> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let parts = <(Admin, web::Path<MatchId>, ApiJson<T>)>::from_request(req, payload);
        Box::pin(async move {
            let (Admin(who), id, body) = parts.await?;
            Ok(MatchWrite {
                who,
                id: id.into_inner(),
                body,
            })
        })
    }
}

/// Changes a match's time, table or teams (admin). Once the match has started only its
/// table may change.
#[utoipa::path(
    patch,
    path = "/api/v1/matches/{id}",
    tag = "schedule",
    params(("id" = i64, Path, description = "the match id", minimum = 1)),
    request_body = MatchChange,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the match as it is now, with `warnings` about what it clashes with (saved all the same)", body = MatchSaved),
        (status = 404, description = "no such match", body = ErrorBody),
        (status = 409, description = "stale `expected_version` (`version_conflict`), the match started and the time or teams were to change (`match_started`), or it is cancelled (`match_closed`)", body = ErrorBody),
        (status = 422, description = "nothing to change, a bad time or table, a team not in the league, withdrawn or playing itself, new teams for a playoff match (`invalid_match`), or a `supervisor` who is not an active supervisor of the league (`invalid_supervisor`)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[patch("/api/v1/matches/{id}")]
async fn change_match(
    state: web::Data<AppState>,
    MatchWrite { who, id, body }: MatchWrite<MatchChange>,
) -> Result<HttpResponse, AppError> {
    let change = body.into_inner()?;
    let view = reschedule::change_match(&state.db, &who.user, id, &change).await?;
    Ok(HttpResponse::Ok().json(MatchSaved::of(&state.db, &who.user, view).await?))
}

/// Postpones a match that has not started (admin): it loses its time until it is given a
/// new one with `PATCH`.
#[utoipa::path(
    post,
    path = "/api/v1/matches/{id}/postpone",
    tag = "schedule",
    params(("id" = i64, Path, description = "the match id", minimum = 1)),
    request_body = CallOff,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the match, `status: \"postponed\"`", body = MatchView),
        (status = 404, description = "no such match", body = ErrorBody),
        (status = 409, description = "stale `expected_version`, the match started (`match_started`), is cancelled (`match_closed`) or already postponed (`not_scheduled`)", body = ErrorBody),
        (status = 422, description = "no reason, or one over 500 characters or with a control character", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/matches/{id}/postpone")]
async fn postpone(
    state: web::Data<AppState>,
    MatchWrite { who, id, body }: MatchWrite<CallOff>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    let view = reschedule::postpone(&state.db, &who.user, id, &input).await?;
    Ok(HttpResponse::Ok().json(view))
}

/// Cancels a regular-season match that has not started (admin): it counts for nobody and
/// stays listed as cancelled.
#[utoipa::path(
    post,
    path = "/api/v1/matches/{id}/cancel",
    tag = "schedule",
    params(("id" = i64, Path, description = "the match id", minimum = 1)),
    request_body = CallOff,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the match, `status: \"cancelled\"`", body = MatchView),
        (status = 404, description = "no such match", body = ErrorBody),
        (status = 409, description = "stale `expected_version`, the match started (`match_started`) or is already cancelled (`match_closed`)", body = ErrorBody),
        (status = 422, description = "no reason, or one over 500 characters or with a control character; or a playoff match (record a forfeit instead)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/matches/{id}/cancel")]
async fn cancel(
    state: web::Data<AppState>,
    MatchWrite { who, id, body }: MatchWrite<CallOff>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    let view = reschedule::cancel(&state.db, &who.user, id, &input).await?;
    Ok(HttpResponse::Ok().json(view))
}

/// Moves a league night (admin): every match of that date that has not started keeps its
/// time of day on the new date. A night with nothing to move answers `moved: 0`.
#[utoipa::path(
    post,
    path = "/api/v1/leagues/{slug}/nights/move",
    tag = "schedule",
    params(Slug),
    request_body = NightMove,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "how many matches moved, each as it is now, and what they clash with (a blackout night, a table or team taken: saved all the same)", body = NightMovedAnswer),
        NoSuchLeague,
        (status = 409, description = "a match of that night changed during the move (`version_conflict`): send it again", body = ErrorBody),
        (status = 422, description = "a date that is not `YYYY-MM-DD`, or the same date twice (`invalid_schedule`)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/leagues/{slug}/nights/move")]
async fn move_night(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    body: ApiJson<NightMove>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    let moved = reschedule::move_night(&state.db, &who.user, &slug, &input).await?;
    let warnings = round_warnings(&state, &who.user, &moved.matches).await?;
    Ok(HttpResponse::Ok().json(NightMovedAnswer { moved, warnings }))
}

/// What a night move did, and what the matches moved clash with (saved all the same).
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct NightMovedAnswer {
    #[serde(flatten)]
    pub moved: NightMoved,
    /// The warnings of every match moved, as `PATCH /api/v1/matches/{id}` gives them: a
    /// blackout night (`blackout`), a table or a team taken that night.
    pub warnings: Vec<ScheduleWarning>,
}

/// What a round's schedule saved: each match as it is now (in the order sent) and what they
/// clash with (saved all the same).
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct RoundScheduled {
    pub matches: Vec<MatchView>,
    /// The clash warnings of every match saved, as `PATCH /api/v1/matches/{id}` gives them.
    pub warnings: Vec<ScheduleWarning>,
}

/// Places several matches of the league's bracket (a playoff round) at once (admin): all or
/// nothing, each item checked and audited as `PATCH /api/v1/matches/{id}` would.
#[utoipa::path(
    post,
    path = "/api/v1/leagues/{slug}/bracket/schedule",
    tag = "schedule",
    params(Slug),
    request_body = RoundSchedule,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the matches as they are now, with `warnings` about what they clash with (saved all the same)", body = RoundScheduled),
        NoSuchLeague,
        (status = 409, description = "a match changed during the save (`version_conflict`): send it again", body = ErrorBody),
        (status = 422, description = "no match sent, or an item with a bad time or table, a match not of this league's bracket, sent twice, cancelled, or started and given a new time; `field` names the item (`matches[2].table`); nothing is saved", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/leagues/{slug}/bracket/schedule")]
async fn schedule_round(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    body: ApiJson<RoundSchedule>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    let matches = reschedule::schedule_round(&state.db, &who.user, &slug, &input).await?;
    let warnings = round_warnings(&state, &who.user, &matches).await?;
    Ok(HttpResponse::Ok().json(RoundScheduled { matches, warnings }))
}

/// The clash warnings of `matches` just saved, each once.
pub(crate) async fn round_warnings(
    state: &AppState,
    user: &crate::service::User,
    matches: &[MatchView],
) -> Result<Vec<ScheduleWarning>, AppError> {
    let mut all: Vec<ScheduleWarning> = Vec::new();
    for m in matches {
        for w in warnings_after_write(&state.db, user, m.id).await? {
            if !all.contains(&w) {
                all.push(w);
            }
        }
    }
    Ok(all)
}
