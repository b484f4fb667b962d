//! The scoring engine: pure Rust, no web, database or clock. docs/scoring.md §2–§6.
//!
//! [`Game`] scores hands one at a time and reports the game's state as data (in progress, a
//! tie-break hand next, won, tied); only invalid input is an error.

pub mod calculator;
pub mod describe;
pub mod error;
pub mod form;
pub mod game;
pub mod hand;
pub mod params;
pub mod rules_form;
pub mod state;
pub mod strict;
pub mod team;
pub mod text;

pub use calculator::{ScoreRequest, ScoreResponse, score_json, score_request};
pub use error::{ErrorCode, Field, FieldError, TeamWords};
pub use game::{Game, ScoredHand, TeamResult, score_game};
pub use hand::{Bid, Hand, HandError, HandInput, PlayedHand, TeamHand};
pub use params::{Preset, Rules, RulesSpec, preset, presets};
pub use state::{GameState, Phase, Stage, TeamTotal, WinReason};
pub use team::Team;

#[cfg(test)]
mod tests;
