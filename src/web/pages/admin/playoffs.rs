//! The coordinator's playoffs page, `/admin/leagues/{slug}/playoffs`: who may enter (each
//! team's eligibility with the reasons in words, what is at risk, and the coordinator's
//! decision over the rules, changed with a small form per team); choose the format, the field
//! size, a third-place match or the grand final; preview the seeded bracket (seeds from the
//! standings, the first-round pairings and byes) before saving; then create it. Once the
//! bracket exists the page links to it, and offers to schedule each round at once
//! ([`rounds`]).

use crate::domain::ErrorCode;
use crate::domain::Slug;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

mod rounds;

use super::{Errors, fixable};
use crate::domain::{BracketMatchStatus, TeamId};
use crate::league::bracket::{Format, GrandFinal, Section};
use crate::service::playoffs::eligibility::{self, EligibilityRow, OverrideInput};
use crate::service::playoffs::{self, BracketView, PlayoffsInput, Unplayed};
use crate::service::term::admin_schedule::{self, ScheduleWarning};
use crate::service::views::admin_views::{self, PlayoffsSetup};
use crate::service::{ServiceError, TeamRef, term::reschedule};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, Authed, CsrfForm};
use crate::web::respond::{html, no_store, see_other};
use crate::web::view::bracket::BracketDrawing;
use crate::web::view::nav::Nav;
use crate::web::view::time::{Stamp, stamp};
use rounds::{RoundForm, RoundTyped};

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(playoffs_form)
        .service(playoffs_post)
        .service(override_post)
        .service(schedule_round_post);
}

/// The form as typed (strings, so a bad value comes back as it was).
#[derive(Debug, Clone, Deserialize)]
struct PlayoffsForm {
    #[serde(default)]
    format: String,
    #[serde(default)]
    teams: String,
    /// A checkbox: present when ticked.
    #[serde(default)]
    third_place: Option<String>,
    #[serde(default)]
    grand_final: String,
    /// `overall` or `division_winners_first` (radio buttons, when the league has divisions).
    #[serde(default)]
    seeding: String,
    /// The button pressed: `preview`, `create`, or `create_anyway` (the only one that
    /// creates although regular-season matches remain).
    #[serde(default)]
    action: String,
}

impl PlayoffsForm {
    fn defaults(active: usize) -> PlayoffsForm {
        PlayoffsForm {
            format: Format::SingleElimination.as_str().into(),
            teams: active.to_string(),
            third_place: Some("1".into()),
            grand_final: GrandFinal::Double.as_str().into(),
            seeding: "overall".into(),
            action: String::new(),
        }
    }

    /// Double elimination is chosen.
    fn double(&self) -> bool {
        Format::parse(&self.format) == Some(Format::DoubleElimination)
    }

    fn input(&self) -> Result<PlayoffsInput, ServiceError> {
        let teams = match self.teams.trim() {
            "" => None,
            t => Some(t.parse::<usize>().map_err(|_| {
                ServiceError::invalid(
                    ErrorCode::InvalidPlayoffs,
                    "teams",
                    format!("the number of teams is a whole number, not \"{t}\""),
                )
            })?),
        };
        let double = self.double();
        Ok(PlayoffsInput {
            format: self.format.clone(),
            teams,
            // Each option belongs to one format: the other's control is ignored.
            third_place: (!double).then_some(self.third_place.is_some()),
            grand_final: double.then(|| self.grand_final.clone()),
            force: Some(self.action == ANYWAY),
            seeding: Some(self.seeding.clone()).filter(|s| !s.trim().is_empty()),
        })
    }
}

/// The button that creates the playoffs although regular-season matches remain.
const ANYWAY: &str = "create_anyway";

/// A choice of the grand-final list: its value, its label, and whether it was typed.
struct GrandFinalOption {
    value: &'static str,
    label: &'static str,
    selected: bool,
}

fn grand_finals(typed: &str) -> Vec<GrandFinalOption> {
    let typed = GrandFinal::parse(typed);
    [
        (
            GrandFinal::Double,
            "Double: a reset match if the losers'-bracket team wins the first",
        ),
        (GrandFinal::Simple, "Simple: one match"),
        (
            GrandFinal::None,
            "None: the two bracket winners are first and second",
        ),
    ]
    .into_iter()
    .map(|(g, label)| GrandFinalOption {
        value: g.as_str(),
        label,
        selected: typed == Some(g),
    })
    .collect()
}

struct SeedLine {
    seed: i64,
    team: String,
    bye: bool,
}

struct Pairing {
    label: String,
    a: String,
    b: String,
}

/// A team's override form as typed.
#[derive(Debug, Clone, Default, Deserialize)]
struct OverrideForm {
    /// `eligible`, `not_eligible` or `rules` (back to what the rules say).
    #[serde(default)]
    decision: String,
    #[serde(default)]
    reason: String,
}

impl OverrideForm {
    fn input(&self) -> Result<OverrideInput, ServiceError> {
        let eligible = match self.decision.as_str() {
            "eligible" => Some(true),
            "not_eligible" => Some(false),
            "rules" => None,
            _ => {
                return Err(ServiceError::invalid(
                    ErrorCode::InvalidInput,
                    "eligible",
                    "choose eligible, not eligible, or back to the rules",
                ));
            }
        };
        if eligible.is_some() && self.reason.trim().is_empty() {
            return Err(ServiceError::invalid(
                ErrorCode::InvalidInput,
                "reason",
                "a decision needs a reason: say why (it is public: shown on the team's page, with your username, and kept in the audit log)",
            ));
        }
        Ok(OverrideInput {
            eligible,
            reason: Some(self.reason.clone()),
        })
    }
}

/// An admin's decision as the table shows it.
struct Decision {
    eligible: bool,
    reason: String,
    by: String,
    at: Stamp,
}

/// A row of the eligibility table, with its override form.
struct EligibilityLine {
    id: TeamId,
    team: String,
    eligible: bool,
    reasons: Vec<String>,
    at_risk: Vec<String>,
    decision: Option<Decision>,
    /// The override form's key in [`Errors`] (`override-{id}`).
    form_key: String,
    /// The form is open: its post had an error.
    open: bool,
    /// The decision chosen in the form.
    choice: String,
    reason: String,
}

impl EligibilityLine {
    fn new(row: EligibilityRow, typed: Option<&(TeamId, OverrideForm)>) -> EligibilityLine {
        let typed = typed.filter(|(id, _)| *id == row.team_id).map(|(_, f)| f);
        // Unless typed: the team's decision, else the change the coordinator would make
        // (a team the rules keep out made eligible, or the other way round).
        let choice = match (typed, &row.decision) {
            (Some(f), _) => f.decision.clone(),
            (None, Some(d)) if d.eligible => "eligible".into(),
            (None, Some(_)) => "not_eligible".into(),
            (None, None) if row.eligible => "not_eligible".into(),
            (None, None) => "eligible".into(),
        };
        EligibilityLine {
            id: row.team_id,
            form_key: format!("override-{}", row.team_id),
            open: typed.is_some(),
            choice,
            reason: typed.map(|f| f.reason.clone()).unwrap_or_default(),
            team: row.team,
            eligible: row.eligible,
            reasons: row.reasons,
            // A player short of regular-season matches cannot sit at a playoff table.
            at_risk: row
                .at_risk
                .into_iter()
                .chain(row.players.into_iter().filter_map(|p| p.needs))
                .collect(),
            decision: row.decision.map(|d| Decision {
                eligible: d.eligible,
                reason: d.reason,
                by: d.by,
                at: stamp(d.at),
            }),
        }
    }
}

#[derive(Template)]
#[template(path = "admin/playoffs.html")]
struct PlayoffsPage {
    nav: Nav,
    slug: String,
    name: String,
    /// A past season: read-only (the banner).
    archived: bool,
    /// The league already has its bracket.
    exists: bool,
    /// The league has divisions: the form offers seeding their winners first.
    has_divisions: bool,
    /// How the drawn bracket's seeds were made from divisions, in words ("" for overall).
    seeding_words: String,
    active: usize,
    eligible: usize,
    eligibility: Vec<EligibilityLine>,
    /// The league's eligibility rules in words.
    rules: Vec<String>,
    /// The regular-season matches not played yet (named in the preview and the refusal).
    unplayed: Vec<Unplayed>,
    /// The league waits for them: the preview offers "Create the playoffs anyway".
    require_all_played: bool,
    /// The team whose decision was just saved.
    saved: Option<String>,
    /// The team whose override form has the error, and its row's anchor.
    override_error: Option<(String, String)>,
    typed: PlayoffsForm,
    grand_finals: Vec<GrandFinalOption>,
    preview: Option<Preview>,
    /// The previewed bracket, drawn as the bracket page draws it (no links yet).
    drawing: Option<BracketDrawing>,
    errors: Errors,
    /// Once the bracket exists: "Schedule <round>", a form per round with a match to place.
    rounds: Vec<RoundForm>,
    /// After a round's save: what was saved, and what it clashes with (saved all the same).
    round_notice: Option<String>,
    round_warnings: Vec<ScheduleWarning>,
    /// A refused round form: the summary's target (the field, or the form).
    round_error: Option<String>,
}

impl PlayoffsPage {
    fn new(nav: Nav, setup: PlayoffsSetup, typed: PlayoffsForm) -> PlayoffsPage {
        PlayoffsPage::with_override(nav, setup, typed, None, Errors::default())
    }

    /// The page with a team's override form as typed and its error.
    fn with_override(
        nav: Nav,
        setup: PlayoffsSetup,
        typed: PlayoffsForm,
        decision: Option<(TeamId, OverrideForm)>,
        errors: Errors,
    ) -> PlayoffsPage {
        let eligible = setup.eligible_teams();
        let override_error = decision.as_ref().and_then(|(id, _)| {
            let row = setup.eligibility.iter().find(|r| r.team_id == *id)?;
            Some((row.team.clone(), format!("elig-{id}")))
        });
        let override_error = override_error.filter(|_| !errors.is_empty());
        PlayoffsPage {
            nav,
            slug: setup.slug,
            name: setup.name,
            archived: setup.archived,
            exists: setup.bracket_exists,
            has_divisions: setup.has_divisions,
            seeding_words: setup.seeding_words.unwrap_or_default(),
            active: setup.active_teams,
            eligible,
            eligibility: setup
                .eligibility
                .into_iter()
                .map(|row| EligibilityLine::new(row, decision.as_ref()))
                .collect(),
            rules: setup.rules,
            unplayed: setup.unplayed,
            require_all_played: setup.require_all_played,
            saved: None,
            override_error,
            grand_finals: grand_finals(&typed.grand_final),
            typed,
            preview: None,
            drawing: None,
            errors,
            rounds: Vec::new(),
            round_notice: None,
            round_warnings: Vec::new(),
            round_error: None,
        }
    }

    /// The round forms of the league's bracket (none before it exists); `typed` is a
    /// refused round form, kept as typed. Also the schedule (once the bracket exists), for
    /// the notice's warnings.
    async fn with_rounds(
        &mut self,
        state: &AppState,
        who: &Authed,
        slug: &Slug,
        typed: Option<&RoundTyped>,
    ) -> Result<Option<admin_schedule::ScheduleAdmin>, PageError> {
        if !self.exists {
            return Ok(None);
        }
        let schedule = admin_schedule::schedule_admin(&state.db, &who.user, slug).await?;
        let bracket = playoffs::bracket(&state.db, slug).await?;
        self.rounds = rounds::round_forms(&bracket, &schedule, typed);
        Ok(Some(schedule))
    }

    fn answer(&self) -> Result<HttpResponse, PageError> {
        Ok(no_store(html(self.errors.status(), self.render()?)))
    }
}

struct Preview {
    summary: String,
    /// How the seeds are made from divisions, in words ("" for the overall standings).
    seeding: String,
    seeds: Vec<SeedLine>,
    pairings: Vec<Pairing>,
    matches: usize,
}

fn preview_of(view: &BracketView) -> Preview {
    let mut seeds: Vec<SeedLine> = Vec::new();
    for m in view.matches.iter().filter(|m| m.round == 1) {
        for (seed, team) in [(m.seed_a, &m.team_a), (m.seed_b, &m.team_b)] {
            if let (Some(seed), Some(team)) = (seed, team)
                && !seeds.iter().any(|s| s.seed == seed)
            {
                seeds.push(SeedLine {
                    seed,
                    team: team.name.clone(),
                    bye: m.status == BracketMatchStatus::Bye,
                });
            }
        }
    }
    seeds.sort_by_key(|s| s.seed);
    let name = |seed: Option<i64>, team: &Option<TeamRef>| match (seed, team) {
        (Some(s), Some(t)) => format!("({s}) {}", t.name),
        _ => "—".to_string(),
    };
    let pairings = view
        .matches
        .iter()
        .filter(|m| {
            m.bracket == Section::Winners && m.round == 1 && m.status != BracketMatchStatus::Bye
        })
        .map(|m| Pairing {
            label: format!("M{}", m.id + 1),
            a: name(m.seed_a, &m.team_a),
            b: name(m.seed_b, &m.team_b),
        })
        .collect();
    let byes = seeds.iter().filter(|s| s.bye).count();
    let format = if view.format == Format::DoubleElimination {
        format!(
            "Double elimination, grand final: {}",
            view.grand_final.as_str()
        )
    } else if view.third_place {
        "Single elimination with a third-place match".to_string()
    } else {
        "Single elimination".to_string()
    };
    Preview {
        seeding: view.seeding.clone().unwrap_or_default(),
        summary: format!(
            "{format}; {} teams, {byes} bye{}",
            view.teams,
            if byes == 1 { "" } else { "s" }
        ),
        seeds,
        pairings,
        matches: view
            .matches
            .iter()
            .filter(|m| {
                !matches!(
                    m.status,
                    BracketMatchStatus::Bye | BracketMatchStatus::NotNeeded
                )
            })
            .count(),
    }
}

/// After a saved decision: which team's.
#[derive(Deserialize)]
struct SavedQuery {
    saved: Option<TeamId>,
}

/// After a round's save (the round forms of [`rounds`]): which round, how many matches.
#[derive(Debug, Default, Deserialize)]
struct RoundQuery {
    round: Option<String>,
    n: Option<usize>,
}

#[get("/admin/leagues/{slug}/playoffs")]
async fn playoffs_form(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    query: web::Query<SavedQuery>,
    round: web::Query<RoundQuery>,
) -> Result<HttpResponse, PageError> {
    let setup = admin_views::playoffs_setup(&state.db, &who.user, &slug).await?;
    let typed = PlayoffsForm::defaults(setup.eligible_teams());
    let saved = query.saved.and_then(|id| {
        setup
            .eligibility
            .iter()
            .find(|r| r.team_id == id)
            .map(|r| r.team.clone())
    });
    let mut page = PlayoffsPage::new(who.nav(), setup, typed);
    page.saved = saved;
    let schedule = page.with_rounds(&state, &who, &slug, None).await?;
    let notice = schedule.and_then(|s| rounds::notice_of(&round, &page.rounds, &s));
    if let Some((text, warnings)) = notice {
        page.round_notice = Some(text);
        page.round_warnings = warnings;
    }
    page.answer()
}

/// "Save the round": the times and tables of a round's matches, all saved or none (a
/// refusal comes back with the page, the round's values as typed); then back to the round
/// with a notice and its clash warnings.
#[post("/admin/leagues/{slug}/playoffs/schedule")]
async fn schedule_round_post(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    CsrfForm(fields): CsrfForm<Vec<(String, String)>>,
) -> Result<HttpResponse, PageError> {
    let typed = RoundTyped::of(&fields);
    match reschedule::schedule_round(&state.db, &who.user, &slug, &typed.input()).await {
        Ok(saved) => {
            let query = serde_urlencoded::to_string([
                ("round", typed.round.clone()),
                ("n", saved.len().to_string()),
            ])
            .unwrap_or_default();
            Ok(see_other(&format!(
                "/admin/leagues/{slug}/playoffs?{query}#round-{}",
                typed.round
            )))
        }
        Err(e) if fixable(&e) => {
            let setup = admin_views::playoffs_setup(&state.db, &who.user, &slug).await?;
            let defaults = PlayoffsForm::defaults(setup.eligible_teams());
            let mut page = PlayoffsPage::new(who.nav(), setup, defaults);
            page.with_rounds(&state, &who, &slug, Some(&typed)).await?;
            page.errors = rounds::refusal(&typed, &page.rounds, &e);
            page.round_error = Some(if page.errors.field.is_empty() {
                format!("round-{}", typed.round)
            } else {
                page.errors.field.clone()
            });
            page.answer()
        }
        Err(e) => Err(e.into()),
    }
}

/// A team's eligibility decided by the coordinator (eligible or not, with a reason), or given
/// back to the rules; then back to the playoffs page.
#[post("/admin/leagues/{slug}/eligibility/{team_id}")]
async fn override_post(
    state: web::Data<AppState>,
    Admin(who): Admin,
    path: web::Path<(Slug, TeamId)>,
    CsrfForm(form): CsrfForm<OverrideForm>,
) -> Result<HttpResponse, PageError> {
    let (slug, team) = path.into_inner();
    let result = match form.input() {
        Ok(input) => eligibility::set_override(&state.db, &who.user, &slug, team, &input).await,
        Err(e) => Err(e),
    };
    match result {
        Ok(_) => Ok(see_other(&format!(
            "/admin/leagues/{slug}/playoffs?saved={team}#elig-{team}"
        ))),
        Err(e) if fixable(&e) => {
            let setup = admin_views::playoffs_setup(&state.db, &who.user, &slug).await?;
            if !setup.eligibility.iter().any(|r| r.team_id == team) {
                return Err(ServiceError::NotFound.into());
            }
            let errors = Errors::of(&format!("override-{team}"), &["eligible", "reason"], &e);
            let typed = PlayoffsForm::defaults(setup.eligible_teams());
            PlayoffsPage::with_override(who.nav(), setup, typed, Some((team, form)), errors)
                .answer()
        }
        Err(e) => Err(e.into()),
    }
}

const FIELDS: [&str; 5] = ["format", "teams", "third_place", "grand_final", "seeding"];

/// The refusal's field in [`Errors`]: the regular season is not over.
const UNFINISHED: &str = "unfinished";

/// The refusal in plain words (the matches themselves are listed under it, with links).
fn unfinished_words(unplayed: usize) -> String {
    format!(
        "the regular season is not over: {unplayed} regular-season match{} not played yet. Play or cancel {} first, or check the preview and press “Create the playoffs anyway” (recorded in the audit log).",
        if unplayed == 1 { " is" } else { "es are" },
        if unplayed == 1 { "it" } else { "them" }
    )
}

#[post("/admin/leagues/{slug}/playoffs")]
async fn playoffs_post(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    CsrfForm(form): CsrfForm<PlayoffsForm>,
) -> Result<HttpResponse, PageError> {
    // The league first: an unknown one is a 404 whatever the form says.
    let mut setup = admin_views::playoffs_setup(&state.db, &who.user, &slug).await?;
    let mut errors = Errors::default();
    let mut view = None;
    match form.input() {
        Err(e) => errors = Errors::of("playoffs", &FIELDS, &e),
        Ok(input) if form.action == "create" || form.action == ANYWAY => {
            match playoffs::create_playoffs(&state.db, &who.user, &slug, &input).await {
                Ok(_) => return Ok(see_other(&format!("/leagues/{slug}/bracket"))),
                Err(ServiceError::Conflict {
                    code: ErrorCode::SeasonUnfinished,
                    ..
                }) => {
                    // Refused: the matches as they are now, and the preview kept, with the
                    // choices, for the button that creates anyway.
                    setup = admin_views::playoffs_setup(&state.db, &who.user, &slug).await?;
                    errors = Errors::new(
                        "playoffs",
                        UNFINISHED,
                        unfinished_words(setup.unplayed.len()),
                    );
                    view = Some(
                        playoffs::preview_playoffs(&state.db, &who.user, &slug, &input).await?,
                    );
                }
                Err(e) if fixable(&e) => errors = Errors::of("playoffs", &FIELDS, &e),
                Err(e) => return Err(e.into()),
            }
        }
        Ok(input) => match playoffs::preview_playoffs(&state.db, &who.user, &slug, &input).await {
            Ok(v) => view = Some(v),
            Err(e) if fixable(&e) => errors = Errors::of("playoffs", &FIELDS, &e),
            Err(e) => return Err(e.into()),
        },
    }
    let mut page = PlayoffsPage::with_override(who.nav(), setup, form, None, errors);
    page.preview = view.as_ref().map(preview_of);
    page.drawing = view.as_ref().map(|v| BracketDrawing::new(v, false));
    page.answer()
}
