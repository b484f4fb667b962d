//! The coordinator's playoffs page, `/admin/leagues/{slug}/playoffs`: choose the format, the
//! field size, a third-place match or the grand final; preview the seeded bracket (seeds from
//! the standings, the first-round pairings and byes) before saving; then create it. Once the
//! bracket exists the page links to it.

use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Errors, fixable};
use crate::domain::BracketMatchStatus;
use crate::league::bracket::{Format, GrandFinal, Section};
use crate::service::admin_views::{self, PlayoffsSetup};
use crate::service::playoffs::{self, BracketView, PlayoffsInput};
use crate::service::{ServiceError, TeamRef};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, CsrfForm};
use crate::web::respond::{html, no_store, see_other};
use crate::web::view::bracket::BracketDrawing;
use crate::web::view::nav::Nav;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(playoffs_form).service(playoffs_post);
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
    /// A checkbox: create although regular-season matches remain.
    #[serde(default)]
    force: Option<String>,
    /// `preview` or `create`.
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
            force: None,
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
                    "invalid_playoffs",
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
            force: Some(self.force.is_some()),
        })
    }
}

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

#[derive(Template)]
#[template(path = "admin/playoffs.html")]
struct PlayoffsPage {
    nav: Nav,
    slug: String,
    name: String,
    /// The league already has its bracket.
    exists: bool,
    active: usize,
    typed: PlayoffsForm,
    grand_finals: Vec<GrandFinalOption>,
    preview: Option<Preview>,
    /// The previewed bracket, drawn as the bracket page draws it (no links yet).
    drawing: Option<BracketDrawing>,
    errors: Errors,
}

impl PlayoffsPage {
    fn new(nav: Nav, setup: PlayoffsSetup, typed: PlayoffsForm) -> PlayoffsPage {
        PlayoffsPage {
            nav,
            slug: setup.slug,
            name: setup.name,
            exists: setup.bracket_exists,
            active: setup.active_teams,
            grand_finals: grand_finals(&typed.grand_final),
            typed,
            preview: None,
            drawing: None,
            errors: Errors::default(),
        }
    }

    fn answer(&self) -> Result<HttpResponse, PageError> {
        Ok(no_store(html(self.errors.status(), self.render()?)))
    }
}

struct Preview {
    summary: String,
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

#[get("/admin/leagues/{slug}/playoffs")]
async fn playoffs_form(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let setup = admin_views::playoffs_setup(&state.db, &who.user, &slug).await?;
    let typed = PlayoffsForm::defaults(setup.active_teams);
    PlayoffsPage::new(who.nav(), setup, typed).answer()
}

const FIELDS: [&str; 5] = ["format", "teams", "third_place", "grand_final", "force"];

#[post("/admin/leagues/{slug}/playoffs")]
async fn playoffs_post(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<String>,
    CsrfForm(form): CsrfForm<PlayoffsForm>,
) -> Result<HttpResponse, PageError> {
    // The league first: an unknown one is a 404 whatever the form says.
    let setup = admin_views::playoffs_setup(&state.db, &who.user, &slug).await?;
    let slug = setup.slug.clone();
    let mut errors = Errors::default();
    let mut view = None;
    match form.input() {
        Err(e) => errors = Errors::of("playoffs", &FIELDS, &e),
        Ok(input) if form.action == "create" => {
            match playoffs::create_playoffs(&state.db, &who.user, &slug, &input).await {
                Ok(_) => return Ok(see_other(&format!("/leagues/{slug}/bracket"))),
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
    let mut page = PlayoffsPage::new(who.nav(), setup, form);
    page.preview = view.as_ref().map(preview_of);
    page.drawing = view.as_ref().map(|v| BracketDrawing::new(v, false));
    page.errors = errors;
    page.answer()
}
