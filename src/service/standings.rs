//! Regular-season standings (docs/scoring.md §7), computed from the finished matches'
//! cached results and kept per league until a result or a team changes.

use std::collections::HashMap;
use std::sync::Arc;

use sqlx::SqliteConnection;

use super::ServiceError;
use super::leagues::League;
use crate::db::Db;
use crate::db::leagues::{self as db_leagues};
use crate::db::matches::{self as db_matches};
use crate::domain::{LeagueId, MatchStatus};
use crate::league::standings::{self, Outcome, Side, Standing, TeamEntry, Tiebreak};
use crate::rules::Team;

/// The regular-season standings, in the league's tiebreak order (docs/scoring.md §7.3), computed from
/// the finished matches' cached results.
pub async fn standings(
    conn: &mut SqliteConnection,
    league: &League,
) -> Result<Vec<Standing>, ServiceError> {
    let teams: Vec<TeamEntry> = db_leagues::teams(conn, league.row.id)
        .await?
        .iter()
        .map(|t| TeamEntry {
            id: t.id.0,
            name: t.name.clone(),
        })
        .collect();
    let results: Vec<standings::Result> = db_matches::results(conn, league.row.id)
        .await?
        .iter()
        .filter_map(result_of)
        .collect();
    let order = if league.tiebreak.is_empty() {
        Tiebreak::DEFAULT_ORDER.to_vec()
    } else {
        league.tiebreak.clone()
    };
    Ok(standings::standings(&teams, &results, &order))
}

/// A finished match as a standings result; `None` while it is not finished.
fn result_of(m: &db_matches::ResultRow) -> Option<standings::Result> {
    let side = |team: Team| match team {
        Team::A => Side::A,
        Team::B => Side::B,
    };
    let outcome = match (m.status, m.forfeit) {
        (MatchStatus::Forfeit, Some(who)) => match who.team() {
            Some(team) => Outcome::Forfeit(side(team)),
            None => Outcome::DoubleForfeit,
        },
        (MatchStatus::Forfeit, None) => Outcome::DoubleForfeit,
        (MatchStatus::Complete, _) => Outcome::Played {
            winner: m.winner.map(side),
        },
        _ => return None,
    };
    Some(standings::Result {
        team_a: m.team_a.0,
        team_b: m.team_b.0,
        score_a: m.score_a,
        score_b: m.score_b,
        outcome,
        ratings: [rating(m.rating_a), rating(m.rating_b)],
    })
}

fn rating(stored: Option<i64>) -> Option<u32> {
    stored.and_then(|r| u32::try_from(r).ok())
}

/// Each league's standings, computed once per `standings_version` (bumped by triggers when a
/// result or a team changes) and tiebreak order: reading them costs the rows, not the season.
#[derive(Debug, Default)]
pub struct StandingsCache {
    leagues: std::sync::Mutex<HashMap<LeagueId, CachedStandings>>,
}

#[derive(Debug)]
struct CachedStandings {
    version: i64,
    tiebreak: String,
    rows: Arc<Vec<Standing>>,
}

impl StandingsCache {
    /// The standings of `league` as read in `conn` (whose league row gives the version).
    pub async fn get(
        &self,
        conn: &mut SqliteConnection,
        league: &League,
    ) -> Result<Arc<Vec<Standing>>, ServiceError> {
        let key = (league.row.standings_version, &league.row.tiebreak_order);
        if let Ok(cache) = self.leagues.lock()
            && let Some(c) = cache.get(&league.row.id)
            && (c.version, &c.tiebreak) == key
        {
            return Ok(c.rows.clone());
        }
        // Computed outside the lock; two requests racing both compute, the later stores.
        let rows = Arc::new(standings(conn, league).await?);
        if let Ok(mut cache) = self.leagues.lock() {
            cache.insert(
                league.row.id,
                CachedStandings {
                    version: league.row.standings_version,
                    tiebreak: league.row.tiebreak_order.clone(),
                    rows: rows.clone(),
                },
            );
        }
        Ok(rows)
    }
}

/// The standings of the league `slug` (404 for no such league), from `cache`, and whether
/// the league rates sportsmanship (the rows then show each team's average).
pub async fn table(
    db: &Db,
    cache: &StandingsCache,
    slug: &str,
) -> Result<(Arc<Vec<Standing>>, bool), ServiceError> {
    let mut conn = db.reader().acquire().await?;
    let league = super::leagues::league_by_slug(&mut conn, slug).await?;
    let rows = cache.get(&mut conn, &league).await?;
    Ok((rows, league.settings.sportsmanship.is_some()))
}
