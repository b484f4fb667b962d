//! Who sat at the table (migration 0020): each team's two players in seat order, from a
//! hand number on. The lineup of hand n is the team's row with the greatest `from_hand` ≤ n.

use super::{Conn, on_store};
use crate::domain::{MatchId, PersonName, PlayerId, Timestamp, UserId};
use crate::rules::Team;

#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct LineupRow {
    pub match_id: MatchId,
    /// `a` or `b` (the CHECK of the table keeps it so).
    pub team: String,
    pub from_hand: i64,
    pub seat1: PlayerId,
    pub seat2: PlayerId,
    /// The players' names (as they are now: an erased player's is replaced).
    pub name1: PersonName,
    pub name2: PersonName,
    pub set_at: Timestamp,
}

impl LineupRow {
    pub fn team(&self) -> Team {
        if self.team == "b" { Team::B } else { Team::A }
    }

    pub fn seats(&self) -> [PlayerId; 2] {
        [self.seat1, self.seat2]
    }
}

/// A match's lineups, team `a` first, each team's from the first hand on.
pub async fn of_match(conn: &mut Conn, id: MatchId) -> sqlx::Result<Vec<LineupRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT l.match_id, l.team, l.from_hand, l.seat1, l.seat2,
                p1.name AS name1, p2.name AS name2, l.set_at
         FROM lineups l JOIN players p1 ON p1.id = l.seat1 JOIN players p2 ON p2.id = l.seat2
         WHERE l.match_id = $1 ORDER BY l.team, l.from_hand"
    )
    .bind(id)
    .fetch_all(c)
    .await)
}

/// Every lineup a player sat in, by match then hand.
pub async fn of_player(conn: &mut Conn, player: PlayerId) -> sqlx::Result<Vec<LineupRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT l.match_id, l.team, l.from_hand, l.seat1, l.seat2,
                p1.name AS name1, p2.name AS name2, l.set_at
         FROM lineups l JOIN players p1 ON p1.id = l.seat1 JOIN players p2 ON p2.id = l.seat2
         WHERE l.seat1 = $1 OR l.seat2 = $1 ORDER BY l.match_id, l.from_hand"
    )
    .bind(player)
    .fetch_all(c)
    .await)
}

/// Sets team `team`'s lineup from hand `from_hand` on (replacing one set from the same hand).
pub async fn set(
    conn: &mut Conn,
    id: MatchId,
    team: Team,
    from_hand: i64,
    seats: [PlayerId; 2],
    by: Option<UserId>,
    now: Timestamp,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "INSERT INTO lineups (match_id, team, from_hand, seat1, seat2, set_by, set_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (match_id, team, from_hand)
         DO UPDATE SET seat1 = excluded.seat1, seat2 = excluded.seat2,
                       set_by = excluded.set_by, set_at = excluded.set_at"
    )
    .bind(id)
    .bind(team.as_str())
    .bind(from_hand)
    .bind(seats[0])
    .bind(seats[1])
    .bind(by)
    .bind(now))?;
    Ok(())
}
