//! The coordinator's playoffs page, `/admin/leagues/{slug}/playoffs`: choose the format, the
//! field size, a third-place match or the grand final; preview the seeded bracket (seeds from
//! the standings, the first-round pairings and byes) before saving; then create it. Once the
//! bracket exists the page links to it.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use crate::service::ServiceError;
use crate::service::playoffs::{self, BracketView, PlayoffsInput};
use crate::web::AppState;
use crate::web::error::{AppError, PageError};
use crate::web::extract::Admin;
use crate::web::pages::admin::{Errors, fixable, league_of, page, see_other, status_of};
use crate::web::pages::public::bracket::BracketDrawing;
use crate::web::view::nav::Nav;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(playoffs_form).service(playoffs_post);
}

/// The form as typed (strings, so a bad value comes back as it was).
#[derive(Debug, Clone, Deserialize)]
struct PlayoffsForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    format: String,
    #[serde(default)]
    teams: String,
    /// A checkbox: present when ticked.
    #[serde(default)]
    third_place: Option<String>,
    #[serde(default)]
    grand_final: String,
    /// `preview` or `create`.
    #[serde(default)]
    action: String,
}

impl PlayoffsForm {
    fn defaults(active: usize) -> PlayoffsForm {
        PlayoffsForm {
            csrf: String::new(),
            format: "single_elimination".into(),
            teams: active.to_string(),
            third_place: Some("1".into()),
            grand_final: "double".into(),
            action: String::new(),
        }
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
        let double = self.format == "double_elimination";
        Ok(PlayoffsInput {
            format: self.format.clone(),
            teams,
            // Each option belongs to one format: the other's control is ignored.
            third_place: (!double).then_some(self.third_place.is_some()),
            grand_final: double.then(|| self.grand_final.clone()),
        })
    }
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
    preview: Option<Preview>,
    /// The previewed bracket, drawn as the bracket page draws it (no links yet).
    drawing: Option<BracketDrawing>,
    errors: Errors,
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
                    bye: m.status == "bye",
                });
            }
        }
    }
    seeds.sort_by_key(|s| s.seed);
    let name =
        |seed: Option<i64>, team: &Option<crate::service::matches::TeamRef>| match (seed, team) {
            (Some(s), Some(t)) => format!("({s}) {}", t.name),
            _ => "—".to_string(),
        };
    let pairings = view
        .matches
        .iter()
        .filter(|m| m.bracket == "winners" && m.round == 1 && m.status != "bye")
        .map(|m| Pairing {
            label: format!("M{}", m.id + 1),
            a: name(m.seed_a, &m.team_a),
            b: name(m.seed_b, &m.team_b),
        })
        .collect();
    let byes = seeds.iter().filter(|s| s.bye).count();
    let format = if view.format == "double_elimination" {
        format!("Double elimination, grand final: {}", view.grand_final)
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
            .filter(|m| m.status != "bye" && m.status != "not_needed")
            .count(),
    }
}

async fn has_bracket(state: &AppState, slug: &str) -> Result<bool, PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    match playoffs::bracket_of(&mut conn, slug).await {
        Ok(_) => Ok(true),
        Err(ServiceError::NotFound) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

async fn active_teams(state: &AppState, league_id: i64) -> Result<usize, PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    Ok(crate::db::leagues::teams(&mut conn, league_id)
        .await
        .map_err(AppError::from)?
        .iter()
        .filter(|t| !t.withdrawn)
        .count())
}

#[get("/admin/leagues/{slug}/playoffs")]
async fn playoffs_form(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let league = league_of(&state, &slug).await?;
    let active = active_teams(&state, league.row.id).await?;
    let body = PlayoffsPage {
        nav: who.nav(),
        exists: has_bracket(&state, &league.row.slug).await?,
        slug: league.row.slug,
        name: league.row.name,
        active,
        typed: PlayoffsForm::defaults(active),
        preview: None,
        drawing: None,
        errors: Errors::default(),
    }
    .render()?;
    Ok(page(StatusCode::OK, body))
}

const FIELDS: [&str; 4] = ["format", "teams", "third_place", "grand_final"];

#[post("/admin/leagues/{slug}/playoffs")]
async fn playoffs_post(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<String>,
    form: web::Form<PlayoffsForm>,
) -> Result<HttpResponse, PageError> {
    who.check_csrf(&form.csrf)?;
    let league = league_of(&state, &slug).await?;
    let slug = league.row.slug.clone();
    let mut errors = Errors::default();
    let mut preview = None;
    let mut drawing = None;
    match form.input() {
        Err(e) => errors = Errors::of("playoffs", &FIELDS, &e),
        Ok(input) if form.action == "create" => {
            match playoffs::create_playoffs(&state.db, &who.user, &slug, &input).await {
                Ok(_) => return Ok(see_other(&format!("/leagues/{slug}/bracket"))),
                Err(e) if fixable(&e) => errors = Errors::of("playoffs", &FIELDS, &e),
                Err(e) => return Err(e.into()),
            }
        }
        Ok(input) => {
            let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
            match playoffs::preview_playoffs(&mut conn, &slug, &input).await {
                Ok(view) => {
                    preview = Some(preview_of(&view));
                    drawing = Some(BracketDrawing::new(&view, false));
                }
                Err(e) if fixable(&e) => errors = Errors::of("playoffs", &FIELDS, &e),
                Err(e) => return Err(e.into()),
            }
        }
    }
    let active = active_teams(&state, league.row.id).await?;
    let body = PlayoffsPage {
        nav: who.nav(),
        exists: has_bracket(&state, &slug).await?,
        slug,
        name: league.row.name,
        active,
        typed: form.into_inner(),
        preview,
        drawing,
        errors: errors.clone(),
    }
    .render()?;
    Ok(page(status_of(&errors), body))
}
