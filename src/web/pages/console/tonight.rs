//! `/supervise`: the evening's matches of the leagues the user runs — today's first (in play,
//! then by time, then those finished today, saying "rating missing" where the league requires
//! sportsmanship ratings not given yet), with the rest of the week, the earlier days and the
//! matches without a time folded away — each a link to its console. Above them, each league
//! with a room of tables shows its tables (free, called — "no show?" once the call is old —
//! or playing) and the matches waiting, and `POST /supervise/leagues/{slug}/queue` calls the
//! next matches to the free tables.

use crate::web::respond::private_page;
use std::collections::HashSet;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;

use crate::domain::{MatchId, MatchStatus, words};
use crate::service::night::console_views;
use crate::service::night::queue::{LeagueQueue, TableStatus, queues_for};
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

/// A table of a league's room on the list: its name as said, what is at it.
struct TableRow {
    name: String,
    /// `free`, `called` or `playing` (the row's class).
    status: &'static str,
    /// The match at it, with its teams ("Aces v Kings").
    at: Option<(MatchId, String)>,
    /// When the match was called ("Mon 30 Nov, 19:02"), for a called table.
    since: String,
    no_show: bool,
}

/// A league's tables and its waiting matches (docs/api.md §21.1).
struct TablesBox {
    name: String,
    slug: String,
    tables: Vec<TableRow>,
    /// The waiting matches, in calling order, with their teams.
    waiting: Vec<(MatchId, String)>,
    /// The queue calls by itself, a table is free and a match waits: "Call the next
    /// matches" is offered.
    can_fill: bool,
}

impl TablesBox {
    fn of(q: LeagueQueue, zone: chrono_tz::Tz) -> TablesBox {
        let teams = |[a, b]: &[String; 2]| format!("{a} v {b}");
        let tables: Vec<TableRow> = q
            .view
            .tables
            .iter()
            .map(|t| TableRow {
                name: crate::domain::table_name::shown(&t.name),
                status: match t.status {
                    TableStatus::Free => "free",
                    TableStatus::Called => "called",
                    TableStatus::Playing => "playing",
                },
                at: t.match_id.zip(t.teams.as_ref().map(teams)),
                since: t
                    .called_at
                    .map(|at| super::when(at, zone))
                    .unwrap_or_default(),
                no_show: t.no_show,
            })
            .collect();
        let free = tables.iter().any(|t| t.status == "free");
        TablesBox {
            can_fill: q.view.auto && free && !q.waiting.is_empty(),
            name: q.name,
            slug: q.slug,
            tables,
            waiting: q.waiting.iter().map(|(id, n)| (*id, teams(n))).collect(),
        }
    }
}

#[derive(Template)]
#[template(path = "console/tonight.html")]
struct TonightPage {
    nav: Nav,
    /// The tables of the leagues with a room of tables, first on the page.
    queues: Vec<TablesBox>,
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
            queues: queues_for(&state.db, &who.user)
                .await?
                .into_iter()
                .map(|q| TablesBox::of(q, clock.zone()))
                .collect(),
            date: clock.local_now().0.format("%a %-d %b").to_string(),
            yours: items(list.yours),
            today: items(list.today),
            later: items(list.later),
            earlier: items(list.earlier),
            untimed: items(list.untimed),
        },
    )
}

/// "Call the next matches": the queue's calls now (an admin, or a supervisor of the
/// league), then the list again.
#[post("/supervise/leagues/{slug}/queue")]
pub(super) async fn fill_tables(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    slug: web::Path<crate::domain::Slug>,
    _form: crate::web::extract::CsrfForm<Vec<(String, String)>>,
) -> Result<HttpResponse, PageError> {
    crate::service::night::queue::fill_now(&state.db, &who.user, &slug).await?;
    Ok(crate::web::respond::see_other(&format!(
        "/supervise#tables-{slug}"
    )))
}
