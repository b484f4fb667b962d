//! The calls the queue makes by itself (docs/api.md §21.1): with `settings.queue.auto`, a
//! ready match is called to a free table. Every write that frees a table or a team (a
//! result, a forfeit, a default, a withdrawal, a put-back) or makes a match ready (new
//! tables, a new round, a bracket) runs [`fill`] in its own transaction, so the next match
//! is called with the result or not at all. Whom to call is `league::queue`'s (pure).

use std::collections::HashMap;

use chrono::{Days, NaiveDate, NaiveTime};

use crate::db::leagues::{self as db_leagues, LeagueRow};
use crate::db::queue::{self as db_queue, QueueRow};
use crate::db::{Conn, Db};
use crate::domain::{LeagueId, LocalTime, MatchId, MatchStatus, Timestamp};
use crate::league::queue::{self as rules, Entry, Place};
use crate::league::settings::Settings;
use crate::rules::Stage;
use crate::service::ServiceError;

/// The instant of a write and the day it falls on where the league plays: a match waits
/// for a table on its day (or when it has no time).
#[derive(Debug, Clone, Copy)]
pub struct Now {
    pub at: Timestamp,
    pub today: NaiveDate,
}

impl Now {
    pub fn of(db: &Db) -> Now {
        Now {
            at: db.clock().now(),
            today: db.clock().local_now().0.date(),
        }
    }
}

/// A league's matches of the day: as the queue sees them, in calling order, and their
/// teams' names.
pub(in crate::service) struct Day {
    pub entries: Vec<Entry>,
    pub names: HashMap<MatchId, [String; 2]>,
}

/// The league's matches of the day.
pub(in crate::service) async fn day_of(
    conn: &mut Conn,
    league: LeagueId,
    today: NaiveDate,
) -> Result<Day, ServiceError> {
    let from = LocalTime(today.and_time(NaiveTime::MIN));
    let to = LocalTime(
        today
            .checked_add_days(Days::new(1))
            .unwrap_or(today)
            .and_time(NaiveTime::MIN),
    );
    let mut rows = db_queue::of_day(conn, league, from, to).await?;
    rows.sort_by_key(calling_order);
    let names = rows
        .iter()
        .map(|r| (r.id, [r.name_a.clone(), r.name_b.clone()]))
        .collect();
    Ok(Day {
        entries: rows.into_iter().map(entry).collect(),
        names,
    })
}

/// The regular season first: by round (a match added by hand, without one, first), by time
/// within a round, then by id; then the bracket in its order (its matches' index).
fn calling_order(r: &QueueRow) -> (bool, i64, Option<LocalTime>, MatchId) {
    match r.stage {
        Stage::Regular => (false, r.round.unwrap_or(0), r.scheduled_at, r.id),
        _ => (true, r.bracket_index.unwrap_or(0), r.scheduled_at, r.id),
    }
}

fn entry(r: QueueRow) -> Entry {
    let place = match (r.status, r.called_at) {
        (MatchStatus::InProgress, _) => Place::Playing {
            table: r.table_name,
        },
        (_, Some(since)) => Place::Called {
            table: r.table_name.unwrap_or_default(),
            since,
        },
        (_, None) => Place::Waiting,
    };
    Entry {
        id: r.id,
        teams: [r.team_a, r.team_b],
        place,
    }
}

/// Calls ready matches of `league` to its free tables when its queue calls by itself
/// (`skip` aside: a match just put back); returns the matches called. In the caller's
/// transaction. A league whose queue does not call by itself costs no read.
pub(in crate::service) async fn fill(
    conn: &mut Conn,
    league: &LeagueRow,
    settings: &Settings,
    now: Now,
    skip: Option<MatchId>,
) -> Result<Vec<MatchId>, ServiceError> {
    let tables = &settings.tables;
    if league.archived || !settings.queue.auto || tables.is_empty() {
        return Ok(Vec::new());
    }
    let entries = day_of(conn, league.id, now.today).await?.entries;
    let mut called = Vec::new();
    for (id, table) in rules::calls(tables, &entries, skip) {
        if db_queue::call(conn, id, &table, now.at).await? {
            called.push(id);
        }
    }
    if !called.is_empty() {
        tracing::info!(league = %league.slug, called = ?called, "queue called matches");
    }
    Ok(called)
}

/// After a change of league `league_id`'s settings (its tables, its queue): the matches
/// called to a table the room no longer has are put back (they wait again rather than hold
/// a table no one sees), then the free tables are filled. In the change's transaction.
pub(in crate::service) async fn settings_changed(
    conn: &mut Conn,
    league_id: LeagueId,
    now: Now,
) -> Result<(), ServiceError> {
    let (row, settings) = league_settings(conn, league_id).await?;
    let same = crate::domain::table_name::same;
    for e in day_of(conn, league_id, now.today).await?.entries {
        let lost = matches!(&e.place, Place::Called { table, .. } if !settings.tables.iter().any(|t| same(t, table)));
        if lost {
            db_queue::put_back(conn, e.id).await?;
        }
    }
    fill(conn, &row, &settings, now, None).await?;
    Ok(())
}

/// League `league_id`'s row and its settings as stored.
async fn league_settings(
    conn: &mut Conn,
    league_id: LeagueId,
) -> Result<(LeagueRow, Settings), ServiceError> {
    let row = db_leagues::by_id(conn, league_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let settings: Settings = serde_json::from_str(&row.settings)
        .map_err(|e| ServiceError::corrupt("stored settings", e))?;
    Ok((row, settings))
}

/// Fills the free tables of league `league_id` as its stored settings say: after a match
/// ended (finished, forfeited, defaulted) its table is free and the next waiting match is
/// called to it, in the same transaction; after any other change that may free a table or
/// make a match ready, the same.
pub(in crate::service) async fn refill(
    conn: &mut Conn,
    league_id: LeagueId,
    now: Now,
) -> Result<(), ServiceError> {
    let (row, settings) = league_settings(conn, league_id).await?;
    fill(conn, &row, &settings, now, None).await?;
    Ok(())
}

/// A match of a league with tables starts only at a table no other match holds (called to
/// it or played at it), and only while neither of its teams is at another table: the
/// queue's two rules, kept when a supervisor starts a match the queue did not call.
pub(in crate::service) async fn check_start(
    conn: &mut Conn,
    settings: &Settings,
    m: &crate::db::matches::MatchRow,
    today: NaiveDate,
) -> Result<(), ServiceError> {
    if settings.tables.is_empty() {
        return Ok(());
    }
    let day = day_of(conn, m.league_id, today).await?;
    // A table that is not the room's holds nothing the queue knows of.
    let same = crate::domain::table_name::same;
    let table = m
        .table_name
        .as_deref()
        .filter(|t| settings.tables.iter().any(|r| same(r, t)));
    match rules::taken(&day.entries, m.id, [m.team_a, m.team_b], table) {
        Some(taken) => Err(refusal(taken, table.unwrap_or_default())),
        None => Ok(()),
    }
}

/// The 409 of a match placed by hand where another match holds `table` or a team.
pub(in crate::service) fn refusal(taken: rules::Taken, table: &str) -> ServiceError {
    use crate::domain::ErrorCode;
    match taken {
        rules::Taken::Table(other) => ServiceError::conflict(
            ErrorCode::TableBusy,
            format!(
                "match {other} is at {}: put it back, or wait for its end",
                crate::domain::table_name::shown(table)
            ),
        ),
        rules::Taken::Team(other) => ServiceError::conflict(
            ErrorCode::TeamBusy,
            format!("a team of this match is at another table (match {other})"),
        ),
    }
}

/// As [`check_start`] for match `m` as a change would leave it (a match in play moved to
/// another table), its league's settings read here.
pub(in crate::service) async fn check_place(
    conn: &mut Conn,
    m: &crate::db::matches::MatchRow,
    today: NaiveDate,
) -> Result<(), ServiceError> {
    let (_, settings) = league_settings(conn, m.league_id).await?;
    check_start(conn, &settings, m, today).await
}
