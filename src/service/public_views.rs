//! What the public league pages read besides the league's home (`league_home`): the
//! standings, the schedule, the teams, a team's season (with what it needs for the playoffs)
//! and the bracket, each with its league, in one call per page.

use std::collections::HashMap;

use chrono::NaiveDate;
use sqlx::SqliteConnection;

use super::ServiceError;
use super::eligibility::{EligibilityRow, judge};
use super::leagues::{self, League};
use super::playoffs::{self, BracketView};
use super::summaries::MatchSummary;
use crate::db::leagues::{self as db_leagues, TeamRow};
use crate::domain::TeamId;
use crate::league::standings::Standing;
use crate::rules::Stage;

/// A league and its regular-season standings.
#[derive(Debug, Clone)]
pub struct LeagueStandings {
    pub league: League,
    pub rows: Vec<Standing>,
    /// The teams out of the league, by id, and why (see [`out_of_league`]).
    pub out: HashMap<i64, String>,
}

pub async fn standings(
    conn: &mut SqliteConnection,
    slug: &str,
) -> Result<LeagueStandings, ServiceError> {
    let league = leagues::league_by_slug(conn, slug).await?;
    let rows = super::standings::standings(conn, &league).await?;
    let teams = super::teams::teams(conn, league.row.id).await?;
    Ok(LeagueStandings {
        league,
        rows,
        out: out_of_league(&teams),
    })
}

/// The teams of `teams` that are out of the league, by id, with why in words for their
/// standings row: the forfeit policy's reason ("dropped after 2 forfeits") or "withdrawn".
pub fn out_of_league(teams: &[TeamRow]) -> HashMap<i64, String> {
    teams
        .iter()
        .filter(|t| t.withdrawn)
        .map(|t| {
            let why = t
                .dropped_reason
                .clone()
                .unwrap_or_else(|| "withdrawn".to_string());
            (t.id.0, why)
        })
        .collect()
}

/// A league's schedule as the public page shows it: the regular season night by night, then
/// the playoffs night by night, then the matches without a time. Every match is in it but the
/// cancelled ones of a reset bracket path (a new match replaced each); a match the
/// coordinator cancelled or postponed stays, marked.
#[derive(Debug, Clone)]
pub struct LeagueSchedule {
    pub league: League,
    /// The regular-season matches that have a time, by night, in date order.
    pub regular: Vec<Night>,
    /// The playoff and final matches that have a time, by night, in date order.
    pub playoffs: Vec<Night>,
    /// The matches without a time (not yet scheduled, or postponed): the regular season's
    /// by round (those of no round last), then the playoffs' and the final's by round.
    pub undated: Vec<RoundOf>,
}

/// The matches of one night (the date of their scheduled time, in the league's wall-clock
/// time), by time.
#[derive(Debug, Clone)]
pub struct Night {
    pub date: NaiveDate,
    pub matches: Vec<MatchSummary>,
}

/// The matches of one round of one stage.
#[derive(Debug, Clone)]
pub struct RoundOf {
    pub stage: Stage,
    pub round: Option<i64>,
    pub matches: Vec<MatchSummary>,
}

pub async fn schedule(
    conn: &mut SqliteConnection,
    slug: &str,
) -> Result<LeagueSchedule, ServiceError> {
    let league = leagues::league_by_slug(conn, slug).await?;
    let matches = super::summaries::summaries(conn, league.row.id).await?;
    let (regular, playoffs, undated) = grouped(matches);
    Ok(LeagueSchedule {
        league,
        regular,
        playoffs,
        undated,
    })
}

/// `matches` by night (regular season, then playoffs) and the undated ones by round.
fn grouped(matches: Vec<MatchSummary>) -> (Vec<Night>, Vec<Night>, Vec<RoundOf>) {
    let (mut dated, mut undated): (Vec<_>, Vec<_>) =
        matches.into_iter().partition(|m| m.scheduled_at.is_some());
    dated.sort_by_key(|m| (m.scheduled_at, m.round, m.id));
    let (regular, playoffs): (Vec<_>, Vec<_>) =
        dated.into_iter().partition(|m| m.stage == Stage::Regular);
    let stage_order = |stage: Stage| match stage {
        Stage::Regular => 0,
        Stage::Playoff => 1,
        Stage::Final => 2,
    };
    undated.sort_by_key(|m| (stage_order(m.stage), m.round.is_none(), m.round, m.id));
    let mut rounds: Vec<RoundOf> = Vec::new();
    for m in undated {
        match rounds.last_mut() {
            Some(r) if r.stage == m.stage && r.round == m.round => r.matches.push(m),
            _ => rounds.push(RoundOf {
                stage: m.stage,
                round: m.round,
                matches: vec![m],
            }),
        }
    }
    (nights(regular), nights(playoffs), rounds)
}

/// Dated `matches`, in time order, by night.
fn nights(matches: Vec<MatchSummary>) -> Vec<Night> {
    let mut nights: Vec<Night> = Vec::new();
    for m in matches {
        let Some(date) = m.scheduled_at.map(|t| t.0.date()) else {
            continue;
        };
        match nights.last_mut() {
            Some(n) if n.date == date => n.matches.push(m),
            _ => nights.push(Night {
                date,
                matches: vec![m],
            }),
        }
    }
    nights
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
    /// Its playoff eligibility as things stand: every failing rule, what is at risk, an
    /// admin's decision (`None` only if the team has no row of the standings).
    pub eligibility: Option<EligibilityRow>,
}

/// Team `id` of league `slug` (not found when it is another league's).
pub async fn team(
    conn: &mut SqliteConnection,
    slug: &str,
    id: TeamId,
) -> Result<TeamSeason, ServiceError> {
    let league = leagues::league_by_slug(conn, slug).await?;
    let teams = super::teams::teams(conn, league.row.id).await?;
    let team = teams
        .iter()
        .find(|t| t.id == id)
        .cloned()
        .ok_or(ServiceError::NotFound)?;
    let table = super::standings::standings(conn, &league).await?;
    let standing = table.iter().find(|s| s.team_id == id.0).cloned();
    let eligibility = eligibility_in(conn, &league, &teams, &table, id).await?;
    let mut matches = super::summaries::summaries(conn, league.row.id).await?;
    matches.retain(|m| m.team_a.id == id || m.team_b.id == id);
    Ok(TeamSeason {
        league,
        team,
        standing,
        matches,
        eligibility,
    })
}

/// The playoff eligibility of team `id` of league `slug` as things stand (what the league's
/// `eligibility` API answers for its row): whether it is eligible, every rule it fails, what
/// is at risk, an admin's decision. Not found when the team is another league's.
pub async fn team_eligibility(
    conn: &mut SqliteConnection,
    slug: &str,
    id: TeamId,
) -> Result<EligibilityRow, ServiceError> {
    let league = leagues::league_by_slug(conn, slug).await?;
    let teams = super::teams::teams(conn, league.row.id).await?;
    let table = super::standings::standings(conn, &league).await?;
    eligibility_in(conn, &league, &teams, &table, id)
        .await?
        .ok_or(ServiceError::NotFound)
}

/// The eligibility row of team `id` judged from the league's `teams` and standings `table`
/// (read by the caller) and the admins' decisions.
async fn eligibility_in(
    conn: &mut SqliteConnection,
    league: &League,
    teams: &[TeamRow],
    table: &[Standing],
    id: TeamId,
) -> Result<Option<EligibilityRow>, ServiceError> {
    let Some(row) = table.iter().find(|s| s.team_id == id.0) else {
        return Ok(None);
    };
    let overrides = db_leagues::overrides(conn, league.row.id).await?;
    Ok(judge(league, teams, &overrides, std::slice::from_ref(row))
        .into_iter()
        .next())
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
