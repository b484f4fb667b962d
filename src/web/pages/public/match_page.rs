//! `/matches/{id}`: a match's board, clock, score chart, scoresheet and rules (it polls while
//! the match is in play or about to start), and `/matches/{id}/scoresheet.csv`. Where lineups
//! were set, each hand names who bid and took what (the CSV's last four columns: who sat at
//! each seat).

use actix_web::{HttpResponse, get, web};
use askama::Template;

use super::page;
use crate::domain::{MatchId, MatchStatus, TextEnum};
use crate::rules::describe::{RuleLine, describe};
use crate::rules::hand::{BidInput, TeamHandInput};
use crate::rules::{Stage, Team, TeamResult};
use crate::service::night::match_view::Lineup;
use crate::service::night::match_view::MatchView;
use crate::service::views::summaries::state_words;
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::Viewer;
use crate::web::respond::Csv;
use crate::web::view::chart::Chart;
use crate::web::view::nav::Nav;
use crate::web::view::scoresheet::{Scoresheet, revokes_text};
use crate::web::view::time::{self, Stamp};

// ---------------------------------------------------------------------------------------
// The page

#[derive(Template)]
#[template(path = "public/match.html")]
struct MatchPage {
    nav: Nav,
    m: MatchView,
    league_name: String,
    state: String,
    /// The status as stored, for the page's class and `data-status`.
    status: &'static str,
    /// Not started yet (the page polls, slowly, for the start).
    scheduled: bool,
    /// The stage in words, outside the regular season.
    stage: Option<&'static str>,
    a_won: bool,
    b_won: bool,
    when: String,
    started: Option<Stamp>,
    ends: Option<Stamp>,
    called: Option<Stamp>,
    time_limit: Option<u32>,
    live: bool,
    sheet: Scoresheet,
    chart: Option<Chart>,
    rule_lines: Vec<RuleLine>,
}

#[get("/matches/{id}")]
pub(super) async fn match_page(
    state: web::Data<AppState>,
    who: Viewer,
    id: web::Path<MatchId>,
) -> Result<HttpResponse, PageError> {
    let (m, league) = crate::service::night::match_view::with_league(&state.db, *id).await?;
    let lineups = crate::service::night::lineups::of_match(&state.db, m.id).await?;
    // On a phone (≤ 600 px) the hands show as cards, both teams side by side.
    let sheet = Scoresheet {
        id: "scoresheet",
        cards: true,
        ..Scoresheet::of_match(&m)
            .with_lineups(&m, &lineups)
            .with_breakdown(&m)
    };
    let zone = state.db.clock().zone();
    let at = |t| time::in_zone(t, zone);
    let scores: Vec<(i32, i32)> = m
        .hands
        .iter()
        .map(|h| (h.scored.a.score, h.scored.b.score))
        .collect();
    let body = MatchPage {
        nav: who.nav(),
        league_name: league.row.name,
        state: state_words(&m),
        status: m.status.as_str(),
        scheduled: m.status == MatchStatus::Scheduled,
        stage: (m.stage != Stage::Regular).then(|| m.stage.words()),
        a_won: m.winner == Some(Team::A),
        b_won: m.winner == Some(Team::B),
        when: m.scheduled_at.map(time::scheduled).unwrap_or_default(),
        started: m.started_at.map(at),
        ends: m.ends_at.map(at),
        called: m.time_called_at.map(at),
        time_limit: m.rules.time_limit_minutes,
        live: m.status == MatchStatus::InProgress,
        chart: (!scores.is_empty()).then(|| Chart::new(&scores, m.rules.target)),
        rule_lines: describe(&m.rules),
        sheet,
        m,
    }
    .render()?;
    Ok(page(&who, body))
}

// ---------------------------------------------------------------------------------------
// The scoresheet as CSV

#[get("/matches/{id}/scoresheet.csv")]
pub(super) async fn scoresheet_csv(
    state: web::Data<AppState>,
    id: web::Path<MatchId>,
) -> Result<HttpResponse, PageError> {
    let (m, league) = crate::service::night::match_view::with_league(&state.db, *id).await?;
    let mut header: Vec<String> = [
        "number",
        "a_bids",
        "a_tricks",
        "b_bids",
        "b_tricks",
        "revokes",
        "time_called",
        "misdeal",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for t in ["a", "b"] {
        for f in TEAM_FIELDS {
            header.push(format!("{t}_{f}"));
        }
    }
    header.extend(["status", "revision", "correction_reason"].map(String::from));
    // Added with lineups, at the end: who sat at each seat (names; empty without a lineup).
    header.extend(["a_player1", "a_player2", "b_player1", "b_player2"].map(String::from));
    let lineups = crate::service::night::lineups::of_match(&state.db, m.id).await?;
    let mut csv = Csv::with_header(&header)?;
    let cells = |c: Option<&TeamHandInput>| -> (String, String) {
        c.map_or_else(Default::default, |c| {
            let mut bids: Vec<String> = c
                .bids
                .iter()
                .map(|b| match b {
                    BidInput::Number(n) => n.to_string(),
                    BidInput::Word(w) => w.clone(),
                })
                .collect();
            if c.blind {
                bids.push("blind".into());
            }
            (
                bids.join(" "),
                c.tricks
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        })
    };
    for h in &m.hands {
        let (a_bids, a_tricks) = cells(h.hand.a.as_ref());
        let (b_bids, b_tricks) = cells(h.hand.b.as_ref());
        let mut row = vec![
            h.scored.number.to_string(),
            a_bids,
            a_tricks,
            b_bids,
            b_tricks,
            revokes_text(&h.hand),
            h.scored.time_called.to_string(),
            h.scored.misdeal.to_string(),
        ];
        for r in [&h.scored.a, &h.scored.b] {
            row.extend(team_fields(r));
        }
        row.push(h.scored.status.as_str().to_string());
        row.push(h.revision.to_string());
        row.push(h.reason.clone().unwrap_or_default());
        let seated = Lineup::at_hand(&lineups, i64::try_from(h.scored.number).unwrap_or(i64::MAX));
        for team in Team::BOTH {
            let names = seated
                .of(team)
                .map(|s| [s[0].name.clone(), s[1].name.clone()]);
            row.extend(names.unwrap_or_default());
        }
        csv.row(&row)?;
    }
    Ok(csv.download(&format!(
        "{}-match-{}-scoresheet.csv",
        league.row.slug, m.id
    ))?)
}

const TEAM_FIELDS: [&str; 11] = [
    "nil_points",
    "contract",
    "tricks_counted",
    "made",
    "contract_points",
    "bag_points",
    "bag_penalty",
    "revoke_award",
    "points",
    "bags",
    "score",
];

fn team_fields(r: &TeamResult) -> [String; 11] {
    [
        r.nil_points.to_string(),
        r.contract.to_string(),
        r.tricks_counted.to_string(),
        r.made.map(|b| b.to_string()).unwrap_or_default(),
        r.contract_points.to_string(),
        r.bag_points.to_string(),
        r.bag_penalty.to_string(),
        r.revoke_award.to_string(),
        r.points.to_string(),
        r.bags.to_string(),
        r.score.to_string(),
    ]
}
