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
//!
//! What the template shows of the matches (the groups, their lines, the window of nights
//! shown in full) is built by [`crate::web::view::schedule_admin`].

use crate::domain::Slug;
use crate::service::term::schedule_warnings::{self, StandingWarning};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, web};
use askama::Template;
use chrono::NaiveDate;
use serde::Deserialize;

use super::Errors;
use super::league::{MatchForm, ScheduleForm};
use crate::domain::words::plural;
use crate::domain::{MatchId, MatchStatus, parse_day};
use crate::rules::Stage;
use crate::service::ServiceError;
use crate::service::term::admin_schedule::{self, ScheduleAdmin, ScheduleMatch, ScheduleWarning};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, Authed};
use crate::web::respond::{html, no_store};
use crate::web::view::nav::Nav;
use crate::web::view::schedule_admin::{
    CallOffForm, ChangeForm, Context, GenValues, MoveForm, Part, StageOption, TeamOption, Window,
    facts, groups, jumps, short_day, stage_options,
};
use crate::web::view::time;

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

    /// What the page shows of `refusal`: the errors, the element the summary links to, and
    /// what the form was about (nothing without a refusal).
    fn parts(refusal: Option<Refusal>) -> (Errors, String, String) {
        match refusal {
            Some(r) => (r.errors, r.target, r.about),
            None => (Errors::default(), String::new(), String::new()),
        }
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
    /// What the saved or added match clashes with (saved all the same).
    warnings: Vec<ScheduleWarning>,
    /// The change is one to look up in the audit log (a deleted match): the notice links it.
    audit: bool,
}

#[derive(Template)]
#[template(path = "admin/schedule.html")]
struct SchedulePage {
    nav: Nav,
    slug: String,
    name: String,
    /// A past season: read-only (the banner).
    archived: bool,
    /// The notice is of a deleted match (it links to the audit log).
    deleted: bool,
    facts: String,
    /// The league's blackout nights, in words ("Tue 19 Jan 2027").
    blackouts: Vec<String>,
    /// Some groups show only their heading (a large league).
    windowed: bool,
    total: usize,
    jumps: Vec<(String, String)>,
    parts: Vec<Part>,
    teams: Vec<TeamOption>,
    /// The usernames of the league's supervisors: a match's supervisor is one of them.
    supervisors: Vec<String>,
    /// Regular-season matches with no date yet, and postponed matches.
    undated: usize,
    postponed: usize,
    has_regular: bool,
    can_replace: bool,
    regular_count: usize,
    missing_pairings: usize,
    /// Swiss rounds paired so far: with any, the page offers the next round instead of the
    /// round robin's forms.
    swiss_rounds: usize,
    /// The Swiss round form's time, as typed.
    swiss_time: String,
    /// The league has divisions: the generation forms offer a round robin within each.
    has_divisions: bool,
    new_form: GenValues,
    rest_form: GenValues,
    replace_form: GenValues,
    add: MatchForm,
    stages: Vec<StageOption>,
    errors: Errors,
    refusal_target: String,
    refusal_about: String,
    notice: Option<String>,
    /// The notice's clash warnings.
    warnings: Vec<ScheduleWarning>,
    /// The schedule's warnings as it stands, listed at the top until resolved.
    standing: Vec<StandingWarning>,
}

fn gen_values(typed: &ScheduleForm, mode: &str, time_default: &str) -> GenValues {
    let mine = typed.mode.trim() == mode || (mode == "new" && typed.mode.trim().is_empty());
    let kept = |typed: &str| {
        if mine {
            typed.to_string()
        } else {
            String::new()
        }
    };
    let pick = |typed: &str, default: &str| {
        if mine && !typed.is_empty() {
            typed.to_string()
        } else {
            default.to_string()
        }
    };
    GenValues {
        start_date: kept(&typed.start_date),
        time: pick(&typed.time, time_default),
        days_between: pick(&typed.days_between, "7"),
        understand: mine && typed.understand.is_some(),
        blackouts: kept(&typed.blackouts),
        within: kept(&typed.within),
    }
}

/// The schedule page with what was typed, the refusal of the form that was posted, or the
/// notice of what was done.
pub(super) async fn render_schedule(
    state: &AppState,
    who: &Authed,
    slug: &Slug,
    typed: ScheduleTyped,
    refusal: Option<Refusal>,
    notice: Option<Notice>,
) -> Result<HttpResponse, PageError> {
    let view = admin_schedule::schedule_admin(&state.db, &who.user, slug).await?;
    let today = state.db.clock().local_now().0.date();
    let status = refusal.as_ref().map_or(StatusCode::OK, Refusal::status);
    let body = schedule_page_of(who.nav(), &view, typed, refusal, notice, today).render()?;
    Ok(no_store(html(status, body)))
}

/// The page's view model: the schedule `view` with what was typed, the refusal or the
/// notice; `today` marks the next night among the jumps.
fn schedule_page_of(
    nav: Nav,
    view: &ScheduleAdmin,
    typed: ScheduleTyped,
    refusal: Option<Refusal>,
    notice: Option<Notice>,
    today: NaiveDate,
) -> SchedulePage {
    let teams = team_options(view);
    let highlight = notice.as_ref().and_then(|n| n.about);
    let window = Window::of(
        view,
        typed.show.as_deref(),
        &focus_matches(highlight, &typed),
        &focus_nights(notice.as_ref(), &typed),
    );
    let windowed = !window.all;
    let cx = Context {
        window,
        change: typed.change.as_ref(),
        call_off: typed.call_off.as_ref(),
        night: typed.night.as_ref(),
        conflict: refusal.as_ref().is_some_and(|r| r.conflict),
        teams: &teams,
        highlight,
    };
    let (regular, playoffs): (Vec<&ScheduleMatch>, Vec<&ScheduleMatch>) =
        view.matches.iter().partition(|m| m.stage == Stage::Regular);
    let parts = parts(&regular, &playoffs, &cx);
    let last_time = last_time(&regular);
    let (errors, refusal_target, refusal_about) = Refusal::parts(refusal);
    SchedulePage {
        nav,
        slug: view.slug.clone(),
        name: view.name.clone(),
        archived: view.archived,
        deleted: notice.as_ref().is_some_and(|n| n.audit),
        facts: facts(view),
        blackouts: view
            .blackouts
            .iter()
            .map(|d| d.format("%a %-d %b %Y").to_string())
            .collect(),
        windowed,
        total: view.matches.len(),
        jumps: jumps(&parts, today),
        parts,
        undated: undated(&regular),
        postponed: postponed(&view.matches),
        has_regular: view.has_regular(),
        // A league of Swiss rounds is never regenerated as a round robin.
        can_replace: view.has_regular() && !view.regular_started() && view.swiss_rounds == 0,
        regular_count: regular.len(),
        missing_pairings: view.missing_pairings,
        swiss_rounds: view.swiss_rounds,
        swiss_time: if typed.generate.mode.trim() == "swiss_round" {
            typed.generate.scheduled_at.clone()
        } else {
            String::new()
        },
        standing: schedule_warnings::standing(view),
        has_divisions: view.has_divisions,
        supervisors: view.supervisors.clone(),
        new_form: gen_values(&typed.generate, "new", "19:00"),
        rest_form: gen_values(&typed.generate, "rest", &last_time),
        replace_form: gen_values(&typed.generate, "replace", &last_time),
        stages: stage_options(&typed.add.stage),
        add: typed.add,
        teams,
        errors,
        refusal_target,
        refusal_about,
        warnings: notice
            .as_ref()
            .map(|n| n.warnings.clone())
            .unwrap_or_default(),
        notice: notice.map(|n| n.text),
    }
}

/// The league's teams still playing, for the forms' team lists.
fn team_options(view: &ScheduleAdmin) -> Vec<TeamOption> {
    view.active
        .iter()
        .map(|t| TeamOption {
            id: t.id.to_string(),
            name: t.name.clone(),
        })
        .collect()
}

/// The matches shown in full whatever the window: the one the notice is about
/// (`highlight`) and those whose forms were typed.
fn focus_matches(highlight: Option<MatchId>, typed: &ScheduleTyped) -> Vec<MatchId> {
    [
        highlight,
        typed.change.as_ref().map(|(id, _)| *id),
        typed.call_off.as_ref().map(|(id, _)| *id),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The nights shown in full whatever the window: the notice's and the one a typed move
/// form is about.
fn focus_nights(notice: Option<&Notice>, typed: &ScheduleTyped) -> Vec<NaiveDate> {
    [
        notice.and_then(|n| n.night),
        typed.night.as_ref().and_then(|f| parse_day(&f.from).ok()),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The regular season, then the playoffs; a part without a match is left out.
fn parts(regular: &[&ScheduleMatch], playoffs: &[&ScheduleMatch], cx: &Context<'_>) -> Vec<Part> {
    let mut parts = Vec::new();
    if !regular.is_empty() {
        parts.push(Part {
            id: "regular",
            title: "Regular season",
            groups: groups(regular, "", cx),
        });
    }
    if !playoffs.is_empty() {
        parts.push(Part {
            id: "playoffs",
            title: "Playoffs",
            groups: groups(playoffs, "playoff-", cx),
        });
    }
    parts
}

/// Postponed matches waiting for a new time.
fn postponed(matches: &[ScheduleMatch]) -> usize {
    matches
        .iter()
        .filter(|m| m.status == MatchStatus::Postponed)
        .count()
}

/// Regular-season matches to be played that have no date yet.
fn undated(regular: &[&ScheduleMatch]) -> usize {
    regular
        .iter()
        .filter(|m| m.status == MatchStatus::Scheduled && m.scheduled_at.is_none())
        .count()
}

/// The time of the regular season's latest match (`19:00` without one): the generation
/// forms' default for the matches to come.
fn last_time(regular: &[&ScheduleMatch]) -> String {
    regular
        .iter()
        .filter_map(|m| m.scheduled_at)
        .max()
        .map(|t| t.0.format("%H:%M").to_string())
        .unwrap_or_else(|| "19:00".into())
}

/// What the schedule page says was just done (its `?done=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum ScheduleDone {
    Changed,
    Unchanged,
    Postponed,
    Cancelled,
    Added,
    Moved,
    Generated,
    Rest,
    Replaced,
    Swiss,
    Deleted,
    Supervisors,
}

#[derive(Debug, Default, Deserialize)]
struct PageQuery {
    #[serde(default, deserialize_with = "super::known_or_none")]
    done: Option<ScheduleDone>,
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
    let done = q.done?;
    let m = q.id.and_then(|id| view.by_id(MatchId(id)));
    let teams = m.map(|m| format!("{} v {}", m.team_a.name, m.team_b.name));
    let n = q.n.unwrap_or(0);
    let text = match (done, m, teams) {
        (ScheduleDone::Changed, Some(m), Some(teams)) => format!(
            "Saved {teams}: {}, {}.",
            m.scheduled_at
                .map_or_else(|| "no time yet".into(), time::scheduled),
            m.table.as_deref().unwrap_or("no table")
        ),
        (ScheduleDone::Unchanged, Some(_), Some(teams)) => {
            format!("Nothing to save for {teams}: the form had its current values.")
        }
        (ScheduleDone::Postponed, Some(_), Some(teams)) => {
            format!("Postponed {teams}. Give it a new time under \"Postponed\" once there is one.")
        }
        (ScheduleDone::Cancelled, Some(_), Some(teams)) => format!("Cancelled {teams}."),
        (ScheduleDone::Added, Some(m), Some(teams)) => format!(
            "Added {teams} ({}). The form below is ready for the next match of that night.",
            m.scheduled_at
                .map_or_else(|| "no time yet".into(), time::scheduled)
        ),
        (ScheduleDone::Moved, _, _) => moved_text(q, n)?,
        (ScheduleDone::Generated, _, _) => generated_text(view, n),
        (ScheduleDone::Rest, _, _) => format!(
            "Added {}: the rest of the round robin.",
            plural(n, "match", "matches")
        ),
        (ScheduleDone::Deleted, _, _) => format!(
            "Deleted M{}: it is recorded in the audit log.",
            q.id.unwrap_or_default()
        ),
        (ScheduleDone::Supervisors, _, _) => {
            let night = q.from.as_deref().and_then(|d| parse_day(d).ok());
            format!(
                "Gave {} of {} to their supervisors, a block of tables each.",
                plural(n, "match", "matches"),
                night.map_or_else(|| "the night".to_string(), short_day)
            )
        }
        (ScheduleDone::Swiss, _, _) => format!(
            "Paired Swiss round {}: {}. The standings order the next round once these are over.",
            view.swiss_rounds,
            plural(n, "match", "matches")
        ),
        (ScheduleDone::Replaced, _, _) => {
            format!("Schedule regenerated: {}.", plural(n, "match", "matches"))
        }
        _ => return None,
    };
    let warnings = match (done, q.id) {
        (ScheduleDone::Changed | ScheduleDone::Added, Some(id)) => {
            admin_schedule::warnings_in(view, MatchId(id))
        }
        _ => Vec::new(),
    };
    Some(Notice {
        audit: done == ScheduleDone::Deleted,
        text,
        warnings,
        about: q.id.map(MatchId),
        night: (done == ScheduleDone::Moved)
            .then(|| q.to.as_deref().and_then(|d| parse_day(d).ok()))
            .flatten(),
    })
}

/// The notice of a night move: `n` matches from `?from=` to `?to=` (`None` without them).
fn moved_text(q: &PageQuery, n: usize) -> Option<String> {
    let date = |d: &Option<String>| d.as_deref().and_then(|d| parse_day(d).ok()).map(short_day);
    match (date(&q.from), date(&q.to)) {
        (Some(from), Some(to)) if n > 0 => Some(format!(
            "Moved {} from {from} to {to}.",
            plural(n, "match", "matches")
        )),
        (Some(from), Some(_)) => Some(format!(
            "Nothing moved: no match of {from} was still waiting to be played."
        )),
        _ => None,
    }
}

/// The notice of a generated round robin of `n` matches, and what to do if they have no
/// date yet.
fn generated_text(view: &ScheduleAdmin, n: usize) -> String {
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

#[get("/admin/leagues/{slug}/schedule")]
pub(super) async fn schedule_page(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
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
pub(super) fn added(slug: &Slug, id: MatchId, form: &MatchForm) -> String {
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
}
