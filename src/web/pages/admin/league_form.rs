//! A league's create and edit pages: the form (name, rules per stage, tiebreaks, season
//! settings), then a preview of the rules and settings in plain words, then the save through
//! the service calls the API uses (one transaction, audited).

use crate::domain::Slug;
use crate::web::respond::private_page;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;

use super::league_input::{LeagueForm, STAGES, rules_error_input, setting_error, spec_words};
use super::{Errors, fixable};
use crate::domain::Field;
use crate::league::settings::Settings;
use crate::league::standings::Tiebreak;
use crate::rules::describe::{RuleLine, describe};
use crate::rules::rules_form::{CONTROLS, GROUPS, Kind, TypedRules, read_rules};
use crate::rules::{Rules, RulesSpec, Stage, preset, presets};
use crate::service::term::leagues::{League, NewLeagueInput, RulesByStage};
use crate::service::{ServiceError, term::leagues, views::admin_views};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, Authed, CsrfForm};
use crate::web::view::nav::Nav;

struct StageFields {
    key: &'static str,
    label: &'static str,
    /// The regular season has no "same as the regular season" choice.
    regular: bool,
    preset: String,
    preset_unknown: bool,
    preset_error: Option<String>,
    /// The rules' controls, in the form's order.
    controls: Vec<ControlField>,
    /// How many controls are set (the preset's rules changed).
    changes: usize,
    /// An error is at one of the controls (their group opens).
    control_error: bool,
    /// The rules as the form makes them, in words (the live preview's first state).
    live: Vec<RuleLine>,
    /// Why there are no rules to show yet.
    live_note: Option<String>,
}

/// One control of a stage's rules (rules_form::CONTROLS).
struct ControlField {
    /// `{stage}_{control}`: the input's name and id.
    id: String,
    label: &'static str,
    /// The rule it sets (the live preview reads the preset's value there).
    path: &'static str,
    /// The legend of the group it starts.
    group: Option<&'static str>,
    number: bool,
    /// The choices after "as the preset": (value, words).
    options: Vec<(&'static str, &'static str)>,
    value: String,
    /// What the preset has, in the control's words.
    preset_has: String,
    error: Option<String>,
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
    settings: SettingsFields,
    /// The id of the input with the error, for the summary's link ("" for none).
    error_target: String,
    errors: Errors,
}

/// A number input of the season settings, with its hint and error.
struct SettingInput {
    name: &'static str,
    label: &'static str,
    hint: &'static str,
    value: String,
    /// `inputmode="decimal"` (else numeric).
    decimal: bool,
    error: Option<String>,
    invalid: bool,
    /// The ids of its hint and of the message about it.
    described_by: String,
}

/// The season-settings fieldset as typed.
struct SettingsFields {
    forfeit: Vec<SettingInput>,
    scale: Vec<SettingInput>,
    eligibility: Vec<SettingInput>,
    rate: bool,
    required: bool,
    all_played: bool,
    /// "Each division's winner takes a place first" is ticked.
    winners_first: bool,
    /// "Lineups required before the first hand" is ticked.
    lineups_required: bool,
    has_error: bool,
}

impl SettingsFields {
    fn of(form: &LeagueForm, errors: &Errors) -> SettingsFields {
        let inputs = SettingInputs::new(errors);
        let forfeit = inputs.forfeit(form);
        let scale = inputs.scale(form);
        let eligibility = inputs.eligibility(form);
        let has_error = [&forfeit, &scale, &eligibility]
            .iter()
            .any(|group| group.iter().any(|f| f.invalid))
            || [
                "rating_required",
                "require_all_played",
                "division_winners_first",
                "lineups_required",
            ]
            .iter()
            .any(|f| errors.bad("league", f));
        SettingsFields {
            forfeit,
            scale,
            eligibility,
            rate: !form.rate_sportsmanship.is_empty(),
            required: !form.rating_required.is_empty(),
            all_played: !form.require_all_played.is_empty(),
            winners_first: !form.division_winners_first.is_empty(),
            lineups_required: !form.lineups_required.is_empty(),
            has_error,
        }
    }
}

/// Makes the number inputs of the season settings, with the form's errors on them.
struct SettingInputs<'a> {
    errors: &'a Errors,
    /// The scale's own error (min and max together) is shown at the maximum and marks
    /// both.
    scale_error: bool,
}

impl<'a> SettingInputs<'a> {
    fn new(errors: &'a Errors) -> Self {
        SettingInputs {
            errors,
            scale_error: errors.bad("league", "rating_max"),
        }
    }

    fn input(
        &self,
        name: &'static str,
        label: &'static str,
        hint: &'static str,
        value: &str,
        decimal: bool,
    ) -> SettingInput {
        let error = self.errors.at("league", name).map(str::to_string);
        let shared = name == "rating_min" && self.scale_error;
        let mut described_by = format!("{name}-hint");
        if error.is_some() {
            described_by.push_str(&format!(" {name}-error"));
        } else if shared {
            described_by.push_str(" rating_max-error");
        }
        SettingInput {
            name,
            label,
            hint,
            value: value.to_string(),
            decimal,
            invalid: error.is_some() || shared,
            error,
            described_by,
        }
    }

    /// The forfeit policy: the grace period and when a team is dropped.
    fn forfeit(&self, form: &LeagueForm) -> Vec<SettingInput> {
        vec![
            self.input(
                "grace_minutes",
                "Grace period (minutes)",
                "Minutes after the match time when the console offers the forfeit against a team not checked in: 0 to 120. Empty: no grace clock.",
                &form.grace_minutes,
                false,
            ),
            self.input(
                "drop_after",
                "Drop a team at its n-th forfeit",
                "1 to 20: its remaining matches are cancelled, its results stay. Empty: never.",
                &form.drop_after,
                false,
            ),
            self.input(
                "default_notice_hours",
                "Hours of notice a captain's default needs",
                "0 to 168 before the match: a captain's \u{201c}we can't play\u{201d} is then a loss, not a forfeit. Empty: no defaults.",
                &form.default_notice_hours,
                false,
            ),
            self.input(
                "dispute_hours",
                "Hours after a match to dispute its result",
                "0 to 168 after its end, for a captain. Empty: 24.",
                &form.dispute_hours,
                false,
            ),
        ]
    }

    /// The sportsmanship rating scale.
    fn scale(&self, form: &LeagueForm) -> Vec<SettingInput> {
        vec![
            self.input(
                "rating_min",
                "Lowest rating",
                "0 to 9. Empty: 1.",
                &form.rating_min,
                false,
            ),
            self.input(
                "rating_max",
                "Highest rating",
                "Above the lowest, at most 10. Empty: 5.",
                &form.rating_max,
                false,
            ),
            self.input(
                "forfeit_rating",
                "Rating of a team that forfeits",
                "On the scale, given with the forfeit. Empty: the supervisor rates it like any other.",
                &form.forfeit_rating,
                false,
            ),
        ]
    }

    /// Who may play in the playoffs.
    fn eligibility(&self, form: &LeagueForm) -> Vec<SettingInput> {
        vec![
            self.input(
                "min_sportsmanship",
                "Minimum sportsmanship average",
                "On the rating scale, e.g. 3.0 (needs \u{201c}Rate sportsmanship\u{201d}); a team not rated yet is not held back. Empty: no minimum.",
                &form.min_sportsmanship,
                true,
            ),
            self.input(
                "max_forfeits",
                "Most forfeits a playoff team may have",
                "0 to 50. Empty: no limit.",
                &form.max_forfeits,
                false,
            ),
            self.input(
                "min_win_pct",
                "Minimum win percentage",
                "0 to 1 (e.g. 0.5) or a percentage (50%). Empty: no minimum.",
                &form.min_win_pct,
                true,
            ),
            self.input(
                "playoff_teams",
                "Teams the playoffs take",
                "2 to 64: each team's standings row then says whether it has clinched a place, is out, or how many wins it needs. Empty: not said.",
                &form.playoff_teams,
                false,
            ),
        ]
    }
}

/// The id of the input an error is about, for the summary's link.
fn error_target(errors: &Errors) -> String {
    let field = errors.field.as_str();
    if field.is_empty() || errors.form != "league" {
        return String::new();
    }
    if let Some(rest) = field.strip_prefix("rules.") {
        let (stage, path) = rest.split_once('.').unwrap_or((rest, ""));
        return rules_error_input(stage, path);
    }
    if field == "tiebreak_order" {
        return "tiebreak1".into();
    }
    field.to_string()
}

/// What `rules` has at a control's path, in the control's words ("500", "on", "yes", "10
/// per trick bid"); a number of an option that is off: "".
fn preset_has(rules: &Rules, kind: Kind, path: &str) -> String {
    let json = serde_json::to_value(rules).unwrap_or_default();
    let value = path
        .split('.')
        .try_fold(&json, |v, key| v.get(key))
        .unwrap_or(&serde_json::Value::Null);
    match (kind, value) {
        (Kind::Switch, serde_json::Value::Null) => "off".into(),
        (Kind::Switch, _) => "on".into(),
        (Kind::YesNo, serde_json::Value::Bool(b)) => if *b { "yes" } else { "no" }.into(),
        (Kind::Choice(options), serde_json::Value::String(v)) => options
            .iter()
            .find(|(o, _)| o == v)
            .map_or(v.clone(), |(_, w)| (*w).to_string()),
        (_, serde_json::Value::Number(n)) => n.to_string().replace('-', "\u{2212}"),
        _ => String::new(),
    }
}

/// A stage's controls as typed, with the preset's values and the error at its control.
fn control_fields(
    key: &str,
    base: &Rules,
    typed: &TypedRules,
    error: (&str, &str),
) -> Vec<ControlField> {
    CONTROLS
        .iter()
        .map(|c| {
            let id = format!("{key}_{}", c.name);
            ControlField {
                group: GROUPS.iter().find(|(at, _)| *at == c.name).map(|(_, g)| *g),
                label: c.label,
                path: c.path,
                number: c.kind == Kind::Number,
                options: match c.kind {
                    Kind::Number => Vec::new(),
                    Kind::Switch => vec![("on", "on"), ("off", "off")],
                    Kind::YesNo => vec![("yes", "yes"), ("no", "no")],
                    Kind::Choice(options) => options.to_vec(),
                },
                value: typed.get(c.name).to_string(),
                preset_has: preset_has(base, c.kind, c.path),
                error: (error.0 == id).then(|| error.1.to_string()),
                id,
            }
        })
        .collect()
}

/// One stage's fieldset: its preset, its controls and the rules they make in words.
fn stage_fields(
    form: &LeagueForm,
    stage: Stage,
    label: &'static str,
    errors: &Errors,
) -> StageFields {
    let key = stage.as_str();
    let (preset_name, typed) = form.stage(stage);
    let target = error_target(errors);
    let error = (target.as_str(), errors.message.as_str());
    let base_name = if preset_name.is_empty() {
        &form.regular_preset
    } else {
        preset_name
    };
    let base = preset(base_name)
        .map(|p| p.rules)
        .unwrap_or_else(|| presets()[0].rules.clone());
    let controls = control_fields(key, &base, &typed, error);
    let (live, live_note) = if preset_name.is_empty() && stage != Stage::Regular {
        (Vec::new(), Some("Same as the regular season.".to_string()))
    } else {
        match read_rules(preset_name, &typed) {
            Ok((_, rules)) => (describe(&rules), None),
            Err(e) => (Vec::new(), Some(format!("Not yet: {}", e.message))),
        }
    };
    StageFields {
        key,
        label,
        regular: stage == Stage::Regular,
        preset: preset_name.to_string(),
        preset_unknown: !preset_name.is_empty() && preset(preset_name).is_none(),
        preset_error: (target == format!("{key}_preset")).then(|| errors.message.clone()),
        changes: typed.set_controls().count(),
        control_error: controls.iter().any(|c| c.error.is_some()),
        controls,
        live,
        live_note,
    }
}

/// Where the form posts: the new league, or the league being edited.
fn action_of(editing: Option<&Slug>) -> String {
    match editing {
        Some(slug) => format!("/admin/leagues/{slug}/edit"),
        None => "/admin/leagues/new".to_string(),
    }
}

fn render_league_form(
    who: &Authed,
    editing: Option<&Slug>,
    form: LeagueForm,
    errors: Errors,
) -> Result<HttpResponse, PageError> {
    let stages = STAGES
        .iter()
        .map(|&(stage, label)| stage_fields(&form, stage, label, &errors))
        .collect();
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
    private_page(
        errors.status(),
        LeagueFormPage {
            nav: who.nav(),
            editing: editing.map(Slug::to_string),
            action: action_of(editing),
            stages,
            presets: presets().iter().map(|p| (p.name, p.title)).collect(),
            tiebreaks: Tiebreak::DEFAULT_ORDER
                .iter()
                .map(|t| (t.as_str(), t.words()))
                .collect(),
            slots,
            settings: SettingsFields::of(&form, &errors),
            error_target: error_target(&errors),
            form,
            errors: errors.clone(),
        },
    )
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
    /// The rules controls that are set, carried to the save as hidden fields.
    hidden_controls: Vec<(String, String)>,
    slug: String,
    stages: Vec<StagePreview>,
    tiebreak: Vec<&'static str>,
    /// The season settings in words, as captains will read them.
    settings: Vec<String>,
    /// The settings are not on the form (they stay as they are).
    settings_kept: bool,
}

/// Where a stage's rules come from, in words.
fn source(spec: Option<&RulesSpec>) -> String {
    match spec {
        None => "same as the regular season".into(),
        Some(spec) => format!("preset {}", spec_words(spec)),
    }
}

/// The fields a league service error may name, where the form shows it.
const LEAGUE_FIELDS: [&str; 3] = ["name", "slug", "tiebreak_order"];

/// The league form's POST: back to the form, a preview, or (confirmed) the save.
/// `current` is the league being edited (`None` when creating).
async fn league_post(
    state: &AppState,
    who: &Authed,
    current: Option<&League>,
    mut form: LeagueForm,
) -> Result<HttpResponse, PageError> {
    let editing = current.map(|l| &l.row.slug);
    if let Some(slug) = editing {
        form.slug = slug.to_string();
    }
    if form.back == "1" {
        return render_league_form(who, editing, form, Errors::default());
    }
    let checked = match check_league_post(state, who, current, &form).await? {
        Ok(checked) => checked,
        Err(errors) => return render_league_form(who, editing, form, errors),
    };
    if form.confirm == "1" {
        return save_league(state, who, current, form, &checked.input).await;
    }
    render_league_preview(who, editing, form, checked)
}

/// A league form checked by the service, ready to preview or save.
struct CheckedPost {
    /// With the settings patch, only where the form changes them.
    input: NewLeagueInput,
    slug: Slug,
    rules: RulesByStage,
    /// The settings the league will have.
    settings: Settings,
    /// The settings are not on the form (they stay as they are).
    settings_kept: bool,
}

/// Checks the posted form as the service will: the errors to show on the form, if any.
async fn check_league_post(
    state: &AppState,
    who: &Authed,
    current: Option<&League>,
    form: &LeagueForm,
) -> Result<Result<CheckedPost, Errors>, PageError> {
    let editing = current.map(|l| &l.row.slug);
    let creating = editing.is_none();
    let mut input = match form.input(creating) {
        Ok(input) => input,
        Err(errors) => return Ok(Err(errors)),
    };
    let (slug, rules) = match leagues::check_league_input(&input, editing) {
        Ok(checked) => checked,
        Err(e) if fixable(&e) => return Ok(Err(league_errors(&e, &LEAGUE_FIELDS))),
        Err(e) => return Err(e.into()),
    };
    if creating && admin_views::slug_taken(&state.db, &who.user, &slug).await? {
        return Ok(Err(Errors::new(
            "league",
            "slug",
            format!("a league with the slug \"{slug}\" exists; pick another"),
        )));
    }
    // The settings as they are now (a new league's: the defaults), and as the form makes
    // them (`None`: the post has no settings fieldset, they stay).
    let stored = current.map_or_else(Settings::default, |l| l.settings.clone());
    let typed = match form.settings() {
        Ok(typed) => typed,
        Err(errors) => return Ok(Err(errors)),
    };
    let settings_kept = typed.is_none();
    let (patch, settings) = match typed {
        Some((patch, settings)) => (Some(patch).filter(|_| settings != stored), settings),
        None => (None, stored),
    };
    input.settings = patch;
    Ok(Ok(CheckedPost {
        input,
        slug,
        rules,
        settings,
        settings_kept,
    }))
}

/// Saves the confirmed form: to the league's page, or back to the form with the error.
async fn save_league(
    state: &AppState,
    who: &Authed,
    current: Option<&League>,
    form: LeagueForm,
    input: &NewLeagueInput,
) -> Result<HttpResponse, PageError> {
    let editing = current.map(|l| &l.row.slug);
    let saved = match current {
        Some(league) => save_edit(state, who, league, &form, input).await,
        None => leagues::create_league(&state.db, &who.user, input).await,
    };
    match saved {
        Ok(league) => Ok(super::done(&league.row.slug, super::Done::Saved)),
        Err(ServiceError::Conflict { message, .. }) => {
            render_league_form(who, editing, form, Errors::new("league", "slug", message))
        }
        Err(e) if fixable(&e) => {
            let errors = league_errors(&e, &LEAGUE_FIELDS);
            render_league_form(who, editing, form, errors)
        }
        Err(e) => Err(e.into()),
    }
}

/// The preview of the checked form: the rules and settings in words, to confirm.
fn render_league_preview(
    who: &Authed,
    editing: Option<&Slug>,
    form: LeagueForm,
    checked: CheckedPost,
) -> Result<HttpResponse, PageError> {
    let CheckedPost {
        input,
        slug,
        rules,
        settings,
        settings_kept,
    } = checked;
    private_page(
        StatusCode::OK,
        LeaguePreviewPage {
            nav: who.nav(),
            editing: editing.map(Slug::to_string),
            action: action_of(editing),
            hidden_controls: form.set_controls(),
            form,
            slug: slug.to_string(),
            stages: stage_previews(&input, &rules),
            tiebreak: tiebreak_words(input.tiebreak_order.as_deref().unwrap_or_default()),
            settings: settings.describe(),
            settings_kept,
        },
    )
}

/// Each stage's rules in words, with where they come from.
fn stage_previews(input: &NewLeagueInput, rules: &RulesByStage) -> Vec<StagePreview> {
    vec![
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
    ]
}

/// The tiebreaks in words, in order, each once (the default order when none is given).
fn tiebreak_words(order: &[String]) -> Vec<&'static str> {
    let mut words: Vec<&'static str> = Vec::new();
    for t in order.iter().filter_map(|t| Tiebreak::parse(t)) {
        if !words.contains(&t.words()) {
            words.push(t.words());
        }
    }
    if words.is_empty() {
        words = Tiebreak::DEFAULT_ORDER.iter().map(|t| t.words()).collect();
    }
    words
}

/// Saves the edit form in one service call: only the season settings changed, the API's own
/// settings change (audited as such); otherwise the league's update, with the settings
/// when they changed too.
async fn save_edit(
    state: &AppState,
    who: &Authed,
    league: &League,
    form: &LeagueForm,
    input: &NewLeagueInput,
) -> Result<League, ServiceError> {
    let slug = &league.row.slug;
    if let Some(patch) = &input.settings
        && same_league(league, form, input)
    {
        return leagues::change_settings(&state.db, &who.user, slug, patch).await;
    }
    leagues::update_league(&state.db, &who.user, slug, input).await
}

/// The form leaves the league's name, rules and tiebreak order as they are (a stage "same
/// as the regular season" is stored as the regular season's rules, so compared as such).
fn same_league(league: &League, form: &LeagueForm, input: &NewLeagueInput) -> bool {
    let Ok(stored) = LeagueForm::of(league).input(false) else {
        return false;
    };
    let stages = |input: &NewLeagueInput| {
        let r = &input.rules;
        [
            Some(&r.regular),
            Some(r.playoff.as_ref().unwrap_or(&r.regular)),
            Some(r.r#final.as_ref().unwrap_or(&r.regular)),
        ]
        .map(|spec| serde_json::to_value(spec).ok())
    };
    let order = |input: &NewLeagueInput| {
        tiebreak_words(input.tiebreak_order.as_deref().unwrap_or_default())
    };
    form.name.trim() == league.row.name
        && stages(input) == stages(&stored)
        && order(input) == order(&stored)
}

/// A league service error placed on its field: `rules.{stage}...` stays as it is.
fn league_errors(e: &ServiceError, fields: &[&str]) -> Errors {
    if let ServiceError::Invalid(c) = e
        && let Some(f) = &c.field
        && f.is_under(&Field::RULES)
    {
        return Errors::new("league", f.as_str(), c.message.clone());
    }
    if let ServiceError::Invalid(c) = e
        && let Some(f) = &c.field
        && f.is_under(&Field::SETTINGS)
    {
        return setting_error(f.as_str(), c.message.clone());
    }
    Errors::of("league", fields, e)
}

#[get("/admin/leagues/new")]
pub(super) async fn new_league_form(Admin(who): Admin) -> Result<HttpResponse, PageError> {
    render_league_form(&who, None, LeagueForm::blank(), Errors::default())
}

#[post("/admin/leagues/new")]
pub(super) async fn new_league(
    state: web::Data<AppState>,
    Admin(who): Admin,
    CsrfForm(form): CsrfForm<LeagueForm>,
) -> Result<HttpResponse, PageError> {
    league_post(&state, &who, None, form).await
}

#[get("/admin/leagues/{slug}/edit")]
pub(super) async fn edit_league_form(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, PageError> {
    let league = admin_views::league(&state.db, &who.user, &slug).await?;
    render_league_form(
        &who,
        Some(&league.row.slug),
        LeagueForm::of(&league),
        Errors::default(),
    )
}

#[post("/admin/leagues/{slug}/edit")]
pub(super) async fn edit_league(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    CsrfForm(form): CsrfForm<LeagueForm>,
) -> Result<HttpResponse, PageError> {
    let league = admin_views::league(&state.db, &who.user, &slug).await?;
    league_post(&state, &who, Some(&league), form).await
}
