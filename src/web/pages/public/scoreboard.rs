//! `/scoreboard`: every match in play, for the TV on league night. It polls
//! `/api/v1/scoreboard` (`public.js`) and reloads when its `key` changes.

use actix_web::{HttpResponse, get, web};
use askama::Template;

use super::page;
use crate::service::summaries::{BoardMatch, board};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::Viewer;
use crate::web::view::nav::Nav;
use crate::web::view::time::{Stamp, stamp};

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
    rows: Vec<BoardRow>,
    updated: Stamp,
}

#[get("/scoreboard")]
pub(super) async fn scoreboard_page(
    state: web::Data<AppState>,
    who: Viewer,
) -> Result<HttpResponse, PageError> {
    let b = board(&state.db).await?;
    let body = ScoreboardPage {
        nav: who.nav(),
        key: b.key,
        rows: b
            .matches
            .into_iter()
            .map(|m| BoardRow {
                ends: m.ends_at.map(stamp),
                started: m.started_at.map(stamp),
                m,
            })
            .collect(),
        updated: stamp(state.db.clock().now()),
    }
    .render()?;
    Ok(page(&who, body))
}
