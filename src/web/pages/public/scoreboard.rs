//! `/scoreboard`: every match in play. It polls `/api/v1/scoreboard` (`public.js`) and
//! updates in place when its `key` changes. `/scoreboard?tv=1` is the same board for the TV
//! in the rec room: full screen, dark, every table in one grid, the latest results below.

use actix_web::{HttpRequest, HttpResponse, get, web};
use askama::Template;
use serde::Deserialize;

use super::page;
use crate::domain::Slug;
use crate::service::views::summaries::{BoardMatch, Calling, board, finished_lately};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Viewer, league_filter};
use crate::web::view::nav::Nav;
use crate::web::view::time::{Stamp, clock_in_zone};

/// A match of the board with its times.
pub struct BoardRow {
    pub m: BoardMatch,
    pub ends: Option<Stamp>,
    pub started: Option<Stamp>,
}

#[derive(Template)]
#[template(path = "public/scoreboard.html")]
struct ScoreboardPage {
    nav: Nav,
    key: String,
    /// What the page polls: the board of the leagues it shows.
    poll: String,
    /// The leagues shown, when the board is filtered (`?league=`): their names, or slugs.
    shown: Vec<String>,
    rows: Vec<BoardRow>,
    calling: Vec<Calling>,
    updated: Stamp,
}

/// The TV board: no site chrome (nothing static to burn in), the tables in a grid of
/// `columns` × `rows` sized to the screen, the latest finished matches in a strip.
#[derive(Template)]
#[template(path = "public/scoreboard_tv.html")]
struct TvPage {
    key: String,
    poll: String,
    shown: Vec<String>,
    rows: Vec<BoardRow>,
    /// "Now calling": matches called to their tables, not started.
    calling: Vec<Calling>,
    columns: usize,
    grid_rows: usize,
    latest: Vec<BoardMatch>,
    updated: Stamp,
}

/// The grid for `n` tables on a 16:9 screen: columns × rows, the cells as near square as
/// fits (1 → 1×1, 4 → 2×2, 8 → 4×2, 12 → 4×3, 24 → 6×4); at most 8 × 8 (the
/// `tv-c{columns}`/`tv-r{rows}` classes of public.css; past 64 tables the last ones are
/// cut off: use the plain scoreboard).
fn grid(n: usize) -> (usize, usize) {
    let (columns, rows) = match n {
        0 | 1 => (1, 1),
        2 => (2, 1),
        3 | 4 => (2, 2),
        5 | 6 => (3, 2),
        7 | 8 => (4, 2),
        9..=12 => (4, 3),
        13..=15 => (5, 3),
        16..=20 => (5, 4),
        21..=24 => (6, 4),
        25..=36 => (6, n.div_ceil(6)),
        // More than a TV shows readably: 8 columns, at most 8 rows (64 tables).
        _ => (8, n.div_ceil(8).min(8)),
    };
    (columns, rows)
}

/// The names of the leagues a filtered board shows (a league with no match in play by its
/// slug); empty for the whole board.
fn shown_names(matches: &[BoardMatch], leagues: &[Slug]) -> Vec<String> {
    leagues
        .iter()
        .map(|slug| {
            matches
                .iter()
                .find(|m| m.league == slug.as_str())
                .map_or_else(|| slug.to_string(), |m| m.league_name.clone())
        })
        .collect()
}

#[derive(Deserialize)]
pub(super) struct BoardQuery {
    tv: Option<String>,
}

/// The board's address for polling, with the leagues it shows.
fn poll_url(leagues: &[Slug]) -> String {
    let query: Vec<String> = leagues.iter().map(|l| format!("league={l}")).collect();
    if query.is_empty() {
        "/api/v1/scoreboard".to_string()
    } else {
        format!("/api/v1/scoreboard?{}", query.join("&"))
    }
}

#[get("/scoreboard")]
pub(super) async fn scoreboard_page(
    state: web::Data<AppState>,
    who: Viewer,
    query: web::Query<BoardQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, PageError> {
    let leagues = league_filter(&req)?;
    let mut b = board(&state.db, &leagues).await?;
    let calling = std::mem::take(&mut b.calling);
    let poll = poll_url(&leagues);
    let shown = shown_names(&b.matches, &leagues);
    let zone = state.db.clock().zone();
    let at = |t| clock_in_zone(t, zone);
    let rows: Vec<BoardRow> = b
        .matches
        .into_iter()
        .map(|m| BoardRow {
            ends: m.ends_at.map(at),
            started: m.started_at.map(at),
            m,
        })
        .collect();
    let updated = at(state.db.clock().now());
    let body = if query
        .tv
        .as_deref()
        .is_some_and(|v| !v.is_empty() && v != "0")
    {
        let (columns, grid_rows) = grid(rows.len());
        // A game that just ended is in its cell for its minute, not twice.
        let mut latest = finished_lately(&state.db, 6, &leagues).await?;
        latest.retain(|m| !rows.iter().any(|r| r.m.id == m.id));
        TvPage {
            key: b.key,
            poll,
            shown,
            columns,
            grid_rows,
            latest,
            rows,
            calling,
            updated,
        }
        .render()?
    } else {
        ScoreboardPage {
            nav: who.nav(),
            key: b.key,
            poll,
            shown,
            rows,
            calling,
            updated,
        }
        .render()?
    };
    Ok(page(&who, body))
}

#[cfg(test)]
mod tests {
    use super::grid;

    #[test]
    fn every_table_has_a_cell() {
        for n in 0..=64 {
            let (columns, rows) = grid(n);
            assert!(columns * rows >= n.max(1), "{n}: {columns}×{rows}");
            assert!(columns <= 8 && rows <= 8, "{n}: {columns}×{rows}");
        }
        assert_eq!(grid(24), (6, 4));
        assert_eq!(grid(8), (4, 2));
    }
}
