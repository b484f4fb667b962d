//! A league's standings in the JSON API (docs/api.md §6).

use crate::domain::{DivisionId, Slug, TeamId};
use crate::service::term::divisions::Placed;
use actix_web::{HttpResponse, get, web};
use serde::Serialize;

use crate::league::race::Race;
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
    /// In a league of Swiss rounds: the sum of the team's opponents' wins, the first
    /// tiebreak; absent in any other league.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buchholz: Option<u32>,
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
    /// Where it stands in the race for the playoffs; present only when the league says how
    /// many teams the playoffs take (`settings.playoffs.teams`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub race: Option<RaceOut>,
}

/// A team's place in the playoff race, exact over every result the remaining
/// regular-season matches can have (docs/api.md, "The playoff race").
#[derive(Serialize, utoipa::ToSchema)]
pub struct RaceOut {
    /// `clinched`: in, whatever happens (a tie it cannot yet be sure to win counted against
    /// it); `eliminated`: out, whatever happens (a tie counted for it); else `alive`.
    #[schema(value_type = String, example = "alive")]
    pub status: &'static str,
    /// Its regular-season matches not yet played.
    pub games_left: u32,
    /// The fewest of them it must win to be sure of a place whatever else happens; 0 when
    /// clinched, `null` when even winning them all is not enough.
    #[schema(required = true)]
    pub wins_needed: Option<u32>,
}

impl From<Race> for RaceOut {
    fn from(r: Race) -> Self {
        RaceOut {
            status: r.status.as_str(),
            games_left: r.games_left,
            wins_needed: r.wins_needed,
        }
    }
}

impl StandingOut {
    /// The row as sent: the winning percentage rounded to three places; `rated`: the league
    /// rates sportsmanship.
    fn new(s: &Standing, rated: bool, placed: Placed, race: Option<Race>) -> Self {
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
            buchholz: s.buchholz,
            sportsmanship: rated
                .then(|| s.sportsmanship().map(|avg| (avg * 100.0).round() / 100.0)),
            division: placed.division,
            division_rank: placed.rank,
            race: race.map(RaceOut::from),
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
    let table = crate::service::views::standings::table(&state.db, &slug).await?;
    let races = table
        .races
        .map(|r| r.into_iter().map(Some).collect::<Vec<_>>());
    let races = races.unwrap_or_else(|| vec![None; table.rows.len()]);
    Ok(HttpResponse::Ok().json(StandingsOut {
        rows: table
            .rows
            .iter()
            .zip(table.placed)
            .zip(races)
            .map(|((s, placed), race)| StandingOut::new(s, table.rated, placed, race))
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
