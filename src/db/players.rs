//! A team's players (migration 0019): the queries. Student ids and emails are personal
//! data: these functions hand them to the service, which shows them to admins only.

use super::{Conn, on_store};
use crate::domain::{LeagueId, PersonName, PlayerId, StudentId, TeamId, Timestamp};

#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct PlayerRow {
    pub id: PlayerId,
    pub team_id: TeamId,
    pub league_id: LeagueId,
    pub name: PersonName,
    pub student_id: Option<StudentId>,
    pub email: Option<String>,
    pub captain: bool,
    pub active: bool,
    pub created_at: Timestamp,
}

/// A player's fields as written (new or changed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerFields {
    pub name: PersonName,
    pub student_id: Option<StudentId>,
    pub email: Option<String>,
    pub captain: bool,
    pub active: bool,
}

pub async fn insert(
    conn: &mut Conn,
    team: TeamId,
    league: LeagueId,
    player: &PlayerFields,
    now: Timestamp,
) -> sqlx::Result<PlayerId> {
    on_store!(conn, |c| sqlx::query_scalar(
        "INSERT INTO players (team_id, league_id, name, student_id, email, captain, active, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id"
    )
    .bind(team)
    .bind(league)
    .bind(&player.name)
    .bind(&player.student_id)
    .bind(&player.email)
    .bind(player.captain)
    .bind(player.active)
    .bind(now)
    .fetch_one(c)
    .await)
    .map(PlayerId)
}

pub async fn update(conn: &mut Conn, id: PlayerId, player: &PlayerFields) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE players SET name = $1, student_id = $2, email = $3, captain = $4, active = $5
         WHERE id = $6"
    )
    .bind(&player.name)
    .bind(&player.student_id)
    .bind(&player.email)
    .bind(player.captain)
    .bind(player.active)
    .bind(id))?;
    Ok(())
}

pub async fn by_id(conn: &mut Conn, id: PlayerId) -> sqlx::Result<Option<PlayerRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM players WHERE id = $1"
    )
    .bind(id)
    .fetch_optional(c)
    .await)
}

/// A team's players, active or not, in the order they were added.
pub async fn of_team(conn: &mut Conn, team: TeamId) -> sqlx::Result<Vec<PlayerRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM players WHERE team_id = $1 ORDER BY id"
    )
    .bind(team)
    .fetch_all(c)
    .await)
}

/// Every player of a league, by team, in the order they were added.
pub async fn of_league(conn: &mut Conn, league: LeagueId) -> sqlx::Result<Vec<PlayerRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM players WHERE league_id = $1 ORDER BY team_id, id"
    )
    .bind(league)
    .fetch_all(c)
    .await)
}

/// The player of league `league` with that student id, if any.
pub async fn by_student_id(
    conn: &mut Conn,
    league: LeagueId,
    student_id: &StudentId,
) -> sqlx::Result<Option<PlayerRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM players WHERE league_id = $1 AND student_id = $2"
    )
    .bind(league)
    .bind(student_id)
    .fetch_optional(c)
    .await)
}

/// Every player with that student id, in any league (a person's export).
pub async fn with_student_id(
    conn: &mut Conn,
    student_id: &StudentId,
) -> sqlx::Result<Vec<PlayerRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM players WHERE student_id = $1 ORDER BY league_id, id"
    )
    .bind(student_id)
    .fetch_all(c)
    .await)
}

/// The player's matches: where the player's league has any lineup, the finished matches
/// (complete or forfeit) the player sat in (in a lineup row of either seat); in a league
/// without lineups, the matches the player's team finished since the player was added.
pub async fn matches_played(conn: &mut Conn, player: &PlayerRow) -> sqlx::Result<i64> {
    let lineups: i64 = on_store!(conn, |c| sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT 1 FROM lineups l JOIN matches m ON m.id = l.match_id
                               WHERE m.league_id = $1 LIMIT 1) AS any_lineup"
    )
    .bind(player.league_id)
    .fetch_one(c)
    .await)?;
    if lineups > 0 {
        return on_store!(conn, |c| sqlx::query_scalar(
            "SELECT count(DISTINCT l.match_id) FROM lineups l JOIN matches m ON m.id = l.match_id
             WHERE (l.seat1 = $1 OR l.seat2 = $1) AND m.status IN ('complete', 'forfeit')"
        )
        .bind(player.id)
        .fetch_one(c)
        .await);
    }
    on_store!(conn, |c| sqlx::query_scalar(
        "SELECT count(*) FROM matches
         WHERE (team_a = $1 OR team_b = $1) AND status IN ('complete', 'forfeit')
           AND coalesce(started_at, scheduled_at, '') >= $2"
    )
    .bind(player.team_id)
    .bind(player.created_at)
    .fetch_one(c)
    .await)
}

/// Keeps `teams.player1` and `teams.player2` the team's first two active players (the
/// names the public pages and the console's seats show).
pub async fn sync_seats(conn: &mut Conn, team: TeamId) -> sqlx::Result<()> {
    let active: Vec<PersonName> = of_team(conn, team)
        .await?
        .into_iter()
        .filter(|p| p.active)
        .map(|p| p.name)
        .collect();
    if let [first, second, ..] = active.as_slice() {
        on_store!(conn, execute sqlx::query(
            "UPDATE teams SET player1 = $1, player2 = $2 WHERE id = $3"
        )
        .bind(first)
        .bind(second)
        .bind(team))?;
    }
    Ok(())
}
