//! spades-im: scoring, standings and playoffs for intramural Spades leagues.
//!
//! `rules` (the scoring engine) and `league` know nothing of HTTP or SQL; `db` knows SQL and
//! nothing of HTTP; `service` is the operations both the pages and the API call; `web` turns
//! requests into calls of them. Each module's own doc says more; the map:
//!
//! - `rules`: the scoring engine (docs/scoring.md §2–§6): `params` (rules and presets),
//!   `hand`, `game`, `state`, `strict` (JSON read strictly), `describe` (the rules in words)
//!   and `calculator` (the stateless scorer).
//! - `league`: pure tournament logic: `standings` and tiebreakers, `schedule` (round robin),
//!   `eligibility`, `settings`, and `bracket` (`mod`: the draw and formats; `state`: results
//!   applied to it; `tests`).
//! - `domain`: the vocabulary every layer shares: `ids`, `states`, `text` (enums stored as
//!   text), `time`, `clock`, `field_error`, `words`.
//! - `db`: the queries, on SQLite or PostgreSQL (`sqlite`, `postgres`; `on_store!` runs one
//!   query on either): `leagues`, `matches` (schedule, state, check-ins, ratings), `hands`,
//!   `idempotency`, `audit`, `playoffs`, `tonight`, `users`; `group_commit` (the writes of
//!   league night, batched) and `copy` (`migrate-to`).
//! - `service`: the operations and read models: `leagues`, `teams`, `roster`, `schedule`,
//!   `admin_schedule`, `reschedule`, `matches` and `match_view`, `conduct`, `standings`,
//!   `eligibility`, `playoffs` (`create`, `advance`, `view`, `stored`), `summaries`,
//!   `league_home`, `public_views`, `admin_views`, `console_views`, `tonight`, `calendar`,
//!   `accounts`, `throttle` and `device_cookie` (login guessing), `text` (stored text
//!   checked), `audit`, `check` (caches rebuilt and compared), `error`.
//! - `web`: `api` (the JSON API, one module per resource, `openapi` and the shared
//!   `responses` of its document), `pages` (`public`, `console`, `admin`; `home`, `calculator`,
//!   `account`, `hand_form`), `view` (what pages show: nav, bracket drawing, chart, scoresheet,
//!   times, the coordinator's schedule), `middleware` (security headers, `same_origin`,
//!   `credentials`, `private`, `head`, `panics`, `page_cache`), `extract` (who is asking),
//!   `error`, `respond`, `page_routes`, `client_address`.
//! - `app` (building and running the server), `demo` and `generate` (sample and benchmark
//!   seasons), `invocation` (how to run a command again).

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
