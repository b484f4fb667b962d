//! A league's divisions in the JSON API (docs/api.md §18.1): make one, list them.

use crate::domain::Slug;
use actix_web::{HttpResponse, get, post, web};
use serde::Serialize;

use crate::service::term::divisions::{self, DivisionView, NewDivisionInput};
use crate::web::AppState;
use crate::web::api::responses::{
    AdminOnly, BadReadCredentials, BodyRefused, NoSuchLeague, Unauthenticated,
};
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::{Admin, ApiJson};

/// The writes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(add_division);
}

/// The public reads, served from the page cache to anonymous visitors.
pub fn reads(cfg: &mut web::ServiceConfig) {
    cfg.service(list_divisions);
}

/// Makes a division of a league (admin).
#[utoipa::path(
    post,
    path = "/api/v1/leagues/{slug}/divisions",
    tag = "leagues",
    params(Slug),
    request_body = NewDivisionInput,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "the new division", body = DivisionView),
        NoSuchLeague,
        (status = 409, description = "the league has a division by that name (`division_taken`, on `name`)", body = ErrorBody),
        (status = 422, description = "an empty or too long name (`invalid_division`)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/leagues/{slug}/divisions")]
async fn add_division(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    body: ApiJson<NewDivisionInput>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    let division = divisions::create(&state.db, &who.user, &slug, &input).await?;
    Ok(HttpResponse::Created().json(division))
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct DivisionList {
    divisions: Vec<DivisionView>,
}

/// A league's divisions, in the order they were made (empty without divisions).
#[utoipa::path(
    get,
    path = "/api/v1/leagues/{slug}/divisions",
    tag = "leagues",
    params(Slug),
    responses(
        (status = 200, description = "the league's divisions", body = DivisionList),
        NoSuchLeague,
        BadReadCredentials,
    )
)]
#[get("/api/v1/leagues/{slug}/divisions")]
async fn list_divisions(
    state: web::Data<AppState>,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, AppError> {
    let divisions = divisions::list(&state.db, &slug).await?;
    Ok(HttpResponse::Ok().json(DivisionList { divisions }))
}
