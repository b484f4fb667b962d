//! `GET /api/v1/scoreboard`: every match in play, in every league, for the scoreboard page
//! and anyone polling it (`key` changes whenever one of them changes, starts or ends).

use actix_web::http::header;
use actix_web::{HttpResponse, get, web};
use serde::Serialize;

use crate::domain::{MatchId, Timestamp};
use crate::rules::TeamTotal;
use crate::service::TeamRef;
use crate::web::AppState;
use crate::web::error::AppError;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(scoreboard_json);
}

/// A match in play, as the scoreboard's JSON shows it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct BoardMatch {
    pub id: MatchId,
    pub league: String,
    pub league_name: String,
    pub table: Option<String>,
    pub team_a: TeamRef,
    pub team_b: TeamRef,
    pub a: TeamTotal,
    pub b: TeamTotal,
    pub hands: usize,
    pub state: String,
    pub started_at: Option<Timestamp>,
    pub ends_at: Option<Timestamp>,
    pub time_called_at: Option<Timestamp>,
    pub version: i64,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct Board {
    /// The sum of the versions of the matches in play.
    pub version: i64,
    /// Changes whenever any match in play changes, starts or ends: `id:version,...`.
    pub key: String,
    pub matches: Vec<BoardMatch>,
}

/// The board as it is now.
pub async fn board(state: &AppState) -> Result<Board, AppError> {
    let mut conn = state.db.reader().acquire().await?;
    let out: Vec<BoardMatch> = crate::service::summaries::in_play(&mut conn)
        .await?
        .into_iter()
        .map(|p| BoardMatch {
            id: p.summary.id,
            league_name: p.league_name,
            league: p.league,
            table: p.summary.table,
            team_a: p.summary.team_a,
            team_b: p.summary.team_b,
            a: p.summary.a,
            b: p.summary.b,
            hands: p.summary.hands,
            state: p.summary.state,
            started_at: p.started_at,
            ends_at: p.ends_at,
            time_called_at: p.time_called_at,
            version: p.version,
        })
        .collect();
    Ok(Board {
        version: out.iter().map(|m| m.version).sum(),
        key: out
            .iter()
            .map(|m| format!("{}:{}", m.id, m.version))
            .collect::<Vec<_>>()
            .join(","),
        matches: out,
    })
}

/// Every match in play, for the scoreboard (poll it; `key` changes whenever one changes).
#[utoipa::path(
    get,
    path = "/api/v1/scoreboard",
    tag = "scoreboard",
    responses((status = 200, description = "the matches in play", body = Board))
)]
#[get("/api/v1/scoreboard")]
pub async fn scoreboard_json(state: web::Data<AppState>) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .json(board(&state).await?))
}
