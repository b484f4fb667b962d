//! Idempotency keys of a match's actions other than a new hand (docs/api.md §7.8): a
//! correction, a time call, a forfeit, a check-in, sportsmanship ratings, a lineup, a start.
//! A phone whose answer was lost sends the action again with the same key; the first answer
//! comes back and nothing is done twice, instead of a conflict a person must sort out.
//!
//! An action looks its key up right after the caller's rights are checked, before any other
//! check (a version that has moved on is the first use's doing), and keeps it with its
//! answer in its own transaction, so a key is kept exactly when its action was done. Hands
//! keep their keys apart (`service::night::matches::record`, which rebuilds its answers); a key is
//! one attempt of one thing, so a hand's key sent with an action is refused, and the other
//! way round.

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::db::Conn;
use crate::db::action_keys::{self as db_action_keys, ActionKeyRow};
use crate::domain::{ErrorCode, IdempotencyKey, MatchId, Timestamp};
use crate::service::night::access::IDEMPOTENCY_WINDOW;
use crate::service::night::match_view::MatchView;
use crate::service::{ServiceError, to_json};

/// The most expired keys one action deletes (as hands do: any backlog is soon gone).
const EXPIRE_AT_ONCE: i64 = 64;

/// An action's idempotency key, with what it was sent for.
#[derive(Debug, Clone)]
pub struct ActionKey {
    key: String,
    action: &'static str,
    /// SHA-256 (hex) of the request: compared, never shown, and no student id kept twice.
    request: String,
}

impl ActionKey {
    /// The key sent with `action` (none: the action is not keyed), for `request`: the action's input as
    /// the service reads it (the key in it or not: it is the same in every resend).
    pub fn of(
        key: Option<&IdempotencyKey>,
        action: &'static str,
        request: &impl Serialize,
    ) -> Result<Option<ActionKey>, ServiceError> {
        let Some(key) = key else {
            return Ok(None);
        };
        let json = to_json("request", request)?;
        let digest = Sha256::digest(json.as_bytes());
        Ok(Some(ActionKey {
            key: key.as_str().to_string(),
            action,
            request: digest.iter().map(|b| format!("{b:02x}")).collect(),
        }))
    }
}

/// What a keyed action answers: done now, or the first answer to its key again.
#[derive(Debug)]
pub enum Acted {
    Done(Box<MatchView>),
    Again(FirstAnswer),
}

/// The body of the first answer to a key (JSON), as it was answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstAnswer(pub String);

/// The first answer to `key` in match `id`, if the key was used there; refused when it was
/// used for another action, another request or a hand.
pub async fn first_answer(
    conn: &mut Conn,
    id: MatchId,
    key: Option<&ActionKey>,
) -> Result<Option<FirstAnswer>, ServiceError> {
    let Some(key) = key else {
        return Ok(None);
    };
    match db_action_keys::by_key(conn, id, &key.key).await? {
        Some(kept) if kept.action == key.action && kept.request == key.request => {
            Ok(Some(FirstAnswer(kept.response)))
        }
        Some(_) => Err(reused()),
        None if crate::db::idempotency::idempotency_record(conn, id, &key.key)
            .await?
            .is_some() =>
        {
            Err(reused())
        }
        None => Ok(None),
    }
}

/// The refusal of a key used before for something else.
pub(crate) fn reused() -> ServiceError {
    ServiceError::invalid(
        ErrorCode::IdempotencyKeyReused,
        "idempotency_key",
        "this idempotency key was already used in this match for something else: nothing was done; send a new key for a new action",
    )
}

/// Keeps `answer` under `key` in match `id` (in the action's transaction), and expires a
/// batch of the keys older than the window.
pub async fn keep(
    conn: &mut Conn,
    id: MatchId,
    key: Option<&ActionKey>,
    answer: &MatchView,
    now: Timestamp,
) -> Result<(), ServiceError> {
    let Some(key) = key else {
        return Ok(());
    };
    let row = ActionKeyRow {
        action: key.action.to_string(),
        request: key.request.clone(),
        response: to_json("answer", answer)?,
    };
    db_action_keys::insert(conn, id, &key.key, &row, now).await?;
    db_action_keys::expire(conn, Timestamp(now.0 - IDEMPOTENCY_WINDOW), EXPIRE_AT_ONCE).await?;
    Ok(())
}
