//! A match on league night: start it (rules frozen, clock running), record hands, correct
//! them (a new revision with a reason), call time, record forfeits. Totals are cached on the
//! match and rebuilt from the hands whenever they change; `match_view` reads them.

use crate::db::Conn;
use serde::Deserialize;

use super::audit;
use super::leagues::League;
use super::match_view::{
    MatchView, Replayed, ends_at, reload, replay, rules_of, stored_hands, view_of,
};
use super::text::{self, Lines, TextRule};
use super::{ServiceError, User, require_admin, to_json};
use crate::db::Db;
use crate::db::hands::{self as db_hands, NewHand};
use crate::db::idempotency::{self as db_idempotency, IdempotencyRecord};
use crate::db::leagues as db_leagues;
use crate::db::matches::{self as db_matches, MatchRow, Totals};
use crate::domain::ErrorCode;
use crate::domain::{
    ForfeitSide, GameStatus, LeagueId, MatchId, MatchStatus, TeamId, TextEnum, Timestamp,
};
use crate::rules::{Game, HandInput, Rules, Stage, Team, WinReason};

/// The match, if `user` may write to it: admins anywhere, supervisors in their leagues
/// (elsewhere it does not exist for them: 404).
pub(super) async fn writable(
    conn: &mut Conn,
    user: &User,
    id: MatchId,
) -> Result<MatchRow, ServiceError> {
    Ok(for_write(conn, user, id).await?.row)
}

/// As [`writable`], with the teams' names for the answer, in one query.
async fn for_write(
    conn: &mut Conn,
    user: &User,
    id: MatchId,
) -> Result<db_matches::MatchForWrite, ServiceError> {
    let m = db_matches::for_write(conn, id, user.id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    if !user.is_admin() && !m.supervises {
        return Err(ServiceError::NotFound);
    }
    Ok(m)
}

/// Whether `user` has the right to write to match `id`, for a refusal that must come before
/// the body: an admin has it everywhere (whether the match exists is the write's to say, after
/// the body); a supervisor only in their leagues (404 otherwise, a match that does not exist
/// included). Read outside any write: the write's own check in its transaction stays the one
/// that counts.
pub async fn check_writable(db: &Db, user: &User, id: MatchId) -> Result<(), ServiceError> {
    if user.is_admin() {
        return Ok(());
    }
    let mut conn = db.read().await?;
    for_write(&mut conn, user, id).await.map(|_| ())
}

/// Whether `user` may run matches of the league.
pub async fn may_supervise(
    conn: &mut Conn,
    user: &User,
    league_id: LeagueId,
) -> Result<bool, ServiceError> {
    Ok(user.is_admin() || db_leagues::is_supervisor(conn, league_id, user.id).await?)
}

fn check_version(m: &MatchRow, expected: i64) -> Result<(), ServiceError> {
    if m.version != expected {
        return Err(ServiceError::conflict(
            ErrorCode::VersionConflict,
            format!(
                "the match changed since you loaded it (version {} now, you had {expected}): reload to see the current score",
                m.version
            ),
        ));
    }
    Ok(())
}

pub(super) async fn league_of(conn: &mut Conn, m: &MatchRow) -> Result<League, ServiceError> {
    let row = db_leagues::by_id(conn, m.league_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    League::from_row(row)
}

/// Starts a match: its rules are frozen and its clock runs. Written in the next group
/// commit with the other writes of league night.
#[tracing::instrument(skip_all, fields(user_id = %user.id, match_id = %id))]
pub async fn start(db: &Db, user: &User, id: MatchId) -> Result<MatchView, ServiceError> {
    let now = db.clock().now();
    let user = user.clone();
    db.batched(move |conn| Box::pin(async move { start_in(conn, &user, id, now).await }))
        .await
}

async fn start_in(
    conn: &mut Conn,
    user: &User,
    id: MatchId,
    now: Timestamp,
) -> Result<MatchView, ServiceError> {
    let db_matches::MatchForWrite {
        row: m,
        name_a,
        name_b,
        ..
    } = for_write(conn, user, id).await?;
    if m.status != MatchStatus::Scheduled {
        return Err(ServiceError::conflict(
            ErrorCode::NotScheduled,
            format!(
                "the match is {}, it can only be started once",
                m.status.words()
            ),
        ));
    }
    let league = league_of(conn, &m).await?;
    let rules = league.rules_for(m.stage);
    let frozen = to_json("frozen rules", rules)?;
    let started = db_matches::start(conn, id, now, &frozen).await?;
    audit::record(
        conn,
        user,
        now,
        audit::Change::new("start", audit::Subject::Match(id)).after(&frozen),
    )
    .await?;
    // No hand yet: the answer needs no read of the hands.
    let played = Replayed {
        rules: rules.clone(),
        rows: Vec::new(),
        inputs: Vec::new(),
        scored: Vec::new(),
    };
    Ok(view_of(&started, (name_a, name_b), &league, played))
}

/// Time has run out for `m` at `now`: called by a supervisor or past the limit.
fn time_expired(m: &MatchRow, rules: &Rules, now: Timestamp) -> bool {
    if m.time_called_at.is_some() {
        return true;
    }
    ends_at(m, rules).is_some_and(|end| now >= end)
}

/// The totals and state of a match after `game`: what its row caches.
pub(crate) fn totals_of(game: &Game) -> Totals {
    let state = game.state();
    let (a, b) = (game.total(Team::A), game.total(Team::B));
    Totals {
        status: if state.is_over() {
            MatchStatus::Complete
        } else {
            MatchStatus::InProgress
        },
        score_a: a.score.into(),
        score_b: b.score.into(),
        bags_a: a.bags.into(),
        bags_b: b.bags.into(),
        game_status: state.into(),
        winner: state.winner(),
        reason: state.reason(),
        forfeit: None,
        hands_played: game.hands_played() as i64,
    }
}

/// Writes the totals of `game` on the match, bumping its version; returns the match as it
/// is now.
pub(crate) async fn save_totals(
    conn: &mut Conn,
    id: MatchId,
    game: &Game,
) -> Result<MatchRow, ServiceError> {
    db_matches::set_totals(conn, id, &totals_of(game))
        .await
        .map_err(ServiceError::from)
}

/// What a new or corrected hand does to the playoff bracket.
enum Bracket<'a> {
    /// Nothing: a regular-season match, or a hand that does not end the game.
    Stays,
    /// The result may have changed: the bracket moves on, resetting the started matches it
    /// changes if an admin confirmed it (docs/scoring.md §9.9).
    Moves(Option<&'a super::playoffs::PathReset<'a>>),
}

/// Saves the totals of `game` on match `m` and moves the bracket as `bracket` says; returns
/// the match as it is now.
async fn save_result(
    conn: &mut Conn,
    m: &MatchRow,
    game: &Game,
    bracket: Bracket<'_>,
    now: Timestamp,
) -> Result<MatchRow, ServiceError> {
    let saved = save_totals(conn, m.id, game).await?;
    let Bracket::Moves(reset) = bracket else {
        return Ok(saved);
    };
    super::playoffs::advance(conn, m.id, now, reset).await?;
    // Read again after the bracket's writes, so the answer shows the match as they left it.
    db_matches::by_id(conn, m.id)
        .await?
        .ok_or(ServiceError::NotFound)
}

/// The answer of a recorded hand, or the first answer again for a repeated idempotency key.
pub enum Recorded {
    New(Box<MatchView>),
    Repeat(Box<MatchView>),
}

/// How long an idempotency key is kept after its first use: a phone's outbox sends again
/// within hours, a week covers any (docs/api.md §7.3). A resend after that is refused as a
/// stale `expected_version`, never recorded twice: the first use moved the version on.
pub const IDEMPOTENCY_WINDOW: chrono::Duration = chrono::Duration::days(7);

/// The most expired keys one hand deletes: each costs its hand a little, and keys come one a
/// hand, so any backlog (a server that was off) is soon gone.
const EXPIRE_AT_ONCE: i64 = 64;

/// Records the next hand. A repeated `idempotency_key` returns the first answer and records
/// nothing; a stale `expected_version` is a conflict. Written in the next group commit.
#[tracing::instrument(skip_all, fields(user_id = %user.id, match_id = %id))]
pub async fn record_hand(
    db: &Db,
    user: &User,
    id: MatchId,
    input: &HandInput,
    expected_version: i64,
    idempotency_key: Option<&str>,
) -> Result<Recorded, ServiceError> {
    if let Some(key) = idempotency_key {
        text::check_idempotency_key(key)?;
    }
    let entry = HandEntry {
        user: user.clone(),
        id,
        request: to_json("hand", input)?,
        input: input.clone(),
        expected_version,
        idempotency_key: idempotency_key.map(str::to_owned),
        now: db.clock().now(),
    };
    let entered = db
        .batched(move |conn| Box::pin(async move { entry.record(conn).await }))
        .await?;
    Ok(match entered {
        Entered::New(view) => Recorded::New(view),
        // Rebuilt after the batch, on a reader: it is committed, and the writer is spared.
        Entered::Seen(record) => {
            let mut conn = db.read().await?;
            Recorded::Repeat(Box::new(answer_again(&mut conn, id, &record).await?))
        }
    })
}

/// What the writer did with a hand: recorded it, or found its idempotency key kept.
enum Entered {
    New(Box<MatchView>),
    Seen(IdempotencyRecord),
}

/// What an idempotency key keeps of `answer`, the answer to the hand `request` (as sent)
/// that stored the hand row `hand_id`: what the hands cannot tell of the match then.
fn record_of(
    request: String,
    hand_id: i64,
    answer: &MatchView,
) -> Result<IdempotencyRecord, ServiceError> {
    Ok(IdempotencyRecord {
        request: Some(request),
        hand_id,
        version: answer.version,
        table_name: answer.table.clone(),
        time_called_at: answer.time_called_at,
        team_a_name: answer.team_a.name.clone(),
        team_b_name: answer.team_b.name.clone(),
        sportsmanship: answer
            .sportsmanship
            .as_ref()
            .map(|ratings| to_json("ratings", ratings))
            .transpose()?,
    })
}

/// The first answer to an idempotency key of match `id`, rebuilt from its record: the
/// hands as they were after it (later corrections are new revisions, left out; so are later
/// hands), replayed under the match's frozen rules, which give the totals and the state
/// then; the rest from the record. Nothing else of a started match changes (docs/api.md
/// §7.3).
async fn answer_again(
    conn: &mut Conn,
    id: MatchId,
    record: &IdempotencyRecord,
) -> Result<MatchView, ServiceError> {
    let now = db_matches::by_id(conn, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let league = league_of(conn, &now).await?;
    let rules = rules_of(&now, &league)?;
    let rows = db_hands::hands_as_of(conn, id, record.hand_id).await?;
    let inputs = rows
        .iter()
        .map(super::match_view::stored_hand)
        .collect::<Result<Vec<_>, _>>()?;
    let (game, scored) = replay(&rules, now.stage, &inputs)?;
    let totals = totals_of(&game);
    let then = MatchRow {
        version: record.version,
        table_name: record.table_name.clone(),
        time_called_at: record.time_called_at,
        status: totals.status,
        score_a: totals.score_a,
        score_b: totals.score_b,
        bags_a: totals.bags_a,
        bags_b: totals.bags_b,
        game_status: totals.game_status,
        winner: totals.winner,
        reason: totals.reason,
        forfeit: totals.forfeit,
        hands_played: totals.hands_played,
        ..now
    };
    let names = (
        Some(record.team_a_name.clone()),
        Some(record.team_b_name.clone()),
    );
    let played = Replayed {
        rules,
        rows,
        inputs,
        scored,
    };
    let mut view = view_of(&then, names, &league, played);
    view.sportsmanship = record
        .sportsmanship
        .as_deref()
        .map(serde_json::from_str)
        .transpose()
        .map_err(|e| ServiceError::corrupt("kept ratings", e))?;
    Ok(view)
}

/// A hand sent for the writer's next batch.
struct HandEntry {
    user: User,
    id: MatchId,
    input: HandInput,
    /// The hand as sent (JSON), compared with the first use of a repeated idempotency key.
    request: String,
    expected_version: i64,
    idempotency_key: Option<String>,
    now: Timestamp,
}

impl HandEntry {
    async fn record(self, conn: &mut Conn) -> Result<Entered, ServiceError> {
        let HandEntry {
            user,
            id,
            input,
            request,
            expected_version,
            idempotency_key,
            now,
        } = self;
        let db_matches::MatchForWrite {
            row: m,
            name_a,
            name_b,
            ..
        } = for_write(conn, &user, id).await?;
        if let Some(key) = &idempotency_key
            && let Some(seen) = seen_before(conn, id, key, &request).await?
        {
            return Ok(Entered::Seen(seen));
        }
        check_version(&m, expected_version)?;
        check_takes_hands(&m)?;
        let league = league_of(conn, &m).await?;
        let rules = rules_of(&m, &league)?;
        let (mut rows, mut inputs) = stored_hands(conn, id).await?;
        let mut hand = input;
        // The hand in play when time runs out is the time-called one (docs/scoring.md §4.3, §8.3).
        if !hand.misdeal && time_expired(&m, &rules, now) && !inputs.iter().any(|h| h.time_called) {
            hand.time_called = true;
        }
        inputs.push(hand);
        let (game, scored) = replay(&rules, m.stage, &inputs)?;
        let stored = to_json("hand", &inputs[inputs.len() - 1])?;
        let new = NewHand {
            match_id: id,
            number: inputs.len() as i64,
            revision: 1,
            hand: &stored,
            reason: None,
            recorded_by: Some(user.id),
            now,
        };
        let stored_row = db_hands::insert_hand(conn, &new).await?;
        let hand_id = stored_row.id.0;
        rows.push(stored_row);
        let after = save_result(conn, &m, &game, bracket_after_hand(&m, &game), now).await?;
        audit::record(
            conn,
            &user,
            now,
            audit::Change::new("record_hand", audit::Subject::Match(id)).after(&stored),
        )
        .await?;
        let played = Replayed {
            rules,
            rows,
            inputs,
            scored,
        };
        let view = view_of(&after, (name_a, name_b), &league, played);
        if let Some(key) = &idempotency_key {
            keep_answer(conn, id, key, record_of(request, hand_id, &view)?, now).await?;
        }
        Ok(Entered::New(Box::new(view)))
    }
}

/// The answer kept for idempotency key `key` of match `id`, if the key was used; refused
/// when it was used for a different hand than `request`.
async fn seen_before(
    conn: &mut Conn,
    id: MatchId,
    key: &str,
    request: &str,
) -> Result<Option<IdempotencyRecord>, ServiceError> {
    let Some(seen) = db_idempotency::idempotency_record(conn, id, key).await? else {
        return Ok(None);
    };
    if seen.request.as_ref().is_some_and(|first| *first != request) {
        return Err(ServiceError::invalid(
            ErrorCode::IdempotencyKeyReused,
            "idempotency_key",
            "this idempotency key was already used for a different hand: nothing was recorded; send a new key for a new hand",
        ));
    }
    Ok(Some(seen))
}

/// Only a match in play takes a new hand.
fn check_takes_hands(m: &MatchRow) -> Result<(), ServiceError> {
    match m.status {
        MatchStatus::InProgress => Ok(()),
        MatchStatus::Scheduled | MatchStatus::Postponed => Err(ServiceError::conflict(
            ErrorCode::NotStarted,
            "start the match before entering hands",
        )),
        other => Err(ServiceError::Invalid(crate::domain::FieldError::new(
            ErrorCode::GameOver,
            format!("the match is {}: no more hands", other.words()),
        ))),
    }
}

/// A new hand can only end a game (none is taken after the end), so the bracket changes
/// only then; reloading it for every hand made playoff hands cost ~3× a regular one.
fn bracket_after_hand(m: &MatchRow, game: &Game) -> Bracket<'static> {
    if m.stage != Stage::Regular && game.state().is_over() {
        Bracket::Moves(None)
    } else {
        Bracket::Stays
    }
}

/// Keeps `record` under idempotency key `key` of match `id`, and expires a batch of the
/// keys older than the window.
async fn keep_answer(
    conn: &mut Conn,
    id: MatchId,
    key: &str,
    record: IdempotencyRecord,
    now: Timestamp,
) -> Result<(), ServiceError> {
    db_idempotency::save_idempotency_record(conn, id, key, &record, now).await?;
    db_idempotency::expire_idempotency_keys(
        conn,
        Timestamp(now.0 - IDEMPOTENCY_WINDOW),
        EXPIRE_AT_ONCE,
    )
    .await?;
    Ok(())
}

/// A correction of hand `number`: the new hand and why.
#[derive(Debug, Clone, Copy)]
pub struct Correction<'a> {
    pub number: i64,
    pub hand: &'a HandInput,
    pub reason: &'a str,
    pub expected_version: i64,
    /// An admin confirms resetting the started playoff matches it changes (docs/scoring.md §9.9).
    pub reset_bracket_path: bool,
}

/// Corrects hand `number`: a new revision with its reason; every hand after it is rescored.
#[tracing::instrument(skip_all, fields(user_id = %user.id, match_id = %id))]
pub async fn correct_hand(
    db: &Db,
    user: &User,
    id: MatchId,
    correction: &Correction<'_>,
) -> Result<MatchView, ServiceError> {
    let now = db.clock().now();
    let Correction {
        number,
        hand: input,
        reason,
        expected_version,
        reset_bracket_path: reset_path,
    } = *correction;
    let reason = TextRule {
        code: ErrorCode::InvalidCorrection,
        field: "reason",
        what: "the reason",
        max: text::REASON_MAX,
        lines: Lines::Many,
    }
    .check_optional(Some(reason))?
    .ok_or_else(|| {
        ServiceError::invalid(
            ErrorCode::InvalidCorrection,
            "reason",
            "say why the hand is corrected",
        )
    })?;
    if reset_path {
        require_admin(user)?;
    }
    let entry = CorrectionEntry {
        user: user.clone(),
        id,
        number,
        input: input.clone(),
        reason,
        expected_version,
        reset_path,
        now,
    };
    db.batched(move |conn| Box::pin(async move { entry.write(conn).await }))
        .await
}

/// A checked correction sent for the writer's next batch.
struct CorrectionEntry {
    user: User,
    id: MatchId,
    number: i64,
    input: HandInput,
    reason: String,
    expected_version: i64,
    reset_path: bool,
    now: Timestamp,
}

impl CorrectionEntry {
    async fn write(self, conn: &mut Conn) -> Result<MatchView, ServiceError> {
        let CorrectionEntry {
            user,
            id,
            number,
            mut input,
            reason,
            expected_version,
            reset_path,
            now,
        } = self;
        let db_matches::MatchForWrite {
            row: m,
            name_a,
            name_b,
            ..
        } = for_write(conn, &user, id).await?;
        check_version(&m, expected_version)?;
        check_hands_can_change(&m)?;
        let league = league_of(conn, &m).await?;
        let rules = rules_of(&m, &league)?;
        let (mut rows, mut inputs) = stored_hands(conn, id).await?;
        let index = hand_index(number, rows.len())?;
        let before = rows[index].hand.clone();
        // The hand in play when time ran out stays the time-called one (it was marked by
        // the service, so a client correcting its bids or tricks need not send the mark
        // again).
        if !input.misdeal && inputs[index].time_called {
            input.time_called = true;
        }
        inputs[index] = input;
        let (game, scored) = replay(&rules, m.stage, &inputs)?;
        let stored = to_json("hand", &inputs[index])?;
        let new = NewHand {
            match_id: id,
            number,
            revision: rows[index].revision + 1,
            hand: &stored,
            reason: Some(&reason),
            recorded_by: Some(user.id),
            now,
        };
        rows[index] = db_hands::insert_hand(conn, &new).await?;
        // A changed winner moves the teams on, or is refused (`bracket_reset_needed`) where
        // a later match has started.
        let reset = reset_path.then_some(super::playoffs::PathReset {
            admin: &user,
            reason: &reason,
        });
        let bracket = bracket_after_correction(&m, reset.as_ref());
        let after = save_result(conn, &m, &game, bracket, now).await?;
        let change = audit::Change::new("correct_hand", audit::Subject::Match(id))
            .before(&before)
            .after(&stored)
            .reason(&reason);
        audit::record(conn, &user, now, change).await?;
        let played = Replayed {
            rules,
            rows,
            inputs,
            scored,
        };
        Ok(view_of(&after, (name_a, name_b), &league, played))
    }
}

/// A corrected playoff hand may change the winner: the bracket moves on, resetting the
/// started matches it changes if an admin confirmed it.
fn bracket_after_correction<'a>(
    m: &MatchRow,
    reset: Option<&'a super::playoffs::PathReset<'a>>,
) -> Bracket<'a> {
    if m.stage == Stage::Regular {
        Bracket::Stays
    } else {
        Bracket::Moves(reset)
    }
}

/// A forfeited or cancelled match keeps its hands as they are.
fn check_hands_can_change(m: &MatchRow) -> Result<(), ServiceError> {
    if matches!(m.status, MatchStatus::Forfeit | MatchStatus::Cancelled) {
        return Err(ServiceError::conflict(
            ErrorCode::MatchClosed,
            format!("the match is {}; its hands cannot change", m.status.words()),
        ));
    }
    Ok(())
}

/// Where hand `number` (from 1) is among `count` stored hands; not found past them.
fn hand_index(number: i64, count: usize) -> Result<usize, ServiceError> {
    usize::try_from(number - 1)
        .ok()
        .filter(|i| *i < count)
        .ok_or(ServiceError::NotFound)
}

/// Calls time now: the hand in play is the last one (it is marked time-called when entered).
#[tracing::instrument(skip_all, fields(user_id = %user.id, match_id = %id))]
pub async fn call_time(
    db: &Db,
    user: &User,
    id: MatchId,
    expected_version: i64,
) -> Result<MatchView, ServiceError> {
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let m = writable(&mut tx, user, id).await?;
    check_version(&m, expected_version)?;
    if m.status != MatchStatus::InProgress {
        return Err(ServiceError::conflict(
            ErrorCode::NotInProgress,
            "time can only be called in a match in play",
        ));
    }
    let league = league_of(&mut tx, &m).await?;
    if m.time_called_at.is_some() {
        return Err(ServiceError::conflict(
            ErrorCode::TimeAlreadyCalled,
            "time has already been called in this match",
        ));
    }
    if rules_of(&m, &league)?.time_limit_minutes.is_none() {
        return Err(ServiceError::conflict(
            ErrorCode::NoTimeLimit,
            "these rules have no time limit",
        ));
    }
    // A service clock set back before the start records the call at the start, never
    // before it.
    let at = m.started_at.map_or(now, |start| now.max(start));
    db_matches::call_time(&mut tx, id, at).await?;
    audit::record(
        &mut tx,
        user,
        now,
        audit::Change::new("call_time", audit::Subject::Match(id)),
    )
    .await?;
    let view = reload(&mut tx, id, &league).await?;
    tx.commit().await?;
    Ok(view)
}

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ForfeitInput {
    /// `a`, `b` or `both`: the team that forfeits.
    pub team: String,
    /// A double forfeit in the playoffs: the team the admin sends on, `a` or `b` (someone
    /// must advance; docs/scoring.md §9.8). Admin only; not for regular-season matches.
    #[serde(default)]
    pub advance: Option<String>,
    #[serde(default)]
    pub expected_version: Option<i64>,
}

/// The forfeit policy (`drop_after: n`): a team's n-th regular-season forfeit withdraws it,
/// in the forfeit's own transaction: its matches not started are cancelled, its results
/// stay, and the audit log says why.
async fn drop_at_limit(
    conn: &mut Conn,
    user: &User,
    now: Timestamp,
    league: &League,
    team: TeamId,
) -> Result<(), ServiceError> {
    let Some(limit) = league.settings.forfeit.drop_after else {
        return Ok(());
    };
    let Some(row) = db_leagues::team(conn, team).await? else {
        return Ok(());
    };
    let forfeits = db_matches::count_forfeits(conn, league.row.id, team).await?;
    if row.withdrawn || forfeits < i64::from(limit) {
        return Ok(());
    }
    let reason = match forfeits {
        1 => "dropped after 1 forfeit".to_string(),
        n => format!("dropped after {n} forfeits"),
    };
    db_leagues::drop_team(conn, team, &reason).await?;
    let cancelled =
        db_matches::cancel_unstarted_of(conn, team, &format!("{} {reason}", row.name)).await?;
    let after = format!("{reason}; {} matches cancelled", cancelled.len());
    audit::record(
        conn,
        user,
        now,
        audit::Change::new("drop_team", audit::Subject::Team(team))
            .after(&after)
            .reason(&reason),
    )
    .await?;
    Ok(())
}

/// Records a forfeit: one team (the other wins) or both (both lose; in the playoffs the
/// admin names the team that advances).
#[tracing::instrument(skip_all, fields(user_id = %user.id, match_id = %id))]
pub async fn forfeit(
    db: &Db,
    user: &User,
    id: MatchId,
    input: &ForfeitInput,
) -> Result<MatchView, ServiceError> {
    let now = db.clock().now();
    let who = forfeit_side(input)?;
    let mut tx = db.write().await?;
    let m = writable(&mut tx, user, id).await?;
    if let Some(expected) = input.expected_version {
        check_version(&m, expected)?;
    }
    if m.status.is_over() {
        return Err(ServiceError::conflict(
            ErrorCode::MatchClosed,
            format!("the match is already {}", m.status.words()),
        ));
    }
    let winner = forfeit_winner(&mut tx, user, &m, who, input.advance.as_deref()).await?;
    let league = league_of(&mut tx, &m).await?;
    db_matches::set_totals(&mut tx, id, &forfeit_totals(&m, who, winner)).await?;
    super::conduct::rate_forfeit(&mut tx, id, &league).await?;
    if m.stage != Stage::Regular {
        super::playoffs::advance(&mut tx, id, now, None).await?;
    } else {
        for team in forfeiting_teams(&m, who) {
            drop_at_limit(&mut tx, user, now, &league, team).await?;
        }
    }
    let after = forfeit_audit_after(who, winner);
    audit::record(
        &mut tx,
        user,
        now,
        audit::Change::new("forfeit", audit::Subject::Match(id)).after(&after),
    )
    .await?;
    let view = reload(&mut tx, id, &league).await?;
    tx.commit().await?;
    Ok(view)
}

/// The side that forfeits: `a`, `b` or `both`.
fn forfeit_side(input: &ForfeitInput) -> Result<ForfeitSide, ServiceError> {
    ForfeitSide::parse(input.team.as_str()).map_err(|_| {
        ServiceError::invalid(
            ErrorCode::InvalidForfeit,
            "team",
            format!(
                "the forfeiting team is \"a\", \"b\" or \"both\", not \"{}\"",
                input.team
            ),
        )
    })
}

/// The team that wins (or advances) by the forfeit, if any: only an admin sends a team on
/// after a double forfeit in the playoffs, and only there.
async fn forfeit_winner(
    conn: &mut Conn,
    user: &User,
    m: &MatchRow,
    who: ForfeitSide,
    advance: Option<&str>,
) -> Result<Option<Team>, ServiceError> {
    let in_bracket = m.stage != Stage::Regular && super::playoffs::in_bracket(conn, m.id).await?;
    let advance = advance.map(str::trim);
    match (who.team(), in_bracket, advance) {
        // One team forfeits: the other wins.
        (Some(team), _, None) => Ok(Some(team.other())),
        // Both forfeit in the regular season: nobody wins.
        (None, false, None) => Ok(None),
        (None, true, None) => Err(ServiceError::conflict(
            ErrorCode::DoubleForfeitPlayoff,
            "a double forfeit in the playoffs needs an admin to choose which team advances (\"advance\": \"a\" or \"b\")",
        )),
        (None, true, Some(side)) => {
            let team = Team::parse(side).map_err(|_| {
                ServiceError::invalid(
                    ErrorCode::InvalidForfeit,
                    "advance",
                    format!("the team that advances is \"a\" or \"b\", not \"{side}\""),
                )
            })?;
            require_admin(user)?;
            Ok(Some(team))
        }
        (_, _, Some(_)) => Err(ServiceError::invalid(
            ErrorCode::InvalidForfeit,
            "advance",
            "only a double forfeit in the playoffs chooses who advances",
        )),
    }
}

/// The match's totals once forfeited: the score so far stays.
fn forfeit_totals(m: &MatchRow, who: ForfeitSide, winner: Option<Team>) -> Totals {
    Totals {
        status: MatchStatus::Forfeit,
        score_a: m.score_a,
        score_b: m.score_b,
        bags_a: m.bags_a,
        bags_b: m.bags_b,
        game_status: if winner.is_some() {
            GameStatus::Won
        } else {
            GameStatus::Forfeit
        },
        winner,
        reason: Some(WinReason::Forfeit),
        forfeit: Some(who),
        hands_played: m.hands_played,
    }
}

/// The teams of `m` that forfeit.
fn forfeiting_teams(m: &MatchRow, who: ForfeitSide) -> Vec<TeamId> {
    match who.team() {
        Some(Team::A) => vec![m.team_a],
        Some(Team::B) => vec![m.team_b],
        None => vec![m.team_a, m.team_b],
    }
}

/// The forfeit as the audit log tells it.
fn forfeit_audit_after(who: ForfeitSide, winner: Option<Team>) -> String {
    match (who, winner) {
        (ForfeitSide::Both, Some(team)) => {
            format!("both; team {} advances (admin's choice)", team.as_str())
        }
        _ => who.as_str().to_string(),
    }
}
