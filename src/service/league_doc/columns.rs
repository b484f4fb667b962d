//! What each column of a league document may hold: the same typed readers the service uses
//! for the same data (a name is checked as `TeamName::new` checks it, a time read as the
//! store reads it, a status as one of its names), column by column. A column of a league
//! table that has no rule here is refused, and a test holds that every column the
//! migrations make has one.

use serde_json::Value;

use crate::domain::name::{Lines, NAME_MAX, check_text};
use crate::domain::{ForfeitSide, GameStatus, LocalTime, MatchStatus, StudentId, TextEnum};
use crate::domain::{Timestamp, UnknownValue};
use crate::league::bracket::{Format, GrandFinal, Section};
use crate::rules::{Stage, Team, WinReason};
use crate::service::text::{REASON_MAX, TABLE_MAX};

/// The largest count a document's number may hold (versions, hand numbers, scores): far
/// beyond any league, far below what would overflow a sum on a page.
pub const COUNT_MAX: i64 = 1_000_000;

/// How one column is read.
#[derive(Debug, Clone, Copy)]
pub enum Rule {
    /// An id or a reference: the import maps it (an integer, a username for a user).
    Key,
    /// 0 or 1.
    Flag,
    /// An integer from `min` to `max`.
    Int {
        min: i64,
        max: i64,
        null: bool,
    },
    /// Text as the service stores it: checked, and normalized (`blank`: may be empty).
    Text {
        max: usize,
        lines: Lines,
        null: bool,
        blank: bool,
    },
    /// An instant (UTC, as stored).
    Instant {
        null: bool,
    },
    /// A local date and time (a schedule's).
    Local {
        null: bool,
    },
    /// One of an enum's names.
    Word {
        read: fn(&str) -> Result<(), UnknownValue>,
        null: bool,
    },
    StudentId,
    Email,
    /// JSON text (what it must say is checked with the row: rules, settings, a hand).
    Json {
        null: bool,
    },
    /// An audit entry's action: a short lower-case word (`record_hand`).
    Action,
    /// Text kept as recorded (an audit entry's value before and after: JSON or words): no
    /// control character but line breaks and tabs, at most `max` characters.
    Recorded {
        max: usize,
    },
}

const fn name() -> Rule {
    Rule::Text {
        max: NAME_MAX,
        lines: Lines::One,
        null: false,
        blank: false,
    }
}

const fn reason(null: bool) -> Rule {
    Rule::Text {
        max: REASON_MAX,
        lines: Lines::Many,
        null,
        blank: false,
    }
}

const fn count(min: i64, null: bool) -> Rule {
    Rule::Int {
        min,
        max: COUNT_MAX,
        null,
    }
}

fn read<T: TextEnum>(s: &str) -> Result<(), UnknownValue> {
    T::parse(s).map(drop)
}

const fn word(read: fn(&str) -> Result<(), UnknownValue>, null: bool) -> Rule {
    Rule::Word { read, null }
}

const INSTANT: Rule = Rule::Instant { null: false };
const MAYBE_INSTANT: Rule = Rule::Instant { null: true };

/// The rule of `column` of `table`, if it is a column a document may hold.
pub fn rule(table: &str, column: &str) -> Option<Rule> {
    use Rule::{Flag, Json, Key};
    Some(match (table, column) {
        (_, "id" | "league_id") => Key,
        ("leagues", "slug") => Rule::Text {
            max: 100,
            lines: Lines::One,
            null: false,
            blank: false,
        },
        ("leagues" | "divisions" | "teams" | "players", "name") => name(),
        ("leagues", "rules_regular" | "rules_playoff" | "rules_final" | "settings") => {
            Json { null: false }
        }
        ("leagues", "tiebreak_order") => Rule::Text {
            max: 200,
            lines: Lines::One,
            null: false,
            blank: false,
        },
        ("leagues", "archived") => Flag,
        (_, "created_at" | "recorded_at" | "set_at" | "at") => INSTANT,
        ("teams", "division_id") => Key,
        // The two names a team was made with before rosters (kept, may be empty).
        ("teams", "player1" | "player2") => Rule::Text {
            max: NAME_MAX,
            lines: Lines::One,
            null: false,
            blank: true,
        },
        ("teams", "withdrawn") | ("players", "captain" | "active") => Flag,
        ("teams", "dropped_reason") => reason(true),
        ("teams", "checked_in_at") => MAYBE_INSTANT,
        ("players", "team_id") => Key,
        ("players", "student_id") => Rule::StudentId,
        ("players", "email") => Rule::Email,
        ("league_supervisors", "user_id") => Key,
        ("matches", _) => match_column(column)?,
        ("swiss_rounds", "bye_team_id") => Key,
        ("swiss_rounds", "round") => count(1, false),
        ("swiss_rounds", "paired_at") => INSTANT,
        ("hands", "match_id" | "recorded_by") => Key,
        ("hands", "number" | "revision") => count(1, false),
        ("hands", "hand") => Json { null: false },
        ("hands", "reason") => reason(true),
        ("lineups", "match_id" | "seat1" | "seat2" | "set_by") => Key,
        ("lineups", "team") => word(read::<Team>, false),
        ("lineups", "from_hand") => count(1, false),
        ("rating_notes", "match_id" | "author_id") => Key,
        ("rating_notes", "note") => reason(false),
        ("eligibility_overrides", "team_id" | "set_by") => Key,
        ("eligibility_overrides", "eligible") => Flag,
        ("eligibility_overrides" | "player_eligibility_overrides", "reason") => reason(false),
        ("player_eligibility_overrides", "player_id" | "set_by") => Key,
        ("brackets", _) => bracket_column(column)?,
        ("bracket_seeds", "bracket_id" | "team_id") => Key,
        ("bracket_seeds", "seed") => count(1, false),
        ("bracket_matches", "bracket_id" | "match_id") => Key,
        ("bracket_matches", "match_index" | "round" | "position") => count(0, false),
        ("bracket_matches", "section") => word(read::<Section>, false),
        ("bracket_matches", "seed_a" | "seed_b") => count(1, true),
        ("audit_log", _) => audit_column(column)?,
        _ => return None,
    })
}

fn match_column(column: &str) -> Option<Rule> {
    use Rule::Key;
    Some(match column {
        "team_a" | "team_b" | "supervisor_id" => Key,
        "stage" => word(read::<Stage>, false),
        "round" => count(1, true),
        "table_name" => Rule::Text {
            max: TABLE_MAX,
            lines: Lines::One,
            null: true,
            blank: false,
        },
        "scheduled_at" => Rule::Local { null: true },
        "status" => word(read::<MatchStatus>, false),
        "started_at" | "time_called_at" | "checked_in_a" | "checked_in_b" | "called_at" => {
            MAYBE_INSTANT
        }
        "rules" => Rule::Json { null: true },
        "forfeit" => word(read::<ForfeitSide>, true),
        "defaulted" => Rule::Flag,
        "version" | "hands_played" | "sequence" | "bags_a" | "bags_b" => count(0, false),
        "score_a" | "score_b" => Rule::Int {
            min: -COUNT_MAX,
            max: COUNT_MAX,
            null: false,
        },
        "game_status" => word(read::<GameStatus>, false),
        "winner" => word(read::<Team>, true),
        "reason" => word(read::<WinReason>, true),
        "status_note" => reason(true),
        "rating_a" | "rating_b" => Rule::Int {
            min: 0,
            max: 100,
            null: true,
        },
        _ => return None,
    })
}

fn bracket_column(column: &str) -> Option<Rule> {
    Some(match column {
        "format" => word(read::<Format>, false),
        "teams" => count(2, false),
        "third_place" => Rule::Flag,
        "grand_final" => word(read::<GrandFinal>, false),
        "results" => Rule::Text {
            max: 10_000,
            lines: Lines::One,
            null: true,
            blank: false,
        },
        "seeding_words" => reason(true),
        _ => return None,
    })
}

fn audit_column(column: &str) -> Option<Rule> {
    use Rule::Key;
    Some(match column {
        "user_id" | "entity_id" | "match_id" | "imported_by" => Key,
        "action" => Rule::Action,
        "entity" => Rule::Text {
            max: 20,
            lines: Lines::One,
            null: false,
            blank: false,
        },
        "before" | "after" => Rule::Recorded { max: 100_000 },
        "reason" => reason(true),
        "imported_at" => MAYBE_INSTANT,
        "imported_user" => Rule::Text {
            max: 100,
            lines: Lines::One,
            null: true,
            blank: false,
        },
        // A captain's name and team ("Kim Lee, captain of Aces").
        "captain" => Rule::Text {
            max: 200,
            lines: Lines::One,
            null: true,
            blank: false,
        },
        _ => return None,
    })
}

/// What is wrong with `value` under `rule`, or the text to store instead (normalized);
/// `Ok(None)`: keep it as it is.
pub fn read_value(rule: Rule, value: &Value) -> Result<Option<String>, String> {
    if value.is_null() {
        return if nullable(rule) {
            Ok(None)
        } else {
            Err("must not be null".into())
        };
    }
    match rule {
        Rule::Key => match value {
            Value::Number(n) if n.is_i64() => Ok(None),
            Value::String(s) if s.len() <= 100 => Ok(None),
            _ => Err("must be an id".into()),
        },
        Rule::Flag => match value.as_i64() {
            Some(0 | 1) => Ok(None),
            _ => Err("must be 0 or 1".into()),
        },
        Rule::Int { min, max, .. } => match value.as_i64() {
            Some(n) if (min..=max).contains(&n) => Ok(None),
            _ => Err(format!("must be a whole number from {min} to {max}")),
        },
        _ => {
            let Value::String(text) = value else {
                return Err("must be text".into());
            };
            read_text(rule, text)
        }
    }
}

fn nullable(rule: Rule) -> bool {
    match rule {
        Rule::Key => true,
        Rule::Int { null, .. }
        | Rule::Text { null, .. }
        | Rule::Instant { null }
        | Rule::Local { null }
        | Rule::Word { null, .. }
        | Rule::Json { null } => null,
        Rule::StudentId | Rule::Email | Rule::Recorded { .. } => true,
        Rule::Flag | Rule::Action => false,
    }
}

fn read_text(rule: Rule, text: &str) -> Result<Option<String>, String> {
    match rule {
        Rule::Text {
            max, lines, blank, ..
        } => match check_text(text, max, lines) {
            Err(bad) => Err(crate::service::text::words_of(bad, max)),
            Ok(None) if blank => Ok((!text.is_empty()).then(String::new)),
            Ok(None) => Err("must not be blank".into()),
            Ok(Some(stored)) => Ok((stored != text).then_some(stored)),
        },
        Rule::Instant { .. } => Timestamp::parse(text)
            .map(|_| None)
            .map_err(|_| "must be a time as the export writes it (2026-09-14T19:00:00Z)".into()),
        Rule::Local { .. } => LocalTime::parse(text)
            .map(|_| None)
            .map_err(|_| "must be a local time as the export writes it (2026-09-14T19:00)".into()),
        Rule::Word { read, .. } => read(text).map(|_| None).map_err(|e| e.to_string()),
        Rule::StudentId => StudentId::new(text)
            .map(|id| (id.as_str() != text).then(|| id.as_str().to_string()))
            .map_err(|bad| bad.to_string()),
        Rule::Email => crate::service::people::players::check_email(Some(text), "email")
            .map(|stored| stored.filter(|s| s != text))
            .map_err(|e| e.to_string()),
        Rule::Json { .. } => serde_json::from_str::<Value>(text)
            .map(|_| None)
            .map_err(|_| "must be JSON text".into()),
        Rule::Action => {
            let ok = (1..=60).contains(&text.len())
                && text
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if ok {
                Ok(None)
            } else {
                Err("must be an action's name: 1 to 60 lower-case letters, digits or _".into())
            }
        }
        Rule::Recorded { max } => {
            if text.chars().count() > max {
                Err(format!("must be at most {max} characters"))
            } else if let Some(c) = text
                .chars()
                .find(|&c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
            {
                Err(format!("contains a control character (U+{:04X})", c as u32))
            } else {
                Ok(None)
            }
        }
        Rule::Key | Rule::Flag | Rule::Int { .. } => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::db::Db;
    use crate::db::league_doc::{self as db_doc, LEAGUE, TABLES};
    use crate::domain::ManualTime;

    /// A column a migration adds to a league table is read by a rule of its own, or every
    /// document holding it would be refused: the schema and the rules are held together.
    #[actix_web::test]
    async fn every_column_of_a_league_table_has_a_rule() {
        let dir = tempfile::tempdir().unwrap();
        let clock = crate::domain::Clock::new(
            std::sync::Arc::new(ManualTime::starting_at(chrono::Utc::now())),
            chrono_tz::UTC,
        );
        let db = Db::open_file(&dir.path().join("t.sqlite3"), clock)
            .await
            .unwrap();
        let mut conn = db.read().await.unwrap();
        let mut missing = Vec::new();
        for table in TABLES.iter().chain([&LEAGUE]) {
            for (column, _) in db_doc::columns(&mut conn, table.name).await.unwrap() {
                if rule(table.name, &column).is_none() {
                    missing.push(format!("{}.{column}", table.name));
                }
            }
        }
        assert!(missing.is_empty(), "no rule for {missing:?}");
    }

    #[test]
    fn a_value_is_read_by_its_rule() {
        let read = |table, column, value: Value| read_value(rule(table, column).unwrap(), &value);
        assert_eq!(
            read("teams", "name", "  Ａｃｅｓ ".into()),
            Ok(Some("Aces".into()))
        );
        assert_eq!(read("teams", "name", "Aces".into()), Ok(None));
        assert!(read("teams", "name", "A\u{202E}ces".into()).is_err());
        assert!(read("teams", "name", Value::Null).is_err());
        assert_eq!(
            read("players", "student_id", "s-12".into()),
            Ok(Some("S-12".into()))
        );
        assert!(read("matches", "status", "paused".into()).is_err());
        assert!(read("matches", "score_a", i64::MAX.into()).is_err());
        assert!(read("matches", "started_at", "soon".into()).is_err());
        assert_eq!(read("matches", "started_at", Value::Null), Ok(None));
        assert!(read("leagues", "archived", 2.into()).is_err());
        assert!(read("audit_log", "action", "Drop table".into()).is_err());
        assert!(read("audit_log", "after", "{\"a\":\u{0}}".into()).is_err());
        assert_eq!(
            read("audit_log", "after", "3 matches\nmoved".into()),
            Ok(None)
        );
        assert!(rule("matches", "colour").is_none());
    }
}
