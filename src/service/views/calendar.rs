//! Calendar feeds (RFC 5545) of a league's or a team's matches, as read models: one event per
//! match that has a time, whatever its status, each at its instant in UTC (the schedule is
//! written in the league's wall-clock time, [`LocalTime`]; the service's zone says which
//! instant that is). The web layer (`web::pages::public::calendar`) writes them as
//! iCalendar text.
//!
//! A subscriber's calendar follows a match by its UID (the match's id, so a moved match moves)
//! and takes a change when the SEQUENCE grows (the services bump `matches.sequence` at every
//! change of time, place, teams or status). A postponed match has no time, so it is not in
//! the feed until it gets a new one (with a greater SEQUENCE).

use crate::db::{Conn, Db};
use crate::domain::Slug;
use chrono::{Duration, LocalResult, Offset, TimeZone};
use chrono_tz::Tz;

use crate::db::leagues as db_leagues;
use crate::db::matches::{self as db_matches, MatchRow};
use crate::domain::{LocalTime, MatchId, MatchStatus, TeamId, Timestamp};
use crate::rules::Stage;
use crate::service::ServiceError;
use crate::service::term::leagues::{self, League};

/// How long an event lasts in a subscriber's calendar. A match has no fixed length (it runs
/// to the target score or to the time limit, if the rules have one); 90 minutes covers a
/// game to 300/500 with a time limit and is what a player blocks for an evening slot.
pub const MATCH_MINUTES: i64 = 90;

/// A calendar: its name and its events, made at `made_at` (each event's DTSTAMP).
#[derive(Debug, Clone)]
pub struct Feed {
    /// "Fall 2026", or "Team 1 · Fall 2026" for a team's.
    pub name: String,
    pub made_at: Timestamp,
    /// In schedule order.
    pub events: Vec<FeedEvent>,
}

/// A match as a calendar event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedEvent {
    pub id: MatchId,
    /// The instant of its scheduled time (in UTC).
    pub starts: Timestamp,
    /// [`MATCH_MINUTES`] later.
    pub ends: Timestamp,
    /// "Team 1 vs Team 2".
    pub summary: String,
    /// Where: its table, then the league's venue ("Table 3, Rec Center"; either alone).
    pub location: Option<String>,
    /// Called off (the event's STATUS is CANCELLED).
    pub cancelled: bool,
    /// `matches.sequence`.
    pub sequence: u32,
    /// The league's name, the stage (and round), and for a cancelled match why.
    pub description: String,
}

/// Every match of league `slug` that has a time.
#[tracing::instrument(skip_all, fields(slug = ?slug))]
pub async fn league_feed(db: &Db, slug: &Slug) -> Result<Feed, ServiceError> {
    // A read of its own: the page's handler holds no connection.
    let mut conn = db.read().await?;
    let conn: &mut Conn = &mut conn;
    let clock = db.clock();
    let league = leagues::league_by_slug(conn, slug).await?;
    let rows = db_matches::of_league(conn, league.row.id).await?;
    let events = events(conn, &league, &rows, clock.zone()).await?;
    Ok(Feed {
        name: league.row.name,
        made_at: clock.now(),
        events,
    })
}

/// Every match of team `id` that has a time (not found for no such team).
#[tracing::instrument(skip_all, fields(team_id = %id))]
pub async fn team_feed(db: &Db, id: TeamId) -> Result<Feed, ServiceError> {
    // A read of its own: the page's handler holds no connection.
    let mut conn = db.read().await?;
    let conn: &mut Conn = &mut conn;
    let clock = db.clock();
    let team = db_leagues::team(conn, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let row = db_leagues::by_id(conn, team.league_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let league = League::from_row(row)?;
    let rows = db_matches::of_team(conn, id).await?;
    let events = events(conn, &league, &rows, clock.zone()).await?;
    Ok(Feed {
        name: format!("{} · {}", team.name, league.row.name),
        made_at: clock.now(),
        events,
    })
}

/// The events of `rows` (matches of `league`) that have a time.
async fn events(
    conn: &mut Conn,
    league: &League,
    rows: &[MatchRow],
    zone: Tz,
) -> Result<Vec<FeedEvent>, ServiceError> {
    let dated: Vec<MatchRow> = rows
        .iter()
        .filter(|m| m.scheduled_at.is_some())
        .cloned()
        .collect();
    let summaries =
        crate::service::views::summaries::summaries_of(conn, league.row.id, &dated).await?;
    Ok(dated
        .iter()
        .zip(summaries)
        .filter_map(|(m, s)| {
            let starts = instant(m.scheduled_at?, zone);
            let cancelled = m.status == MatchStatus::Cancelled;
            let mut description = vec![league.row.name.clone(), stage_words(m.stage, m.round)];
            if cancelled {
                description.push(match &s.note {
                    Some(note) => format!("{}: {note}", s.state),
                    None => s.state.clone(),
                });
            }
            Some(FeedEvent {
                id: m.id,
                starts,
                ends: starts.plus_minutes(MATCH_MINUTES),
                summary: match &s.label {
                    // A bracket match by its name: "M5 · Semi-final: Aces vs Kings".
                    Some(label) => format!("{label}: {} vs {}", s.team_a.name, s.team_b.name),
                    None => format!("{} vs {}", s.team_a.name, s.team_b.name),
                },
                location: location(m.table_name.as_deref(), league.settings.venue.as_deref()),
                cancelled,
                sequence: u32::try_from(m.sequence).unwrap_or(0),
                description: description.join("\n"),
            })
        })
        .collect())
}

/// An event's place: the table, then the venue, as far as each is known.
fn location(table: Option<&str>, venue: Option<&str>) -> Option<String> {
    match (table, venue) {
        (Some(table), Some(venue)) => Some(format!("{table}, {venue}")),
        (one, other) => one.or(other).map(str::to_string),
    }
}

/// "Regular season, round 2", "Playoffs", "Final".
fn stage_words(stage: Stage, round: Option<i64>) -> String {
    let words = match stage {
        Stage::Regular => "Regular season",
        Stage::Playoff => "Playoffs",
        Stage::Final => "Final",
    };
    match round {
        Some(r) => format!("{words}, round {r}"),
        None => words.into(),
    }
}

/// The instant wall-clock time `t` of `zone` stands for, read as RFC 5545 (§3.3.5) reads a
/// local time: when the clocks go back and `t` happens twice, the first; when they go forward
/// and `t` never happens, with the offset in force before the gap (02:30 on the night New
/// York springs forward is 03:30 EDT, 07:30 UTC). Never panics: a time at the edge of what
/// chrono holds is read as UTC.
pub fn instant(t: LocalTime, zone: Tz) -> Timestamp {
    let utc = match zone.from_local_datetime(&t.0) {
        LocalResult::Single(at) | LocalResult::Ambiguous(at, _) => Some(at.naive_utc()),
        LocalResult::None => (1..=48)
            .filter_map(|h| t.0.checked_sub_signed(Duration::hours(h)))
            .find_map(|before| zone.offset_from_local_datetime(&before).earliest())
            .and_then(|offset| {
                let ahead = i64::from(offset.fix().local_minus_utc());
                t.0.checked_sub_signed(Duration::seconds(ahead))
            }),
    };
    Timestamp(chrono::Utc.from_utc_datetime(&utc.unwrap_or(t.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(local: &str, zone: Tz) -> String {
        instant(LocalTime::parse(local).unwrap(), zone).to_string()
    }

    #[test]
    fn local_times_become_instants_across_daylight_saving() {
        let ny = chrono_tz::America::New_York;
        // Winter (EST, UTC-5): 19:00 is midnight UTC, the next day.
        assert_eq!(utc("2026-11-24T19:00", ny), "2026-11-25T00:00:00Z");
        // Summer (EDT, UTC-4).
        assert_eq!(utc("2026-06-10T19:00", ny), "2026-06-10T23:00:00Z");
        // The gap (8 March 2026, 02:00 EST → 03:00 EDT): read with the offset before it.
        assert_eq!(utc("2026-03-08T02:30", ny), "2026-03-08T07:30:00Z");
        // The fold (1 November 2026, 01:00–02:00 twice): the first, in EDT.
        assert_eq!(utc("2026-11-01T01:30", ny), "2026-11-01T05:30:00Z");
        let london = chrono_tz::Europe::London;
        assert_eq!(utc("2026-03-29T01:30", london), "2026-03-29T01:30:00Z");
        assert_eq!(utc("2026-10-25T01:30", london), "2026-10-25T00:30:00Z");
        assert_eq!(utc("2026-11-24T19:00", Tz::UTC), "2026-11-24T19:00:00Z");
    }

    #[test]
    fn stages_in_words() {
        assert_eq!(
            stage_words(Stage::Regular, Some(2)),
            "Regular season, round 2"
        );
        assert_eq!(stage_words(Stage::Playoff, None), "Playoffs");
        assert_eq!(stage_words(Stage::Final, Some(1)), "Final, round 1");
    }
}
