//! The two answers to a recorded hand: the whole match (the documented default), or, when
//! the client asks with `Prefer: return=minimal` (RFC 7240), its totals only, whose size and
//! cost do not grow with the match (docs/api.md §7.3).

use serde::Serialize;

use crate::db::matches::MatchRow;
use crate::domain::GameStatus;
use crate::rules::Team;
use crate::service::night::match_view::MatchView;

/// Which answer the client asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerShape {
    /// The match with every hand (`MatchView`).
    Full,
    /// The totals after the hand (`HandTotals`).
    Minimal,
}

/// One team's total after the hand.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct SideTotals {
    pub score: i64,
    pub bags: i64,
}

/// The light answer to a recorded hand (`Prefer: return=minimal`).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct HandTotals {
    /// The match's version now: send it as the next hand's `expected_version`.
    pub version: i64,
    /// The hand's number (from 1).
    pub number: i64,
    pub a: SideTotals,
    pub b: SideTotals,
    /// `in_progress`, `tiebreak`, `won` or `tied` (as the match's `game_status`).
    #[schema(value_type = String)]
    pub game_status: GameStatus,
    /// `a` or `b` once decided.
    pub winner: Option<Team>,
}

impl HandTotals {
    /// The totals of `m` after its hand `number`.
    pub fn of(m: &MatchRow, number: i64) -> HandTotals {
        HandTotals {
            version: m.version,
            number,
            a: SideTotals {
                score: m.score_a,
                bags: m.bags_a,
            },
            b: SideTotals {
                score: m.score_b,
                bags: m.bags_b,
            },
            game_status: m.game_status,
            winner: m.winner,
        }
    }

    /// The totals of `view`, the match as a full answer shows it after its last hand.
    fn of_view(view: &MatchView) -> HandTotals {
        HandTotals {
            version: view.version,
            number: view.hands.len() as i64,
            a: SideTotals {
                score: view.a.score.into(),
                bags: view.a.bags.into(),
            },
            b: SideTotals {
                score: view.b.score.into(),
                bags: view.b.bags.into(),
            },
            game_status: view.game_status,
            winner: view.winner,
        }
    }
}

/// The answer to a recorded hand, in the shape asked for.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum HandAnswer {
    Full(Box<MatchView>),
    Minimal(HandTotals),
}

impl HandAnswer {
    pub fn shape(&self) -> AnswerShape {
        match self {
            HandAnswer::Full(_) => AnswerShape::Full,
            HandAnswer::Minimal(_) => AnswerShape::Minimal,
        }
    }

    /// The light answer, whatever this one is: the console's outbox reads the totals, even
    /// of a key whose first request (through the API) asked for the full answer.
    pub fn into_minimal(self) -> HandAnswer {
        match self {
            HandAnswer::Full(view) => HandAnswer::Minimal(HandTotals::of_view(&view)),
            minimal => minimal,
        }
    }
}
