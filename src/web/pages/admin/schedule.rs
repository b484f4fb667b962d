//! The league page's schedule forms: generate the round robin, add a single match.

use actix_web::{HttpResponse, post, web};

use super::league::{MatchForm, ScheduleForm, Typed, render_league};
use super::{Errors, done, fixable};
use crate::domain::{TeamId, TextEnum};
use crate::rules::Stage;
use crate::service::ServiceError;
use crate::service::schedule::{NewMatchInput, ScheduleInput};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, CsrfForm};

/// Days between league nights: empty for the default, else 1 to 60.
fn days_between(typed: &str) -> Result<Option<u32>, ServiceError> {
    let days = typed.trim();
    if days.is_empty() {
        return Ok(None);
    }
    match days.parse::<u32>() {
        Ok(d) if (1..=60).contains(&d) => Ok(Some(d)),
        _ => Err(ServiceError::invalid(
            "invalid_schedule",
            "days_between",
            "days between league nights is a whole number from 1 to 60",
        )),
    }
}

#[post("/admin/leagues/{slug}/schedule")]
pub(super) async fn generate_schedule(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<String>,
    CsrfForm(form): CsrfForm<ScheduleForm>,
) -> Result<HttpResponse, PageError> {
    let result = match days_between(&form.days_between) {
        Ok(days_between) => {
            let input = ScheduleInput {
                format: "round_robin".into(),
                start_date: Some(form.start_date.clone()),
                time: Some(form.time.clone()),
                days_between,
            };
            crate::service::schedule::generate_schedule(&state.db, &who.user, &slug, &input).await
        }
        Err(e) => Err(e),
    };
    match result {
        Ok(_) => Ok(done(&slug, "schedule")),
        Err(e) if fixable(&e) => {
            let errors = Errors::of("schedule", &["start_date", "time", "days_between"], &e);
            let typed = Typed {
                schedule: form,
                ..Typed::default()
            };
            render_league(&state, &who, &slug, typed, errors, None).await
        }
        Err(e) => Err(e.into()),
    }
}

/// The match form as the service takes it (a team not picked, an unknown stage: the
/// field's error).
fn match_input(form: &MatchForm) -> Result<NewMatchInput, ServiceError> {
    let team = |field: &str, value: &str, which: &str| -> Result<TeamId, ServiceError> {
        value.parse::<TeamId>().map_err(|_| {
            ServiceError::invalid("invalid_match", field, format!("pick team {which}"))
        })
    };
    let stage = match form.stage.trim() {
        "" => Ok(Stage::Regular),
        typed => Stage::parse(typed).map_err(|_| {
            ServiceError::invalid(
                "invalid_match",
                "stage",
                format!("unknown stage \"{typed}\"; use regular, playoff or final"),
            )
        }),
    };
    Ok(NewMatchInput {
        team_a: team("team_a", &form.team_a, "A")?,
        team_b: team("team_b", &form.team_b, "B")?,
        stage: Some(stage?),
        table: Some(form.table.clone()),
        scheduled_at: Some(form.scheduled_at.clone()),
    })
}

#[post("/admin/leagues/{slug}/matches")]
pub(super) async fn add_match(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<String>,
    CsrfForm(form): CsrfForm<MatchForm>,
) -> Result<HttpResponse, PageError> {
    let result = match match_input(&form) {
        Ok(input) => {
            crate::service::schedule::create_match(&state.db, &who.user, &slug, &input).await
        }
        Err(e) => Err(e),
    };
    match result {
        Ok(_) => Ok(done(&slug, "match")),
        Err(e) if fixable(&e) => {
            let errors = Errors::of(
                "match",
                &["team_a", "team_b", "stage", "table", "scheduled_at"],
                &e,
            );
            let typed = Typed {
                game: form,
                ..Typed::default()
            };
            render_league(&state, &who, &slug, typed, errors, None).await
        }
        Err(e) => Err(e.into()),
    }
}
