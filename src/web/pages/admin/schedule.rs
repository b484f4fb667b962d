//! The schedule's generation and single matches: generate the round robin (`new`), the rest
//! of it (`rest`) or all of it again (`replace`), and add a single match. The league page and
//! the schedule page both post here; a form with an error comes back on the page it was
//! posted from (`from=schedule`).

use crate::domain::Slug;
use actix_web::{HttpResponse, post, web};

use super::league::{MatchForm, ScheduleForm, Typed, render_league};
use super::schedule_page::{self, Refusal, ScheduleTyped, render_schedule};
use super::{Errors, fixable};
use crate::domain::ErrorCode;
use crate::domain::{TeamId, TextEnum};
use crate::rules::Stage;
use crate::service::ServiceError;
use crate::service::term::schedule::{NewMatchInput, ScheduleInput, ScheduleMode};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, CsrfForm};
use crate::web::respond::see_other;

/// Days between league nights: empty for the default, else 1 to 60.
fn days_between(typed: &str) -> Result<Option<u32>, ServiceError> {
    let days = typed.trim();
    if days.is_empty() {
        return Ok(None);
    }
    match days.parse::<u32>() {
        Ok(d) if (1..=60).contains(&d) => Ok(Some(d)),
        _ => Err(ServiceError::invalid(
            ErrorCode::InvalidSchedule,
            "days_between",
            "days between league nights is a whole number from 1 to 60",
        )),
    }
}

/// The mode a generation form asks for, and the form's name on the page (where its error
/// is shown).
fn mode_of(typed: &str) -> (ScheduleMode, &'static str) {
    match typed.trim() {
        "rest" => (ScheduleMode::Rest, "rest"),
        "replace" => (ScheduleMode::Replace, "replace"),
        "swiss_round" => (ScheduleMode::SwissRound, "swiss"),
        _ => (ScheduleMode::New, "schedule"),
    }
}

/// The generation form as the service takes it; the replace form must have its box ticked.
fn schedule_input(form: &ScheduleForm, mode: ScheduleMode) -> Result<ScheduleInput, ServiceError> {
    if mode == ScheduleMode::Replace && form.understand.is_none() {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidSchedule,
            "understand",
            "tick \"I understand every scheduled match is replaced\" to regenerate the schedule",
        ));
    }
    if mode == ScheduleMode::SwissRound {
        return Ok(ScheduleInput {
            format: None,
            scheduled_at: Some(form.scheduled_at.clone()),
            start_date: None,
            time: None,
            days_between: None,
            mode,
            within: None,
            blackouts: Vec::new(),
        });
    }
    Ok(ScheduleInput {
        format: None,
        scheduled_at: None,
        start_date: Some(form.start_date.clone()),
        time: Some(form.time.clone()),
        days_between: days_between(&form.days_between)?,
        mode,
        within: Some(form.within.clone()),
        blackouts: form
            .blackouts
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|day| !day.is_empty())
            .map(str::to_string)
            .collect(),
    })
}

/// An error on one blackout night (`blackouts[2]`) as the form's one blackouts field.
fn blackouts_as_one(e: ServiceError) -> ServiceError {
    match e {
        ServiceError::Invalid(mut c)
            if c.field
                .as_ref()
                .is_some_and(|f| f.to_string().starts_with("blackouts[")) =>
        {
            c.field = Some(crate::domain::Field::path("blackouts".into()));
            ServiceError::Invalid(c)
        }
        other => other,
    }
}

/// A refusal of a generation in the page's words (the service speaks to API clients).
fn generation_refusal(e: ServiceError) -> ServiceError {
    match e {
        ServiceError::Conflict {
            code: ErrorCode::ScheduleExists,
            ..
        } => ServiceError::conflict(
            ErrorCode::ScheduleExists,
            "the league already has regular-season matches: on the schedule page, generate the rest of the round robin, regenerate the whole schedule while nothing has been played, or add single matches",
        ),
        other => other,
    }
}

#[post("/admin/leagues/{slug}/schedule")]
pub(super) async fn generate_schedule(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    CsrfForm(form): CsrfForm<ScheduleForm>,
) -> Result<HttpResponse, PageError> {
    let (mode, key) = mode_of(&form.mode);
    let result = match schedule_input(&form, mode) {
        Ok(input) if mode == ScheduleMode::SwissRound => {
            crate::service::term::swiss::pair_next_round(&state.db, &who.user, &slug, &input)
                .await
                .map(|round| round.matches)
        }
        Ok(input) => {
            crate::service::term::schedule::generate_schedule(&state.db, &who.user, &slug, &input)
                .await
                .map_err(generation_refusal)
        }
        Err(e) => Err(e),
    };
    match result {
        Ok(ids) => {
            let what = match mode {
                ScheduleMode::New => "generated",
                ScheduleMode::Rest => "rest",
                ScheduleMode::Replace => "replaced",
                ScheduleMode::SwissRound => "swiss",
            };
            Ok(see_other(&format!(
                "/admin/leagues/{slug}/schedule?done={what}&n={}",
                ids.len()
            )))
        }
        Err(e) if fixable(&e) => {
            let e = blackouts_as_one(e);
            let fields = [
                "start_date",
                "time",
                "days_between",
                "understand",
                "within",
                "blackouts",
                "scheduled_at",
            ];
            let errors = Errors::of(key, &fields, &e);
            if form.from == "schedule" || mode != ScheduleMode::New {
                let refusal = Refusal::new(errors, &e, key);
                let typed = ScheduleTyped {
                    generate: form,
                    ..ScheduleTyped::default()
                };
                render_schedule(&state, &who, &slug, typed, Some(refusal), None).await
            } else {
                let typed = Typed {
                    schedule: form,
                    ..Typed::default()
                };
                render_league(&state, &who, &slug, typed, errors, None).await
            }
        }
        Err(e) => Err(e.into()),
    }
}

/// The match form as the service takes it (a team not picked, an unknown stage: the
/// field's error).
fn match_input(form: &MatchForm) -> Result<NewMatchInput, ServiceError> {
    let team = |field: &str, value: &str, which: &str| -> Result<TeamId, ServiceError> {
        value.parse::<TeamId>().map_err(|_| {
            ServiceError::invalid(ErrorCode::InvalidMatch, field, format!("pick team {which}"))
        })
    };
    let stage = match form.stage.trim() {
        "" => Ok(Stage::Regular),
        typed => Stage::parse(typed).map_err(|_| {
            ServiceError::invalid(
                ErrorCode::InvalidMatch,
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
    slug: web::Path<Slug>,
    CsrfForm(form): CsrfForm<MatchForm>,
) -> Result<HttpResponse, PageError> {
    let result = match match_input(&form) {
        Ok(input) => {
            crate::service::term::schedule::create_match(&state.db, &who.user, &slug, &input).await
        }
        Err(e) => Err(e),
    };
    let on_schedule = form.from == "schedule";
    match result {
        Ok(id) if on_schedule => Ok(see_other(&schedule_page::added(&slug, id, &form))),
        Ok(_) => Ok(super::done(&slug, super::Done::Match)),
        Err(e) if fixable(&e) => {
            let fields = ["team_a", "team_b", "stage", "table", "scheduled_at"];
            let errors = Errors::of("match", &fields, &e);
            if on_schedule {
                let refusal = Refusal::new(errors, &e, "match");
                let typed = ScheduleTyped {
                    add: form,
                    ..ScheduleTyped::default()
                };
                render_schedule(&state, &who, &slug, typed, Some(refusal), None).await
            } else {
                let typed = Typed {
                    game: form,
                    ..Typed::default()
                };
                render_league(&state, &who, &slug, typed, errors, None).await
            }
        }
        Err(e) => Err(e.into()),
    }
}
