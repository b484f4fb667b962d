//! Correcting a hand: a new revision with its reason; every hand after it is rescored and a
//! playoff bracket moves on (resetting started matches only with an admin's confirmation).

use super::{Bracket, open_hands, save_result};
use crate::db::hands::{self as db_hands, NewHand};
use crate::db::matches::MatchRow;
use crate::db::{Conn, Db};
use crate::domain::ErrorCode;
use crate::domain::{IdempotencyKey, MatchId, MatchStatus, Timestamp};
use crate::rules::{HandInput, Stage};
use crate::service::audit;
use crate::service::night::access::for_write;
use crate::service::night::action_keys::{self, Acted, ActionKey};
use crate::service::night::match_view::replay;
use crate::service::notices::events;
use crate::service::text::{self, Lines, TextRule};
use crate::service::{ServiceError, User, require_admin, to_json};

/// A correction of hand `number`: the new hand and why.
#[derive(Debug, Clone, Copy)]
pub struct Correction<'a> {
    pub number: i64,
    pub hand: &'a HandInput,
    pub reason: &'a str,
    pub expected_version: i64,
    /// An admin confirms resetting the started playoff matches it changes (docs/scoring.md §9.9).
    pub reset_bracket_path: bool,
    /// Sent again with the same correction, the first answer comes back and nothing is
    /// corrected twice (docs/api.md §7.8).
    pub idempotency_key: Option<&'a IdempotencyKey>,
}

/// What an idempotency key of a correction is compared on: the correction as sent.
#[derive(serde::Serialize)]
struct KeyedCorrection<'a> {
    number: i64,
    hand: &'a HandInput,
    reason: &'a str,
    expected_version: i64,
    reset_bracket_path: bool,
}

/// Corrects hand `number`: a new revision with its reason; every hand after it is rescored.
/// A repeated `idempotency_key` answers the first answer again and corrects nothing.
#[tracing::instrument(skip_all, fields(user_id = %user.id, match_id = %id))]
pub async fn correct_hand(
    db: &Db,
    user: &User,
    id: MatchId,
    correction: &Correction<'_>,
) -> Result<Acted, ServiceError> {
    let queue_now = crate::service::night::calls::Now::of(db);
    let now = queue_now.at;
    let Correction {
        number,
        hand: input,
        reason,
        expected_version,
        reset_bracket_path: reset_path,
        idempotency_key,
    } = *correction;
    let keyed = KeyedCorrection {
        number,
        hand: input,
        reason,
        expected_version,
        reset_bracket_path: reset_path,
    };
    let key = ActionKey::of(idempotency_key, "correct_hand", &keyed)?;
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
        key,
        now,
        today: queue_now.today,
        notices: db.notices().cloned(),
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
    key: Option<ActionKey>,
    now: Timestamp,
    /// The day of `now` where the league plays: the queue's day.
    today: chrono::NaiveDate,
    /// Where the links of notices point, when notices are sent.
    notices: Option<url::Url>,
}

impl CorrectionEntry {
    async fn write(self, conn: &mut Conn) -> Result<Acted, ServiceError> {
        let CorrectionEntry {
            user,
            id,
            number,
            mut input,
            reason,
            expected_version,
            reset_path,
            key,
            now,
            today,
            notices,
        } = self;
        let opened = for_write(conn, &user, id).await?;
        if let Some(first) = action_keys::first_answer(conn, id, key.as_ref()).await? {
            return Ok(Acted::Again(first));
        }
        let mut hands = open_hands(conn, opened, expected_version, check_hands_can_change).await?;
        let m = &hands.m;
        let index = hand_index(number, hands.rows.len())?;
        let before = hands.rows[index].hand.clone();
        // The hand in play when time ran out stays the time-called one (it was marked by
        // the service, so a client correcting its bids or tricks need not send the mark
        // again).
        if !input.misdeal && hands.inputs[index].time_called {
            input.time_called = true;
        }
        hands.inputs[index] = input;
        let (game, scored) = replay(&hands.rules, m.stage, &hands.inputs)?;
        if m.status.is_over() && !game.state().is_over() {
            // The match is played again: at its table, if the queue has not given it away.
            crate::service::night::calls::check_start(conn, &hands.league.settings, m, today)
                .await?;
        }
        let stored = to_json("hand", &hands.inputs[index])?;
        let new = NewHand {
            match_id: id,
            number,
            revision: hands.rows[index].revision + 1,
            hand: &stored,
            reason: Some(&reason),
            recorded_by: Some(user.id),
            now,
        };
        hands.rows[index] = db_hands::insert_hand(conn, &new).await?;
        // A changed winner moves the teams on, or is refused (`bracket_reset_needed`) where
        // a later match has started.
        let reset = reset_path.then_some(crate::service::playoffs::PathReset {
            admin: &user,
            reason: &reason,
        });
        let bracket = bracket_after_correction(m, reset.as_ref());
        let after = save_result(conn, m, &game, bracket, now).await?;
        if after.status.is_over() {
            let now = crate::service::night::calls::Now { at: now, today };
            crate::service::night::calls::refill(conn, m.league_id, now).await?;
        }
        let change = audit::Change::new("correct_hand", audit::Subject::Match(id))
            .before(&before)
            .after(&stored)
            .reason(&reason);
        audit::record(conn, &user, now, change).await?;
        if let Some(public_url) = &notices {
            let revision = hands.rows[index].revision;
            let (changed, hand) = ((m, &after), (number, revision));
            events::tell_result_corrected(conn, public_url, now, changed, hand, &reason).await?;
        }
        let view = hands.answer(&after, scored);
        action_keys::keep(conn, id, key.as_ref(), &view, now).await?;
        Ok(Acted::Done(Box::new(view)))
    }
}

/// A corrected playoff hand may change the winner: the bracket moves on, resetting the
/// started matches it changes if an admin confirmed it.
fn bracket_after_correction<'a>(
    m: &MatchRow,
    reset: Option<&'a crate::service::playoffs::PathReset<'a>>,
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
