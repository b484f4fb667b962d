//! The league page's team and supervisor forms: add a team (into a division), rename it or
//! move it to another division before it plays, withdraw or reinstate it; assign or unassign
//! a supervisor.

use crate::domain::ErrorCode;
use crate::domain::Slug;
use actix_web::{HttpResponse, post, web};
use serde::Deserialize;

use super::league::{SupervisorForm, TeamForm, Typed, render_league};
use super::{Done, Empty, Errors, done, fixable};
use crate::domain::{DivisionId, TeamId, UserId};
use crate::service::ServiceError;
use crate::service::people::players::PlayerInput;
use crate::service::term::leagues;
use crate::service::term::roster::edits::{self, TeamChange};
use crate::service::term::teams::NewTeamInput;
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, CsrfForm};

/// The players' error ("players") goes next to the second player's field.
fn team_errors(form: &str, e: &ServiceError) -> Errors {
    Errors::of(form, &["name", "players", "division"], e)
}

fn team_input(form: &TeamForm) -> Result<NewTeamInput, ServiceError> {
    Ok(NewTeamInput {
        name: form.name.clone(),
        players: vec![
            PlayerInput::name(&form.player1),
            PlayerInput::name(&form.player2),
        ],
        division: picked_division(form)?.flatten(),
    })
}

/// The form's division select: `None` when the form has none (no change), `Some(None)` for
/// "— none —", else the division picked.
fn picked_division(form: &TeamForm) -> Result<Option<Option<DivisionId>>, ServiceError> {
    match form.division.as_deref().map(str::trim) {
        None => Ok(None),
        Some("") => Ok(Some(None)),
        Some(id) => id.parse().map(|id| Some(Some(id))).map_err(|_| {
            ServiceError::invalid(
                ErrorCode::InvalidDivision,
                "division",
                "pick one of the league's divisions, or none",
            )
        }),
    }
}

#[post("/admin/leagues/{slug}/teams")]
pub(super) async fn add_team(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    CsrfForm(form): CsrfForm<TeamForm>,
) -> Result<HttpResponse, PageError> {
    let added = match team_input(&form) {
        Ok(input) => {
            crate::service::term::teams::add_team(&state.db, &who.user, &slug, &input).await
        }
        Err(e) => Err(e),
    };
    match added {
        Ok(_) => Ok(done(&slug, Done::Team)),
        Err(e) if fixable(&e) => {
            let typed = Typed {
                team: form,
                ..Typed::default()
            };
            render_league(&state, &who, &slug, typed, team_errors("team", &e), None).await
        }
        Err(e) => Err(e.into()),
    }
}

#[post("/admin/leagues/{slug}/teams/{id}")]
pub(super) async fn edit_team(
    state: web::Data<AppState>,
    Admin(who): Admin,
    path: web::Path<(Slug, TeamId)>,
    CsrfForm(form): CsrfForm<TeamForm>,
) -> Result<HttpResponse, PageError> {
    let (slug, id) = path.into_inner();
    // The team's name and division: its players are changed on its players page.
    let changed = match picked_division(&form) {
        Ok(division) => {
            let change = TeamChange {
                name: Some(form.name.clone()),
                division,
            };
            edits::change_team(&state.db, &who.user, &slug, id, &change).await
        }
        Err(e) => Err(e),
    };
    match changed {
        Ok(_) => Ok(done(&slug, Done::TeamEdit)),
        Err(e) if fixable(&e) => {
            let key = format!("team-{id}");
            let typed = Typed {
                edit: Some((id, form)),
                ..Typed::default()
            };
            render_league(&state, &who, &slug, typed, team_errors(&key, &e), None).await
        }
        Err(e) => Err(e.into()),
    }
}

#[derive(Deserialize)]
pub(super) struct WithdrawForm {
    /// "1" to withdraw, "0" to reinstate.
    #[serde(default)]
    withdrawn: String,
}

#[post("/admin/leagues/{slug}/teams/{id}/withdraw")]
pub(super) async fn withdraw_team(
    state: web::Data<AppState>,
    Admin(who): Admin,
    path: web::Path<(Slug, TeamId)>,
    CsrfForm(form): CsrfForm<WithdrawForm>,
) -> Result<HttpResponse, PageError> {
    let (slug, id) = path.into_inner();
    let withdrawn = form.withdrawn != "0";
    edits::set_withdrawn(&state.db, &who.user, &slug, id, withdrawn).await?;
    Ok(done(
        &slug,
        if withdrawn {
            Done::Withdrawn
        } else {
            Done::Reinstated
        },
    ))
}

#[post("/admin/leagues/{slug}/supervisors")]
pub(super) async fn assign_supervisor(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    CsrfForm(form): CsrfForm<SupervisorForm>,
) -> Result<HttpResponse, PageError> {
    let username = form.username.trim();
    let result = if username.is_empty() {
        Err(ServiceError::invalid(
            ErrorCode::InvalidUser,
            "username",
            "pick a supervisor account (create one on the admin page first)",
        ))
    } else {
        leagues::assign_supervisor(&state.db, &who.user, &slug, username).await
    };
    match result {
        Ok(()) => Ok(done(&slug, Done::Assigned)),
        Err(e) if fixable(&e) => {
            let errors = Errors::of("supervisor", &["username"], &e);
            let typed = Typed {
                supervisor: form,
                ..Typed::default()
            };
            render_league(&state, &who, &slug, typed, errors, None).await
        }
        Err(e) => Err(e.into()),
    }
}

#[post("/admin/leagues/{slug}/supervisors/{user_id}/remove")]
pub(super) async fn unassign_supervisor(
    state: web::Data<AppState>,
    Admin(who): Admin,
    path: web::Path<(Slug, UserId)>,
    _: CsrfForm<Empty>,
) -> Result<HttpResponse, PageError> {
    let (slug, user_id) = path.into_inner();
    leagues::unassign_supervisor(&state.db, &who.user, &slug, user_id).await?;
    Ok(done(&slug, Done::Unassigned))
}
