//! Slowing password guessing without handing anyone a lockout switch.
//!
//! Following OWASP's Authentication Cheat Sheet ("Protect against automated attacks": throttle,
//! don't lock), failed password checks (logins and the account page's current-password check)
//! are counted over [`WINDOW`] under three keys, each with a budget of free failures after
//! which every further failure doubles the wait before the next try (1 s, 2 s, 4 s … at most
//! [`MAX_WAIT`]):
//!
//! - **(username, client)**: [`PAIR_BUDGET`] failures. The guesser at the next table is slowed
//!   on their own device and nowhere else;
//! - **client**, any username: [`CLIENT_BUDGET`] failures (one device trying many accounts);
//! - **username**, any client: [`USER_BUDGET`] failures, the slower global budget against
//!   guessing from many addresses. Once spent it holds back only the clients that have
//!   themselves failed for this username in the window: each new address gets one guess.
//!
//! So a correct password from a client that has not been failing always gets checked: failures
//! from elsewhere never lock the real supervisor out. The decision comes before any hashing,
//! and a success clears only its own (username, client) record, so logging in to one's own
//! account does not reset a spray across others.
//!
//! The failures are kept in the database (`login_failures`), so every instance of the service
//! sees the same ones and a restart does not give a guesser a fresh budget. The client is the
//! peer address, or the address a trusted reverse proxy saw (`web::client_address`).

use std::net::IpAddr;

use chrono::Duration;

use crate::db::Db;
use crate::db::users as db_users;
use crate::domain::Timestamp;

use super::ServiceError;

/// How long a failure counts (longer than the longest wait, so a guesser who waits it out
/// meets the same wait again rather than a fresh budget).
pub const WINDOW: Duration = Duration::hours(1);
/// The longest wait, whatever the count.
pub const MAX_WAIT: Duration = Duration::minutes(15);
/// Free failures per (username, client).
pub const PAIR_BUDGET: i64 = 5;
/// Free failures per client across usernames.
pub const CLIENT_BUDGET: i64 = 20;
/// Free failures per username across clients.
pub const USER_BUDGET: i64 = 100;

/// The three keys of a try: (username, client), client, username.
fn keys(client: IpAddr, username: &str) -> [String; 3] {
    let user = username.trim().to_lowercase();
    [
        format!("pair {client} {user}"),
        format!("client {client}"),
        format!("user {user}"),
    ]
}

/// How long until the next try is allowed after `count` failures, the last at `last`, given
/// `budget` free failures.
fn wait(count: i64, last: Timestamp, budget: i64, now: Timestamp) -> Option<Duration> {
    let over = count.checked_sub(budget).filter(|over| *over >= 0)?;
    let doubling = u32::try_from(over).unwrap_or(u32::MAX).min(20);
    let delay = Duration::seconds(1i64 << doubling).min(MAX_WAIT);
    let left = last.0 + delay - now.0;
    (left > Duration::zero()).then_some(left)
}

/// Whole seconds to wait before `client` may try a password for `username`, if it must.
pub async fn retry_after(
    db: &Db,
    client: IpAddr,
    username: &str,
) -> Result<Option<u64>, ServiceError> {
    let now = db.clock().now();
    let keys = keys(client, username);
    let mut conn = db.read().await?;
    let found = db_users::failures(&mut conn, &keys, Timestamp(now.0 - WINDOW)).await?;
    let of = |key: &String| found.iter().find(|(k, _, _)| k == key);
    let check =
        |key: &String, budget| of(key).and_then(|(_, n, last)| wait(*n, *last, budget, now));
    let own = check(&keys[0], PAIR_BUDGET);
    let device = check(&keys[1], CLIENT_BUDGET);
    // The global budget holds back only a client that has failed for this user itself.
    let global = if of(&keys[0]).is_some() {
        check(&keys[2], USER_BUDGET)
    } else {
        None
    };
    Ok([own, device, global]
        .into_iter()
        .flatten()
        .max()
        .map(|wait| u64::try_from(wait.num_milliseconds()).map_or(1, |ms| ms.div_ceil(1000))))
}

/// A wrong password from `client` for `username`.
pub async fn failed(db: &Db, client: IpAddr, username: &str) -> Result<(), ServiceError> {
    let now = db.clock().now();
    let mut tx = db.write().await?;
    db_users::add_failures(
        &mut tx,
        &keys(client, username),
        now,
        Timestamp(now.0 - WINDOW),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// The right password from `client` for `username`: that pair starts afresh.
pub async fn succeeded(db: &Db, client: IpAddr, username: &str) -> Result<(), ServiceError> {
    let [pair, _, _] = keys(client, username);
    let mut tx = db.write().await?;
    db_users::forget_failures(&mut tx, &pair).await?;
    tx.commit().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::sync::Arc;

    use super::*;
    use crate::domain::{Clock, ManualTime};

    struct Throttle {
        db: Db,
        time: Arc<ManualTime>,
        _dir: tempfile::TempDir,
    }

    impl Throttle {
        async fn new() -> Throttle {
            let dir = tempfile::tempdir().unwrap();
            let start = chrono::DateTime::from_timestamp(1_800_000_000, 0).unwrap();
            let time = Arc::new(ManualTime::starting_at(start));
            let clock = Clock::new(time.clone(), chrono_tz::UTC);
            let db = Db::open_file(&dir.path().join("t.sqlite3"), clock)
                .await
                .unwrap();
            Throttle {
                db,
                time,
                _dir: dir,
            }
        }

        fn at(&self, secs: i64) {
            let start = chrono::DateTime::from_timestamp(1_800_000_000 + secs, 0).unwrap();
            self.time.set(start);
        }

        async fn retry_after(&self, client: IpAddr, username: &str) -> Option<u64> {
            retry_after(&self.db, client, username).await.unwrap()
        }

        async fn failed(&self, client: IpAddr, username: &str) {
            failed(&self.db, client, username).await.unwrap()
        }
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[tokio::test]
    async fn a_pair_gets_its_budget_free_then_waits_doubling_times() {
        let throttle = Throttle::new().await;
        let me = ip("10.0.0.1");
        for i in 0..PAIR_BUDGET {
            assert_eq!(throttle.retry_after(me, "sup").await, None, "failure {i}");
            throttle.failed(me, "sup").await;
        }
        assert_eq!(throttle.retry_after(me, "sup").await, Some(1));
        throttle.at(1);
        assert_eq!(throttle.retry_after(me, "SUP ").await, None);
        throttle.failed(me, "sup").await;
        assert_eq!(throttle.retry_after(me, "sup").await, Some(2));
        throttle.at(3);
        throttle.failed(me, "sup").await;
        assert_eq!(throttle.retry_after(me, "sup").await, Some(4));
        // Another client, and the same client for another user, are not held back.
        assert_eq!(throttle.retry_after(ip("10.0.0.2"), "sup").await, None);
        assert_eq!(throttle.retry_after(me, "other").await, None);
        // A success starts the pair afresh.
        succeeded(&throttle.db, me, "sup").await.unwrap();
        assert_eq!(throttle.retry_after(me, "sup").await, None);
    }

    #[tokio::test]
    async fn the_wait_is_capped_and_failures_are_forgotten_after_the_window() {
        let throttle = Throttle::new().await;
        let me = ip("10.0.0.1");
        for _ in 0..40 {
            throttle.failed(me, "sup").await;
        }
        let wait = throttle.retry_after(me, "sup").await.unwrap();
        assert_eq!(wait, MAX_WAIT.num_seconds() as u64);
        throttle.at(WINDOW.num_seconds());
        assert_eq!(throttle.retry_after(me, "sup").await, None);
        // Forgotten rows are deleted at the next failure.
        throttle.failed(ip("10.0.0.9"), "x").await;
        let mut conn = throttle.db.read().await.unwrap();
        let left: i64 = crate::db::on_store!(conn, |c| sqlx::query_scalar(
            "SELECT count(*) FROM login_failures"
        )
        .fetch_one(c)
        .await)
        .unwrap();
        assert_eq!(left, 3);
    }

    #[tokio::test]
    async fn a_client_trying_many_usernames_is_slowed_across_them() {
        let throttle = Throttle::new().await;
        let me = ip("10.0.0.1");
        for i in 0..CLIENT_BUDGET {
            throttle.failed(me, &format!("user{i}")).await;
        }
        assert_eq!(throttle.retry_after(me, "fresh").await, Some(1));
        assert_eq!(throttle.retry_after(ip("10.0.0.2"), "fresh").await, None);
    }

    #[tokio::test]
    async fn the_global_budget_holds_back_failing_clients_only() {
        let throttle = Throttle::new().await;
        for i in 0..USER_BUDGET {
            let client = IpAddr::V4(std::net::Ipv4Addr::from(0x0a00_0000 + i as u32));
            throttle.failed(client, "sup").await;
        }
        // One of the failing clients waits although it failed only once…
        assert_eq!(throttle.retry_after(ip("10.0.0.5"), "sup").await, Some(1));
        // …while a client that has not failed is never held back by the others.
        assert_eq!(throttle.retry_after(ip("192.0.2.9"), "sup").await, None);
    }
}
