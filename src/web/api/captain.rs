//! A captain's own view in the JSON API (docs/api.md §20): their teams, rosters (names and
//! emails, never a student id) and matches. Their writes are the match routes' own
//! (`lineup`, `default`, `reschedule-requests`, `disputes`).

use actix_web::{HttpResponse, get, web};
use serde::Serialize;

use crate::service::people::captains::{self, CaptainTeam};
use crate::web::AppState;
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::CaptainSession;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(own_teams);
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct CaptainTeams {
    teams: Vec<CaptainTeam>,
}

/// The teams the signed-in captain captains (a captain's session only: an account's is no
/// captain's), each with its active players and its matches.
#[utoipa::path(
    get,
    path = "/api/v1/captain",
    tag = "captains",
    responses(
        (status = 200, description = "the captain's teams, by league then name", body = CaptainTeams),
        (status = 401, description = "no captain session (sign in at /captain)", body = ErrorBody),
    )
)]
#[get("/api/v1/captain")]
async fn own_teams(
    state: web::Data<AppState>,
    CaptainSession(captain): CaptainSession,
) -> Result<HttpResponse, AppError> {
    let teams = captains::teams(&state.db, &captain).await?;
    Ok(HttpResponse::Ok().json(CaptainTeams { teams }))
}
