//! Times as stored: instants in UTC (`2026-11-23T19:05:00Z`) and the wall-clock time a
//! match is scheduled at in the league's own time zone (`2026-11-23T19:00`). Both are stored
//! and sent as that exact text; pages format them with `web::view::time`.

use std::fmt;

use chrono::{DateTime, NaiveDateTime, SecondsFormat, Timelike, Utc};
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

    pub fn plus_minutes(self, minutes: i64) -> Timestamp {
        Timestamp(self.0 + chrono::Duration::minutes(minutes))
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

        stored_as_text!(@sql $t, sqlx::sqlite::Sqlite);
        stored_as_text!(@sql $t, sqlx::postgres::Postgres);
    };
    (@sql $t:ty, $db:ty) => {
        impl sqlx::Type<$db> for $t {
            fn type_info() -> <$db as sqlx::Database>::TypeInfo {
                <str as sqlx::Type<$db>>::type_info()
            }
            fn compatible(ty: &<$db as sqlx::Database>::TypeInfo) -> bool {
                <&str as sqlx::Type<$db>>::compatible(ty)
            }
        }

        impl<'q> sqlx::Encode<'q, $db> for $t {
            fn encode_by_ref(
                &self,
                buf: &mut <$db as sqlx::Database>::ArgumentBuffer,
            ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
                <String as sqlx::Encode<'q, $db>>::encode(self.to_string(), buf)
            }
        }

        impl<'r> sqlx::Decode<'r, $db> for $t {
            fn decode(
                value: <$db as sqlx::Database>::ValueRef<'r>,
            ) -> Result<Self, sqlx::error::BoxDynError> {
                let text = <&str as sqlx::Decode<'r, $db>>::decode(value)?;
                Ok(<$t>::parse(text)?)
            }
        }
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
}
