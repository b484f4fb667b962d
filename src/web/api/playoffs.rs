//! Playoffs in the JSON API (docs/api.md §8): create a league's bracket, read it.

use crate::domain::Slug;
use actix_web::{HttpResponse, get, post, web};

use crate::service::playoffs::{self, BracketView, PlayoffsInput};
use crate::web::AppState;
use crate::web::api::responses::{
    AdminOnly, BadReadCredentials, BodyRefused, NoSuchLeague, Unauthenticated,
};
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::{Admin, ApiJson};

/// The writes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(create_playoffs);
}

/// The public reads, served from the page cache to anonymous visitors.
pub fn reads(cfg: &mut web::ServiceConfig) {
    cfg.service(show_bracket);
}

/// Creates the league's playoff bracket, seeded from the regular-season standings (admin).
/// The matches whose two teams are known are created at once; the others as winners advance.
#[utoipa::path(
    post,
    path = "/api/v1/leagues/{slug}/playoffs",
    tag = "playoffs",
    params(Slug),
    request_body = PlayoffsInput,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "the bracket", body = BracketView),
        NoSuchLeague,
        (status = 409, description = "the league already has a bracket (`bracket_exists`)", body = ErrorBody),
        (status = 422, description = "invalid format, number of teams, third place or grand final", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/leagues/{slug}/playoffs")]
async fn create_playoffs(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    body: ApiJson<PlayoffsInput>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    let view = playoffs::create_playoffs(&state.db, &who.user, &slug, &input).await?;
    Ok(HttpResponse::Created().json(view))
}

/// A league's bracket: every match with its teams, seeds, state and where the winner goes.
#[utoipa::path(
    get,
    path = "/api/v1/leagues/{slug}/bracket",
    tag = "playoffs",
    params(Slug),
    responses(
        (status = 200, description = "the bracket", body = BracketView),
        (status = 404, description = "no such league, or no bracket yet", body = ErrorBody),
        BadReadCredentials,
    )
)]
#[get("/api/v1/leagues/{slug}/bracket")]
async fn show_bracket(
    state: web::Data<AppState>,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, AppError> {
    let view = playoffs::bracket(&state.db, &slug).await?;
    Ok(HttpResponse::Ok().json(view))
}
