//! A league's schedule for the coordinator, `/admin/leagues/{slug}/schedule`: every match
//! grouped by league night (local dates in order, then "Postponed", then "Not yet
//! scheduled"; the playoffs after the regular season), each with its own small forms:
//! change the time, the table and (regular season) the teams; postpone or cancel with a
//! reason. Per night, "Move this night to…" shows a preview of what would move before
//! anything is written. At the end: add a match (pre-filled for a night), generate the rest
//! of the round robin, or regenerate the whole schedule while nothing has been played.
//!
//! Its own page rather than a section of the league page: a 40-team league has 780
//! regular-season matches over 39 nights, which would bury the teams and supervisors; here
//! each form comes back to its own match (`#match-{id}`) or night after a change.
//!
//! The forms' POSTs are in `schedule_edit` (and `schedule` for generating and adding). A
//! refused form comes back with this page: 422 (invalid input, what was typed kept) or 409
//! (the match changed under the form: its current values shown, what was typed quoted), a
//! summary at the top (focused) and the message next to the field.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, web};
use askama::Template;
use chrono::NaiveDate;
use serde::Deserialize;

use super::Errors;
use super::league::{MatchForm, ScheduleForm};
use crate::domain::words::{self, plural};
use crate::domain::{LocalTime, MatchId, MatchStatus, TextEnum, parse_day};
use crate::rules::Stage;
use crate::service::ServiceError;
use crate::service::admin_schedule::{self, ScheduleAdmin, ScheduleMatch};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, Authed};
use crate::web::respond::{html, no_store};
use crate::web::view::nav::Nav;
use crate::web::view::time;

/// A match's change form as typed. A field the form does not show (a started match shows
/// only the table) is absent and left as it is.
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct ChangeForm {
    #[serde(default)]
    pub(super) expected_version: String,
    #[serde(default)]
    pub(super) scheduled_at: Option<String>,
    #[serde(default)]
    pub(super) table: Option<String>,
    #[serde(default)]
    pub(super) team_a: Option<String>,
    #[serde(default)]
    pub(super) team_b: Option<String>,
}

/// Postponing or cancelling: why, and the version the page showed.
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct CallOffForm {
    #[serde(default)]
    pub(super) expected_version: String,
    #[serde(default)]
    pub(super) reason: String,
}

/// "Move this night to…": the night, the new date, the group of the page the form is in;
/// from the preview also `confirm=1` and `seen` (what the preview listed).
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct MoveForm {
    #[serde(default)]
    pub(super) from: String,
    #[serde(default)]
    pub(super) to: String,
    #[serde(default)]
    pub(super) group: String,
    #[serde(default)]
    pub(super) confirm: String,
    #[serde(default)]
    pub(super) seen: String,
}

/// What was typed in the schedule page's forms (kept when one of them has an error).
#[derive(Default)]
pub(super) struct ScheduleTyped {
    pub(super) change: Option<(MatchId, ChangeForm)>,
    pub(super) call_off: Option<(MatchId, CallOffForm)>,
    pub(super) night: Option<MoveForm>,
    pub(super) generate: ScheduleForm,
    pub(super) add: MatchForm,
    /// `?show=`: a night (`YYYY-MM-DD`), `unscheduled` or `all` shown in full.
    pub(super) show: Option<String>,
}

/// Why a form was not saved: the message and where it goes, whether the data changed under
/// the form (409) or the input was wrong (422), and the element the summary links to.
pub(super) struct Refusal {
    errors: Errors,
    conflict: bool,
    target: String,
    /// What the form was about ("Team 1 v Team 2"), named in the summary.
    about: String,
}

impl Refusal {
    /// `key` is the form's name on the page, also the id of its `<form>`; a field's input is
    /// `{key}-{field}`.
    pub(super) fn new(errors: Errors, e: &ServiceError, key: &str) -> Refusal {
        let target = if errors.field.is_empty() {
            key.to_string()
        } else {
            format!("{key}-{}", errors.field)
        };
        Refusal {
            conflict: matches!(e, ServiceError::Conflict { .. }),
            errors,
            target,
            about: String::new(),
        }
    }

    pub(super) fn about(self, about: String) -> Refusal {
        Refusal { about, ..self }
    }

    fn status(&self) -> StatusCode {
        if self.conflict {
            StatusCode::CONFLICT
        } else {
            StatusCode::UNPROCESSABLE_ENTITY
        }
    }
}

/// A success message, and the match it is about (highlighted).
pub(super) struct Notice {
    text: String,
    about: Option<MatchId>,
    /// The night it is about (shown in full).
    night: Option<NaiveDate>,
}

/// One choice of a team list.
struct TeamOption {
    id: String,
    name: String,
}

/// What a match's change form shows.
struct Values {
    version: i64,
    scheduled_at: String,
    table: String,
    team_a: String,
    team_b: String,
}

struct Line {
    id: MatchId,
    /// The change form's name (and id); the call-off form is `{key}-off`.
    key: String,
    off_key: String,
    when: String,
    teams: String,
    round: String,
    table_words: String,
    status_words: String,
    status_class: &'static str,
    /// Not cancelled: some change is still possible.
    editable: bool,
    /// Started or over: only the table changes.
    started: bool,
    /// Regular season and not started: the teams may change.
    teams_editable: bool,
    can_postpone: bool,
    can_cancel: bool,
    values: Values,
    /// A team of the match no longer active (withdrawn): kept as a choice of its list.
    extra_a: Option<TeamOption>,
    extra_b: Option<TeamOption>,
    reason: String,
    off_open: bool,
    /// After a conflict: what the coordinator had typed, shown next to the current values.
    typed_note: Option<String>,
    highlight: bool,
}

struct MoveBox {
    key: String,
    from: String,
    to: String,
    open: bool,
}

struct Group {
    id: String,
    title: String,
    summary: String,
    /// "Move this night to…" (a night with a match waiting to be played).
    moving: Option<MoveBox>,
    /// The add-match form's pre-filled time for this night.
    add_at: Option<String>,
    lines: Vec<Line>,
    /// Not shown in full: what `?show=` shows it, and how many matches it has.
    hidden: Option<(String, usize)>,
}

struct Part {
    id: &'static str,
    title: &'static str,
    groups: Vec<Group>,
}

/// A generation form's values.
struct GenValues {
    start_date: String,
    time: String,
    days_between: String,
    understand: bool,
}

struct StageOption {
    value: &'static str,
    label: &'static str,
    selected: bool,
}

#[derive(Template)]
#[template(path = "admin/schedule.html")]
struct SchedulePage {
    nav: Nav,
    slug: String,
    name: String,
    facts: String,
    /// Some groups show only their heading (a large league).
    windowed: bool,
    total: usize,
    jumps: Vec<(String, String)>,
    parts: Vec<Part>,
    teams: Vec<TeamOption>,
    /// Regular-season matches with no date yet, and postponed matches.
    undated: usize,
    postponed: usize,
    has_regular: bool,
    can_replace: bool,
    regular_count: usize,
    missing_pairings: usize,
    new_form: GenValues,
    rest_form: GenValues,
    replace_form: GenValues,
    add: MatchForm,
    stages: Vec<StageOption>,
    errors: Errors,
    refusal_target: String,
    refusal_about: String,
    notice: Option<String>,
}

/// "Tue 24 Nov" (a night in a message).
pub(super) fn short_day(d: NaiveDate) -> String {
    d.format("%a %-d %b").to_string()
}

/// "Tue 24 Nov 2026" (a night's heading).
pub(super) fn long_day(d: NaiveDate) -> String {
    d.format("%a %-d %b %Y").to_string()
}

pub(super) fn status_words(m: &ScheduleMatch) -> (String, &'static str) {
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
    format!(
        "You had typed: {}. Not saved: check the current values and save again if it still applies.",
        parts.join(", ")
    )
}

fn line(
    m: &ScheduleMatch,
    dated: bool,
    typed: &ScheduleTyped,
    refusal: Option<&Refusal>,
    teams: &[TeamOption],
    highlight: Option<MatchId>,
) -> Line {
    let (status_words, status_class) = status_words(m);
    let started = !m.status.is_unstarted() && m.status != MatchStatus::Cancelled;
    let conflict = refusal.is_some_and(|r| r.conflict);
    let mut values = current_values(m);
    let mut typed_note = None;
    if let Some((id, form)) = &typed.change
        && *id == m.id
    {
        if conflict {
            typed_note = Some(typed_words(form, teams, m));
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
        }
    }
    let (reason, off_open) = match &typed.call_off {
        Some((id, form)) if *id == m.id => (form.reason.clone(), true),
        _ => (String::new(), false),
    };
    let extra = |t: &crate::service::TeamRef| {
        let id = t.id.to_string();
        (!teams.iter().any(|o| o.id == id)).then(|| TeamOption {
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
        round: m.round.map(|r| format!("round {r}")).unwrap_or_default(),
        table_words: m.table.clone().unwrap_or_else(|| "no table".into()),
        status_words,
        status_class,
        editable: m.status != MatchStatus::Cancelled,
        started,
        teams_editable: unstarted && m.stage == Stage::Regular,
        can_postpone: m.status == MatchStatus::Scheduled,
        can_cancel: unstarted && m.stage == Stage::Regular,
        values,
        extra_a: extra(&m.team_a),
        extra_b: extra(&m.team_b),
        reason,
        off_open,
        typed_note,
        highlight: highlight == Some(m.id),
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

struct Context<'a> {
    window: Window,
    typed: &'a ScheduleTyped,
    refusal: Option<&'a Refusal>,
    teams: &'a [TeamOption],
    highlight: Option<MatchId>,
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
struct Window {
    all: bool,
    nights: HashSet<NaiveDate>,
    unscheduled: bool,
}

impl Window {
    /// Every group in a league of up to [`SMALL`] matches or when asked (`?show=all`); else
    /// the nights with a match in progress, the first nights with a match to play (about
    /// [`NEXT_MATCHES`] matches), the postponed matches, a short "Not yet scheduled", and whatever `focus`
    /// names (the night asked for, the match just changed or refused, the night just
    /// moved to).
    fn of(
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

fn groups(matches: &[&ScheduleMatch], prefix: &str, cx: &Context<'_>) -> Vec<Group> {
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
        ms.iter()
            .map(|m| line(m, dated, cx.typed, cx.refusal, cx.teams, cx.highlight))
            .collect()
    };
    let mut out = Vec::new();
    for (date, ms) in nights {
        let id = format!("{prefix}night-{date}");
        let key = format!("move-{id}");
        let typed = cx.typed.night.as_ref().filter(|f| f.group == id);
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
        });
    }
    out
}

/// "12 matches: 8 scheduled over 4 nights, 1 postponed, 2 not yet scheduled, 1 cancelled."
fn facts(view: &ScheduleAdmin) -> String {
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

fn gen_values(typed: &ScheduleForm, mode: &str, time_default: &str) -> GenValues {
    let mine = typed.mode.trim() == mode || (mode == "new" && typed.mode.trim().is_empty());
    let pick = |typed: &str, default: &str| {
        if mine && !typed.is_empty() {
            typed.to_string()
        } else {
            default.to_string()
        }
    };
    GenValues {
        start_date: if mine {
            typed.start_date.clone()
        } else {
            String::new()
        },
        time: pick(&typed.time, time_default),
        days_between: pick(&typed.days_between, "7"),
        understand: mine && typed.understand.is_some(),
    }
}

/// The schedule page with what was typed, the refusal of the form that was posted, or the
/// notice of what was done.
pub(super) async fn render_schedule(
    state: &AppState,
    who: &Authed,
    slug: &str,
    typed: ScheduleTyped,
    refusal: Option<Refusal>,
    notice: Option<Notice>,
) -> Result<HttpResponse, PageError> {
    let view = admin_schedule::schedule_admin(&state.db, &who.user, slug).await?;
    let teams: Vec<TeamOption> = view
        .active
        .iter()
        .map(|t| TeamOption {
            id: t.id.to_string(),
            name: t.name.clone(),
        })
        .collect();
    let highlight = notice.as_ref().and_then(|n| n.about);
    let focus_matches: Vec<MatchId> = [
        highlight,
        typed.change.as_ref().map(|(id, _)| *id),
        typed.call_off.as_ref().map(|(id, _)| *id),
    ]
    .into_iter()
    .flatten()
    .collect();
    let focus_nights: Vec<NaiveDate> = [
        notice.as_ref().and_then(|n| n.night),
        typed.night.as_ref().and_then(|f| parse_day(&f.from).ok()),
    ]
    .into_iter()
    .flatten()
    .collect();
    let window = Window::of(&view, typed.show.as_deref(), &focus_matches, &focus_nights);
    let windowed = !window.all;
    let cx = Context {
        window,
        typed: &typed,
        refusal: refusal.as_ref(),
        teams: &teams,
        highlight,
    };
    let regular: Vec<&ScheduleMatch> = view
        .matches
        .iter()
        .filter(|m| m.stage == Stage::Regular)
        .collect();
    let playoffs: Vec<&ScheduleMatch> = view
        .matches
        .iter()
        .filter(|m| m.stage != Stage::Regular)
        .collect();
    let mut parts = Vec::new();
    if !regular.is_empty() {
        parts.push(Part {
            id: "regular",
            title: "Regular season",
            groups: groups(&regular, "", &cx),
        });
    }
    if !playoffs.is_empty() {
        parts.push(Part {
            id: "playoffs",
            title: "Playoffs",
            groups: groups(&playoffs, "playoff-", &cx),
        });
    }
    let today = state.db.clock().local_now().0.date();
    let mut next_marked = false;
    let jumps = parts
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
        .collect();
    let undated = regular
        .iter()
        .filter(|m| m.status == MatchStatus::Scheduled && m.scheduled_at.is_none())
        .count();
    let postponed = view
        .matches
        .iter()
        .filter(|m| m.status == MatchStatus::Postponed)
        .count();
    let last_time = regular
        .iter()
        .filter_map(|m| m.scheduled_at)
        .max()
        .map(|t| t.0.format("%H:%M").to_string())
        .unwrap_or_else(|| "19:00".into());
    let typed_stage = Stage::parse(&typed.add.stage).ok();
    let stages = [
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
    .collect();
    let status = refusal.as_ref().map_or(StatusCode::OK, Refusal::status);
    let (errors, refusal_target, refusal_about) = match refusal {
        Some(r) => (r.errors, r.target, r.about),
        None => (Errors::default(), String::new(), String::new()),
    };
    let body = SchedulePage {
        nav: who.nav(),
        slug: view.slug.clone(),
        name: view.name.clone(),
        facts: facts(&view),
        windowed,
        total: view.matches.len(),
        jumps,
        parts,
        undated,
        postponed,
        has_regular: view.has_regular(),
        can_replace: view.has_regular() && !view.regular_started(),
        regular_count: regular.len(),
        missing_pairings: view.missing_pairings,
        new_form: gen_values(&typed.generate, "new", "19:00"),
        rest_form: gen_values(&typed.generate, "rest", &last_time),
        replace_form: gen_values(&typed.generate, "replace", &last_time),
        add: typed.add,
        stages,
        teams,
        errors,
        refusal_target,
        refusal_about,
        notice: notice.map(|n| n.text),
    }
    .render()?;
    Ok(no_store(html(status, body)))
}

#[derive(Debug, Default, Deserialize)]
struct PageQuery {
    done: Option<String>,
    id: Option<i64>,
    n: Option<usize>,
    from: Option<String>,
    to: Option<String>,
    /// The add-match form's time, pre-filled for a night.
    add: Option<String>,
    table: Option<String>,
    stage: Option<String>,
    /// A night (`YYYY-MM-DD`), `unscheduled` or `all`: shown in full.
    show: Option<String>,
}

/// The message of `?done=…` (built from the match as it is now).
fn notice_of(q: &PageQuery, view: &ScheduleAdmin) -> Option<Notice> {
    let done = q.done.as_deref()?;
    let m = q.id.and_then(|id| view.by_id(MatchId(id)));
    let teams = m.map(|m| format!("{} v {}", m.team_a.name, m.team_b.name));
    let n = q.n.unwrap_or(0);
    let date = |d: &Option<String>| d.as_deref().and_then(|d| parse_day(d).ok()).map(short_day);
    let text = match (done, m, teams) {
        ("changed", Some(m), Some(teams)) => format!(
            "Saved {teams}: {}, {}.",
            m.scheduled_at
                .map_or_else(|| "no time yet".into(), time::scheduled),
            m.table.as_deref().unwrap_or("no table")
        ),
        ("unchanged", Some(_), Some(teams)) => {
            format!("Nothing to save for {teams}: the form had its current values.")
        }
        ("postponed", Some(_), Some(teams)) => {
            format!("Postponed {teams}. Give it a new time under \"Postponed\" once there is one.")
        }
        ("cancelled", Some(_), Some(teams)) => format!("Cancelled {teams}."),
        ("added", Some(m), Some(teams)) => format!(
            "Added {teams} ({}). The form below is ready for the next match of that night.",
            m.scheduled_at
                .map_or_else(|| "no time yet".into(), time::scheduled)
        ),
        ("moved", _, _) => match (date(&q.from), date(&q.to)) {
            (Some(from), Some(to)) if n > 0 => format!(
                "Moved {} from {from} to {to}.",
                plural(n, "match", "matches")
            ),
            (Some(from), Some(_)) => {
                format!("Nothing moved: no match of {from} was still waiting to be played.")
            }
            _ => return None,
        },
        ("generated", _, _) => {
            let undated = view
                .matches
                .iter()
                .any(|m| m.stage == Stage::Regular && m.scheduled_at.is_none());
            if undated {
                format!(
                    "Round robin generated: {}, with no date yet. Give each one a date and time below under \"Not yet scheduled\", or regenerate the whole schedule with a first night.",
                    plural(n, "match", "matches")
                )
            } else {
                format!("Round robin generated: {}.", plural(n, "match", "matches"))
            }
        }
        ("rest", _, _) => format!(
            "Added {}: the rest of the round robin.",
            plural(n, "match", "matches")
        ),
        ("replaced", _, _) => format!("Schedule regenerated: {}.", plural(n, "match", "matches")),
        _ => return None,
    };
    Some(Notice {
        text,
        about: q.id.map(MatchId),
        night: (done == "moved")
            .then(|| q.to.as_deref().and_then(|d| parse_day(d).ok()))
            .flatten(),
    })
}

#[get("/admin/leagues/{slug}/schedule")]
pub(super) async fn schedule_page(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<String>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, PageError> {
    let notice = if query.done.is_some() {
        let view = admin_schedule::schedule_admin(&state.db, &who.user, &slug).await?;
        notice_of(&query, &view)
    } else {
        None
    };
    let typed = ScheduleTyped {
        add: MatchForm {
            scheduled_at: query.add.clone().unwrap_or_default(),
            table: query.table.clone().unwrap_or_default(),
            stage: query.stage.clone().unwrap_or_default(),
            ..MatchForm::default()
        },
        show: query.show.clone(),
        ..ScheduleTyped::default()
    };
    render_schedule(&state, &who, &slug, typed, None, notice).await
}

/// "Table 3" → "Table 4": the next table of a night being added match by match.
fn next_table(table: &str) -> String {
    let table = table.trim();
    let digits = table.len() - table.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    match table[table.len() - digits..]
        .parse::<u32>()
        .map(|n| n.checked_add(1))
    {
        Ok(Some(next)) if digits > 0 => format!("{}{}", &table[..table.len() - digits], next),
        _ => table.to_string(),
    }
}

/// Where a match added from the schedule page goes: back to the form, pre-filled for the
/// next match of the same night.
pub(super) fn added(slug: &str, id: MatchId, form: &MatchForm) -> String {
    let query = serde_urlencoded::to_string([
        ("done", "added".to_string()),
        ("id", id.to_string()),
        ("add", form.scheduled_at.trim().to_string()),
        ("table", next_table(&form.table)),
        ("stage", form.stage.trim().to_string()),
    ])
    .unwrap_or_default();
    format!("/admin/leagues/{slug}/schedule?{query}#add-match")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_table_of_a_night() {
        assert_eq!(next_table("Table 3"), "Table 4");
        assert_eq!(next_table(" T9 "), "T10");
        assert_eq!(next_table("12"), "13");
        assert_eq!(next_table("Back room"), "Back room");
        assert_eq!(next_table(""), "");
        // The last number a table can carry has no next: the name stays.
        assert_eq!(next_table("Table 4294967295"), "Table 4294967295");
        assert_eq!(next_table("Table 99999999999"), "Table 99999999999");
    }

    #[test]
    fn nights_in_words() {
        let d = NaiveDate::from_ymd_opt(2026, 11, 24).unwrap_or_default();
        assert_eq!(short_day(d), "Tue 24 Nov");
        assert_eq!(long_day(d), "Tue 24 Nov 2026");
    }
}
