//! What pages share to show things: the site header (nav).

pub mod nav;
