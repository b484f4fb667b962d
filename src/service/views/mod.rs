//! The read models: what the pages and the API read about a league, one call per page,
//! writing nothing.
//!
//! `standings` (the regular season ranked), `summaries` (matches as lists show them),
//! `league_home` (the list of leagues and a league's home), `public_views` (the other public
//! league pages), `admin_views` (the coordinator's pages), `player_stats` (what each player
//! bid and took) and `calendar` (the calendar feeds).

pub mod admin_views;
pub mod calendar;
pub mod league_home;
pub mod player_stats;
pub mod public_views;
pub mod standings;
pub mod summaries;
