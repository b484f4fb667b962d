//! Conduct at the table (docs/api.md §6.9): check-in before the start, sportsmanship ratings
//! after the match, and an admin's decision on a team's playoff eligibility.

use crate::domain::Slug;
use actix_web::{HttpResponse, post, web};

use crate::domain::{MatchId, TeamId};
use crate::service::night::conduct::{self, CheckInInput, RatingInput};
use crate::service::playoffs::eligibility::{self, EligibilityRow, OverrideInput};
use crate::web::AppState;
use crate::web::api::responses::{
    AdminOnly, BodyRefused, MatchWritten, NoSuchMatch, SupervisorOnly, Unauthenticated,
};
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::{Admin, ApiJson, Supervisor};

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(check_in)
        .service(rate)
        .service(override_eligibility);
}

/// Checks a team in at the table before the start (or, with `"present": false`, takes the
/// check-in back). Checking in twice keeps the first time.
#[utoipa::path(
    post,
    path = "/api/v1/matches/{id}/check-in",
    tag = "matches",
    params(("id" = i64, Path, description = "the match id", minimum = 1)),
    request_body = CheckInInput,
    security(("bearer" = [])),
    responses(
        MatchWritten,
        NoSuchMatch,
        (status = 409, description = "the match has started, is over, postponed or cancelled (`not_scheduled`)", body = ErrorBody),
        (status = 422, description = "the team is not `a` or `b`, an invalid `idempotency_key`, or one used before for something else (`idempotency_key_reused`)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        SupervisorOnly,
    )
)]
#[post("/api/v1/matches/{id}/check-in")]
async fn check_in(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    id: web::Path<MatchId>,
    body: ApiJson<CheckInInput>,
) -> Result<HttpResponse, AppError> {
    let input = super::match_body(&state, &who, *id, body).await?;
    Ok(super::acted(
        conduct::check_in(&state.db, &who.user, *id, &input).await?,
    ))
}

/// Rates both teams' sportsmanship after a complete or forfeited match, on the league's
/// scale (a new rating replaces the earlier one). A forfeiting team's rating is the league's
/// `forfeit_rating`, given at the forfeit.
#[utoipa::path(
    post,
    path = "/api/v1/matches/{id}/sportsmanship",
    tag = "matches",
    params(("id" = i64, Path, description = "the match id", minimum = 1)),
    request_body = RatingInput,
    security(("bearer" = [])),
    responses(
        MatchWritten,
        NoSuchMatch,
        (status = 409, description = "the match is not complete or forfeited (`match_not_over`), or the league does not rate sportsmanship (`no_sportsmanship`)", body = ErrorBody),
        (status = 422, description = "a rating off the league's scale, a forfeiting team not given the forfeit rating, or a note too long or with control characters (`invalid_rating`), an invalid `idempotency_key`, or one used before for something else (`idempotency_key_reused`)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        SupervisorOnly,
    )
)]
#[post("/api/v1/matches/{id}/sportsmanship")]
async fn rate(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    id: web::Path<MatchId>,
    body: ApiJson<RatingInput>,
) -> Result<HttpResponse, AppError> {
    let input = super::match_body(&state, &who, *id, body).await?;
    Ok(super::acted(
        conduct::rate(&state.db, &who.user, *id, &input).await?,
    ))
}

/// An admin's decision on a team's playoff eligibility, over what the rules say (audited):
/// `{"eligible": true|false, "reason"}`, or `{"eligible": null}` to give it back to the rules.
#[utoipa::path(
    post,
    path = "/api/v1/leagues/{slug}/eligibility/{team_id}",
    tag = "playoffs",
    params(
        Slug,
        ("team_id" = i64, Path, description = "the team's id", minimum = 1),
    ),
    request_body = OverrideInput,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the team's eligibility row", body = EligibilityRow),
        (status = 404, description = "no such league, or no such team in it", body = ErrorBody),
        (status = 422, description = "a decision without a reason, a reason too long or with control characters, or a withdrawn team made eligible", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/leagues/{slug}/eligibility/{team_id}")]
async fn override_eligibility(
    state: web::Data<AppState>,
    Admin(who): Admin,
    path: web::Path<(Slug, TeamId)>,
    body: ApiJson<OverrideInput>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    let (slug, team) = path.into_inner();
    let row: EligibilityRow =
        eligibility::set_override(&state.db, &who.user, &slug, team, &input).await?;
    Ok(HttpResponse::Ok().json(row))
}
