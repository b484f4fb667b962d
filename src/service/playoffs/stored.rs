//! The bracket as stored: read back and replayed from its real matches ([`load`]), and
//! brought in line with that state ([`sync`]); shared by the creation, the advance, the view
//! and `check`.

use std::collections::HashMap;

use crate::db::Conn;
use crate::db::matches::{self as db_matches, NewMatch};
use crate::db::playoffs::{self as db_playoffs, BracketMatchRow, BracketRow, RealMatch};
use crate::domain::{LeagueId, MatchId, TeamId};
use crate::league::bracket::{
    self, Bracket, BracketState, Entrant, Format, MatchStatus as Slot, Section,
};
use crate::rules::{Stage, Team};
use crate::service::ServiceError;

pub(super) fn corrupt(what: &str) -> ServiceError {
    ServiceError::corrupt("stored bracket", what)
}

pub(super) fn structure(row: &BracketRow) -> Result<Bracket, ServiceError> {
    let seeds = usize::try_from(row.teams).map_err(|_| corrupt("teams"))?;
    match row.format {
        Format::SingleElimination => bracket::single_elimination(seeds, row.third_place),
        Format::DoubleElimination => bracket::double_elimination(seeds, row.grand_final),
    }
    .map_err(|e| corrupt(&e.to_string()))
}

/// The winner's slot of a finished real match (team_a is always slot 0); none for a tie or a
/// match not over.
pub(super) fn winner_slot(m: &RealMatch) -> Option<usize> {
    if !m.status.is_result() {
        return None;
    }
    m.winner.map(Team::index)
}

pub(super) fn is_started(m: &RealMatch) -> bool {
    !m.status.is_unstarted() || m.started_at.is_some()
}

pub(super) fn seed_of(e: Entrant) -> Option<i64> {
    e.team().map(|s| s as i64)
}

/// The seeds of a match's `entrants` as a bracket match row stores them.
pub(super) fn seeds_of(entrants: [Entrant; 2]) -> [Option<i64>; 2] {
    entrants.map(seed_of)
}

/// The seeds stored on bracket match row `r`.
pub(super) fn stored_seeds(r: &BracketMatchRow) -> [Option<i64>; 2] {
    [r.seed_a, r.seed_b]
}

/// Both teams of match `i` are known in `state`: it has (or had) a real match.
pub(super) fn paired(state: &BracketState, i: usize) -> bool {
    matches!(state.status(i), Slot::Ready | Slot::Decided { .. })
}

/// Everything stored about a bracket, with its state replayed from the real matches.
pub(super) struct Loaded {
    pub(super) row: BracketRow,
    pub(super) bracket: Bracket,
    pub(super) seeds: Vec<TeamId>,
    pub(super) rows: Vec<BracketMatchRow>,
    pub(super) real: Vec<Option<RealMatch>>,
    pub(super) state: BracketState,
}

pub(super) async fn load(conn: &mut Conn, row: BracketRow) -> Result<Loaded, ServiceError> {
    let bracket = structure(&row)?;
    let seeds = db_playoffs::seeds(conn, row.id).await?;
    let rows = db_playoffs::matches(conn, row.id).await?;
    if rows.len() != bracket.matches.len() || seeds.len() != bracket.seeds {
        return Err(corrupt("rows do not match the structure"));
    }
    // One query for all of them, not one a bracket match (127 for 64 teams).
    let mut by_id: HashMap<MatchId, RealMatch> = db_playoffs::real_matches(conn, row.id)
        .await?
        .into_iter()
        .map(|m| (m.id, m))
        .collect();
    let real: Vec<Option<RealMatch>> = rows
        .iter()
        .map(|r| r.match_id.and_then(|id| by_id.remove(&id)))
        .collect();
    // Results in index order (topological), in one pass: a result counts while its match is
    // ready with the same entrants as stored (otherwise the path changed: see `sync`).
    let state = BracketState::replay_in_order(&bracket, |i, e| {
        let m = real[i].as_ref()?;
        let r = &rows[i];
        (seeds_of(e) == stored_seeds(r))
            .then(|| winner_slot(m))
            .flatten()
    });
    Ok(Loaded {
        row,
        bracket,
        seeds,
        rows,
        real,
        state,
    })
}

fn stage_for(bracket: &Bracket, index: usize) -> Stage {
    if bracket.matches[index].bracket == Section::Final || index == bracket.deciding {
        Stage::Final
    } else {
        Stage::Playoff
    }
}

/// Brings the stored bracket in line with its state: seeds of every match, real matches
/// created for the pairings that became ready, teams moved in matches that have not started
/// (or such matches removed when their teams are no longer known), and the results the state
/// counts. The caller has dealt with the started matches `advance::blocked` finds first.
pub(super) async fn sync(conn: &mut Conn, l: &Loaded) -> Result<(), ServiceError> {
    let teams: HashMap<i64, TeamId> = (1..).zip(l.seeds.iter().copied()).collect();
    let at = Place {
        bracket: &l.bracket,
        state: &l.state,
        league_id: l.row.league_id,
        teams: &teams,
    };
    for (i, r) in l.rows.iter().enumerate() {
        sync_match(conn, &at, i, r, l.real[i].as_ref()).await?;
    }
    db_playoffs::set_results(conn, l.row.id, &encode(&l.state)).await?;
    Ok(())
}

/// A bracket, its state, its league and the teams of (at least) the seeds its matches need:
/// what bringing one stored match in line needs.
pub(super) struct Place<'a> {
    pub(super) bracket: &'a Bracket,
    pub(super) state: &'a BracketState,
    pub(super) league_id: LeagueId,
    pub(super) teams: &'a HashMap<i64, TeamId>,
}

/// Brings stored bracket match `i` (row `r`, its real match `real`) in line with the state.
pub(super) async fn sync_match(
    conn: &mut Conn,
    at: &Place<'_>,
    i: usize,
    r: &BracketMatchRow,
    real: Option<&RealMatch>,
) -> Result<(), ServiceError> {
    let team = |seed: Option<i64>| seed.and_then(|s| at.teams.get(&s).copied());
    let seeds = seeds_of(at.state.entrants(i));
    let ready = paired(at.state, i);
    let mut match_id = r.match_id;
    match (real, ready) {
        (Some(m), true) => {
            let (a, b) = (team(seeds[0]), team(seeds[1]));
            if let (Some(a), Some(b)) = (a, b)
                && (m.team_a, m.team_b) != (a, b)
            {
                db_matches::set_teams(conn, m.id, a, b).await?;
            }
        }
        (Some(m), false) => {
            db_playoffs::update_match(conn, r.bracket_id, r.match_index, None, None, None).await?;
            db_matches::delete_unstarted(conn, m.id).await?;
            match_id = None;
        }
        (None, true) => {
            if let (Some(a), Some(b)) = (team(seeds[0]), team(seeds[1])) {
                let m = &at.bracket.matches[i];
                let id = db_matches::insert(
                    conn,
                    &NewMatch {
                        league_id: at.league_id,
                        stage: stage_for(at.bracket, i),
                        round: Some(m.round as i64),
                        team_a: a,
                        team_b: b,
                        table_name: None,
                        scheduled_at: None,
                    },
                )
                .await?;
                match_id = Some(id);
            }
        }
        (None, false) => {}
    }
    if seeds != stored_seeds(r) || match_id != r.match_id {
        db_playoffs::update_match(
            conn,
            r.bracket_id,
            r.match_index,
            seeds[0],
            seeds[1],
            match_id,
        )
        .await?;
    }
    Ok(())
}

/// The results `state` counts, a character a match: the winner's slot, or `-`.
pub(super) fn encode(state: &BracketState) -> String {
    let mut out = vec!['-'; state.bracket().matches.len()];
    for (i, w) in state.results() {
        out[i] = if w == 0 { '0' } else { '1' };
    }
    out.into_iter().collect()
}

/// Stored results back (`None` unless one character of `0`, `1` or `-` for each of `n`
/// matches).
pub(super) fn decode(stored: &str, n: usize) -> Option<Vec<Option<usize>>> {
    let results: Vec<Option<usize>> = stored
        .chars()
        .map(|c| match c {
            '0' => Some(Some(0)),
            '1' => Some(Some(1)),
            '-' => Some(None),
            _ => None,
        })
        .collect::<Option<_>>()?;
    (results.len() == n).then_some(results)
}

/// What `check` finds of a bracket: a stored value that differs from the whole replay of its
/// real matches, as (what, stored, replayed).
pub async fn check_bracket(
    conn: &mut Conn,
    row: BracketRow,
) -> Result<Vec<(String, String, String)>, ServiceError> {
    let stored = row.results.clone();
    let l = load(conn, row).await?;
    let mut out = Vec::new();
    let replayed = encode(&l.state);
    if let Some(stored) = stored
        && stored != replayed
    {
        out.push(("results".to_string(), stored, replayed));
    }
    let seeds = |pair: [Option<i64>; 2]| format!("{pair:?}");
    for (i, r) in l.rows.iter().enumerate() {
        let want = seeds_of(l.state.entrants(i));
        if want != stored_seeds(r) {
            out.push((
                format!("the seeds of M{}", i + 1),
                seeds(stored_seeds(r)),
                seeds(want),
            ));
        }
        let ready = paired(&l.state, i);
        if ready != l.real[i].is_some() {
            out.push((
                format!("the real match of M{}", i + 1),
                r.match_id
                    .map_or("none".to_string(), |id| format!("match {id}")),
                if ready { "a match" } else { "none" }.to_string(),
            ));
        }
    }
    Ok(out)
}

/// What is wrong with the bracket of a league just imported, if anything: its rows read
/// back as every page reads them, and its stored state against its real matches.
pub async fn check_imported(
    conn: &mut Conn,
    league: LeagueId,
) -> Result<Option<String>, ServiceError> {
    let Some(row) = db_playoffs::of_league(conn, league).await? else {
        return Ok(None);
    };
    match check_bracket(conn, row).await {
        Ok(differences) => Ok(differences.into_iter().next().map(|(field, stored, want)| {
            format!("the bracket's {field} is {stored}, its matches give {want}")
        })),
        Err(ServiceError::Corrupt(what)) => Ok(Some(format!("the bracket does not read: {what}"))),
        Err(e) => Err(e),
    }
}
