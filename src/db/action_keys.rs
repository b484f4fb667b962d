//! Idempotency keys of a match's actions other than a new hand (docs/api.md §7.8): what a key
//! did and the body of its first answer, kept in the action's own transaction.

use super::{Conn, on_store};

use crate::domain::{MatchId, Timestamp};

/// What an action key keeps: the action, the request's digest and the first answer.
#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct ActionKeyRow {
    pub action: String,
    /// SHA-256 (hex) of the request as the service first read it.
    pub request: String,
    /// The body of the first answer (JSON).
    pub response: String,
}

/// The action key `key` of the match, if it is kept.
pub async fn by_key(
    conn: &mut Conn,
    match_id: MatchId,
    key: &str,
) -> sqlx::Result<Option<ActionKeyRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT action, request, response FROM action_keys WHERE match_id = $1 AND key = $2"
    )
    .bind(match_id)
    .bind(key)
    .fetch_optional(c)
    .await)
}

/// Whether `key` is a kept action key of the match (for a hand sent with it).
pub async fn exists(conn: &mut Conn, match_id: MatchId, key: &str) -> sqlx::Result<bool> {
    Ok(by_key(conn, match_id, key).await?.is_some())
}

pub async fn insert(
    conn: &mut Conn,
    match_id: MatchId,
    key: &str,
    row: &ActionKeyRow,
    now: Timestamp,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "INSERT INTO action_keys (match_id, key, action, request, response, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(match_id)
    .bind(key)
    .bind(&row.action)
    .bind(&row.request)
    .bind(&row.response)
    .bind(now))?;
    Ok(())
}

/// Deletes at most `limit` action keys first used before `before`, oldest first (one index
/// range); returns how many.
pub async fn expire(conn: &mut Conn, before: Timestamp, limit: i64) -> sqlx::Result<u64> {
    on_store!(conn, execute sqlx::query(
        "DELETE FROM action_keys WHERE (match_id, key) IN (
             SELECT match_id, key FROM action_keys WHERE created_at < $1
             ORDER BY created_at LIMIT $2)",
    )
    .bind(before)
    .bind(limit))
}
