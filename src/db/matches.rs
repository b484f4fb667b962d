//! Matches: their schedule, state, cached totals, check-ins and sportsmanship ratings. Their
//! hands are in [`super::hands`], the idempotency keys of hand entry in
//! [`super::idempotency`], the audit log in [`super::audit`], the scoreboard's queries in
//! [`super::board`], the sportsmanship notes in [`super::rating_notes`].

use super::{Conn, on_store};

use crate::domain::{
    ForfeitSide, GameStatus, LeagueId, LocalTime, MatchId, MatchStatus, TeamId, Timestamp, UserId,
};
use crate::rules::{Stage, Team, WinReason};

#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct MatchRow {
    pub id: MatchId,
    pub league_id: LeagueId,
    pub stage: Stage,
    pub round: Option<i64>,
    pub team_a: TeamId,
    pub team_b: TeamId,
    pub table_name: Option<String>,
    pub scheduled_at: Option<LocalTime>,
    pub status: MatchStatus,
    pub started_at: Option<Timestamp>,
    pub time_called_at: Option<Timestamp>,
    /// The resolved rules frozen at start (JSON of `rules::Rules`).
    pub rules: Option<String>,
    pub forfeit: Option<ForfeitSide>,
    pub version: i64,
    pub score_a: i64,
    pub score_b: i64,
    pub bags_a: i64,
    pub bags_b: i64,
    pub game_status: GameStatus,
    pub winner: Option<Team>,
    pub reason: Option<WinReason>,
    /// Hands recorded (cached with the totals).
    pub hands_played: i64,
    /// iCalendar SEQUENCE: bumped at every change of time, place, teams or status.
    pub sequence: i64,
    /// Why the match was postponed or cancelled.
    pub status_note: Option<String>,
    /// When each team checked in at the table (before the start).
    pub checked_in_a: Option<Timestamp>,
    pub checked_in_b: Option<Timestamp>,
    /// The sportsmanship rating each team got (the notes are in `rating_notes`).
    pub rating_a: Option<i64>,
    pub rating_b: Option<i64>,
    /// The supervisor the match is given (migration 0031), if any.
    pub supervisor_id: Option<UserId>,
    /// The forfeit is a default: a team told the office in time (migration 0033).
    pub defaulted: bool,
    /// When the queue called the match to its table, while it is not started (migration
    /// 0035); kept once it starts.
    pub called_at: Option<Timestamp>,
}

pub struct NewMatch<'a> {
    pub league_id: LeagueId,
    pub stage: Stage,
    pub round: Option<i64>,
    pub team_a: TeamId,
    pub team_b: TeamId,
    pub table_name: Option<&'a str>,
    pub scheduled_at: Option<LocalTime>,
}

pub async fn insert(conn: &mut Conn, m: &NewMatch<'_>) -> sqlx::Result<MatchId> {
    let id: i64 = on_store!(conn, |c| {
        sqlx::query_scalar(
        "INSERT INTO matches (league_id, stage, round, team_a, team_b, table_name, scheduled_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
    )
    .bind(m.league_id)
    .bind(m.stage)
    .bind(m.round)
    .bind(m.team_a)
    .bind(m.team_b)
    .bind(m.table_name)
    .bind(m.scheduled_at)
    .fetch_one(c)
    .await
    })?;
    Ok(MatchId(id))
}

/// The matches of a league scheduled in `[start, end)`, in time order.
pub async fn scheduled_between(
    conn: &mut Conn,
    league_id: LeagueId,
    start: LocalTime,
    end: LocalTime,
) -> sqlx::Result<Vec<MatchRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM matches WHERE league_id = $1 AND scheduled_at >= $2 AND scheduled_at < $3
         ORDER BY scheduled_at, id",
    )
    .bind(league_id)
    .bind(start)
    .bind(end)
    .fetch_all(c)
    .await)
}

/// The matches of a league on the local date `night` (midnight to midnight), in time order.
pub async fn on_night(
    conn: &mut Conn,
    league_id: LeagueId,
    night: chrono::NaiveDate,
) -> sqlx::Result<Vec<MatchRow>> {
    let start = night.and_time(chrono::NaiveTime::MIN);
    let end = start + chrono::Duration::days(1);
    scheduled_between(conn, league_id, LocalTime(start), LocalTime(end)).await
}

pub async fn by_id(conn: &mut Conn, id: MatchId) -> sqlx::Result<Option<MatchRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM matches WHERE id = $1"
    )
    .bind(id)
    .fetch_optional(c)
    .await)
}

/// Every match of every league, by id (for `check`).
pub async fn every(conn: &mut Conn) -> sqlx::Result<Vec<MatchRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM matches ORDER BY id"
    )
    .fetch_all(c)
    .await)
}

pub async fn of_league(conn: &mut Conn, league_id: LeagueId) -> sqlx::Result<Vec<MatchRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM matches WHERE league_id = $1
         ORDER BY scheduled_at IS NULL, scheduled_at, round NULLS FIRST, id",
    )
    .bind(league_id)
    .fetch_all(c)
    .await)
}

/// Whose matches a part of the schedule lists: a league's (its schedule page) or one
/// team's (its team page).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Whose {
    League(LeagueId),
    Team(TeamId),
}

/// The matches of `whose` scheduled from `from` (inclusive) to `to` (exclusive), and those
/// without a time, in schedule order: a week of the schedule (a few index searches).
pub async fn in_week_or_undated(
    conn: &mut Conn,
    whose: Whose,
    from: LocalTime,
    to: LocalTime,
) -> sqlx::Result<Vec<MatchRow>> {
    let (sql, id) = match whose {
        Whose::League(id) => (
            "SELECT * FROM (
               SELECT * FROM matches WHERE league_id = $1 AND scheduled_at >= $2 AND scheduled_at < $3
               UNION ALL
               SELECT * FROM matches WHERE league_id = $1 AND scheduled_at IS NULL) AS m
             ORDER BY scheduled_at IS NULL, scheduled_at, round NULLS FIRST, id",
            id.0,
        ),
        // Each side's index (team, scheduled_at) answers its half.
        Whose::Team(id) => (
            "SELECT * FROM (
               SELECT * FROM matches WHERE team_a = $1 AND scheduled_at >= $2 AND scheduled_at < $3
               UNION ALL
               SELECT * FROM matches WHERE team_b = $1 AND team_a != $1
                 AND scheduled_at >= $2 AND scheduled_at < $3
               UNION ALL
               SELECT * FROM matches WHERE team_a = $1 AND scheduled_at IS NULL
               UNION ALL
               SELECT * FROM matches WHERE team_b = $1 AND team_a != $1 AND scheduled_at IS NULL) AS m
             ORDER BY scheduled_at IS NULL, scheduled_at, round NULLS FIRST, id",
            id.0,
        ),
    };
    on_store!(conn, |c| sqlx::query_as(sql)
        .bind(id)
        .bind(from)
        .bind(to)
        .fetch_all(c)
        .await)
}

/// Every match of team `team` (as either side), in schedule order.
pub async fn of_team(conn: &mut Conn, team: TeamId) -> sqlx::Result<Vec<MatchRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM (
           SELECT * FROM matches WHERE team_a = $1
           UNION ALL
           SELECT * FROM matches WHERE team_b = $1 AND team_a != $1) AS m
         ORDER BY scheduled_at IS NULL, scheduled_at, round NULLS FIRST, id",
    )
    .bind(team)
    .fetch_all(c)
    .await)
}

/// How many matches of the league there are in each status, as the triggers keep them
/// (migration 0013).
pub async fn count_by_status(
    conn: &mut Conn,
    league_id: LeagueId,
) -> sqlx::Result<Vec<(MatchStatus, i64)>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT status, n FROM match_counts WHERE league_id = $1 AND n != 0"
    )
    .bind(league_id)
    .fetch_all(c)
    .await)
}

/// How many matches of each league there are in each status, counted from the matches
/// themselves (`check` holds the kept counts to these).
pub async fn counted_by_status(conn: &mut Conn) -> sqlx::Result<Vec<(LeagueId, MatchStatus, i64)>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT league_id, status, count(*) FROM matches GROUP BY league_id, status"
    )
    .fetch_all(c)
    .await)
}

/// The kept counts of every league (zeros included).
pub async fn kept_counts(conn: &mut Conn) -> sqlx::Result<Vec<(LeagueId, MatchStatus, i64)>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT league_id, status, n FROM match_counts"
    )
    .fetch_all(c)
    .await)
}

/// The earliest time a match of `whose` is scheduled at from `from` on (an index seek; a
/// team's: one on each side's index).
pub async fn next_scheduled(
    conn: &mut Conn,
    whose: Whose,
    from: LocalTime,
) -> sqlx::Result<Option<LocalTime>> {
    let (sql, id) = match whose {
        Whose::League(id) => (
            "SELECT scheduled_at FROM matches WHERE league_id = $1 AND scheduled_at >= $2
             ORDER BY scheduled_at LIMIT 1",
            id.0,
        ),
        Whose::Team(id) => (
            "SELECT min(s) FROM (
               SELECT min(scheduled_at) AS s FROM matches WHERE team_a = $1 AND scheduled_at >= $2
               UNION ALL
               SELECT min(scheduled_at) FROM matches WHERE team_b = $1 AND scheduled_at >= $2) AS m",
            id.0,
        ),
    };
    let found: Option<Option<LocalTime>> = on_store!(conn, |c| sqlx::query_scalar(sql)
        .bind(id)
        .bind(from)
        .fetch_optional(c)
        .await)?;
    Ok(found.flatten())
}

/// The latest time a match of `whose` is scheduled at before `before` (`None`: at all).
pub async fn last_scheduled_before(
    conn: &mut Conn,
    whose: Whose,
    before: Option<LocalTime>,
) -> sqlx::Result<Option<LocalTime>> {
    // Two statements each, not `(? IS NULL OR scheduled_at < ?)`, which SQLite cannot answer
    // with one index seek.
    let (sql, id) = match (whose, before) {
        (Whose::League(id), Some(_)) => (
            "SELECT scheduled_at FROM matches WHERE league_id = $1 AND scheduled_at < $2
             ORDER BY scheduled_at DESC LIMIT 1",
            id.0,
        ),
        (Whose::League(id), None) => (
            "SELECT scheduled_at FROM matches WHERE league_id = $1 AND scheduled_at IS NOT NULL
             ORDER BY scheduled_at DESC LIMIT 1",
            id.0,
        ),
        (Whose::Team(id), Some(_)) => (
            "SELECT max(s) FROM (
               SELECT max(scheduled_at) AS s FROM matches WHERE team_a = $1 AND scheduled_at < $2
               UNION ALL
               SELECT max(scheduled_at) FROM matches WHERE team_b = $1 AND scheduled_at < $2) AS m",
            id.0,
        ),
        (Whose::Team(id), None) => (
            "SELECT max(s) FROM (
               SELECT max(scheduled_at) AS s FROM matches WHERE team_a = $1
               UNION ALL
               SELECT max(scheduled_at) FROM matches WHERE team_b = $1) AS m",
            id.0,
        ),
    };
    let found: Option<Option<LocalTime>> = on_store!(conn, |c| {
        let q = sqlx::query_scalar(sql).bind(id);
        match before {
            Some(before) => q.bind(before),
            None => q,
        }
        .fetch_optional(c)
        .await
    })?;
    Ok(found.flatten())
}

/// A league's matches in play or scheduled between `from` and `to` (as stored,
/// `YYYY-MM-DDTHH:MM`), in schedule order: the league home's "this week".
pub async fn in_window(
    conn: &mut Conn,
    league_id: LeagueId,
    from: LocalTime,
    to: LocalTime,
) -> sqlx::Result<Vec<MatchRow>> {
    // Two index searches (the matches in play; the window of scheduled times), not an `OR`,
    // which SQLite answers by reading every match of the league.
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM (
           SELECT * FROM matches WHERE league_id = $1 AND status = 'in_progress'
           UNION
           SELECT * FROM matches WHERE league_id = $2 AND scheduled_at BETWEEN $3 AND $4
             AND status != 'cancelled') AS m
         ORDER BY scheduled_at IS NULL, scheduled_at, round NULLS FIRST, id",
    )
    .bind(league_id)
    .bind(league_id)
    .bind(from)
    .bind(to)
    .fetch_all(c)
    .await)
}

/// The query of [`latest_results`] (`$1` the league, `$2` the limit), read in the order of
/// the index `matches_finished` on both stores (public for the test of its plan).
pub const LATEST_RESULTS: &str = "SELECT * FROM matches
     WHERE league_id = $1 AND status IN ('complete', 'forfeit')
     ORDER BY scheduled_at DESC NULLS LAST, id DESC LIMIT $2";

/// A league's latest `limit` finished matches: by scheduled time, then by id, newest first.
pub async fn latest_results(
    conn: &mut Conn,
    league_id: LeagueId,
    limit: i64,
) -> sqlx::Result<Vec<MatchRow>> {
    on_store!(conn, |c| sqlx::query_as(LATEST_RESULTS)
        .bind(league_id)
        .bind(limit)
        .fetch_all(c)
        .await)
}

/// How many of a league's regular-season matches are not played yet: scheduled, postponed
/// or in progress.
pub async fn count_unplayed_regular(conn: &mut Conn, league_id: LeagueId) -> sqlx::Result<i64> {
    on_store!(conn, |c| sqlx::query_scalar(
        "SELECT count(*) FROM matches WHERE league_id = $1 AND stage = 'regular'
         AND status IN ('scheduled', 'postponed', 'in_progress')",
    )
    .bind(league_id)
    .fetch_one(c)
    .await)
}

/// How many regular-season forfeits team `team` of league `league_id` has (double forfeits
/// included, defaults not).
pub async fn count_forfeits(
    conn: &mut Conn,
    league_id: LeagueId,
    team: TeamId,
) -> sqlx::Result<i64> {
    on_store!(conn, |c| {
        sqlx::query_scalar(
        "SELECT count(*) FROM matches WHERE league_id = $1 AND stage = 'regular'
         AND status = 'forfeit' AND NOT defaulted
         AND ((team_a = $2 AND forfeit IN ('a', 'both')) OR (team_b = $2 AND forfeit IN ('b', 'both')))",
    )
    .bind(league_id)
    .bind(team)
    .fetch_one(c)
    .await
    })
}

/// Sets (or with `None` clears) when `team`'s side of the match checked in; bumps the
/// version, so a forfeit confirmed on a page from before the check-in is refused.
pub async fn set_check_in(
    conn: &mut Conn,
    id: MatchId,
    team: Team,
    at: Option<Timestamp>,
) -> sqlx::Result<()> {
    let sql = match team {
        Team::A => "UPDATE matches SET checked_in_a = $1, version = version + 1 WHERE id = $2",
        Team::B => "UPDATE matches SET checked_in_b = $1, version = version + 1 WHERE id = $2",
    };
    on_store!(conn, execute sqlx::query(sql)
        .bind(at)
        .bind(id))?;
    Ok(())
}

/// Stores both teams' sportsmanship ratings.
pub async fn set_ratings(
    conn: &mut Conn,
    id: MatchId,
    ratings: [Option<i64>; 2],
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE matches SET rating_a = $1, rating_b = $2 WHERE id = $3"
    )
    .bind(ratings[0])
    .bind(ratings[1])
    .bind(id))?;
    Ok(())
}

/// A league's finished matches still waiting for a sportsmanship rating (either side).
pub async fn unrated(conn: &mut Conn, league_id: LeagueId) -> sqlx::Result<Vec<MatchRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM matches WHERE league_id = $1 AND status IN ('complete', 'forfeit')
           AND (rating_a IS NULL OR rating_b IS NULL)
         ORDER BY scheduled_at IS NULL, scheduled_at, id",
    )
    .bind(league_id)
    .fetch_all(c)
    .await)
}

/// The league's matches still to play (scheduled or postponed, never started), by id.
pub async fn unplayed_of_league(conn: &mut Conn, league: LeagueId) -> sqlx::Result<Vec<MatchId>> {
    on_store!(conn, |c| sqlx::query_scalar(
        "SELECT id FROM matches WHERE league_id = $1
           AND status IN ('scheduled', 'postponed') AND started_at IS NULL
         ORDER BY id",
    )
    .bind(league)
    .fetch_all(c)
    .await)
}

/// Whose matches still to play (scheduled or postponed, never started) are cancelled
/// together.
#[derive(Debug, Clone, Copy)]
pub enum Unstarted {
    /// A team's regular-season matches: it withdrew, or the forfeit policy dropped it.
    OfTeam(TeamId),
    /// A league's, of every stage: its season closed.
    OfLeague(LeagueId),
}

/// Cancels the matches still to play of `whose`, saying why; their ids.
pub async fn cancel_unstarted(
    conn: &mut Conn,
    whose: Unstarted,
    note: &str,
) -> sqlx::Result<Vec<MatchId>> {
    let (sql, id) = match whose {
        Unstarted::OfTeam(team) => (
            "UPDATE matches SET status = 'cancelled', status_note = $1, version = version + 1,
                    sequence = sequence + 1, called_at = NULL
             WHERE (team_a = $2 OR team_b = $2) AND stage = 'regular'
                   AND status IN ('scheduled', 'postponed') AND started_at IS NULL
             RETURNING id",
            team.0,
        ),
        Unstarted::OfLeague(league) => (
            "UPDATE matches SET status = 'cancelled', status_note = $1, version = version + 1,
                    sequence = sequence + 1, called_at = NULL
             WHERE league_id = $2 AND status IN ('scheduled', 'postponed') AND started_at IS NULL
             RETURNING id",
            league.0,
        ),
    };
    on_store!(conn, |c| sqlx::query_scalar(sql)
        .bind(note)
        .bind(id)
        .fetch_all(c)
        .await)
}

/// How many of a league's matches are still to be played.
pub async fn count_scheduled(conn: &mut Conn, league_id: LeagueId) -> sqlx::Result<i64> {
    on_store!(conn, |c| sqlx::query_scalar(
        "SELECT CAST(coalesce(sum(n), 0) AS BIGINT) FROM match_counts
         WHERE league_id = $1 AND status IN ('scheduled', 'postponed')",
    )
    .bind(league_id)
    .fetch_one(c)
    .await)
}

/// What the standings need of a finished regular-season match.
#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct ResultRow {
    pub team_a: TeamId,
    pub team_b: TeamId,
    pub status: MatchStatus,
    pub winner: Option<Team>,
    pub forfeit: Option<ForfeitSide>,
    pub score_a: i64,
    pub score_b: i64,
    pub rating_a: Option<i64>,
    pub rating_b: Option<i64>,
    /// A default, not a forfeit (migration 0033).
    pub defaulted: bool,
}

/// A league's finished regular-season matches: only the columns the standings use.
pub async fn results(conn: &mut Conn, league_id: LeagueId) -> sqlx::Result<Vec<ResultRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT team_a, team_b, status, winner, forfeit, score_a, score_b, rating_a, rating_b,
                defaulted
         FROM matches
         WHERE league_id = $1 AND stage = 'regular' AND status IN ('complete', 'forfeit')",
    )
    .bind(league_id)
    .fetch_all(c)
    .await)
}

/// Marks a match started with its rules frozen; returns it as it is now.
pub async fn start(
    conn: &mut Conn,
    id: MatchId,
    now: Timestamp,
    rules: &str,
) -> sqlx::Result<MatchRow> {
    on_store!(conn, |c| {
        sqlx::query_as(
        "UPDATE matches SET status = 'in_progress', started_at = $1, rules = $2, version = version + 1
         WHERE id = $3 RETURNING *",
    )
    .bind(now)
    .bind(rules)
    .bind(id)
    .fetch_one(c)
    .await
    })
}

/// The cached totals and state, rebuilt from the hands.
pub struct Totals {
    pub status: MatchStatus,
    pub score_a: i64,
    pub score_b: i64,
    pub bags_a: i64,
    pub bags_b: i64,
    pub game_status: GameStatus,
    pub winner: Option<Team>,
    pub reason: Option<WinReason>,
    pub forfeit: Option<ForfeitSide>,
    pub hands_played: i64,
}

/// Binds a [`Totals`]' ten fields in the order of the `matches` columns that [`set_totals`]
/// and `hands::record_hand` write (a macro: the query is a different type on each store).
macro_rules! bind_totals {
    ($query:expr, $t:expr) => {
        $query
            .bind($t.status)
            .bind($t.score_a)
            .bind($t.score_b)
            .bind($t.bags_a)
            .bind($t.bags_b)
            .bind($t.game_status)
            .bind($t.winner)
            .bind($t.reason)
            .bind($t.forfeit)
            .bind($t.hands_played)
    };
}
pub(super) use bind_totals;

/// Marks the match a default, before its forfeit totals are written (so that the records'
/// triggers, which count it when its status changes, read it as one).
pub async fn set_defaulted(conn: &mut Conn, id: MatchId) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE matches SET defaulted = $1 WHERE id = $2"
    )
    .bind(true)
    .bind(id))?;
    Ok(())
}

/// Writes the totals and bumps the version; returns the match as it is now.
pub async fn set_totals(conn: &mut Conn, id: MatchId, t: &Totals) -> sqlx::Result<MatchRow> {
    on_store!(conn, |c| bind_totals!(
        sqlx::query_as(
            "UPDATE matches SET status = $1, score_a = $2, score_b = $3, bags_a = $4, bags_b = $5,
             game_status = $6, winner = $7, reason = $8, forfeit = $9, hands_played = $10,
             version = version + 1 WHERE id = $11 RETURNING *",
        ),
        t
    )
    .bind(id)
    .fetch_one(c)
    .await)
}

pub async fn call_time(conn: &mut Conn, id: MatchId, now: Timestamp) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query("UPDATE matches SET time_called_at = $1, version = version + 1 WHERE id = $2 AND time_called_at IS NULL")
        .bind(now)
        .bind(id))?;
    Ok(())
}

/// Where, when and between whom a match that has not started is played, and its state
/// (scheduled, postponed or cancelled, with why).
pub struct Placement<'a> {
    pub scheduled_at: Option<LocalTime>,
    pub table_name: Option<&'a str>,
    pub team_a: TeamId,
    pub team_b: TeamId,
    pub status: MatchStatus,
    pub status_note: Option<&'a str>,
}

/// Sets a match's placement if it is still at `version` and not started; bumps the version
/// and the calendar sequence. A team's check-in is kept only while its time, status and
/// place in the match stay the same (a postponed or moved match is checked in again).
/// Returns whether a row changed (false: it moved on meanwhile).
pub async fn place(
    conn: &mut Conn,
    id: MatchId,
    version: i64,
    p: &Placement<'_>,
) -> sqlx::Result<bool> {
    let done = on_store!(conn, execute sqlx::query(
        "UPDATE matches SET scheduled_at = $1, table_name = $2, team_a = $3, team_b = $4,
                status = $5, status_note = $6, version = version + 1, sequence = sequence + 1,
                checked_in_a = CASE WHEN scheduled_at IS NOT DISTINCT FROM $1 AND status = $5 AND team_a = $3
                                    THEN checked_in_a END,
                checked_in_b = CASE WHEN scheduled_at IS NOT DISTINCT FROM $1 AND status = $5 AND team_b = $4
                                    THEN checked_in_b END,
                called_at = CASE WHEN scheduled_at IS NOT DISTINCT FROM $1 AND status = $5
                                      AND table_name IS NOT DISTINCT FROM $2
                                      AND team_a = $3 AND team_b = $4
                                 THEN called_at END
         WHERE id = $7 AND version = $8 AND status IN ('scheduled', 'postponed')
               AND started_at IS NULL",
    )
    .bind(p.scheduled_at)
    .bind(p.table_name)
    .bind(p.team_a)
    .bind(p.team_b)
    .bind(p.status)
    .bind(p.status_note)
    .bind(id)
    .bind(version))?;
    Ok(done == 1)
}

/// Moves a match to another table (allowed while it is played); bumps the version and the
/// calendar sequence. Returns whether a row changed.
pub async fn set_table(
    conn: &mut Conn,
    id: MatchId,
    version: i64,
    table_name: Option<&str>,
) -> sqlx::Result<bool> {
    let done = on_store!(conn, execute sqlx::query(
        "UPDATE matches SET table_name = $1, version = version + 1, sequence = sequence + 1
         WHERE id = $2 AND version = $3 AND status <> 'cancelled'",
    )
    .bind(table_name)
    .bind(id)
    .bind(version))?;
    Ok(done == 1)
}

/// Changes the teams of a match that has not started (a playoff path moved by a correction);
/// bumps the version. Returns whether a row changed.
pub async fn set_teams(
    conn: &mut Conn,
    id: MatchId,
    team_a: TeamId,
    team_b: TeamId,
) -> sqlx::Result<bool> {
    let done = on_store!(conn, execute sqlx::query(
        "UPDATE matches SET team_a = $1, team_b = $2, version = version + 1,
                sequence = sequence + 1, checked_in_a = NULL, checked_in_b = NULL, called_at = NULL
         WHERE id = $3 AND status IN ('scheduled', 'postponed') AND started_at IS NULL",
    )
    .bind(team_a)
    .bind(team_b)
    .bind(id))?;
    Ok(done == 1)
}

/// Cancels a started playoff match whose entrants changed (an admin reset its path of the
/// bracket): its hands stay stored under it, it no longer counts anywhere.
pub async fn cancel(conn: &mut Conn, id: MatchId) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE matches SET status = 'cancelled', version = version + 1, sequence = sequence + 1
         WHERE id = $1",
    )
    .bind(id))?;
    Ok(())
}

/// Deletes a match that has not started (no hands): a playoff match whose entrants are no
/// longer known after a correction. Returns whether a row was deleted.
pub async fn delete_unstarted(conn: &mut Conn, id: MatchId) -> sqlx::Result<bool> {
    let done = on_store!(conn, execute sqlx::query(
        "DELETE FROM matches WHERE id = $1 AND status IN ('scheduled', 'postponed')
         AND started_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM hands WHERE match_id = $2)
         AND NOT EXISTS (SELECT 1 FROM idempotency_keys WHERE match_id = $3)",
    )
    .bind(id)
    .bind(id)
    .bind(id))?;
    Ok(done == 1)
}

/// Deletes a match that never began (docs/api.md §18.2): scheduled, postponed or cancelled,
/// never started, nobody checked in, no hand, lineup, rating note or hand entry under way,
/// and no place in a bracket. Returns whether a row was deleted.
pub async fn delete_never_started(conn: &mut Conn, id: MatchId) -> sqlx::Result<bool> {
    let done = on_store!(conn, execute sqlx::query(
        "DELETE FROM matches WHERE id = $1 AND status IN ('scheduled', 'postponed', 'cancelled')
         AND started_at IS NULL AND checked_in_a IS NULL AND checked_in_b IS NULL
         AND NOT EXISTS (SELECT 1 FROM hands WHERE match_id = $2)
         AND NOT EXISTS (SELECT 1 FROM lineups WHERE match_id = $3)
         AND NOT EXISTS (SELECT 1 FROM rating_notes WHERE match_id = $4)
         AND NOT EXISTS (SELECT 1 FROM idempotency_keys WHERE match_id = $5)
         AND NOT EXISTS (SELECT 1 FROM bracket_matches WHERE match_id = $6)",
    )
    .bind(id)
    .bind(id)
    .bind(id)
    .bind(id)
    .bind(id)
    .bind(id))?;
    Ok(done == 1)
}

/// Marks a change the row does not hold (a lineup): the match's version moves on, so a
/// client holding the old one reloads.
pub async fn bump_version(conn: &mut Conn, id: MatchId) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query("UPDATE matches SET version = version + 1 WHERE id = $1")
        .bind(id))?;
    Ok(())
}
