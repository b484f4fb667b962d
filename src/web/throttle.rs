//! Login throttling: failed logins per IP and per username, decided before any hashing.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use actix_web::HttpRequest;

/// Failed logins per IP and per username in a sliding window; decided before any hashing.
pub struct Throttle {
    failures: Mutex<HashMap<String, Vec<Instant>>>,
    window: Duration,
    per_user: usize,
    per_ip: usize,
}

impl Default for Throttle {
    fn default() -> Self {
        Throttle {
            failures: Mutex::new(HashMap::new()),
            window: Duration::from_secs(15 * 60),
            per_user: 5,
            per_ip: 20,
        }
    }
}

impl Throttle {
    /// Seconds to wait before another try, if this IP or username is locked out.
    pub fn retry_after(&self, ip: &str, username: &str) -> Option<u64> {
        let mut map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        let mut wait = None;
        for (key, limit) in [
            (format!("ip:{ip}"), self.per_ip),
            (format!("user:{}", username.to_lowercase()), self.per_user),
        ] {
            if let Some(times) = map.get_mut(&key) {
                times.retain(|t| now.duration_since(*t) < self.window);
                if times.len() >= limit
                    && let Some(oldest) = times.first()
                {
                    let left = self
                        .window
                        .saturating_sub(now.duration_since(*oldest))
                        .as_secs()
                        .max(1);
                    wait = Some(wait.map_or(left, |w: u64| w.max(left)));
                }
            }
        }
        wait
    }

    pub fn failed(&self, ip: &str, username: &str) {
        let mut map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        for key in [
            format!("ip:{ip}"),
            format!("user:{}", username.to_lowercase()),
        ] {
            map.entry(key).or_default().push(now);
        }
    }

    pub fn succeeded(&self, username: &str) {
        let mut map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        map.remove(&format!("user:{}", username.to_lowercase()));
    }
}

/// The peer address of a request (for throttling).
pub fn client_ip(req: &HttpRequest) -> String {
    req.peer_addr()
        .map_or_else(|| "unknown".into(), |a| a.ip().to_string())
}
