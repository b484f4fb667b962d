//! `/leagues/{slug}/standings`: the regular-season standings with how ties are broken (and,
//! when the league rates sportsmanship, each team's average), and the same rows as CSV.

use crate::domain::Slug;
use actix_web::{HttpResponse, get, web};
use askama::Template;

use super::{StandingRow, page, rates, standing_rows, tiebreak_words};
use crate::service::public_views;
use crate::web::AppState;
use crate::web::error::PageError;
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
    /// The league rates sportsmanship: the table has the column.
    rated: bool,
    /// The column in the legend ("Sportsmanship = the average rating, 1 to 5; – not rated
    /// yet"); empty when the league does not rate.
    rating_legend: String,
}

#[get("/leagues/{slug}/standings")]
pub(super) async fn standings_page(
    state: web::Data<AppState>,
    who: Viewer,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, PageError> {
    let view = public_views::standings(&state.db, &slug).await?;
    let rating_legend = view
        .league
        .settings
        .sportsmanship
        .as_ref()
        .map(|scale| {
            format!(
                "Sportsmanship = the average of the team's ratings by the supervisor after each match, {} (worst) to {} (best); – not rated yet",
                scale.min, scale.max
            )
        })
        .unwrap_or_default();
    let body = StandingsPage {
        nav: who.nav(),
        rows: standing_rows(&view.rows, &view.out),
        tiebreak: tiebreak_words(&view.league),
        rated: rates(&view.league),
        rating_legend,
        slug: view.league.row.slug.to_string(),
        name: view.league.row.name,
    }
    .render()?;
    Ok(page(&who, body))
}

#[get("/leagues/{slug}/standings.csv")]
pub(super) async fn standings_csv(
    state: web::Data<AppState>,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, PageError> {
    let view = public_views::standings(&state.db, &slug).await?;
    // When the league rates sportsmanship, a last column with each team's average to two
    // places (as the JSON API gives it), empty before its first rating.
    let rated = rates(&view.league);
    let mut header = vec![
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
    ];
    if rated {
        header.push("sportsmanship");
    }
    let mut csv = Csv::with_header(&header)?;
    for s in view.rows.iter() {
        let mut row = vec![
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
        ];
        if rated {
            row.push(
                s.sportsmanship()
                    .map(|avg| format!("{avg:.2}"))
                    .unwrap_or_default(),
            );
        }
        csv.row(&row)?;
    }
    Ok(csv.download(&format!("{}-standings.csv", view.league.row.slug))?)
}
