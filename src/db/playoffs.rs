//! Playoff brackets: the bracket of a league, its seeds and its matches (migration 0003).

use super::{Conn, StoreKind, on_store};

use crate::domain::{BracketId, LeagueId, MatchId, MatchStatus, TeamId, Timestamp};
use crate::league::bracket::{Format, GrandFinal, Section};
use crate::rules::Team;

#[derive(Debug, Clone, sqlx_macros::FromRow)]
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
    /// How the seeds were made from divisions, in words (migration 0023); `None` when by
    /// the overall standings alone.
    pub seeding_words: Option<String>,
}

#[derive(Debug, Clone, sqlx_macros::FromRow)]
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
    /// How the seeds were made from divisions, in words; `None` for the overall standings.
    pub seeding_words: Option<String>,
}

pub async fn insert(conn: &mut Conn, b: &NewBracket) -> sqlx::Result<BracketId> {
    let id: i64 = on_store!(conn, |c| {
        sqlx::query_scalar(
        "INSERT INTO brackets (league_id, format, teams, third_place, grand_final, created_at, seeding_words)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
    )
    .bind(b.league_id)
    .bind(b.format)
    .bind(b.teams)
    .bind(b.third_place)
    .bind(b.grand_final)
    .bind(b.now)
    .bind(&b.seeding_words)
    .fetch_one(c)
    .await
    })?;
    Ok(BracketId(id))
}

pub async fn of_league(conn: &mut Conn, league_id: LeagueId) -> sqlx::Result<Option<BracketRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM brackets WHERE league_id = $1"
    )
    .bind(league_id)
    .fetch_optional(c)
    .await)
}

pub async fn all(conn: &mut Conn) -> sqlx::Result<Vec<BracketRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM brackets ORDER BY id"
    )
    .fetch_all(c)
    .await)
}

pub async fn by_id(conn: &mut Conn, id: BracketId) -> sqlx::Result<Option<BracketRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM brackets WHERE id = $1"
    )
    .bind(id)
    .fetch_optional(c)
    .await)
}

pub async fn insert_seed(
    conn: &mut Conn,
    bracket_id: BracketId,
    seed: i64,
    team_id: TeamId,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "INSERT INTO bracket_seeds (bracket_id, seed, team_id) VALUES ($1, $2, $3)"
    )
    .bind(bracket_id)
    .bind(seed)
    .bind(team_id))?;
    Ok(())
}

/// The team ids in seed order (seed 1 first).
pub async fn seeds(conn: &mut Conn, bracket_id: BracketId) -> sqlx::Result<Vec<TeamId>> {
    on_store!(conn, |c| sqlx::query_scalar(
        "SELECT team_id FROM bracket_seeds WHERE bracket_id = $1 ORDER BY seed"
    )
    .bind(bracket_id)
    .fetch_all(c)
    .await)
}

pub async fn insert_match(conn: &mut Conn, m: &BracketMatchRow) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "INSERT INTO bracket_matches
         (bracket_id, match_index, section, round, position, seed_a, seed_b, match_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(m.bracket_id)
    .bind(m.match_index)
    .bind(m.section)
    .bind(m.round)
    .bind(m.position)
    .bind(m.seed_a)
    .bind(m.seed_b)
    .bind(m.match_id))?;
    Ok(())
}

/// Every match of a bracket, by index.
pub async fn matches(conn: &mut Conn, bracket_id: BracketId) -> sqlx::Result<Vec<BracketMatchRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM bracket_matches WHERE bracket_id = $1 ORDER BY match_index"
    )
    .bind(bracket_id)
    .fetch_all(c)
    .await)
}

/// What a bracket needs of one of its real matches: a bracket reads hundreds of them at
/// every result, and each column read costs a copy, so not the whole row.
#[derive(Debug, Clone, sqlx_macros::FromRow)]
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
pub async fn real_matches(conn: &mut Conn, bracket_id: BracketId) -> sqlx::Result<Vec<RealMatch>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT m.id, m.status, m.winner, m.team_a, m.team_b, m.started_at, m.score_a, m.score_b
         FROM matches m JOIN bracket_matches ON bracket_matches.match_id = m.id
         WHERE bracket_matches.bracket_id = $1",
    )
    .bind(bracket_id)
    .fetch_all(c)
    .await)
}

/// The bracket match played as real match `match_id`, if any.
/// Stores the results the bracket's state counts (migration 0014).
pub async fn set_results(
    conn: &mut Conn,
    bracket_id: BracketId,
    results: &str,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE brackets SET results = $1 WHERE id = $2"
    )
    .bind(results)
    .bind(bracket_id))?;
    Ok(())
}

/// Bracket match `index` of a bracket.
pub async fn match_at(
    conn: &mut Conn,
    bracket_id: BracketId,
    index: i64,
) -> sqlx::Result<Option<BracketMatchRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM bracket_matches WHERE bracket_id = $1 AND match_index = $2"
    )
    .bind(bracket_id)
    .bind(index)
    .fetch_optional(c)
    .await)
}

/// What the bracket needs of one real match.
pub async fn real_match(conn: &mut Conn, id: MatchId) -> sqlx::Result<Option<RealMatch>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT id, status, winner, team_a, team_b, started_at, score_a, score_b
         FROM matches WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(c)
    .await)
}

/// The teams of the given seeds of a bracket, as (seed, team).
pub async fn seed_teams(
    conn: &mut Conn,
    bracket_id: BracketId,
    seeds: &[i64],
) -> sqlx::Result<Vec<(i64, TeamId)>> {
    let seeds = serde_json::to_string(seeds).unwrap_or_else(|_| "[]".to_string());
    let sql = match conn.kind() {
        StoreKind::Sqlite => {
            "SELECT seed, team_id FROM bracket_seeds
             WHERE bracket_id = $1 AND seed IN (SELECT value FROM json_each($2))"
        }
        StoreKind::Postgres => {
            "SELECT seed, team_id FROM bracket_seeds
             WHERE bracket_id = $1
               AND seed IN (SELECT value::bigint FROM json_array_elements_text($2::json))"
        }
    };
    on_store!(conn, |c| sqlx::query_as(sql)
        .bind(bracket_id)
        .bind(seeds)
        .fetch_all(c)
        .await)
}

pub async fn by_match_id(
    conn: &mut Conn,
    match_id: MatchId,
) -> sqlx::Result<Option<BracketMatchRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM bracket_matches WHERE match_id = $1"
    )
    .bind(match_id)
    .fetch_optional(c)
    .await)
}

/// Sets the known seeds and the real match of a bracket match.
pub async fn update_match(
    conn: &mut Conn,
    bracket_id: BracketId,
    index: i64,
    seed_a: Option<i64>,
    seed_b: Option<i64>,
    match_id: Option<MatchId>,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE bracket_matches SET seed_a = $1, seed_b = $2, match_id = $3
         WHERE bracket_id = $4 AND match_index = $5",
    )
    .bind(seed_a)
    .bind(seed_b)
    .bind(match_id)
    .bind(bracket_id)
    .bind(index))?;
    Ok(())
}
