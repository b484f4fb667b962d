//! The front of the public league pages: the list of leagues with their counts, and a
//! league's home (its standings, this week's matches, the latest results). Each is one read
//! of the rows it shows, so the home page stays flat in the number of matches of a season.

use crate::domain::Slug;
use std::collections::HashMap;

use crate::db::{Conn, Db};

use crate::db::leagues as db_leagues;
use crate::db::matches as db_matches;
use crate::domain::{LocalTime, MatchStatus, TeamId};
use crate::league::standings::Standing;
use crate::service::ServiceError;
use crate::service::term::leagues::{self, League};
use crate::service::views::summaries::MatchSummary;

/// A league on the list of leagues.
#[derive(Debug, Clone)]
pub struct LeagueCard {
    pub slug: String,
    pub name: String,
    pub teams: usize,
    pub matches: usize,
    /// Complete or forfeited.
    pub played: usize,
    /// In progress.
    pub live: usize,
    /// A past season (docs/api.md §18.2).
    pub archived: bool,
    /// The champion's name, once the final is decided.
    pub champion: Option<String>,
}

impl LeagueCard {
    /// `cards` split into the current leagues' and the past seasons'.
    pub fn split_past(cards: Vec<LeagueCard>) -> (Vec<LeagueCard>, Vec<LeagueCard>) {
        cards.into_iter().partition(|c| !c.archived)
    }
}

/// Every league, newest first, with how many teams and matches it has.
#[tracing::instrument(skip_all)]
pub async fn league_cards(db: &Db) -> Result<Vec<LeagueCard>, ServiceError> {
    // A read of its own: the page's handler holds no connection.
    let mut conn = db.read().await?;
    let conn: &mut Conn = &mut conn;
    let all = db_leagues::all(conn).await?;
    let mut cards = Vec::with_capacity(all.len());
    for league in crate::service::term::leagues::readable(all) {
        let league = league.row;
        let teams = db_leagues::count_teams(conn, league.id).await?;
        let counts = db_matches::count_by_status(conn, league.id).await?;
        let count = |pick: fn(MatchStatus) -> bool| {
            let n: i64 = counts
                .iter()
                .filter(|(s, _)| pick(*s))
                .map(|(_, n)| n)
                .sum();
            usize::try_from(n).unwrap_or(0)
        };
        let champion = crate::service::term::leagues::shown_champion(conn, league.id)
            .await?
            .map(|t| t.name);
        cards.push(LeagueCard {
            archived: league.archived,
            champion,
            teams: usize::try_from(teams).unwrap_or(0),
            matches: count(|_| true),
            played: count(MatchStatus::is_result),
            live: count(|s| s == MatchStatus::InProgress),
            slug: league.slug.to_string(),
            name: league.name,
        });
    }
    Ok(cards)
}

/// "This week" on a league's home: the matches in play and those scheduled no more than
/// this many days before or after now.
pub const THIS_WEEK_DAYS: i64 = 3;

/// How many of the latest results a league's home shows.
pub const LATEST_RESULTS: i64 = 10;

/// A league's home page.
#[derive(Debug, Clone)]
pub struct LeagueHome {
    pub league: League,
    pub standings: Vec<Standing>,
    /// The teams out of the league, by id, and why ("dropped after 2 forfeits", "withdrawn").
    pub out: HashMap<TeamId, String>,
    /// In play, or scheduled within [`THIS_WEEK_DAYS`] of now; in schedule order.
    pub this_week: Vec<MatchSummary>,
    /// The latest [`LATEST_RESULTS`] finished matches, newest first (by scheduled time,
    /// then in the order they were made).
    pub results: Vec<MatchSummary>,
    /// Matches not started yet, in the whole season.
    pub upcoming: usize,
    /// The champion's name, once the final is decided.
    pub champion: Option<String>,
}

/// The home of league `slug` at `now` (the league's wall-clock time).
#[tracing::instrument(skip_all, fields(slug = ?slug))]
pub async fn league_home(db: &Db, slug: &Slug, now: LocalTime) -> Result<LeagueHome, ServiceError> {
    // A read of its own: the page's handler holds no connection.
    let mut conn = db.read().await?;
    let conn: &mut Conn = &mut conn;
    let league = leagues::league_by_slug(conn, slug).await?;
    let rows = crate::service::views::standings::standings(conn, &league).await?;
    let out = db_leagues::withdrawn_teams(conn, league.row.id).await?;
    let minutes = THIS_WEEK_DAYS * 24 * 60;
    let window = db_matches::in_window(
        conn,
        league.row.id,
        now.checked_plus_minutes(-minutes)
            .unwrap_or(LocalTime(chrono::NaiveDateTime::MIN)),
        now.checked_plus_minutes(minutes)
            .unwrap_or(LocalTime(chrono::NaiveDateTime::MAX)),
    )
    .await?;
    let latest = db_matches::latest_results(conn, league.row.id, LATEST_RESULTS).await?;
    // One read of the team names for both lists (a summary for each row, in order).
    let mut this_week = crate::service::views::summaries::summaries_of(
        conn,
        league.row.id,
        &[window.as_slice(), &latest].concat(),
    )
    .await?;
    let results = this_week.split_off(window.len());
    let upcoming = db_matches::count_scheduled(conn, league.row.id).await?;
    let champion = crate::service::playoffs::champion(conn, league.row.id)
        .await?
        .map(|t| t.name);
    Ok(LeagueHome {
        champion,
        league,
        standings: rows,
        out: crate::service::views::public_views::out_of_league(&out),
        this_week,
        results,
        upcoming: usize::try_from(upcoming).unwrap_or(0),
    })
}

/// A team found by its name: its league and its page.
#[derive(Debug, Clone)]
pub struct FoundTeam {
    pub league_slug: String,
    pub league_name: String,
    pub team_id: crate::domain::TeamId,
    pub team_name: String,
}

/// How many teams a search answers at most.
pub const FOUND_MOST: usize = 50;

/// The teams of the current (not archived) leagues whose name holds `words` (each, ignoring
/// case), by league then name; none for blank words. At most [`FOUND_MOST`].
pub async fn find_teams(db: &Db, words: &str) -> Result<Vec<FoundTeam>, ServiceError> {
    let words: Vec<String> = words
        .split_whitespace()
        .take(8)
        .map(str::to_lowercase)
        .collect();
    if words.is_empty() {
        return Ok(Vec::new());
    }
    let mut conn = db.read().await?;
    let conn: &mut Conn = &mut conn;
    // The leagues whose stored document reads (a league that does not is left out, as on
    // the home page), then their teams in one query.
    let leagues: std::collections::HashMap<crate::domain::LeagueId, db_leagues::LeagueRow> =
        crate::service::term::leagues::readable(db_leagues::all(conn).await?)
            .into_iter()
            .filter(|l| !l.row.archived)
            .map(|l| (l.row.id, l.row))
            .collect();
    let mut found = Vec::new();
    for team in db_leagues::teams_of_current_leagues(conn).await? {
        let Some(league) = leagues.get(&team.league_id) else {
            continue;
        };
        let name = team.name.to_string();
        let lower = name.to_lowercase();
        if words.iter().all(|w| lower.contains(w.as_str())) {
            found.push(FoundTeam {
                league_slug: league.slug.to_string(),
                league_name: league.name.clone(),
                team_id: team.id,
                team_name: name,
            });
        }
    }
    found.sort_by(|a, b| {
        (&a.league_name, a.team_name.to_lowercase())
            .cmp(&(&b.league_name, b.team_name.to_lowercase()))
    });
    found.truncate(FOUND_MOST);
    Ok(found)
}
