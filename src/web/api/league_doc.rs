//! A whole league as one JSON document, exported and imported (docs/api.md §18.4).

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, post, web};

use crate::domain::Slug;
use crate::service::league_doc::{self, ImportInput, Imported};
use crate::web::AppState;
use crate::web::api::responses::{AdminOnly, BodyRefused, NoSuchLeague, Unauthenticated};
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::{Admin, is_json, parse};

/// The largest import body: a season's document is a few MiB; other bodies stay at 256 KiB.
pub const IMPORT_LIMIT: usize = 16 * 1024 * 1024;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(import_league).service(export_league);
}

/// The whole league as one document (admin): it holds the roster's student ids and emails.
#[utoipa::path(
    get,
    path = "/api/v1/leagues/{slug}/export",
    tag = "leagues",
    params(Slug),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the league document (a download, `{slug}-league.json`)", body = Object),
        NoSuchLeague,
        Unauthenticated,
        AdminOnly,
    )
)]
#[get("/api/v1/leagues/{slug}/export")]
async fn export_league(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, AppError> {
    let doc = league_doc::export(&state.db, &who.user, &slug).await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{slug}-league.json\""),
        ))
        .json(doc))
}

/// Imports a league document as a new league (admin), in one transaction.
#[utoipa::path(
    post,
    path = "/api/v1/leagues/import",
    tag = "leagues",
    request_body = ImportInput,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "the new league, and what could not be kept (`warnings`)", body = Imported),
        (status = 409, description = "the slug is taken (`slug_taken`)", body = ErrorBody),
        (status = 422, description = "an invalid slug or name, or a document that is not one or does not hold together (`invalid_document`, naming the path in `field`)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/leagues/import")]
async fn import_league(
    state: web::Data<AppState>,
    Admin(who): Admin,
    req: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, AppError> {
    // Read here, after the caller's rights, with this route's own limit (as `ApiJson` reads
    // the others: too large first, then not JSON, then the wrong shape).
    let body = payload
        .to_bytes_limited(IMPORT_LIMIT)
        .await
        .map_err(|_| AppError::TooLarge)?
        .map_err(|e| AppError::Malformed(format!("the body could not be read: {e}")))?;
    if !is_json(&req) {
        return Err(AppError::UnsupportedMediaType);
    }
    let input: ImportInput = parse(&body)?;
    let imported = league_doc::import(&state.db, &who.user, &input).await?;
    Ok(HttpResponse::Created().json(imported))
}
