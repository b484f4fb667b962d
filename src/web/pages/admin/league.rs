//! A league's admin page, `/admin/leagues/{slug}`: its rules and season settings, divisions
//! (with their team counts), teams (each one's division; a team the forfeit policy dropped
//! says why), supervisors, schedule, matches, and every sportsmanship rating and note, with a
//! form for each (their POSTs are in `divisions`, `teams` and `schedule`).

use super::Done;
use crate::domain::Slug;
use actix_web::{HttpResponse, get, web};
use askama::Template;
use serde::Deserialize;

use super::Errors;
use super::league_input::{STAGES, spec_words};
use crate::domain::{
    DivisionId, MatchId, MatchStatus, PersonName, TeamId, TeamName, UserId, words,
};
use crate::rules::Stage;
use crate::service::term::divisions::{self, DivisionView};
use crate::service::term::teams::TeamView;
use crate::service::views::admin_views::{self, LeagueAdmin};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, Authed};
use crate::web::respond::{html, no_store};
use crate::web::view::nav::Nav;
use crate::web::view::schedule_admin::{StageOption, stage_options};
use crate::web::view::time;

#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct TeamForm {
    #[serde(default)]
    pub(super) name: String,
    #[serde(default)]
    pub(super) player1: String,
    #[serde(default)]
    pub(super) player2: String,
    /// The division picked: a division's id, `""` for none; absent when the form has no
    /// division select (the league has none, or the team has played).
    #[serde(default)]
    pub(super) division: Option<String>,
}

impl TeamForm {
    /// Whether the division select shows `value` as picked.
    fn picks(&self, value: &str) -> bool {
        self.division.as_deref() == Some(value)
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct DivisionForm {
    #[serde(default)]
    pub(super) name: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct SupervisorForm {
    #[serde(default)]
    pub(super) username: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct ScheduleForm {
    #[serde(default)]
    pub(super) start_date: String,
    #[serde(default)]
    pub(super) time: String,
    #[serde(default)]
    pub(super) days_between: String,
    /// `new` (or empty), `rest` or `replace`: what the generation does with the matches
    /// already there.
    #[serde(default)]
    pub(super) mode: String,
    /// Blackout nights, `YYYY-MM-DD` separated by commas, spaces or lines.
    #[serde(default)]
    pub(super) blackouts: String,
    /// `division` for a round robin within each division; else within the league.
    #[serde(default)]
    pub(super) within: String,
    /// The replace form's "I understand every scheduled match is replaced": present when
    /// ticked.
    #[serde(default)]
    pub(super) understand: Option<String>,
    /// `schedule` when posted from the schedule page (an error is shown there).
    #[serde(default)]
    pub(super) from: String,
    /// The Swiss round form's time for the round's matches (empty: none).
    #[serde(default)]
    pub(super) scheduled_at: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct MatchForm {
    #[serde(default)]
    pub(super) team_a: String,
    #[serde(default)]
    pub(super) team_b: String,
    #[serde(default)]
    pub(super) stage: String,
    #[serde(default)]
    pub(super) table: String,
    #[serde(default)]
    pub(super) scheduled_at: String,
    /// `schedule` when posted from the schedule page (an error is shown there, and the
    /// next match of the same night is offered after it).
    #[serde(default)]
    pub(super) from: String,
}

/// What was typed in the league page's forms (kept when one of them has an error).
#[derive(Default)]
pub(super) struct Typed {
    pub(super) team: TeamForm,
    /// The team being edited and what was typed for it.
    pub(super) edit: Option<(TeamId, TeamForm)>,
    pub(super) division: DivisionForm,
    pub(super) supervisor: SupervisorForm,
    pub(super) schedule: ScheduleForm,
    pub(super) game: MatchForm,
}

struct TeamLine {
    id: TeamId,
    name: TeamName,
    player1: PersonName,
    player2: PersonName,
    withdrawn: bool,
    /// Its division's name ("no division"); empty when the league has no divisions.
    division: String,
    /// It has played: its division can no longer change.
    division_fixed: bool,
    /// Why the forfeit policy dropped the team ("dropped after 2 forfeits").
    dropped: Option<String>,
    /// The edit form is open (it has an error).
    open: bool,
    form: TeamForm,
    form_key: String,
}

/// A division with the number of its teams.
struct DivisionLine {
    name: String,
    /// The division's id, as the team forms' select sends it.
    value: String,
    teams: usize,
}

struct MatchLine {
    id: MatchId,
    when: String,
    table: String,
    stage: &'static str,
    round: String,
    team_a: String,
    team_b: String,
    status: &'static str,
    score: String,
}

/// A finished match's sportsmanship ratings (`None`: not rated yet).
struct RatingLine {
    id: MatchId,
    when: String,
    team_a: String,
    team_b: String,
    rating_a: Option<i64>,
    rating_b: Option<i64>,
    /// Each rater's note and who wrote it.
    notes: Vec<(String, String)>,
}

impl RatingLine {
    fn rated(&self) -> bool {
        self.rating_a.is_some() && self.rating_b.is_some()
    }
}

#[derive(Template)]
#[template(path = "admin/league.html")]
struct LeaguePage {
    nav: Nav,
    slug: String,
    name: String,
    /// A past season: read-only (the banner, and "Reopen the season").
    archived: bool,
    /// Nothing was played in it and it is not archived: "Delete this league" is offered.
    deletable: bool,
    rules: Vec<(&'static str, String)>,
    tiebreak: Vec<&'static str>,
    /// The season settings in words.
    settings: Vec<String>,
    /// The rating scale ("1 to 5"), if the league rates sportsmanship.
    scale: Option<String>,
    /// Whether the league requires every match to be rated.
    ratings_required: bool,
    divisions: Vec<DivisionLine>,
    /// Every finished match with its ratings and notes.
    ratings: Vec<RatingLine>,
    /// A match has a rating (kept from when the league rated sportsmanship).
    any_rating: bool,
    teams: Vec<TeamLine>,
    active: Vec<(TeamId, String)>,
    supervisors: Vec<(UserId, String)>,
    candidates: Vec<String>,
    matches: Vec<MatchLine>,
    has_regular: bool,
    /// Regular-season matches with no date (a round robin generated without one).
    undated: usize,
    /// Postponed matches waiting for a new time.
    postponed: usize,
    stages: Vec<StageOption>,
    typed: Typed,
    errors: Errors,
    notice: Option<String>,
}

fn notice_of(done: Option<Done>) -> Option<&'static str> {
    Some(match done? {
        Done::Saved => "League saved.",
        Done::Team => "Team added.",
        Done::TeamEdit => "Team saved.",
        Done::Withdrawn => "Team withdrawn: its matches not yet played are cancelled.",
        Done::Reinstated => {
            "Team reinstated. Its cancelled matches stay cancelled: “Generate the rest” on the schedule page schedules them again."
        }
        Done::Assigned => "Supervisor assigned.",
        Done::Unassigned => "Supervisor removed from the league.",
        Done::Match => "Match added.",
        Done::Import => "Roster imported.",
        Done::Division => "Division added.",
        Done::Archived => "Season closed: the league is archived, read-only and still public.",
        Done::Unarchived => "Season reopened: the league can change again.",
        Done::Cloned => "New league created from the previous term.",
        Done::Imported => "League imported as a new league.",
    })
}

/// "Division Competitive added." for the division just made (`id`, as the redirect gave it).
async fn division_notice(
    state: &AppState,
    slug: &Slug,
    id: Option<&str>,
) -> Result<Option<String>, PageError> {
    let id: Option<DivisionId> = id.and_then(|id| id.parse().ok());
    let made = divisions::list(&state.db, slug).await?;
    Ok(Some(match made.iter().find(|d| Some(d.id) == id) {
        Some(d) => format!("Division {} added.", d.name),
        None => "Division added.".to_string(),
    }))
}

/// The league's page with what was typed and the error of the form that was posted.
pub(super) async fn render_league(
    state: &AppState,
    who: &Authed,
    slug: &Slug,
    typed: Typed,
    errors: Errors,
    notice: Option<String>,
) -> Result<HttpResponse, PageError> {
    let view = admin_views::league_admin(&state.db, &who.user, slug).await?;
    let body = league_page_of(who.nav(), view, typed, errors.clone(), notice).render()?;
    Ok(no_store(html(errors.status(), body)))
}

/// The page's view model: the league's admin view in the page's words.
fn league_page_of(
    nav: Nav,
    view: LeagueAdmin,
    typed: Typed,
    errors: Errors,
    notice: Option<String>,
) -> LeaguePage {
    let has_regular = view.has_regular();
    let undated = undated(&view.matches);
    let postponed = view
        .matches
        .iter()
        .filter(|m| m.status == MatchStatus::Postponed)
        .count();
    let ratings: Vec<RatingLine> = view
        .matches
        .iter()
        .filter(|m| m.status.is_result())
        .map(RatingLine::of)
        .collect();
    let teams = view
        .teams
        .iter()
        .map(|t| TeamLine::of(t, &typed, &view))
        .collect();
    let divisions = view
        .divisions
        .iter()
        .map(|d| DivisionLine::of(d, &view))
        .collect();
    let active = view
        .teams
        .iter()
        .filter(|t| !t.withdrawn)
        .map(|t| (t.id, t.name.to_string()))
        .collect();
    let stages = stage_options(&typed.game.stage);
    let league = &view.league;
    let sportsmanship = league.settings.sportsmanship.as_ref();
    LeaguePage {
        nav,
        slug: league.row.slug.to_string(),
        name: league.row.name.clone(),
        archived: league.row.archived,
        deletable: !league.row.archived
            && !view
                .matches
                .iter()
                .any(|m| m.status.is_result() || m.status == MatchStatus::InProgress),
        rules: STAGES
            .iter()
            .zip(league.specs.iter())
            .map(|((_, label), spec)| (*label, spec_words(spec)))
            .collect(),
        tiebreak: league.tiebreak.iter().map(|t| t.words()).collect(),
        settings: league.settings.describe(),
        scale: sportsmanship.map(|s| format!("{} to {}", s.min, s.max)),
        ratings_required: sportsmanship.is_some_and(|s| s.required),
        divisions,
        any_rating: ratings
            .iter()
            .any(|r| r.rating_a.is_some() || r.rating_b.is_some()),
        ratings,
        teams,
        active,
        supervisors: view.supervisors,
        candidates: view.candidates,
        matches: view.matches.into_iter().map(MatchLine::of).collect(),
        has_regular,
        undated,
        postponed,
        stages,
        typed,
        errors,
        notice,
    }
}

/// Regular-season matches still to be played that have no date (a round robin generated
/// without one).
fn undated(matches: &[admin_views::MatchLine]) -> usize {
    matches
        .iter()
        .filter(|m| {
            m.stage == Stage::Regular
                && m.scheduled_at.is_none()
                && m.status == MatchStatus::Scheduled
        })
        .count()
}

impl RatingLine {
    /// The ratings and notes of finished match `m`.
    fn of(m: &admin_views::MatchLine) -> RatingLine {
        RatingLine {
            id: m.id,
            when: m.scheduled_at.map(time::scheduled).unwrap_or_default(),
            team_a: m.team_a.clone(),
            team_b: m.team_b.clone(),
            rating_a: m.rating_a,
            rating_b: m.rating_b,
            notes: m
                .rating_notes
                .iter()
                .map(|n| {
                    let author = n.author.as_deref().unwrap_or("author unknown");
                    (n.note.clone(), author.to_string())
                })
                .collect(),
        }
    }
}

impl MatchLine {
    fn of(m: admin_views::MatchLine) -> MatchLine {
        MatchLine {
            id: m.id,
            when: m.scheduled_at.map(time::scheduled).unwrap_or_default(),
            table: m.table.unwrap_or_default(),
            stage: m.stage.words(),
            round: m.round.map(|r| r.to_string()).unwrap_or_default(),
            team_a: m.team_a,
            team_b: m.team_b,
            status: m.status.words(),
            score: if m.status.is_unstarted() {
                String::new()
            } else {
                format!(
                    "{} – {}",
                    words::points(m.score_a),
                    words::points(m.score_b)
                )
            },
        }
    }
}

impl DivisionLine {
    fn of(d: &DivisionView, view: &LeagueAdmin) -> DivisionLine {
        DivisionLine {
            name: d.name.clone(),
            value: d.id.to_string(),
            teams: view
                .teams
                .iter()
                .filter(|t| t.division == Some(d.id))
                .count(),
        }
    }
}

/// Team `t`'s division in words: its name, "no division", or "" in a league without
/// divisions.
fn division_words(t: &TeamView, view: &LeagueAdmin) -> String {
    if view.divisions.is_empty() {
        return String::new();
    }
    view.divisions
        .iter()
        .find(|d| Some(d.id) == t.division)
        .map_or_else(|| "no division".to_string(), |d| d.name.clone())
}

impl TeamLine {
    /// Team `t`, with its edit form open and what was typed kept when that form had an error.
    fn of(t: &TeamView, typed: &Typed, view: &LeagueAdmin) -> TeamLine {
        // The first two active players: the ones the edit form renames.
        let seat = |i: usize| {
            t.players
                .get(i)
                .cloned()
                .unwrap_or_else(|| PersonName::from_stored(String::new()))
        };
        let (player1, player2) = (seat(0), seat(1));
        let edited = typed.edit.as_ref().filter(|(i, _)| *i == t.id);
        TeamLine {
            id: t.id,
            name: t.name.clone(),
            withdrawn: t.withdrawn,
            dropped: t.dropped_reason.clone(),
            division: division_words(t, view),
            division_fixed: view.played.contains(&t.id),
            open: edited.is_some(),
            form: edited.map(|(_, f)| f.clone()).unwrap_or_else(|| TeamForm {
                name: t.name.to_string(),
                player1: player1.to_string(),
                player2: player2.to_string(),
                division: Some(t.division.map(|d| d.to_string()).unwrap_or_default()),
            }),
            player1,
            player2,
            form_key: format!("team-{}", t.id),
        }
    }
}

#[derive(Deserialize)]
struct DoneQuery {
    #[serde(default, deserialize_with = "super::known_or_none")]
    done: Option<Done>,
    /// The division just added (with `done=division`).
    #[serde(default)]
    division: Option<String>,
}

#[get("/admin/leagues/{slug}")]
pub(super) async fn league_page(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    query: web::Query<DoneQuery>,
) -> Result<HttpResponse, PageError> {
    let notice = match query.done {
        Some(Done::Division) => division_notice(&state, &slug, query.division.as_deref()).await?,
        done => notice_of(done).map(str::to_string),
    };
    render_league(
        &state,
        &who,
        &slug,
        Typed::default(),
        Errors::default(),
        notice,
    )
    .await
}
