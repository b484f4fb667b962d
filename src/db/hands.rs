//! The hands of a match: every revision of every hand, as entered and as corrected (a
//! correction is a new revision; none is ever overwritten).

use std::borrow::Cow;

use super::matches::{MatchRow, Totals, bind_totals};
use super::{Conn, StoreKind, on_store};

use crate::domain::{MatchId, Timestamp, UserId};

#[derive(Debug, Clone, sqlx_macros::FromRow)]
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

/// Binds a [`NewHand`]'s fields as `$1` to `$7`, in the order of the `hands` columns that
/// [`insert_hand`] and [`record_hand`] write (a macro: the query is a different type on
/// each store).
macro_rules! bind_hand {
    ($query:expr, $h:expr) => {
        $query
            .bind($h.match_id)
            .bind($h.number)
            .bind($h.revision)
            .bind($h.hand)
            .bind($h.reason)
            .bind($h.recorded_by)
            .bind($h.now)
    };
}

/// Stores a revision of a hand; returns it as stored.
pub async fn insert_hand(conn: &mut Conn, h: &NewHand<'_>) -> sqlx::Result<HandRow> {
    on_store!(conn, |c| bind_hand!(
        sqlx::query_as(
            "INSERT INTO hands (match_id, number, revision, hand, reason, recorded_by, recorded_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *",
        ),
        h
    )
    .fetch_one(c)
    .await)
}

/// The match after a new hand, with the hand's row id and time (what [`record_hand`]'s
/// one query answers).
#[derive(sqlx_macros::FromRow)]
struct AfterHand {
    #[sqlx(flatten)]
    m: MatchRow,
    hand_id: MatchId,
    hand_recorded_at: Timestamp,
}

/// [`record_hand`] on PostgreSQL: one statement, its writes in data-modifying `WITH`s.
const RECORD_HAND_POSTGRES: &str = "WITH hand AS (
        INSERT INTO hands (match_id, number, revision, hand, reason, recorded_by, recorded_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id, recorded_at
    ), logged AS (
        INSERT INTO audit_log (at, user_id, action, entity, entity_id, after, league_id, match_id)
        SELECT $7, $6, $8, 'match', id, $4, league_id, id FROM matches WHERE id = $1
    ), m AS (
        UPDATE matches SET status = $9, score_a = $10, score_b = $11, bags_a = $12,
            bags_b = $13, game_status = $14, winner = $15, reason = $16, forfeit = $17,
            hands_played = $18, version = version + 1
        WHERE id = $1 RETURNING *
    )
    SELECT m.*, hand.id AS hand_id, hand.recorded_at AS hand_recorded_at FROM m, hand";

/// [`record_hand`] on SQLite, which has no data-modifying `WITH`: the same writes as
/// statements of one query (sqlx runs them in turn on its thread, every `$n` bound to the
/// same argument), then the match and the hand read back (`(match_id, number, revision)` is
/// unique).
const RECORD_HAND_SQLITE: &str = "
    INSERT INTO hands (match_id, number, revision, hand, reason, recorded_by, recorded_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7);
    INSERT INTO audit_log (at, user_id, action, entity, entity_id, after, league_id, match_id)
    SELECT $7, $6, $8, 'match', id, $4, league_id, id FROM matches WHERE id = $1;
    UPDATE matches SET status = $9, score_a = $10, score_b = $11, bags_a = $12,
        bags_b = $13, game_status = $14, winner = $15, reason = $16, forfeit = $17,
        hands_played = $18, version = version + 1
    WHERE id = $1;
    SELECT m.*, h.id AS hand_id, h.recorded_at AS hand_recorded_at
    FROM matches m JOIN hands h ON h.match_id = m.id
    WHERE m.id = $1 AND h.number = $2 AND h.revision = $3";

/// Records a new hand (revision 1): its row, the match's `totals` after it (the version
/// moved on), and the audit entry `action` on the match, by the hand's recorder, with the
/// hand as what it changed to. Returns the hand's row and the match after it.
///
/// One query on either store: each hand of a group commit waits for the one before it on
/// the writer's connection, and every query is a hand-over to SQLite's thread or a round
/// trip to the PostgreSQL server, which took most of a hand's time on the writer.
pub async fn record_hand(
    conn: &mut Conn,
    h: &NewHand<'_>,
    totals: &Totals,
    action: &str,
) -> sqlx::Result<(HandRow, MatchRow)> {
    // The first write of a hand's request: it opens the request's savepoint where the
    // group commit left that to it (on SQLite, ahead of the hand's own statements).
    let opening = conn.take_savepoint_opening();
    let sql = match (conn.kind(), opening) {
        (StoreKind::Sqlite, None) => Cow::Borrowed(RECORD_HAND_SQLITE),
        (StoreKind::Sqlite, Some(opening)) => Cow::Owned(format!("{opening}{RECORD_HAND_SQLITE}")),
        (StoreKind::Postgres, opening) => {
            if let Some(opening) = opening {
                on_store!(conn, execute sqlx::raw_sql(opening))?;
            }
            Cow::Borrowed(RECORD_HAND_POSTGRES)
        }
    };
    let t = totals;
    let row: AfterHand = on_store!(conn, |c| bind_totals!(
        bind_hand!(sqlx::query_as(sqlx::AssertSqlSafe(sql)), h).bind(action),
        t
    )
    .fetch_one(c)
    .await)?;
    let hand = HandRow {
        id: row.hand_id,
        match_id: h.match_id,
        number: h.number,
        revision: h.revision,
        hand: h.hand.to_owned(),
        reason: h.reason.map(str::to_owned),
        recorded_by: h.recorded_by,
        recorded_at: row.hand_recorded_at,
    };
    Ok((hand, row.m))
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
