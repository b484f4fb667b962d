// Test code may stop at the first impossible state.
#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Integration tests over real HTTP against a real SQLite file: one test binary, one module
//! per area (keeps link times down).

mod admin;
mod admin_conduct;
mod admin_schedule;
mod api_shape;
mod bracket_page;
mod browser;
mod browser_a11y;
mod browser_bracket;
mod browser_conduct;
mod browser_league;
mod browser_live;
mod browser_outbox;
mod browser_phone;
mod browser_print;
mod browser_schedule;
mod calendar;
mod check;
mod clock;
mod concurrency;
mod conduct;
mod console;
mod corrections;
mod db_arg;
mod double_elimination;
mod eligibility;
mod first_steps;
mod generate;
mod hardening;
mod helpers;
mod league_api;
mod league_walk;
mod login_next;
mod login_throttle;
mod migrate_to;
mod page_cache;
mod pages;
mod playoffs;
mod playoffs_admin;
mod playoffs_path;
#[path = "../support/postgres.rs"]
mod postgres_support;
mod public;
mod public_conduct;
mod reschedule;
mod restore;
mod score;
mod settings;
mod standings_records;
mod tiebreaks;
mod two_instances;
mod upgrade;
mod webdriver;
mod wording;
