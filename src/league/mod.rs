//! Pure tournament logic: standings, tiebreakers, schedules and brackets. No web,
//! SQL or clock.

pub mod bracket;
pub mod divisions;
pub mod eligibility;
pub mod queue;
pub mod race;
pub mod schedule;
pub mod settings;
pub mod standings;
pub mod swiss;
