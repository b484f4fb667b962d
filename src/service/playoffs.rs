//! Playoffs (docs/scoring.md §9): a bracket seeded from the regular-season standings,
//! whose real matches are created as their two teams become known. Winners advance by
//! themselves: [`advance`] runs in the transaction of every hand, correction or forfeit of a
//! playoff match. The bracket's structure is rebuilt by [`crate::league::bracket`] from its
//! stored parameters; the results are the winners of its real matches.

use std::collections::HashMap;

use crate::db::Conn;
use serde::{Deserialize, Serialize};

use super::audit;
use super::leagues::league_by_slug;
use super::standings::standings;
use super::{ConflictCode, ServiceError, TeamRef, User, require_admin};
use crate::db::Db;
use crate::db::leagues as db_leagues;
use crate::db::matches::{self as db_matches, NewMatch};
use crate::db::playoffs::{
    self as db_playoffs, BracketMatchRow, BracketRow, NewBracket, RealMatch,
};
use crate::domain::{
    BracketMatchStatus, LeagueId, MatchId, MatchStatus, TeamId, TextEnum, Timestamp,
};
use crate::league::bracket::{
    self, Bracket, BracketError, BracketState, Entrant, Format, GrandFinal, MatchStatus as Slot,
    Section,
};
use crate::rules::{Stage, Team};

/// `POST /api/v1/leagues/{slug}/playoffs`.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayoffsInput {
    /// `single_elimination` or `double_elimination`.
    pub format: String,
    /// How many teams of the standings go in (default: all active teams).
    #[serde(default)]
    pub teams: Option<usize>,
    /// Single elimination: a match for third place between the semi-final losers.
    #[serde(default)]
    pub third_place: Option<bool>,
    /// Double elimination: `none`, `simple` or `double` (default `double`: a reset match
    /// when the losers'-bracket team wins the first grand final).
    #[serde(default)]
    pub grand_final: Option<String>,
    /// Create the bracket although regular-season matches remain to be played, under
    /// `require_all_played` (audited); otherwise that is a 409 `season_unfinished`.
    #[serde(default)]
    pub force: Option<bool>,
}

/// A match of the bracket (docs/api.md §4.8).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct BracketMatchView {
    /// The bracket match's number (0-based, stable; `next_match` refers to it).
    pub id: i64,
    /// The real match (`/api/v1/matches/{id}`) once both teams are known.
    pub match_id: Option<MatchId>,
    pub round: i64,
    pub position: i64,
    /// `winners`, `losers`, `final` or `third_place`.
    pub bracket: Section,
    /// Null while not known, or for a bye.
    pub team_a: Option<TeamRef>,
    pub team_b: Option<TeamRef>,
    pub seed_a: Option<i64>,
    pub seed_b: Option<i64>,
    /// `waiting` (an entrant is not known), `bye`, `not_needed` (grand-final reset), or the
    /// real match's status: `scheduled`, `in_progress`, `complete`, `forfeit`.
    #[schema(value_type = String)]
    pub status: BracketMatchStatus,
    pub score_a: Option<i64>,
    pub score_b: Option<i64>,
    /// `a` or `b` once decided (for a bye, the side that advances).
    pub winner: Option<Team>,
    /// Where the winner goes: a bracket match `id` and its slot (0 = team_a, 1 = team_b).
    pub next_match: Option<i64>,
    pub next_slot: Option<i64>,
    /// Where the loser goes (double elimination, third place, grand-final reset).
    pub loser_next_match: Option<i64>,
    pub loser_next_slot: Option<i64>,
}

/// A league's bracket (docs/api.md §4.8).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct BracketView {
    pub league: String,
    /// `single_elimination` or `double_elimination`.
    pub format: Format,
    pub teams: i64,
    pub third_place: bool,
    /// `none`, `simple` or `double` (`none` for single elimination).
    pub grand_final: GrandFinal,
    pub matches: Vec<BracketMatchView>,
    /// Once decided.
    pub champion: Option<TeamRef>,
}

fn corrupt(what: &str) -> ServiceError {
    ServiceError::corrupt("stored bracket", what)
}

fn structure(row: &BracketRow) -> Result<Bracket, ServiceError> {
    let seeds = usize::try_from(row.teams).map_err(|_| corrupt("teams"))?;
    match row.format {
        Format::SingleElimination => bracket::single_elimination(seeds, row.third_place),
        Format::DoubleElimination => bracket::double_elimination(seeds, row.grand_final),
    }
    .map_err(|e| corrupt(&e.to_string()))
}

/// The winner's slot of a finished real match (team_a is always slot 0); none for a tie or a
/// match not over.
fn winner_slot(m: &RealMatch) -> Option<usize> {
    if !m.status.is_result() {
        return None;
    }
    m.winner.map(Team::index)
}

fn is_started(m: &RealMatch) -> bool {
    !m.status.is_unstarted() || m.started_at.is_some()
}

fn seed_of(e: Entrant) -> Option<i64> {
    e.team().map(|s| s as i64)
}

/// The seeds of a match's `entrants` as a bracket match row stores them.
fn seeds_of(entrants: [Entrant; 2]) -> [Option<i64>; 2] {
    entrants.map(seed_of)
}

/// The seeds stored on bracket match row `r`.
fn stored_seeds(r: &BracketMatchRow) -> [Option<i64>; 2] {
    [r.seed_a, r.seed_b]
}

/// Both teams of match `i` are known in `state`: it has (or had) a real match.
fn paired(state: &BracketState, i: usize) -> bool {
    matches!(state.status(i), Slot::Ready | Slot::Decided { .. })
}

/// Everything stored about a bracket, with its state replayed from the real matches.
struct Loaded {
    row: BracketRow,
    bracket: Bracket,
    seeds: Vec<TeamId>,
    rows: Vec<BracketMatchRow>,
    real: Vec<Option<RealMatch>>,
    state: BracketState,
}

async fn load(conn: &mut Conn, row: BracketRow) -> Result<Loaded, ServiceError> {
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

/// Brings the stored bracket in line with its state: seeds of every match, real matches
/// created for the pairings that became ready, teams moved in matches that have not started
/// (or such matches removed when their teams are no longer known), and the results the state
/// counts. The caller has dealt with the started matches of [`blocked`] first.
async fn sync(conn: &mut Conn, l: &Loaded) -> Result<(), ServiceError> {
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
struct Place<'a> {
    bracket: &'a Bracket,
    state: &'a BracketState,
    league_id: LeagueId,
    teams: &'a HashMap<i64, TeamId>,
}

/// Brings stored bracket match `i` (row `r`, its real match `real`) in line with the state.
async fn sync_match(
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
fn encode(state: &BracketState) -> String {
    let mut out = vec!['-'; state.bracket().matches.len()];
    for (i, w) in state.results() {
        out[i] = if w == 0 { '0' } else { '1' };
    }
    out.into_iter().collect()
}

/// Stored results back (`None` unless one character of `0`, `1` or `-` for each of `n`
/// matches).
fn decode(stored: &str, n: usize) -> Option<Vec<Option<usize>>> {
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

fn invalid(field: &str, message: impl Into<String>) -> ServiceError {
    ServiceError::invalid("invalid_playoffs", field, message)
}

/// A bracket as it would be created: checked input, the seeds from the standings, the
/// structure. Shared by the preview and the creation.
struct Plan {
    format: Format,
    grand_final: GrandFinal,
    seeds: Vec<TeamId>,
    structure: Bracket,
}

async fn plan(
    conn: &mut Conn,
    league: &super::leagues::League,
    input: &PlayoffsInput,
) -> Result<Plan, ServiceError> {
    let format = Format::parse(&input.format).ok_or_else(|| {
        invalid(
            "format",
            format!(
                "unknown format \"{}\"; use single_elimination or double_elimination",
                input.format
            ),
        )
    })?;
    let grand_final = match (format, input.grand_final.as_deref().map(str::trim)) {
        (Format::SingleElimination, None | Some("none")) => GrandFinal::None,
        (Format::SingleElimination, Some(_)) => {
            return Err(invalid(
                "grand_final",
                "a grand final is for double elimination",
            ));
        }
        (Format::DoubleElimination, None) => GrandFinal::Double,
        (Format::DoubleElimination, Some(g)) => GrandFinal::parse(g).ok_or_else(|| {
            invalid(
                "grand_final",
                format!("the grand final is none, simple or double, not \"{g}\""),
            )
        })?,
    };
    let third_place = input.third_place.unwrap_or(false);
    if third_place && format == Format::DoubleElimination {
        return Err(invalid(
            "third_place",
            "a third-place match is for single elimination",
        ));
    }
    if db_playoffs::of_league(&mut *conn, league.row.id)
        .await?
        .is_some()
    {
        return Err(ServiceError::conflict(
            ConflictCode::BracketExists,
            "the league already has a playoff bracket",
        ));
    }
    // Only eligible teams are seeded (withdrawn teams never are); the standings once, for
    // the verdicts and the seeds.
    let teams = db_leagues::teams(&mut *conn, league.row.id).await?;
    let overrides = db_leagues::overrides(&mut *conn, league.row.id).await?;
    let all = standings(&mut *conn, league).await?;
    let eligible: Vec<i64> = super::eligibility::judge(league, &teams, &overrides, &all)
        .into_iter()
        .filter(|row| row.eligible)
        .map(|row| row.team_id.0)
        .collect();
    let table: Vec<_> = all
        .into_iter()
        .filter(|s| eligible.contains(&s.team_id))
        .collect();
    let wanted = input.teams.unwrap_or(table.len());
    if wanted < bracket::MIN_TEAMS || wanted > table.len().min(bracket::MAX_TEAMS) {
        return Err(invalid(
            "teams",
            format!(
                "a bracket needs 2 to {} teams (the league has {} eligible)",
                table.len().min(bracket::MAX_TEAMS),
                table.len()
            ),
        ));
    }
    let seeds: Vec<TeamId> = bracket::seed_teams(&table, Some(wanted))
        .into_iter()
        .map(TeamId)
        .collect();
    let structure = match format {
        Format::SingleElimination => bracket::single_elimination(seeds.len(), third_place),
        Format::DoubleElimination => bracket::double_elimination(seeds.len(), grand_final),
    }
    .map_err(|e: BracketError| invalid("teams", e.to_string()))?;
    Ok(Plan {
        format,
        grand_final,
        seeds,
        structure,
    })
}

/// The league and the bracket it would get, for the admin (shared by the preview and the
/// creation).
async fn checked_plan(
    conn: &mut Conn,
    user: &User,
    slug: &str,
    input: &PlayoffsInput,
) -> Result<(super::leagues::League, Plan), ServiceError> {
    require_admin(user)?;
    let league = league_by_slug(&mut *conn, slug).await?;
    let plan = plan(conn, &league, input).await?;
    Ok((league, plan))
}

/// The bracket that [`create_playoffs`] would create now, without saving anything (the
/// admin's preview): seeds from the standings, byes decided, no real matches.
pub async fn preview_playoffs(
    db: &Db,
    user: &User,
    slug: &str,
    input: &PlayoffsInput,
) -> Result<BracketView, ServiceError> {
    let mut conn = db.read().await?;
    let (league, plan) = checked_plan(&mut conn, user, slug, input).await?;
    let names = team_names(&mut conn, league.row.id).await?;
    let state = BracketState::new(&plan.structure);
    let real = vec![None; plan.structure.matches.len()];
    Ok(view_of(
        &league.row.slug,
        &plan.structure,
        &state,
        &plan.seeds,
        &real,
        &names,
    ))
}

/// Creates the league's bracket from its regular-season standings (admin), seeding the
/// eligible teams. Under `require_all_played` it waits for the regular season unless
/// forced (409 `season_unfinished`).
pub async fn create_playoffs(
    db: &Db,
    user: &User,
    slug: &str,
    input: &PlayoffsInput,
) -> Result<BracketView, ServiceError> {
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let (
        league,
        Plan {
            format,
            grand_final,
            seeds,
            structure,
        },
    ) = checked_plan(&mut tx, user, slug, input).await?;
    // The season must be over first, unless the league says otherwise or the admin forces it.
    let remaining = db_matches::count_unplayed_regular(&mut tx, league.row.id).await?;
    let forced = remaining > 0 && league.settings.eligibility.require_all_played;
    if forced && input.force != Some(true) {
        return Err(ServiceError::conflict(
            ConflictCode::SeasonUnfinished,
            format!(
                "{remaining} regular-season match{} still to be played (scheduled, postponed or in progress): finish the season first, or create the playoffs anyway with \"force\": true",
                if remaining == 1 { " is" } else { "es are" }
            ),
        ));
    }
    let bracket_id = db_playoffs::insert(
        &mut tx,
        &NewBracket {
            league_id: league.row.id,
            format,
            teams: seeds.len() as i64,
            third_place: structure.third_place,
            grand_final,
            now,
        },
    )
    .await?;
    for (i, team) in seeds.iter().enumerate() {
        db_playoffs::insert_seed(&mut tx, bracket_id, i as i64 + 1, *team).await?;
    }
    for m in &structure.matches {
        db_playoffs::insert_match(
            &mut tx,
            &BracketMatchRow {
                bracket_id,
                match_index: m.index as i64,
                section: m.bracket,
                round: m.round as i64,
                position: m.position as i64,
                seed_a: None,
                seed_b: None,
                match_id: None,
            },
        )
        .await?;
    }
    let row = db_playoffs::by_id(&mut tx, bracket_id)
        .await?
        .ok_or_else(|| corrupt("just created"))?;
    let loaded = load(&mut tx, row).await?;
    sync(&mut tx, &loaded).await?;
    let after = format!(
        "{} of {} teams, {}",
        format.as_str(),
        seeds.len(),
        if format == Format::DoubleElimination {
            format!("grand final {}", grand_final.as_str())
        } else {
            format!("third place {}", structure.third_place)
        }
    );
    let forced_reason = format!(
        "forced with {remaining} regular-season match{} unplayed",
        if remaining == 1 { "" } else { "es" }
    );
    let mut change =
        audit::Change::new("create_playoffs", audit::Subject::League(league.row.id)).after(&after);
    if forced {
        change = change.reason(&forced_reason);
    }
    audit::record(&mut tx, user, now, change).await?;
    let view = bracket_of(&mut tx, &league.row.slug).await?;
    tx.commit().await?;
    Ok(view)
}

/// A league's bracket as the API shows it (404 when the league has none).
pub async fn bracket_of(conn: &mut Conn, slug: &str) -> Result<BracketView, ServiceError> {
    let league = league_by_slug(conn, slug).await?;
    let row = db_playoffs::of_league(conn, league.row.id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let l = load(conn, row).await?;
    let names = team_names(conn, league.row.id).await?;
    Ok(view_of(
        &league.row.slug,
        &l.bracket,
        &l.state,
        &l.seeds,
        &l.real,
        &names,
    ))
}

async fn team_names(
    conn: &mut Conn,
    league_id: LeagueId,
) -> Result<HashMap<TeamId, String>, ServiceError> {
    Ok(db_leagues::teams(conn, league_id)
        .await?
        .into_iter()
        .map(|t| (t.id, t.name))
        .collect())
}

/// The bracket's view: its structure, its state, the seeded teams (team ids, seed 1 first)
/// and the real match of each bracket match, if any.
fn view_of(
    slug: &str,
    structure: &Bracket,
    state: &BracketState,
    seeds: &[TeamId],
    real: &[Option<RealMatch>],
    names: &HashMap<TeamId, String>,
) -> BracketView {
    let team_of = |seed: Option<usize>| -> Option<TeamRef> {
        let id = *seeds.get(seed?.checked_sub(1)?)?;
        Some(TeamRef {
            id,
            name: names
                .get(&id)
                .cloned()
                .unwrap_or_else(|| format!("team {id}")),
        })
    };
    let mut matches = Vec::with_capacity(structure.matches.len());
    for (i, bm) in structure.matches.iter().enumerate() {
        let e = state.entrants(i);
        let real = real[i].as_ref();
        let status = match (state.status(i), real) {
            (Slot::Bye, _) => BracketMatchStatus::Bye,
            (Slot::NotNeeded, _) => BracketMatchStatus::NotNeeded,
            (_, Some(m)) => BracketMatchStatus::Match(m.status),
            (Slot::Waiting, None) => BracketMatchStatus::Waiting,
            (_, None) => BracketMatchStatus::Match(MatchStatus::Scheduled),
        };
        let winner = match state.status(i) {
            Slot::Decided { winner } => Some(winner),
            Slot::Bye => match e {
                [Entrant::Team(_), _] => Some(0),
                [_, Entrant::Team(_)] => Some(1),
                _ => None,
            },
            _ => None,
        }
        .map(|w| if w == 0 { Team::A } else { Team::B });
        matches.push(BracketMatchView {
            id: i as i64,
            match_id: real.map(|m| m.id),
            round: bm.round as i64,
            position: bm.position as i64,
            bracket: bm.bracket,
            team_a: team_of(e[0].team()),
            team_b: team_of(e[1].team()),
            seed_a: seed_of(e[0]),
            seed_b: seed_of(e[1]),
            status,
            score_a: real.map(|m| m.score_a),
            score_b: real.map(|m| m.score_b),
            winner,
            next_match: bm.next.map(|(m, _)| m as i64),
            next_slot: bm.next.map(|(_, s)| s as i64),
            loser_next_match: bm.loser_next.map(|(m, _)| m as i64),
            loser_next_slot: bm.loser_next.map(|(_, s)| s as i64),
        });
    }
    BracketView {
        league: slug.to_string(),
        format: structure.format,
        teams: seeds.len() as i64,
        third_place: structure.third_place,
        grand_final: structure.grand_final,
        champion: team_of(state.champion()),
        matches,
    }
}
