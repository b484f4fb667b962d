//! The queue's reads and writes (migration 0035; docs/api.md §21.1): a league's matches of
//! the day as the queue sees them, a call to a table and a call taken back.

use super::{Conn, on_store};

use crate::domain::{LeagueId, LocalTime, MatchId, MatchStatus, TeamId, Timestamp};
use crate::rules::Stage;

/// A match of the day: in play (whatever day it started), called to a table and not started
/// (whatever its day: a call holds its table past midnight), or scheduled and not started
/// with its time on the day or none.
#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct QueueRow {
    pub id: MatchId,
    pub stage: Stage,
    pub round: Option<i64>,
    pub team_a: TeamId,
    pub team_b: TeamId,
    pub name_a: String,
    pub name_b: String,
    pub table_name: Option<String>,
    pub status: MatchStatus,
    pub scheduled_at: Option<LocalTime>,
    pub called_at: Option<Timestamp>,
    /// Its place in its bracket's order (a playoff match), `bracket_matches.match_index`.
    pub bracket_index: Option<i64>,
}

/// The league's matches of the day that starts at `from` (up to `to`), by id.
pub async fn of_day(
    conn: &mut Conn,
    league_id: LeagueId,
    from: LocalTime,
    to: LocalTime,
) -> sqlx::Result<Vec<QueueRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT m.id, m.stage, m.round, m.team_a, m.team_b, ta.name AS name_a, tb.name AS name_b,
                m.table_name, m.status, m.scheduled_at, m.called_at,
                bm.match_index AS bracket_index
         FROM matches m
         JOIN teams ta ON ta.id = m.team_a
         JOIN teams tb ON tb.id = m.team_b
         LEFT JOIN bracket_matches bm ON bm.match_id = m.id
         WHERE m.league_id = $1
           AND (m.status = 'in_progress'
                OR (m.status = 'scheduled' AND m.started_at IS NULL
                    AND (m.called_at IS NOT NULL OR m.scheduled_at IS NULL
                         OR (m.scheduled_at >= $2 AND m.scheduled_at < $3))))
         ORDER BY m.id"
    )
    .bind(league_id)
    .bind(from)
    .bind(to)
    .fetch_all(c)
    .await)
}

/// Calls match `id` to `table` at `now` if it is still scheduled and not started; bumps the
/// version and the calendar sequence (its place changed). Returns whether it was.
pub async fn call(conn: &mut Conn, id: MatchId, table: &str, now: Timestamp) -> sqlx::Result<bool> {
    let done = on_store!(conn, execute sqlx::query(
        "UPDATE matches SET table_name = $1, called_at = $2, version = version + 1,
                sequence = sequence + 1
         WHERE id = $3 AND status = 'scheduled' AND started_at IS NULL",
    )
    .bind(table)
    .bind(now)
    .bind(id))?;
    Ok(done == 1)
}

/// Takes back the call of match `id` (it waits again, at no table); bumps the version and
/// the calendar sequence. Returns whether a called match was there to take back.
pub async fn put_back(conn: &mut Conn, id: MatchId) -> sqlx::Result<bool> {
    let done = on_store!(conn, execute sqlx::query(
        "UPDATE matches SET called_at = NULL, table_name = NULL, version = version + 1,
                sequence = sequence + 1
         WHERE id = $1 AND called_at IS NOT NULL AND status = 'scheduled' AND started_at IS NULL",
    )
    .bind(id))?;
    Ok(done == 1)
}

/// A match called to its table and not started, for the boards ("Now calling").
#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct CalledRow {
    pub id: MatchId,
    pub version: i64,
    pub table_name: Option<String>,
    pub called_at: Timestamp,
    pub name_a: String,
    pub name_b: String,
    pub league: String,
    pub league_name: String,
    /// The league's settings (JSON), for its `queue.call_minutes`.
    pub settings: String,
}

/// The matches called since `since` and not started, in every current league, the
/// latest call first.
pub async fn called_since(conn: &mut Conn, since: Timestamp) -> sqlx::Result<Vec<CalledRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT m.id, m.version, m.table_name, m.called_at, ta.name AS name_a, tb.name AS name_b,
                l.slug AS league, l.name AS league_name, l.settings
         FROM matches m
         JOIN leagues l ON l.id = m.league_id
         JOIN teams ta ON ta.id = m.team_a
         JOIN teams tb ON tb.id = m.team_b
         WHERE m.called_at >= $1 AND m.status = 'scheduled' AND m.started_at IS NULL
           AND NOT l.archived
         ORDER BY m.called_at DESC, m.id DESC"
    )
    .bind(since)
    .fetch_all(c)
    .await)
}
