//! Public pages (no login): leagues, a league's home, standings, schedule, teams, rules
//! (`leagues`, `standings`, `schedule`, `teams`); the match page with its scoresheet, clock
//! and score chart (`match_page`); the scoreboard of every match in play (`scoreboard`: it
//! refreshes itself, `public.js` polls, a `<noscript>` meta refresh otherwise); the bracket
//! (`bracket`); the standings and scoresheet CSV exports (`csv`); the calendar feeds of a
//! league's and a team's matches (`calendar`).
//!
//! Handlers read through one service call (`service::views::league_home`,
//! `service::views::public_views`, ...) and only turn its view into a template's fields.

pub mod bracket;
mod calendar;
mod leagues;
mod match_page;
mod schedule;
mod scoreboard;
mod standings;
mod teams;

use std::collections::HashMap;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};

use crate::domain::{MatchId, MatchStatus, TeamId, TextEnum, words};
use crate::league::standings::{Standing, Tiebreak};
use crate::rules::Team;
use crate::service::TeamRef;
use crate::service::term::leagues::League;
use crate::service::views::summaries::MatchSummary;
use crate::web::extract::Viewer;
use crate::web::respond::{html, no_store};
use crate::web::view::time;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(leagues::league_index)
        .service(leagues::league_home)
        .service(leagues::league_rules)
        .service(standings::standings_csv)
        .service(standings::standings_page)
        .service(schedule::schedule_page)
        .service(schedule::schedule_csv)
        .service(teams::teams_page)
        .service(teams::team_page)
        .service(teams::player_page)
        .service(match_page::scoresheet_csv)
        .service(match_page::match_page)
        .service(scoreboard::scoreboard_page)
        .service(calendar::league_calendar)
        .service(calendar::team_calendar);
}

/// A public page: `no-store` when a logged-in user sees it (the header carries their CSRF
/// token), cacheable otherwise.
fn page(who: &Viewer, body: String) -> HttpResponse {
    let response = html(StatusCode::OK, body);
    if who.0.is_some() {
        no_store(response)
    } else {
        response
    }
}

/// A match as a line of a list (schedule, results, team page).
pub struct MatchLine {
    pub id: MatchId,
    /// A bracket match's label, "M5 · Winners semi-final"; empty for the regular season.
    pub label: String,
    pub when: String,
    pub table: String,
    pub a: TeamRef,
    pub b: TeamRef,
    /// Empty before the first hand of a match that has not started.
    pub score_a: String,
    pub score_b: String,
    /// The status as stored, for the line's class.
    pub status: &'static str,
    pub state: String,
    /// Why it was postponed or cancelled (empty when it was not, or nobody said).
    pub note: String,
    pub a_won: bool,
    pub b_won: bool,
}

fn line(m: &MatchSummary) -> MatchLine {
    let shows_score = match m.status {
        MatchStatus::Scheduled | MatchStatus::Postponed => false,
        MatchStatus::Forfeit | MatchStatus::Cancelled => m.hands > 0,
        _ => true,
    };
    let (score_a, score_b) = if shows_score {
        (words::points(m.a.score), words::points(m.b.score))
    } else {
        (String::new(), String::new())
    };
    MatchLine {
        id: m.id,
        label: m.label.clone().unwrap_or_default(),
        when: m.scheduled_at.map(time::scheduled).unwrap_or_default(),
        table: m.table.clone().unwrap_or_default(),
        a: m.team_a.clone(),
        b: m.team_b.clone(),
        score_a,
        score_b,
        status: m.status.as_str(),
        state: m.state.clone(),
        note: match m.status {
            MatchStatus::Postponed | MatchStatus::Cancelled => m.note.clone().unwrap_or_default(),
            _ => String::new(),
        },
        a_won: m.winner == Some(Team::A),
        b_won: m.winner == Some(Team::B),
    }
}

/// A row of a standings table.
#[derive(Clone)]
pub struct StandingRow {
    pub s: Standing,
    pub win_pct: String,
    pub differential: String,
    /// The sportsmanship average to one decimal ("4.5"), "–" before the first rating.
    pub sportsmanship: String,
    /// Why the team is out of the league ("dropped after 2 forfeits", "withdrawn"); empty
    /// while it is in.
    pub out: String,
}

/// The rows of a standings table; `out`: the teams out of the league and why.
fn standing_rows(rows: &[Standing], out: &HashMap<TeamId, String>) -> Vec<StandingRow> {
    rows.iter()
        .map(|s| {
            let mut row = standing_row(s);
            row.out = out.get(&s.team_id).cloned().unwrap_or_default();
            row
        })
        .collect()
}

fn standing_row(s: &Standing) -> StandingRow {
    StandingRow {
        win_pct: format!("{:.3}", s.win_pct),
        differential: if s.differential > 0 {
            format!("+{}", s.differential)
        } else {
            words::points(s.differential)
        },
        sportsmanship: sportsmanship_average(s),
        out: String::new(),
        s: s.clone(),
    }
}

/// A team's sportsmanship average as the public pages show it: one decimal ("4.5"), "–"
/// before its first rating.
fn sportsmanship_average(s: &Standing) -> String {
    s.sportsmanship()
        .map_or_else(|| "–".to_string(), |avg| format!("{avg:.1}"))
}

/// Whether `league` rates sportsmanship (then its standings show the average).
fn rates(league: &League) -> bool {
    league.settings.sportsmanship.is_some()
}

/// The tiebreak order of a league in words, numbered, ending with the name.
fn tiebreak_words(league: &League) -> Vec<&'static str> {
    let order = if league.tiebreak.is_empty() {
        Tiebreak::DEFAULT_ORDER.to_vec()
    } else {
        league.tiebreak.clone()
    };
    let mut words: Vec<&'static str> = order.iter().map(|t| t.words()).collect();
    words.push("name, alphabetically");
    words
}

/// `words` with a capital first letter: "Regular season", "Single elimination".
fn capitalized(words: &str) -> String {
    let mut chars = words.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
