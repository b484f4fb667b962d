//! `/admin`: the leagues, the matches whose sportsmanship rating is missing (in leagues that
//! require ratings: for chasing the supervisors) and the accounts, with a link to the
//! accounts page (`/admin/users`), where they are managed; whether notices by email are sent.

use crate::web::respond::private_page;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, get, web};
use askama::Template;

use crate::domain::{MatchId, Role, TextEnum};
use crate::invocation;
use crate::rules::Stage;
use crate::service::views::admin_views;
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::Admin;
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
/// add. (The first admin's one-time password needs no step: its log-in asks for a new one.)
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
                   (on the accounts page, with the leagues they run).",
            link: Some(("/admin/users#add-user", "Add an account")),
            command: None,
        });
    }
    steps
}

#[derive(Template)]
#[template(path = "admin/index.html")]
struct DashboardPage {
    /// Reschedule requests and disputes waiting for the coordinator.
    waiting: usize,
    nav: Nav,
    first_steps: Vec<FirstStep>,
    leagues: Vec<(String, String)>,
    /// How many leagues require ratings (none: the section is left out).
    rating_leagues: usize,
    unrated: Vec<UnratedLine>,
    users: Vec<UserLine>,
    /// The relay of notices in words, `None` when no mail is sent.
    mail: Option<String>,
    /// How many notices are pending, sent and failed.
    notices: Vec<(&'static str, i64)>,
    /// A league was just deleted (`?deleted=league`, the delete page's redirect).
    deleted: bool,
}

/// Whether the query says a league was just deleted (`?deleted=league`).
fn just_deleted(query: &str) -> bool {
    serde_urlencoded::from_str::<Vec<(String, String)>>(query)
        .is_ok_and(|pairs| pairs.iter().any(|(k, v)| k == "deleted" && v == "league"))
}

#[get("/admin")]
pub(super) async fn dashboard(
    state: web::Data<AppState>,
    Admin(who): Admin,
    req: HttpRequest,
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
    let notices = crate::service::notices::listing::counts(&state.db)
        .await?
        .into_iter()
        .map(|(status, n)| (status.as_str(), n))
        .collect();
    let moves = crate::service::term::requests::list(&state.db, &who.user, Some("pending")).await?;
    let open = crate::service::night::disputes::list(&state.db, &who.user, Some("open")).await?;
    private_page(
        StatusCode::OK,
        DashboardPage {
            waiting: moves.len() + open.len(),
            nav: who.nav(),
            mail: state.mail.clone(),
            notices,
            deleted: just_deleted(req.query_string()),
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
        },
    )
}
