//! Players' playoff eligibility and statistics (docs/api.md §15): the coordinator's decision
//! that a player may play in the playoffs (admin), and a team's players' statistics (public,
//! names only, cached for anonymous visitors as every public read).

use actix_web::{HttpResponse, get, post, web};

use crate::domain::{PlayerId, TeamId};
use crate::service::playoffs::player_eligibility::{self, PlayerEligibility, PlayerOverrideInput};
use crate::service::views::player_stats::{self, TeamStats};
use crate::web::AppState;
use crate::web::api::responses::{AdminOnly, BadReadCredentials, BodyRefused, Unauthenticated};
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::{Admin, ApiJson};

/// The coordinator's decision (admin, not cached).
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(override_player_eligibility);
}

/// The public read.
pub fn reads(cfg: &mut web::ServiceConfig) {
    cfg.service(team_stats);
}

/// The coordinator's decision that a player may play in the playoffs whatever their matches
/// (audited): `{"eligible": true, "reason"}`, or `{"eligible": null}` to give it back to the
/// rules.
#[utoipa::path(
    post,
    path = "/api/v1/players/{id}/eligibility-override",
    tag = "players",
    params(("id" = i64, Path, description = "the player's id")),
    request_body = PlayerOverrideInput,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the player's eligibility as it is now", body = PlayerEligibility),
        (status = 404, description = "no such player", body = ErrorBody),
        (status = 422, description = "`true` without a reason, a reason too long or with control characters, or `false`", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/players/{id}/eligibility-override")]
async fn override_player_eligibility(
    state: web::Data<AppState>,
    Admin(who): Admin,
    id: web::Path<PlayerId>,
    body: ApiJson<PlayerOverrideInput>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    let row = player_eligibility::set_override(&state.db, &who.user, *id, &input).await?;
    Ok(HttpResponse::Ok().json(row))
}

/// Each player's statistics over the team's matches: hands sat in, tricks bid and taken,
/// nils bid and made (names only).
#[utoipa::path(
    get,
    path = "/api/v1/teams/{id}/stats",
    tag = "leagues",
    params(("id" = i64, Path, description = "the team's id")),
    responses(
        (status = 200, description = "the team's players' statistics, in the order they were added", body = TeamStats),
        (status = 404, description = "no such team", body = ErrorBody),
        BadReadCredentials,
    )
)]
#[get("/api/v1/teams/{id}/stats")]
async fn team_stats(
    state: web::Data<AppState>,
    id: web::Path<TeamId>,
) -> Result<HttpResponse, AppError> {
    let stats = player_stats::team_stats(&state.db, *id).await?;
    Ok(HttpResponse::Ok().json(stats))
}
