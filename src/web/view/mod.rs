//! What pages share to show things: the site header (nav).

pub mod bracket;
pub mod chart;
pub mod nav;
pub mod scoresheet;
pub mod time;
