//! The supervisor's list of tonight's matches, read in three bounded queries: the matches in
//! play, the scheduled ones (the day's first) and the latest finished ones, each limited to
//! the leagues a user may supervise (`supervisor`: a user's id, or `None` for the
//! coordinator, who supervises every league).

use super::{Conn, on_store};

use super::matches::MatchRow;
use crate::domain::{LocalTime, UserId};

/// A match of the list with its league's name.
#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct ListedRow {
    #[sqlx(flatten)]
    pub m: MatchRow,
    pub league_name: String,
}

/// Every match in play, league by league (newest league first), in schedule order (a match
/// without a round before the rounds of its time, on both stores: `NULLS FIRST` is SQLite's
/// own order, PostgreSQL's is the opposite).
pub async fn live(conn: &mut Conn, supervisor: Option<UserId>) -> sqlx::Result<Vec<ListedRow>> {
    on_store!(conn, |c| sqlx::query(
        "SELECT m.*, l.name AS league_name FROM matches m JOIN leagues l ON l.id = m.league_id
         WHERE m.status = 'in_progress' AND ($1 IS NULL OR m.league_id IN
               (SELECT league_id FROM league_supervisors WHERE user_id = $1))
         ORDER BY l.created_at DESC, l.id DESC,
                  m.scheduled_at IS NULL, m.scheduled_at, m.round NULLS FIRST, m.id",
    )
    .bind(supervisor)
    .fetch_all(c)
    .await
    .map(|rows| super::readable(&rows, "match")))
}

/// The first `limit` scheduled matches timed in `[from, to)` or without a time: the day
/// `[day_start, next_day)` first, then the coming ones, then unplayed past ones, then those
/// without a time, each by time.
pub async fn scheduled(
    conn: &mut Conn,
    supervisor: Option<UserId>,
    (from, to): (LocalTime, LocalTime),
    (day_start, next_day): (LocalTime, LocalTime),
    limit: i64,
) -> sqlx::Result<Vec<ListedRow>> {
    on_store!(conn, |c| sqlx::query(
        "SELECT m.*, l.name AS league_name FROM matches m JOIN leagues l ON l.id = m.league_id
         WHERE m.status = 'scheduled' AND ($1 IS NULL OR m.league_id IN
               (SELECT league_id FROM league_supervisors WHERE user_id = $1))
           AND (m.scheduled_at IS NULL OR (m.scheduled_at >= $5 AND m.scheduled_at < $6))
         ORDER BY CASE WHEN m.scheduled_at IS NULL THEN 3
                       WHEN m.scheduled_at >= $2 AND m.scheduled_at < $3 THEN 0
                       WHEN m.scheduled_at >= $3 THEN 1
                       ELSE 2 END,
                  m.scheduled_at, m.id
         LIMIT $4",
    )
    .bind(supervisor)
    .bind(day_start)
    .bind(next_day)
    .bind(limit)
    .bind(from)
    .bind(to)
    .fetch_all(c)
    .await
    .map(|rows| super::readable(&rows, "match")))
}

/// The `limit` finished matches (complete, forfeited or cancelled) started last.
pub async fn finished(
    conn: &mut Conn,
    supervisor: Option<UserId>,
    limit: i64,
) -> sqlx::Result<Vec<ListedRow>> {
    on_store!(conn, |c| {
        sqlx::query(
        "SELECT m.*, l.name AS league_name FROM matches m JOIN leagues l ON l.id = m.league_id
         WHERE m.status NOT IN ('in_progress', 'scheduled', 'postponed') AND ($1 IS NULL OR m.league_id IN
               (SELECT league_id FROM league_supervisors WHERE user_id = $1))
         ORDER BY m.started_at IS NULL, m.started_at DESC, m.id DESC
         LIMIT $2",
    )
    .bind(supervisor)
    .bind(limit)
    .fetch_all(c)
    .await
    .map(|rows| super::readable(&rows, "match"))
    })
}
