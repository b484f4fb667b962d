//! A match on league night: start it (rules frozen, clock running), record hands, correct
//! them (a new revision with a reason), call time, record forfeits. Totals are cached on the
//! match and rebuilt from the hands whenever they change; `match_view` reads them.
//!
//! `start` starts a match; `record` records the next hand (and keeps its idempotency key);
//! `correct` corrects a hand; `time` calls time and says when it has run out; `forfeit`
//! records a forfeit (and drops a team at the league's forfeit limit); `default` a team's
//! "we can't play" in time (a loss, never a forfeit). This file holds what
//! they share besides who may write to a match (`super::access`): the version check,
//! opening a match's hands for a change (a new hand, a correction), and saving a match's
//! totals (moving its playoff bracket on).

mod answer;
mod correct;
mod default;
mod forfeit;
mod record;
mod start;
mod time;

pub use answer::{AnswerShape, HandAnswer, HandTotals, SideTotals};
pub use correct::{Correction, correct_hand};
pub use default::{DefaultInput, Defaulter, default};
pub use forfeit::{ForfeitInput, forfeit, forfeit_for_withdrawal};
pub use record::{NewHandEntry, Recorded, record_hand};
pub use start::start;
pub use time::call_time;

use crate::db::Conn;
use crate::db::hands::HandRow;
use crate::db::matches::{self as db_matches, MatchRow, Totals};
use crate::domain::ErrorCode;
use crate::domain::{MatchId, MatchStatus, Timestamp};
use crate::rules::{Game, HandInput, Rules, ScoredHand, Team};
use crate::service::ServiceError;
use crate::service::night::access::league_of;
use crate::service::night::match_view::{MatchView, Replayed, rules_of, stored_hands, view_of};
use crate::service::term::leagues::League;

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

/// A match open for a change to its hands (a new hand or a correction) in the writer's
/// batch: what replaying its hands and answering need.
struct OpenHands {
    m: MatchRow,
    names: crate::db::match_write::MatchNames,
    league: League,
    rules: Rules,
    rows: Vec<HandRow>,
    inputs: Vec<HandInput>,
    lineups: Vec<crate::db::lineups::LineupRow>,
    label: Option<String>,
}

/// Opens match `opened` (found writable by [`for_write`]) for a change to its hands: still
/// at `expected_version`, in a state `may_change` accepts; then its league, frozen rules and
/// current hands.
async fn open_hands(
    conn: &mut Conn,
    opened: crate::db::match_write::MatchForWrite,
    expected_version: i64,
    may_change: fn(&MatchRow) -> Result<(), ServiceError>,
) -> Result<OpenHands, ServiceError> {
    let names = opened.names();
    let m = opened.row;
    check_version(&m, expected_version)?;
    may_change(&m)?;
    let league = league_of(conn, &m).await?;
    let rules = rules_of(&m, &league)?;
    let (rows, inputs) = stored_hands(conn, m.id).await?;
    let lineups = crate::db::lineups::of_match(conn, m.id).await?;
    let label = crate::service::playoffs::label_of(conn, m.id, m.stage).await?;
    Ok(OpenHands {
        label,
        m,
        names,
        league,
        rules,
        rows,
        inputs,
        lineups,
    })
}

impl OpenHands {
    /// Where the league requires lineups, the first hand waits for both.
    fn check_lineups(&self) -> Result<(), ServiceError> {
        if !self.inputs.is_empty() || !self.league.settings.lineups.required {
            return Ok(());
        }
        let set = crate::service::night::match_view::Lineup::at_hand(&self.lineups, 1);
        let missing: Vec<&str> = [(&set.a, &self.names.a), (&set.b, &self.names.b)]
            .into_iter()
            .filter(|(lineup, _)| lineup.is_none())
            .map(|(_, name)| name.as_deref().unwrap_or("a team"))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(ServiceError::conflict(
            ErrorCode::LineupMissing,
            format!(
                "this league sets lineups before the first hand: set {}'s lineup first",
                missing.join(" and ")
            ),
        ))
    }

    /// The answer: match `after` as the change left it, with its hands as `scored`.
    fn answer(self, after: &MatchRow, scored: Vec<ScoredHand>) -> MatchView {
        let played = Replayed {
            rules: self.rules,
            rows: self.rows,
            inputs: self.inputs,
            scored,
            lineups: self.lineups,
            label: self.label,
        };
        view_of(after, self.names, &self.league, played)
    }
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
    Moves(Option<&'a crate::service::playoffs::PathReset<'a>>),
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
    advance_bracket(conn, m.id, now, reset).await
}

/// Moves the bracket on after match `id`'s result may have changed (resetting the started
/// matches `reset` confirms); returns the match as the bracket's writes left it.
async fn advance_bracket(
    conn: &mut Conn,
    id: MatchId,
    now: Timestamp,
    reset: Option<&crate::service::playoffs::PathReset<'_>>,
) -> Result<MatchRow, ServiceError> {
    crate::service::playoffs::advance(conn, id, now, reset).await?;
    // Read again after the bracket's writes, so the answer shows the match as they left it.
    db_matches::by_id(conn, id)
        .await?
        .ok_or(ServiceError::NotFound)
}
