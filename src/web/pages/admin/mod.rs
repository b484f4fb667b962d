//! The coordinator's pages under `/admin`: leagues (rules per stage with a preview in plain
//! words before saving), teams (add, edit, withdraw, roster CSV import with a preview),
//! supervisors (accounts and league assignment), the schedule, and the backup download.
//!
//! Every route takes [`Admin`] (an anonymous browser is sent to the login page, a
//! supervisor gets 403); every POST checks the session's CSRF token; every answer is
//! `Cache-Control: no-store`. A form with an error is shown again with every typed value and
//! the message next to the field, and nothing is written.

pub mod playoffs;

use std::collections::HashMap;

use actix_web::http::{StatusCode, header};
use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::db::leagues as db_leagues;
use crate::db::matches as db_matches;
use crate::db::users;
use crate::league::standings::Tiebreak;
use crate::rules::describe::{RuleLine, describe};
use crate::rules::{RulesSpec, Stage, presets};
use crate::service::leagues::{
    self, League, NewLeagueInput, NewMatchInput, NewTeamInput, RosterRow, ScheduleInput, StageRules,
};
use crate::service::{Role, ServiceError, accounts};
use crate::web::AppState;
use crate::web::error::{AppError, PageError};
use crate::web::extract::{Admin, Authed};
use crate::web::respond::html;
use crate::web::respond::no_store;
use crate::web::view::nav::Nav;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(dashboard)
        .service(create_user)
        .service(new_league_form)
        .service(new_league)
        .service(backup_page)
        .service(backup)
        .service(league_page)
        .service(edit_league_form)
        .service(edit_league)
        .service(add_team)
        .service(edit_team)
        .service(withdraw_team)
        .service(assign_supervisor)
        .service(unassign_supervisor)
        .service(generate_schedule)
        .service(add_match)
        .service(import_form)
        .service(import);
}

/// Where a form's error goes: which form on the page, which field, what to say.
#[derive(Debug, Clone, Default)]
pub(super) struct Errors {
    form: String,
    field: String,
    message: String,
}

impl Errors {
    pub(super) fn new(form: &str, field: &str, message: impl Into<String>) -> Errors {
        Errors {
            form: form.into(),
            field: field.into(),
            message: message.into(),
        }
    }

    /// The message when it belongs to `field` (or the form as a whole, for `""`) of `form`.
    pub(super) fn at(&self, form: &str, field: &str) -> Option<&str> {
        (!self.message.is_empty() && self.form == form && self.field == field)
            .then_some(self.message.as_str())
    }

    pub(super) fn bad(&self, form: &str, field: &str) -> bool {
        self.at(form, field).is_some()
    }

    /// The error of a service call on `form`; `fields` are the fields the form shows (any
    /// other field's message is shown at the top of the form).
    pub(super) fn of(form: &str, fields: &[&str], e: &ServiceError) -> Errors {
        let (field, message) = match e {
            ServiceError::Invalid(c) => (c.field.clone().unwrap_or_default(), c.message.clone()),
            other => (String::new(), other.to_string()),
        };
        let field = if fields.contains(&field.as_str()) {
            field
        } else {
            String::new()
        };
        Errors::new(form, &field, message)
    }
}

/// A service error that is the user's to fix (shown on the form) or not (an error page).
pub(super) fn fixable(e: &ServiceError) -> bool {
    matches!(e, ServiceError::Invalid(_) | ServiceError::Conflict { .. })
}

pub(super) fn see_other(to: &str) -> HttpResponse {
    no_store(
        HttpResponse::SeeOther()
            .insert_header((header::LOCATION, to.to_string()))
            .finish(),
    )
}

pub(super) fn page(status: StatusCode, body: String) -> HttpResponse {
    no_store(html(status, body))
}

pub(super) fn status_of(errors: &Errors) -> StatusCode {
    if errors.message.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    }
}

#[derive(Deserialize)]
struct CsrfForm {
    #[serde(default)]
    csrf: String,
}

// ---------------------------------------------------------------------------------------
// The dashboard: leagues and users.

struct UserLine {
    username: String,
    role: String,
}

#[derive(Template)]
#[template(path = "admin/index.html")]
struct DashboardPage {
    nav: Nav,
    leagues: Vec<(String, String)>,
    users: Vec<UserLine>,
    username: String,
    /// A just-created account and its password (shown once).
    created: Option<(String, String)>,
    errors: Errors,
}

async fn render_dashboard(
    state: &AppState,
    who: &Authed,
    username: String,
    created: Option<(String, String)>,
    errors: Errors,
) -> Result<HttpResponse, PageError> {
    let leagues = leagues::all_leagues(&state.db)
        .await?
        .into_iter()
        .map(|l| (l.row.slug, l.row.name))
        .collect();
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let users = users::all(&mut conn)
        .await
        .map_err(AppError::from)?
        .into_iter()
        .map(|u| UserLine {
            username: u.username,
            role: u.role,
        })
        .collect();
    let body = DashboardPage {
        nav: who.nav(),
        leagues,
        users,
        username,
        created,
        errors: errors.clone(),
    }
    .render()?;
    Ok(page(status_of(&errors), body))
}

#[get("/admin")]
async fn dashboard(
    state: web::Data<AppState>,
    Admin(who): Admin,
) -> Result<HttpResponse, PageError> {
    render_dashboard(&state, &who, String::new(), None, Errors::default()).await
}

#[derive(Deserialize)]
struct UserForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    username: String,
    #[serde(default)]
    password: String,
}

/// Creates a supervisor account; an empty password generates one, shown once.
#[post("/admin/users")]
async fn create_user(
    state: web::Data<AppState>,
    Admin(who): Admin,
    form: web::Form<UserForm>,
) -> Result<HttpResponse, PageError> {
    who.check_csrf(&form.csrf)?;
    let username = form.username.trim().to_string();
    let password = if form.password.is_empty() {
        accounts::random_hex(8)
    } else {
        form.password.clone()
    };
    match accounts::create_user(&state.db, &username, Role::Supervisor, &password).await {
        Ok(_) => {
            render_dashboard(
                &state,
                &who,
                String::new(),
                Some((username, password)),
                Errors::default(),
            )
            .await
        }
        Err(e) if fixable(&e) => {
            let errors = Errors::of("user", &["username", "password"], &e);
            render_dashboard(&state, &who, username, None, errors).await
        }
        Err(e) => Err(e.into()),
    }
}

// ---------------------------------------------------------------------------------------
// League create / edit with a preview.

#[derive(Debug, Clone, Default, Deserialize)]
struct LeagueForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    slug: String,
    #[serde(default)]
    regular_preset: String,
    #[serde(default)]
    regular_overrides: String,
    #[serde(default)]
    playoff_preset: String,
    #[serde(default)]
    playoff_overrides: String,
    #[serde(default)]
    final_preset: String,
    #[serde(default)]
    final_overrides: String,
    #[serde(default)]
    tiebreak1: String,
    #[serde(default)]
    tiebreak2: String,
    #[serde(default)]
    tiebreak3: String,
    /// "1": save (from the preview).
    #[serde(default)]
    confirm: String,
    /// "1": back from the preview to the form.
    #[serde(default)]
    back: String,
}

const STAGES: [(&str, &str); 3] = [
    ("regular", "Regular season"),
    ("playoff", "Playoffs"),
    ("final", "Final"),
];

impl LeagueForm {
    fn stage(&self, key: &str) -> (&str, &str) {
        match key {
            "regular" => (&self.regular_preset, &self.regular_overrides),
            "playoff" => (&self.playoff_preset, &self.playoff_overrides),
            _ => (&self.final_preset, &self.final_overrides),
        }
    }

    fn tiebreaks(&self) -> [&str; 3] {
        [&self.tiebreak1, &self.tiebreak2, &self.tiebreak3]
    }

    /// The form of an existing league.
    fn of(league: &League) -> LeagueForm {
        let split = |spec: &RulesSpec| -> (String, String) {
            match spec {
                RulesSpec::Preset(name) => (name.clone(), String::new()),
                RulesSpec::Custom(map) => {
                    let name = map
                        .get("preset")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string();
                    let mut rest = map.clone();
                    rest.remove("preset");
                    let overrides = if rest.is_empty() {
                        String::new()
                    } else {
                        serde_json::to_string_pretty(&Value::Object(rest)).unwrap_or_default()
                    };
                    (name, overrides)
                }
            }
        };
        let (rp, ro) = split(&league.specs[0]);
        let (pp, po) = split(&league.specs[1]);
        let (fp, fo) = split(&league.specs[2]);
        let tb = |i: usize| {
            league
                .tiebreak
                .get(i)
                .map(|t| t.as_str().to_string())
                .unwrap_or_default()
        };
        LeagueForm {
            name: league.row.name.clone(),
            slug: league.row.slug.clone(),
            regular_preset: rp,
            regular_overrides: ro,
            playoff_preset: pp,
            playoff_overrides: po,
            final_preset: fp,
            final_overrides: fo,
            tiebreak1: tb(0),
            tiebreak2: tb(1),
            tiebreak3: tb(2),
            ..LeagueForm::default()
        }
    }

    fn blank() -> LeagueForm {
        LeagueForm {
            regular_preset: "unc-im-300".into(),
            tiebreak1: "head_to_head".into(),
            tiebreak2: "differential".into(),
            tiebreak3: "points_for".into(),
            ..LeagueForm::default()
        }
    }

    /// One stage's rules as the API takes them; `None` for "same as the regular season".
    fn spec(&self, key: &str) -> Result<Option<RulesSpec>, Errors> {
        let (preset, overrides) = self.stage(key);
        let preset = preset.trim();
        let overrides = overrides.trim();
        if preset.is_empty() && key != "regular" {
            if !overrides.is_empty() {
                return Err(Errors::new(
                    "league",
                    &format!("rules.{key}.preset"),
                    "pick a preset for these overrides (or clear them to use the regular-season rules)",
                ));
            }
            return Ok(None);
        }
        if overrides.is_empty() {
            return Ok(Some(RulesSpec::Preset(preset.to_string())));
        }
        let field = format!("rules.{key}.overrides");
        let mut map: Map<String, Value> = match serde_json::from_str(overrides) {
            Ok(Value::Object(map)) => map,
            Ok(_) => {
                return Err(Errors::new(
                    "league",
                    &field,
                    "overrides must be a JSON object, e.g. {\"target\": 300}",
                ));
            }
            Err(e) => {
                return Err(Errors::new(
                    "league",
                    &field,
                    format!("overrides are not valid JSON: {e}"),
                ));
            }
        };
        if map.contains_key("preset") {
            return Err(Errors::new(
                "league",
                &field,
                "pick the preset in the list above, not in the overrides",
            ));
        }
        map.insert("preset".into(), Value::String(preset.to_string()));
        Ok(Some(RulesSpec::Custom(map)))
    }

    fn input(&self, creating: bool) -> Result<NewLeagueInput, Errors> {
        let regular = self.spec("regular")?.unwrap_or_default();
        let tiebreak: Vec<String> = self
            .tiebreaks()
            .iter()
            .map(|t| t.trim())
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect();
        Ok(NewLeagueInput {
            name: self.name.clone(),
            slug: creating.then(|| self.slug.trim().to_string()),
            rules: StageRules {
                regular,
                playoff: self.spec("playoff")?,
                r#final: self.spec("final")?,
            },
            tiebreak_order: Some(tiebreak),
        })
    }

    /// The same values, compact, for the preview's hidden fields.
    fn normalized(&self) -> LeagueForm {
        let compact = |s: &str| -> String {
            serde_json::from_str::<Value>(s.trim())
                .map(|v| v.to_string())
                .unwrap_or_else(|_| s.to_string())
        };
        let mut f = self.clone();
        f.regular_overrides = compact(&f.regular_overrides);
        f.playoff_overrides = compact(&f.playoff_overrides);
        f.final_overrides = compact(&f.final_overrides);
        f
    }
}

struct StageFields {
    key: &'static str,
    label: &'static str,
    preset: String,
    overrides: String,
    preset_unknown: bool,
    preset_error: Option<String>,
    overrides_error: Option<String>,
}

struct TiebreakSlot {
    n: usize,
    value: String,
    unknown: bool,
}

#[derive(Template)]
#[template(path = "admin/league_form.html")]
struct LeagueFormPage {
    nav: Nav,
    /// `None` when creating.
    editing: Option<String>,
    action: String,
    form: LeagueForm,
    stages: Vec<StageFields>,
    presets: Vec<(&'static str, &'static str)>,
    tiebreaks: Vec<(&'static str, &'static str)>,
    slots: Vec<TiebreakSlot>,
    errors: Errors,
}

fn render_league_form(
    who: &Authed,
    editing: Option<&str>,
    form: LeagueForm,
    errors: Errors,
) -> Result<HttpResponse, PageError> {
    let stages = STAGES
        .iter()
        .map(|(key, label)| {
            let (preset, overrides) = form.stage(key);
            let field = errors.field.clone();
            let mine = errors.form == "league" && field.starts_with(&format!("rules.{key}"));
            let is_preset = field == format!("rules.{key}.preset");
            StageFields {
                key,
                label,
                preset: preset.to_string(),
                preset_unknown: !preset.is_empty() && presets().iter().all(|p| p.name != preset),
                overrides: overrides.to_string(),
                preset_error: (mine && is_preset).then(|| errors.message.clone()),
                overrides_error: (mine && !is_preset).then(|| errors.message.clone()),
            }
        })
        .collect();
    let action = match editing {
        Some(slug) => format!("/admin/leagues/{slug}/edit"),
        None => "/admin/leagues/new".to_string(),
    };
    let slots: Vec<TiebreakSlot> = form
        .tiebreaks()
        .iter()
        .enumerate()
        .map(|(i, v)| TiebreakSlot {
            n: i + 1,
            value: v.to_string(),
            unknown: !v.is_empty() && Tiebreak::parse(v).is_none(),
        })
        .collect();
    let body = LeagueFormPage {
        nav: who.nav(),
        editing: editing.map(str::to_string),
        action,
        form,
        stages,
        presets: presets().iter().map(|p| (p.name, p.title)).collect(),
        tiebreaks: Tiebreak::DEFAULT_ORDER
            .iter()
            .map(|t| (t.as_str(), t.words()))
            .collect(),
        slots,
        errors: errors.clone(),
    }
    .render()?;
    Ok(page(status_of(&errors), body))
}

struct StagePreview {
    label: &'static str,
    source: String,
    lines: Vec<RuleLine>,
}

#[derive(Template)]
#[template(path = "admin/league_preview.html")]
struct LeaguePreviewPage {
    nav: Nav,
    editing: Option<String>,
    action: String,
    form: LeagueForm,
    slug: String,
    stages: Vec<StagePreview>,
    tiebreak: Vec<&'static str>,
}

/// The league form's POST: back to the form, a preview, or (confirmed) the save.
async fn league_post(
    state: &AppState,
    who: &Authed,
    editing: Option<&str>,
    form: LeagueForm,
) -> Result<HttpResponse, PageError> {
    who.check_csrf(&form.csrf)?;
    let creating = editing.is_none();
    let mut form = form;
    if let Some(slug) = editing {
        form.slug = slug.to_string();
    }
    if form.back == "1" {
        return render_league_form(who, editing, form, Errors::default());
    }
    let input = match form.input(creating) {
        Ok(input) => input,
        Err(errors) => return render_league_form(who, editing, form, errors),
    };
    let fields = ["name", "slug", "tiebreak_order"];
    let rules = match leagues::check_league_input(&input, creating) {
        Ok(rules) => rules,
        Err(e) if fixable(&e) => {
            let errors = league_errors(&e, &fields);
            return render_league_form(who, editing, form, errors);
        }
        Err(e) => return Err(e.into()),
    };
    let slug = match editing {
        Some(s) => s.to_string(),
        None => match input.slug.as_deref().filter(|s| !s.is_empty()) {
            Some(s) => s.to_string(),
            None => crate::service::slugify(&input.name),
        },
    };
    if creating && slug == "new" {
        let errors = Errors::new(
            "league",
            "slug",
            "\"new\" is taken by the new-league page; pick another slug",
        );
        return render_league_form(who, editing, form, errors);
    }
    if creating {
        let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
        if db_leagues::by_slug(&mut conn, &slug)
            .await
            .map_err(AppError::from)?
            .is_some()
        {
            let errors = Errors::new(
                "league",
                "slug",
                format!("a league with the slug \"{slug}\" exists; pick another"),
            );
            return render_league_form(who, editing, form, errors);
        }
    }
    if form.confirm == "1" {
        let saved = match editing {
            Some(s) => leagues::update_league(&state.db, &who.user, s, &input).await,
            None => leagues::create_league(&state.db, &who.user, &input).await,
        };
        return match saved {
            Ok(league) => Ok(see_other(&format!(
                "/admin/leagues/{}?done=saved",
                league.row.slug
            ))),
            Err(ServiceError::Conflict { message, .. }) => {
                render_league_form(who, editing, form, Errors::new("league", "slug", message))
            }
            Err(e) if fixable(&e) => {
                let errors = league_errors(&e, &fields);
                render_league_form(who, editing, form, errors)
            }
            Err(e) => Err(e.into()),
        };
    }
    let source = |spec: Option<&RulesSpec>| -> String {
        match spec {
            None => "same as the regular season".into(),
            Some(RulesSpec::Preset(p)) => format!("preset {p}"),
            Some(RulesSpec::Custom(map)) => {
                let mut rest = map.clone();
                let p = rest
                    .remove("preset")
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                format!("preset {p} with {}", Value::Object(rest))
            }
        }
    };
    let stages = vec![
        StagePreview {
            label: STAGES[0].1,
            source: source(Some(&input.rules.regular)),
            lines: describe(&rules.regular),
        },
        StagePreview {
            label: STAGES[1].1,
            source: source(input.rules.playoff.as_ref()),
            lines: describe(&rules.playoff),
        },
        StagePreview {
            label: STAGES[2].1,
            source: source(input.rules.r#final.as_ref()),
            lines: describe(&rules.r#final),
        },
    ];
    let mut tiebreak: Vec<&'static str> = Vec::new();
    for t in input
        .tiebreak_order
        .iter()
        .flatten()
        .filter_map(|t| Tiebreak::parse(t))
    {
        if !tiebreak.contains(&t.words()) {
            tiebreak.push(t.words());
        }
    }
    if tiebreak.is_empty() {
        tiebreak = Tiebreak::DEFAULT_ORDER.iter().map(|t| t.words()).collect();
    }
    let action = match editing {
        Some(s) => format!("/admin/leagues/{s}/edit"),
        None => "/admin/leagues/new".to_string(),
    };
    let body = LeaguePreviewPage {
        nav: who.nav(),
        editing: editing.map(str::to_string),
        action,
        form: form.normalized(),
        slug,
        stages,
        tiebreak,
    }
    .render()?;
    Ok(page(StatusCode::OK, body))
}

/// A league service error placed on its field: `rules.{stage}...` stays as it is.
fn league_errors(e: &ServiceError, fields: &[&str]) -> Errors {
    if let ServiceError::Invalid(c) = e
        && let Some(f) = c.field.as_deref()
        && f.starts_with("rules.")
    {
        return Errors::new("league", f, c.message.clone());
    }
    Errors::of("league", fields, e)
}

#[get("/admin/leagues/new")]
async fn new_league_form(Admin(who): Admin) -> Result<HttpResponse, PageError> {
    render_league_form(&who, None, LeagueForm::blank(), Errors::default())
}

#[post("/admin/leagues/new")]
async fn new_league(
    state: web::Data<AppState>,
    Admin(who): Admin,
    form: web::Form<LeagueForm>,
) -> Result<HttpResponse, PageError> {
    league_post(&state, &who, None, form.into_inner()).await
}

pub(super) async fn league_of(state: &AppState, slug: &str) -> Result<League, PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    Ok(leagues::league_by_slug(&mut conn, slug).await?)
}

#[get("/admin/leagues/{slug}/edit")]
async fn edit_league_form(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let league = league_of(&state, &slug).await?;
    render_league_form(
        &who,
        Some(&league.row.slug),
        LeagueForm::of(&league),
        Errors::default(),
    )
}

#[post("/admin/leagues/{slug}/edit")]
async fn edit_league(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<String>,
    form: web::Form<LeagueForm>,
) -> Result<HttpResponse, PageError> {
    who.check_csrf(&form.csrf)?;
    let league = league_of(&state, &slug).await?;
    league_post(&state, &who, Some(&league.row.slug), form.into_inner()).await
}

// ---------------------------------------------------------------------------------------
// A league's page: teams, supervisors, schedule.

#[derive(Debug, Clone, Default, Deserialize)]
struct TeamForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    player1: String,
    #[serde(default)]
    player2: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
struct SupervisorForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    username: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
struct ScheduleForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    start_date: String,
    #[serde(default)]
    time: String,
    #[serde(default)]
    days_between: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
struct MatchForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    team_a: String,
    #[serde(default)]
    team_b: String,
    #[serde(default)]
    stage: String,
    #[serde(default)]
    table: String,
    #[serde(default)]
    scheduled_at: String,
}

/// What was typed in the league page's forms (kept when one of them has an error).
#[derive(Default)]
struct Typed {
    team: TeamForm,
    /// The team being edited and what was typed for it.
    edit: Option<(i64, TeamForm)>,
    supervisor: SupervisorForm,
    schedule: ScheduleForm,
    game: MatchForm,
}

struct TeamLine {
    id: i64,
    name: String,
    player1: String,
    player2: String,
    withdrawn: bool,
    /// The edit form is open (it has an error).
    open: bool,
    form: TeamForm,
    form_key: String,
}

struct MatchLine {
    id: i64,
    when: String,
    table: String,
    stage: String,
    round: String,
    team_a: String,
    team_b: String,
    status: String,
    score: String,
}

#[derive(Template)]
#[template(path = "admin/league.html")]
struct LeaguePage {
    nav: Nav,
    slug: String,
    name: String,
    rules: Vec<(&'static str, String)>,
    tiebreak: Vec<&'static str>,
    teams: Vec<TeamLine>,
    active: Vec<(i64, String)>,
    supervisors: Vec<(i64, String)>,
    candidates: Vec<String>,
    matches: Vec<MatchLine>,
    has_regular: bool,
    typed: Typed,
    errors: Errors,
    notice: Option<&'static str>,
}

fn notice_of(done: Option<&str>) -> Option<&'static str> {
    Some(match done? {
        "saved" => "League saved.",
        "team" => "Team added.",
        "team-edit" => "Team saved.",
        "withdrawn" => "Team withdrawn.",
        "reinstated" => "Team reinstated.",
        "assigned" => "Supervisor assigned.",
        "unassigned" => "Supervisor removed from the league.",
        "schedule" => "Round robin generated.",
        "match" => "Match added.",
        "import" => "Roster imported.",
        _ => return None,
    })
}

fn spec_words(spec: &RulesSpec) -> String {
    match spec {
        RulesSpec::Preset(p) => p.clone(),
        RulesSpec::Custom(map) => {
            let mut rest = map.clone();
            let p = rest
                .remove("preset")
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            format!("{p} with {}", Value::Object(rest))
        }
    }
}

async fn render_league(
    state: &AppState,
    who: &Authed,
    slug: &str,
    typed: Typed,
    errors: Errors,
    notice: Option<&'static str>,
) -> Result<HttpResponse, PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let league = leagues::league_by_slug(&mut conn, slug).await?;
    let id = league.row.id;
    let teams = db_leagues::teams(&mut conn, id)
        .await
        .map_err(AppError::from)?;
    let supervisors = db_leagues::supervisors(&mut conn, id)
        .await
        .map_err(AppError::from)?;
    let candidates = users::all(&mut conn)
        .await
        .map_err(AppError::from)?
        .into_iter()
        .filter(|u| u.role == "supervisor" && !supervisors.iter().any(|(i, _)| *i == u.id))
        .map(|u| u.username)
        .collect();
    let matches = db_matches::of_league(&mut conn, id)
        .await
        .map_err(AppError::from)?;
    drop(conn);
    let names: HashMap<i64, String> = teams.iter().map(|t| (t.id, t.name.clone())).collect();
    let name_of = |id: i64| names.get(&id).cloned().unwrap_or_else(|| format!("#{id}"));
    let matches: Vec<MatchLine> = matches
        .iter()
        .map(|m| MatchLine {
            id: m.id,
            when: m
                .scheduled_at
                .clone()
                .map(|s| s.replace('T', " "))
                .unwrap_or_default(),
            table: m.table_name.clone().unwrap_or_default(),
            stage: m.stage.clone(),
            round: m.round.map(|r| r.to_string()).unwrap_or_default(),
            team_a: name_of(m.team_a),
            team_b: name_of(m.team_b),
            status: m.status.replace('_', " "),
            score: if m.status == "scheduled" {
                String::new()
            } else {
                format!("{}–{}", m.score_a, m.score_b)
            },
        })
        .collect();
    let has_regular = matches.iter().any(|m| m.stage == "regular");
    let team_lines = teams
        .iter()
        .map(|t| {
            let edited = typed.edit.as_ref().filter(|(i, _)| *i == t.id);
            TeamLine {
                id: t.id,
                name: t.name.clone(),
                player1: t.player1.clone(),
                player2: t.player2.clone(),
                withdrawn: t.withdrawn,
                open: edited.is_some(),
                form: edited.map(|(_, f)| f.clone()).unwrap_or_else(|| TeamForm {
                    name: t.name.clone(),
                    player1: t.player1.clone(),
                    player2: t.player2.clone(),
                    ..TeamForm::default()
                }),
                form_key: format!("team-{}", t.id),
            }
        })
        .collect();
    let active = teams
        .iter()
        .filter(|t| !t.withdrawn)
        .map(|t| (t.id, t.name.clone()))
        .collect();
    let body = LeaguePage {
        nav: who.nav(),
        slug: league.row.slug.clone(),
        name: league.row.name.clone(),
        rules: STAGES
            .iter()
            .zip(league.specs.iter())
            .map(|((_, label), spec)| (*label, spec_words(spec)))
            .collect(),
        tiebreak: league.tiebreak.iter().map(|t| t.words()).collect(),
        teams: team_lines,
        active,
        supervisors,
        candidates,
        matches,
        has_regular,
        typed,
        errors: errors.clone(),
        notice,
    }
    .render()?;
    Ok(page(status_of(&errors), body))
}

#[derive(Deserialize)]
struct DoneQuery {
    done: Option<String>,
}

#[get("/admin/leagues/{slug}")]
async fn league_page(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<String>,
    query: web::Query<DoneQuery>,
) -> Result<HttpResponse, PageError> {
    render_league(
        &state,
        &who,
        &slug,
        Typed::default(),
        Errors::default(),
        notice_of(query.done.as_deref()),
    )
    .await
}

fn done(slug: &str, what: &str) -> HttpResponse {
    see_other(&format!("/admin/leagues/{slug}?done={what}"))
}

/// The players' error ("players") goes next to the second player's field.
fn team_errors(form: &str, e: &ServiceError) -> Errors {
    Errors::of(form, &["name", "players"], e)
}

#[post("/admin/leagues/{slug}/teams")]
async fn add_team(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<String>,
    form: web::Form<TeamForm>,
) -> Result<HttpResponse, PageError> {
    who.check_csrf(&form.csrf)?;
    let input = NewTeamInput {
        name: form.name.clone(),
        players: vec![form.player1.clone(), form.player2.clone()],
    };
    match leagues::add_team(&state.db, &who.user, &slug, &input).await {
        Ok(_) => Ok(done(&slug, "team")),
        Err(e) if fixable(&e) => {
            let typed = Typed {
                team: form.into_inner(),
                ..Typed::default()
            };
            render_league(&state, &who, &slug, typed, team_errors("team", &e), None).await
        }
        Err(e) => Err(e.into()),
    }
}

async fn team_in(state: &AppState, slug: &str, id: i64) -> Result<db_leagues::TeamRow, PageError> {
    let league = league_of(state, slug).await?;
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    db_leagues::team(&mut conn, id)
        .await
        .map_err(AppError::from)?
        .filter(|t| t.league_id == league.row.id)
        .ok_or(PageError(AppError::NotFound))
}

#[post("/admin/leagues/{slug}/teams/{id}")]
async fn edit_team(
    state: web::Data<AppState>,
    Admin(who): Admin,
    path: web::Path<(String, i64)>,
    form: web::Form<TeamForm>,
) -> Result<HttpResponse, PageError> {
    who.check_csrf(&form.csrf)?;
    let (slug, id) = path.into_inner();
    let team = team_in(&state, &slug, id).await?;
    let input = NewTeamInput {
        name: form.name.clone(),
        players: vec![form.player1.clone(), form.player2.clone()],
    };
    match leagues::update_team(&state.db, &who.user, &slug, id, &input, team.withdrawn).await {
        Ok(_) => Ok(done(&slug, "team-edit")),
        Err(e) if fixable(&e) => {
            let key = format!("team-{id}");
            let typed = Typed {
                edit: Some((id, form.into_inner())),
                ..Typed::default()
            };
            render_league(&state, &who, &slug, typed, team_errors(&key, &e), None).await
        }
        Err(e) => Err(e.into()),
    }
}

#[derive(Deserialize)]
struct WithdrawForm {
    #[serde(default)]
    csrf: String,
    /// "1" to withdraw, "0" to reinstate.
    #[serde(default)]
    withdrawn: String,
}

#[post("/admin/leagues/{slug}/teams/{id}/withdraw")]
async fn withdraw_team(
    state: web::Data<AppState>,
    Admin(who): Admin,
    path: web::Path<(String, i64)>,
    form: web::Form<WithdrawForm>,
) -> Result<HttpResponse, PageError> {
    who.check_csrf(&form.csrf)?;
    let (slug, id) = path.into_inner();
    let team = team_in(&state, &slug, id).await?;
    let withdrawn = form.withdrawn != "0";
    let input = NewTeamInput {
        name: team.name.clone(),
        players: vec![team.player1.clone(), team.player2.clone()],
    };
    leagues::update_team(&state.db, &who.user, &slug, id, &input, withdrawn).await?;
    Ok(done(
        &slug,
        if withdrawn { "withdrawn" } else { "reinstated" },
    ))
}

#[post("/admin/leagues/{slug}/supervisors")]
async fn assign_supervisor(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<String>,
    form: web::Form<SupervisorForm>,
) -> Result<HttpResponse, PageError> {
    who.check_csrf(&form.csrf)?;
    let username = form.username.trim().to_string();
    let result = if username.is_empty() {
        Err(ServiceError::invalid(
            "invalid_user",
            "username",
            "pick a supervisor account (create one on the admin page first)",
        ))
    } else {
        leagues::assign_supervisor(&state.db, &who.user, &slug, &username).await
    };
    match result {
        Ok(()) => Ok(done(&slug, "assigned")),
        Err(e) if fixable(&e) => {
            let typed = Typed {
                supervisor: form.into_inner(),
                ..Typed::default()
            };
            let errors = Errors::of("supervisor", &["username"], &e);
            render_league(&state, &who, &slug, typed, errors, None).await
        }
        Err(e) => Err(e.into()),
    }
}

#[post("/admin/leagues/{slug}/supervisors/{user_id}/remove")]
async fn unassign_supervisor(
    state: web::Data<AppState>,
    Admin(who): Admin,
    path: web::Path<(String, i64)>,
    form: web::Form<CsrfForm>,
) -> Result<HttpResponse, PageError> {
    who.check_csrf(&form.csrf)?;
    let (slug, user_id) = path.into_inner();
    leagues::unassign_supervisor(&state.db, &who.user, &slug, user_id).await?;
    Ok(done(&slug, "unassigned"))
}

#[post("/admin/leagues/{slug}/schedule")]
async fn generate_schedule(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<String>,
    form: web::Form<ScheduleForm>,
) -> Result<HttpResponse, PageError> {
    who.check_csrf(&form.csrf)?;
    let days = form.days_between.trim();
    let days_between = if days.is_empty() {
        Ok(None)
    } else {
        match days.parse::<u32>() {
            Ok(d) if (1..=60).contains(&d) => Ok(Some(d)),
            _ => Err(ServiceError::invalid(
                "invalid_schedule",
                "days_between",
                "days between league nights is a whole number from 1 to 60",
            )),
        }
    };
    let result = match days_between {
        Ok(days_between) => {
            let input = ScheduleInput {
                format: "round_robin".into(),
                start_date: Some(form.start_date.clone()),
                time: Some(form.time.clone()),
                days_between,
            };
            leagues::generate_schedule(&state.db, &who.user, &slug, &input).await
        }
        Err(e) => Err(e),
    };
    match result {
        Ok(_) => Ok(done(&slug, "schedule")),
        Err(e) if fixable(&e) => {
            let typed = Typed {
                schedule: form.into_inner(),
                ..Typed::default()
            };
            let errors = Errors::of("schedule", &["start_date", "time", "days_between"], &e);
            render_league(&state, &who, &slug, typed, errors, None).await
        }
        Err(e) => Err(e.into()),
    }
}

#[post("/admin/leagues/{slug}/matches")]
async fn add_match(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<String>,
    form: web::Form<MatchForm>,
) -> Result<HttpResponse, PageError> {
    who.check_csrf(&form.csrf)?;
    let team = |field: &str, value: &str, which: &str| -> Result<i64, ServiceError> {
        value.trim().parse::<i64>().map_err(|_| {
            ServiceError::invalid("invalid_match", field, format!("pick team {which}"))
        })
    };
    let stage = match form.stage.as_str() {
        "" | "regular" => Ok(Stage::Regular),
        "playoff" => Ok(Stage::Playoff),
        "final" => Ok(Stage::Final),
        other => Err(ServiceError::invalid(
            "invalid_match",
            "stage",
            format!("unknown stage \"{other}\"; use regular, playoff or final"),
        )),
    };
    let result = async {
        let input = NewMatchInput {
            team_a: team("team_a", &form.team_a, "A")?,
            team_b: team("team_b", &form.team_b, "B")?,
            stage: Some(stage?),
            table: Some(form.table.clone()),
            scheduled_at: Some(form.scheduled_at.clone()),
        };
        leagues::create_match(&state.db, &who.user, &slug, &input).await
    }
    .await;
    match result {
        Ok(_) => Ok(done(&slug, "match")),
        Err(e) if fixable(&e) => {
            let typed = Typed {
                game: form.into_inner(),
                ..Typed::default()
            };
            let errors = Errors::of(
                "match",
                &["team_a", "team_b", "stage", "table", "scheduled_at"],
                &e,
            );
            render_league(&state, &who, &slug, typed, errors, None).await
        }
        Err(e) => Err(e.into()),
    }
}

// ---------------------------------------------------------------------------------------
// Roster import.

#[derive(Template)]
#[template(path = "admin/import.html")]
struct ImportPage {
    nav: Nav,
    slug: String,
    name: String,
    csv: String,
    rows: Option<Vec<RosterRow>>,
    valid: usize,
    errors: Errors,
}

#[derive(Deserialize)]
struct ImportForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    csv: String,
    /// "1": import the valid rows.
    #[serde(default)]
    confirm: String,
}

#[get("/admin/leagues/{slug}/import")]
async fn import_form(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let league = league_of(&state, &slug).await?;
    let body = ImportPage {
        nav: who.nav(),
        slug: league.row.slug,
        name: league.row.name,
        csv: String::new(),
        rows: None,
        valid: 0,
        errors: Errors::default(),
    }
    .render()?;
    Ok(page(StatusCode::OK, body))
}

#[post("/admin/leagues/{slug}/import")]
async fn import(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<String>,
    form: web::Form<ImportForm>,
) -> Result<HttpResponse, PageError> {
    who.check_csrf(&form.csrf)?;
    let league = league_of(&state, &slug).await?;
    let mut errors = Errors::default();
    let mut rows =
        match leagues::preview_roster(&state.db, &who.user, &league.row.slug, &form.csv).await {
            Ok(rows) => Some(rows),
            Err(e) if fixable(&e) => {
                errors = Errors::of("import", &["csv"], &e);
                None
            }
            Err(e) => return Err(e.into()),
        };
    if rows.as_ref().is_some_and(|r| r.is_empty()) {
        rows = None;
        errors = Errors::new(
            "import",
            "csv",
            "paste the roster: one team a line, team,player1,player2",
        );
    } else if form.confirm == "1" && errors.message.is_empty() {
        match leagues::import_roster(&state.db, &who.user, &league.row.slug, &form.csv).await {
            Ok(_) => return Ok(done(&league.row.slug, "import")),
            Err(e) if fixable(&e) => errors = Errors::of("import", &["csv"], &e),
            Err(e) => return Err(e.into()),
        }
    }
    let valid = rows
        .as_ref()
        .map_or(0, |r| r.iter().filter(|r| r.team.is_some()).count());
    let body = ImportPage {
        nav: who.nav(),
        slug: league.row.slug,
        name: league.row.name,
        csv: form.csv.clone(),
        rows,
        valid,
        errors: errors.clone(),
    }
    .render()?;
    Ok(page(status_of(&errors), body))
}

// ---------------------------------------------------------------------------------------
// Backup download.

#[derive(Template)]
#[template(path = "admin/backup.html")]
struct BackupPage {
    nav: Nav,
}

#[get("/admin/backup")]
async fn backup_page(Admin(who): Admin) -> Result<HttpResponse, PageError> {
    let body = BackupPage { nav: who.nav() }.render()?;
    Ok(page(StatusCode::OK, body))
}

/// A fresh `VACUUM INTO` copy (integrity checked), sent as a download and then deleted.
#[post("/admin/backup")]
async fn backup(
    state: web::Data<AppState>,
    Admin(who): Admin,
    form: web::Form<CsrfForm>,
) -> Result<HttpResponse, PageError> {
    who.check_csrf(&form.csrf)?;
    let path = std::env::temp_dir().join(format!(
        "spades-im-backup-{}.sqlite3",
        accounts::random_hex(12)
    ));
    let made = state.db.backup(&path).await;
    let bytes = match made {
        Ok(()) => tokio::fs::read(&path).await,
        Err(e) => {
            let _ = tokio::fs::remove_file(&path).await;
            return Err(AppError::Internal(format!("backup: {e}")).into());
        }
    };
    let _ = tokio::fs::remove_file(&path).await;
    let bytes = bytes.map_err(|e| AppError::Internal(format!("backup read: {e}")))?;
    let name = format!(
        "spades-im-{}.sqlite3",
        chrono::Utc::now().format("%Y%m%d-%H%M")
    );
    Ok(no_store(
        HttpResponse::Ok()
            .content_type("application/octet-stream")
            .insert_header((
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ))
            .body(bytes),
    ))
}
