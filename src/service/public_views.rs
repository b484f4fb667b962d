//! What the public league pages read besides the league's home (`league_home`): the
//! standings, the schedule, the teams, a team's season and the bracket, each with its
//! league, in one call per page.

use std::sync::Arc;

use sqlx::SqliteConnection;

use super::ServiceError;
use super::leagues::{self, League};
use super::playoffs::{self, BracketView};
use super::standings::StandingsCache;
use super::summaries::MatchSummary;
use crate::db::leagues::TeamRow;
use crate::domain::TeamId;
use crate::league::standings::Standing;

/// A league and its regular-season standings.
#[derive(Debug, Clone)]
pub struct LeagueStandings {
    pub league: League,
    pub rows: Arc<Vec<Standing>>,
}

pub async fn standings(
    conn: &mut SqliteConnection,
    cache: &StandingsCache,
    slug: &str,
) -> Result<LeagueStandings, ServiceError> {
    let league = leagues::league_by_slug(conn, slug).await?;
    let rows = cache.get(conn, &league).await?;
    Ok(LeagueStandings { league, rows })
}

/// A league and every one of its matches, in schedule order (cancelled ones left out).
#[derive(Debug, Clone)]
pub struct LeagueSchedule {
    pub league: League,
    pub matches: Vec<MatchSummary>,
}

pub async fn schedule(
    conn: &mut SqliteConnection,
    slug: &str,
) -> Result<LeagueSchedule, ServiceError> {
    let league = leagues::league_by_slug(conn, slug).await?;
    let matches = super::summaries::summaries(conn, league.row.id).await?;
    Ok(LeagueSchedule { league, matches })
}

/// A league and its teams, by name.
#[derive(Debug, Clone)]
pub struct LeagueTeams {
    pub league: League,
    pub teams: Vec<TeamRow>,
}

pub async fn teams(conn: &mut SqliteConnection, slug: &str) -> Result<LeagueTeams, ServiceError> {
    let league = leagues::league_by_slug(conn, slug).await?;
    let teams = super::teams::teams(conn, league.row.id).await?;
    Ok(LeagueTeams { league, teams })
}

/// One team's season.
#[derive(Debug, Clone)]
pub struct TeamSeason {
    pub league: League,
    pub team: TeamRow,
    /// Its row of the standings.
    pub standing: Option<Standing>,
    /// Its matches, in schedule order.
    pub matches: Vec<MatchSummary>,
}

/// Team `id` of league `slug` (not found when it is another league's).
pub async fn team(
    conn: &mut SqliteConnection,
    cache: &StandingsCache,
    slug: &str,
    id: TeamId,
) -> Result<TeamSeason, ServiceError> {
    let league = leagues::league_by_slug(conn, slug).await?;
    let team = super::teams::teams(conn, league.row.id)
        .await?
        .into_iter()
        .find(|t| t.id == id)
        .ok_or(ServiceError::NotFound)?;
    let standing = cache
        .get(conn, &league)
        .await?
        .iter()
        .find(|s| s.team_id == id.0)
        .cloned();
    let mut matches = super::summaries::summaries(conn, league.row.id).await?;
    matches.retain(|m| m.team_a.id == id || m.team_b.id == id);
    Ok(TeamSeason {
        league,
        team,
        standing,
        matches,
    })
}

/// A league and its playoff bracket, if it is drawn.
#[derive(Debug, Clone)]
pub struct LeagueBracket {
    pub league: League,
    pub bracket: Option<BracketView>,
}

pub async fn bracket(
    conn: &mut SqliteConnection,
    slug: &str,
) -> Result<LeagueBracket, ServiceError> {
    let league = leagues::league_by_slug(conn, slug).await?;
    let bracket = match playoffs::bracket_of(conn, &league.row.slug).await {
        Ok(view) => Some(view),
        Err(ServiceError::NotFound) => None,
        Err(e) => return Err(e),
    };
    Ok(LeagueBracket { league, bracket })
}
