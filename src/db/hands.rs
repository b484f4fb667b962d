//! The hands of a match: every revision of every hand, as entered and as corrected (a
//! correction is a new revision; none is ever overwritten).

use super::{Conn, on_store};

use crate::domain::{MatchId, Timestamp, UserId};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct HandRow {
    pub id: MatchId,
    pub match_id: MatchId,
    pub number: i64,
    pub revision: i64,
    pub hand: String,
    pub reason: Option<String>,
    pub recorded_by: Option<UserId>,
    pub recorded_at: Timestamp,
}

/// The current revision of every hand of a match, in order.
pub async fn current_hands(conn: &mut Conn, match_id: MatchId) -> sqlx::Result<Vec<HandRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT h.* FROM hands h
         WHERE h.match_id = $1 AND h.revision = (
             SELECT MAX(revision) FROM hands WHERE match_id = h.match_id AND number = h.number)
         ORDER BY h.number",
    )
    .bind(match_id)
    .fetch_all(c)
    .await)
}

/// Every revision of every hand of a match (for the correction history).
pub async fn all_revisions(conn: &mut Conn, match_id: MatchId) -> sqlx::Result<Vec<HandRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM hands WHERE match_id = $1 ORDER BY number, revision"
    )
    .bind(match_id)
    .fetch_all(c)
    .await)
}

pub struct NewHand<'a> {
    pub match_id: MatchId,
    pub number: i64,
    pub revision: i64,
    pub hand: &'a str,
    pub reason: Option<&'a str>,
    pub recorded_by: Option<UserId>,
    pub now: Timestamp,
}

/// Stores a revision of a hand; returns it as stored.
pub async fn insert_hand(conn: &mut Conn, h: &NewHand<'_>) -> sqlx::Result<HandRow> {
    on_store!(conn, |c| sqlx::query_as(
        "INSERT INTO hands (match_id, number, revision, hand, reason, recorded_by, recorded_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *",
    )
    .bind(h.match_id)
    .bind(h.number)
    .bind(h.revision)
    .bind(h.hand)
    .bind(h.reason)
    .bind(h.recorded_by)
    .bind(h.now)
    .fetch_one(c)
    .await)
}

/// The current revision of every hand of a match as it was when the revision `as_of` (a
/// hand's row id) was stored: every row up to it, each hand at its latest revision among
/// them. Writes are serialized (one writer, or the advisory lock), so row ids follow the
/// order of the commits.
pub async fn hands_as_of(
    conn: &mut Conn,
    match_id: MatchId,
    as_of: i64,
) -> sqlx::Result<Vec<HandRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT h.* FROM hands h
         WHERE h.match_id = $1 AND h.id <= $2 AND h.revision = (
             SELECT MAX(revision) FROM hands
             WHERE match_id = h.match_id AND number = h.number AND id <= $2)
         ORDER BY h.number",
    )
    .bind(match_id)
    .bind(as_of)
    .fetch_all(c)
    .await)
}
