//! A league's create and edit pages: the form, then a preview of the rules in plain words,
//! then the save.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;

use super::league_input::{LeagueForm, STAGES, spec_words};
use super::{Errors, fixable};
use crate::league::standings::Tiebreak;
use crate::rules::describe::{RuleLine, describe};
use crate::rules::{RulesSpec, presets};
use crate::service::{ServiceError, admin_views, leagues};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, Authed, CsrfForm};
use crate::web::respond::{html, no_store, see_other};
use crate::web::view::nav::Nav;

struct StageFields {
    key: &'static str,
    label: &'static str,
    /// The regular season has no "same as the regular season" choice.
    regular: bool,
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

/// Where the form posts: the new league, or the league being edited.
fn action_of(editing: Option<&str>) -> String {
    match editing {
        Some(slug) => format!("/admin/leagues/{slug}/edit"),
        None => "/admin/leagues/new".to_string(),
    }
}

fn render_league_form(
    who: &Authed,
    editing: Option<&str>,
    form: LeagueForm,
    errors: Errors,
) -> Result<HttpResponse, PageError> {
    let stages = STAGES
        .iter()
        .map(|&(stage, label)| {
            let key = stage.as_str();
            let (preset, overrides) = form.stage(stage);
            let field = errors.field.as_str();
            let mine = errors.form == "league" && field.starts_with(&format!("rules.{key}"));
            let is_preset = field == format!("rules.{key}.preset");
            StageFields {
                key,
                label,
                regular: stage == crate::rules::Stage::Regular,
                preset: preset.to_string(),
                preset_unknown: !preset.is_empty() && presets().iter().all(|p| p.name != preset),
                overrides: overrides.to_string(),
                preset_error: (mine && is_preset).then(|| errors.message.clone()),
                overrides_error: (mine && !is_preset).then(|| errors.message.clone()),
            }
        })
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
    let body = LeagueFormPage {
        nav: who.nav(),
        editing: editing.map(str::to_string),
        action: action_of(editing),
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
    Ok(no_store(html(errors.status(), body)))
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

/// Where a stage's rules come from, in words.
fn source(spec: Option<&RulesSpec>) -> String {
    match spec {
        None => "same as the regular season".into(),
        Some(spec) => format!("preset {}", spec_words(spec)),
    }
}

/// The league form's POST: back to the form, a preview, or (confirmed) the save.
async fn league_post(
    state: &AppState,
    who: &Authed,
    editing: Option<&str>,
    mut form: LeagueForm,
) -> Result<HttpResponse, PageError> {
    let creating = editing.is_none();
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
    if creating && admin_views::slug_taken(&state.db, &who.user, &slug).await? {
        let errors = Errors::new(
            "league",
            "slug",
            format!("a league with the slug \"{slug}\" exists; pick another"),
        );
        return render_league_form(who, editing, form, errors);
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
    let body = LeaguePreviewPage {
        nav: who.nav(),
        editing: editing.map(str::to_string),
        action: action_of(editing),
        form: form.normalized(),
        slug,
        stages,
        tiebreak,
    }
    .render()?;
    Ok(no_store(html(StatusCode::OK, body)))
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
    slug: web::Path<String>,
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
    slug: web::Path<String>,
    CsrfForm(form): CsrfForm<LeagueForm>,
) -> Result<HttpResponse, PageError> {
    let league = admin_views::league(&state.db, &who.user, &slug).await?;
    league_post(&state, &who, Some(&league.row.slug), form).await
}
