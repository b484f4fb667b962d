//! Notices by email (docs/api.md, "Notices by email"): players and supervisors hear that a
//! match moved, was postponed or cancelled, without checking the site.
//!
//! A change that causes a notice writes it in its own transaction ([`enqueue`]: one row per
//! address, in the `notices` outbox), so a notice exists exactly when its change was
//! committed; [`sender`] sends it after the commit, with retries, through the [`relay`].
//! Nothing is written when the service has no relay (`--smtp-url`): a relay added later
//! does not mail old news.

pub mod bracket;
pub mod events;
pub mod listing;
pub mod message;
pub mod password_mail;
pub mod relay;
pub mod sender;
pub mod subscriptions;

use crate::db::Conn;
use crate::db::matches::{MatchRow, Placement};
use crate::db::notices::{self as db_notices, NewNotice};
use crate::domain::{LeagueId, LocalTime, MatchStatus, TeamId, Timestamp};
use crate::service::ServiceError;

/// `path` of the service reached at `public_url`.
fn page(public_url: &url::Url, path: &str) -> String {
    format!("{}{path}", public_url.as_str().trim_end_matches('/'))
}

/// A token for an unsubscribe link: 128 random bits in hex.
pub fn new_token() -> String {
    crate::service::people::accounts::random_hex(16)
}

/// One event, to be told to the teams it concerns (and the league's supervisors).
pub struct Notice {
    pub league: LeagueId,
    /// `match_moved`, `match_postponed`, `match_cancelled`, ...
    pub event: &'static str,
    /// The same for every address and every retry of this event; [`enqueue`] adds the time
    /// of the change (a match id SQLite gave again after a delete starts its sequence again).
    pub key: String,
    pub teams: Vec<TeamId>,
    /// Whether the league's supervisors get it too (not for news of one team alone).
    pub supervisors: bool,
    pub subject: String,
    /// The message's paragraphs, plain; the HTML alternative escapes them.
    pub paragraphs: Vec<String>,
}

/// Writes `notice` for each of its addresses, in the caller's transaction; how many.
pub async fn enqueue(
    conn: &mut Conn,
    now: Timestamp,
    notice: &Notice,
) -> Result<usize, ServiceError> {
    let to = db_notices::recipients(conn, notice.league, &notice.teams, notice.supervisors).await?;
    let mut written = 0;
    for address in &to {
        if write_one(conn, now, notice, address).await? {
            written += 1;
        }
    }
    Ok(written)
}

/// Writes `notice` for the captains of its teams only (not their players, not the
/// supervisors), in the caller's transaction; how many.
pub async fn enqueue_to_captains(
    conn: &mut Conn,
    now: Timestamp,
    notice: &Notice,
) -> Result<usize, ServiceError> {
    let to = db_notices::captain_recipients(conn, notice.league, &notice.teams).await?;
    let mut written = 0;
    for address in &to {
        if write_one(conn, now, notice, address).await? {
            written += 1;
        }
    }
    Ok(written)
}

/// Writes `notice` for `address` alone; whether it was new (not written before for this
/// event and address).
async fn write_one(
    conn: &mut Conn,
    now: Timestamp,
    notice: &Notice,
    address: &str,
) -> Result<bool, ServiceError> {
    let key = format!("{}@{now}", notice.key);
    let text = notice.paragraphs.join("\n\n");
    let html: String = notice
        .paragraphs
        .iter()
        .map(|p| format!("<p>{}</p>", escape(p)))
        .collect();
    let row = NewNotice {
        league_id: notice.league,
        event: notice.event,
        event_key: &key,
        address,
        subject: &notice.subject,
        body_text: &text,
        body_html: &html,
    };
    Ok(db_notices::insert(conn, &row, now).await?)
}

/// A league night moved: the league, the two dates, each match moved with its new time
/// (its table stays), and why, where the coordinator said.
pub struct NightMoveNotice<'a> {
    pub league: &'a crate::db::leagues::LeagueRow,
    pub from: chrono::NaiveDate,
    pub to: chrono::NaiveDate,
    pub moved: &'a [(&'a MatchRow, LocalTime)],
    pub reason: Option<&'a str>,
}

/// The notices of a night moved: one message per person, listing every match of theirs it
/// moved (a supervisor of the league: every one), each with its new and old time and its
/// page, the reason quoted. How many were written.
pub async fn tell_night_moved(
    conn: &mut Conn,
    public_url: &url::Url,
    now: Timestamp,
    night: &NightMoveNotice<'_>,
) -> Result<usize, ServiceError> {
    let mut lines_of: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for (m, at) in night.moved {
        let a = events::team_name(conn, m.team_a).await?;
        let b = events::team_name(conn, m.team_b).await?;
        let line = format!(
            "{a} v {b}: now {}, {}. Was {}. {}",
            when(Some(*at)),
            m.table_name.as_deref().unwrap_or("no table yet"),
            when(m.scheduled_at),
            page(public_url, &format!("/matches/{}", m.id))
        );
        let to = db_notices::recipients(conn, m.league_id, &[m.team_a, m.team_b], true).await?;
        for address in to {
            lines_of.entry(address).or_default().push(line.clone());
        }
    }
    let day = |d: chrono::NaiveDate| d.format("%a %-d %b").to_string();
    let (from, to, league) = (day(night.from), day(night.to), &night.league.name);
    let mut written = 0;
    for (address, lines) in &lines_of {
        let mut paragraphs = vec![format!(
            "The league night of {from} moved to {to} ({league})."
        )];
        if let Some(reason) = night.reason.filter(|r| !r.trim().is_empty()) {
            paragraphs.push(format!("Why: \u{201c}{}\u{201d}", reason.trim()));
        }
        paragraphs.push(match lines.len() {
            1 => "Your match:".to_string(),
            n => format!("Your {n} matches:"),
        });
        paragraphs.extend(lines.iter().cloned());
        let notice = Notice {
            league: night.league.id,
            event: "night_moved",
            key: format!(
                "night_moved:{}:{}:{}",
                night.league.id, night.from, night.to
            ),
            teams: Vec::new(),
            supervisors: false,
            subject: format!("The league night of {from} moved to {to} · {league}"),
            paragraphs,
        };
        if write_one(conn, now, &notice, address).await? {
            written += 1;
        }
    }
    Ok(written)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A match's time in words, in the league's zone: "Thu 3 Dec, 19:00".
fn when(t: Option<LocalTime>) -> String {
    t.map_or_else(
        || "no time set".into(),
        |t| t.0.format("%a %-d %b, %H:%M").to_string(),
    )
}

/// The names a match notice uses: the league's, and the teams' after and before the change.
pub struct MatchNames {
    pub league: String,
    pub after: [String; 2],
    pub before: [String; 2],
}

/// The notice of a match `m` moved, postponed, cancelled or given other teams, to `after`
/// (by `reschedule`), why where the coordinator said; `None` when nothing the teams need to
/// know changed. It goes to the teams before and after the change.
pub fn match_changed(
    public_url: &url::Url,
    m: &MatchRow,
    after: &Placement<'_>,
    reason: Option<&str>,
    names: &MatchNames,
) -> Option<Notice> {
    let [a, b] = &names.after;
    let league = &names.league;
    let moved = after.scheduled_at != m.scheduled_at || after.table_name != m.table_name.as_deref();
    let reteamed = (after.team_a, after.team_b) != (m.team_a, m.team_b);
    let (event, headline) = match after.status {
        MatchStatus::Postponed if m.status != MatchStatus::Postponed => {
            ("match_postponed", format!("{a} v {b} is postponed"))
        }
        MatchStatus::Cancelled => ("match_cancelled", format!("{a} v {b} is cancelled")),
        // A playoff match placed for the first time is news, not a move.
        _ if moved && m.scheduled_at.is_none() => {
            ("match_moved", format!("{a} v {b} is scheduled"))
        }
        _ if moved => ("match_moved", format!("{a} v {b} has moved")),
        _ if reteamed => ("match_moved", format!("{a} v {b}: the teams changed")),
        _ => return None,
    };
    let mut paragraphs = vec![format!("{headline} ({league}).")];
    if reteamed {
        let [was_a, was_b] = &names.before;
        paragraphs.push(format!(
            "The match is now {a} v {b}. It was {was_a} v {was_b}."
        ));
    }
    if event == "match_moved" {
        paragraphs.push(format!(
            "Now: {}, {}. Was: {}, {}.",
            when(after.scheduled_at),
            after.table_name.unwrap_or("no table yet"),
            when(m.scheduled_at),
            m.table_name.as_deref().unwrap_or("no table")
        ));
    } else {
        paragraphs.push(format!("It was set for {}.", when(m.scheduled_at)));
    }
    if let Some(reason) = reason.filter(|r| !r.trim().is_empty()) {
        paragraphs.push(format!("Why: {reason}"));
    }
    paragraphs.push(format!(
        "The match: {}",
        page(public_url, &format!("/matches/{}", m.id))
    ));
    let mut teams = vec![m.team_a, m.team_b, after.team_a, after.team_b];
    teams.sort();
    teams.dedup();
    Some(Notice {
        league: m.league_id,
        event,
        // The match's calendar sequence after the change names this change.
        key: format!("{event}:{}:{}", m.id, m.sequence + 1),
        teams,
        supervisors: true,
        subject: format!("{headline} · {league}"),
        paragraphs,
    })
}

/// Writes the notice of match `m` changed to `after` (see [`match_changed`]), in the
/// caller's transaction.
pub async fn tell_match_changed(
    conn: &mut Conn,
    public_url: &url::Url,
    now: Timestamp,
    m: &MatchRow,
    after: &Placement<'_>,
    reason: Option<&str>,
) -> Result<(), ServiceError> {
    use crate::db::leagues as db_leagues;
    let league = db_leagues::by_id(conn, m.league_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let names = MatchNames {
        league: league.name,
        after: [
            events::team_name(conn, after.team_a).await?,
            events::team_name(conn, after.team_b).await?,
        ],
        before: [
            events::team_name(conn, m.team_a).await?,
            events::team_name(conn, m.team_b).await?,
        ],
    };
    let Some(notice) = match_changed(public_url, m, after, reason, &names) else {
        return Ok(());
    };
    enqueue(conn, now, &notice).await?;
    Ok(())
}
