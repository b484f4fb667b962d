//! Matches as lists show them (schedule, results, team pages, the scoreboard): from the
//! totals cached on each match row, never from its hands, so the pages stay flat in the
//! number of hands played; the state of a game in words; and the scoreboard.

use crate::db::Conn;
use serde::Serialize;

use crate::db::Db;
use crate::db::board as db_board;
use crate::db::leagues as db_leagues;
use crate::db::matches::{self as db_matches, MatchRow};
use crate::domain::table_name;
use crate::domain::{
    ForfeitSide, GameStatus, LeagueId, LocalTime, MatchId, MatchStatus, Slug, TeamId, Timestamp,
};
use crate::rules::{Rules, Stage, Team, TeamTotal, WinReason};
use crate::service::night::match_view::{MatchView, ends_at};
use crate::service::{ServiceError, TeamRef};

/// The state a game is in, from the cached match row (for lists and scoreboards).
pub fn state_words(m: &MatchView) -> String {
    words(&StateParts {
        status: m.status,
        started: m.started_at.is_some(),
        forfeit: m.forfeit,
        game_status: m.game_status,
        winner: m.winner,
        reason: m.reason,
        names: [&m.team_a.name, &m.team_b.name],
    })
}

/// What [`words`] needs of a match, a full one or a summary.
struct StateParts<'a> {
    status: MatchStatus,
    started: bool,
    forfeit: Option<ForfeitSide>,
    game_status: GameStatus,
    winner: Option<Team>,
    reason: Option<WinReason>,
    names: [&'a str; 2],
}

fn words(m: &StateParts<'_>) -> String {
    match m.status {
        MatchStatus::Cancelled if m.started => return "Cancelled (bracket reset)".into(),
        MatchStatus::Cancelled => return "Cancelled".into(),
        MatchStatus::Postponed => return "Postponed".into(),
        MatchStatus::Forfeit => {
            return match m.forfeit.map(ForfeitSide::team) {
                Some(None) => match m.winner {
                    Some(t) => format!(
                        "Double forfeit; {} advances (coordinator's choice)",
                        m.names[t.index()]
                    ),
                    None => "Double forfeit".into(),
                },
                Some(Some(team)) => format!("{} forfeited", m.names[team.index()]),
                None => "Forfeit".into(),
            };
        }
        _ => {}
    }
    match (m.game_status, m.winner) {
        (GameStatus::Won, Some(team)) => format!(
            "{} won ({})",
            m.names[team.index()],
            m.reason.map_or("", WinReason::words)
        ),
        (GameStatus::Tied, _) => "Draw".into(),
        (GameStatus::Tiebreak, _) => "Tied: the next hand decides".into(),
        _ if m.status == MatchStatus::Scheduled => "Not started".into(),
        _ => "In progress".into(),
    }
}

/// A match as the list pages show it, from its cached totals without reading its hands, so
/// the schedule, results and team pages stay flat in the number of hands played.
#[derive(Debug, Clone)]
pub struct MatchSummary {
    pub id: MatchId,
    pub stage: Stage,
    pub round: Option<i64>,
    pub table: Option<String>,
    pub scheduled_at: Option<LocalTime>,
    pub status: MatchStatus,
    pub team_a: TeamRef,
    pub team_b: TeamRef,
    pub a: TeamTotal,
    pub b: TeamTotal,
    pub hands: usize,
    pub winner: Option<Team>,
    /// The state in words (as [`state_words`]).
    pub state: String,
    /// Why it was postponed or cancelled, when the coordinator said.
    pub note: Option<String>,
    /// A bracket match's label, "M5 · Winners semi-final" (`None` for the regular season).
    pub label: Option<String>,
}

impl MatchSummary {
    fn of(m: &MatchRow, team_a: TeamRef, team_b: TeamRef, label: Option<String>) -> MatchSummary {
        let winner = m.winner;
        let total = |score: i64, bags: i64| TeamTotal {
            score: i32::try_from(score).unwrap_or(i32::MAX),
            bags: u32::try_from(bags).unwrap_or(0),
        };
        let state = words(&StateParts {
            status: m.status,
            started: m.started_at.is_some(),
            forfeit: m.forfeit,
            game_status: m.game_status,
            winner,
            reason: m.reason,
            names: [&team_a.name, &team_b.name],
        });
        MatchSummary {
            id: m.id,
            stage: m.stage,
            round: m.round,
            table: m.table_name.clone(),
            scheduled_at: m.scheduled_at,
            status: m.status,
            a: total(m.score_a, m.bags_a),
            b: total(m.score_b, m.bags_b),
            hands: usize::try_from(m.hands_played).unwrap_or(0),
            winner,
            state,
            note: m.status_note.clone(),
            team_a,
            team_b,
            label,
        }
    }
}

/// Every match of a league, in schedule order, from the cached totals (the cancelled matches
/// of a reset bracket path left out: a new match replaced each; a match the coordinator
/// cancelled stays, marked).
pub async fn summaries(
    conn: &mut Conn,
    league_id: LeagueId,
) -> Result<Vec<MatchSummary>, ServiceError> {
    let mut rows = db_matches::of_league(conn, league_id).await?;
    rows.retain(listed);
    summaries_of(conn, league_id, &rows).await
}

/// Whether a match is listed with the league's matches: all but the cancelled ones of a
/// reset bracket path (they had started; a new match replaced each).
pub fn listed(m: &MatchRow) -> bool {
    !(m.status == MatchStatus::Cancelled && m.started_at.is_some())
}

/// `rows` (matches of league `league_id`) as summaries, one for each, in order.
pub async fn summaries_of(
    conn: &mut Conn,
    league_id: LeagueId,
    rows: &[MatchRow],
) -> Result<Vec<MatchSummary>, ServiceError> {
    // Each team once: a whole season's feed names the same teams thousands of times.
    let ids: Vec<TeamId> = rows
        .iter()
        .flat_map(|m| [m.team_a, m.team_b])
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let names: std::collections::HashMap<TeamId, String> = db_leagues::names_of(conn, &ids)
        .await?
        .into_iter()
        .collect();
    let team = |id: TeamId| TeamRef {
        id,
        name: names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("team {id}")),
    };
    let mut labels = crate::service::playoffs::labels_of_league(conn, league_id).await?;
    Ok(rows
        .iter()
        .map(|m| MatchSummary::of(m, team(m.team_a), team(m.team_b), labels.remove(&m.id)))
        .collect())
}

/// A match in play, as the scoreboard shows it.
#[derive(Debug, Clone)]
pub struct InPlay {
    pub summary: MatchSummary,
    pub league: String,
    pub league_name: String,
    pub started_at: Option<Timestamp>,
    pub ends_at: Option<Timestamp>,
    pub time_called_at: Option<Timestamp>,
    /// When its game ended (see [`db_board::InPlayRow::finished_at`]).
    pub finished_at: Option<Timestamp>,
    pub version: i64,
}

/// Every match in play in every league, from the cached totals: the scoreboard costs one
/// query and the rows shown, however many hands they have. A game that ended less than
/// [`FINAL_FOR_MINUTES`] before `now` stays, as final, in its place.
pub async fn in_play(conn: &mut Conn, now: Timestamp) -> Result<Vec<InPlay>, ServiceError> {
    let ended_since = now.plus_minutes(-FINAL_FOR_MINUTES);
    let started_since = now.plus_minutes(-RESULTS_WITHIN_HOURS * 60);
    let mut rows = db_board::in_play_or_ended_since(conn, ended_since, started_since).await?;
    // By league, then table in counting order (1, 2, …, 10), matches without a table first.
    rows.sort_by(|x, y| {
        let tables = (x.m.table_name.as_deref(), y.m.table_name.as_deref());
        x.m.league_id
            .cmp(&y.m.league_id)
            .then_with(|| match tables {
                (Some(p), Some(q)) => table_name::natural_cmp(p, q),
                (p, q) => p.is_some().cmp(&q.is_some()),
            })
            .then_with(|| x.m.id.cmp(&y.m.id))
    });
    as_played(conn, rows).await
}

/// How long a game that ended stays on the scoreboard, as final, before it leaves.
pub const FINAL_FOR_MINUTES: i64 = 1;

/// How far back the scoreboard looks for results (a league night).
const RESULTS_WITHIN_HOURS: i64 = 12;

/// The matches finished in the last [`RESULTS_WITHIN_HOURS`], latest first, at most `limit`:
/// the TV scoreboard's strip of results.
pub async fn finished_lately(
    db: &Db,
    limit: usize,
    leagues: &[Slug],
) -> Result<Vec<BoardMatch>, ServiceError> {
    let mut conn = db.read().await?;
    let since = db.clock().now().plus_minutes(-RESULTS_WITHIN_HOURS * 60);
    // A filtered board reads further back for as many of its own leagues' results.
    let read = if leagues.is_empty() {
        limit
    } else {
        limit * 20
    };
    let read = i64::try_from(read).unwrap_or(i64::MAX);
    let rows = db_board::finished_since(&mut conn, since, read).await?;
    Ok(as_played(&mut conn, rows)
        .await?
        .into_iter()
        .map(BoardMatch::from)
        .filter(|m| shown(leagues, &m.league))
        .take(limit)
        .collect())
}

async fn as_played(
    conn: &mut Conn,
    rows: Vec<db_board::InPlayRow>,
) -> Result<Vec<InPlay>, ServiceError> {
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let m = &r.m;
        let label = match crate::service::playoffs::label_of(conn, m.id, m.stage).await {
            Err(e) if e.is_unreadable() => {
                tracing::error!(match_id = %m.id, error = %e, "a match whose bracket does not read shows no label (see `check`)");
                None
            }
            other => other?,
        };
        // A match in play always has its rules frozen (set when it started).
        let frozen: Option<Rules> = m
            .rules
            .as_deref()
            .and_then(|t| serde_json::from_str(t).ok());
        out.push(InPlay {
            ends_at: frozen.and_then(|rules| ends_at(m, &rules)),
            league: r.league_slug,
            league_name: r.league_name,
            started_at: m.started_at,
            time_called_at: m.time_called_at,
            finished_at: r.finished_at,
            version: m.version,
            summary: MatchSummary::of(
                m,
                TeamRef {
                    id: m.team_a,
                    name: r.name_a,
                },
                TeamRef {
                    id: m.team_b,
                    name: r.name_b,
                },
                label,
            ),
        });
    }
    Ok(out)
}

/// A match in play (or that ended in the last minute), as the scoreboard's JSON shows it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct BoardMatch {
    pub id: MatchId,
    pub league: String,
    pub league_name: String,
    pub table: Option<String>,
    /// A bracket match's label, "M5 · Winners semi-final"; null for the regular season.
    pub label: Option<String>,
    pub team_a: TeamRef,
    pub team_b: TeamRef,
    pub a: TeamTotal,
    pub b: TeamTotal,
    pub hands: usize,
    /// `in_progress`, or `complete` for the minute a finished game stays (`forfeit` in
    /// the TV's strip of results).
    pub status: MatchStatus,
    pub state: String,
    pub started_at: Option<Timestamp>,
    pub ends_at: Option<Timestamp>,
    pub time_called_at: Option<Timestamp>,
    /// When its game ended, for a game that was played out: it stays on the board, as
    /// final, for a minute after. Null while it is in play.
    pub finished_at: Option<Timestamp>,
    pub version: i64,
}

impl From<InPlay> for BoardMatch {
    fn from(p: InPlay) -> BoardMatch {
        BoardMatch {
            id: p.summary.id,
            league_name: p.league_name,
            league: p.league,
            table: p.summary.table,
            label: p.summary.label,
            team_a: p.summary.team_a,
            team_b: p.summary.team_b,
            a: p.summary.a,
            b: p.summary.b,
            hands: p.summary.hands,
            status: p.summary.status,
            state: p.summary.state,
            started_at: p.started_at,
            ends_at: p.ends_at,
            time_called_at: p.time_called_at,
            finished_at: p.finished_at,
            version: p.version,
        }
    }
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct Board {
    /// The sum of the versions of the matches in play.
    pub version: i64,
    /// Changes whenever any match on the board changes, starts, ends or leaves, and
    /// whenever a match is called to a table, leaves the calls or becomes "no show?":
    /// `id:version,...`.
    pub key: String,
    pub matches: Vec<BoardMatch>,
    /// "Now calling": the matches called to their tables (docs/api.md §21.1) in the last
    /// twelve hours and not started, the latest call first.
    pub calling: Vec<Calling>,
}

/// A match called to its table and not started.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Calling {
    pub id: MatchId,
    pub league: String,
    pub league_name: String,
    pub table: Option<String>,
    pub team_a: String,
    pub team_b: String,
    pub called_at: Timestamp,
    /// Called longer ago than the league's `settings.queue.call_minutes`: "no show?".
    pub no_show: bool,
}

/// How far back a call stays on the boards: a call left unstarted past a night is no news.
const CALLS_KEPT: chrono::Duration = chrono::Duration::hours(12);

/// The calls of `leagues` (none: every league) as the boards show them.
async fn calling(
    conn: &mut Conn,
    leagues: &[Slug],
    now: Timestamp,
) -> Result<Vec<Calling>, ServiceError> {
    let rows = crate::db::queue::called_since(conn, Timestamp(now.0 - CALLS_KEPT)).await?;
    Ok(rows
        .into_iter()
        .filter(|r| shown(leagues, &r.league))
        .map(|r| {
            let minutes = serde_json::from_str::<crate::league::settings::Settings>(&r.settings)
                .unwrap_or_default()
                .queue
                .call_minutes;
            Calling {
                no_show: r.called_at.plus_minutes(i64::from(minutes)).0 <= now.0,
                id: r.id,
                league: r.league,
                league_name: r.league_name,
                table: r.table_name,
                team_a: r.name_a,
                team_b: r.name_b,
                called_at: r.called_at,
            }
        })
        .collect())
}

/// Whether a board that shows `leagues` (none: every league) shows a match of `league`.
fn shown(leagues: &[Slug], league: &str) -> bool {
    leagues.is_empty() || leagues.iter().any(|l| l.as_str() == league)
}

/// Refuses a board filter naming a league that is not there (404, as in a path).
async fn check_leagues(conn: &mut Conn, leagues: &[Slug]) -> Result<(), ServiceError> {
    for slug in leagues {
        if crate::db::leagues::by_slug(conn, slug).await?.is_none() {
            return Err(ServiceError::NotFound);
        }
    }
    Ok(())
}

/// The scoreboard as it is now: every match in play in `leagues` (none: in every league),
/// and those that ended in the last minute.
#[tracing::instrument(skip_all)]
pub async fn board(db: &Db, leagues: &[Slug]) -> Result<Board, ServiceError> {
    let mut conn = db.read().await?;
    check_leagues(&mut conn, leagues).await?;
    let now = db.clock().now();
    let matches: Vec<BoardMatch> = in_play(&mut conn, now)
        .await?
        .into_iter()
        .map(BoardMatch::from)
        .filter(|m| shown(leagues, &m.league))
        .collect();
    let calling = calling(&mut conn, leagues, now).await?;
    let played = matches.iter().map(|m| format!("{}:{}", m.id, m.version));
    let called = calling.iter().map(|c| {
        format!(
            "c{}@{}{}",
            c.id,
            c.table.as_deref().unwrap_or(""),
            if c.no_show { "?" } else { "" }
        )
    });
    Ok(Board {
        version: matches.iter().map(|m| m.version).sum(),
        key: played.chain(called).collect::<Vec<_>>().join(","),
        matches,
        calling,
    })
}
