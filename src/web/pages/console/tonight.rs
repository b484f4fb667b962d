//! `/supervise`: the evening's matches of the leagues the user runs — today's first (in play,
//! then by time, then those finished today, saying "rating missing" where the league requires
//! sportsmanship ratings not given yet), with the rest of the week, the earlier days and the
//! matches without a time folded away — each a link to its console.

use crate::web::respond::private_page;
use std::collections::HashSet;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, web};
use askama::Template;

use crate::domain::{MatchId, MatchStatus, words};
use crate::service::night::console_views;
use crate::service::night::tonight::{self as service, Listed};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::Supervisor;
use crate::web::view::nav::Nav;

struct ListItem {
    id: MatchId,
    league: String,
    /// A bracket match's label, "M5 · Winners semi-final"; empty for the regular season.
    label: String,
    table: String,
    when: String,
    team_a: String,
    team_b: String,
    score_a: String,
    score_b: String,
    state: String,
    /// The card's class: `live`, `today`, `upcoming` or `done`.
    kind: &'static str,
    /// Scheduled for today.
    today: bool,
    /// Finished, and its league requires sportsmanship ratings a team does not have yet.
    rating_missing: bool,
}

impl ListItem {
    fn of(listed: Listed, missing: &HashSet<MatchId>) -> ListItem {
        let m = listed.summary;
        let kind = match m.status {
            MatchStatus::InProgress => "live",
            MatchStatus::Scheduled if listed.today => "today",
            MatchStatus::Scheduled => "upcoming",
            _ => "done",
        };
        ListItem {
            id: m.id,
            league: listed.league_name,
            label: m.label.unwrap_or_default(),
            table: m.table.unwrap_or_default(),
            when: m.scheduled_at.map(super::when_local).unwrap_or_default(),
            team_a: m.team_a.name,
            team_b: m.team_b.name,
            score_a: words::points(m.a.score),
            score_b: words::points(m.b.score),
            state: m.state,
            kind,
            today: listed.today,
            rating_missing: missing.contains(&m.id),
        }
    }
}

#[derive(Template)]
#[template(path = "console/tonight.html")]
struct TonightPage {
    nav: Nav,
    /// Today's date in words ("Mon 23 Nov").
    date: String,
    /// Today's matches given to the user (their `supervisor`), before the rest of today's.
    yours: Vec<ListItem>,
    today: Vec<ListItem>,
    later: Vec<ListItem>,
    earlier: Vec<ListItem>,
    untimed: Vec<ListItem>,
}

#[get("/supervise")]
pub(super) async fn tonight(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
) -> Result<HttpResponse, PageError> {
    let clock = state.db.clock();
    let list = service::tonight(&state.db, &who.user).await?;
    let finished: Vec<MatchId> = list
        .yours
        .iter()
        .chain(&list.today)
        .chain(&list.earlier)
        .map(|l| l.summary.id)
        .collect();
    let missing = console_views::ratings_missing(&state.db, &finished).await?;
    let items = |list: Vec<Listed>| {
        list.into_iter()
            .map(|l| ListItem::of(l, &missing))
            .collect()
    };
    private_page(
        StatusCode::OK,
        TonightPage {
            nav: who.nav(),
            date: clock.local_now().0.format("%a %-d %b").to_string(),
            yours: items(list.yours),
            today: items(list.today),
            later: items(list.later),
            earlier: items(list.earlier),
            untimed: items(list.untimed),
        },
    )
}
