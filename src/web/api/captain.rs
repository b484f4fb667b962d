//! A captain's view and voice in the JSON API (docs/api.md §20): their teams, rosters (names
//! and emails, never a student id) and matches; a default; reschedule requests and disputes,
//! and the coordinator's queues of them. (Their lineup is the lineup route's, `lineups`.)

use actix_web::{HttpResponse, get, post, web};
use serde::{Deserialize, Serialize};

use crate::domain::MatchId;
use crate::service::night::disputes::{self, Dispute, NewDisputeInput, Resolution};
use crate::service::night::matches::{self, DefaultInput, Defaulter};
use crate::service::people::captains::{self, CaptainTeam};
use crate::service::term::admin_schedule::MatchSaved;
use crate::service::term::requests::{self, Approval, Decline, NewRequest, RescheduleRequest};
use crate::web::AppState;
use crate::web::api::responses::{AdminOnly, BodyRefused, NoSuchMatch, Unauthenticated};
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::{Acting, Admin, ApiJson, CaptainSession};

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(own_teams)
        .service(default_match)
        .service(ask_to_move)
        .service(reschedule_queue)
        .service(approve_request)
        .service(decline_request)
        .service(file_dispute)
        .service(dispute_queue)
        .service(resolve_dispute);
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct CaptainTeams {
    teams: Vec<CaptainTeam>,
}

/// The teams the signed-in captain captains (a captain's session only: an account's is no
/// captain's), each with its active players and its matches.
#[utoipa::path(
    get,
    path = "/api/v1/captain",
    tag = "captains",
    responses(
        (status = 200, description = "the captain's teams, by league then name", body = CaptainTeams),
        (status = 401, description = "no captain session (sign in at /captain)", body = ErrorBody),
    )
)]
#[get("/api/v1/captain")]
async fn own_teams(
    state: web::Data<AppState>,
    CaptainSession(captain): CaptainSession,
) -> Result<HttpResponse, AppError> {
    let teams = captains::teams(&state.db, &captain).await?;
    Ok(HttpResponse::Ok().json(CaptainTeams { teams }))
}

/// A team cannot play: the match ends as a default (a loss, never a forfeit), if sent at
/// least `settings.forfeit.default_notice_hours` before its time. A captain of the team (their
/// session, with `X-CSRF-Token`), or an admin.
#[utoipa::path(
    post,
    path = "/api/v1/matches/{id}/default",
    tag = "captains",
    params(("id" = i64, Path, description = "the match id", minimum = 1)),
    request_body = DefaultInput,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the match, `\"result\": \"default\"`", body = crate::service::night::match_view::MatchView),
        NoSuchMatch,
        (status = 409, description = "too late (`too_late_to_default`), the league takes no defaults (`defaults_off`), the match under way (`match_started`) or over (`match_closed`), or a past season's (`league_archived`)", body = ErrorBody),
        (status = 422, description = "the team is not `a` or `b`, or no reason", body = ErrorBody),
        BodyRefused,
        (status = 401, description = "neither a captain's session nor an account", body = ErrorBody),
        (status = 403, description = "a supervisor (only an admin or the team's captain defaults), or a session write without its CSRF token", body = ErrorBody),
    )
)]
#[post("/api/v1/matches/{id}/default")]
async fn default_match(
    state: web::Data<AppState>,
    who: Acting,
    id: web::Path<MatchId>,
    body: ApiJson<DefaultInput>,
) -> Result<HttpResponse, AppError> {
    let view = match &who {
        Acting::Staff(authed) => {
            crate::service::require_admin(&authed.user)?;
            let input = body.into_inner()?;
            matches::default(&state.db, Defaulter::Admin(&authed.user), *id, &input).await?
        }
        Acting::Captain(captain) => {
            let input = body.into_inner()?;
            matches::default(&state.db, Defaulter::Captain(captain), *id, &input).await?
        }
    };
    Ok(HttpResponse::Ok().json(view))
}

/// A captain asks to move a coming match of their team: a reason and one to three times.
#[utoipa::path(
    post,
    path = "/api/v1/matches/{id}/reschedule-requests",
    tag = "captains",
    params(("id" = i64, Path, description = "the match id", minimum = 1)),
    request_body = NewRequest,
    responses(
        (status = 201, description = "the request, `status: \"pending\"`", body = RescheduleRequest),
        (status = 404, description = "no match of the captain's teams", body = ErrorBody),
        (status = 409, description = "the match has started or is over (`match_started`)", body = ErrorBody),
        (status = 422, description = "no reason, or not one to three times to come", body = ErrorBody),
        BodyRefused,
        (status = 401, description = "no captain session", body = ErrorBody),
        (status = 403, description = "a session write without its CSRF token", body = ErrorBody),
    )
)]
#[post("/api/v1/matches/{id}/reschedule-requests")]
async fn ask_to_move(
    state: web::Data<AppState>,
    CaptainSession(captain): CaptainSession,
    id: web::Path<MatchId>,
    body: ApiJson<NewRequest>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    let made = requests::request(&state.db, &captain, *id, &input).await?;
    Ok(HttpResponse::Created().json(made))
}

/// A reschedule request's state.
#[derive(Debug, Clone, Copy, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RequestStatus {
    Pending,
    Approved,
    Declined,
}

#[derive(Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct RequestFilter {
    /// Only the requests in this state.
    status: Option<RequestStatus>,
}

/// A dispute's state.
#[derive(Debug, Clone, Copy, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum DisputeStatus {
    Open,
    Resolved,
}

#[derive(Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct DisputeFilter {
    /// Only the disputes in this state.
    status: Option<DisputeStatus>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct RescheduleQueue {
    requests: Vec<RescheduleRequest>,
}

/// The reschedule requests, oldest first (admin); `?status=pending` for the queue.
#[utoipa::path(
    get,
    path = "/api/v1/reschedule-requests",
    tag = "captains",
    params(RequestFilter),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the requests, oldest first", body = RescheduleQueue),
        (status = 400, description = "an unknown parameter, or a status that is not pending, approved or declined (`malformed`)", body = ErrorBody),
        Unauthenticated,
        AdminOnly,
    )
)]
#[get("/api/v1/reschedule-requests")]
async fn reschedule_queue(
    state: web::Data<AppState>,
    Admin(who): Admin,
    params: web::Query<RequestFilter>,
) -> Result<HttpResponse, AppError> {
    let status = params.status.map(|s| match s {
        RequestStatus::Pending => "pending",
        RequestStatus::Approved => "approved",
        RequestStatus::Declined => "declined",
    });
    let list = requests::list(&state.db, &who.user, status).await?;
    Ok(HttpResponse::Ok().json(RescheduleQueue { requests: list }))
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct Approved {
    request: RescheduleRequest,
    /// The match as moved, with its clash warnings (as `PATCH /api/v1/matches/{id}`).
    #[serde(rename = "match")]
    game: MatchSaved,
}

/// Approves a request: the match moves to `scheduled_at` (and `table`) as `PATCH` moves it,
/// with its warnings; both teams are told of the move.
#[utoipa::path(
    post,
    path = "/api/v1/reschedule-requests/{id}/approve",
    tag = "captains",
    params(("id" = i64, Path, description = "the request's id")),
    request_body = Approval,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the request, approved, and the match moved", body = Approved),
        (status = 404, description = "no such request", body = ErrorBody),
        (status = 409, description = "already decided (`already_decided`), the match has started (`match_started`), or a past season's (`league_archived`)", body = ErrorBody),
        (status = 422, description = "a time that is not one", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/reschedule-requests/{id}/approve")]
async fn approve_request(
    state: web::Data<AppState>,
    Admin(who): Admin,
    id: web::Path<i64>,
    body: ApiJson<Approval>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    let (request, view) = requests::approve(&state.db, &who.user, *id, &input).await?;
    let game = MatchSaved::of(&state.db, &who.user, view).await?;
    Ok(HttpResponse::Ok().json(Approved { request, game }))
}

/// Declines a request with a reason; both teams are told.
#[utoipa::path(
    post,
    path = "/api/v1/reschedule-requests/{id}/decline",
    tag = "captains",
    params(("id" = i64, Path, description = "the request's id")),
    request_body = Decline,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the request, declined", body = RescheduleRequest),
        (status = 404, description = "no such request", body = ErrorBody),
        (status = 409, description = "already decided (`already_decided`), or a past season's (`league_archived`)", body = ErrorBody),
        (status = 422, description = "no reason", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/reschedule-requests/{id}/decline")]
async fn decline_request(
    state: web::Data<AppState>,
    Admin(who): Admin,
    id: web::Path<i64>,
    body: ApiJson<Decline>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    Ok(HttpResponse::Ok().json(requests::decline(&state.db, &who.user, *id, &input).await?))
}

/// A captain of either team disputes a result within `settings.disputes.hours` of the
/// match's end.
#[utoipa::path(
    post,
    path = "/api/v1/matches/{id}/disputes",
    tag = "captains",
    params(("id" = i64, Path, description = "the match id", minimum = 1)),
    request_body = NewDisputeInput,
    responses(
        (status = 201, description = "the dispute, `status: \"open\"`", body = Dispute),
        (status = 404, description = "no match of the captain's teams", body = ErrorBody),
        (status = 409, description = "too late (`too_late_to_dispute`), or the match is not over (`match_not_over`)", body = ErrorBody),
        (status = 422, description = "a category that is not one, or no reason", body = ErrorBody),
        BodyRefused,
        (status = 401, description = "no captain session", body = ErrorBody),
        (status = 403, description = "a session write without its CSRF token", body = ErrorBody),
    )
)]
#[post("/api/v1/matches/{id}/disputes")]
async fn file_dispute(
    state: web::Data<AppState>,
    CaptainSession(captain): CaptainSession,
    id: web::Path<MatchId>,
    body: ApiJson<NewDisputeInput>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    let filed = disputes::file(&state.db, &captain, *id, &input).await?;
    Ok(HttpResponse::Created().json(filed))
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct DisputeQueue {
    disputes: Vec<Dispute>,
}

/// The disputes, oldest first (admin); `?status=open` for the queue.
#[utoipa::path(
    get,
    path = "/api/v1/disputes",
    tag = "captains",
    params(DisputeFilter),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the disputes, oldest first", body = DisputeQueue),
        (status = 400, description = "an unknown parameter, or a status that is not open or resolved (`malformed`)", body = ErrorBody),
        Unauthenticated,
        AdminOnly,
    )
)]
#[get("/api/v1/disputes")]
async fn dispute_queue(
    state: web::Data<AppState>,
    Admin(who): Admin,
    params: web::Query<DisputeFilter>,
) -> Result<HttpResponse, AppError> {
    let status = params.status.map(|s| match s {
        DisputeStatus::Open => "open",
        DisputeStatus::Resolved => "resolved",
    });
    let list = disputes::list(&state.db, &who.user, status).await?;
    Ok(HttpResponse::Ok().json(DisputeQueue { disputes: list }))
}

/// Resolves a dispute with a note; both teams' captains are told.
#[utoipa::path(
    post,
    path = "/api/v1/disputes/{id}/resolve",
    tag = "captains",
    params(("id" = i64, Path, description = "the dispute's id")),
    request_body = Resolution,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the dispute, resolved", body = Dispute),
        (status = 404, description = "no such dispute", body = ErrorBody),
        (status = 409, description = "already resolved (`already_decided`), or a past season's (`league_archived`)", body = ErrorBody),
        (status = 422, description = "no note", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/disputes/{id}/resolve")]
async fn resolve_dispute(
    state: web::Data<AppState>,
    Admin(who): Admin,
    id: web::Path<i64>,
    body: ApiJson<Resolution>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    Ok(HttpResponse::Ok().json(disputes::resolve(&state.db, &who.user, *id, &input).await?))
}
