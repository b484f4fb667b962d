//! Where a game stands: its stage, the teams' totals, whether and how it was won
//! (docs/scoring.md §4).

use serde::{Deserialize, Serialize};

use super::team::Team;

/// Which stage of a season a game belongs to; only the regular season may end in a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    #[default]
    Regular,
    Playoff,
    Final,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Regular => "regular",
            Stage::Playoff => "playoff",
            Stage::Final => "final",
        }
    }
}

/// A team's score and bag counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TeamTotal {
    #[serde(default)]
    pub score: i32,
    #[serde(default)]
    #[schema(maximum = 4_294_967_295_u64, format = Int64)]
    pub bags: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum WinReason {
    Target,
    Time,
    Tiebreak,
    Floor,
    Moon,
    Forfeit,
}

impl WinReason {
    pub fn as_str(self) -> &'static str {
        match self {
            WinReason::Target => "target",
            WinReason::Time => "time",
            WinReason::Tiebreak => "tiebreak",
            WinReason::Floor => "floor",
            WinReason::Moon => "moon",
            WinReason::Forfeit => "forfeit",
        }
    }
}

/// A game's state without its data, as the API names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    InProgress,
    Tiebreak,
    Won,
    Tied,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::InProgress => "in_progress",
            Phase::Tiebreak => "tiebreak",
            Phase::Won => "won",
            Phase::Tied => "tied",
        }
    }

    pub fn is_over(self) -> bool {
        matches!(self, Phase::Won | Phase::Tied)
    }
}

/// Where a game stands. A tie-break hand and a draw are outcomes, not errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameState {
    InProgress,
    /// Tied where a draw is not allowed: the next hand decides.
    Tiebreak,
    Won {
        winner: Team,
        reason: WinReason,
    },
    /// A draw (regular season, `regular_season_ties = draw`).
    Tied,
}

impl GameState {
    pub fn phase(self) -> Phase {
        match self {
            GameState::InProgress => Phase::InProgress,
            GameState::Tiebreak => Phase::Tiebreak,
            GameState::Won { .. } => Phase::Won,
            GameState::Tied => Phase::Tied,
        }
    }

    pub fn is_over(self) -> bool {
        matches!(self, GameState::Won { .. } | GameState::Tied)
    }

    pub fn winner(self) -> Option<Team> {
        match self {
            GameState::Won { winner, .. } => Some(winner),
            _ => None,
        }
    }

    pub fn reason(self) -> Option<WinReason> {
        match self {
            GameState::Won { reason, .. } => Some(reason),
            _ => None,
        }
    }
}

impl WinReason {
    /// Why the game was won, as every page says it.
    pub fn words(self) -> &'static str {
        match self {
            WinReason::Target => "reached the target",
            WinReason::Time => "time called",
            WinReason::Tiebreak => "tie-break hand",
            WinReason::Floor => "other team at the loss floor",
            WinReason::Moon => "moon",
            WinReason::Forfeit => "forfeit",
        }
    }
}

impl Stage {
    pub fn words(self) -> &'static str {
        match self {
            Stage::Regular => "regular season",
            Stage::Playoff => "playoffs",
            Stage::Final => "final",
        }
    }
}
