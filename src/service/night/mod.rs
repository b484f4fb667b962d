//! League night: a match from its start to its last hand, and the supervisor's evening.
//!
//! `access` holds the rules every write to a match shares (who may write to it, its league,
//! a team named in a request, how long an idempotency key is kept); `match_view` reads a
//! match as the API and the pages show it; `matches` starts one, records, corrects and
//! times its hands and records forfeits; `lineups` and `conduct` (check-ins, sportsmanship
//! ratings) are the other writes of the table, each keyed by `action_keys`; `tonight` and
//! `console_views` are what the supervisor's pages read.

pub mod access;
pub mod action_keys;
pub mod calls;
pub mod conduct;
pub mod console_views;
pub mod disputes;
pub mod lineups;
pub mod match_view;
pub mod matches;
pub mod queue;
pub mod tonight;
