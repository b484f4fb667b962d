//! The check-in desk of a tournament night (docs/api.md §21.4): at the door, one form adds
//! a team of two (names and student ids) and checks it in; below it, who is checked in and
//! who is still missing, each with a button. Made for a tablet held at the door (390 to 820
//! px wide) and the keyboard alone.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::Errors;
use crate::domain::{Slug, TeamId};
use crate::service::term::desk::{self, Arrival, Desk, DeskTeam};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, CsrfForm};
use crate::web::respond::{private_page, see_other};
use crate::web::view::nav::Nav;

/// The fields of the arrival form, in the service's names.
const FIELDS: [&str; 5] = [
    "name",
    "players[0].name",
    "players[0].student_id",
    "players[1].name",
    "players[1].student_id",
];

#[derive(Template)]
#[template(path = "admin/desk.html")]
struct DeskPage {
    nav: Nav,
    csrf: String,
    slug: String,
    desk: Desk,
    arrived: Vec<DeskTeam>,
    missing: Vec<DeskTeam>,
    /// What the arrival form holds (what was typed, when it was refused).
    typed: ArrivalForm,
    errors: Errors,
    /// The team just checked in or out, by name, and which.
    done: Option<String>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(default)]
pub(super) struct ArrivalForm {
    name: String,
    p1_name: String,
    p1_student_id: String,
    p2_name: String,
    p2_student_id: String,
}

impl ArrivalForm {
    fn arrival(&self) -> Arrival {
        Arrival {
            name: self.name.clone(),
            players: [
                (self.p1_name.clone(), self.p1_student_id.clone()),
                (self.p2_name.clone(), self.p2_student_id.clone()),
            ],
        }
    }
}

impl DeskPage {
    /// The message by `field` of the arrival form, if it has one.
    fn error(&self, field: &str) -> Option<&str> {
        self.errors.at("arrive", field)
    }
}

async fn page(
    state: &AppState,
    who: &crate::web::extract::Authed,
    slug: &Slug,
    (typed, errors, done): (ArrivalForm, Errors, Option<TeamId>),
    status: StatusCode,
) -> Result<HttpResponse, PageError> {
    let desk = desk::desk(&state.db, &who.user, slug).await?;
    // Only a team of the league is named in the notice.
    let done = done
        .and_then(|id| desk.teams.iter().find(|t| t.id == id))
        .map(|t| match t.checked_in {
            Some(_) => format!("{} is checked in.", t.name),
            None => format!("{} is no longer checked in.", t.name),
        });
    let (arrived, missing): (Vec<DeskTeam>, Vec<DeskTeam>) = desk
        .teams
        .iter()
        .cloned()
        .partition(|t| t.checked_in.is_some());
    let page = DeskPage {
        nav: who.nav(),
        csrf: who.csrf().to_string(),
        slug: slug.to_string(),
        desk,
        arrived,
        missing,
        typed,
        errors,
        done,
    };
    private_page(status, page)
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct DeskQuery {
    done: Option<String>,
}

#[get("/admin/leagues/{slug}/desk")]
pub(super) async fn desk_page(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    query: web::Query<DeskQuery>,
) -> Result<HttpResponse, PageError> {
    let done = query
        .done
        .as_deref()
        .and_then(|d| d.parse::<i64>().ok())
        .map(TeamId);
    let nothing = (ArrivalForm::default(), Errors::default(), done);
    page(&state, &who, &slug, nothing, StatusCode::OK).await
}

#[post("/admin/leagues/{slug}/desk")]
pub(super) async fn arrive(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    CsrfForm(form): CsrfForm<ArrivalForm>,
) -> Result<HttpResponse, PageError> {
    match desk::arrive(&state.db, &who.user, &slug, &form.arrival()).await {
        Ok(team) => Ok(see_other(&format!(
            "/admin/leagues/{slug}/desk?done={}#arrive",
            team.id
        ))),
        Err(e) if super::fixable(&e) => {
            let errors = Errors::of("arrive", &FIELDS, &e);
            let status = match e {
                crate::service::ServiceError::Conflict { .. } => StatusCode::CONFLICT,
                _ => StatusCode::UNPROCESSABLE_ENTITY,
            };
            page(&state, &who, &slug, (form, errors, None), status).await
        }
        Err(e) => Err(e.into()),
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct CheckInForm {
    /// `1`: checked in; anything else: checked out.
    arrived: String,
}

#[post("/admin/leagues/{slug}/desk/{team_id}/check-in")]
pub(super) async fn check_in(
    state: web::Data<AppState>,
    Admin(who): Admin,
    path: web::Path<(Slug, i64)>,
    CsrfForm(form): CsrfForm<CheckInForm>,
) -> Result<HttpResponse, PageError> {
    let (slug, team) = path.into_inner();
    let arrived = form.arrived.trim() == "1";
    desk::check_in(&state.db, &who.user, &slug, TeamId(team), arrived).await?;
    Ok(see_other(&format!(
        "/admin/leagues/{slug}/desk?done={team}#team-{team}"
    )))
}
