//! Winners move on: after every change to a playoff match, its bracket is replayed and the
//! teams are moved along their paths, resetting started matches an upstream correction
//! changed (with an admin's confirmation).

use std::collections::HashMap;

use super::stored::{
    Loaded, Place, corrupt, decode, encode, is_started, load, paired, seed_of, seeds_of,
    stored_seeds, structure, sync, sync_match, winner_slot,
};
use crate::db::Conn;
use crate::db::matches as db_matches;
use crate::db::playoffs::{self as db_playoffs, BracketMatchRow, BracketRow, RealMatch};
use crate::domain::{MatchId, TeamId, TextEnum, Timestamp};
use crate::league::bracket::{BracketState, MatchStatus as Slot};
use crate::service::{ServiceError, User, audit, require_admin};

/// Whether real match `match_id` is a match of a bracket.
pub async fn in_bracket(conn: &mut Conn, match_id: MatchId) -> Result<bool, ServiceError> {
    Ok(db_playoffs::by_match_id(conn, match_id).await?.is_some())
}

/// An admin's confirmation that started matches on a changed path may be reset, with the
/// reason of the correction that changed it (kept in the audit log).
pub struct PathReset<'a> {
    pub admin: &'a User,
    pub reason: &'a str,
}

/// After a playoff match changed (a hand, a correction, a forfeit), inside the same
/// transaction: replays the bracket and moves the teams on. Nothing for a match outside a
/// bracket.
///
/// When the change alters who plays in a match that has already started, that match and
/// every started match that depended on it are cancelled (hands kept) and replaced by fresh
/// ones, which only an admin may confirm (`reset`); without it the answer is
/// [`ServiceError::ResetNeeded`] with the whole list, and the caller's transaction is
/// dropped, so nothing is written (docs/scoring.md §9.9, docs/api.md §8.4).
pub async fn advance(
    conn: &mut Conn,
    match_id: MatchId,
    now: Timestamp,
    reset: Option<&PathReset<'_>>,
) -> Result<(), ServiceError> {
    let Some(bm) = db_playoffs::by_match_id(conn, match_id).await? else {
        return Ok(());
    };
    let row = db_playoffs::by_id(conn, bm.bracket_id)
        .await?
        .ok_or_else(|| corrupt("no bracket"))?;
    if advance_on_path(conn, &row, &bm).await? {
        return Ok(());
    }
    let mut cancelled: Vec<(MatchId, String)> = Vec::new();
    // Each pass cancels at least one match, so this ends; a cancelled match's dependants
    // show up as blocked in the next pass.
    loop {
        let loaded = load(conn, row.clone()).await?;
        let blocked = blocked(&loaded);
        if blocked.is_empty() {
            sync(conn, &loaded).await?;
            break;
        }
        for (index, m) in blocked {
            let before = format!(
                "bracket match M{}: team {} v team {}, {}, {}-{}",
                index + 1,
                m.team_a,
                m.team_b,
                m.status.as_str(),
                m.score_a,
                m.score_b
            );
            cancelled.push((m.id, before));
            db_matches::cancel(conn, m.id).await?;
            db_playoffs::update_match(
                conn,
                row.id,
                index as i64,
                loaded.rows[index].seed_a,
                loaded.rows[index].seed_b,
                None,
            )
            .await?;
        }
    }
    if cancelled.is_empty() {
        return Ok(());
    }
    let Some(reset) = reset else {
        return Err(ServiceError::ResetNeeded(
            cancelled.into_iter().map(|(id, _)| id).collect(),
        ));
    };
    require_admin(reset.admin)?;
    for (id, before) in &cancelled {
        audit::record(
            conn,
            reset.admin,
            now,
            audit::Change::new("reset_bracket_path", audit::Subject::Match(*id))
                .before(before)
                .after("cancelled")
                .reason(&format!(
                    "correction of match #{match_id}: {}",
                    reset.reason
                )),
        )
        .await?;
    }
    Ok(())
}

/// A new result moved on along its path only, when it is the usual case: match `bm` (of
/// bracket `row`) has just been decided, was ready with the teams stored, and the bracket's
/// stored results are known. The state before and after comes from the stored results
/// alone; only the matches whose entrants or status differ between the two are read and
/// written (its winner's and loser's next matches, and on through byes). Every other match
/// is as the last change left it, so reading the whole bracket would change nothing else.
/// `false`, having written nothing, when it is not the usual case (a correction, a reset, a
/// started match on the path): the caller replays the whole bracket.
async fn advance_on_path(
    conn: &mut Conn,
    row: &BracketRow,
    bm: &BracketMatchRow,
) -> Result<bool, ServiceError> {
    let bracket = structure(row)?;
    let n = bracket.matches.len();
    let Some(results) = row.results.as_deref().and_then(|s| decode(s, n)) else {
        return Ok(false);
    };
    let index = usize::try_from(bm.match_index)
        .ok()
        .filter(|i| *i < n)
        .ok_or_else(|| corrupt("match index"))?;
    let Some(id) = bm.match_id else {
        return Ok(false);
    };
    let Some(decided) = db_playoffs::real_match(conn, id).await? else {
        return Ok(false);
    };
    let Some(winner) = winner_slot(&decided) else {
        return Ok(false);
    };
    if results[index].is_some() {
        return Ok(false);
    }
    let before = BracketState::replay_in_order(&bracket, |i, _| results[i]);
    if before.status(index) != Slot::Ready || seeds_of(before.entrants(index)) != stored_seeds(bm) {
        return Ok(false);
    }
    let after =
        BracketState::replay_in_order(
            &bracket,
            |i, _| {
                if i == index { Some(winner) } else { results[i] }
            },
        );
    let changed: Vec<usize> = (0..n)
        .filter(|&i| {
            i != index
                && (before.entrants(i) != after.entrants(i) || before.status(i) != after.status(i))
        })
        .collect();
    let mut on_path = Vec::with_capacity(changed.len());
    for &i in &changed {
        let r = db_playoffs::match_at(conn, row.id, i as i64)
            .await?
            .ok_or_else(|| corrupt("a bracket match is missing"))?;
        let real = match r.match_id {
            Some(id) => db_playoffs::real_match(conn, id).await?,
            None => None,
        };
        if real.as_ref().is_some_and(is_started) {
            return Ok(false);
        }
        on_path.push((i, r, real));
    }
    let wanted: Vec<i64> = changed
        .iter()
        .flat_map(|&i| after.entrants(i))
        .filter_map(seed_of)
        .collect();
    let teams: HashMap<i64, TeamId> = db_playoffs::seed_teams(conn, row.id, &wanted)
        .await?
        .into_iter()
        .collect();
    let at = Place {
        bracket: &bracket,
        state: &after,
        league_id: row.league_id,
        teams: &teams,
    };
    for (i, r, real) in &on_path {
        sync_match(conn, &at, *i, r, real.as_ref()).await?;
    }
    db_playoffs::set_results(conn, row.id, &encode(&after)).await?;
    Ok(true)
}

/// The started real matches whose entrants changed, or whose entrants are no longer known:
/// a correction upstream changed who should play them.
fn blocked(l: &Loaded) -> Vec<(usize, &RealMatch)> {
    let mut out = Vec::new();
    for (i, r) in l.rows.iter().enumerate() {
        let changed = seeds_of(l.state.entrants(i)) != stored_seeds(r);
        let ready = paired(&l.state, i);
        if let Some(m) = &l.real[i]
            && (changed || !ready)
            && is_started(m)
        {
            out.push((i, m));
        }
    }
    out
}
