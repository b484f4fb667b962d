//! A league's standings in the JSON API (docs/api.md §6).

use crate::domain::{DivisionId, Slug, TeamId};
use crate::service::term::divisions::Placed;
use actix_web::{HttpResponse, get, web};
use serde::Serialize;

use crate::league::standings::Standing;
use crate::service::playoffs::eligibility::EligibilityTable;
use crate::web::AppState;
use crate::web::api::responses::{BadReadCredentials, NoSuchLeague};
use crate::web::error::AppError;

/// The public reads, served from the page cache to anonymous visitors.
pub fn reads(cfg: &mut web::ServiceConfig) {
    cfg.service(standings).service(eligibility);
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct StandingOut {
    pub rank: usize,
    // A plain integer in the schema, as before `TeamId` (the v0.1 contract).
    #[schema(value_type = i64)]
    pub team_id: TeamId,
    pub team: String,
    pub played: u32,
    pub won: u32,
    pub lost: u32,
    pub tied: u32,
    pub forfeits: u32,
    pub win_pct: f64,
    pub points_for: i64,
    pub points_against: i64,
    pub differential: i64,
    /// The team's sportsmanship average to two places (`null` before its first rating);
    /// present only when the league rates sportsmanship.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<f64>)]
    pub sportsmanship: Option<Option<f64>>,
    /// The team's division (`null`: none).
    #[schema(value_type = Option<i64>)]
    pub division: Option<DivisionId>,
    /// Its rank within its division (`null` without a division).
    pub division_rank: Option<usize>,
}

impl StandingOut {
    /// The row as sent: the winning percentage rounded to three places; `rated`: the league
    /// rates sportsmanship.
    fn new(s: &Standing, rated: bool, placed: Placed) -> Self {
        StandingOut {
            rank: s.rank,
            team_id: s.team_id,
            team: s.team.clone(),
            played: s.played,
            won: s.won,
            lost: s.lost,
            tied: s.tied,
            forfeits: s.forfeits,
            win_pct: (s.win_pct * 1000.0).round() / 1000.0,
            points_for: s.points_for,
            points_against: s.points_against,
            differential: s.differential,
            sportsmanship: rated
                .then(|| s.sportsmanship().map(|avg| (avg * 100.0).round() / 100.0)),
            division: placed.division,
            division_rank: placed.rank,
        }
    }
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct StandingsOut {
    rows: Vec<StandingOut>,
}

/// A league's standings, ranked with its tiebreaks.
#[utoipa::path(
    get,
    path = "/api/v1/leagues/{slug}/standings",
    tag = "leagues",
    params(Slug),
    responses(
        (status = 200, description = "the standings", body = StandingsOut),
        NoSuchLeague,
        BadReadCredentials,
    )
)]
#[get("/api/v1/leagues/{slug}/standings")]
async fn standings(
    state: web::Data<AppState>,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, AppError> {
    let (rows, rated, placed) = crate::service::views::standings::table(&state.db, &slug).await?;
    Ok(HttpResponse::Ok().json(StandingsOut {
        rows: rows
            .iter()
            .zip(placed)
            .map(|(s, placed)| StandingOut::new(s, rated, placed))
            .collect(),
    }))
}

/// Who may enter the playoffs: each team judged by the league's eligibility settings, with
/// every failing rule and what a team needs to stay in, in words.
#[utoipa::path(
    get,
    path = "/api/v1/leagues/{slug}/eligibility",
    tag = "leagues",
    params(Slug),
    responses(
        (status = 200, description = "every team, in standings order", body = EligibilityTable),
        NoSuchLeague,
        BadReadCredentials,
    )
)]
#[get("/api/v1/leagues/{slug}/eligibility")]
async fn eligibility(
    state: web::Data<AppState>,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok()
        .json(crate::service::playoffs::eligibility::of_league(&state.db, &slug).await?))
}
