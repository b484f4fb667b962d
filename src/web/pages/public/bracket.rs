//! The public bracket page (`GET /leagues/{slug}/bracket`) and its printable one-page report
//! (`GET /leagues/{slug}/bracket/print`), drawn in HTML and CSS by
//! [`crate::web::view::bracket::BracketDrawing`] (docs/scoring.md §9; docs/api.md §8.2 and §10.2), with a list of the
//! matches in words beside the drawing; and its CSV.

use crate::domain::Slug;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, web};
use askama::Template;

use super::{capitalized, page};
use crate::league::bracket::{Format, GrandFinal};
use crate::rules::Team;
use crate::service::playoffs::{self, BracketView};
use crate::service::views::public_views::{self, LeagueBracket};
use crate::service::views::summaries;
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::Viewer;
use crate::web::respond::{Csv, html};
use crate::web::view::bracket::BracketDrawing;
use crate::web::view::nav::Nav;
use crate::web::view::time;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(bracket_page)
        .service(bracket_print)
        .service(bracket_csv);
}

/// The format in words: "Single elimination, 6 teams, with a third-place match".
fn format_words(view: &BracketView) -> String {
    let format = capitalized(view.format.words());
    match view.format {
        Format::DoubleElimination => {
            let grand_final = match view.grand_final {
                GrandFinal::Double => "a grand final with a reset if the losers' side wins",
                GrandFinal::Simple => "a single grand final",
                GrandFinal::None => "no grand final",
            };
            format!("{format}, {} teams, {grand_final}", view.teams)
        }
        Format::SingleElimination => format!(
            "{format}, {} teams{}",
            view.teams,
            if view.third_place {
                ", with a third-place match"
            } else {
                ""
            }
        ),
    }
}

/// The league's bracket, if its playoffs are drawn (404: no league).
async fn league_bracket(state: &AppState, slug: &Slug) -> Result<LeagueBracket, PageError> {
    Ok(public_views::bracket(&state.db, slug).await?)
}

#[derive(Template)]
#[template(path = "public/bracket.html")]
struct BracketPage {
    nav: Nav,
    slug: String,
    name: String,
    format: String,
    /// How the seeds were made from divisions, in words; empty for the overall standings.
    seeding: String,
    drawing: Option<BracketDrawing>,
    /// While a match is in play, the scoreboard's key as the page was drawn: public.js
    /// polls it and redraws the bracket when it changes (empty otherwise).
    board_key: String,
}

#[get("/leagues/{slug}/bracket")]
async fn bracket_page(
    state: web::Data<AppState>,
    who: Viewer,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, PageError> {
    let view = league_bracket(&state, &slug).await?;
    let drawing = view.bracket.as_ref().map(|v| BracketDrawing::new(v, true));
    let board_key = if drawing.as_ref().is_some_and(|d| d.live) {
        summaries::board(&state.db, &[]).await?.key
    } else {
        String::new()
    };
    let body = BracketPage {
        nav: who.nav(),
        board_key,
        format: view.bracket.as_ref().map(format_words).unwrap_or_default(),
        seeding: view
            .bracket
            .as_ref()
            .and_then(|v| v.seeding.clone())
            .unwrap_or_default(),
        drawing,
        slug: view.league.row.slug.to_string(),
        name: view.league.row.name,
    }
    .render()?;
    Ok(page(&who, body))
}

#[derive(Template)]
#[template(path = "public/bracket_print.html")]
struct BracketPrintPage {
    slug: String,
    name: String,
    format: String,
    printed: String,
    drawing: Option<BracketDrawing>,
}

#[get("/leagues/{slug}/bracket/print")]
async fn bracket_print(
    state: web::Data<AppState>,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, PageError> {
    let view = league_bracket(&state, &slug).await?;
    let body = BracketPrintPage {
        format: view.bracket.as_ref().map(format_words).unwrap_or_default(),
        printed: time::long(state.db.clock().local_now()),
        // On paper nothing is clicked: no links.
        drawing: view.bracket.as_ref().map(|v| BracketDrawing::new(v, false)),
        slug: view.league.row.slug.to_string(),
        name: view.league.row.name,
    }
    .render()?;
    Ok(html(StatusCode::OK, body))
}

/// The bracket as CSV: one row per bracket match, in bracket order.
#[get("/leagues/{slug}/bracket.csv")]
pub(super) async fn bracket_csv(
    state: web::Data<AppState>,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, PageError> {
    let view = playoffs::bracket(&state.db, &slug).await?;
    let mut csv = Csv::with_header(&[
        "round", "bracket", "position", "match_id", "seed_a", "team_a", "seed_b", "team_b",
        "status", "score_a", "score_b", "winner", "match", "label",
    ])?;
    let text = |v: Option<i64>| v.map(|n| n.to_string()).unwrap_or_default();
    for m in &view.matches {
        let name = |t: &Option<crate::service::TeamRef>| {
            t.as_ref().map(|t| t.name.clone()).unwrap_or_default()
        };
        let winner = match m.winner {
            Some(Team::A) => name(&m.team_a),
            Some(Team::B) => name(&m.team_b),
            None => String::new(),
        };
        csv.row(&[
            m.round.to_string(),
            m.bracket.as_str().to_string(),
            m.position.to_string(),
            text(m.match_id.map(|id| id.0)),
            text(m.seed_a),
            name(&m.team_a),
            text(m.seed_b),
            name(&m.team_b),
            m.status.as_str().to_string(),
            text(m.score_a),
            text(m.score_b),
            winner,
            // As the drawing and the printed report number it ("Winner of M3").
            format!("M{}", m.id + 1),
            // Its name wherever a match is named: "M5 · Winners semi-final".
            m.label.clone(),
        ])?;
    }
    Ok(csv.download(&format!("{}-bracket.csv", view.league))?)
}
