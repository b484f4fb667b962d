//! Leagues and their supervisors in the JSON API (docs/api.md §6).

use crate::domain::Slug;
use actix_web::{HttpResponse, delete, get, patch, post, web};
use serde::{Deserialize, Serialize};

use crate::domain::MatchId;
use crate::league::settings::Settings;
use crate::service::term::leagues::{self, LeagueView, NewLeagueInput};
use crate::service::term::seasons::{self, ArchiveInput, CloneInput};
use crate::web::AppState;
use crate::web::api::responses::{
    AdminOnly, BadReadCredentials, BodyRefused, NoSuchLeague, Unauthenticated,
};
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::{Admin, ApiJson};

/// The writes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(create_league)
        .service(change_league)
        .service(add_supervisor)
        .service(archive_league)
        .service(unarchive_league)
        .service(clone_league)
        .service(delete_league)
        .service(delete_match);
}

/// The public reads, served from the page cache to anonymous visitors.
pub fn reads(cfg: &mut web::ServiceConfig) {
    cfg.service(list_leagues).service(show_league);
}

/// Creates a league (admin).
#[utoipa::path(
    post,
    path = "/api/v1/leagues",
    tag = "leagues",
    request_body = NewLeagueInput,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "the new league", body = LeagueView),
        (status = 409, description = "the slug is taken (`slug_taken`), or a current league has the name (`league_name_taken`, on `name`)", body = ErrorBody),
        (status = 422, description = "invalid name, rules or tiebreak order", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/leagues")]
async fn create_league(
    state: web::Data<AppState>,
    Admin(who): Admin,
    body: ApiJson<NewLeagueInput>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    let league = leagues::create_league(&state.db, &who.user, &input).await?;
    Ok(HttpResponse::Created().json(league.view()))
}

/// What changes in a league through `PATCH`: its season settings, merged field by field.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LeagueChange {
    /// Only the fields given change; `null` puts a field back to its default.
    #[schema(value_type = Settings)]
    settings: serde_json::Value,
}

/// Changes a league's season settings (admin): forfeit policy, sportsmanship scale, playoff
/// eligibility.
#[utoipa::path(
    patch,
    path = "/api/v1/leagues/{slug}",
    tag = "leagues",
    params(Slug),
    request_body = LeagueChange,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the league with its settings", body = LeagueView),
        NoSuchLeague,
        (status = 422, description = "an unknown field or a value out of range (`invalid_settings`, naming the field)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[patch("/api/v1/leagues/{slug}")]
async fn change_league(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    body: ApiJson<LeagueChange>,
) -> Result<HttpResponse, AppError> {
    let change = body.into_inner()?;
    leagues::change_settings(&state.db, &who.user, &slug, &change.settings).await?;
    Ok(HttpResponse::Ok().json(leagues::view_by_slug(&state.db, &slug).await?))
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct LeagueList {
    leagues: Vec<LeagueView>,
}

/// Which leagues `GET /api/v1/leagues` lists. Other parameters are ignored, as on every
/// public read (the page cache keeps one copy whatever else the query holds).
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct ListQuery {
    /// `true`: the past seasons (archived leagues) instead of the current leagues.
    #[serde(default)]
    #[param(required = false)]
    archived: bool,
}

/// Lists the current leagues, or with `?archived=true` the past seasons.
#[utoipa::path(
    get,
    path = "/api/v1/leagues",
    tag = "leagues",
    params(ListQuery),
    responses(
        (status = 200, description = "every league", body = LeagueList),
        (status = 400, description = "`archived` given twice, or other than `true` or `false` (`malformed`)", body = ErrorBody),
        BadReadCredentials,
    )
)]
#[get("/api/v1/leagues")]
async fn list_leagues(
    state: web::Data<AppState>,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, AppError> {
    let leagues = leagues::views(&state.db, query.archived).await?;
    Ok(HttpResponse::Ok().json(LeagueList { leagues }))
}

/// A league with its rules resolved per stage.
#[utoipa::path(
    get,
    path = "/api/v1/leagues/{slug}",
    tag = "leagues",
    params(Slug),
    responses(
        (status = 200, description = "the league", body = LeagueView),
        NoSuchLeague,
        BadReadCredentials,
    )
)]
#[get("/api/v1/leagues/{slug}")]
async fn show_league(
    state: web::Data<AppState>,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(leagues::view_by_slug(&state.db, &slug).await?))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SupervisorInput {
    /// An existing user's name.
    #[schema(pattern = r"^[A-Za-z0-9._-]{2,40}$")]
    username: String,
}

/// Lets a user run the league's matches (admin).
#[utoipa::path(
    post,
    path = "/api/v1/leagues/{slug}/supervisors",
    tag = "leagues",
    params(Slug),
    request_body = SupervisorInput,
    security(("bearer" = [])),
    responses(
        (status = 204, description = "the user supervises the league"),
        NoSuchLeague,
        (status = 422, description = "no such user (`invalid_user`), or a body of the wrong shape", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/leagues/{slug}/supervisors")]
async fn add_supervisor(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    body: ApiJson<SupervisorInput>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    leagues::assign_supervisor(&state.db, &who.user, &slug, &input.username).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Archives a league (admin): a past season, read-only from then on (§18.2).
#[utoipa::path(
    post,
    path = "/api/v1/leagues/{slug}/archive",
    tag = "leagues",
    params(Slug),
    request_body = ArchiveInput,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the league, archived", body = LeagueView),
        NoSuchLeague,
        (status = 409, description = "already archived (`league_archived`), matches in progress (`match_started`, naming them), or matches still to play without `\"unplayed\": \"cancel\"` (`unplayed_matches`, listing them in `matches`)", body = ErrorBody),
        (status = 422, description = "a field other than `unplayed` (`invalid_request`)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/leagues/{slug}/archive")]
async fn archive_league(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    body: ApiJson<ArchiveInput>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    seasons::archive(&state.db, &who.user, &slug, &input).await?;
    Ok(HttpResponse::Ok().json(leagues::view_by_slug(&state.db, &slug).await?))
}

/// Makes an archived league writable again (admin).
#[utoipa::path(
    post,
    path = "/api/v1/leagues/{slug}/unarchive",
    tag = "leagues",
    params(Slug),
    request_body = EmptyBody,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the league, current again", body = LeagueView),
        NoSuchLeague,
        (status = 409, description = "a current league has its name (`league_name_taken`, on `name`): rename that one first", body = ErrorBody),
        (status = 422, description = "a body other than `{}` (`invalid_request`)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/leagues/{slug}/unarchive")]
async fn unarchive_league(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    body: ApiJson<EmptyBody>,
) -> Result<HttpResponse, AppError> {
    body.into_inner()?;
    seasons::unarchive(&state.db, &who.user, &slug).await?;
    Ok(HttpResponse::Ok().json(leagues::view_by_slug(&state.db, &slug).await?))
}

/// Starts the next term from a league (admin): its rules and settings, and with `teams` its
/// teams and players; never its matches.
#[utoipa::path(
    post,
    path = "/api/v1/leagues/{slug}/clone",
    tag = "leagues",
    params(Slug),
    request_body = CloneInput,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "the new league", body = LeagueView),
        NoSuchLeague,
        (status = 409, description = "the slug is taken (`slug_taken`, on `slug`), or a current league has the name (`league_name_taken`, on `name`)", body = ErrorBody),
        (status = 422, description = "invalid name or slug (`invalid_input`, `invalid_league`)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/leagues/{slug}/clone")]
async fn clone_league(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    body: ApiJson<CloneInput>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    let league = seasons::clone_league(&state.db, &who.user, &slug, &input).await?;
    Ok(HttpResponse::Created().json(league.view()))
}

/// Deletes a league made by mistake (admin), with its teams, players, divisions and
/// matches: only while nothing was played in it (§18.2).
#[utoipa::path(
    delete,
    path = "/api/v1/leagues/{slug}",
    tag = "leagues",
    params(Slug),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "the league is gone; the audit keeps what it was"),
        NoSuchLeague,
        (status = 409, description = "something was played in it: a match started, finished or forfeited, or a bracket made (`league_has_results`); or it is archived (`league_archived`)", body = ErrorBody),
        Unauthenticated,
        AdminOnly,
    )
)]
#[delete("/api/v1/leagues/{slug}")]
async fn delete_league(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, AppError> {
    leagues::delete_league(&state.db, &who.user, &slug).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Deletes a match that never began (admin); a match that has begun is cancelled instead.
#[utoipa::path(
    delete,
    path = "/api/v1/matches/{id}",
    tag = "matches",
    params(("id" = i64, Path, description = "the match's id")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "the match is gone"),
        (status = 404, description = "no such match", body = ErrorBody),
        (status = 409, description = "the match has begun (`match_started`) or its league is archived (`league_archived`)", body = ErrorBody),
        Unauthenticated,
        AdminOnly,
    )
)]
#[delete("/api/v1/matches/{id}")]
async fn delete_match(
    state: web::Data<AppState>,
    Admin(who): Admin,
    id: web::Path<MatchId>,
) -> Result<HttpResponse, AppError> {
    seasons::delete_match(&state.db, &who.user, *id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// An empty object, `{}`.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EmptyBody {}
