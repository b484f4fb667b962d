//! `/leagues/{slug}/schedule`: every match of a league with its result, by round (or by day,
//! or by stage in the playoffs).

use actix_web::{HttpResponse, get, web};
use askama::Template;

use super::{MatchLine, capitalized, line, page};
use crate::rules::Stage;
use crate::service::public_views;
use crate::service::summaries::MatchSummary;
use crate::web::AppState;
use crate::web::error::{AppError, PageError};
use crate::web::extract::Viewer;
use crate::web::view::nav::Nav;
use crate::web::view::time;

/// The matches under one heading.
pub struct Round {
    pub title: String,
    pub matches: Vec<MatchLine>,
}

#[derive(Template)]
#[template(path = "public/schedule.html")]
struct SchedulePage {
    nav: Nav,
    slug: String,
    name: String,
    rounds: Vec<Round>,
}

/// The heading a match goes under: "Round 2 · Tue 24 Nov 2026", "Playoffs, round 1".
fn round_title(m: &MatchSummary) -> String {
    let date = m.scheduled_at.map(time::day);
    match (m.stage, m.round, date) {
        (Stage::Regular, Some(r), Some(d)) => format!("Round {r} · {d}"),
        (Stage::Regular, Some(r), None) => format!("Round {r}"),
        (Stage::Regular, None, Some(d)) => d,
        (Stage::Regular, None, None) => "Not yet scheduled".into(),
        (s, Some(r), _) => format!("{}, round {r}", capitalized(s.words())),
        (s, None, Some(d)) => format!("{} · {d}", capitalized(s.words())),
        (s, None, None) => capitalized(s.words()),
    }
}

#[get("/leagues/{slug}/schedule")]
pub(super) async fn schedule_page(
    state: web::Data<AppState>,
    who: Viewer,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let view = public_views::schedule(&mut conn, &slug).await?;
    let mut rounds: Vec<Round> = Vec::new();
    for m in &view.matches {
        let title = round_title(m);
        match rounds.last_mut() {
            Some(r) if r.title == title => r.matches.push(line(m)),
            _ => rounds.push(Round {
                title,
                matches: vec![line(m)],
            }),
        }
    }
    let body = SchedulePage {
        nav: who.nav(),
        slug: view.league.row.slug,
        name: view.league.row.name,
        rounds,
    }
    .render()?;
    Ok(page(&who, body))
}
