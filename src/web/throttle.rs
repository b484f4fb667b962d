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
//! The client is the peer address, or, when the peer is a trusted reverse proxy
//! (`--trusted-proxy`), the address that proxy saw ([`ClientAddress`]).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

use actix_web::HttpRequest;
use chrono::{DateTime, Duration, Utc};
use ipnet::IpNet;

/// How long a failure counts (longer than the longest wait, so a guesser who waits it out
/// meets the same wait again rather than a fresh budget).
pub const WINDOW: Duration = Duration::hours(1);
/// The longest wait, whatever the count.
pub const MAX_WAIT: Duration = Duration::minutes(15);
/// Free failures per (username, client).
pub const PAIR_BUDGET: usize = 5;
/// Free failures per client across usernames.
pub const CLIENT_BUDGET: usize = 20;
/// Free failures per username across clients.
pub const USER_BUDGET: usize = 100;
/// Above this many records, forgotten ones are swept out on the next failure.
const SWEEP_ABOVE: usize = 10_000;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Pair(String, IpAddr),
    Client(IpAddr),
    User(String),
}

/// The failures of one key inside the window, oldest first.
#[derive(Debug, Default)]
struct Failures(Vec<DateTime<Utc>>);

impl Failures {
    fn forget_old(&mut self, now: DateTime<Utc>) {
        self.0.retain(|t| now - *t < WINDOW);
    }

    /// How long until the next try is allowed, given `budget` free failures.
    fn wait(&self, budget: usize, now: DateTime<Utc>) -> Option<Duration> {
        let over = self.0.len().checked_sub(budget)?;
        let last = *self.0.last()?;
        let doubling = u32::try_from(over).unwrap_or(u32::MAX).min(20);
        let delay = Duration::seconds(1i64 << doubling).min(MAX_WAIT);
        let left = last + delay - now;
        (left > Duration::zero()).then_some(left)
    }
}

/// Failed password checks, by (username, client), client and username.
#[derive(Default)]
pub struct Throttle {
    failures: Mutex<HashMap<Key, Failures>>,
}

fn user_key(username: &str) -> String {
    username.trim().to_lowercase()
}

impl Throttle {
    /// Whole seconds to wait before `client` may try a password for `username`, if it must.
    pub fn retry_after(&self, client: IpAddr, username: &str, now: DateTime<Utc>) -> Option<u64> {
        let user = user_key(username);
        let mut map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let mut check = |key: Key, budget: usize| {
            map.get_mut(&key).and_then(|f| {
                f.forget_old(now);
                f.wait(budget, now)
            })
        };
        let pair = Key::Pair(user.clone(), client);
        let own = check(pair.clone(), PAIR_BUDGET);
        let device = check(Key::Client(client), CLIENT_BUDGET);
        // The global budget holds back only a client that has failed for this user itself.
        let failing_here = map.get(&pair).is_some_and(|f| !f.0.is_empty());
        let global = if failing_here {
            map.get_mut(&Key::User(user)).and_then(|f| {
                f.forget_old(now);
                f.wait(USER_BUDGET, now)
            })
        } else {
            None
        };
        [own, device, global]
            .into_iter()
            .flatten()
            .max()
            .map(|wait| u64::try_from(wait.num_milliseconds()).map_or(1, |ms| ms.div_ceil(1000)))
    }

    /// A wrong password from `client` for `username`.
    pub fn failed(&self, client: IpAddr, username: &str, now: DateTime<Utc>) {
        let user = user_key(username);
        let mut map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() > SWEEP_ABOVE {
            map.retain(|_, f| {
                f.forget_old(now);
                !f.0.is_empty()
            });
        }
        for key in [
            Key::Pair(user.clone(), client),
            Key::Client(client),
            Key::User(user),
        ] {
            map.entry(key).or_default().0.push(now);
        }
    }

    /// The right password from `client` for `username`: that pair starts afresh.
    pub fn succeeded(&self, client: IpAddr, username: &str) {
        let mut map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        map.remove(&Key::Pair(user_key(username), client));
    }
}

/// Who the client is: the peer address, unless the peer is a trusted reverse proxy, in which
/// case the nearest address in `X-Forwarded-For` that is not a trusted proxy (read from the
/// right: each proxy appends the address it saw, and only what trusted proxies appended can be
/// believed).
#[derive(Debug, Clone, Default)]
pub struct ClientAddress {
    trusted: Vec<IpNet>,
}

impl ClientAddress {
    pub fn trusting(trusted: Vec<IpNet>) -> ClientAddress {
        ClientAddress { trusted }
    }

    fn is_trusted(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        self.trusted.iter().any(|net| net.contains(&ip))
    }

    /// The client address of `req` (unspecified if the peer is unknown, as in some tests).
    pub fn of(&self, req: &HttpRequest) -> IpAddr {
        let peer = req
            .peer_addr()
            .map_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), |a| {
                canonical(a.ip())
            });
        let forwarded = req
            .headers()
            .get_all("x-forwarded-for")
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect::<Vec<_>>();
        let mut client = peer;
        for hop in forwarded.iter().rev() {
            if !self.is_trusted(client) {
                break;
            }
            match hop.parse::<IpAddr>() {
                Ok(ip) => client = canonical(ip),
                // Not an address: nothing left of it can be believed either.
                Err(_) => break,
            }
        }
        client
    }
}

/// An IPv4 address seen through an IPv6 socket (`::ffff:a.b.c.d`) as the IPv4 address.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(secs: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + secs, 0).unwrap()
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn a_pair_gets_its_budget_free_then_waits_doubling_times() {
        let throttle = Throttle::default();
        let me = ip("10.0.0.1");
        for i in 0..PAIR_BUDGET {
            assert_eq!(throttle.retry_after(me, "sup", t(0)), None, "failure {i}");
            throttle.failed(me, "sup", t(0));
        }
        assert_eq!(throttle.retry_after(me, "sup", t(0)), Some(1));
        assert_eq!(throttle.retry_after(me, "SUP ", t(1)), None);
        throttle.failed(me, "sup", t(1));
        assert_eq!(throttle.retry_after(me, "sup", t(1)), Some(2));
        throttle.failed(me, "sup", t(3));
        assert_eq!(throttle.retry_after(me, "sup", t(3)), Some(4));
        // Another client, and the same client for another user, are not held back.
        assert_eq!(throttle.retry_after(ip("10.0.0.2"), "sup", t(3)), None);
        assert_eq!(throttle.retry_after(me, "other", t(3)), None);
        // A success starts the pair afresh.
        throttle.succeeded(me, "sup");
        assert_eq!(throttle.retry_after(me, "sup", t(3)), None);
    }

    #[test]
    fn the_wait_is_capped_and_failures_are_forgotten_after_the_window() {
        let throttle = Throttle::default();
        let me = ip("10.0.0.1");
        for _ in 0..40 {
            throttle.failed(me, "sup", t(0));
        }
        let wait = throttle.retry_after(me, "sup", t(0)).unwrap();
        assert_eq!(wait, MAX_WAIT.num_seconds() as u64);
        let later = t(WINDOW.num_seconds());
        assert_eq!(throttle.retry_after(me, "sup", later), None);
    }

    #[test]
    fn a_client_trying_many_usernames_is_slowed_across_them() {
        let throttle = Throttle::default();
        let me = ip("10.0.0.1");
        for i in 0..CLIENT_BUDGET {
            throttle.failed(me, &format!("user{i}"), t(0));
        }
        assert_eq!(throttle.retry_after(me, "fresh", t(0)), Some(1));
        assert_eq!(throttle.retry_after(ip("10.0.0.2"), "fresh", t(0)), None);
    }

    #[test]
    fn the_global_budget_holds_back_failing_clients_only() {
        let throttle = Throttle::default();
        for i in 0..USER_BUDGET {
            let client = IpAddr::V4(std::net::Ipv4Addr::from(0x0a00_0000 + i as u32));
            throttle.failed(client, "sup", t(0));
        }
        // One of the failing clients waits although it failed only once…
        assert_eq!(throttle.retry_after(ip("10.0.0.5"), "sup", t(0)), Some(1));
        // …while a client that has not failed is never held back by the others.
        assert_eq!(throttle.retry_after(ip("192.0.2.9"), "sup", t(0)), None);
    }

    #[test]
    fn forwarded_addresses_are_believed_only_from_trusted_proxies() {
        let trusted = ClientAddress::trusting(vec![
            "127.0.0.0/8".parse().unwrap(),
            "10.1.0.0/16".parse().unwrap(),
        ]);
        let req = |peer: &str, xff: &[&str]| {
            let mut r = actix_web::test::TestRequest::default()
                .peer_addr(format!("{peer}:5000").parse().unwrap());
            for v in xff {
                r = r.append_header(("X-Forwarded-For", *v));
            }
            r.to_http_request()
        };
        // A trusted proxy: the address it saw.
        assert_eq!(
            trusted.of(&req("127.0.0.1", &["203.0.113.7"])),
            ip("203.0.113.7")
        );
        // Through two trusted proxies, a forged address on the left is not believed.
        assert_eq!(
            trusted.of(&req("127.0.0.1", &["6.6.6.6, 203.0.113.7, 10.1.2.3"])),
            ip("203.0.113.7")
        );
        assert_eq!(
            trusted.of(&req("127.0.0.1", &["6.6.6.6", "203.0.113.7"])),
            ip("203.0.113.7")
        );
        // Garbage appended by the proxy: the proxy itself is the client.
        assert_eq!(
            trusted.of(&req("127.0.0.1", &["nonsense"])),
            ip("127.0.0.1")
        );
        // An untrusted peer's header is ignored.
        assert_eq!(
            trusted.of(&req("198.51.100.4", &["203.0.113.7"])),
            ip("198.51.100.4")
        );
        // Nobody trusted: always the peer.
        assert_eq!(
            ClientAddress::default().of(&req("127.0.0.1", &["203.0.113.7"])),
            ip("127.0.0.1")
        );
        // An IPv4 peer seen through an IPv6 socket.
        assert_eq!(
            trusted.of(&req("[::ffff:127.0.0.1]", &["203.0.113.7"])),
            ip("203.0.113.7")
        );
    }
}
