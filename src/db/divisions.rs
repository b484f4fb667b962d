//! A league's divisions and which division each team is in (migration 0023).

use super::{Conn, on_store};

use crate::domain::{DivisionId, LeagueId, TeamId};

#[derive(Debug, Clone, PartialEq, Eq, sqlx_macros::FromRow)]
pub struct DivisionRow {
    pub id: DivisionId,
    pub league_id: LeagueId,
    pub name: String,
}

pub async fn insert(conn: &mut Conn, league_id: LeagueId, name: &str) -> sqlx::Result<DivisionId> {
    let id: i64 = on_store!(conn, |c| sqlx::query_scalar(
        "INSERT INTO divisions (league_id, name) VALUES ($1, $2) RETURNING id"
    )
    .bind(league_id)
    .bind(name)
    .fetch_one(c)
    .await)?;
    Ok(DivisionId(id))
}

/// The league's divisions, in the order they were made.
pub async fn of_league(conn: &mut Conn, league_id: LeagueId) -> sqlx::Result<Vec<DivisionRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT id, league_id, name FROM divisions WHERE league_id = $1 ORDER BY id"
    )
    .bind(league_id)
    .fetch_all(c)
    .await)
}

/// Puts team `team` in `division` (`None`: in none).
pub async fn set_team_division(
    conn: &mut Conn,
    team: TeamId,
    division: Option<DivisionId>,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE teams SET division_id = $1 WHERE id = $2"
    )
    .bind(division)
    .bind(team))?;
    Ok(())
}

/// A match that counts as played by its teams: started, finished or forfeited.
macro_rules! played_match {
    () => {
        "(started_at IS NOT NULL OR status IN ('complete', 'forfeit'))"
    };
}

/// Whether team `team` has played a match ([`played_match`]).
pub async fn team_has_played(conn: &mut Conn, team: TeamId) -> sqlx::Result<bool> {
    on_store!(conn, |c| sqlx::query_scalar(concat!(
        "SELECT EXISTS (SELECT 1 FROM matches WHERE (team_a = $1 OR team_b = $1) AND ",
        played_match!(),
        ")"
    ))
    .bind(team)
    .fetch_one(c)
    .await)
}

/// The teams of league `league` that have played a match ([`played_match`]), in one query.
pub async fn teams_that_have_played(
    conn: &mut Conn,
    league: LeagueId,
) -> sqlx::Result<Vec<TeamId>> {
    on_store!(conn, |c| sqlx::query_scalar(concat!(
        "SELECT team_a FROM matches WHERE league_id = $1 AND ",
        played_match!(),
        " UNION SELECT team_b FROM matches WHERE league_id = $1 AND ",
        played_match!()
    ))
    .bind(league)
    .fetch_all(c)
    .await)
}
