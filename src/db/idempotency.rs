//! Idempotency keys of hand entry: what the first answer to a key was, so a request sent
//! again is answered the same (docs/api.md §7.3).

use super::{Conn, on_store};

use crate::domain::{MatchId, Timestamp};

/// What an idempotency key keeps of its first answer: the hand it recorded and what of the
/// match its hands do not tell (docs/api.md §7.3).
#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct IdempotencyRecord {
    /// The hand as first sent (JSON); none for keys stored before migration 0006.
    pub request: Option<String>,
    /// The row of the hand it recorded (`hands.id`).
    pub hand_id: i64,
    pub version: i64,
    pub table_name: Option<String>,
    pub time_called_at: Option<Timestamp>,
    pub team_a_name: String,
    pub team_b_name: String,
    /// The sportsmanship ratings answered (JSON), if the league rated them.
    pub sportsmanship: Option<String>,
    /// The first request asked for the light answer (`Prefer: return=minimal`).
    pub minimal: bool,
    /// The match's supervisor it named (migration 0031).
    pub supervisor_name: Option<String>,
}

/// The record of idempotency key `key` of the match, if it is kept.
pub async fn idempotency_record(
    conn: &mut Conn,
    match_id: MatchId,
    key: &str,
) -> sqlx::Result<Option<IdempotencyRecord>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT request, hand_id, version, table_name, time_called_at, team_a_name, team_b_name,
                sportsmanship, minimal, supervisor_name
         FROM idempotency_keys WHERE match_id = $1 AND key = $2"
    )
    .bind(match_id)
    .bind(key)
    .fetch_optional(c)
    .await)
}

pub async fn save_idempotency_record(
    conn: &mut Conn,
    match_id: MatchId,
    key: &str,
    record: &IdempotencyRecord,
    now: Timestamp,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "INSERT INTO idempotency_keys (match_id, key, request, hand_id, version, table_name,
             time_called_at, team_a_name, team_b_name, sportsmanship, created_at, minimal,
             supervisor_name)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
    )
    .bind(match_id)
    .bind(key)
    .bind(&record.request)
    .bind(record.hand_id)
    .bind(record.version)
    .bind(&record.table_name)
    .bind(record.time_called_at)
    .bind(&record.team_a_name)
    .bind(&record.team_b_name)
    .bind(&record.sportsmanship)
    .bind(now)
    .bind(record.minimal)
    .bind(&record.supervisor_name))?;
    Ok(())
}

/// Deletes at most `limit` idempotency keys first used before `before`, oldest first (one
/// index range); returns how many.
pub async fn expire_idempotency_keys(
    conn: &mut Conn,
    before: Timestamp,
    limit: i64,
) -> sqlx::Result<u64> {
    on_store!(conn, execute sqlx::query(
        "DELETE FROM idempotency_keys WHERE (match_id, key) IN (
             SELECT match_id, key FROM idempotency_keys WHERE created_at < $1
             ORDER BY created_at LIMIT $2)",
    )
    .bind(before)
    .bind(limit))
}
