//! `/leagues/{slug}/standings`: the regular-season standings with how ties are broken (and,
//! when the league rates sportsmanship, each team's average), and the same rows as CSV.

use crate::domain::Slug;
use actix_web::{HttpResponse, get, web};
use askama::Template;

use super::{StandingRow, page, rates, standing_rows, tiebreak_words};
use crate::domain::DivisionId;
use crate::service::views::public_views::{self, LeagueStandings};
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
    /// The league plays Swiss rounds: the table has a Buchholz column, the first tiebreak.
    swiss: bool,
    /// One table per division, in the order they were made (empty without divisions).
    divisions: Vec<DivisionTable>,
    /// The column in the legend ("Sportsmanship = the average rating, 1 to 5; – not rated
    /// yet"); empty when the league does not rate.
    rating_legend: String,
}

/// A division's own standings: its teams in overall order, each with its division rank.
struct DivisionTable {
    id: DivisionId,
    name: String,
    /// The division rank and the row.
    rows: Vec<(usize, StandingRow)>,
}

/// The standings split by division: each division's rows with their rank in it.
fn division_tables(view: &LeagueStandings, rows: &[StandingRow]) -> Vec<DivisionTable> {
    view.divisions
        .list
        .iter()
        .map(|d| DivisionTable {
            id: d.id,
            name: d.name.clone(),
            rows: rows
                .iter()
                .zip(&view.placed)
                .filter(|(_, placed)| placed.division == Some(d.id))
                .filter_map(|(row, placed)| Some((placed.rank?, row.clone())))
                .collect(),
        })
        .collect()
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
    let rows = standing_rows(&view.rows, &view.out);
    let swiss = view.rows.iter().any(|r| r.buchholz.is_some());
    let mut tiebreak = tiebreak_words(&view.league);
    if swiss {
        tiebreak.insert(
            0,
            "Buchholz: the sum of the wins of the team's opponents (more is better)",
        );
    }
    let body = StandingsPage {
        nav: who.nav(),
        divisions: division_tables(&view, &rows),
        rows,
        swiss,
        tiebreak,
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
    // Added after v0.1, at the end: the division's name and the rank in it (empty without),
    // then a league of Swiss rounds' Buchholz.
    header.extend(["division", "division_rank"]);
    let swiss = view.rows.iter().any(|r| r.buchholz.is_some());
    if swiss {
        header.push("buchholz");
    }
    let mut csv = Csv::with_header(&header)?;
    for (s, placed) in view.rows.iter().zip(&view.placed) {
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
        row.push(
            placed
                .division
                .map(|d| view.divisions.name(d).to_string())
                .unwrap_or_default(),
        );
        row.push(placed.rank.map(|r| r.to_string()).unwrap_or_default());
        if let Some(buchholz) = s.buchholz {
            row.push(buchholz.to_string());
        }
        csv.row(&row)?;
    }
    Ok(csv.download(&format!("{}-standings.csv", view.league.row.slug))?)
}
