//! `/admin`: the leagues, the matches whose sportsmanship rating is missing (in leagues that
//! require ratings: for chasing the supervisors), the accounts, and a new supervisor
//! account.

use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Errors, fixable};
use crate::domain::{MatchId, Role, TextEnum};
use crate::invocation;
use crate::rules::Stage;
use crate::service::{accounts, admin_views};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, Authed, CsrfForm};
use crate::web::respond::{html, no_store};
use crate::web::view::nav::Nav;
use crate::web::view::time;

/// A finished match with a team not rated yet.
struct UnratedLine {
    id: MatchId,
    league_slug: String,
    league: String,
    when: String,
    stage: &'static str,
    team_a: String,
    team_b: String,
    status: &'static str,
    /// "Team 1", "Team 2" or "both teams".
    missing: String,
}

struct UserLine {
    username: String,
    role: &'static str,
}

/// A first step still to do on a young install.
struct FirstStep {
    id: &'static str,
    /// What to do, before the link.
    text: &'static str,
    /// The page that does it.
    link: Option<(&'static str, &'static str)>,
    /// Or the command that does it, as the user started the service.
    command: Option<String>,
}

/// The first steps not done yet: a league to create (or the demo to load), a supervisor to
/// add, the first admin's one-time password to change (asked while there is no league).
fn first_steps(leagues: usize, supervisors: usize) -> Vec<FirstStep> {
    let mut steps = Vec::new();
    if leagues == 0 {
        steps.push(FirstStep {
            id: "step-league",
            text: "Create a league: its rules, teams, supervisors and schedule.",
            link: Some(("/admin/leagues/new", "New league")),
            command: None,
        });
        steps.push(FirstStep {
            id: "step-demo",
            text: "Or look around a sample season first: load the demo (8 teams, half a season \
                   played) from a terminal in the project, then reload this page:",
            link: None,
            command: Some(invocation::command("demo")),
        });
    }
    if supervisors == 0 {
        steps.push(FirstStep {
            id: "step-supervisor",
            text: "Add a supervisor account for each person who enters scores at the tables \
                   (the form below), then assign them to a league on its page.",
            link: Some(("#new-supervisor", "New supervisor account")),
            command: None,
        });
    }
    if leagues == 0 {
        steps.push(FirstStep {
            id: "step-password",
            text: "If you logged in with the one-time password printed at the first start, \
                   change it.",
            link: Some(("/account", "Your account")),
            command: None,
        });
    }
    steps
}

#[derive(Template)]
#[template(path = "admin/index.html")]
struct DashboardPage {
    nav: Nav,
    first_steps: Vec<FirstStep>,
    leagues: Vec<(String, String)>,
    /// How many leagues require ratings (none: the section is left out).
    rating_leagues: usize,
    unrated: Vec<UnratedLine>,
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
    let view = admin_views::dashboard(&state.db, &who.user).await?;
    let unrated = view
        .unrated
        .into_iter()
        .map(|m| UnratedLine {
            id: m.id,
            missing: match m.missing {
                [true, true] => "both teams".to_string(),
                [true, false] => m.team_a.clone(),
                _ => m.team_b.clone(),
            },
            league_slug: m.league.slug,
            league: m.league.name,
            when: m.scheduled_at.map(time::scheduled).unwrap_or_default(),
            stage: if m.stage == Stage::Regular {
                ""
            } else {
                m.stage.words()
            },
            team_a: m.team_a,
            team_b: m.team_b,
            status: m.status.words(),
        })
        .collect();
    let supervisors = view
        .accounts
        .iter()
        .filter(|a| a.role == Role::Supervisor)
        .count();
    let body = DashboardPage {
        nav: who.nav(),
        first_steps: first_steps(view.leagues.len(), supervisors),
        leagues: view.leagues.into_iter().map(|l| (l.slug, l.name)).collect(),
        rating_leagues: view.rating_leagues,
        unrated,
        users: view
            .accounts
            .into_iter()
            .map(|a| UserLine {
                username: a.username,
                role: a.role.as_str(),
            })
            .collect(),
        username,
        created,
        errors: errors.clone(),
    }
    .render()?;
    Ok(no_store(html(errors.status(), body)))
}

#[get("/admin")]
pub(super) async fn dashboard(
    state: web::Data<AppState>,
    Admin(who): Admin,
) -> Result<HttpResponse, PageError> {
    render_dashboard(&state, &who, String::new(), None, Errors::default()).await
}

#[derive(Deserialize)]
pub(super) struct UserForm {
    #[serde(default)]
    username: String,
    #[serde(default)]
    password: String,
}

/// Creates a supervisor account; an empty password generates one, shown once.
#[post("/admin/users")]
pub(super) async fn create_user(
    state: web::Data<AppState>,
    Admin(who): Admin,
    CsrfForm(form): CsrfForm<UserForm>,
) -> Result<HttpResponse, PageError> {
    let username = form.username.trim().to_string();
    let password = if form.password.is_empty() {
        accounts::random_hex(8)
    } else {
        form.password
    };
    match accounts::create_user(
        &state.db,
        Some(&who.user),
        &username,
        Role::Supervisor,
        &password,
    )
    .await
    {
        Ok(_) => {
            let created = Some((username, password));
            render_dashboard(&state, &who, String::new(), created, Errors::default()).await
        }
        Err(e) if fixable(&e) => {
            let errors = Errors::of("user", &["username", "password"], &e);
            render_dashboard(&state, &who, username, None, errors).await
        }
        Err(e) => Err(e.into()),
    }
}
