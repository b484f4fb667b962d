//! Recording the next hand, in the group commit: a repeated idempotency key answers the
//! first answer again (rebuilt from what the key kept) and records nothing.

use super::answer::{AnswerShape, HandAnswer, HandTotals};
use super::time::time_expired;
use super::{Bracket, advance_bracket, check_version, open_hands, totals_of};
use crate::db::hands::{self as db_hands, HandRow, NewHand};
use crate::db::idempotency::{self as db_idempotency, IdempotencyRecord};
use crate::db::match_write::MatchNames;
use crate::db::matches::{self as db_matches, MatchRow};
use crate::db::{Conn, Db};
use crate::domain::ErrorCode;
use crate::domain::{FieldError, GameStatus, IdempotencyKey, MatchId, MatchStatus, Timestamp};
use crate::rules::{Game, HandInput, Stage, TeamTotal};
use crate::service::night::access::{IDEMPOTENCY_WINDOW, for_write, league_of};
use crate::service::night::match_view::{Replayed, match_rules, replay, rules_of, view_of};
use crate::service::{ServiceError, User, to_json};

/// The answer of a recorded hand, or the first answer again (in the shape first asked for)
/// for a repeated idempotency key.
pub enum Recorded {
    New(HandAnswer),
    Repeat(HandAnswer),
}

impl Recorded {
    /// The same, with the light answer ([`HandAnswer::into_minimal`]).
    pub fn into_minimal(self) -> Recorded {
        match self {
            Recorded::New(answer) => Recorded::New(answer.into_minimal()),
            Recorded::Repeat(answer) => Recorded::Repeat(answer.into_minimal()),
        }
    }
}

/// The most expired keys one hand deletes: each costs its hand a little, and keys come one a
/// hand, so any backlog (a server that was off) is soon gone.
const EXPIRE_AT_ONCE: i64 = 64;

/// A hand to record: the hand, the match's version as last seen, the key of this attempt,
/// and the answer asked for.
pub struct NewHandEntry<'a> {
    pub hand: &'a HandInput,
    pub expected_version: i64,
    pub idempotency_key: Option<&'a IdempotencyKey>,
    pub shape: AnswerShape,
}

/// Records the next hand. A repeated `idempotency_key` returns the first answer and records
/// nothing; a stale `expected_version` is a conflict. Written in the next group commit.
#[tracing::instrument(skip_all, fields(user_id = %user.id, match_id = %id))]
pub async fn record_hand(
    db: &Db,
    user: &User,
    id: MatchId,
    entry: &NewHandEntry<'_>,
) -> Result<Recorded, ServiceError> {
    let NewHandEntry {
        hand: input,
        expected_version,
        idempotency_key,
        shape,
    } = *entry;
    let entry = HandEntry {
        user: user.clone(),
        id,
        request: to_json("hand", input)?,
        input: input.clone(),
        expected_version,
        idempotency_key: idempotency_key.cloned(),
        now: db.clock().now(),
        today: db.clock().local_now().0.date(),
        shape,
    };
    let entered = db
        .batched_opening_on_write(move |conn| Box::pin(async move { entry.record(conn).await }))
        .await?;
    Ok(match entered {
        Entered::New(answer) => Recorded::New(answer),
        // Rebuilt after the batch, on a reader: it is committed, and the writer is spared.
        Entered::Seen(record) => {
            let mut conn = db.read().await?;
            Recorded::Repeat(answer_again(&mut conn, id, &record).await?)
        }
    })
}

/// What the writer did with a hand: recorded it, or found its idempotency key kept.
enum Entered {
    New(HandAnswer),
    Seen(IdempotencyRecord),
}

/// What an idempotency key keeps of `answer`, the answer to the hand `request` (as sent)
/// that stored the hand row `hand_id` and left the match as `after`: what the hands cannot
/// tell of the match then.
fn record_of(
    request: String,
    hand_id: i64,
    after: &MatchRow,
    answer: &HandAnswer,
) -> Result<IdempotencyRecord, ServiceError> {
    let (names, sportsmanship, supervisor_name) = match answer {
        HandAnswer::Full(view) => (
            [view.team_a.name.clone(), view.team_b.name.clone()],
            view.sportsmanship
                .as_ref()
                .map(|ratings| to_json("ratings", ratings))
                .transpose()?,
            view.supervisor.clone(),
        ),
        // A light answer is rebuilt from the hands alone.
        HandAnswer::Minimal(_) => ([String::new(), String::new()], None, None),
    };
    let [team_a_name, team_b_name] = names;
    Ok(IdempotencyRecord {
        request: Some(request),
        hand_id,
        version: after.version,
        table_name: after.table_name.clone(),
        time_called_at: after.time_called_at,
        team_a_name,
        team_b_name,
        sportsmanship,
        minimal: answer.shape() == AnswerShape::Minimal,
        supervisor_name,
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
) -> Result<HandAnswer, ServiceError> {
    let now = db_matches::by_id(conn, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let league = league_of(conn, &now).await?;
    let rules = rules_of(&now, &league)?;
    let rows = db_hands::hands_as_of(conn, id, record.hand_id).await?;
    let inputs = rows
        .iter()
        .map(crate::service::night::match_view::stored_hand)
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
    if record.minimal {
        return Ok(HandAnswer::Minimal(HandTotals::of(
            &then,
            rows.len() as i64,
        )));
    }
    let names = MatchNames {
        a: Some(record.team_a_name.clone()),
        b: Some(record.team_b_name.clone()),
        supervisor: record.supervisor_name.clone(),
    };
    // The lineups then: a substitution after this hand starts at the next one.
    let hands_then = rows.len() as i64;
    let lineups = crate::db::lineups::of_match(conn, id)
        .await?
        .into_iter()
        .filter(|l| l.from_hand <= hands_then)
        .collect();
    let played = Replayed {
        rules,
        rows,
        inputs,
        scored,
        lineups,
        label: crate::service::playoffs::label_of(conn, id, then.stage).await?,
    };
    let mut view = view_of(&then, names, &league, played);
    view.sportsmanship = record
        .sportsmanship
        .as_deref()
        .map(serde_json::from_str)
        .transpose()
        .map_err(|e| ServiceError::corrupt("kept ratings", e))?;
    Ok(HandAnswer::Full(Box::new(view)))
}

/// A hand sent for the writer's next batch.
struct HandEntry {
    user: User,
    id: MatchId,
    input: HandInput,
    /// The hand as sent (JSON), compared with the first use of a repeated idempotency key.
    request: String,
    expected_version: i64,
    idempotency_key: Option<IdempotencyKey>,
    now: Timestamp,
    /// The day of `now` where the league plays: the queue's day.
    today: chrono::NaiveDate,
    shape: AnswerShape,
}

impl HandEntry {
    async fn record(self, conn: &mut Conn) -> Result<Entered, ServiceError> {
        let opened = for_write(conn, &self.user, self.id).await?;
        if let Some(key) = &self.idempotency_key
            && let Some(seen) = seen_before(conn, self.id, key.as_str(), &self.request).await?
        {
            return Ok(Entered::Seen(seen));
        }
        if self.shape == AnswerShape::Minimal
            && let Some(game) = self.continued(conn, &opened.row).await?
        {
            return self.record_light(conn, &opened.row, game).await;
        }
        self.record_replayed(conn, opened).await
    }

    /// For the light answer, the game as the match's cached totals keep it, its hands not
    /// replayed; `None` where the new hand needs them: the first (its lineups may be
    /// required) and one after time ran out (the time-called hand is marked once).
    async fn continued(&self, conn: &mut Conn, m: &MatchRow) -> Result<Option<Game>, ServiceError> {
        check_version(m, self.expected_version)?;
        check_takes_hands(m)?;
        let rules = match_rules(conn, m).await?;
        if m.hands_played == 0 || time_expired(m, &rules, self.now) {
            return Ok(None);
        }
        let total = |score: i64, bags: i64| -> Option<TeamTotal> {
            Some(TeamTotal {
                score: i32::try_from(score).ok()?,
                bags: u32::try_from(bags).ok()?,
            })
        };
        let cached = total(m.score_a, m.bags_a).zip(total(m.score_b, m.bags_b));
        let hands = usize::try_from(m.hands_played).ok();
        let (Some((a, b)), Some(hands)) = (cached, hands) else {
            return Err(ServiceError::corrupt("cached totals", "out of range"));
        };
        let tiebreak = m.game_status == GameStatus::Tiebreak;
        Game::continued(rules, m.stage, [a, b], hands, tiebreak)
            .map(Some)
            .map_err(|e| ServiceError::corrupt("cached totals", e.message))
    }

    /// Records the hand on `game` (the match `m` as its totals keep it): the light answer.
    async fn record_light(
        self,
        conn: &mut Conn,
        m: &MatchRow,
        mut game: Game,
    ) -> Result<Entered, ServiceError> {
        let number = m.hands_played + 1;
        let hand = self
            .input
            .parse(game.hands_played() + 1)
            .map_err(FieldError::from)?;
        game.play(&hand).map_err(FieldError::from)?;
        let stored = to_json("hand", &self.input)?;
        let (row, after) = self.store(conn, m, &game, &stored, number).await?;
        let hand_id = row.id.0;
        let answer = HandAnswer::Minimal(HandTotals::of(&after, number));
        self.keep(conn, hand_id, &after, &answer).await?;
        Ok(Entered::New(answer))
    }

    /// Records the hand after replaying the match's hands with it at the end.
    async fn record_replayed(
        self,
        conn: &mut Conn,
        opened: crate::db::match_write::MatchForWrite,
    ) -> Result<Entered, ServiceError> {
        let mut hands = open_hands(conn, opened, self.expected_version, check_takes_hands).await?;
        hands.check_lineups()?;
        let m = &hands.m;
        let mut hand = self.input.clone();
        // The hand in play when time runs out is the time-called one (docs/scoring.md §4.3, §8.3).
        if !hand.misdeal
            && time_expired(m, &hands.rules, self.now)
            && !hands.inputs.iter().any(|h| h.time_called)
        {
            hand.time_called = true;
        }
        hands.inputs.push(hand);
        let (game, scored) = replay(&hands.rules, m.stage, &hands.inputs)?;
        let stored = to_json("hand", &hands.inputs[hands.inputs.len() - 1])?;
        let number = hands.inputs.len() as i64;
        let (row, after) = self.store(conn, m, &game, &stored, number).await?;
        let hand_id = row.id.0;
        hands.rows.push(row);
        let answer = match self.shape {
            AnswerShape::Full => HandAnswer::Full(Box::new(hands.answer(&after, scored))),
            AnswerShape::Minimal => HandAnswer::Minimal(HandTotals::of(&after, number)),
        };
        self.keep(conn, hand_id, &after, &answer).await?;
        Ok(Entered::New(answer))
    }

    /// Writes hand `number` (`stored`, as JSON) and the totals of `game` after it over match
    /// `m`, with its audit row: the hand's row and the match after it.
    async fn store(
        &self,
        conn: &mut Conn,
        m: &MatchRow,
        game: &Game,
        stored: &str,
        number: i64,
    ) -> Result<(HandRow, MatchRow), ServiceError> {
        let new = NewHand {
            match_id: self.id,
            number,
            revision: 1,
            hand: stored,
            reason: None,
            recorded_by: Some(self.user.id),
            now: self.now,
        };
        let (row, mut after) =
            db_hands::record_hand(conn, &new, &totals_of(game), "record_hand").await?;
        if let Bracket::Moves(reset) = bracket_after_hand(m, game) {
            after = advance_bracket(conn, m.id, self.now, reset).await?;
        }
        if after.status.is_over() {
            let now = crate::service::night::calls::Now {
                at: self.now,
                today: self.today,
            };
            crate::service::night::calls::refill(conn, m.league_id, now).await?;
        }
        Ok((row, after))
    }

    /// Keeps `answer` under the hand's idempotency key, if it has one.
    async fn keep(
        self,
        conn: &mut Conn,
        hand_id: i64,
        after: &MatchRow,
        answer: &HandAnswer,
    ) -> Result<(), ServiceError> {
        if let Some(key) = &self.idempotency_key {
            let record = record_of(self.request, hand_id, after, answer)?;
            keep_answer(conn, self.id, key.as_str(), record, self.now).await?;
        }
        Ok(())
    }
}

/// The answer kept for idempotency key `key` of match `id`, if the key was used; refused
/// when it was used for a different hand than `request`, or for another action.
async fn seen_before(
    conn: &mut Conn,
    id: MatchId,
    key: &str,
    request: &str,
) -> Result<Option<IdempotencyRecord>, ServiceError> {
    let Some(seen) = db_idempotency::idempotency_record(conn, id, key).await? else {
        // A key is one attempt of one thing: one sent with another action is not a hand's.
        if crate::db::action_keys::exists(conn, id, key).await? {
            return Err(crate::service::night::action_keys::reused());
        }
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
