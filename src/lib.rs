//! spades-im: scoring, standings and playoffs for intramural Spades leagues.
//!
//! `rules` (the scoring engine) knows nothing of HTTP or SQL; `db` knows SQL and nothing of
//! HTTP; `web` turns requests into calls of the two.

pub mod app;
pub mod db;
pub mod demo;
pub mod domain;
pub mod generate;
pub mod invocation;
pub mod league;
pub mod rules;
pub mod service;
pub mod web;
