//! The time, injectable: every "now" of the service comes from a [`Clock`] (the web layer's
//! and the services' alike), so tests can run a match past its time limit, expire a session
//! or cross midnight and a daylight-saving change without waiting.
//!
//! A clock also knows the league's time zone: schedules are written in local wall-clock
//! time ([`LocalTime`]), instants are stored in UTC ([`Timestamp`]).

use std::fmt;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, NaiveDateTime, TimeZone, Timelike, Utc};
use chrono_tz::Tz;

use super::{LocalTime, Timestamp};

/// Where the current instant comes from.
pub trait TimeSource: Send + Sync {
    fn now(&self) -> DateTime<Utc>;
}

/// The machine's clock.
#[derive(Debug, Default)]
pub struct SystemTime;

impl TimeSource for SystemTime {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that stands still until it is set or moved (tests, replays).
#[derive(Debug)]
pub struct ManualTime(Mutex<DateTime<Utc>>);

impl ManualTime {
    pub fn starting_at(t: DateTime<Utc>) -> ManualTime {
        ManualTime(Mutex::new(t))
    }

    pub fn set(&self, t: DateTime<Utc>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = t;
    }

    pub fn advance(&self, by: chrono::Duration) {
        let mut t = self.0.lock().unwrap_or_else(|e| e.into_inner());
        *t += by;
    }
}

impl TimeSource for ManualTime {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The current instant and the league's time zone.
#[derive(Clone)]
pub struct Clock {
    source: Arc<dyn TimeSource>,
    zone: Tz,
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Clock({}, now {})", self.zone, self.now())
    }
}

impl Clock {
    pub fn new(source: Arc<dyn TimeSource>, zone: Tz) -> Clock {
        Clock { source, zone }
    }

    /// The machine's clock in `zone`.
    pub fn system(zone: Tz) -> Clock {
        Clock::new(Arc::new(SystemTime), zone)
    }

    /// Now, to the second (as stored).
    pub fn now(&self) -> Timestamp {
        let t = self.source.now();
        Timestamp(t.with_nanosecond(0).unwrap_or(t))
    }

    pub fn zone(&self) -> Tz {
        self.zone
    }

    /// The wall-clock time in the league's zone now, to the minute.
    pub fn local_now(&self) -> LocalTime {
        let t = self.local(self.now());
        LocalTime(t.with_second(0).unwrap_or(t))
    }

    /// An instant as the league's wall clock shows it.
    pub fn local(&self, t: Timestamp) -> NaiveDateTime {
        self.zone.from_utc_datetime(&t.0.naive_utc()).naive_local()
    }
}

/// The machine's time zone (its IANA name), UTC when it cannot be told.
pub fn machine_zone() -> Tz {
    iana_time_zone::get_timezone()
        .ok()
        .and_then(|name| name.parse().ok())
        .unwrap_or(Tz::UTC)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    #[test]
    fn local_time_follows_daylight_saving() {
        let manual = Arc::new(ManualTime::starting_at(at("2026-03-08T06:59:00Z")));
        let ny = Clock::new(manual.clone(), chrono_tz::America::New_York);
        // 01:59 EST, then one minute later 03:00 EDT (the clocks go forward).
        assert_eq!(ny.local_now().to_string(), "2026-03-08T01:59");
        manual.advance(chrono::Duration::minutes(1));
        assert_eq!(ny.local_now().to_string(), "2026-03-08T03:00");
        let london = Clock::new(manual.clone(), chrono_tz::Europe::London);
        manual.set(at("2026-10-25T00:30:00Z"));
        assert_eq!(london.local_now().to_string(), "2026-10-25T01:30");
        manual.set(at("2026-10-25T01:30:00Z"));
        // 01:30 again, now in GMT (the clocks went back).
        assert_eq!(london.local_now().to_string(), "2026-10-25T01:30");
        assert_eq!(london.now().to_string(), "2026-10-25T01:30:00Z");
    }
}
