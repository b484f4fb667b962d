//! What pages show, built from the services' data: the site header (`nav`), the bracket
//! drawing, a match's score chart and scoresheet, times in words, and the coordinator's
//! schedule page (`schedule_admin`).

pub mod bracket;
pub mod chart;
pub mod nav;
pub mod schedule_admin;
pub mod scoresheet;
pub mod time;
