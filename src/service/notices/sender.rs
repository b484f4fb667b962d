//! The task that sends the notices after their commit: it takes one due notice at a time
//! (held for [`HOLD_SECONDS`], longer than one conversation with the relay), hands it to the
//! relay and records the answer. A refused or unreachable relay is tried again after a
//! backoff with jitter (the first retry within 30 s); a notice that keeps failing ends as
//! `failed`, shown on the admin's notices page to send again. A restart (even after
//! `kill -9`) resumes from the table: a notice held by a dead sender is free again once its
//! hold passes.

use std::sync::Arc;
use std::time::Duration;

use super::message;
use super::relay::{self, Relay, SendError};
use crate::db::Db;
use crate::db::notices::{self as db_notices, NoticeRow};
use crate::domain::Timestamp;

/// How long a sender holds the notice it took (a conversation with the relay ends within
/// `relay::CONVERSATION_TIMEOUT`, 20 s).
pub const HOLD_SECONDS: i64 = 25;

/// Tries before a notice is `failed` (about 3 hours of retries).
pub const MAX_ATTEMPTS: i64 = 10;

/// How often the task looks for due notices when nothing wakes it.
const POLL: Duration = Duration::from_secs(1);

/// The wait before try `attempts + 1`, `attempts` having failed: 15 s doubling to an hour,
/// each ±20 % (`jitter` in 0..1), so that senders that failed together do not retry together.
pub fn backoff_seconds(attempts: i64, jitter: f64) -> i64 {
    let doubled = 15_i64.saturating_mul(1_i64 << attempts.clamp(1, 10).saturating_sub(1));
    let base = doubled.min(3600) as f64;
    (base * (0.8 + 0.4 * jitter.clamp(0.0, 1.0))).round() as i64
}

/// Runs until the process ends.
pub async fn run(db: Db, relay: Arc<Relay>, public_url: url::Url) {
    loop {
        match send_due(&db, &relay, &public_url).await {
            Ok(true) => continue,
            Ok(false) => {}
            Err(e) => tracing::warn!(error = %e, "notices: the store failed; trying again"),
        }
        tokio::time::sleep(POLL).await;
    }
}

/// A notice this sender took: held until `held`, with its address's unsubscribe token.
struct Claimed {
    notice: NoticeRow,
    held: Timestamp,
    token: String,
    /// The address stopped the league's notices after this one was written.
    stopped: bool,
}

/// Sends one due notice; whether there was one.
async fn send_due(db: &Db, relay: &Relay, public_url: &url::Url) -> anyhow::Result<bool> {
    if !db_notices::any_due(&mut *db.read().await?, db.clock().now()).await? {
        return Ok(false);
    }
    let Some(claimed) = claim(db).await? else {
        return Ok(false);
    };
    let (id, held) = (claimed.notice.id, claimed.held);
    if claimed.stopped {
        let mut tx = db.write().await?;
        db_notices::mark_skipped(&mut tx, id, held).await?;
        tx.commit().await?;
        return Ok(true);
    }
    // Sent only with a whole conversation's time left on the hold: no other sender can take
    // it meanwhile.
    let latest = held.plus_seconds(-(relay::CONVERSATION_TIMEOUT.as_secs() as i64 + 2));
    if db.clock().now() > latest {
        let mut tx = db.write().await?;
        db_notices::release(&mut tx, id, held).await?;
        tx.commit().await?;
        return Ok(true);
    }
    let outcome = match message::build(relay.from(), &claimed.notice, &claimed.token, public_url) {
        Ok(m) => relay.send(m).await,
        Err(e) => Err(SendError::Permanent(format!(
            "the message could not be made: {e}"
        ))),
    };
    record(db, &claimed, &outcome).await?;
    Ok(true)
}

/// Takes the oldest due notice and its address's unsubscribe token, in one transaction; the
/// hold counts from when the write lock was had.
async fn claim(db: &Db) -> anyhow::Result<Option<Claimed>> {
    let mut tx = db.write().await?;
    let now = db.clock().now();
    let held = now.plus_seconds(HOLD_SECONDS);
    let Some(notice) = db_notices::claim_due(&mut tx, now, held).await? else {
        tx.commit().await?;
        return Ok(None);
    };
    let fresh = super::new_token();
    let (token, stopped) =
        db_notices::subscription(&mut tx, notice.league_id, &notice.address, &fresh).await?;
    tx.commit().await?;
    Ok(Some(Claimed {
        notice,
        held,
        token,
        stopped,
    }))
}

/// Records what the relay said of `claimed`. A store that fails here is tried again (3
/// times, a second apart): a message the relay took must not stay pending and go again.
async fn record(db: &Db, claimed: &Claimed, outcome: &Result<(), SendError>) -> anyhow::Result<()> {
    let mut tries = 0;
    let ours = loop {
        tries += 1;
        match record_once(db, claimed, outcome).await {
            Ok(ours) => break ours,
            Err(e) if tries < 3 => {
                tracing::warn!(notice = claimed.notice.id, error = %e, "notices: recording a try failed; again");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            Err(e) => return Err(e),
        }
    };
    let (id, event) = (claimed.notice.id, &claimed.notice.event);
    match outcome {
        _ if !ours => tracing::warn!(
            notice = id,
            "notice: its hold ran out before its try was recorded"
        ),
        Ok(()) => tracing::info!(notice = id, event = %event, "notice sent"),
        // Not the relay's words: they may hold the address (the admin's page shows them).
        Err(SendError::Transient(_)) => {
            tracing::warn!(notice = id, "notice not sent: the relay failed; retrying")
        }
        Err(SendError::Permanent(_)) => {
            tracing::warn!(notice = id, "notice not sent: the relay refused it")
        }
    }
    Ok(())
}

/// One try at recording `outcome`; whether the hold was still this sender's.
async fn record_once(
    db: &Db,
    claimed: &Claimed,
    outcome: &Result<(), SendError>,
) -> anyhow::Result<bool> {
    let now = db.clock().now();
    let (id, held) = (claimed.notice.id, claimed.held);
    let mut tx = db.write().await?;
    let ours = match outcome {
        Ok(()) => db_notices::mark_sent(&mut tx, id, held, now).await?,
        Err(e) => {
            let tried = claimed.notice.attempts + 1;
            let retry = matches!(e, SendError::Transient(_)) && tried < MAX_ATTEMPTS;
            let at = retry.then(|| now.plus_seconds(backoff_seconds(tried, jitter())));
            db_notices::mark_failed_try(&mut tx, (id, held), e.message(), at).await?
        }
    };
    tx.commit().await?;
    Ok(ours)
}

/// A number in 0..=1 from the system's random source (0.5 if it fails).
fn jitter() -> f64 {
    getrandom::u32().map_or(0.5, |n| f64::from(n) / f64::from(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::backoff_seconds;

    #[test]
    fn the_first_retry_is_within_30_seconds_and_the_wait_grows_to_an_hour() {
        assert!((12..=18).contains(&backoff_seconds(1, 0.0)));
        assert!(backoff_seconds(1, 1.0) <= 30);
        assert_eq!(backoff_seconds(2, 0.5), 30);
        assert_eq!(backoff_seconds(9, 0.5), 3600);
        assert_eq!(backoff_seconds(40, 0.5), 3600);
    }
}
