//! `GET /api/v1/scoreboard`: every match in play, in every league, for the scoreboard page
//! and anyone polling it (`key` changes whenever one of them changes, starts or ends).

use actix_web::http::header;
use actix_web::{HttpResponse, get, web};

use crate::service::views::summaries::{self, Board};
use crate::web::AppState;
use crate::web::api::responses::BadReadCredentials;
use crate::web::error::AppError;

/// The public reads, served from the page cache to anonymous visitors.
pub fn reads(cfg: &mut web::ServiceConfig) {
    cfg.service(scoreboard_json);
}

/// Every match in play, for the scoreboard (poll it; `key` changes whenever one changes).
#[utoipa::path(
    get,
    path = "/api/v1/scoreboard",
    tag = "scoreboard",
    responses(
        (status = 200, description = "the matches in play", body = Board),
        BadReadCredentials,
    )
)]
#[get("/api/v1/scoreboard")]
pub async fn scoreboard_json(state: web::Data<AppState>) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .json(summaries::board(&state.db).await?))
}
