//! A league's term: the league and its rules, its teams and divisions, the roster, the
//! schedule and its changes, and what follows the season.
//!
//! `leagues` (rules per stage, supervisors), `teams`, `divisions`, `roster` (teams and
//! players by CSV, and a team's edits); `schedule` (the round robin, a match by hand),
//! `admin_schedule` (what the coordinator's schedule page reads), `reschedule` (changes
//! during the season) and `supervisors` (who runs which match); `seasons` (archiving a
//! league, the next term).

pub mod admin_schedule;
pub mod desk;
pub mod divisions;
pub mod leagues;
pub mod requests;
pub mod reschedule;
pub mod roster;
pub mod schedule;
pub mod schedule_warnings;
pub mod seasons;
pub mod supervisors;
pub mod swiss;
pub mod teams;
