//! Who may enter the playoffs (docs/api.md §6.10): each team's record judged by the league's
//! eligibility settings (`league::eligibility`), and the seeding's list of eligible teams.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use sqlx::SqliteConnection;

use super::ServiceError;
use super::leagues::{League, league_by_slug};
use super::standings::standings;
use crate::db::Db;
use crate::db::leagues::{self as db_leagues, TeamRow};
use crate::domain::TeamId;
use crate::league::eligibility::{Record, WITHDRAWN, at_risk, failing};
use crate::league::standings::Standing;

/// One team's eligibility.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct EligibilityRow {
    pub team_id: TeamId,
    pub team: String,
    pub eligible: bool,
    /// Every rule the team fails, in words ("sportsmanship average 2.7 is below 3.0").
    pub reasons: Vec<String>,
    /// What the team needs to stay eligible, in words ("one more forfeit and you are out of
    /// the playoffs").
    pub at_risk: Vec<String>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct EligibilityTable {
    pub rows: Vec<EligibilityRow>,
}

/// Every team of the league with its verdict, in standings order.
pub async fn table(
    conn: &mut SqliteConnection,
    league: &League,
) -> Result<Vec<EligibilityRow>, ServiceError> {
    let teams = db_leagues::teams(&mut *conn, league.row.id).await?;
    let table = standings(conn, league).await?;
    Ok(judge(league, &teams, &table))
}

/// The verdict on each row of `table` (the league's standings), from its `teams`: for a
/// caller that has the standings already (the playoffs' seeding).
pub(super) fn judge(league: &League, teams: &[TeamRow], table: &[Standing]) -> Vec<EligibilityRow> {
    let withdrawn: HashSet<i64> = teams
        .iter()
        .filter(|t| t.withdrawn)
        .map(|t| t.id.0)
        .collect();
    // A team the forfeit policy dropped says so instead of "withdrawn".
    let dropped: HashMap<i64, &str> = teams
        .iter()
        .filter_map(|t| Some((t.id.0, t.dropped_reason.as_deref()?)))
        .collect();
    table
        .iter()
        .map(|s| {
            let record = Record {
                played: s.played,
                won: s.won,
                tied: s.tied,
                forfeits: s.forfeits,
                ratings: Vec::new(),
                withdrawn: withdrawn.contains(&s.team_id),
            };
            let mut reasons = failing(&league.settings, &record);
            if let Some(why) = dropped.get(&s.team_id) {
                for reason in &mut reasons {
                    if reason == WITHDRAWN {
                        *reason = format!("the team was {why}");
                    }
                }
            }
            EligibilityRow {
                team_id: TeamId(s.team_id),
                team: s.team.clone(),
                eligible: reasons.is_empty(),
                at_risk: at_risk(&league.settings, &record),
                reasons,
            }
        })
        .collect()
}

/// The eligibility of every team of league `slug` (public).
pub async fn of_league(db: &Db, slug: &str) -> Result<EligibilityTable, ServiceError> {
    let mut conn = db.reader().acquire().await?;
    let league = league_by_slug(&mut conn, slug).await?;
    Ok(EligibilityTable {
        rows: table(&mut conn, &league).await?,
    })
}
