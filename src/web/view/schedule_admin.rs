//! The coordinator's schedule page (`/admin/leagues/{slug}/schedule`, its handler in
//! `web/pages/admin/schedule_page.rs`) as its template shows it: the matches grouped by
//! league night, each line with its forms' values (what was typed, after a refused form),
//! the window of nights shown in full in a large league, and the words of its headings and
//! summaries. Also the forms of a match and of a night as they are posted and shown back.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use chrono::NaiveDate;
use serde::Deserialize;

use crate::domain::words::{self, plural};
use crate::domain::{LocalTime, MatchId, MatchStatus, TextEnum, parse_day};
use crate::rules::Stage;
use crate::service::term::admin_schedule::{ScheduleAdmin, ScheduleMatch};
use crate::web::view::time;

/// A match's change form as typed. A field the form does not show (a started match shows
/// only the table) is absent and left as it is.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ChangeForm {
    #[serde(default)]
    pub expected_version: String,
    #[serde(default)]
    pub scheduled_at: Option<String>,
    #[serde(default)]
    pub table: Option<String>,
    #[serde(default)]
    pub team_a: Option<String>,
    #[serde(default)]
    pub team_b: Option<String>,
    /// The username of the supervisor it is given; empty for none.
    #[serde(default)]
    pub supervisor: Option<String>,
}

/// Postponing or cancelling: why, and the version the page showed.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct CallOffForm {
    #[serde(default)]
    pub expected_version: String,
    #[serde(default)]
    pub reason: String,
    /// `1` from the cancel's confirmation page: a cancel without it is only asked about.
    #[serde(default)]
    pub confirm: String,
}

/// "Move this night to…": the night, the new date, the group of the page the form is in;
/// from the preview also `confirm=1` and `seen` (what the preview listed).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct MoveForm {
    #[serde(default)]
    pub from: String,
    #[serde(default)]
    pub to: String,
    #[serde(default)]
    pub group: String,
    #[serde(default)]
    pub confirm: String,
    #[serde(default)]
    pub seen: String,
    /// Why the night moves (optional): the notices quote it.
    #[serde(default)]
    pub reason: String,
}

/// One choice of a team list.
pub struct TeamOption {
    pub id: String,
    pub name: String,
}

/// What a match's change form shows.
pub struct Values {
    pub version: i64,
    pub scheduled_at: String,
    pub table: String,
    pub team_a: String,
    pub team_b: String,
    pub supervisor: String,
}

pub struct Line {
    pub id: MatchId,
    /// The change form's name (and id); the call-off form is `{key}-off`.
    pub key: String,
    pub off_key: String,
    pub when: String,
    pub teams: String,
    pub round: String,
    pub table_words: String,
    pub status_words: String,
    pub status_class: &'static str,
    /// Not cancelled: some change is still possible.
    pub editable: bool,
    /// Started or over: only the table changes.
    pub started: bool,
    /// Regular season and not started: the teams may change.
    pub teams_editable: bool,
    pub can_postpone: bool,
    pub can_cancel: bool,
    /// Never started: "Delete" is offered (the service refuses, in words, a match that has
    /// begun in another way: a check-in, a lineup, a place in the bracket).
    pub can_delete: bool,
    pub values: Values,
    /// A team of the match no longer active (withdrawn): kept as a choice of its list.
    pub extra_a: Option<TeamOption>,
    pub extra_b: Option<TeamOption>,
    pub reason: String,
    pub off_open: bool,
    /// After a conflict: what the coordinator had typed, shown next to the current values.
    pub typed_note: Option<String>,
    pub highlight: bool,
}

pub struct MoveBox {
    pub key: String,
    pub from: String,
    pub to: String,
    pub open: bool,
}

pub struct Group {
    pub id: String,
    pub title: String,
    pub summary: String,
    /// "Move this night to…" (a night with a match waiting to be played).
    pub moving: Option<MoveBox>,
    /// The add-match form's pre-filled time for this night.
    pub add_at: Option<String>,
    pub lines: Vec<Line>,
    /// Not shown in full: what `?show=` shows it, and how many matches it has.
    pub hidden: Option<(String, usize)>,
    /// A regular-season night's active teams with no match that night (a bye), by name.
    pub byes: Vec<String>,
}

/// The active teams (`teams`) with no match among `night` (cancelled ones aside), when the
/// night is of the regular season: its byes. None for a playoff night.
fn byes(night: &[&ScheduleMatch], teams: &[TeamOption]) -> Vec<String> {
    if night.iter().any(|m| m.stage != Stage::Regular) {
        return Vec::new();
    }
    let playing: HashSet<String> = night
        .iter()
        .filter(|m| m.status != MatchStatus::Cancelled)
        .flat_map(|m| [m.team_a.id.to_string(), m.team_b.id.to_string()])
        .collect();
    teams
        .iter()
        .filter(|t| !playing.contains(&t.id))
        .map(|t| t.name.clone())
        .collect()
}

pub struct Part {
    pub id: &'static str,
    pub title: &'static str,
    pub groups: Vec<Group>,
}

/// A generation form's values.
pub struct GenValues {
    pub start_date: String,
    pub time: String,
    pub days_between: String,
    pub understand: bool,
    /// The blackout nights as typed.
    pub blackouts: String,
    /// `division` for a round robin within each division; else within the league.
    pub within: String,
}

/// A choice of a match form's stage list: its value, its label, and whether it was typed.
pub struct StageOption {
    pub value: &'static str,
    pub label: &'static str,
    pub selected: bool,
}

/// A match form's stage list (the league page's and the schedule page's), with the one
/// `typed` selected.
pub fn stage_options(typed: &str) -> Vec<StageOption> {
    let typed_stage = Stage::parse(typed).ok();
    [
        (Stage::Regular, "Regular season"),
        (Stage::Playoff, "Playoff"),
        (Stage::Final, "Final"),
    ]
    .into_iter()
    .map(|(stage, label)| StageOption {
        value: stage.as_str(),
        label,
        selected: typed_stage == Some(stage),
    })
    .collect()
}

/// "Tue 24 Nov" (a night in a message).
pub fn short_day(d: NaiveDate) -> String {
    d.format("%a %-d %b").to_string()
}

/// "Tue 24 Nov 2026" (a night's heading).
pub fn long_day(d: NaiveDate) -> String {
    d.format("%a %-d %b %Y").to_string()
}

pub fn status_words(m: &ScheduleMatch) -> (String, &'static str) {
    let note = m.status_note.as_deref().unwrap_or("no reason given");
    match m.status {
        MatchStatus::Scheduled if m.scheduled_at.is_none() => {
            ("Not yet scheduled".into(), "unscheduled")
        }
        MatchStatus::Scheduled => ("Scheduled".into(), "scheduled"),
        MatchStatus::Postponed => (format!("Postponed: {note}"), "postponed"),
        MatchStatus::Cancelled => (format!("Cancelled: {note}"), "cancelled"),
        MatchStatus::InProgress => (
            format!(
                "In progress, {} – {}",
                words::points(m.score_a),
                words::points(m.score_b)
            ),
            "in-progress",
        ),
        MatchStatus::Complete => (
            format!(
                "Complete, {} – {}",
                words::points(m.score_a),
                words::points(m.score_b)
            ),
            "complete",
        ),
        MatchStatus::Forfeit => (
            format!(
                "Forfeit, {} – {}",
                words::points(m.score_a),
                words::points(m.score_b)
            ),
            "forfeit",
        ),
    }
}

fn current_values(m: &ScheduleMatch) -> Values {
    Values {
        version: m.version,
        scheduled_at: m.scheduled_at.map(|t| t.to_string()).unwrap_or_default(),
        table: m.table.clone().unwrap_or_default(),
        team_a: m.team_a.id.to_string(),
        team_b: m.team_b.id.to_string(),
        supervisor: m.supervisor.clone().unwrap_or_default(),
    }
}

/// What a change form had typed, in words (quoted next to the current values after a
/// conflict).
fn typed_words(form: &ChangeForm, teams: &[TeamOption], m: &ScheduleMatch) -> String {
    let name = |id: &str| {
        teams
            .iter()
            .find(|t| t.id == id.trim())
            .map(|t| t.name.clone())
            .or_else(|| {
                [&m.team_a, &m.team_b]
                    .into_iter()
                    .find(|t| t.id.to_string() == id.trim())
                    .map(|t| t.name.clone())
            })
            .unwrap_or_else(|| id.to_string())
    };
    let mut parts = Vec::new();
    if let Some(at) = &form.scheduled_at {
        parts.push(match LocalTime::parse(at) {
            Ok(t) => time::scheduled(t),
            Err(_) if at.trim().is_empty() => "no time".into(),
            Err(_) => at.trim().to_string(),
        });
    }
    if let Some(table) = &form.table {
        parts.push(if table.trim().is_empty() {
            "no table".into()
        } else {
            table.trim().to_string()
        });
    }
    if let (Some(a), Some(b)) = (&form.team_a, &form.team_b) {
        parts.push(format!("{} v {}", name(a), name(b)));
    }
    if let Some(s) = form.supervisor.as_deref().map(str::trim) {
        parts.push(if s.is_empty() {
            "no supervisor".into()
        } else {
            format!("supervisor {s}")
        });
    }
    format!(
        "You had typed: {}. Not saved: check the current values and save again if it still applies.",
        parts.join(", ")
    )
}

fn line(m: &ScheduleMatch, dated: bool, cx: &Context<'_>) -> Line {
    let (status_words, status_class) = status_words(m);
    let started = !m.status.is_unstarted() && m.status != MatchStatus::Cancelled;
    let mut values = current_values(m);
    let mut typed_note = None;
    if let Some((id, form)) = cx.change
        && *id == m.id
    {
        if cx.conflict {
            typed_note = Some(typed_words(form, cx.teams, m));
        } else {
            if let Some(at) = &form.scheduled_at {
                values.scheduled_at = at.clone();
            }
            if let Some(table) = &form.table {
                values.table = table.clone();
            }
            if let Some(a) = &form.team_a {
                values.team_a = a.clone();
            }
            if let Some(b) = &form.team_b {
                values.team_b = b.clone();
            }
            if let Some(s) = &form.supervisor {
                values.supervisor = s.clone();
            }
        }
    }
    let (reason, off_open) = match cx.call_off {
        Some((id, form)) if *id == m.id => (form.reason.clone(), true),
        _ => (String::new(), false),
    };
    let extra = |t: &crate::service::TeamRef| {
        let id = t.id.to_string();
        (!cx.teams.iter().any(|o| o.id == id)).then(|| TeamOption {
            id,
            name: format!("{} (withdrawn)", t.name),
        })
    };
    let unstarted = m.status.is_unstarted();
    Line {
        id: m.id,
        key: format!("m{}", m.id),
        off_key: format!("m{}-off", m.id),
        when: match m.scheduled_at {
            Some(t) if dated => t.0.format("%H:%M").to_string(),
            Some(t) => time::scheduled(t),
            None => "no time yet".into(),
        },
        teams: format!("{} v {}", m.team_a.name, m.team_b.name),
        round: match &m.label {
            Some(label) => label.clone(),
            None => m.round.map(|r| format!("round {r}")).unwrap_or_default(),
        },
        table_words: m.table.clone().unwrap_or_else(|| "no table".into()),
        status_words,
        status_class,
        editable: m.status != MatchStatus::Cancelled,
        started,
        teams_editable: unstarted && m.stage == Stage::Regular,
        can_postpone: m.status == MatchStatus::Scheduled,
        can_cancel: unstarted && m.stage == Stage::Regular,
        can_delete: unstarted || m.status == MatchStatus::Cancelled,
        values,
        extra_a: extra(&m.team_a),
        extra_b: extra(&m.team_b),
        reason,
        off_open,
        typed_note,
        highlight: cx.highlight == Some(m.id),
    }
}

/// A group's summary: "4 matches: 1 complete, 1 cancelled".
fn group_summary(matches: &[&ScheduleMatch]) -> String {
    let count = |f: &dyn Fn(&ScheduleMatch) -> bool| matches.iter().filter(|m| f(m)).count();
    let done = count(&|m| matches!(m.status, MatchStatus::Complete | MatchStatus::Forfeit));
    let playing = count(&|m| m.status == MatchStatus::InProgress);
    let cancelled = count(&|m| m.status == MatchStatus::Cancelled);
    let mut parts = Vec::new();
    if done > 0 {
        parts.push(format!("{done} played"));
    }
    if playing > 0 {
        parts.push(format!("{playing} in progress"));
    }
    if cancelled > 0 {
        parts.push(format!("{cancelled} cancelled"));
    }
    let total = plural(matches.len(), "match", "matches");
    if parts.is_empty() {
        total
    } else {
        format!("{total}: {}", parts.join(", "))
    }
}

/// What the lines and groups need besides their matches: which groups show in full, what
/// was typed in the form that was refused, the active teams, the match to highlight.
pub struct Context<'a> {
    pub window: Window,
    /// A match's change form as typed.
    pub change: Option<&'a (MatchId, ChangeForm)>,
    /// A match's postpone or cancel form as typed.
    pub call_off: Option<&'a (MatchId, CallOffForm)>,
    /// A night's "Move this night to…" form as typed.
    pub night: Option<&'a MoveForm>,
    /// The form was refused because its match changed under it (409).
    pub conflict: bool,
    pub teams: &'a [TeamOption],
    pub highlight: Option<MatchId>,
}

/// A league with at most this many matches shows every one of them.
const SMALL: usize = 150;
/// In a larger league: the first nights with a match still to play are shown in full up to
/// about this many matches (at least one night; 3 nights of a 40-team league).
const NEXT_MATCHES: usize = 60;
/// In a larger league: "Not yet scheduled" shown in full up to this many matches.
const SMALL_GROUP: usize = 60;

/// Which groups show their matches (the others only their heading, their move form and a
/// link to show them): a page of every match of a 40-team league would weigh megabytes.
pub struct Window {
    /// Every group in full.
    pub all: bool,
    nights: HashSet<NaiveDate>,
    unscheduled: bool,
}

impl Window {
    /// Every group in a league of up to [`SMALL`] matches or when asked (`?show=all`); else
    /// the nights with a match in progress, the first nights with a match to play (about
    /// [`NEXT_MATCHES`] matches), the postponed matches, a short "Not yet scheduled", and whatever `focus`
    /// names (the night asked for, the match just changed or refused, the night just
    /// moved to).
    pub fn of(
        view: &ScheduleAdmin,
        show: Option<&str>,
        focus_matches: &[MatchId],
        focus_nights: &[NaiveDate],
    ) -> Window {
        let undated = view
            .matches
            .iter()
            .filter(|m| m.scheduled_at.is_none() && m.status != MatchStatus::Postponed)
            .count();
        let all = view.matches.len() <= SMALL || show == Some("all");
        let mut window = Window {
            all,
            nights: HashSet::new(),
            unscheduled: all || undated <= SMALL_GROUP || show == Some("unscheduled"),
        };
        if all {
            return window;
        }
        let to_play: BTreeSet<NaiveDate> = view
            .matches
            .iter()
            .filter(|m| m.status == MatchStatus::Scheduled)
            .filter_map(ScheduleMatch::night)
            .collect();
        let mut shown = 0;
        for night in to_play {
            if shown >= NEXT_MATCHES {
                break;
            }
            shown += view
                .matches
                .iter()
                .filter(|m| m.night() == Some(night))
                .count();
            window.nights.insert(night);
        }
        window.nights.extend(
            view.matches
                .iter()
                .filter(|m| m.status == MatchStatus::InProgress)
                .filter_map(ScheduleMatch::night),
        );
        window.nights.extend(focus_nights.iter().copied());
        window.nights.extend(show.and_then(|d| parse_day(d).ok()));
        for m in focus_matches.iter().filter_map(|id| view.by_id(*id)) {
            match m.night() {
                Some(d) => {
                    window.nights.insert(d);
                }
                None if m.status != MatchStatus::Postponed => window.unscheduled = true,
                None => {}
            }
        }
        window
    }

    fn shows(&self, night: Option<NaiveDate>) -> bool {
        self.all
            || match night {
                Some(d) => self.nights.contains(&d),
                None => self.unscheduled,
            }
    }
}

pub fn groups(matches: &[&ScheduleMatch], prefix: &str, cx: &Context<'_>) -> Vec<Group> {
    let mut nights: BTreeMap<NaiveDate, Vec<&ScheduleMatch>> = BTreeMap::new();
    let mut postponed = Vec::new();
    let mut undated = Vec::new();
    for m in matches {
        match m.night() {
            Some(d) => nights.entry(d).or_default().push(*m),
            None if m.status == MatchStatus::Postponed => postponed.push(*m),
            None => undated.push(*m),
        }
    }
    let lines = |ms: &[&ScheduleMatch], dated: bool, shown: bool| -> Vec<Line> {
        if !shown {
            return Vec::new();
        }
        ms.iter().map(|m| line(m, dated, cx)).collect()
    };
    let mut out = Vec::new();
    for (date, ms) in nights {
        let id = format!("{prefix}night-{date}");
        let key = format!("move-{id}");
        let typed = cx.night.filter(|f| f.group == id);
        let moving = ms
            .iter()
            .any(|m| m.status == MatchStatus::Scheduled)
            .then(|| MoveBox {
                key: key.clone(),
                from: date.to_string(),
                to: typed.map(|f| f.to.clone()).unwrap_or_default(),
                open: typed.is_some(),
            });
        let first_time = ms
            .iter()
            .filter_map(|m| m.scheduled_at)
            .min()
            .map(|t| t.to_string());
        let shown = cx.window.shows(Some(date));
        out.push(Group {
            title: long_day(date),
            summary: group_summary(&ms),
            moving,
            add_at: first_time,
            lines: lines(&ms, true, shown),
            hidden: (!shown).then(|| (date.to_string(), ms.len())),
            byes: byes(&ms, cx.teams),
            id,
        });
    }
    for (id, title, ms, shown) in [
        (
            "postponed",
            "Postponed: waiting for a new time",
            postponed,
            true,
        ),
        (
            "unscheduled",
            "Not yet scheduled",
            undated,
            cx.window.shows(None),
        ),
    ] {
        if ms.is_empty() {
            continue;
        }
        out.push(Group {
            id: format!("{prefix}{id}"),
            title: title.into(),
            summary: group_summary(&ms),
            moving: None,
            add_at: None,
            lines: lines(&ms, false, shown),
            hidden: (!shown).then(|| (id.to_string(), ms.len())),
            byes: Vec::new(),
        });
    }
    out
}

/// The page's table of contents: each group's id and its label ("Tue 24 Nov", "Playoffs:
/// Postponed"), the first regular-season night from `today` on marked "(next)".
pub fn jumps(parts: &[Part], today: NaiveDate) -> Vec<(String, String)> {
    let mut next_marked = false;
    parts
        .iter()
        .flat_map(|p| p.groups.iter().map(move |g| (p, g)))
        .map(|(p, g)| {
            let date =
                g.id.rsplit("night-")
                    .next()
                    .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok());
            let mut label = match date {
                Some(d) => short_day(d),
                None if g.id.ends_with("postponed") => "Postponed".into(),
                None => "Not yet scheduled".into(),
            };
            if p.id == "playoffs" {
                label = format!("Playoffs: {label}");
            }
            if let Some(d) = date
                && d >= today
                && !next_marked
                && p.id == "regular"
            {
                next_marked = true;
                label = format!("{label} (next)");
            }
            (g.id.clone(), label)
        })
        .collect()
}

/// "12 matches: 8 scheduled over 4 nights, 1 postponed, 2 not yet scheduled, 1 cancelled."
pub fn facts(view: &ScheduleAdmin) -> String {
    if view.matches.is_empty() {
        return "No match yet: generate a round robin or add matches below.".into();
    }
    let of = |s: MatchStatus| view.matches.iter().filter(|m| m.status == s).count();
    let dated: Vec<&ScheduleMatch> = view
        .matches
        .iter()
        .filter(|m| m.status == MatchStatus::Scheduled && m.scheduled_at.is_some())
        .collect();
    let mut nights: Vec<NaiveDate> = dated.iter().filter_map(|m| m.night()).collect();
    nights.dedup();
    let undated = view
        .matches
        .iter()
        .filter(|m| m.status == MatchStatus::Scheduled && m.scheduled_at.is_none())
        .count();
    let played = of(MatchStatus::Complete) + of(MatchStatus::Forfeit);
    let mut parts = vec![format!(
        "{} to play over {}",
        dated.len(),
        plural(nights.len(), "night", "nights")
    )];
    for (n, words) in [
        (of(MatchStatus::Postponed), "postponed"),
        (undated, "not yet scheduled"),
        (of(MatchStatus::InProgress), "in progress"),
        (played, "played"),
        (of(MatchStatus::Cancelled), "cancelled"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {words}"));
        }
    }
    format!(
        "{}: {}.",
        plural(view.matches.len(), "match", "matches"),
        parts.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nights_in_words() {
        let d = NaiveDate::from_ymd_opt(2026, 11, 24).unwrap_or_default();
        assert_eq!(short_day(d), "Tue 24 Nov");
        assert_eq!(long_day(d), "Tue 24 Nov 2026");
    }
}
