//! Pure tournament logic: standings, tiebreakers, schedules (and, next, brackets). No web,
//! SQL or clock.

pub mod schedule;
pub mod standings;
