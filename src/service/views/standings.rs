//! Regular-season standings (docs/scoring.md §7). Each team's record and its record against
//! each opponent are kept by triggers in the result's own transaction (migration 0012), so
//! the standings read one row per team and rank them; `recomputed` is the whole computation
//! from the finished matches, which `check` holds them to.

use crate::db::Conn;
use crate::domain::Slug;

use crate::db::Db;
use crate::db::leagues::{self as db_leagues, RecordRow, VersusRow};
use crate::db::matches::{self as db_matches};
use crate::domain::{MatchStatus, TeamId};
use crate::league::race::{Race, RaceStatus, RaceTeam, race_by_division, race_within};
use crate::league::standings::{
    self, HeadToHead, LevelRecords, Outcome, Ratings, Side, Standing, TeamEntry, Versus,
};
use crate::rules::Team;
use crate::service::ServiceError;
use crate::service::term::leagues::League;

/// The regular-season standings, in the league's tiebreak order (docs/scoring.md §7.3), from
/// the records the triggers keep. In a league of Swiss rounds each bye is a win and
/// Buchholz breaks ties first (§7.4).
pub async fn standings(conn: &mut Conn, league: &League) -> Result<Vec<Standing>, ServiceError> {
    let order = league.tiebreak_or_default();
    let rounds = crate::db::swiss::of_league(conn, league.row.id).await?;
    let (mut rows, level) = kept_records(conn, league).await?;
    if !rounds.is_empty() {
        let byes: Vec<TeamId> = rounds.iter().filter_map(|r| r.bye_team_id).collect();
        // The byes change who is level on win %, so the records between level teams are
        // summed here rather than read as kept.
        let ids: Vec<TeamId> = rows.iter().map(|r| r.team_id).collect();
        let versus = kept_head_to_head(conn, &ids).await?;
        standings::add_swiss(&mut rows, &byes, &versus);
        let level = standings::level_records(&rows, &versus);
        return Ok(standings::ranked(rows, &level, &order));
    }
    Ok(standings::ranked(rows, &level, &order))
}

/// Team `id`'s row of the standings, ranked as by [`standings`].
pub async fn team_standing(
    conn: &mut Conn,
    league: &League,
    id: TeamId,
) -> Result<Option<Standing>, ServiceError> {
    Ok(standings(conn, league)
        .await?
        .into_iter()
        .find(|s| s.team_id == id))
}

/// Each team's record as kept (not ranked), and its record against the teams level with it
/// on win % (what the head-to-head tiebreak reads).
pub async fn kept_records(
    conn: &mut Conn,
    league: &League,
) -> Result<(Vec<Standing>, LevelRecords), ServiceError> {
    let rows = db_leagues::records(conn, league.row.id).await?;
    let level = rows
        .iter()
        .filter(|r| (r.level_played, r.level_won, r.level_tied) != (0, 0, 0))
        .map(|r| {
            let v = Versus {
                played: count(r.level_played),
                won: count(r.level_won),
                tied: count(r.level_tied),
            };
            (r.team_id, v)
        })
        .collect();
    Ok((rows.iter().map(standing_of).collect(), level))
}

/// The kept records of the `teams` against each other (`check`: reads each team's whole).
pub async fn kept_head_to_head(
    conn: &mut Conn,
    teams: &[TeamId],
) -> Result<HeadToHead, ServiceError> {
    let mut versus = HeadToHead::new();
    if teams.is_empty() {
        return Ok(versus);
    }
    let wanted: std::collections::HashSet<TeamId> = teams.iter().copied().collect();
    for v in db_leagues::head_to_head(conn, teams).await? {
        if !wanted.contains(&v.opponent_id) {
            continue;
        }
        versus.insert((v.team_id, v.opponent_id), versus_of(&v));
    }
    Ok(versus)
}

/// Each team's counts and the head-to-head records computed from every finished
/// regular-season match of the league: what the kept records must equal (`check`).
pub async fn recomputed(
    conn: &mut Conn,
    league: &League,
) -> Result<(Vec<Standing>, HeadToHead), ServiceError> {
    let teams: Vec<TeamEntry> = db_leagues::teams(conn, league.row.id)
        .await?
        .iter()
        .map(|t| TeamEntry {
            id: t.id,
            name: t.name.to_string(),
        })
        .collect();
    let results: Vec<standings::Result> = db_matches::results(conn, league.row.id)
        .await?
        .iter()
        .filter_map(result_of)
        .collect();
    Ok(standings::tally(&teams, &results))
}

fn standing_of(r: &RecordRow) -> Standing {
    let mut s = Standing::new(r.team_id, r.name.clone());
    s.played = count(r.played);
    s.won = count(r.won);
    s.lost = count(r.lost);
    s.tied = count(r.tied);
    s.forfeits = count(r.forfeits);
    s.points_for = r.points_for;
    s.points_against = r.points_against;
    s.ratings = Ratings {
        sum: count(r.rating_sum),
        count: count(r.rating_count),
    };
    s
}

fn versus_of(v: &VersusRow) -> Versus {
    Versus {
        played: count(v.played),
        won: count(v.won),
        tied: count(v.tied),
    }
}

/// A stored count; a negative one (only a damaged file has it) reads as 0, and `check`
/// reports it.
fn count(stored: i64) -> u32 {
    u32::try_from(stored).unwrap_or(0)
}

/// A finished match as a standings result; `None` while it is not finished.
fn result_of(m: &db_matches::ResultRow) -> Option<standings::Result> {
    let side = |team: Team| match team {
        Team::A => Side::A,
        Team::B => Side::B,
    };
    let outcome = match (m.status, m.forfeit) {
        (MatchStatus::Forfeit, Some(who)) if m.defaulted => match who.team() {
            Some(team) => Outcome::Default(side(team)),
            None => Outcome::DoubleForfeit,
        },
        (MatchStatus::Forfeit, Some(who)) => match who.team() {
            Some(team) => Outcome::Forfeit(side(team)),
            None => Outcome::DoubleForfeit,
        },
        (MatchStatus::Forfeit, None) => Outcome::DoubleForfeit,
        (MatchStatus::Complete, _) => Outcome::Played {
            winner: m.winner.map(side),
        },
        _ => return None,
    };
    Some(standings::Result {
        team_a: m.team_a,
        team_b: m.team_b,
        score_a: m.score_a,
        score_b: m.score_b,
        outcome,
        ratings: [rating(m.rating_a), rating(m.rating_b)],
    })
}

fn rating(stored: Option<i64>) -> Option<u32> {
    stored.and_then(|r| u32::try_from(r).ok())
}

/// The league's withdrawn teams.
pub async fn withdrawn_teams(
    conn: &mut Conn,
    league: crate::domain::LeagueId,
) -> Result<std::collections::HashSet<TeamId>, ServiceError> {
    Ok(db_leagues::teams(conn, league)
        .await?
        .into_iter()
        .filter(|t| t.withdrawn)
        .map(|t| t.id)
        .collect())
}

/// A league's standings as the API and the pages show them.
pub struct StandingsTable {
    /// Ranked.
    pub rows: Vec<Standing>,
    /// The league rates sportsmanship (the rows then show each team's average).
    pub rated: bool,
    /// Each row's division and rank in it.
    pub placed: Vec<crate::service::term::divisions::Placed>,
    /// Each row's place in the playoff race, when the league says how many teams the
    /// playoffs take (`settings.playoffs.teams`) and the race is settled within the bound.
    pub races: Option<Vec<Race>>,
}

/// The standings of the league `slug` (404 for no such league).
pub async fn table(db: &Db, slug: &Slug) -> Result<StandingsTable, ServiceError> {
    let mut conn = db.read().await?;
    let league = crate::service::term::leagues::league_by_slug(&mut conn, slug).await?;
    let rows = standings(&mut conn, &league).await?;
    let divisions =
        crate::service::term::divisions::Divisions::of_league(&mut conn, league.row.id).await?;
    let placed = divisions.placed(&rows);
    // Swiss rounds are paired one at a time: no match left is known, so there is no race.
    let swiss = rows.iter().any(|r| r.buchholz.is_some());
    let races = match league.settings.playoffs.teams {
        Some(places) if !swiss => races(&mut conn, &league, &rows, &placed, places).await?,
        _ => None,
    };
    Ok(StandingsTable {
        rated: league.settings.sportsmanship.is_some(),
        rows,
        placed,
        races,
    })
}

/// The most max-flows one standings read spends on the race.
const RACE_FLOWS: u64 = 2_000;

/// The race is shown once no team has more regular-season matches than this left: before
/// that nearly every team is alive, and settling it is slow (the benchmark's three nights
/// left take 0.35 ms; a whole season left can take minutes).
const RACE_GAMES_LEFT: usize = 8;

/// Under division seeding the race tries every result left: at most this many together (12
/// matches without draws, 7 with), about 10 ms for 40 teams.
const DIVISION_RACE_OUTCOMES: u64 = 4_096;

/// Each row's place in the race for the playoffs' `places`, over the regular-season
/// matches not yet played (postponed ones too; a cancelled one is not played). A withdrawn
/// team is out, and its matches are not in the race. Where the league seeds each
/// division's winner first (`settings.playoffs.division_winners_first`), a division title
/// is a place (`placed`: each row's division).
pub async fn races(
    conn: &mut Conn,
    league: &League,
    rows: &[Standing],
    placed: &[crate::service::term::divisions::Placed],
    places: u32,
) -> Result<Option<Vec<Race>>, ServiceError> {
    let withdrawn = withdrawn_teams(conn, league.row.id).await?;
    let in_race: Vec<&Standing> = rows
        .iter()
        .filter(|s| !withdrawn.contains(&s.team_id))
        .collect();
    let divisions: Vec<Option<usize>> = rows
        .iter()
        .zip(placed)
        .filter(|(s, _)| !withdrawn.contains(&s.team_id))
        .map(|(_, p)| p.division.map(|d| d.0 as usize))
        .collect();
    let index = |id: TeamId| in_race.iter().position(|s| s.team_id == id);
    let remaining: Vec<(usize, usize)> = db_matches::of_league(conn, league.row.id)
        .await?
        .into_iter()
        .filter(|m| m.stage == crate::rules::Stage::Regular)
        .filter(|m| !m.status.is_over())
        .filter_map(|m| Some((index(m.team_a)?, index(m.team_b)?)))
        .collect();
    let teams: Vec<RaceTeam> = in_race
        .iter()
        .map(|s| RaceTeam {
            half_points: 2 * s.won + s.tied,
            played: s.played,
        })
        .collect();
    let draws = league.rules[0].regular_season_ties == crate::rules::params::TieRule::Draw;
    let spots = usize::try_from(places).unwrap_or(usize::MAX);
    let most_left = (0..teams.len())
        .map(|t| remaining.iter().filter(|&&(a, b)| a == t || b == t).count())
        .max()
        .unwrap_or(0);
    if most_left > RACE_GAMES_LEFT {
        return Ok(None);
    }
    // A bound on the work of a public read: early in a long season the race is given up
    // (no row carries it) until the remaining matches make it quick to settle.
    let by_division =
        league.settings.playoffs.division_winners_first && divisions.iter().any(Option::is_some);
    let raced = match by_division {
        true => race_by_division(
            &teams,
            &divisions,
            &remaining,
            spots,
            draws,
            DIVISION_RACE_OUTCOMES,
        ),
        false => race_within(&teams, &remaining, spots, draws, RACE_FLOWS),
    };
    let Some(raced) = raced else {
        return Ok(None);
    };
    let mut raced = raced.into_iter();
    Ok(Some(
        rows.iter()
            .map(|s| {
                if withdrawn.contains(&s.team_id) {
                    Race {
                        status: RaceStatus::Eliminated,
                        games_left: 0,
                        wins_needed: None,
                    }
                } else {
                    raced.next().unwrap_or(Race {
                        status: RaceStatus::Alive,
                        games_left: 0,
                        wins_needed: None,
                    })
                }
            })
            .collect(),
    ))
}
