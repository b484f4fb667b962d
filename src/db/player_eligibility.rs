//! Player eligibility (migration 0021): the regular-season matches each player sat in, and the
//! coordinator's decisions that let a player into the playoffs all the same.

use super::{Conn, on_store};
use crate::domain::{LeagueId, PlayerId, Timestamp, UserId};

/// A coordinator's decision that a player is eligible.
#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct PlayerOverrideRow {
    pub player_id: PlayerId,
    pub reason: String,
    /// The admin's username.
    pub set_by: String,
    pub set_at: Timestamp,
}

/// The complete regular-season matches of league `league` each player sat in (in any lineup
/// row of the match, either seat); players with none are left out.
pub async fn matches_sat(conn: &mut Conn, league: LeagueId) -> sqlx::Result<Vec<(PlayerId, i64)>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT p.id, count(DISTINCT l.match_id)
         FROM lineups l JOIN matches m ON m.id = l.match_id
         JOIN players p ON p.id = l.seat1 OR p.id = l.seat2
         WHERE m.league_id = $1 AND m.stage = 'regular' AND m.status = 'complete'
         GROUP BY p.id"
    )
    .bind(league)
    .fetch_all(c)
    .await)
}

/// The complete regular-season matches player `player` sat in.
pub async fn matches_sat_by(conn: &mut Conn, player: PlayerId) -> sqlx::Result<i64> {
    on_store!(conn, |c| sqlx::query_scalar(
        "SELECT count(DISTINCT l.match_id)
         FROM lineups l JOIN matches m ON m.id = l.match_id
         WHERE (l.seat1 = $1 OR l.seat2 = $1) AND m.stage = 'regular' AND m.status = 'complete'"
    )
    .bind(player)
    .fetch_one(c)
    .await)
}

/// The select of a [`PlayerOverrideRow`], `o` being the decision, `u` who took it.
macro_rules! override_row {
    () => {
        "SELECT o.player_id, o.reason, u.username AS set_by, o.set_at
         FROM player_eligibility_overrides o JOIN users u ON u.id = o.set_by "
    };
}

/// The decisions on the players of league `league`.
pub async fn overrides(conn: &mut Conn, league: LeagueId) -> sqlx::Result<Vec<PlayerOverrideRow>> {
    on_store!(conn, |c| sqlx::query_as(concat!(
        override_row!(),
        "JOIN players p ON p.id = o.player_id WHERE p.league_id = $1"
    ))
    .bind(league)
    .fetch_all(c)
    .await)
}

/// The decision on player `player`, if any.
pub async fn override_of(
    conn: &mut Conn,
    player: PlayerId,
) -> sqlx::Result<Option<PlayerOverrideRow>> {
    on_store!(conn, |c| sqlx::query_as(concat!(
        override_row!(),
        "WHERE o.player_id = $1"
    ))
    .bind(player)
    .fetch_optional(c)
    .await)
}

/// Records the decision that `player` is eligible, with its reason (`Some`), or removes it.
pub async fn set_override(
    conn: &mut Conn,
    player: PlayerId,
    reason: Option<&str>,
    by: UserId,
    at: Timestamp,
) -> sqlx::Result<()> {
    match reason {
        Some(reason) => {
            on_store!(conn, execute sqlx::query(
                "INSERT INTO player_eligibility_overrides (player_id, reason, set_by, set_at)
                 VALUES ($1, $2, $3, $4)
                 ON CONFLICT (player_id) DO UPDATE SET reason = $2, set_by = $3, set_at = $4"
            )
            .bind(player)
            .bind(reason)
            .bind(by)
            .bind(at))?;
        }
        None => {
            on_store!(conn, execute sqlx::query(
                "DELETE FROM player_eligibility_overrides WHERE player_id = $1"
            )
            .bind(player))?;
        }
    }
    Ok(())
}

/// Every lineup row of the matches of team `team`: (match, side, from_hand, seat1, seat2).
pub async fn lineups_of_team(
    conn: &mut Conn,
    team: crate::domain::TeamId,
) -> sqlx::Result<Vec<super::lineups::LineupRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT l.match_id, l.team, l.from_hand, l.seat1, l.seat2,
                p1.name AS name1, p2.name AS name2, l.set_at
         FROM lineups l JOIN matches m ON m.id = l.match_id
         JOIN players p1 ON p1.id = l.seat1 JOIN players p2 ON p2.id = l.seat2
         WHERE (m.team_a = $1 AND l.team = 'a') OR (m.team_b = $1 AND l.team = 'b')
         ORDER BY l.match_id, l.team, l.from_hand"
    )
    .bind(team)
    .fetch_all(c)
    .await)
}
