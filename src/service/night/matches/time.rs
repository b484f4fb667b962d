//! The match's clock: a supervisor calls time, or the time limit passes; either way the
//! hand in play is the last one.

use super::check_version;
use crate::db::Db;
use crate::db::matches::{self as db_matches, MatchRow};
use crate::domain::ErrorCode;
use crate::domain::{IdempotencyKey, MatchId, MatchStatus, Timestamp};
use crate::rules::Rules;
use crate::service::audit;
use crate::service::night::access::{league_of, writable};
use crate::service::night::action_keys::{self, Acted, ActionKey};
use crate::service::night::match_view::{ends_at, reload, rules_of};
use crate::service::{ServiceError, User};

/// Time has run out for `m` at `now`: called by a supervisor or past the limit.
pub(super) fn time_expired(m: &MatchRow, rules: &Rules, now: Timestamp) -> bool {
    if m.time_called_at.is_some() {
        return true;
    }
    ends_at(m, rules).is_some_and(|end| now >= end)
}

/// Calls time now: the hand in play is the last one (it is marked time-called when entered).
/// A repeated `idempotency_key` answers the first answer again and calls nothing.
#[tracing::instrument(skip_all, fields(user_id = %user.id, match_id = %id))]
pub async fn call_time(
    db: &Db,
    user: &User,
    id: MatchId,
    expected_version: i64,
    idempotency_key: Option<&IdempotencyKey>,
) -> Result<Acted, ServiceError> {
    let key = ActionKey::of(idempotency_key, "call_time", &expected_version)?;
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let m = writable(&mut tx, user, id).await?;
    if let Some(first) = action_keys::first_answer(&mut tx, id, key.as_ref()).await? {
        return Ok(Acted::Again(first));
    }
    check_version(&m, expected_version)?;
    if m.status != MatchStatus::InProgress {
        return Err(ServiceError::conflict(
            ErrorCode::NotInProgress,
            "time can only be called in a match in play",
        ));
    }
    let league = league_of(&mut tx, &m).await?;
    if m.time_called_at.is_some() {
        return Err(ServiceError::conflict(
            ErrorCode::TimeAlreadyCalled,
            "time has already been called in this match",
        ));
    }
    if rules_of(&m, &league)?.time_limit_minutes.is_none() {
        return Err(ServiceError::conflict(
            ErrorCode::NoTimeLimit,
            "these rules have no time limit",
        ));
    }
    // A service clock set back before the start records the call at the start, never
    // before it.
    let at = m.started_at.map_or(now, |start| now.max(start));
    db_matches::call_time(&mut tx, id, at).await?;
    audit::record(
        &mut tx,
        user,
        now,
        audit::Change::new("call_time", audit::Subject::Match(id)),
    )
    .await?;
    let view = reload(&mut tx, id, &league).await?;
    action_keys::keep(&mut tx, id, key.as_ref(), &view, now).await?;
    tx.commit().await?;
    Ok(Acted::Done(Box::new(view)))
}
