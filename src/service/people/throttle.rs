//! Slowing password guessing without handing anyone a lockout switch.
//!
//! Following OWASP's "Slow Down Online Guessing Attacks with Device Cookies", a password check
//! (a login, or the account page's current-password check) comes from one of two kinds of
//! client:
//!
//! - a **trusted device**: a browser holding a device cookie for this username
//!   (`service::people::device_cookie`), given at its last successful login. Its failures count
//!   against that cookie alone, [`DEVICE_BUDGET`] free; nothing any other client does holds
//!   it back, whatever its address;
//! - an **untrusted client**: anyone else, known by address. Failures count per username
//!   across all untrusted clients ([`USER_BUDGET`] free: the cap on guessing one username from
//!   many addresses) and per address across usernames ([`CLIENT_BUDGET`] free: one device,
//!   or one crowded network, trying many usernames). Once a budget is spent it slows every
//!   untrusted client it covers.
//!
//! After a budget is spent every further failure doubles the wait before the next try (1 s,
//! 2 s, 4 s … at most [`MAX_WAIT`]), measured from the last failure: a slowdown, never a
//! lockout that outlasts [`MAX_WAIT`]. Failures count over [`WINDOW`], longer than the longest
//! wait, so a guesser who waits meets the same wait again rather than a fresh budget. With
//! these numbers the untrusted clients together get at most [`USER_BUDGET`] + 12 guesses at
//! one username in any hour (the unit tests count them). The decision comes before any
//! hashing. A success clears nothing: a trusted device's next login gets a new cookie, and
//! so a new budget, and an untrusted client that logs in becomes a trusted device.
//!
//! The failures are kept in the database (`login_failures`), so every instance of the service
//! sees the same ones and a restart does not give a guesser a fresh budget. A clock that goes
//! back is met by moving the failures it left in the future to the present: no wait is ever
//! longer than [`MAX_WAIT`] and no failure is forgotten early. The address is the peer's, or
//! the one a trusted reverse proxy saw (`web::client_address`).

use std::net::IpAddr;

use chrono::Duration;

use crate::db::Db;
use crate::db::users as db_users;
use crate::domain::Timestamp;
use crate::service::ServiceError;
use crate::service::people::device_cookie::DeviceId;

/// How long a failure counts (longer than the longest wait, so a guesser who waits it out
/// meets the same wait again rather than a fresh budget).
pub const WINDOW: Duration = Duration::hours(1);
/// The longest wait, whatever the count.
pub const MAX_WAIT: Duration = Duration::minutes(15);
/// Free failures per device cookie.
pub const DEVICE_BUDGET: i64 = 5;
/// Free failures per username, from all untrusted clients together.
pub const USER_BUDGET: i64 = 10;
/// Free failures per address across usernames, from untrusted clients.
pub const CLIENT_BUDGET: i64 = 20;

/// A username as every comparison of usernames sees it: trimmed, ASCII letters lowercased,
/// nothing else changed (as the stores' username indexes fold).
pub fn fold(username: &str) -> String {
    username.trim().to_ascii_lowercase()
}

/// One password check: for which username, by whom.
#[derive(Debug, Clone)]
pub struct Attempt {
    /// The budgets it is counted against: (key, free failures).
    budgets: Vec<(String, i64)>,
    trusted: bool,
}

impl Attempt {
    /// A check for `username` from `address`, by the holder of a device cookie recognised
    /// for this username, if any.
    pub fn new(username: &str, address: IpAddr, device: Option<DeviceId>) -> Attempt {
        let user = fold(username);
        match device {
            Some(device) => Attempt {
                budgets: vec![(format!("device {}", device.as_str()), DEVICE_BUDGET)],
                trusted: true,
            },
            None => Attempt {
                budgets: vec![
                    (format!("user {user}"), USER_BUDGET),
                    (format!("client {address}"), CLIENT_BUDGET),
                ],
                trusted: false,
            },
        }
    }

    /// By a trusted device (one with a device cookie for this username).
    pub fn trusted(&self) -> bool {
        self.trusted
    }

    fn keys(&self) -> impl Iterator<Item = &str> {
        self.budgets.iter().map(|(key, _)| key.as_str())
    }
}

/// How long until the next try is allowed after `count` failures, the last at `last` (not
/// after `now`), given `budget` free failures.
fn wait(count: i64, last: Timestamp, budget: i64, now: Timestamp) -> Option<Duration> {
    let over = count.checked_sub(budget).filter(|over| *over >= 0)?;
    let doubling = u32::try_from(over).unwrap_or(u32::MAX).min(20);
    let delay = Duration::seconds(1i64 << doubling).min(MAX_WAIT);
    let left = last.0 + delay - now.0;
    (left > Duration::zero()).then_some(left)
}

/// Whole seconds to wait before `attempt` may be checked, if it must.
pub async fn retry_after(db: &Db, attempt: &Attempt) -> Result<Option<u64>, ServiceError> {
    let now = db.clock().now();
    let since = Timestamp(now.0 - WINDOW);
    let mut conn = db.read().await?;
    let mut longest = None;
    let mut from_the_future = false;
    for (key, budget) in &attempt.budgets {
        let (count, last) = db_users::failures(&mut conn, key, since).await?;
        let Some(last) = last else { continue };
        from_the_future |= last > now;
        longest = longest.max(wait(count, last.min(now), *budget, now));
    }
    drop(conn);
    if from_the_future {
        // The clock went back: the wait just given must end when it says.
        let mut tx = db.write().await?;
        for key in attempt.keys() {
            db_users::pull_back_failures(&mut tx, key, now).await?;
        }
        tx.commit().await?;
    }
    Ok(
        longest
            .map(|wait| u64::try_from(wait.num_milliseconds()).map_or(1, |ms| ms.div_ceil(1000))),
    )
}

/// A wrong password in `attempt`.
pub async fn failed(db: &Db, attempt: &Attempt) -> Result<(), ServiceError> {
    let now = db.clock().now();
    let mut tx = db.write().await?;
    db_users::forget_failures_before(&mut tx, Timestamp(now.0 - WINDOW)).await?;
    for key in attempt.keys() {
        db_users::pull_back_failures(&mut tx, key, now).await?;
        db_users::add_failure(&mut tx, key, now).await?;
    }
    tx.commit().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::net::Ipv4Addr;
    use std::sync::Arc;

    use super::*;
    use crate::domain::{Clock, ManualTime};
    use crate::service::people::device_cookie::DeviceKey;

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

        /// The clock at `secs` after the start (before it, if negative).
        fn at(&self, secs: i64) {
            let start = chrono::DateTime::from_timestamp(1_800_000_000 + secs, 0).unwrap();
            self.time.set(start);
        }

        fn advance(&self, secs: u64) {
            self.time
                .advance(Duration::seconds(i64::try_from(secs).unwrap()));
        }

        async fn retry_after(&self, attempt: &Attempt) -> Option<u64> {
            retry_after(&self.db, attempt).await.unwrap()
        }

        async fn failed(&self, attempt: &Attempt) {
            failed(&self.db, attempt).await.unwrap()
        }
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    /// The `n`th of many addresses.
    fn address(n: u32) -> IpAddr {
        IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + n))
    }

    fn untrusted(address: IpAddr, username: &str) -> Attempt {
        Attempt::new(username, address, None)
    }

    /// A browser that logged in as `username` before, now at `address`.
    fn device(address: IpAddr, username: &str) -> Attempt {
        let key = DeviceKey::new(b"test key").unwrap();
        let device = key.recognise(&key.issue(&fold(username)), &fold(username));
        assert!(device.is_some());
        Attempt::new(username, address, device)
    }

    #[tokio::test]
    async fn a_device_gets_its_budget_free_then_waits_doubling_times() {
        let throttle = Throttle::new().await;
        let phone = device(ip("10.0.0.1"), "sup");
        for i in 0..DEVICE_BUDGET {
            assert_eq!(throttle.retry_after(&phone).await, None, "failure {i}");
            throttle.failed(&phone).await;
        }
        assert_eq!(throttle.retry_after(&phone).await, Some(1));
        throttle.at(1);
        assert_eq!(throttle.retry_after(&phone).await, None);
        throttle.failed(&phone).await;
        assert_eq!(throttle.retry_after(&phone).await, Some(2));
        throttle.at(3);
        throttle.failed(&phone).await;
        assert_eq!(throttle.retry_after(&phone).await, Some(4));
        // Nobody else is held back by the device's failures: not another device of the same
        // user, not an untrusted client at the same address.
        assert_eq!(
            throttle.retry_after(&device(ip("10.0.0.1"), "sup")).await,
            None
        );
        assert_eq!(
            throttle
                .retry_after(&untrusted(ip("10.0.0.1"), "sup"))
                .await,
            None
        );
    }

    #[tokio::test]
    async fn the_wait_is_capped_and_failures_are_forgotten_after_the_window() {
        let throttle = Throttle::new().await;
        let guesser = untrusted(ip("10.0.0.1"), "sup");
        for _ in 0..40 {
            throttle.failed(&guesser).await;
        }
        let wait = throttle.retry_after(&guesser).await.unwrap();
        assert_eq!(wait, MAX_WAIT.num_seconds() as u64);
        throttle.at(WINDOW.num_seconds());
        assert_eq!(throttle.retry_after(&guesser).await, None);
        // Forgotten rows are deleted at the next failure.
        throttle.failed(&untrusted(ip("10.0.0.9"), "x")).await;
        let mut conn = throttle.db.read().await.unwrap();
        let left: i64 = crate::db::on_store!(conn, |c| sqlx::query_scalar(
            "SELECT count(*) FROM login_failures"
        )
        .fetch_one(c)
        .await)
        .unwrap();
        assert_eq!(left, 2);
    }

    #[tokio::test]
    async fn guessing_one_username_from_many_addresses_slows_every_untrusted_client() {
        let throttle = Throttle::new().await;
        for i in 0..USER_BUDGET {
            let attempt = untrusted(address(i as u32), "SUP");
            assert_eq!(throttle.retry_after(&attempt).await, None, "address {i}");
            throttle.failed(&attempt).await;
        }
        // A new address, which has never failed, waits too…
        assert_eq!(
            throttle
                .retry_after(&untrusted(ip("192.0.2.9"), "sup"))
                .await,
            Some(1)
        );
        // …and so does the same username in another case (folded as the lookup folds)…
        assert_eq!(
            throttle
                .retry_after(&untrusted(ip("192.0.2.9"), " Sup "))
                .await,
            Some(1)
        );
        // …but not another username, nor the supervisor's own phone.
        assert_eq!(
            throttle
                .retry_after(&untrusted(ip("192.0.2.9"), "sup2"))
                .await,
            None
        );
        assert_eq!(throttle.retry_after(&device(address(0), "sup")).await, None);
    }

    #[tokio::test]
    async fn one_address_trying_many_usernames_slows_untrusted_clients_there_only() {
        let throttle = Throttle::new().await;
        let wifi = ip("10.0.0.1");
        for i in 0..CLIENT_BUDGET {
            throttle.failed(&untrusted(wifi, &format!("user{i}"))).await;
        }
        assert_eq!(
            throttle.retry_after(&untrusted(wifi, "fresh")).await,
            Some(1)
        );
        assert_eq!(
            throttle
                .retry_after(&untrusted(ip("10.0.0.2"), "fresh"))
                .await,
            None
        );
        assert_eq!(throttle.retry_after(&device(wifi, "fresh")).await, None);
    }

    /// A guesser with endless addresses, trying "sup" the moment each wait ends, for ten
    /// hours (or 2,000 tries): no hour holds more than USER_BUDGET + 12 guesses (the number
    /// the module doc and docs/features.md give).
    #[tokio::test]
    async fn spread_out_guessing_is_capped_per_hour() {
        let throttle = Throttle::new().await;
        let mut guesses = vec![];
        let mut elapsed = 0;
        // Bounded: without a cap the clock would never move.
        for n in 0..2000 {
            if elapsed >= 10 * 3600 {
                break;
            }
            let attempt = untrusted(address(n), "sup");
            match throttle.retry_after(&attempt).await {
                Some(wait) => {
                    throttle.advance(wait);
                    elapsed += wait;
                }
                None => {
                    throttle.failed(&attempt).await;
                    guesses.push(elapsed);
                }
            }
        }
        let most = guesses
            .iter()
            .map(|start| {
                guesses
                    .iter()
                    .filter(|t| (*start..start + 3600).contains(*t))
                    .count()
            })
            .max()
            .unwrap();
        assert_eq!(most, USER_BUDGET as usize + 12, "guesses at {guesses:?}");
    }

    /// The service's clock going back between failures: no wait longer than MAX_WAIT, a wait
    /// that ends when it says, and no failure forgotten.
    #[tokio::test]
    async fn a_clock_going_back_neither_locks_out_nor_forgets() {
        let throttle = Throttle::new().await;
        let phone = device(ip("10.0.0.1"), "sup");
        for _ in 0..3 {
            throttle.failed(&phone).await;
        }
        // Back by more than the window: the three failures still count.
        throttle.at(-2 * 3600);
        for _ in 0..2 {
            assert_eq!(throttle.retry_after(&phone).await, None);
            throttle.failed(&phone).await;
        }
        assert_eq!(
            throttle.retry_after(&phone).await,
            Some(1),
            "no fresh budget"
        );
        throttle.advance(1);
        // Many failures, then the clock goes back again.
        for _ in 0..40 {
            throttle.failed(&phone).await;
        }
        throttle.at(-5 * 3600);
        let wait = throttle.retry_after(&phone).await.unwrap();
        assert!(wait <= MAX_WAIT.num_seconds() as u64, "waits {wait} s");
        throttle.advance(wait);
        assert_eq!(throttle.retry_after(&phone).await, None, "the wait ended");
        throttle.failed(&phone).await;
        assert_eq!(
            throttle.retry_after(&phone).await,
            Some(MAX_WAIT.num_seconds() as u64),
            "still the longest wait: nothing forgotten"
        );
    }
}
