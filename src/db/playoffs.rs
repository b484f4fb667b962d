//! Playoff brackets: the bracket of a league, its seeds and its matches (migration 0003).

use sqlx::SqliteConnection;

use crate::domain::{BracketId, LeagueId, MatchId, MatchStatus, TeamId, Timestamp};
use crate::league::bracket::{Format, GrandFinal, Section};
use crate::rules::Team;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct BracketRow {
    pub id: BracketId,
    pub league_id: LeagueId,
    pub format: Format,
    pub teams: i64,
    pub third_place: bool,
    pub grand_final: GrandFinal,
    pub created_at: Timestamp,
    /// The results its state counts, a character a match (migration 0014); `None` until
    /// the first change after the migration.
    pub results: Option<String>,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct BracketMatchRow {
    pub bracket_id: BracketId,
    pub match_index: i64,
    pub section: Section,
    pub round: i64,
    pub position: i64,
    pub seed_a: Option<i64>,
    pub seed_b: Option<i64>,
    pub match_id: Option<MatchId>,
}

pub struct NewBracket {
    pub league_id: LeagueId,
    pub format: Format,
    pub teams: i64,
    pub third_place: bool,
    pub grand_final: GrandFinal,
    pub now: Timestamp,
}

pub async fn insert(conn: &mut SqliteConnection, b: &NewBracket) -> sqlx::Result<BracketId> {
    let row = sqlx::query(
        "INSERT INTO brackets (league_id, format, teams, third_place, grand_final, created_at)
         VALUES (?, ?, ?, ?, ?, ?)",
    )
    .bind(b.league_id)
    .bind(b.format)
    .bind(b.teams)
    .bind(b.third_place)
    .bind(b.grand_final)
    .bind(b.now)
    .execute(conn)
    .await?;
    Ok(BracketId(row.last_insert_rowid()))
}

pub async fn of_league(
    conn: &mut SqliteConnection,
    league_id: LeagueId,
) -> sqlx::Result<Option<BracketRow>> {
    sqlx::query_as("SELECT * FROM brackets WHERE league_id = ?")
        .bind(league_id)
        .fetch_optional(conn)
        .await
}

pub async fn all(conn: &mut SqliteConnection) -> sqlx::Result<Vec<BracketRow>> {
    sqlx::query_as("SELECT * FROM brackets ORDER BY id")
        .fetch_all(conn)
        .await
}

pub async fn by_id(conn: &mut SqliteConnection, id: BracketId) -> sqlx::Result<Option<BracketRow>> {
    sqlx::query_as("SELECT * FROM brackets WHERE id = ?")
        .bind(id)
        .fetch_optional(conn)
        .await
}

pub async fn insert_seed(
    conn: &mut SqliteConnection,
    bracket_id: BracketId,
    seed: i64,
    team_id: TeamId,
) -> sqlx::Result<()> {
    sqlx::query("INSERT INTO bracket_seeds (bracket_id, seed, team_id) VALUES (?, ?, ?)")
        .bind(bracket_id)
        .bind(seed)
        .bind(team_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// The team ids in seed order (seed 1 first).
pub async fn seeds(
    conn: &mut SqliteConnection,
    bracket_id: BracketId,
) -> sqlx::Result<Vec<TeamId>> {
    sqlx::query_scalar("SELECT team_id FROM bracket_seeds WHERE bracket_id = ? ORDER BY seed")
        .bind(bracket_id)
        .fetch_all(conn)
        .await
}

pub async fn insert_match(conn: &mut SqliteConnection, m: &BracketMatchRow) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO bracket_matches
         (bracket_id, match_index, section, round, position, seed_a, seed_b, match_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(m.bracket_id)
    .bind(m.match_index)
    .bind(m.section)
    .bind(m.round)
    .bind(m.position)
    .bind(m.seed_a)
    .bind(m.seed_b)
    .bind(m.match_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Every match of a bracket, by index.
pub async fn matches(
    conn: &mut SqliteConnection,
    bracket_id: BracketId,
) -> sqlx::Result<Vec<BracketMatchRow>> {
    sqlx::query_as("SELECT * FROM bracket_matches WHERE bracket_id = ? ORDER BY match_index")
        .bind(bracket_id)
        .fetch_all(conn)
        .await
}

/// What a bracket needs of one of its real matches: a bracket reads hundreds of them at
/// every result, and each column read costs a copy, so not the whole row.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RealMatch {
    pub id: MatchId,
    pub status: MatchStatus,
    pub winner: Option<Team>,
    pub team_a: TeamId,
    pub team_b: TeamId,
    pub started_at: Option<Timestamp>,
    pub score_a: i64,
    pub score_b: i64,
}

/// The real matches of a bracket's matches (those created so far), in one query.
pub async fn real_matches(
    conn: &mut SqliteConnection,
    bracket_id: BracketId,
) -> sqlx::Result<Vec<RealMatch>> {
    sqlx::query_as(
        "SELECT m.id, m.status, m.winner, m.team_a, m.team_b, m.started_at, m.score_a, m.score_b
         FROM matches m JOIN bracket_matches ON bracket_matches.match_id = m.id
         WHERE bracket_matches.bracket_id = ?",
    )
    .bind(bracket_id)
    .fetch_all(conn)
    .await
}

/// The bracket match played as real match `match_id`, if any.
/// Stores the results the bracket's state counts (migration 0014).
pub async fn set_results(
    conn: &mut SqliteConnection,
    bracket_id: BracketId,
    results: &str,
) -> sqlx::Result<()> {
    sqlx::query("UPDATE brackets SET results = ? WHERE id = ?")
        .bind(results)
        .bind(bracket_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// Bracket match `index` of a bracket.
pub async fn match_at(
    conn: &mut SqliteConnection,
    bracket_id: BracketId,
    index: i64,
) -> sqlx::Result<Option<BracketMatchRow>> {
    sqlx::query_as("SELECT * FROM bracket_matches WHERE bracket_id = ? AND match_index = ?")
        .bind(bracket_id)
        .bind(index)
        .fetch_optional(conn)
        .await
}

/// What the bracket needs of one real match.
pub async fn real_match(
    conn: &mut SqliteConnection,
    id: MatchId,
) -> sqlx::Result<Option<RealMatch>> {
    sqlx::query_as(
        "SELECT id, status, winner, team_a, team_b, started_at, score_a, score_b
         FROM matches WHERE id = ?",
    )
    .bind(id)
    .fetch_optional(conn)
    .await
}

/// The teams of the given seeds of a bracket, as (seed, team).
pub async fn seed_teams(
    conn: &mut SqliteConnection,
    bracket_id: BracketId,
    seeds: &[i64],
) -> sqlx::Result<Vec<(i64, TeamId)>> {
    let seeds = serde_json::to_string(seeds).unwrap_or_else(|_| "[]".to_string());
    sqlx::query_as(
        "SELECT seed, team_id FROM bracket_seeds
         WHERE bracket_id = ? AND seed IN (SELECT value FROM json_each(?))",
    )
    .bind(bracket_id)
    .bind(seeds)
    .fetch_all(conn)
    .await
}

pub async fn by_match_id(
    conn: &mut SqliteConnection,
    match_id: MatchId,
) -> sqlx::Result<Option<BracketMatchRow>> {
    sqlx::query_as("SELECT * FROM bracket_matches WHERE match_id = ?")
        .bind(match_id)
        .fetch_optional(conn)
        .await
}

/// Sets the known seeds and the real match of a bracket match.
pub async fn update_match(
    conn: &mut SqliteConnection,
    bracket_id: BracketId,
    index: i64,
    seed_a: Option<i64>,
    seed_b: Option<i64>,
    match_id: Option<MatchId>,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE bracket_matches SET seed_a = ?, seed_b = ?, match_id = ?
         WHERE bracket_id = ? AND match_index = ?",
    )
    .bind(seed_a)
    .bind(seed_b)
    .bind(match_id)
    .bind(bracket_id)
    .bind(index)
    .execute(conn)
    .await?;
    Ok(())
}
