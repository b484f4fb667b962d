//! Teams checked in at a tournament night's desk (migration 0034; docs/api.md §21.4).

use super::{Conn, on_store};

use crate::domain::{LeagueId, TeamId, Timestamp};

/// The league's teams checked in, with when.
pub async fn checked_in(
    conn: &mut Conn,
    league_id: LeagueId,
) -> sqlx::Result<Vec<(TeamId, Timestamp)>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT id, checked_in_at FROM teams WHERE league_id = $1 AND checked_in_at IS NOT NULL"
    )
    .bind(league_id)
    .fetch_all(c)
    .await)
}

/// Checks team `team` in at `at`, or out (`None`).
pub async fn set_checked_in(
    conn: &mut Conn,
    team: TeamId,
    at: Option<Timestamp>,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query("UPDATE teams SET checked_in_at = $1 WHERE id = $2")
        .bind(at)
        .bind(team))?;
    Ok(())
}
