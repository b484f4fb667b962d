//! A league's teams in the JSON API (docs/api.md §6).

use crate::domain::Slug;
use actix_web::{HttpResponse, get, patch, post, web};
use serde::Serialize;

use crate::domain::TeamId;
use crate::service::term::roster::edits::{self, TeamChange};
use crate::service::term::teams::{self, NewTeamInput, TeamView};
use crate::web::AppState;
use crate::web::api::responses::{
    AdminOnly, BadReadCredentials, BodyRefused, NoSuchLeague, Unauthenticated,
};
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::{Admin, ApiJson};

/// The writes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(add_team).service(change_team);
}

/// The public reads, served from the page cache to anonymous visitors.
pub fn reads(cfg: &mut web::ServiceConfig) {
    cfg.service(list_teams);
}

/// Adds a team to a league (admin).
#[utoipa::path(
    post,
    path = "/api/v1/leagues/{slug}/teams",
    tag = "leagues",
    params(Slug),
    request_body = NewTeamInput,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "the new team", body = TeamView),
        NoSuchLeague,
        (status = 422, description = "invalid name or players, the name is taken in the league, or a division not of the league (`invalid_division`)", body = ErrorBody),
        (status = 409, description = "a player's student id is on another team of the league (`player_on_another_team`), or twice in this team (`student_id_taken`)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/leagues/{slug}/teams")]
async fn add_team(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    body: ApiJson<NewTeamInput>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    Ok(HttpResponse::Created().json(teams::add_team(&state.db, &who.user, &slug, &input).await?))
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct TeamList {
    teams: Vec<TeamView>,
}

/// A league's teams.
#[utoipa::path(
    get,
    path = "/api/v1/leagues/{slug}/teams",
    tag = "leagues",
    params(Slug),
    responses(
        (status = 200, description = "the league's teams", body = TeamList),
        NoSuchLeague,
        BadReadCredentials,
    )
)]
#[get("/api/v1/leagues/{slug}/teams")]
async fn list_teams(
    state: web::Data<AppState>,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, AppError> {
    let teams = teams::list(&state.db, &slug).await?;
    Ok(HttpResponse::Ok().json(TeamList { teams }))
}

/// Renames a team or moves it to another division (admin): the fields sent change. The
/// division changes only before the team has played.
#[utoipa::path(
    patch,
    path = "/api/v1/teams/{id}",
    tag = "leagues",
    params(("id" = i64, Path, description = "the team's id")),
    request_body = TeamChange,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the team as changed", body = TeamView),
        (status = 404, description = "no such team", body = ErrorBody),
        (status = 409, description = "a new division for a team that has played (`team_has_played`)", body = ErrorBody),
        (status = 422, description = "a bad or taken name (`invalid_input`, `invalid_team`), a division not of the team's league (`invalid_division`)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[patch("/api/v1/teams/{id}")]
async fn change_team(
    state: web::Data<AppState>,
    Admin(who): Admin,
    id: web::Path<TeamId>,
    body: ApiJson<TeamChange>,
) -> Result<HttpResponse, AppError> {
    let change = body.into_inner()?;
    Ok(HttpResponse::Ok().json(edits::patch_team(&state.db, &who.user, *id, &change).await?))
}
