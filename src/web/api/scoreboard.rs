//! `GET /api/v1/scoreboard`: every match in play, in every league, for the scoreboard page
//! and anyone polling it (`key` changes whenever one of them changes, starts or ends).

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, web};

use crate::service::views::summaries::{self, Board};
use crate::web::AppState;
use crate::web::api::responses::BadReadCredentials;
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::league_filter;

/// `?league=`: the leagues the board shows.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)] // Documents the query, read by `league_filter`.
pub(crate) struct BoardQuery {
    /// A league's slug; repeat it for several (`?league=a&league=b`). Absent: every league.
    #[param(required = false)]
    league: Option<Vec<String>>,
}

/// The public reads, served from the page cache to anonymous visitors.
pub fn reads(cfg: &mut web::ServiceConfig) {
    cfg.service(scoreboard_json);
}

/// Every match in play, for the scoreboard (poll it; `key` changes whenever one changes), in
/// every league or in those `?league=` names.
#[utoipa::path(
    get,
    path = "/api/v1/scoreboard",
    tag = "scoreboard",
    params(BoardQuery),
    responses(
        (status = 200, description = "the matches in play", body = Board),
        (status = 404, description = "a `league` that names no league", body = ErrorBody),
        BadReadCredentials,
    )
)]
#[get("/api/v1/scoreboard")]
pub async fn scoreboard_json(
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, AppError> {
    let leagues = league_filter(&req)?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .json(summaries::board(&state.db, &leagues).await?))
}
