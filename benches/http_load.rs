// A benchmark, like a test, may stop at the first impossible state.
#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The HTTP load benchmark (issue 5), against the real release binary on a generated season.
//!
//! `cargo bench --bench http_load` — needs `wrk` (`apt-get install wrk`). It generates a
//! season (64 teams, 2,000 matches, 30,000 hands) with `spades-im generate`, starts
//! `spades-im serve` on it, draws a 64-team double-elimination bracket through the API, then
//! measures with wrk, at 1, 16, 64 and 256 connections, the bare `GET /healthz` (the
//! framework's ceiling) and the public pages, each reported as a ratio of `/healthz`; and
//! `POST /api/v1/matches/{id}/hands` (durable: `synchronous=FULL`) with one closed-loop
//! supervisor per connection, each on its own match, sending the version it got back.
//!
//! `cargo bench --bench http_load -- scale` instead times the pages at one connection for
//! seasons of 16, 256 and 1,024 teams with 10,000, 100,000 and 1,000,000 hands, with the page
//! cache on (what visitors get) and off (`--no-page-cache`: the pages' own cost);
//! `BENCH_SCALE=1024x1000000` (teams x hands) times only that season.
//!
//! `cargo bench --bench http_load -- playout` plays a 256-team double elimination through
//! the API, as brackets-manager does in `benches/peer` (create, report every match, final
//! standings): each match started and decided by one hand (playoff rules `partnership` to
//! 100, so a made 10 wins), every write durable. One supervisor at a time, as the peer's
//! loop, then 16 at once (tables of a league night).
//!
//! `cargo bench --bench http_load -- hands` measures hand entry alone (same season), each
//! row twice: with the whole match as the answer (the API's default) and with the light
//! answer (`Prefer: return=minimal`, what the console's outbox asks for); `HANDS_ANSWER=full`
//! or `light` measures one of them only.
//!
//! `BENCH_PG=postgres://… cargo bench --bench http_load -- stores` puts SQLite and
//! PostgreSQL side by side on that season: hand entry with one instance, and with two
//! instances on one PostgreSQL database; the pages on one instance. `BENCH_STORES` picks
//! some of them (`sqlite`, `postgresql`, `postgresql-2`; comma-separated), `HANDS_ANSWER` one
//! answer.
//!
//! `cargo bench --bench http_load -- growth` plays one match of 500 hands through the API,
//! each hand with an idempotency key, on a fresh SQLite file, then a second one asking for
//! the light answer (`Prefer: return=minimal`), and prints for hands 1–10, 241–250 and
//! 491–500 the time a hand takes (median, one at a time), its answer's size, what each hand
//! adds to the database (its pages, `page_count × page_size`, WAL included; and the bytes
//! SQLite stores in them, `dbstat`'s payload), and the stored size of each hand's
//! idempotency key: a hand's cost should not grow with its match, so all of them stay flat.
//!
//! Environment: `LOAD_SECONDS` (per measurement, default 5), `LOAD_CONNS` (default
//! `1,16,64,256`), `SERVER_LOG` (the server's log filter, shown on stderr). Figures only: nothing here fails on a time.

use std::process::Command;
use std::time::Instant;

use serde_json::{Value, json};

#[path = "../tests/support/postgres.rs"]
mod postgres_support;
mod support;

use support::{
    Answer, Server, Stats, api, bench_teams, connection_counts, generate, hand, post_hands,
    post_hands_to, seconds, start, start_match, start_with,
};

fn duration_ms(text: &str) -> f64 {
    let text = text.trim();
    let (number, factor) = if let Some(n) = text.strip_suffix("us") {
        (n, 0.001)
    } else if let Some(n) = text.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = text.strip_suffix("m") {
        (n, 60_000.0)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1000.0)
    } else {
        (text, 1.0)
    };
    number.trim().parse::<f64>().unwrap_or(f64::NAN) * factor
}

fn wrk(url: &str, connections: usize, seconds: u64) -> Stats {
    let threads = connections.clamp(1, 2);
    let out = Command::new("wrk")
        .args([
            &format!("-t{threads}"),
            &format!("-c{connections}"),
            &format!("-d{seconds}s"),
            "--latency",
            "--timeout",
            "10s",
            url,
        ])
        .output()
        .expect("wrk is installed (apt-get install wrk)");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut stats = Stats::default();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["Requests/sec:", n] => stats.rps = n.parse().unwrap_or(0.0),
            ["50%", d] => stats.p50_ms = duration_ms(d),
            ["99%", d] => stats.p99_ms = duration_ms(d),
            ["Non-2xx", "or", "3xx", "responses:", n] => stats.errors += n.parse().unwrap_or(0),
            ["Socket", "errors:", rest @ ..] => {
                stats.errors += rest
                    .iter()
                    .filter_map(|w| w.trim_end_matches(',').parse::<u64>().ok())
                    .sum::<u64>()
            }
            _ => {}
        }
    }
    stats
}

/// The pages measured: name and path.
fn pages(match_id: i64) -> Vec<(&'static str, String)> {
    vec![
        ("public match page", format!("/matches/{match_id}")),
        ("standings page", "/leagues/bench/standings".into()),
        ("scoreboard", "/scoreboard".into()),
        ("bracket page", "/leagues/bench/bracket".into()),
        ("standings API", "/api/v1/leagues/bench/standings".into()),
    ]
}

/// A complete match of the generated season (the generator plays matches in id order, so
/// match 10 is complete), with its hand count.
async fn complete_match(server: &Server) -> (i64, usize) {
    let m = api(server, "GET", "/api/v1/matches/10", json!({})).await;
    assert_eq!(m["status"], "complete", "match 10 is played");
    (10, m["hands"].as_array().map_or(0, Vec::len))
}

async fn load() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("load.sqlite3");
    let t = Instant::now();
    let summary = generate(&db, 64, 2000, 30_000);
    println!(
        "season: {summary} (generated in {:.1} s)",
        t.elapsed().as_secs_f64()
    );
    let server = start(&db);
    let bracket = api(
        &server,
        "POST",
        "/api/v1/leagues/bench/playoffs",
        json!({"format": "double_elimination", "teams": 64, "force": true}),
    )
    .await;
    println!(
        "bracket: {} matches, double elimination of 64",
        bracket["matches"].as_array().map_or(0, Vec::len)
    );
    let teams = bench_teams(&server).await;
    let (match_id, hands) = complete_match(&server).await;
    println!("match page: match {match_id}, {hands} hands");
    let secs = seconds();
    println!(
        "\n| endpoint | connections | req/s | p50 ms | p99 ms | vs /healthz | errors |\n|---|---|---|---|---|---|---|"
    );
    for &c in &connection_counts() {
        let ceiling = wrk(&format!("{}/healthz", server.base), c, secs);
        println!(
            "| GET /healthz | {c} | {:.0} | {:.2} | {:.2} | 100% | {} |",
            ceiling.rps, ceiling.p50_ms, ceiling.p99_ms, ceiling.errors
        );
        for (name, path) in pages(match_id) {
            let s = wrk(&format!("{}{path}", server.base), c, secs);
            println!(
                "| {name} `{path}` | {c} | {:.0} | {:.2} | {:.2} | {:.0}% | {} |",
                s.rps,
                s.p50_ms,
                s.p99_ms,
                100.0 * s.rps / ceiling.rps,
                s.errors
            );
        }
        let s = post_hands(&server, &teams, c, secs, Answer::Full).await;
        println!(
            "| POST hands (durable) | {c} | {:.0} | {:.2} | {:.2} | {:.0}% | {} |",
            s.rps,
            s.p50_ms,
            s.p99_ms,
            100.0 * s.rps / ceiling.rps,
            s.errors
        );
    }
}

/// The answers to measure: both, or the one `HANDS_ANSWER` names (`full` or `light`).
fn answers() -> Vec<Answer> {
    match std::env::var("HANDS_ANSWER").as_deref() {
        Ok("full") => vec![Answer::Full],
        Ok("light") => vec![Answer::Light],
        _ => vec![Answer::Full, Answer::Light],
    }
}

/// Hand entry alone, on the same season as `load` (for profiling the write path).
async fn hands_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("hands.sqlite3");
    generate(&db, 64, 2000, 30_000);
    let server = start(&db);
    let teams = bench_teams(&server).await;
    println!(
        "\n| answer | supervisors | hands/s | p50 ms | p99 ms | errors |\n|---|---|---|---|---|---|"
    );
    for &c in &connection_counts() {
        for answer in answers() {
            let s = post_hands(&server, &teams, c, seconds(), answer).await;
            println!(
                "| {} | {c} | {:.0} | {:.2} | {:.2} | {} |",
                answer.name(),
                s.rps,
                s.p50_ms,
                s.p99_ms,
                s.errors
            );
        }
    }
}

async fn scale() {
    let secs = seconds().min(3);
    println!(
        "\n| teams | hands | matches | cache | standings page p50 / p99 ms | standings API | league home | schedule (this week) | team page | leagues | match page | scoreboard | bracket page |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for &teams in &[16usize, 256, 1024] {
        for &hands in &[10_000usize, 100_000, 1_000_000] {
            // `BENCH_SCALE=1024x1000000`: only that season (teams x hands).
            if std::env::var("BENCH_SCALE").is_ok_and(|only| only != format!("{teams}x{hands}")) {
                continue;
            }
            let dir = tempfile::tempdir().expect("tempdir");
            let db = dir.path().join("scale.sqlite3");
            // ~14 hands a game: enough matches for the hands, a tenth left to play.
            let matches = hands / 14 + hands / 140;
            generate(&db, teams, matches, hands);
            let mut bracket_made = false;
            for (cache, flags) in [("on", &[][..]), ("off", &["--no-page-cache"][..])] {
                let server = start_with(&db, flags);
                if !bracket_made {
                    api(
                        &server,
                        "POST",
                        "/api/v1/leagues/bench/playoffs",
                        json!({"format": "double_elimination", "teams": teams.min(64), "force": true}),
                    )
                    .await;
                    bracket_made = true;
                }
                let mut cells = Vec::new();
                for path in SCALE_PAGES {
                    let s = wrk(&format!("{}{path}", server.base), 1, secs);
                    cells.push(format!("{:.2} / {:.2}", s.p50_ms, s.p99_ms));
                }
                println!(
                    "| {teams} | {hands} | {matches} | {cache} | {} |",
                    cells.join(" | ")
                );
            }
        }
    }
}

const SCALE_PAGES: [&str; 9] = [
    "/leagues/bench/standings",
    "/api/v1/leagues/bench/standings",
    "/leagues/bench",
    "/leagues/bench/schedule",
    // The generated league's teams are the database's first rows.
    "/leagues/bench/teams/1",
    "/leagues",
    "/matches/10",
    "/scoreboard",
    "/leagues/bench/bracket",
];

/// The hand that decides a playoff match at once under `partnership` to 100: the winner
/// bids and takes 10 (100 points), the loser 3.
fn deciding_hand(a_wins: bool) -> Value {
    let (w, l) = (
        json!({"bids": [5, 5], "tricks": [5, 5]}),
        json!({"bids": [2, 1], "tricks": [2, 1]}),
    );
    if a_wins {
        json!({"a": w, "b": l})
    } else {
        json!({"a": l, "b": w})
    }
}

/// Starts real match `id` and decides it with one hand, won by team a if `a_wins`.
async fn play_match(client: &reqwest::Client, base: &str, auth: &str, id: i64, a_wins: bool) {
    let version = start_match(client, base, auth, id).await;
    let r = client
        .post(format!("{base}/api/v1/matches/{id}/hands"))
        .header("authorization", auth)
        .json(&json!({"hand": deciding_hand(a_wins), "expected_version": version}))
        .send()
        .await
        .expect("hand");
    assert_eq!(r.status(), 201, "hand of match {id}");
    let m: Value = r.json().await.expect("hand json");
    assert_eq!(m["game_status"], "won", "one hand decides match {id}");
}

/// One play-out of the 256-team double elimination on a fresh database: (create, play,
/// standings) in ms and the matches played.
async fn playout_once(supervisors: usize, seed: u64) -> (f64, f64, f64, usize) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("playout.sqlite3");
    // A fresh database with its admin (the generator with no season), then a league whose
    // playoffs are decided in one hand, and 256 teams with no regular season: the seeding
    // falls to the documented last resort.
    generate(&db, 2, 0, 0);
    let server = start(&db);
    let auth = format!("Bearer {}", server.token);
    let client = reqwest::Client::new();
    api(
        &server,
        "POST",
        "/api/v1/leagues",
        json!({"name": "Playout", "slug": "playout",
               "rules": {"regular": "unc-im-500",
                         "playoff": {"preset": "partnership", "target": 100},
                         "final": {"preset": "partnership", "target": 100}}}),
    )
    .await;
    for i in 1..=256 {
        api(
            &server,
            "POST",
            "/api/v1/leagues/playout/teams",
            json!({"name": format!("Team {i:03}"), "players": ["P1", "P2"]}),
        )
        .await;
    }
    let t0 = Instant::now();
    api(
        &server,
        "POST",
        "/api/v1/leagues/playout/playoffs",
        json!({"format": "double_elimination", "teams": 256, "grand_final": "double"}),
    )
    .await;
    let t1 = Instant::now();
    let mut rng = seed;
    let mut played = 0;
    loop {
        let bracket = api(&server, "GET", "/api/v1/leagues/playout/bracket", json!({})).await;
        if !bracket["champion"].is_null() {
            break;
        }
        let ready: Vec<i64> = bracket["matches"]
            .as_array()
            .expect("matches")
            .iter()
            .filter(|m| m["status"] == "scheduled")
            .filter_map(|m| m["match_id"].as_i64())
            .collect();
        assert!(
            !ready.is_empty(),
            "an undecided bracket has a match to play"
        );
        for chunk in ready.chunks(supervisors) {
            let mut tasks = Vec::new();
            for &id in chunk {
                // SplitMix64 coin for the winner.
                rng = rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let z = (rng ^ (rng >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                let a_wins = (z ^ (z >> 27)) & 1 == 0;
                let (client, base, auth) = (client.clone(), server.base.clone(), auth.clone());
                tasks.push(tokio::spawn(async move {
                    play_match(&client, &base, &auth, id, a_wins).await
                }));
            }
            for t in tasks {
                t.await.expect("a match played");
                played += 1;
            }
        }
    }
    let t2 = Instant::now();
    let bracket = api(&server, "GET", "/api/v1/leagues/playout/bracket", json!({})).await;
    let t3 = Instant::now();
    assert!(bracket["champion"]["id"].is_i64(), "a champion");
    assert!(
        played == 510 || played == 511,
        "2N − 2 matches, + 1 for a reset: {played}"
    );
    let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1000.0;
    (ms(t0, t1), ms(t1, t2), ms(t2, t3), played)
}

async fn playout() {
    let runs: usize = std::env::var("PLAYOUT_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    println!(
        "\n| supervisors at once | run | create ms | play ms | standings ms | total ms | matches |\n|---|---|---|---|---|---|---|"
    );
    for supervisors in [1, 16] {
        let mut totals = Vec::new();
        for run in 1..=runs {
            let (c, p, s, n) = playout_once(supervisors, run as u64).await;
            totals.push(c + p + s);
            println!(
                "| {supervisors} | {run} | {c:.1} | {p:.1} | {s:.1} | {:.1} | {n} |",
                c + p + s
            );
        }
        totals.sort_by(f64::total_cmp);
        println!(
            "| {supervisors} | median | | | | {:.1} | |",
            totals[totals.len() / 2]
        );
    }
}

/// SQLite and PostgreSQL side by side on the `load` season: hand entry with one instance,
/// and on PostgreSQL with two instances on the same database (each supervisor on one of
/// them), then the pages on one instance. `BENCH_PG` names the PostgreSQL server.
async fn stores() {
    let pg = std::env::var("BENCH_PG")
        .expect("BENCH_PG=postgres://user@host:port/postgres (the bench creates its own database)");
    let secs = seconds();
    let mut hands_table = vec![
        "| store | instances | answer | supervisors | hands/s | p50 ms | p99 ms | errors |"
            .to_string(),
        "|---|---|---|---|---|---|---|---|".to_string(),
    ];
    let mut pages_table = vec![
        "| store | page | connections | req/s | p50 ms | p99 ms | errors |".to_string(),
        "|---|---|---|---|---|---|---|".to_string(),
    ];
    let setups = [("sqlite", 1), ("postgresql", 1), ("postgresql", 2)];
    for (store, instances) in setups.into_iter().filter(|s| measured_store(*s)) {
        let dir = tempfile::tempdir().expect("tempdir");
        let db: std::path::PathBuf = if store == "sqlite" {
            dir.path().join("stores.sqlite3")
        } else {
            postgres_support::new_database(&pg, &format!("spades_bench_{instances}"))
                .await
                .into()
        };
        let t = Instant::now();
        let summary = generate(&db, 64, 2000, 30_000);
        if store == "postgresql" {
            settle(&db.to_string_lossy()).await;
        }
        eprintln!(
            "{store}: {summary} (generated in {:.1} s)",
            t.elapsed().as_secs_f64()
        );
        let servers: Vec<Server> = (0..instances).map(|_| start(&db)).collect();
        let refs: Vec<&Server> = servers.iter().collect();
        let teams = bench_teams(refs[0]).await;
        for &c in &connection_counts() {
            for answer in answers() {
                let s = post_hands_to(&refs, &teams, c, secs, answer).await;
                hands_table.push(format!(
                    "| {store} | {instances} | {} | {c} | {:.0} | {:.2} | {:.2} | {} |",
                    answer.name(),
                    s.rps,
                    s.p50_ms,
                    s.p99_ms,
                    s.errors
                ));
            }
        }
        if instances == 1 {
            let (match_id, _) = complete_match(refs[0]).await;
            for (name, path) in [
                ("GET /healthz", "/healthz".to_string()),
                ("public match page", format!("/matches/{match_id}")),
                ("standings page", "/leagues/bench/standings".into()),
                ("standings API", "/api/v1/leagues/bench/standings".into()),
            ] {
                let s = wrk(&format!("{}{path}", refs[0].base), 16, secs);
                pages_table.push(format!(
                    "| {store} | {name} | 16 | {:.0} | {:.2} | {:.2} | {} |",
                    s.rps, s.p50_ms, s.p99_ms, s.errors
                ));
            }
        }
    }
    println!("\n{}\n\n{}", hands_table.join("\n"), pages_table.join("\n"));
}

/// Vacuums and analyzes a PostgreSQL season just generated, as autovacuum would have long
/// before a league night: otherwise autovacuum wakes to the 30,000 new hands in the first
/// seconds measured.
async fn settle(url: &str) {
    use sqlx::Connection;
    let mut conn = sqlx::PgConnection::connect(url).await.expect("connect");
    sqlx::raw_sql("VACUUM ANALYZE")
        .execute(&mut conn)
        .await
        .expect("vacuum");
}

/// Whether `stores` measures this store with this many instances: all of them, or those
/// `BENCH_STORES` names (`sqlite`, `postgresql`, `postgresql-2`; comma-separated).
fn measured_store((store, instances): (&str, usize)) -> bool {
    let name = match instances {
        1 => store.to_string(),
        n => format!("{store}-{n}"),
    };
    std::env::var("BENCH_STORES").map_or(true, |list| list.split(',').any(|s| s.trim() == name))
}

/// Hands in the match of `growth`.
const GROWTH_HANDS: usize = 500;
/// The stretches of hands `growth` reports, first and last hand.
const GROWTH_STRETCHES: [(usize, usize); 3] = [(1, 10), (241, 250), (491, 500)];

/// The database's size as SQLite sees it: its pages, those still in the WAL included.
async fn database_bytes(conn: &mut sqlx::SqliteConnection) -> i64 {
    let pages: i64 = sqlx::query_scalar("PRAGMA page_count")
        .fetch_one(&mut *conn)
        .await
        .expect("page_count");
    let size: i64 = sqlx::query_scalar("PRAGMA page_size")
        .fetch_one(&mut *conn)
        .await
        .expect("page_size");
    pages * size
}

/// The bytes SQLite stores in every table and index (the `dbstat` payload: rows, not
/// pages), which grows by the bytes written where the page count grows by whole pages.
async fn payload_bytes(conn: &mut sqlx::SqliteConnection) -> i64 {
    sqlx::query_scalar("SELECT CAST(sum(payload) AS INTEGER) FROM dbstat")
        .fetch_one(&mut *conn)
        .await
        .expect("dbstat")
}

/// The bytes stored in the idempotency key `key` (every column's value: text by its length,
/// a number as 8), whatever the columns of this version are.
async fn key_bytes(conn: &mut sqlx::SqliteConnection, key: &str) -> i64 {
    use sqlx::{Column, Row, TypeInfo, ValueRef};
    let row = sqlx::query("SELECT * FROM idempotency_keys WHERE key = $1")
        .bind(key)
        .fetch_one(&mut *conn)
        .await
        .expect("the key is stored");
    let mut bytes = 0;
    for column in row.columns() {
        let value = row.try_get_raw(column.ordinal()).expect("column");
        bytes += match value.type_info().name() {
            "NULL" => 0,
            "INTEGER" | "REAL" => 8,
            _ => row
                .try_get::<Option<String>, _>(column.ordinal())
                .expect("text")
                .map_or(0, |t| t.len() as i64),
        };
    }
    bytes
}

/// One match of [`GROWTH_HANDS`] hands, each with an idempotency key, on a fresh database:
/// what each hand adds to the database and to the idempotency keys, by stretch of hands.
async fn growth() {
    use sqlx::ConnectOptions;
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("growth.sqlite3");
    generate(&db, 2, 0, 0);
    let server = start(&db);
    api(
        &server,
        "POST",
        "/api/v1/leagues",
        json!({"name": "Growth", "slug": "growth", "rules": {"regular": "unc-im-500"}}),
    )
    .await;
    let mut teams = Vec::new();
    for i in 1..=2 {
        let team = api(
            &server,
            "POST",
            "/api/v1/leagues/growth/teams",
            json!({"name": format!("Team {i}"), "players": ["P1", "P2"]}),
        )
        .await;
        teams.push(team["id"].as_i64().expect("team id"));
    }
    let client = reqwest::Client::new();
    let auth = format!("Bearer {}", server.token);
    let mut conn = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(&db)
        .read_only(true)
        .connect()
        .await
        .expect("open the database");
    for minimal in [false, true] {
        let m = api(
            &server,
            "POST",
            "/api/v1/leagues/growth/matches",
            json!({"team_a": teams[0], "team_b": teams[1]}),
        )
        .await;
        let id = m["id"].as_i64().expect("match id");
        let mut version = start_match(&client, &server.base, &auth, id).await;
        // bytes[k], payload[k]: the database after hand k ([0]: before the first); the
        // others per hand k ([0] unused).
        let mut bytes = vec![database_bytes(&mut conn).await];
        let mut payload = vec![payload_bytes(&mut conn).await];
        let mut keys = vec![0];
        let mut micros = vec![0];
        let mut answers = vec![0];
        for k in 1..=GROWTH_HANDS {
            let key = format!("growth-{id}-hand-{k}");
            let mut post = client
                .post(format!("{}/api/v1/matches/{id}/hands", server.base))
                .header("authorization", &auth)
                .json(
                    &json!({"hand": hand(k), "expected_version": version, "idempotency_key": key}),
                );
            if minimal {
                post = post.header("Prefer", "return=minimal");
            }
            let started = Instant::now();
            let r = post.send().await.expect("hand");
            assert_eq!(r.status(), 201, "hand {k}");
            let body = r.bytes().await.expect("the answer");
            micros.push(started.elapsed().as_micros() as i64);
            answers.push(body.len() as i64);
            let m: Value = serde_json::from_slice(&body).expect("match json");
            assert_eq!(
                m["game_status"], "in_progress",
                "hand {k} does not end the game"
            );
            version = m["version"].as_i64().expect("version");
            bytes.push(database_bytes(&mut conn).await);
            payload.push(payload_bytes(&mut conn).await);
            keys.push(key_bytes(&mut conn, &key).await);
        }
        let asked = if minimal {
            "`Prefer: return=minimal`"
        } else {
            "the full answer"
        };
        println!(
            "\n{GROWTH_HANDS} hands, one match, each with an idempotency key, {asked} (SQLite)\n\n\
             | hands | time per hand (median, ms) | answer bytes | database bytes added per hand (`page_count × page_size`) | stored bytes added per hand (`dbstat` payload) | bytes of one hand's idempotency key (min–max) |\n|---|---|---|---|---|---|"
        );
        let per_hand = |v: &[i64], first: usize, last: usize| {
            (v[last] - v[first - 1]) as f64 / (last - first + 1) as f64
        };
        let median = |v: &[i64]| {
            let mut v = v.to_vec();
            v.sort_unstable();
            v[v.len() / 2]
        };
        for (first, last) in GROWTH_STRETCHES {
            let stretch = &keys[first..=last];
            println!(
                "| {first}–{last} | {:.2} | {} | {:.0} | {:.0} | {}–{} |",
                median(&micros[first..=last]) as f64 / 1000.0,
                median(&answers[first..=last]),
                per_hand(&bytes, first, last),
                per_hand(&payload, first, last),
                stretch.iter().min().expect("keys"),
                stretch.iter().max().expect("keys")
            );
        }
    }
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    if std::env::args().any(|a| a == "growth") {
        runtime.block_on(growth());
    } else if std::env::args().any(|a| a == "stores") {
        runtime.block_on(stores());
    } else if std::env::args().any(|a| a == "scale") {
        runtime.block_on(scale());
    } else if std::env::args().any(|a| a == "playout") {
        runtime.block_on(playout());
    } else if std::env::args().any(|a| a == "hands") {
        runtime.block_on(hands_only());
    } else {
        runtime.block_on(load());
    }
}
