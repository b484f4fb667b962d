//! The scoreboard's queries: the matches in play and those just finished, each with the
//! league's and the teams' names the board shows, one query for the whole board.

use super::matches::MatchRow;
use super::{Conn, on_store};

use crate::domain::Timestamp;

/// A match on the scoreboard with the names it shows (one query for the whole board).
#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct InPlayRow {
    #[sqlx(flatten)]
    pub m: MatchRow,
    pub league_slug: String,
    pub league_name: String,
    pub name_a: String,
    pub name_b: String,
    /// When a game played out ended: when its last hand was first entered (a correction
    /// later does not move it). `None` while it is in play, and for a forfeit.
    pub finished_at: Option<Timestamp>,
}

/// The select of an [`InPlayRow`], `m` being the match.
macro_rules! board_row {
    () => {
        "SELECT m.*, l.slug AS league_slug, l.name AS league_name,
                ta.name AS name_a, tb.name AS name_b,
                CASE WHEN m.status = 'complete' THEN
                    (SELECT MIN(h.recorded_at) FROM hands h
                     WHERE h.match_id = m.id AND h.number = m.hands_played)
                END AS finished_at
         FROM matches m JOIN leagues l ON l.id = m.league_id
              JOIN teams ta ON ta.id = m.team_a JOIN teams tb ON tb.id = m.team_b "
    };
}

/// The matches in play, and those whose game ended at `ended_since` or later (the
/// scoreboard shows a finished game as final for a minute before it leaves). Only games
/// started at `started_since` or later are looked at for that, not every season's.
pub async fn in_play_or_ended_since(
    conn: &mut Conn,
    ended_since: Timestamp,
    started_since: Timestamp,
) -> sqlx::Result<Vec<InPlayRow>> {
    const SQL: &str = concat!(
        "SELECT * FROM (",
        board_row!(),
        "WHERE m.status = 'in_progress' OR (m.status = 'complete' AND m.started_at >= $2)
         ) board
         WHERE status = 'in_progress' OR finished_at >= $1
         ORDER BY league_id, id"
    );
    board_rows(conn, SQL, ended_since, started_since).await
}

/// The latest finished matches that started since `since`, the last to end first (a
/// forfeit by its start), at most `limit` (the TV scoreboard's strip of results), with the
/// names the scoreboard shows.
pub async fn finished_since(
    conn: &mut Conn,
    since: Timestamp,
    limit: i64,
) -> sqlx::Result<Vec<InPlayRow>> {
    const SQL: &str = concat!(
        "SELECT * FROM (",
        board_row!(),
        "WHERE m.status IN ('complete', 'forfeit') AND m.started_at >= $1) board
         ORDER BY COALESCE(finished_at, started_at) DESC, id DESC LIMIT $2"
    );
    board_rows(conn, SQL, since, limit).await
}

/// Runs a board query with its two parameters; a row that does not read is left out (and
/// logged), so one league's bad row never blanks the whole board.
async fn board_rows<T>(
    conn: &mut Conn,
    sql: &'static str,
    first: Timestamp,
    second: T,
) -> sqlx::Result<Vec<InPlayRow>>
where
    T: for<'q> sqlx::Encode<'q, sqlx::Sqlite>
        + sqlx::Type<sqlx::Sqlite>
        + for<'q> sqlx::Encode<'q, sqlx::Postgres>
        + sqlx::Type<sqlx::Postgres>
        + Copy
        + Send
        + 'static,
{
    on_store!(conn, |c| sqlx::query(sql)
        .bind(first)
        .bind(second)
        .fetch_all(c)
        .await
        .map(|rows| super::readable(&rows, "match")))
}
