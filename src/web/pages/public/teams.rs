//! `/leagues/{slug}/teams` (every team with its players) and `/leagues/{slug}/teams/{id}`
//! (a team's record and matches).

use actix_web::{HttpResponse, get, web};
use askama::Template;

use super::{MatchLine, StandingRow, line, page, standing_row};
use crate::db::leagues::TeamRow;
use crate::domain::{MatchStatus, TeamId};
use crate::rules::Team;
use crate::service::TeamRef;
use crate::service::public_views;
use crate::service::summaries::MatchSummary;
use crate::web::AppState;
use crate::web::error::{AppError, PageError};
use crate::web::extract::Viewer;
use crate::web::view::nav::Nav;

#[derive(Template)]
#[template(path = "public/teams.html")]
struct TeamsPage {
    nav: Nav,
    slug: String,
    name: String,
    teams: Vec<TeamRow>,
}

#[get("/leagues/{slug}/teams")]
pub(super) async fn teams_page(
    state: web::Data<AppState>,
    who: Viewer,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let view = public_views::teams(&mut conn, &slug).await?;
    let body = TeamsPage {
        nav: who.nav(),
        slug: view.league.row.slug,
        name: view.league.row.name,
        teams: view.teams,
    }
    .render()?;
    Ok(page(&who, body))
}

/// A match from one team's side.
pub struct TeamMatch {
    pub line: MatchLine,
    pub opponent: TeamRef,
    /// "W", "L", "T" or empty while not finished.
    pub result: &'static str,
    pub own: String,
    pub theirs: String,
}

impl TeamMatch {
    /// Match `m` as team `team` played it.
    fn of(m: &MatchSummary, team: TeamId) -> TeamMatch {
        let side = if m.team_a.id == team {
            Team::A
        } else {
            Team::B
        };
        let l = line(m);
        let (own, theirs, opponent) = match side {
            Team::A => (l.score_a.clone(), l.score_b.clone(), m.team_b.clone()),
            Team::B => (l.score_b.clone(), l.score_a.clone(), m.team_a.clone()),
        };
        let result = match (m.status, m.winner) {
            (MatchStatus::Complete | MatchStatus::Forfeit, Some(w)) if w == side => "W",
            (MatchStatus::Complete | MatchStatus::Forfeit, Some(_)) => "L",
            (MatchStatus::Forfeit, None) => "L",
            (MatchStatus::Complete, None) => "T",
            _ => "",
        };
        TeamMatch {
            line: l,
            opponent,
            result,
            own,
            theirs,
        }
    }
}

#[derive(Template)]
#[template(path = "public/team.html")]
struct TeamPage {
    nav: Nav,
    slug: String,
    name: String,
    team: TeamRow,
    standing: Option<StandingRow>,
    matches: Vec<TeamMatch>,
}

#[get("/leagues/{slug}/teams/{id}")]
pub(super) async fn team_page(
    state: web::Data<AppState>,
    who: Viewer,
    path: web::Path<(String, TeamId)>,
) -> Result<HttpResponse, PageError> {
    let (slug, team) = path.into_inner();
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let view = public_views::team(&mut conn, &state.standings, &slug, team).await?;
    let body = TeamPage {
        nav: who.nav(),
        standing: view.standing.as_ref().map(standing_row),
        matches: view
            .matches
            .iter()
            .map(|m| TeamMatch::of(m, team))
            .collect(),
        slug: view.league.row.slug,
        name: view.league.row.name,
        team: view.team,
    }
    .render()?;
    Ok(page(&who, body))
}
