//! The supervisor's evening (`/supervise`): the matches of the leagues a user runs — in play
//! first, then the scheduled ones (the day's first), then the latest finished — read from the
//! cached totals in three bounded queries, however many matches and hands the leagues have.

use std::collections::HashMap;

use chrono::{Days, NaiveDate, NaiveTime};
use sqlx::SqliteConnection;

use super::summaries::MatchSummary;
use super::{ServiceError, User};
use crate::db::tonight::{self as db_tonight, ListedRow};
use crate::domain::{LocalTime, MatchId, MatchStatus};

/// How many scheduled and finished matches the list shows.
pub const UPCOMING: i64 = 40;
pub const RECENT: i64 = 12;

/// The three parts of the list.
#[derive(Debug, Clone, Default)]
pub struct Tonight {
    pub live: Vec<Listed>,
    pub upcoming: Vec<Listed>,
    pub done: Vec<Listed>,
}

/// A match of the list.
#[derive(Debug, Clone)]
pub struct Listed {
    pub league_name: String,
    pub summary: MatchSummary,
    /// Scheduled (not started) on the day of `now`.
    pub today: bool,
}

/// The matches `user` may run (every league's for the coordinator), as of `now` (the
/// wall-clock time schedules are written in).
pub async fn tonight(
    conn: &mut SqliteConnection,
    user: &User,
    now: LocalTime,
) -> Result<Tonight, ServiceError> {
    let supervisor = (!user.is_admin()).then_some(user.id);
    let today = now.0.date();
    let day_start = today.and_time(NaiveTime::MIN);
    let next_day = day_start
        .checked_add_days(Days::new(1))
        .unwrap_or(day_start);
    let live = db_tonight::live(conn, supervisor).await?;
    let upcoming = db_tonight::scheduled(
        conn,
        supervisor,
        LocalTime(day_start),
        LocalTime(next_day),
        UPCOMING,
    )
    .await?;
    let done = db_tonight::finished(conn, supervisor, RECENT).await?;
    Ok(Tonight {
        live: listed(conn, live, today).await?,
        upcoming: listed(conn, upcoming, today).await?,
        done: listed(conn, done, today).await?,
    })
}

/// `rows` as summaries (team names and the state in words), in order: one team lookup per
/// league.
async fn listed(
    conn: &mut SqliteConnection,
    rows: Vec<ListedRow>,
    today: NaiveDate,
) -> Result<Vec<Listed>, ServiceError> {
    let mut leagues: Vec<_> = rows.iter().map(|r| r.m.league_id).collect();
    leagues.sort();
    leagues.dedup();
    let mut summaries: HashMap<MatchId, MatchSummary> = HashMap::with_capacity(rows.len());
    for league in leagues {
        let of_league: Vec<_> = rows
            .iter()
            .filter(|r| r.m.league_id == league)
            .map(|r| r.m.clone())
            .collect();
        for summary in super::summaries::summaries_of(conn, league, &of_league).await? {
            summaries.insert(summary.id, summary);
        }
    }
    Ok(rows
        .into_iter()
        .filter_map(|r| {
            let summary = summaries.remove(&r.m.id)?;
            let today = summary.status == MatchStatus::Scheduled
                && summary.scheduled_at.is_some_and(|t| t.0.date() == today);
            Some(Listed {
                league_name: r.league_name,
                summary,
                today,
            })
        })
        .collect())
}
