// A benchmark, like a test, may stop at the first impossible state.
#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The page cache under distinct query strings (issue 52): how far one client moves the
//! server's resident memory.
//!
//! `cargo bench --bench page_memory` generates a season (64 teams, 2,000 matches, 30,000
//! hands), starts the release binary on it (default `--page-cache-mb 64`), asks each public
//! page once, then sends 10,000 GETs, one at a time, each with a query string not sent before:
//! most add a parameter no page reads (`?x=N`: the attack of issue 52, on the 20 MB matches
//! list among others), some ask real pages no one asked before (a match page, a week of the
//! schedule, a page of matches `?limit=L&after=ID`, each a copy of its own; `x=N` on them too,
//! so no two query strings are the same). It prints the
//! server's `VmRSS` and `VmHWM` (/proc/PID/status) before and at checkpoints.
//!
//! `MEMORY_REQUESTS=N` stops after N requests (a build without the bound takes up to a second
//! a request and grows by the 20 MB answer each time); `MEMORY_FLAGS` adds server flags
//! (`--page-cache-mb 8`); `BENCH_BIN` runs another build (an earlier commit's) instead.

use std::time::Instant;

mod support;

use support::{Server, generate, start_with};

/// `VmRSS` and `VmHWM` of process `pid`, in MiB.
fn memory(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(f64::NAN, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// The `i`th path asked: a public page and a query string no request before had.
fn target(i: usize) -> String {
    let m = 1 + i % 2000;
    match i % 20 {
        0..=5 => format!("/api/v1/leagues/bench/matches?x={i}"),
        6 => format!("/leagues/bench/standings?x={i}"),
        7 => format!("/api/v1/leagues/bench/standings?x={i}"),
        8 => format!("/leagues/bench/schedule?week=all&x={i}"),
        9 => format!("/scoreboard?x={i}"),
        10 | 11 => format!("/matches/{m}?x={i}"),
        12 => format!("/leagues/bench/teams/{}?x={i}", 1 + i % 64),
        13 => format!("/api/v1/leagues?x={i}"),
        14 => format!("/leagues/bench?x={i}"),
        // Real pages, each its own copy: a page of matches, a week of the schedule.
        15 => format!(
            "/api/v1/leagues/bench/matches?limit={}&after={m}&x={i}",
            100 + i % 400
        ),
        16 => format!(
            "/leagues/bench/schedule?week=2026-{:02}-{:02}&x={i}",
            1 + i % 12,
            1 + i % 28
        ),
        _ => format!("/api/v1/matches/{m}?y={i}"),
    }
}

const CHECKPOINTS: [usize; 8] = [10, 20, 40, 100, 1000, 2500, 5000, 10_000];

async fn run(server: &Server, requests: usize) {
    let client = reqwest::Client::new();
    let get = |path: String| {
        let client = client.clone();
        let url = format!("{}{path}", server.base);
        async move {
            let r = client.get(&url).send().await.expect("GET");
            let status = r.status().as_u16();
            let bytes = r.bytes().await.expect("body").len();
            (status, bytes)
        }
    };
    for path in [
        "/api/v1/leagues/bench/matches",
        "/leagues/bench/schedule?week=all",
    ] {
        let (status, bytes) = get(path.to_string()).await;
        println!("{path}: {status}, {:.1} MB", bytes as f64 / 1e6);
    }
    for i in 0..17 {
        get(target(i).split('?').next().unwrap_or_default().to_string()).await;
    }
    let (rss, hwm) = memory(server.pid());
    println!("\n| requests | seconds | VmRSS MiB | VmHWM MiB | non-200 |\n|---|---|---|---|---|");
    println!("| 0 (each page once) | 0 | {rss:.0} | {hwm:.0} | 0 |");
    let (started, mut refused) = (Instant::now(), 0);
    for i in 0..requests {
        if get(target(i)).await.0 != 200 {
            refused += 1;
        }
        if CHECKPOINTS.contains(&(i + 1)) || i + 1 == requests {
            let (rss, hwm) = memory(server.pid());
            let secs = started.elapsed().as_secs_f64();
            println!(
                "| {} | {secs:.0} | {rss:.0} | {hwm:.0} | {refused} |",
                i + 1
            );
        }
    }
}

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("memory.sqlite3");
    println!("season: {}", generate(&db, 64, 2000, 30_000));
    let flags = std::env::var("MEMORY_FLAGS").unwrap_or_default();
    let server = start_with(&db, &flags.split_whitespace().collect::<Vec<_>>());
    let requests = std::env::var("MEMORY_REQUESTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(run(&server, requests));
}
