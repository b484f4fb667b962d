//! A match as a write opens it and as its answer names it: its row with whether the caller
//! supervises its league and the teams' names ([`for_write`], one query), the names of its
//! teams and supervisor ([`names`]), and the supervisor it is given.

use super::matches::MatchRow;
use super::{Conn, on_store};
use crate::domain::{LeagueId, MatchId, UserId};

/// A match about to be written, with what the write and its answer need, in one query
/// (each query is a round trip: to SQLite's thread, or to the PostgreSQL server): whether
/// `user` supervises its league and the teams' names.
#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct MatchForWrite {
    #[sqlx(flatten)]
    pub row: MatchRow,
    pub supervises: bool,
    pub name_a: Option<String>,
    pub name_b: Option<String>,
    /// The username of the match's supervisor, if it has one.
    pub supervisor_name: Option<String>,
}

impl MatchForWrite {
    /// The names its answer shows.
    pub fn names(&self) -> MatchNames {
        MatchNames {
            a: self.name_a.clone(),
            b: self.name_b.clone(),
            supervisor: self.supervisor_name.clone(),
        }
    }
}

/// The names a match's answer shows: its teams' and its supervisor's (`None`: none found).
#[derive(Debug, Clone, Default, sqlx_macros::FromRow)]
pub struct MatchNames {
    pub a: Option<String>,
    pub b: Option<String>,
    pub supervisor: Option<String>,
}

/// The names of match `m`'s teams and supervisor, in one query.
pub async fn names(conn: &mut Conn, m: &MatchRow) -> sqlx::Result<MatchNames> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT (SELECT name FROM teams WHERE id = $1) AS a,
                (SELECT name FROM teams WHERE id = $2) AS b,
                (SELECT username FROM users WHERE id = $3) AS supervisor"
    )
    .bind(m.team_a)
    .bind(m.team_b)
    .bind(m.supervisor_id)
    .fetch_one(c)
    .await)
}

/// Gives match `id` the supervisor `user` (`None`: none), a new version.
pub async fn set_supervisor(
    conn: &mut Conn,
    id: MatchId,
    user: Option<UserId>,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE matches SET supervisor_id = $2, version = version + 1 WHERE id = $1"
    )
    .bind(id)
    .bind(user))?;
    Ok(())
}

/// Takes supervisor `user` off every match of league `league_id` (unassigned from it).
pub async fn clear_supervisor(
    conn: &mut Conn,
    league_id: LeagueId,
    user: UserId,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE matches SET supervisor_id = NULL, version = version + 1
         WHERE league_id = $1 AND supervisor_id = $2"
    )
    .bind(league_id)
    .bind(user))?;
    Ok(())
}

pub async fn for_write(
    conn: &mut Conn,
    id: MatchId,
    user: UserId,
) -> sqlx::Result<Option<MatchForWrite>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT m.*,
           EXISTS (SELECT 1 FROM league_supervisors s
                   WHERE s.league_id = m.league_id AND s.user_id = $1) AS supervises,
           (SELECT name FROM teams WHERE id = m.team_a) AS name_a,
           (SELECT name FROM teams WHERE id = m.team_b) AS name_b,
           (SELECT username FROM users WHERE id = m.supervisor_id) AS supervisor_name
         FROM matches m WHERE m.id = $2",
    )
    .bind(user)
    .bind(id)
    .fetch_optional(c)
    .await)
}
