//! `/leagues/{slug}/standings`: the regular-season standings with how ties are broken, and
//! the same rows as CSV.

use actix_web::{HttpResponse, get, web};
use askama::Template;

use super::{StandingRow, page, standing_rows, tiebreak_words};
use crate::service::public_views;
use crate::web::AppState;
use crate::web::error::{AppError, PageError};
use crate::web::extract::Viewer;
use crate::web::respond::Csv;
use crate::web::view::nav::Nav;

#[derive(Template)]
#[template(path = "public/standings.html")]
struct StandingsPage {
    nav: Nav,
    slug: String,
    name: String,
    rows: Vec<StandingRow>,
    tiebreak: Vec<&'static str>,
}

#[get("/leagues/{slug}/standings")]
pub(super) async fn standings_page(
    state: web::Data<AppState>,
    who: Viewer,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let view = public_views::standings(&mut conn, &state.standings, &slug).await?;
    let body = StandingsPage {
        nav: who.nav(),
        rows: standing_rows(&view.rows),
        tiebreak: tiebreak_words(&view.league),
        slug: view.league.row.slug,
        name: view.league.row.name,
    }
    .render()?;
    Ok(page(&who, body))
}

#[get("/leagues/{slug}/standings.csv")]
pub(super) async fn standings_csv(
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let view = public_views::standings(&mut conn, &state.standings, &slug).await?;
    let mut csv = Csv::with_header(&[
        "rank",
        "team",
        "played",
        "won",
        "lost",
        "tied",
        "forfeits",
        "win_pct",
        "points_for",
        "points_against",
        "differential",
    ])?;
    for s in view.rows.iter() {
        csv.row(&[
            s.rank.to_string(),
            s.team.clone(),
            s.played.to_string(),
            s.won.to_string(),
            s.lost.to_string(),
            s.tied.to_string(),
            s.forfeits.to_string(),
            format!("{:.3}", s.win_pct),
            s.points_for.to_string(),
            s.points_against.to_string(),
            s.differential.to_string(),
        ])?;
    }
    Ok(csv.download(&format!("{}-standings.csv", view.league.row.slug))?)
}
