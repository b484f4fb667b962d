// A benchmark, like a test, may stop at the first impossible state.
#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The speed guard of CI (issue 33): a short bench that prints the hand-entry and page
//! figures and fails when one falls below its floor, so that a regression is seen the day
//! it lands. A benchmark with floors, not a timed test: the floors are about half of what
//! the machine of BENCHMARKS.md measures, far under it, so that only a real loss trips one.
//!
//! `cargo test --bench guard` — what `.ci/run` runs, from its one build (`cargo bench
//! --profile dev --bench guard` is the same, compiled again in bench mode): the binary
//! `cargo test` has just built (no optimized build to make, which would cost CI about ten
//! minutes), with the floors of that build. `cargo bench --bench guard` runs the release binary against the
//! release floors.
//!
//! On a season of 32 teams, 600 matches and 9,000 hands served without the page cache (the
//! pages' own cost, not the cache's), it measures:
//! - six pages, one visitor at a time, 2 s each: requests a second;
//! - hand entry with the light answer (what the console's outbox asks for), every write
//!   durable, by 1 and by 16 closed-loop supervisors, 4 s each: hands a second;
//! - hands 451–500 of one match against hands 1–50 of another, entered in turn: their
//!   speed over that of the first, which stays near 1 while a hand's cost does not grow
//!   with its match.
//!
//! `GUARD_SECONDS` scales the time of each measurement (default 1: the times above).

use std::time::{Duration, Instant};

use serde_json::json;

mod support;

use support::{
    Answer, Server, Stats, api, bench_teams, generate, get_loop, hand, post_hands, start_match,
    start_with,
};

/// One guarded figure: what is measured, and its floor on each build.
struct Floor {
    name: &'static str,
    /// On the release build (`cargo bench --bench guard`).
    release: f64,
    /// On the test build (`cargo test --bench guard`, as in CI).
    test: f64,
}

const fn floor(name: &'static str, release: f64, test: f64) -> Floor {
    Floor {
        name,
        release,
        test,
    }
}

impl Floor {
    fn value(&self) -> f64 {
        if cfg!(debug_assertions) {
            self.test
        } else {
            self.release
        }
    }
}

// The floors: about half the lower of two runs on the machine of BENCHMARKS.md (2026-11-27,
// nothing else running), each build its own ("The speed guard of CI" there has the runs).

/// The pages guarded: a floor in requests a second at one visitor.
const PAGES: [(&str, Floor); 6] = [
    ("/leagues/bench", floor("league home", 180.0, 100.0)),
    (
        "/leagues/bench/standings",
        floor("standings page", 240.0, 150.0),
    ),
    (
        "/leagues/bench/schedule",
        floor("schedule page", 280.0, 165.0),
    ),
    ("/leagues/bench/teams/1", floor("team page", 165.0, 90.0)),
    ("/matches/10", floor("match page", 440.0, 195.0)),
    (
        "/api/v1/leagues/bench/standings",
        floor("standings API", 265.0, 165.0),
    ),
];

/// Hand entry: a floor in hands a second, by supervisors.
const HANDS: [(usize, Floor); 2] = [
    (1, floor("hands, 1 supervisor", 290.0, 185.0)),
    (16, floor("hands, 16 supervisors", 470.0, 375.0)),
];

/// The speed of hands 451–500 of one match over that of hands 1–50.
const FLAT: Floor = Floor {
    name: "hand 451–500 speed / hand 1–50 speed",
    release: 0.5,
    test: 0.5,
};

fn scaled(seconds: u64) -> u64 {
    let factor: u64 = std::env::var("GUARD_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    seconds * factor.max(1)
}

/// The median time of `times` in ms.
fn median_ms(times: &[Duration]) -> f64 {
    let mut sorted = times.to_vec();
    sorted.sort();
    sorted[sorted.len() / 2].as_secs_f64() * 1000.0
}

/// A started match of the bench league, with the client that enters its hands.
struct Table<'a> {
    server: &'a Server,
    client: reqwest::Client,
    id: i64,
    version: i64,
    hands: usize,
}

impl<'a> Table<'a> {
    async fn start(server: &'a Server, teams: (i64, i64)) -> Table<'a> {
        let client = reqwest::Client::new();
        let m = api(
            server,
            "POST",
            "/api/v1/leagues/bench/matches",
            json!({"team_a": teams.0, "team_b": teams.1}),
        )
        .await;
        let id = m["id"].as_i64().expect("match id");
        let auth = format!("Bearer {}", server.token);
        let version = start_match(&client, &server.base, &auth, id).await;
        Table {
            server,
            client,
            id,
            version,
            hands: 0,
        }
    }

    /// Enters the next hand with the light answer; returns the time it took.
    async fn hand(&mut self) -> Duration {
        let started = Instant::now();
        let r = self
            .client
            .post(format!(
                "{}/api/v1/matches/{}/hands",
                self.server.base, self.id
            ))
            .header("authorization", format!("Bearer {}", self.server.token))
            .header("prefer", "return=minimal")
            .json(&json!({"hand": hand(self.hands), "expected_version": self.version}))
            .send()
            .await
            .expect("hand");
        assert_eq!(r.status(), 201, "hand {}", self.hands + 1);
        let totals: serde_json::Value = r.json().await.expect("the totals");
        let took = started.elapsed();
        self.version = totals["version"].as_i64().expect("version");
        self.hands += 1;
        took
    }
}

/// The median times (ms) of hands 1–50 of one match and of hands 451–500 of another,
/// entered in turn (one hand of each), so that whatever else slows the machine slows both.
async fn flatness(server: &Server, teams: (i64, i64)) -> (f64, f64) {
    let mut long = Table::start(server, teams).await;
    for _ in 0..450 {
        long.hand().await;
    }
    let mut new = Table::start(server, teams).await;
    let (mut first, mut last) = (Vec::new(), Vec::new());
    for _ in 0..50 {
        first.push(new.hand().await);
        last.push(long.hand().await);
    }
    (median_ms(&first), median_ms(&last))
}

/// Prints a row of the table and says whether it is at or over its floor.
fn check(floor: &Floor, measured: f64, detail: &str) -> bool {
    let ok = measured >= floor.value();
    println!(
        "| {} | {measured:.2} | {:.2} | {detail} | {} |",
        floor.name,
        floor.value(),
        if ok { "ok" } else { "**BELOW THE FLOOR**" }
    );
    ok
}

fn detail(s: &Stats) -> String {
    format!(
        "p50 {:.2} ms, p99 {:.2} ms, {} errors",
        s.p50_ms, s.p99_ms, s.errors
    )
}

async fn guard() -> bool {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("guard.sqlite3");
    let t = Instant::now();
    let summary = generate(&db, 32, 600, 9_000);
    println!(
        "season: {summary} (generated in {:.1} s); {} build, floors of that build",
        t.elapsed().as_secs_f64(),
        if cfg!(debug_assertions) {
            "test"
        } else {
            "release"
        }
    );
    let server = start_with(&db, &["--no-page-cache"]);
    let teams = bench_teams(&server).await;
    println!("\n| figure | measured | floor | | |\n|---|---|---|---|---|");
    let mut ok = true;
    for (path, floor) in &PAGES {
        let s = get_loop(&format!("{}{path}", server.base), 1, scaled(2)).await;
        ok &= check(floor, s.rps, &format!("`{path}` req/s; {}", detail(&s)));
    }
    // Before the load of many supervisors, whose writes the checkpoint still copies after.
    let (first, last) = flatness(&server, (teams[0], teams[1])).await;
    let times = format!("median ms a hand: hands 1–50 {first:.2}, hands 451–500 {last:.2}");
    ok &= check(&FLAT, first / last, &times);
    for (supervisors, floor) in &HANDS {
        let s = post_hands(&server, &teams, *supervisors, scaled(4), Answer::Light).await;
        ok &= check(floor, s.rps, &format!("hands/s; {}", detail(&s)));
    }
    ok
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    if !runtime.block_on(guard()) {
        eprintln!("a figure fell below its floor (the table above); see benches/guard.rs");
        std::process::exit(1);
    }
}
