//! Public pages (no login): leagues, a league's home, standings, schedule, teams, rules; the
//! match page with its scoresheet, clock and score chart; the scoreboard of every match in
//! play (it refreshes itself: `public.js` polls, a `<noscript>` meta refresh otherwise); the
//! standings and scoresheet CSV exports.

pub mod bracket;

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpResponse, get, web};
use askama::Template;
use serde::Serialize;
use sqlx::SqliteConnection;

use crate::db::leagues::TeamRow;
use crate::db::matches as db_matches;
use crate::league::standings::{Standing, Tiebreak};
use crate::rules::describe::{RuleLine, describe};
use crate::rules::hand::{BidInput, TeamHandInput};
use crate::rules::{Team, TeamResult, TeamTotal};
use crate::service::leagues::{self, League};
use crate::service::matches::{self, MatchSummary, MatchView, TeamRef, state_words};
use crate::web::AppState;
use crate::web::error::{AppError, PageError};
use crate::web::extract::Viewer;
use crate::web::respond::html;
use crate::web::respond::no_store;
use crate::web::view::nav::Nav;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(league_index)
        .service(league_home)
        .service(league_rules)
        .service(standings_csv)
        .service(standings_page)
        .service(schedule_page)
        .service(teams_page)
        .service(team_page)
        .service(scoresheet_csv)
        .service(match_page)
        .service(scoreboard_page)
        .service(scoreboard_json);
}

/// A page; `no-store` when a logged-in user sees it (the header carries their CSRF token).
fn page(who: &Viewer, body: String) -> HttpResponse {
    let response = html(StatusCode::OK, body);
    if who.0.is_some() {
        no_store(response)
    } else {
        response
    }
}

// ---------------------------------------------------------------------------------------
// Times

/// A scheduled time as stored (`YYYY-MM-DDTHH:MM`, local): "Tue 24 Nov, 19:00".
fn show_scheduled(s: &str) -> String {
    chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M")
        .map(|t| t.format("%a %-d %b %Y, %H:%M").to_string())
        .unwrap_or_else(|_| s.to_string())
}

fn scheduled_date(s: &str) -> String {
    chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M")
        .map(|t| t.format("%a %-d %b %Y").to_string())
        .unwrap_or_else(|_| s.to_string())
}

/// An instant as stored (RFC 3339, UTC), for a `<time>` element that `public.js` shows in
/// the reader's own time zone.
pub struct Stamp {
    pub iso: String,
    pub shown: String,
}

fn stamp(s: &str) -> Stamp {
    let shown = chrono::DateTime::parse_from_rfc3339(s)
        .map(|t| t.to_utc().format("%-d %b %Y, %H:%M UTC").to_string())
        .unwrap_or_else(|_| s.to_string());
    Stamp {
        iso: s.to_string(),
        shown,
    }
}

// ---------------------------------------------------------------------------------------
// Shared pieces: a match in a list, a standings row

/// A match as a line of a list (schedule, results, team page, scoreboard).
pub struct MatchLine {
    pub id: i64,
    pub when: String,
    pub table: String,
    pub stage: String,
    pub a: TeamRef,
    pub b: TeamRef,
    /// Empty before the first hand of a match that has not started.
    pub score_a: String,
    pub score_b: String,
    pub bags_a: u32,
    pub bags_b: u32,
    pub hands: usize,
    pub status: String,
    pub state: String,
    pub winner: String,
    pub live: bool,
}

fn line(m: &MatchSummary) -> MatchLine {
    let shows_score = m.status != "scheduled" && !(m.status == "forfeit" && m.hands == 0);
    let (score_a, score_b) = if shows_score {
        (m.a.score.to_string(), m.b.score.to_string())
    } else {
        (String::new(), String::new())
    };
    MatchLine {
        id: m.id,
        when: m
            .scheduled_at
            .as_deref()
            .map(show_scheduled)
            .unwrap_or_default(),
        table: m.table.clone().unwrap_or_default(),
        stage: m.stage.clone(),
        a: m.team_a.clone(),
        b: m.team_b.clone(),
        score_a,
        score_b,
        bags_a: m.a.bags,
        bags_b: m.b.bags,
        hands: m.hands,
        status: m.status.clone(),
        state: m.state.clone(),
        winner: m.winner.map(|t| t.as_str().to_string()).unwrap_or_default(),
        live: m.status == "in_progress",
    }
}

/// Every match of a league, in schedule order, with its scores (from the cached totals).
async fn league_matches(
    conn: &mut SqliteConnection,
    league: &League,
) -> Result<Vec<MatchSummary>, AppError> {
    Ok(matches::summaries(conn, league.row.id).await?)
}

pub struct StandingRow {
    pub s: Standing,
    pub win_pct: String,
    pub differential: String,
}

fn standing_rows(rows: &[Standing]) -> Vec<StandingRow> {
    rows.iter()
        .map(|s| StandingRow {
            win_pct: format!("{:.3}", s.win_pct),
            differential: signed(s.differential),
            s: s.clone(),
        })
        .collect()
}

fn signed(n: i64) -> String {
    if n > 0 {
        format!("+{n}")
    } else {
        n.to_string()
    }
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

// ---------------------------------------------------------------------------------------
// /leagues

pub struct LeagueCard {
    pub slug: String,
    pub name: String,
    pub teams: usize,
    pub matches: usize,
    pub played: usize,
    pub live: usize,
}

#[derive(Template)]
#[template(path = "public/leagues.html")]
struct LeaguesPage {
    nav: Nav,
    leagues: Vec<LeagueCard>,
}

#[get("/leagues")]
async fn league_index(state: web::Data<AppState>, who: Viewer) -> Result<HttpResponse, PageError> {
    let all = leagues::all_leagues(&state.db).await?;
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let mut cards = Vec::with_capacity(all.len());
    for league in all {
        let teams = leagues::teams(&mut conn, league.row.id).await?;
        let rows = db_matches::of_league(&mut conn, league.row.id)
            .await
            .map_err(AppError::from)?;
        cards.push(LeagueCard {
            teams: teams.len(),
            matches: rows.len(),
            played: rows
                .iter()
                .filter(|m| m.status == "complete" || m.status == "forfeit")
                .count(),
            live: rows.iter().filter(|m| m.status == "in_progress").count(),
            slug: league.row.slug,
            name: league.row.name,
        });
    }
    let body = LeaguesPage {
        nav: who.nav(),
        leagues: cards,
    }
    .render()?;
    Ok(page(&who, body))
}

// ---------------------------------------------------------------------------------------
// /leagues/{slug}

#[derive(Template)]
#[template(path = "public/league.html")]
struct LeagueHomePage {
    nav: Nav,
    slug: String,
    name: String,
    standings: Vec<StandingRow>,
    this_week: Vec<MatchLine>,
    results: Vec<MatchLine>,
    upcoming: usize,
}

/// Scheduled within three days of `now` (local time, as the schedule is written).
fn this_week(m: &MatchSummary, now: chrono::NaiveDateTime) -> bool {
    if m.status == "in_progress" {
        return true;
    }
    m.scheduled_at
        .as_deref()
        .and_then(|s| chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M").ok())
        .is_some_and(|t| (t - now).num_minutes().abs() <= 3 * 24 * 60)
}

#[get("/leagues/{slug}")]
async fn league_home(
    state: web::Data<AppState>,
    who: Viewer,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let league = leagues::league_by_slug(&mut conn, &slug).await?;
    let standings = state.standings.get(&mut conn, &league).await?;
    // Only the rows shown are read: the page stays flat in the season's matches.
    let now = chrono::Local::now().naive_local();
    let stored = |t: chrono::NaiveDateTime| t.format("%Y-%m-%dT%H:%M").to_string();
    // A minute wider than `this_week`, which then decides exactly.
    let margin = chrono::Duration::minutes(3 * 24 * 60 + 1);
    let window = db_matches::in_window(
        &mut conn,
        league.row.id,
        &stored(now - margin),
        &stored(now + margin),
    )
    .await
    .map_err(AppError::from)?;
    // Latest results first: by scheduled time, then by id (the order they were made).
    let latest = db_matches::latest_results(&mut conn, league.row.id, 10)
        .await
        .map_err(AppError::from)?;
    // One read of the team names for both lists (a summary for each row, in order).
    let mut shown = matches::summaries_of(
        &mut conn,
        league.row.id,
        &[window.as_slice(), &latest].concat(),
    )
    .await?;
    let results: Vec<MatchLine> = shown.split_off(window.len()).iter().map(line).collect();
    let this_week: Vec<MatchLine> = shown
        .iter()
        .filter(|m| this_week(m, now))
        .map(line)
        .collect();
    let upcoming = db_matches::count_scheduled(&mut conn, league.row.id)
        .await
        .map_err(AppError::from)? as usize;
    let body = LeagueHomePage {
        nav: who.nav(),
        slug: league.row.slug.clone(),
        name: league.row.name.clone(),
        standings: standing_rows(&standings),
        this_week,
        results,
        upcoming,
    }
    .render()?;
    Ok(page(&who, body))
}

// ---------------------------------------------------------------------------------------
// /leagues/{slug}/rules

pub struct StageRulesWords {
    pub stage: &'static str,
    pub lines: Vec<RuleLine>,
    /// The same rules as the stage before ("Playoff rules: as the regular season").
    pub same_as: Option<&'static str>,
}

#[derive(Template)]
#[template(path = "public/rules.html")]
struct LeagueRulesPage {
    nav: Nav,
    slug: String,
    name: String,
    stages: Vec<StageRulesWords>,
    tiebreak: Vec<&'static str>,
}

#[get("/leagues/{slug}/rules")]
async fn league_rules(
    state: web::Data<AppState>,
    who: Viewer,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let league = leagues::league_by_slug(&mut conn, &slug).await?;
    let names = ["Regular season", "Playoffs", "Final"];
    let mut stages = Vec::new();
    for (i, stage) in names.iter().enumerate() {
        let same_as = (0..i)
            .find(|j| league.rules[*j] == league.rules[i])
            .map(|j| names[j]);
        stages.push(StageRulesWords {
            stage,
            lines: if same_as.is_some() {
                Vec::new()
            } else {
                describe(&league.rules[i])
            },
            same_as,
        });
    }
    let body = LeagueRulesPage {
        nav: who.nav(),
        slug: league.row.slug.clone(),
        name: league.row.name.clone(),
        tiebreak: tiebreak_words(&league),
        stages,
    }
    .render()?;
    Ok(page(&who, body))
}

// ---------------------------------------------------------------------------------------
// /leagues/{slug}/standings (+ .csv)

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
async fn standings_page(
    state: web::Data<AppState>,
    who: Viewer,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let league = leagues::league_by_slug(&mut conn, &slug).await?;
    let rows = state.standings.get(&mut conn, &league).await?;
    let body = StandingsPage {
        nav: who.nav(),
        slug: league.row.slug.clone(),
        name: league.row.name.clone(),
        rows: standing_rows(&rows),
        tiebreak: tiebreak_words(&league),
    }
    .render()?;
    Ok(page(&who, body))
}

#[get("/leagues/{slug}/standings.csv")]
async fn standings_csv(
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let league = leagues::league_by_slug(&mut conn, &slug).await?;
    let rows = state.standings.get(&mut conn, &league).await?;
    let mut out = csv_row(&[
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
    ]);
    for s in rows.iter() {
        out.push_str(&csv_row(&[
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
        ]));
    }
    Ok(csv_response(
        &format!("{}-standings.csv", league.row.slug),
        out,
    ))
}

// ---------------------------------------------------------------------------------------
// /leagues/{slug}/schedule

pub struct Round {
    pub title: String,
    pub matches: Vec<MatchLine>,
}

#[derive(Template)]
#[template(path = "public/schedule.html")]
struct SchedulePage {
    nav: Nav,
    slug: String,
    name: String,
    rounds: Vec<Round>,
}

fn round_title(m: &MatchSummary) -> String {
    let stage = match m.stage.as_str() {
        "playoff" => "Playoffs",
        "final" => "Final",
        _ => "",
    };
    let date = m.scheduled_at.as_deref().map(scheduled_date);
    match (stage, m.round, date) {
        ("", Some(r), Some(d)) => format!("Round {r} · {d}"),
        ("", Some(r), None) => format!("Round {r}"),
        ("", None, Some(d)) => d,
        ("", None, None) => "Not yet scheduled".into(),
        (s, Some(r), _) => format!("{s}, round {r}"),
        (s, None, Some(d)) => format!("{s} · {d}"),
        (s, None, None) => s.to_string(),
    }
}

#[get("/leagues/{slug}/schedule")]
async fn schedule_page(
    state: web::Data<AppState>,
    who: Viewer,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let league = leagues::league_by_slug(&mut conn, &slug).await?;
    let all = league_matches(&mut conn, &league).await?;
    let mut rounds: Vec<Round> = Vec::new();
    for m in &all {
        let title = round_title(m);
        match rounds.last_mut() {
            Some(r) if r.title == title => r.matches.push(line(m)),
            _ => rounds.push(Round {
                title,
                matches: vec![line(m)],
            }),
        }
    }
    let body = SchedulePage {
        nav: who.nav(),
        slug: league.row.slug.clone(),
        name: league.row.name.clone(),
        rounds,
    }
    .render()?;
    Ok(page(&who, body))
}

// ---------------------------------------------------------------------------------------
// /leagues/{slug}/teams and /leagues/{slug}/teams/{id}

#[derive(Template)]
#[template(path = "public/teams.html")]
struct TeamsPage {
    nav: Nav,
    slug: String,
    name: String,
    teams: Vec<TeamRow>,
}

#[get("/leagues/{slug}/teams")]
async fn teams_page(
    state: web::Data<AppState>,
    who: Viewer,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let league = leagues::league_by_slug(&mut conn, &slug).await?;
    let teams = leagues::teams(&mut conn, league.row.id).await?;
    let body = TeamsPage {
        nav: who.nav(),
        slug: league.row.slug.clone(),
        name: league.row.name.clone(),
        teams,
    }
    .render()?;
    Ok(page(&who, body))
}

/// A match from one team's side.
pub struct TeamMatch {
    pub line: MatchLine,
    pub opponent: TeamRef,
    /// "W", "L", "T" or empty while not finished.
    pub result: &'static str,
    pub own: String,
    pub theirs: String,
}

#[derive(Template)]
#[template(path = "public/team.html")]
struct TeamPage {
    nav: Nav,
    slug: String,
    name: String,
    team: TeamRow,
    standing: Option<StandingRow>,
    matches: Vec<TeamMatch>,
}

#[get("/leagues/{slug}/teams/{id}")]
async fn team_page(
    state: web::Data<AppState>,
    who: Viewer,
    path: web::Path<(String, i64)>,
) -> Result<HttpResponse, PageError> {
    let (slug, team_id) = path.into_inner();
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let league = leagues::league_by_slug(&mut conn, &slug).await?;
    let team = leagues::teams(&mut conn, league.row.id)
        .await?
        .into_iter()
        .find(|t| t.id == team_id)
        .ok_or(AppError::NotFound)?;
    let standing = leagues::standings(&mut conn, &league)
        .await?
        .into_iter()
        .filter(|s| s.team_id == team_id)
        .collect::<Vec<_>>();
    let all = league_matches(&mut conn, &league).await?;
    let matches = all
        .iter()
        .filter(|m| m.team_a.id == team_id || m.team_b.id == team_id)
        .map(|m| {
            let side = if m.team_a.id == team_id {
                Team::A
            } else {
                Team::B
            };
            let l = line(m);
            let (own, theirs, opponent) = match side {
                Team::A => (l.score_a.clone(), l.score_b.clone(), m.team_b.clone()),
                Team::B => (l.score_b.clone(), l.score_a.clone(), m.team_a.clone()),
            };
            let result = match (m.status.as_str(), m.winner) {
                ("complete" | "forfeit", Some(w)) if w == side => "W",
                ("complete" | "forfeit", Some(_)) => "L",
                ("forfeit", None) => "L",
                ("complete", None) => "T",
                _ => "",
            };
            TeamMatch {
                line: l,
                opponent,
                result,
                own,
                theirs,
            }
        })
        .collect();
    let body = TeamPage {
        nav: who.nav(),
        slug: league.row.slug.clone(),
        name: league.row.name.clone(),
        team,
        standing: standing_rows(&standing).pop(),
        matches,
    }
    .render()?;
    Ok(page(&who, body))
}

// ---------------------------------------------------------------------------------------
// /matches/{id}: scoresheet, clock, chart

pub struct SheetTeam {
    pub bids: String,
    pub tricks: String,
    /// Tricks counted toward the contract where they differ from the tricks taken.
    pub counted: Option<u8>,
    pub r: TeamResult,
    pub made: &'static str,
}

pub struct SheetRow {
    pub number: usize,
    pub note: String,
    pub revision: i64,
    pub reason: String,
    pub recorded: Stamp,
    pub teams: [SheetTeam; 2],
    pub revokes: String,
    pub status: String,
}

fn bids_text(cells: &TeamHandInput) -> String {
    let bids: Vec<String> = cells
        .bids
        .iter()
        .map(|b| match b {
            BidInput::Number(n) => n.to_string(),
            BidInput::Word(w) if w == "blind_nil" => "blind nil".into(),
            BidInput::Word(w) => w.clone(),
        })
        .collect();
    format!(
        "{}{}",
        bids.join(" + "),
        if cells.blind { " (blind)" } else { "" }
    )
}

fn tricks_text(cells: &TeamHandInput) -> String {
    cells
        .tricks
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(" + ")
}

/// The game's state after a hand, with the teams' names.
fn hand_status(m: &MatchView, status: &str, winner: Option<Team>, reason: Option<&str>) -> String {
    let name = |t: Team| match t {
        Team::A => m.team_a.name.as_str(),
        Team::B => m.team_b.name.as_str(),
    };
    match (status, winner) {
        ("won", Some(t)) => format!(
            "{} wins ({})",
            name(t),
            match reason.unwrap_or("") {
                "target" => "reached the target",
                "time" => "time called",
                "tiebreak" => "tie-break hand",
                "floor" => "other team at the loss floor",
                "moon" => "made the moon",
                other => other,
            }
        ),
        ("tied", _) => "Draw".into(),
        ("tiebreak", _) => "Tied: the next hand breaks the tie".into(),
        _ => String::new(),
    }
}

fn revokes_text(m: &crate::rules::HandInput) -> String {
    let Some(r) = &m.revokes else {
        return String::new();
    };
    let mut parts = Vec::new();
    if r.a != 0 {
        parts.push(format!("a:{}", r.a));
    }
    if r.b != 0 {
        parts.push(format!("b:{}", r.b));
    }
    parts.join(" ")
}

fn sheet(m: &MatchView) -> Vec<SheetRow> {
    m.hands
        .iter()
        .map(|h| {
            let team = |r: &TeamResult, cells: Option<&TeamHandInput>| SheetTeam {
                bids: cells.map(bids_text).unwrap_or_default(),
                tricks: cells.map(tricks_text).unwrap_or_default(),
                counted: cells
                    .map(|c| c.tricks.iter().sum::<i64>())
                    .filter(|taken| *taken != i64::from(r.tricks_counted))
                    .map(|_| r.tricks_counted),
                r: *r,
                made: match r.made {
                    Some(true) => "made",
                    Some(false) => "set",
                    None => "",
                },
            };
            let mut notes = Vec::new();
            if h.scored.misdeal {
                notes.push("misdeal");
            }
            if h.scored.tiebreak {
                notes.push("tie-break hand");
            }
            if h.scored.time_called {
                notes.push("time called");
            }
            SheetRow {
                number: h.scored.number,
                note: notes.join(", "),
                revision: h.revision,
                reason: h.reason.clone().unwrap_or_default(),
                recorded: stamp(&h.recorded_at),
                teams: [
                    team(&h.scored.a, h.hand.a.as_ref()),
                    team(&h.scored.b, h.hand.b.as_ref()),
                ],
                revokes: revokes_text(&h.hand),
                status: hand_status(
                    m,
                    &h.scored.status,
                    h.scored.winner,
                    h.scored.reason.as_deref(),
                ),
            }
        })
        .collect()
}

/// A point of the chart.
pub struct Pt {
    pub hand: usize,
    pub x: String,
    pub y: String,
    pub score: i32,
}

pub struct Tick {
    pub at: String,
    pub label: String,
}

/// The score-progression chart, drawn on the server as SVG: the running score of both teams
/// after each hand (from 0 before the first), and the target as a dashed line.
pub struct Chart {
    pub width: u32,
    pub height: u32,
    pub left: String,
    pub right: String,
    pub top: String,
    pub bottom: String,
    pub a_line: String,
    pub b_line: String,
    pub a_pts: Vec<Pt>,
    pub b_pts: Vec<Pt>,
    pub y_ticks: Vec<Tick>,
    pub x_ticks: Vec<Tick>,
    pub target_y: String,
    pub target: i32,
    pub zero_y: String,
}

fn nice_step(span: f64) -> f64 {
    for step in [
        10.0, 20.0, 25.0, 50.0, 100.0, 200.0, 250.0, 500.0, 1000.0, 2000.0,
    ] {
        if span / step <= 6.0 {
            return step;
        }
    }
    5000.0
}

fn chart(m: &MatchView) -> Chart {
    const W: f64 = 400.0;
    const H: f64 = 250.0;
    let (left, right, top, bottom) = (44.0, W - 10.0, 16.0, H - 28.0);
    let target = m.rules.target;
    let scores: Vec<(i32, i32)> = m
        .hands
        .iter()
        .map(|h| (h.scored.a.score, h.scored.b.score))
        .collect();
    let lo = scores
        .iter()
        .flat_map(|(a, b)| [*a, *b])
        .chain([0])
        .min()
        .unwrap_or(0);
    let hi = scores
        .iter()
        .flat_map(|(a, b)| [*a, *b])
        .chain([target, 0])
        .max()
        .unwrap_or(target);
    let step = nice_step(f64::from(hi - lo).max(1.0));
    let lo = (f64::from(lo) / step).floor() * step;
    let hi = ((f64::from(hi) / step).ceil() * step).max(lo + step);
    let n = scores.len().max(1) as f64;
    let x = |i: usize| left + (right - left) * i as f64 / n;
    let y = |v: f64| bottom - (bottom - top) * (v - lo) / (hi - lo);
    let f = |v: f64| format!("{v:.1}");
    let mut a_line = format!("{},{}", f(x(0)), f(y(0.0)));
    let mut b_line = a_line.clone();
    let mut a_pts = Vec::new();
    let mut b_pts = Vec::new();
    for (i, (a, b)) in scores.iter().enumerate() {
        let (px, ya, yb) = (x(i + 1), y(f64::from(*a)), y(f64::from(*b)));
        a_line.push_str(&format!(" {},{}", f(px), f(ya)));
        b_line.push_str(&format!(" {},{}", f(px), f(yb)));
        a_pts.push(Pt {
            hand: i + 1,
            x: f(px),
            y: f(ya),
            score: *a,
        });
        b_pts.push(Pt {
            hand: i + 1,
            x: f(px),
            y: f(yb),
            score: *b,
        });
    }
    let mut y_ticks = Vec::new();
    let mut v = lo;
    while v <= hi + 0.5 {
        y_ticks.push(Tick {
            at: f(y(v)),
            label: format!("{v:.0}"),
        });
        v += step;
    }
    let every = scores.len().div_ceil(12).max(1);
    let x_ticks = (1..=scores.len())
        .filter(|i| i % every == 0 || *i == 1)
        .map(|i| Tick {
            at: f(x(i)),
            label: i.to_string(),
        })
        .collect();
    Chart {
        width: W as u32,
        height: H as u32,
        left: f(left),
        right: f(right),
        top: f(top),
        bottom: f(bottom),
        a_line,
        b_line,
        a_pts,
        b_pts,
        y_ticks,
        x_ticks,
        target_y: f(y(f64::from(target))),
        target,
        zero_y: f(y(0.0)),
    }
}

#[derive(Template)]
#[template(path = "public/match.html")]
struct MatchPage {
    nav: Nav,
    m: MatchView,
    league_name: String,
    state: String,
    /// `a`, `b` or empty.
    winner: &'static str,
    when: String,
    started: Option<Stamp>,
    ends: Option<Stamp>,
    called: Option<Stamp>,
    time_limit: Option<u32>,
    live: bool,
    rows: Vec<SheetRow>,
    chart: Option<Chart>,
    corrected: usize,
    rule_lines: Vec<RuleLine>,
}

#[get("/matches/{id}")]
async fn match_page(
    state: web::Data<AppState>,
    who: Viewer,
    id: web::Path<i64>,
) -> Result<HttpResponse, PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let (m, league) = matches::load(&mut conn, *id).await?;
    let rows = sheet(&m);
    let body = MatchPage {
        nav: who.nav(),
        league_name: league.row.name.clone(),
        state: state_words(&m),
        winner: m.winner.map_or("", Team::as_str),
        when: m
            .scheduled_at
            .as_deref()
            .map(show_scheduled)
            .unwrap_or_default(),
        started: m.started_at.as_deref().map(stamp),
        ends: m.ends_at.as_deref().map(stamp),
        called: m.time_called_at.as_deref().map(stamp),
        time_limit: m.rules.time_limit_minutes,
        live: m.status == "in_progress",
        corrected: rows.iter().filter(|r| r.revision > 1).count(),
        chart: (!m.hands.is_empty()).then(|| chart(&m)),
        rule_lines: describe(&m.rules),
        rows,
        m,
    }
    .render()?;
    Ok(page(&who, body))
}

#[get("/matches/{id}/scoresheet.csv")]
async fn scoresheet_csv(
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let (m, league) = matches::load(&mut conn, *id).await?;
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
    let mut out = csv_row(&header);
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
        row.push(h.scored.status.clone());
        row.push(h.revision.to_string());
        row.push(h.reason.clone().unwrap_or_default());
        out.push_str(&csv_row(&row));
    }
    Ok(csv_response(
        &format!("{}-match-{}-scoresheet.csv", league.row.slug, m.id),
        out,
    ))
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

// ---------------------------------------------------------------------------------------
// /scoreboard and GET /api/v1/scoreboard

/// A match in play, as the scoreboard's JSON shows it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct BoardMatch {
    pub id: i64,
    pub league: String,
    pub league_name: String,
    pub table: Option<String>,
    pub team_a: TeamRef,
    pub team_b: TeamRef,
    pub a: TeamTotal,
    pub b: TeamTotal,
    pub hands: usize,
    pub state: String,
    pub started_at: Option<String>,
    pub ends_at: Option<String>,
    pub time_called_at: Option<String>,
    pub version: i64,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct Board {
    /// The sum of the versions of the matches in play.
    pub version: i64,
    /// Changes whenever any match in play changes, starts or ends: `id:version,...`.
    pub key: String,
    pub matches: Vec<BoardMatch>,
}

async fn board(state: &AppState) -> Result<Board, AppError> {
    let mut conn = state.db.reader().acquire().await?;
    let out: Vec<BoardMatch> = matches::in_play(&mut conn)
        .await?
        .into_iter()
        .map(|p| BoardMatch {
            id: p.summary.id,
            league_name: p.league_name,
            league: p.league,
            table: p.summary.table,
            team_a: p.summary.team_a,
            team_b: p.summary.team_b,
            a: p.summary.a,
            b: p.summary.b,
            hands: p.summary.hands,
            state: p.summary.state,
            started_at: p.started_at,
            ends_at: p.ends_at,
            time_called_at: p.time_called_at,
            version: p.version,
        })
        .collect();
    Ok(Board {
        version: out.iter().map(|m| m.version).sum(),
        key: out
            .iter()
            .map(|m| format!("{}:{}", m.id, m.version))
            .collect::<Vec<_>>()
            .join(","),
        matches: out,
    })
}

/// Every match in play, for the scoreboard (poll it; `key` changes whenever one changes).
#[utoipa::path(
    get,
    path = "/api/v1/scoreboard",
    tag = "scoreboard",
    responses((status = 200, description = "the matches in play", body = Board))
)]
#[get("/api/v1/scoreboard")]
async fn scoreboard_json(state: web::Data<AppState>) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .json(board(&state).await?))
}

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
async fn scoreboard_page(
    state: web::Data<AppState>,
    who: Viewer,
) -> Result<HttpResponse, PageError> {
    let b = board(&state).await?;
    let body = ScoreboardPage {
        nav: who.nav(),
        key: b.key,
        rows: b
            .matches
            .into_iter()
            .map(|m| BoardRow {
                ends: m.ends_at.as_deref().map(stamp),
                started: m.started_at.as_deref().map(stamp),
                m,
            })
            .collect(),
        updated: stamp(&crate::service::now()),
    }
    .render()?;
    Ok(page(&who, body))
}

// ---------------------------------------------------------------------------------------
// CSV

/// A plain number (what a spreadsheet may read as one): `-40`, `0.750`.
fn is_number(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let mut parts = digits.splitn(2, '.');
    let whole = parts.next().unwrap_or("");
    let frac = parts.next();
    !whole.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && frac.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
}

/// One CSV field (RFC 4180): a cell a spreadsheet would read as a formula gets a leading
/// `'` (plain negative numbers stay numbers); quoted when it holds a comma, quote or line
/// break.
pub fn csv_cell(value: &str) -> String {
    let mut v = value.to_string();
    if v.starts_with(['=', '+', '-', '@', '\t', '\r']) && !is_number(&v) {
        v.insert(0, '\'');
    }
    if v.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", v.replace('"', "\"\""))
    } else {
        v
    }
}

pub(crate) fn csv_row<S: AsRef<str>>(cells: &[S]) -> String {
    let mut line = cells
        .iter()
        .map(|c| csv_cell(c.as_ref()))
        .collect::<Vec<_>>()
        .join(",");
    line.push_str("\r\n");
    line
}

pub(crate) fn csv_response(filename: &str, body: String) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{filename}\""),
        ))
        .body(body)
}

#[cfg(test)]
mod tests {
    use super::{csv_cell, is_number};

    #[test]
    fn csv_cells_are_escaped_and_defused() {
        assert_eq!(csv_cell("Aces"), "Aces");
        assert_eq!(csv_cell("-40"), "-40");
        assert_eq!(csv_cell("0.750"), "0.750");
        assert_eq!(csv_cell("=1+2"), "'=1+2");
        assert_eq!(csv_cell("+1"), "'+1");
        assert_eq!(csv_cell("-1+2"), "'-1+2");
        assert_eq!(csv_cell("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv_cell("a,b"), "\"a,b\"");
        assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_cell("two\nlines"), "\"two\nlines\"");
        assert_eq!(
            csv_cell("=HYPERLINK(\"x\",1)"),
            "\"'=HYPERLINK(\"\"x\"\",1)\""
        );
        assert!(is_number("12") && is_number("-3.5") && !is_number("-") && !is_number("1."));
    }
}
