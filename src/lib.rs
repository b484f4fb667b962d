//! spades-im: scoring, standings and playoffs for intramural Spades leagues.
//!
//! `rules` (the scoring engine) and `league` know nothing of HTTP or SQL; `db` knows SQL and
//! nothing of HTTP; `service` is the operations both the pages and the API call; `web` turns
//! requests into calls of them. Each module's own doc says more; the map:
//!
//! - `rules`: the scoring engine (docs/scoring.md §2–§6), the crate `spades_rules` of rules/
//!   (so it also compiles to WebAssembly): `params` (rules and presets),
//!   `team`, `hand`, `form` (the hand form read, on the server and the phone), `game`,
//!   `state`, `strict` (JSON read strictly), `describe` (the rules in words) and `calculator`
//!   (the stateless scorer).
//! - `league`: pure tournament logic: `standings` and tiebreakers, `schedule` (round robin),
//!   `eligibility`, `race` (the playoff race, exactly), `settings`, `divisions` (ranks and
//!   seeds within a division), `swiss` (the next Swiss round's pairs), `queue` (which match each table has, and whom to call next), and `bracket` (`mod`: the draw and formats; `state`: results
//!   applied to it; `tests`).
//! - `domain`: the vocabulary every layer shares: `ids`, `states`, `text` (enums stored as
//!   text), `time`, `clock`, `words`, `name` (names as checked), `slug`, `student` (student
//!   ids), `table_name`, `idempotency_key` (a client's key of one attempt).
//! - `db`: the queries, on SQLite or PostgreSQL (`sqlite`, `postgres`; `on_store!` runs one
//!   query on either; `migrations`, each store's schema as embedded by build.rs):
//!   `leagues`, `divisions`, `captains` (captains' links and sessions), `matches` (schedule, state, check-ins, ratings), `match_write` (a
//!   match as a write opens it, its names and supervisor), `board` (the
//!   scoreboard's reads), `rating_notes`, `requests` (captains' reschedule requests and disputes), `swiss` (Swiss rounds and
//!   their byes), `queue` (a day's matches as the queue sees them, calls), `desk` (teams checked in at a tournament's door), `hands`, `lineups`, `players`,
//!   `player_eligibility`, `idempotency` and `action_keys` (the keys of hands and of other
//!   actions), `audit`, `playoffs`, `tonight`, `users`, `notices`, `league_doc` (a league's
//!   rows as JSON); `group_commit` (the writes of league night, batched) and `copy`
//!   (`migrate-to`).
//! - `service`: the operations and read models, by domain (each folder's doc says what it
//!   owns):
//!   - `night` (league night): `access` (who may write to a match, its league, a request's
//!     team, the idempotency window), `match_view`, `matches` (`start`, `record`, `correct`,
//!     `time`, `forfeit`, `default`, `answer`), `lineups`, `conduct`, `disputes`, `action_keys`, `calls` (the queue's calls, in the transaction of a result), `queue` (tables, the queue, calls by hand), `tonight`,
//!     `console_views`;
//!   - `people`: `accounts`, `users`, `throttle` and `device_cookie` (login guessing),
//!     `oidc` (campus sign-in), `captains` (a captain's link, session and teams), `players`;
//!   - `term` (a league's term): `leagues`, `teams`, `divisions`, `roster` (`reading`, `import`,
//!     `export`, `edits`), `schedule`, `admin_schedule`, `reschedule`, `requests` (a captain's reschedule requests), `swiss` (pairing the next round), `desk`
//!     (the check-in desk), `supervisors`, `seasons`;
//!   - `playoffs`: `create`, `advance`, `view`, `labels`, `stored`, `eligibility` (teams)
//!     and `player_eligibility`;
//!   - `views` (read models): `standings`, `summaries`, `league_home`, `public_views`,
//!     `admin_views`, `player_stats`, `calendar`;
//!   - `notices` (email: `events`, `bracket`, `listing`, `message`, `password_mail`,
//!     `relay`, `sender`, `subscriptions`), `league_doc` (a league as one JSON document:
//!     `columns`, `gate`, `plan`);
//!   - and beside them `audit`, `text` (stored text checked), `check` (caches rebuilt and
//!     compared), `error`.
//! - `web`: `api` (the JSON API, one module per resource (`captain`: a captain's teams; `queue`: tables and the queue), `openapi` and the shared
//!   `responses` of its document), `pages` (`public`, `console`, `admin`; `home`, `calculator`,
//!   `account`, `campus`, `captain` (its `teams` and `forms`), `unsubscribe`, `hand_form`), `view` (what pages show: nav, bracket drawing, chart, scoresheet,
//!   times, the coordinator's schedule), `middleware` (security headers, `same_origin`,
//!   `credentials`, `private`, `head`, `panics`, `page_cache`, `observe`), `extract` (who is asking),
//!   `error`, `respond`, `page_routes`, `client_address`, `metrics` (`GET /metrics`).
//! - `cli`: the `spades-im` command (`main.rs` only parses and runs it): `settings` (the
//!   flags and their checks), one file per command group (`serve`, `score`, `store`, `users`,
//!   `seasons`, `mail`) and `tests` (the flag combinations).
//! - `app` (building and running the server), `demo` (with `tournament`, the sample
//!   tournament night) and `generate` (sample and benchmark seasons), `invocation` (how to run a command again); `structure` (tests of the source:
//!   no import circles, this map names every module).

pub mod app;
pub mod cli;
pub mod db;
pub mod demo;
pub mod domain;
pub mod generate;
pub mod invocation;
pub mod league;
pub mod service;
#[cfg(test)]
mod structure;
pub mod web;

/// The scoring engine, the crate `spades_rules` (rules/), under its old name so every
/// `crate::rules::…` path reads as before.
pub use spades_rules as rules;

/// The layers of docs/architecture.md §1, read from the source: what each folder of `src/`
/// names of the crate (`crate::x`) must be in its list.
#[cfg(test)]
pub(crate) mod layers {
    #![allow(clippy::unwrap_used)]

    use std::path::Path;

    /// Each layer and the paths of the crate it may name (a path allows its children).
    /// The engine (`rules`) is the crate rules/, which cannot name this crate at all.
    const ALLOWED: &[(&str, &[&str])] = &[
        // The command line, on top of everything: it may name every module.
        (
            "cli",
            &[
                "cli",
                "app",
                "db",
                "on_store",
                "demo",
                "domain",
                "generate",
                "invocation",
                "league",
                "rules",
                "service",
                "web",
            ],
        ),
        ("league", &["league", "rules", "domain"]),
        ("domain", &["domain", "rules", "league"]),
        ("db", &["db", "on_store", "domain", "rules", "league"]),
        (
            "service",
            &["service", "db", "on_store", "domain", "rules", "league"],
        ),
        (
            "web",
            &[
                "web",
                "service",
                "domain",
                "rules",
                "league",
                "invocation",
                "db::Db",
                "db::StoreKind",
            ],
        ),
    ];

    /// Every `crate::a::b…` path in `text`, without its last segment when that is an item
    /// name alone (so `crate::db::Db` stays whole and `crate::db::leagues::TeamRow` is
    /// `db::leagues::TeamRow`).
    fn crate_paths(text: &str) -> Vec<String> {
        let mut found = Vec::new();
        let mut rest = text;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let end = after
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(after.len());
            found.push(after[..end].trim_end_matches(':').to_string());
            rest = &after[end..];
        }
        found
    }

    fn allows(allowed: &[&str], path: &str) -> bool {
        allowed
            .iter()
            .any(|a| path == *a || path.starts_with(&format!("{a}::")))
    }

    pub(crate) fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    #[test]
    fn each_layer_names_only_the_layers_below_it() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut broken = Vec::new();
        for (layer, allowed) in ALLOWED {
            let mut paths = Vec::new();
            files(&src.join(layer), &mut paths);
            assert!(!paths.is_empty(), "no files in src/{layer}");
            for file in paths {
                let text = std::fs::read_to_string(&file).unwrap();
                for used in crate_paths(&text) {
                    if !allows(allowed, &used) {
                        let shown = file.strip_prefix(&src).unwrap().display().to_string();
                        broken.push(format!("src/{shown} names crate::{used}"));
                    }
                }
            }
        }
        assert!(broken.is_empty(), "layers broken:\n{}", broken.join("\n"));
    }

    /// Handlers hand `&Db` to a service and never hold a connection themselves (the
    /// convention in `service/mod.rs`): no `db.read()`, `db.read_latest()` or `db.write()`
    /// in `web/`.
    #[test]
    fn the_web_layer_opens_no_connection() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut paths = Vec::new();
        files(&src.join("web"), &mut paths);
        let opens: Vec<String> = paths
            .iter()
            .filter(|file| {
                let text = std::fs::read_to_string(file).unwrap();
                ["db.read()", "db.read_latest()", "db.write()"]
                    .iter()
                    .any(|call| text.contains(call))
            })
            .map(|file| file.strip_prefix(&src).unwrap().display().to_string())
            .collect();
        assert!(opens.is_empty(), "handlers opening a connection: {opens:?}");
    }

    #[test]
    fn paths_are_read_whole() {
        let text = "use crate::db::leagues::TeamRow;\nlet x = crate::db::Db::open();";
        assert_eq!(crate_paths(text), ["db::leagues::TeamRow", "db::Db::open"]);
        assert!(allows(&["db::Db"], "db::Db::open"));
        assert!(!allows(&["db::Db"], "db::leagues::TeamRow"));
        assert!(!allows(&["db"], "dbx"));
    }
}
