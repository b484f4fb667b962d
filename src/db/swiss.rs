//! A league's Swiss rounds and their byes (migration 0034; docs/api.md §21.2).

use super::{Conn, on_store};

use crate::domain::{LeagueId, TeamId, Timestamp};

#[derive(Debug, Clone, PartialEq, Eq, sqlx_macros::FromRow)]
pub struct SwissRoundRow {
    pub round: i64,
    /// The team that had this round's bye (the field was odd).
    pub bye_team_id: Option<TeamId>,
}

/// The league's Swiss rounds, first to last: none when it does not play them.
pub async fn of_league(conn: &mut Conn, league_id: LeagueId) -> sqlx::Result<Vec<SwissRoundRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT round, bye_team_id FROM swiss_rounds WHERE league_id = $1 ORDER BY round"
    )
    .bind(league_id)
    .fetch_all(c)
    .await)
}

/// Records round `round` as paired at `paired_at`, with its bye.
pub async fn insert(
    conn: &mut Conn,
    league_id: LeagueId,
    round: i64,
    bye: Option<TeamId>,
    paired_at: Timestamp,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "INSERT INTO swiss_rounds (league_id, round, bye_team_id, paired_at) VALUES ($1, $2, $3, $4)"
    )
    .bind(league_id)
    .bind(round)
    .bind(bye)
    .bind(paired_at))?;
    Ok(())
}
