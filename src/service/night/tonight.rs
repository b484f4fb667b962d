//! The supervisor's evening (`/supervise`): today first — the matches given to them, then
//! the rest in play, today's scheduled ones by time, those finished today — and, for
//! looking back or ahead, the
//! rest of the coming week, the earlier days (unplayed past matches, latest results) and the
//! matches without a time. Read from the cached totals in three bounded queries, however
//! many matches and hands the leagues have.

use std::collections::HashMap;

use crate::db::{Conn, Db};
use chrono::{Days, NaiveDate, NaiveTime};

use crate::db::tonight::{self as db_tonight, ListedRow};
use crate::domain::{LocalTime, MatchId, MatchStatus};
use crate::service::views::summaries::MatchSummary;
use crate::service::{ServiceError, User};

/// How many scheduled and finished matches the list reads at most.
pub const UPCOMING: i64 = 60;
pub const RECENT: i64 = 12;
/// How far the list looks ahead ("later this week") and back (unplayed past matches).
pub const WEEK: u64 = 7;

/// The parts of the list.
#[derive(Debug, Clone, Default)]
pub struct Tonight {
    /// Of today's, those given to the user: first on the page ("Yours tonight").
    pub yours: Vec<Listed>,
    /// In play (whatever day they started), then today's scheduled matches by time, then
    /// today's finished ones, latest first.
    pub today: Vec<Listed>,
    /// Scheduled from tomorrow to a week ahead, by time.
    pub later: Vec<Listed>,
    /// Scheduled in the past week but not started, by time; then finished before today,
    /// latest first.
    pub earlier: Vec<Listed>,
    /// Scheduled without a time yet.
    pub untimed: Vec<Listed>,
}

/// A match of the list.
#[derive(Debug, Clone)]
pub struct Listed {
    pub league_name: String,
    pub summary: MatchSummary,
    /// Scheduled (not started) on the day of `now`.
    pub today: bool,
    /// Given to the user who asks (its `supervisor`).
    pub yours: bool,
}

/// The matches `user` may run (every league's for the coordinator), as of the clock's now, in
/// the wall-clock time schedules are written in.
pub async fn tonight(db: &Db, user: &User) -> Result<Tonight, ServiceError> {
    let mut conn = db.read().await?;
    let clock = db.clock();
    let conn = &mut conn;
    let supervisor = (!user.is_admin()).then_some(user.id);
    let today = clock.local_now().0.date();
    let day = |d: Option<NaiveDate>| LocalTime(d.unwrap_or(today).and_time(NaiveTime::MIN));
    let day_start = day(Some(today));
    let next_day = day(today.checked_add_days(Days::new(1)));
    let window = (
        day(today.checked_sub_days(Days::new(WEEK))),
        day(today.checked_add_days(Days::new(WEEK + 1))),
    );
    let live = db_tonight::live(conn, supervisor).await?;
    let scheduled =
        db_tonight::scheduled(conn, supervisor, window, (day_start, next_day), UPCOMING).await?;
    let finished = db_tonight::finished(conn, supervisor, RECENT).await?;

    let mut list = Tonight {
        today: listed(conn, live, (today, user)).await?,
        ..Tonight::default()
    };
    for item in listed(conn, scheduled, (today, user)).await? {
        match item.summary.scheduled_at.map(|t| t.0.date()) {
            None => list.untimed.push(item),
            Some(d) if d == today => list.today.push(item),
            Some(d) if d > today => list.later.push(item),
            Some(_) => list.earlier.push(item),
        }
    }
    // A finished match belongs to the day it started (a cancelled one to its scheduled day).
    let started_on: HashMap<MatchId, Option<NaiveDate>> = finished
        .iter()
        .map(|r| {
            let day = match r.m.started_at {
                Some(t) => Some(clock.local(t).date()),
                None => r.m.scheduled_at.map(|t| t.0.date()),
            };
            (r.m.id, day)
        })
        .collect();
    for item in listed(conn, finished, (today, user)).await? {
        if started_on.get(&item.summary.id) == Some(&Some(today)) {
            list.today.push(item);
        } else {
            list.earlier.push(item);
        }
    }
    let (yours, others) = std::mem::take(&mut list.today)
        .into_iter()
        .partition(|item| item.yours);
    (list.yours, list.today) = (yours, others);
    Ok(list)
}

/// `rows` as summaries (team names and the state in words), in order: one team lookup per
/// league.
async fn listed(
    conn: &mut Conn,
    rows: Vec<ListedRow>,
    (today, user): (NaiveDate, &User),
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
        match crate::service::views::summaries::summaries_of(conn, league, &of_league).await {
            Ok(found) => summaries.extend(found.into_iter().map(|s| (s.id, s))),
            // One league's bad row leaves its matches off the list, not the page.
            Err(e) if e.is_unreadable() => {
                tracing::error!(%league, error = %e, "left out a league's matches that do not read (see `check`)");
            }
            Err(e) => return Err(e),
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
                yours: r.m.supervisor_id == Some(user.id),
            })
        })
        .collect())
}
