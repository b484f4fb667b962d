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
use super::relay::{Relay, SendError};
use crate::db::Db;
use crate::db::notices as db_notices;

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

/// Sends one due notice; whether there was one.
async fn send_due(db: &Db, relay: &Relay, public_url: &url::Url) -> anyhow::Result<bool> {
    let now = db.clock().now();
    if !db_notices::any_due(&mut *db.read().await?, now).await? {
        return Ok(false);
    }
    let notice = {
        let mut tx = db.write().await?;
        let taken = db_notices::claim_due(&mut tx, now, now.plus_seconds(HOLD_SECONDS)).await?;
        tx.commit().await?;
        taken
    };
    let Some(notice) = notice else {
        return Ok(false);
    };
    let outcome = match message::build(db, relay.from(), &notice, public_url).await {
        Ok(m) => relay.send(m).await,
        Err(e) => Err(SendError::Permanent(format!(
            "the message could not be made: {e}"
        ))),
    };
    let now = db.clock().now();
    let mut tx = db.write().await?;
    match &outcome {
        Ok(()) => db_notices::mark_sent(&mut tx, notice.id, now).await?,
        Err(e) => {
            let tried = notice.attempts + 1;
            let retry = matches!(e, SendError::Transient(_)) && tried < MAX_ATTEMPTS;
            let at = retry.then(|| now.plus_seconds(backoff_seconds(tried, jitter())));
            db_notices::mark_failed_try(&mut tx, notice.id, e.message(), at).await?;
        }
    }
    tx.commit().await?;
    match outcome {
        Ok(()) => tracing::info!(notice = notice.id, event = %notice.event, "notice sent"),
        // Not the relay's words: they may hold the address (the admin's page shows them).
        Err(SendError::Transient(_)) => {
            tracing::warn!(
                notice = notice.id,
                "notice not sent: the relay failed; retrying"
            )
        }
        Err(SendError::Permanent(_)) => {
            tracing::warn!(notice = notice.id, "notice not sent: the relay refused it")
        }
    }
    Ok(true)
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
