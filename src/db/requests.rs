//! What captains ask of the coordinator (migration 0033): reschedule requests and disputes,
//! each with the match's league and teams for the queues.

use super::{Conn, on_store};
use crate::domain::{LeagueId, MatchId, TeamId, Timestamp};

/// A reschedule request, with the names its queue shows.
#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct RescheduleRow {
    pub id: i64,
    pub match_id: MatchId,
    pub team_id: TeamId,
    pub team_name: String,
    pub league_id: LeagueId,
    pub league_slug: String,
    pub captain: String,
    pub reason: String,
    /// A JSON list of `YYYY-MM-DDTHH:MM`.
    pub proposals: String,
    pub status: String,
    pub answer: Option<String>,
    pub created_at: Timestamp,
    pub decided_at: Option<Timestamp>,
}

const RESCHEDULE: &str = "SELECT r.id, r.match_id, r.team_id, t.name AS team_name,
        t.league_id, l.slug AS league_slug, r.captain, r.reason, r.proposals, r.status,
        r.answer, r.created_at, r.decided_at
 FROM reschedule_requests r
 JOIN teams t ON t.id = r.team_id
 JOIN leagues l ON l.id = t.league_id";

pub struct NewReschedule<'a> {
    pub match_id: MatchId,
    pub team_id: TeamId,
    pub captain: &'a str,
    pub reason: &'a str,
    pub proposals: &'a str,
    pub now: Timestamp,
}

pub async fn insert_reschedule(conn: &mut Conn, r: &NewReschedule<'_>) -> sqlx::Result<i64> {
    on_store!(conn, |c| {
        sqlx::query_scalar(
        "INSERT INTO reschedule_requests (match_id, team_id, captain, reason, proposals, created_at)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id"
    )
    .bind(r.match_id)
    .bind(r.team_id)
    .bind(r.captain)
    .bind(r.reason)
    .bind(r.proposals)
    .bind(r.now)
    .fetch_one(c)
    .await
    })
}

pub async fn reschedule(conn: &mut Conn, id: i64) -> sqlx::Result<Option<RescheduleRow>> {
    let sql = format!("{RESCHEDULE} WHERE r.id = $1");
    on_store!(conn, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .fetch_optional(c)
        .await)
}

/// The requests in `status` of `team` (every one for `None`), oldest first.
pub async fn reschedules(
    conn: &mut Conn,
    status: Option<&str>,
    team: Option<TeamId>,
) -> sqlx::Result<Vec<RescheduleRow>> {
    let sql = format!(
        "{RESCHEDULE} WHERE r.status = coalesce($1, r.status)
         AND r.team_id = coalesce($2, r.team_id) ORDER BY r.id"
    );
    on_store!(conn, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(status)
        .bind(team)
        .fetch_all(c)
        .await)
}

/// Decides a pending request; whether it was pending.
pub async fn decide_reschedule(
    conn: &mut Conn,
    id: i64,
    status: &str,
    answer: &str,
    now: Timestamp,
) -> sqlx::Result<bool> {
    let done = on_store!(conn, execute sqlx::query(
        "UPDATE reschedule_requests SET status = $1, answer = $2, decided_at = $3
         WHERE id = $4 AND status = 'pending'"
    )
    .bind(status)
    .bind(answer)
    .bind(now)
    .bind(id))?;
    Ok(done == 1)
}

/// A dispute, with the names its queue shows.
#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct DisputeRow {
    pub id: i64,
    pub match_id: MatchId,
    pub team_id: TeamId,
    pub team_name: String,
    pub league_id: LeagueId,
    pub league_slug: String,
    pub captain: String,
    pub category: String,
    pub reason: String,
    pub status: String,
    pub note: Option<String>,
    pub created_at: Timestamp,
    pub resolved_at: Option<Timestamp>,
}

const DISPUTE: &str = "SELECT d.id, d.match_id, d.team_id, t.name AS team_name,
        t.league_id, l.slug AS league_slug, d.captain, d.category, d.reason, d.status,
        d.note, d.created_at, d.resolved_at
 FROM disputes d
 JOIN teams t ON t.id = d.team_id
 JOIN leagues l ON l.id = t.league_id";

pub struct NewDispute<'a> {
    pub match_id: MatchId,
    pub team_id: TeamId,
    pub captain: &'a str,
    pub category: &'a str,
    pub reason: &'a str,
    pub now: Timestamp,
}

pub async fn insert_dispute(conn: &mut Conn, d: &NewDispute<'_>) -> sqlx::Result<i64> {
    on_store!(conn, |c| sqlx::query_scalar(
        "INSERT INTO disputes (match_id, team_id, captain, category, reason, created_at)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id"
    )
    .bind(d.match_id)
    .bind(d.team_id)
    .bind(d.captain)
    .bind(d.category)
    .bind(d.reason)
    .bind(d.now)
    .fetch_one(c)
    .await)
}

pub async fn dispute(conn: &mut Conn, id: i64) -> sqlx::Result<Option<DisputeRow>> {
    let sql = format!("{DISPUTE} WHERE d.id = $1");
    on_store!(conn, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .fetch_optional(c)
        .await)
}

/// The disputes in `status` of `team` (every one for `None`), oldest first.
pub async fn disputes(
    conn: &mut Conn,
    status: Option<&str>,
    team: Option<TeamId>,
) -> sqlx::Result<Vec<DisputeRow>> {
    let sql = format!(
        "{DISPUTE} WHERE d.status = coalesce($1, d.status)
         AND d.team_id = coalesce($2, d.team_id) ORDER BY d.id"
    );
    on_store!(conn, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(status)
        .bind(team)
        .fetch_all(c)
        .await)
}

/// Resolves an open dispute with `note`; whether it was open.
pub async fn resolve_dispute(
    conn: &mut Conn,
    id: i64,
    note: &str,
    now: Timestamp,
) -> sqlx::Result<bool> {
    let done = on_store!(conn, execute sqlx::query(
        "UPDATE disputes SET status = 'resolved', note = $1, resolved_at = $2
         WHERE id = $3 AND status = 'open'"
    )
    .bind(note)
    .bind(now)
    .bind(id))?;
    Ok(done == 1)
}

/// When match `id` ended: its last hand's first record, or its forfeit or default; `None`
/// for a match with neither (one imported so).
pub async fn match_end(conn: &mut Conn, id: MatchId) -> sqlx::Result<Option<Timestamp>> {
    on_store!(conn, |c| sqlx::query_scalar(
        "SELECT max(at) FROM (
             SELECT max(recorded_at) AS at FROM hands WHERE match_id = $1 AND revision = 1
             UNION ALL
             SELECT max(at) FROM audit_log
             WHERE match_id = $2 AND action IN ('forfeit', 'default')
         ) AS ends"
    )
    .bind(id)
    .bind(id)
    .fetch_one(c)
    .await)
}
