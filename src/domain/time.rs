//! Times as stored: instants in UTC (`2026-11-23T19:05:00Z`) and the wall-clock time a
//! match is scheduled at in the league's own time zone (`2026-11-23T19:00`). Both are stored
//! and sent as that exact text; pages format them with `web::view::time`.
//!
//! A date or time a user sends (a match's time, a night to move, a schedule's first date, a
//! week of the schedule) is read here, by [`parse_day`] and [`LocalTime::parse_input`], and
//! only within [`FIRST_DAY`]..=[`LAST_DAY`]: any season fits, and every date computed from
//! one (its week's Monday, a later round) stays far inside what chrono can hold. Stored
//! values are read without that bound (an older database may hold any year), and what is
//! computed from them uses checked arithmetic.

use std::fmt;

use chrono::{DateTime, NaiveDate, NaiveDateTime, SecondsFormat, Timelike, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An instant (a hand recorded, a match started), to the second, in UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, utoipa::ToSchema)]
#[schema(value_type = String, format = DateTime)]
pub struct Timestamp(pub DateTime<Utc>);

impl Timestamp {
    /// Reads RFC 3339 in any offset (as stored, or as an API client sends it).
    pub fn parse(s: &str) -> Result<Timestamp, chrono::ParseError> {
        DateTime::parse_from_rfc3339(s.trim()).map(|t| Timestamp(t.to_utc()))
    }

    /// `minutes` later (earlier if negative), held at the last (first) instant chrono holds
    /// rather than overflowing: a stored time may be anything.
    pub fn plus_minutes(self, minutes: i64) -> Timestamp {
        let edge = if minutes < 0 {
            DateTime::<Utc>::MIN_UTC
        } else {
            DateTime::<Utc>::MAX_UTC
        };
        Timestamp(
            chrono::Duration::try_minutes(minutes)
                .and_then(|d| self.0.checked_add_signed(d))
                .unwrap_or(edge),
        )
    }
}

impl Timestamp {
    /// `seconds` later (earlier if negative), held at chrono's edges as [`Self::plus_minutes`].
    pub fn plus_seconds(self, seconds: i64) -> Timestamp {
        let edge = if seconds < 0 {
            DateTime::<Utc>::MIN_UTC
        } else {
            DateTime::<Utc>::MAX_UTC
        };
        Timestamp(
            chrono::Duration::try_seconds(seconds)
                .and_then(|d| self.0.checked_add_signed(d))
                .unwrap_or(edge),
        )
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.to_rfc3339_opts(SecondsFormat::Secs, true))
    }
}

/// A wall-clock time in the league's time zone, to the minute (when a match is scheduled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, utoipa::ToSchema)]
#[schema(value_type = String, example = "2026-11-23T19:00")]
pub struct LocalTime(pub NaiveDateTime);

impl LocalTime {
    pub const FORMAT: &'static str = "%Y-%m-%dT%H:%M";

    /// `2026-11-23T19:00` (seconds, if any, are accepted and dropped).
    pub fn parse(s: &str) -> Result<LocalTime, chrono::ParseError> {
        let s = s.trim();
        NaiveDateTime::parse_from_str(s, Self::FORMAT)
            .or_else(|_| NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S"))
            .map(|t| LocalTime(t.with_second(0).unwrap_or(t)))
    }

    /// A match's time as a user sends it: `2026-11-23T19:00`, with seconds, with a space
    /// instead of `T`, or RFC 3339 with an offset (whose local time is kept); seconds are
    /// dropped. Its day must be within [`FIRST_DAY`]..=[`LAST_DAY`].
    pub fn parse_input(s: &str) -> Result<LocalTime, BadDate> {
        let s = s.trim();
        let t = DateTime::parse_from_rfc3339(s)
            .map(|t| t.naive_local())
            .or_else(|_| NaiveDateTime::parse_from_str(s, Self::FORMAT))
            .or_else(|_| NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S"))
            .or_else(|_| NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M"))
            .map_err(|_| BadDate::NotADate)?;
        check_day(t.date())?;
        Ok(LocalTime(
            t.with_second(0)
                .and_then(|t| t.with_nanosecond(0))
                .unwrap_or(t),
        ))
    }

    /// The time `minutes` later (earlier if negative), or `None` past what chrono holds (a
    /// stored time may be anything).
    pub fn checked_plus_minutes(self, minutes: i64) -> Option<LocalTime> {
        chrono::Duration::try_minutes(minutes)
            .and_then(|d| self.0.checked_add_signed(d))
            .map(LocalTime)
    }
}

/// The first day a user may name (see the module's documentation).
pub const FIRST_DAY: NaiveDate = match NaiveDate::from_ymd_opt(2000, 1, 1) {
    Some(d) => d,
    None => NaiveDate::MIN,
};

/// The last day a user may name.
pub const LAST_DAY: NaiveDate = match NaiveDate::from_ymd_opt(2100, 12, 31) {
    Some(d) => d,
    None => NaiveDate::MAX,
};

/// Why a date or time a user sent cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BadDate {
    /// Not a date (or time) in the expected shape, or no such day (`2026-02-30`).
    #[error("not a date")]
    NotADate,
    /// A real date, but before [`FIRST_DAY`] or after [`LAST_DAY`].
    #[error("a date between 2000-01-01 and 2100-12-31")]
    OutOfRange,
}

impl BadDate {
    /// What to tell the user: `shape` (how the field is written, with an example) for a value
    /// that is not a date, the range for one out of it.
    pub fn message(self, shape: &str) -> String {
        match self {
            BadDate::NotADate => shape.to_string(),
            BadDate::OutOfRange => format!("the date must be between {FIRST_DAY} and {LAST_DAY}"),
        }
    }
}

/// A day as a user types it, `YYYY-MM-DD`, within [`FIRST_DAY`]..=[`LAST_DAY`].
pub fn parse_day(s: &str) -> Result<NaiveDate, BadDate> {
    let day = NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d").map_err(|_| BadDate::NotADate)?;
    check_day(day)
}

/// `day` if a user may name it (also for a day computed from one: a later round).
pub fn check_day(day: NaiveDate) -> Result<NaiveDate, BadDate> {
    if (FIRST_DAY..=LAST_DAY).contains(&day) {
        Ok(day)
    } else {
        Err(BadDate::OutOfRange)
    }
}

impl fmt::Display for LocalTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.format(Self::FORMAT))
    }
}

/// Serde, sqlx and `FromStr` for a type stored as its `Display` text and read by `parse`.
macro_rules! stored_as_text {
    ($t:ty) => {
        impl std::str::FromStr for $t {
            type Err = chrono::ParseError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                <$t>::parse(s)
            }
        }

        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = String::deserialize(d)?;
                <$t>::parse(&text).map_err(serde::de::Error::custom)
            }
        }

        $crate::domain::text::sql_text!($t, String, |v| v.to_string(), |text| <$t>::parse(text));
    };
}

stored_as_text!(Timestamp);
stored_as_text!(LocalTime);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_text_round_trips() {
        let t = Timestamp::parse("2026-11-23T19:05:00Z").unwrap();
        assert_eq!(t.to_string(), "2026-11-23T19:05:00Z");
        let t = Timestamp::parse("2026-11-23T14:05:00-05:00").unwrap();
        assert_eq!(t.to_string(), "2026-11-23T19:05:00Z");
        let l = LocalTime::parse("2026-11-23T19:00").unwrap();
        assert_eq!(l.to_string(), "2026-11-23T19:00");
        assert_eq!(serde_json::to_string(&l).unwrap(), "\"2026-11-23T19:00\"");
        assert!(LocalTime::parse("next tuesday").is_err());
    }

    #[test]
    fn a_date_a_user_sends_is_bounded() {
        assert_eq!(parse_day(" 2026-11-24 ").unwrap().to_string(), "2026-11-24");
        assert_eq!(parse_day("2000-01-01"), Ok(FIRST_DAY));
        assert_eq!(parse_day("2100-12-31"), Ok(LAST_DAY));
        for out in [
            "1999-12-31",
            "2101-01-01",
            "-262143-01-01",
            "0000-01-01",
            "9999-12-31",
        ] {
            assert_eq!(parse_day(out), Err(BadDate::OutOfRange), "{out}");
        }
        for bad in [
            "",
            "yesterday",
            "2026-13-01",
            "2026-02-30",
            "2026-11-24T19:00",
        ] {
            assert_eq!(parse_day(bad), Err(BadDate::NotADate), "{bad}");
        }
        for (sent, kept) in [
            ("2026-11-24T19:00", "2026-11-24T19:00"),
            ("2026-11-24T19:00:59", "2026-11-24T19:00"),
            ("2026-11-24 19:00", "2026-11-24T19:00"),
            ("2026-11-24T19:00:00-05:00", "2026-11-24T19:00"),
            ("2100-12-31T23:59", "2100-12-31T23:59"),
        ] {
            assert_eq!(
                LocalTime::parse_input(sent).unwrap().to_string(),
                kept,
                "{sent}"
            );
        }
        for out in [
            "1999-12-31T23:59",
            "2101-01-01T00:00",
            "-262143-01-01T19:00",
            "0000-01-01T19:00",
            "9999-12-31T19:00",
        ] {
            assert_eq!(
                LocalTime::parse_input(out),
                Err(BadDate::OutOfRange),
                "{out}"
            );
        }
        assert_eq!(LocalTime::parse_input("soon"), Err(BadDate::NotADate));
        assert_eq!(
            BadDate::OutOfRange.message("YYYY-MM-DD"),
            "the date must be between 2000-01-01 and 2100-12-31"
        );
    }

    #[test]
    fn arithmetic_on_a_stored_time_never_overflows() {
        let last = Timestamp(DateTime::<Utc>::MAX_UTC);
        assert_eq!(last.plus_minutes(90), last);
        let first = Timestamp(DateTime::<Utc>::MIN_UTC);
        assert_eq!(first.plus_minutes(-90), first);
        assert_eq!(first.plus_minutes(i64::MAX), last);
        let t = Timestamp::parse("2026-11-23T19:05:00Z").unwrap();
        assert_eq!(t.plus_minutes(90).to_string(), "2026-11-23T20:35:00Z");
        assert_eq!(LocalTime(NaiveDateTime::MAX).checked_plus_minutes(1), None);
        assert_eq!(
            LocalTime::parse("2026-11-23T19:00")
                .unwrap()
                .checked_plus_minutes(15)
                .unwrap()
                .to_string(),
            "2026-11-23T19:15"
        );
    }
}
