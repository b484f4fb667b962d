//! Playoffs (docs/scoring.md §9): a bracket seeded from the regular-season standings,
//! whose real matches are created as their two teams become known. Winners advance by
//! themselves: [`advance()`] runs in the transaction of every hand, correction or forfeit of a
//! playoff match. The bracket's structure is rebuilt by [`crate::league::bracket`] from its
//! stored parameters; the results are the winners of its real matches.
//!
//! `create` checks the input and seeds and stores a new bracket; `advance` moves winners on;
//! `view` shows a bracket; `stored` reads a stored bracket back, replays it and brings it in
//! line (shared by the three). Who may enter: `eligibility` (a team, judged by the league's
//! settings) and `player_eligibility` (a player in a playoff lineup).

mod advance;
mod create;
pub mod eligibility;
mod labels;
pub mod player_eligibility;
mod stored;
mod view;

pub use advance::{PathReset, advance, in_bracket};
pub use create::{PlayoffsInput, Unplayed, create_playoffs, preview_playoffs, unplayed_regular};
pub use labels::{label_of, labels_of_league};
pub use stored::{check_bracket, check_imported};
pub use view::{BracketMatchView, BracketView, bracket, bracket_of, champion};
