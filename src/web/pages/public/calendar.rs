//! `/leagues/{slug}/calendar.ics` and `/teams/{id}/calendar.ics`: a league's or a team's
//! matches as an iCalendar feed (RFC 5545) that a phone's calendar subscribes to.
//!
//! The `icalendar` crate writes the text: it escapes TEXT values (`\`, `,`, `;`, newlines)
//! and folds every content line at 75 octets, never inside a UTF-8 character. What it does
//! not do is handled here: a carriage return or another control character in a text (which
//! TEXT may not hold) is dropped or made a newline ([`text`]); its `Calendar::name` writes
//! RFC 7986 `NAME` unescaped, so only `X-WR-CALNAME` (escaped) names the calendar.

use crate::domain::Slug;
use std::fmt::Write;

use actix_web::{HttpResponse, get, web};
use icalendar::{Calendar, Component, Event, EventLike, EventStatus, Property};

use crate::domain::TeamId;
use crate::service::views::calendar::{self, Feed};
use crate::web::AppState;
use crate::web::error::{AppError, PageError};

/// How often a subscriber should fetch the feed again.
const REFRESH: chrono::Duration = chrono::Duration::hours(1);

#[get("/leagues/{slug}/calendar.ics")]
pub(super) async fn league_calendar(
    state: web::Data<AppState>,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, PageError> {
    let feed = calendar::league_feed(&state.db, &slug).await?;
    Ok(answer(&feed)?)
}

#[get("/teams/{id}/calendar.ics")]
pub(super) async fn team_calendar(
    state: web::Data<AppState>,
    id: web::Path<TeamId>,
) -> Result<HttpResponse, PageError> {
    let feed = calendar::team_feed(&state.db, id.into_inner()).await?;
    Ok(answer(&feed)?)
}

fn answer(feed: &Feed) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok()
        .content_type("text/calendar; charset=utf-8")
        .body(ics(feed)?))
}

/// The stable UID of a match's event: the same whatever changes, so a moved match moves.
pub fn uid(id: crate::domain::MatchId) -> String {
    format!("match-{id}@spades-im")
}

/// `feed` as iCalendar text (CRLF line ends, lines folded at 75 octets).
pub fn ics(feed: &Feed) -> Result<String, AppError> {
    let mut cal = Calendar::empty();
    cal.append_property(("VERSION", "2.0"))
        .append_property(("PRODID", "-//spades-im//match calendar//EN"))
        .append_property(("CALSCALE", "GREGORIAN"))
        .append_property(("METHOD", "PUBLISH"))
        .append_property(Property::new("X-WR-CALNAME", text(&feed.name)))
        .ttl(&REFRESH);
    for e in &feed.events {
        let mut event = Event::with_uid(&uid(e.id));
        event
            .timestamp(feed.made_at.0)
            .starts(e.starts.0)
            .ends(e.ends.0)
            .summary(&text(&e.summary))
            .description(&text(&e.description))
            .sequence(e.sequence)
            .status(if e.cancelled {
                EventStatus::Cancelled
            } else {
                EventStatus::Confirmed
            });
        if let Some(place) = &e.location {
            event.location(&text(place));
        }
        cal.push(event.done());
    }
    let mut out = String::new();
    write!(out, "{cal}").map_err(|e| AppError::Internal(format!("calendar: {e}")))?;
    Ok(out)
}

/// `s` as TEXT may hold it before escaping: line ends as `\n` (which the crate escapes), no
/// other control character but a tab.
fn text(s: &str) -> String {
    s.replace("\r\n", "\n")
        .replace('\r', "\n")
        .chars()
        .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{MatchId, Timestamp};
    use crate::service::views::calendar::FeedEvent;

    fn feed(name: &str, summary: &str, description: &str) -> Feed {
        let at = Timestamp::parse("2026-11-25T00:00:00Z").unwrap();
        Feed {
            name: name.into(),
            made_at: Timestamp::parse("2026-11-20T12:00:00Z").unwrap(),
            events: vec![FeedEvent {
                id: MatchId(7),
                starts: at,
                ends: at.plus_minutes(90),
                summary: summary.into(),
                location: Some("Table 1".into()),
                cancelled: true,
                sequence: 3,
                description: description.into(),
            }],
        }
    }

    #[test]
    fn escapes_folds_and_ends_lines_with_crlf() {
        let long = "The Thursday Night Intramural Spades League of the Graduate Student Union";
        let text = ics(&feed(
            long,
            "Aces, Kings; Co. vs Back\\slash",
            "line one\r\nline two\u{7}",
        ))
        .unwrap();
        assert!(text.starts_with("BEGIN:VCALENDAR\r\n"), "{text}");
        assert!(text.ends_with("END:VCALENDAR\r\n"), "{text}");
        for line in text.split("\r\n") {
            assert!(line.len() <= 75, "{line:?} is {} octets", line.len());
            assert!(!line.contains('\n') && !line.contains('\r'), "{line:?}");
        }
        let unfolded = text.replace("\r\n ", "");
        assert!(
            unfolded.contains(&format!("\r\nX-WR-CALNAME:{long}\r\n")),
            "{text}"
        );
        assert!(
            unfolded.contains("\r\nSUMMARY:Aces\\, Kings\\; Co. vs Back\\\\slash\r\n"),
            "{text}"
        );
        assert!(
            unfolded.contains("\r\nDESCRIPTION:line one\\nline two\r\n"),
            "{text}"
        );
        assert!(unfolded.contains("\r\nUID:match-7@spades-im\r\n"));
        assert!(unfolded.contains("\r\nDTSTART:20261125T000000Z\r\n"));
        assert!(unfolded.contains("\r\nDTEND:20261125T013000Z\r\n"));
        assert!(unfolded.contains("\r\nDTSTAMP:20261120T120000Z\r\n"));
        assert!(unfolded.contains("\r\nSTATUS:CANCELLED\r\n"));
        assert!(unfolded.contains("\r\nSEQUENCE:3\r\n"));
        assert!(unfolded.contains("\r\nLOCATION:Table 1\r\n"));
    }
}
