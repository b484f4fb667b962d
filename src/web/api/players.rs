//! A team's players in the JSON API (docs/api.md, "Players"): admins only, since a player's
//! student id and email are personal data. Nothing here is cached, and a student id never
//! travels in a URL (the person's export takes it in the body).

use actix_web::{HttpResponse, get, patch, post, web};
use serde::Serialize;

use crate::domain::{PlayerId, TeamId};
use crate::service::people::players::{
    self, EraseInput, ExportInput, NewPlayerInput, PersonExport, Player, PlayerChange,
};
use crate::web::AppState;
use crate::web::api::responses::{AdminOnly, BodyRefused, Unauthenticated};
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::{Admin, ApiJson};

/// Every route: all are for admins, none is cached.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(roster)
        .service(add_player)
        .service(change_player)
        .service(erase_player)
        .service(export_person);
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct Roster {
    players: Vec<Player>,
}

/// A team's players, active or not, with their student ids and emails (admin).
#[utoipa::path(
    get,
    path = "/api/v1/teams/{id}/roster",
    tag = "players",
    params(("id" = i64, Path, description = "the team's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the team's players, in the order they were added", body = Roster),
        (status = 404, description = "no such team", body = ErrorBody),
        Unauthenticated,
        AdminOnly,
    )
)]
#[get("/api/v1/teams/{id}/roster")]
async fn roster(
    state: web::Data<AppState>,
    Admin(who): Admin,
    id: web::Path<TeamId>,
) -> Result<HttpResponse, AppError> {
    let players = players::roster(&state.db, &who.user, *id).await?;
    Ok(HttpResponse::Ok().json(Roster { players }))
}

/// Adds a player to a team (admin).
#[utoipa::path(
    post,
    path = "/api/v1/teams/{id}/players",
    tag = "players",
    params(("id" = i64, Path, description = "the team's id")),
    request_body = NewPlayerInput,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "the new player", body = Player),
        (status = 404, description = "no such team", body = ErrorBody),
        (status = 409, description = "the student id is on another team of the league (`player_on_another_team`) or this team (`student_id_taken`), or the team has 8 active players (`player_limit`)", body = ErrorBody),
        (status = 422, description = "a bad name (`invalid_input`), student id (`invalid_student_id`) or email (`invalid_email`), or a body of the wrong shape", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/teams/{id}/players")]
async fn add_player(
    state: web::Data<AppState>,
    Admin(who): Admin,
    id: web::Path<TeamId>,
    body: ApiJson<NewPlayerInput>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    let player = players::add(&state.db, &who.user, *id, &input).await?;
    Ok(HttpResponse::Created().json(player))
}

/// Changes a player (admin): the fields sent change; `"active": false` deactivates.
#[utoipa::path(
    patch,
    path = "/api/v1/players/{id}",
    tag = "players",
    params(("id" = i64, Path, description = "the player's id")),
    request_body = PlayerChange,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the player as changed", body = Player),
        (status = 404, description = "no such player", body = ErrorBody),
        (status = 409, description = "the student id is taken (`player_on_another_team`, `student_id_taken`), or the team would have more than 8 or fewer than 2 active players (`player_limit`)", body = ErrorBody),
        (status = 422, description = "a bad name, student id or email, or a body of the wrong shape", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[patch("/api/v1/players/{id}")]
async fn change_player(
    state: web::Data<AppState>,
    Admin(who): Admin,
    id: web::Path<PlayerId>,
    body: ApiJson<PlayerChange>,
) -> Result<HttpResponse, AppError> {
    let change = body.into_inner()?;
    Ok(HttpResponse::Ok().json(players::change(&state.db, &who.user, *id, &change).await?))
}

/// Erases a player's personal data (admin): student id and email removed, the name
/// replaced by "Former player" or the one given; scores stay as they are.
#[utoipa::path(
    post,
    path = "/api/v1/players/{id}/erase",
    tag = "players",
    params(("id" = i64, Path, description = "the player's id")),
    request_body = EraseInput,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the player as erased", body = Player),
        (status = 404, description = "no such player", body = ErrorBody),
        (status = 422, description = "a bad name, or a body of the wrong shape", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/players/{id}/erase")]
async fn erase_player(
    state: web::Data<AppState>,
    Admin(who): Admin,
    id: web::Path<PlayerId>,
    body: ApiJson<EraseInput>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    Ok(HttpResponse::Ok().json(players::erase(&state.db, &who.user, *id, &input).await?))
}

/// Everything held about one person, found by student id in every league (admin).
#[utoipa::path(
    post,
    path = "/api/v1/people/export",
    tag = "players",
    request_body = ExportInput,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the person's player rows and lineups", body = PersonExport),
        (status = 422, description = "a bad student id (`invalid_student_id`), or a body of the wrong shape", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/people/export")]
async fn export_person(
    state: web::Data<AppState>,
    Admin(who): Admin,
    body: ApiJson<ExportInput>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    Ok(HttpResponse::Ok().json(players::export_person(&state.db, &who.user, &input).await?))
}
