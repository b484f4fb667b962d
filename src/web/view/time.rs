//! Times as every page shows them: a scheduled time in the league's own wall-clock time
//! ("Tue 24 Nov 2026, 19:00"), and an instant as a [`Stamp`] for a `<time>` element: on the
//! public pages in the league's wall-clock time, in the same format ([`in_zone`]), elsewhere
//! in UTC.

use crate::domain::{LocalTime, Timestamp};

/// A scheduled time: "Tue 24 Nov 2026, 19:00".
pub fn scheduled(t: LocalTime) -> String {
    t.0.format("%a %-d %b %Y, %H:%M").to_string()
}

/// The day of a scheduled time: "Tue 24 Nov 2026".
pub fn day(t: LocalTime) -> String {
    t.0.format("%a %-d %b %Y").to_string()
}

/// A wall-clock time in full, for a printed report: "24 November 2026, 19:00".
pub fn long(t: LocalTime) -> String {
    t.0.format("%-d %B %Y, %H:%M").to_string()
}

/// An instant for `<time datetime="{{ iso }}">{{ shown }}</time>`: in UTC ([`Stamp::of`], the admin's
/// pages) or in the league's zone ([`in_zone`], [`clock_in_zone`], the public pages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    /// As stored (RFC 3339, UTC).
    pub iso: String,
    /// "24 Nov 2026, 19:05 UTC", "Tue 24 Nov 2026, 14:05", "14:05".
    pub shown: String,
}

impl Stamp {
    pub fn of(t: Timestamp) -> Stamp {
        Stamp {
            iso: t.to_string(),
            shown: t.0.format("%-d %b %Y, %H:%M UTC").to_string(),
        }
    }
}

/// An instant as the public pages show it: in the league's zone `zone`, in the format of
/// [`scheduled`] ("Tue 24 Nov 2026, 14:05"), so a start time reads like the schedule.
pub fn in_zone(t: Timestamp, zone: chrono_tz::Tz) -> Stamp {
    Stamp {
        iso: t.to_string(),
        shown: scheduled(LocalTime(t.0.with_timezone(&zone).naive_local())),
    }
}

/// An instant of tonight as the scoreboard shows it: the time of day in the league's zone
/// `zone`, 24-hour as everywhere ("14:05").
pub fn clock_in_zone(t: Timestamp, zone: chrono_tz::Tz) -> Stamp {
    Stamp {
        iso: t.to_string(),
        shown: t.0.with_timezone(&zone).format("%H:%M").to_string(),
    }
}

/// [`Stamp::of`], for `Option::map`.
pub fn stamp(t: Timestamp) -> Stamp {
    Stamp::of(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_in_words() {
        let t = LocalTime::parse("2026-11-24T19:00").unwrap();
        assert_eq!(scheduled(t), "Tue 24 Nov 2026, 19:00");
        assert_eq!(day(t), "Tue 24 Nov 2026");
        assert_eq!(long(t), "24 November 2026, 19:00");
        let s = stamp(Timestamp::parse("2026-11-24T14:05:09-05:00").unwrap());
        assert_eq!(s.iso, "2026-11-24T19:05:09Z");
        assert_eq!(s.shown, "24 Nov 2026, 19:05 UTC");
        let t = Timestamp::parse("2026-11-24T05:54:00Z").unwrap();
        let local = in_zone(t, chrono_tz::America::New_York);
        assert_eq!(local.iso, "2026-11-24T05:54:00Z");
        assert_eq!(local.shown, "Tue 24 Nov 2026, 00:54");
        assert_eq!(
            clock_in_zone(t, chrono_tz::America::New_York).shown,
            "00:54"
        );
    }
}
