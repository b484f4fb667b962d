//! What the HTTP benches share: a generated season, the release (or test) binary serving
//! it, and closed-loop supervisors entering hands through the API.
// Each bench uses a part of this module.
#![allow(dead_code)]

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub const BIN: &str = env!("CARGO_BIN_EXE_spades-im");

/// The binary measured: [`BIN`], or `BENCH_BIN` (another build, e.g. an earlier commit's, to
/// compare before and after on the same bench).
pub fn bin() -> String {
    std::env::var("BENCH_BIN").unwrap_or_else(|_| BIN.to_string())
}

/// A running `spades-im serve`, killed on drop.
pub struct Server {
    child: Child,
    pub base: String,
    pub token: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// The server's process id (its memory in /proc).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

pub fn run(args: &[&str], db: &Path) -> String {
    let out = Command::new(bin())
        .arg("--db")
        .arg(db)
        .args(args)
        .env("SPADES_LOG", "warn")
        .output()
        .expect("run spades-im");
    assert!(
        out.status.success(),
        "spades-im {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Generates a season into `db`; returns the generator's summary line.
pub fn generate(db: &Path, teams: usize, matches: usize, hands: usize) -> String {
    let (t, m, h) = (teams.to_string(), matches.to_string(), hands.to_string());
    let out = run(
        &["generate", "--teams", &t, "--matches", &m, "--hands", &h],
        db,
    );
    out.lines().last().unwrap_or_default().to_string()
}

/// The admin the bench acts as: "bench", added with a password of its own the first time (the
/// generator's first admin has a one-time password, and its tokens are refused until it is
/// changed).
pub fn bench_admin(db: &Path) -> String {
    use std::io::Write;
    let listed = run(&["user", "list"], db);
    if !listed
        .lines()
        .any(|l| l.split_whitespace().next() == Some("bench"))
    {
        let mut child = Command::new(bin())
            .arg("--db")
            .arg(db)
            .args([
                "user",
                "add",
                "bench",
                "--role",
                "admin",
                "--password-stdin",
            ])
            .env("SPADES_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("run spades-im user add");
        let mut stdin = child.stdin.take().expect("stdin");
        writeln!(stdin, "a long bench password 1").expect("the password");
        drop(stdin);
        assert!(child.wait().expect("user add").success(), "user add bench");
    }
    "bench".into()
}

pub fn start(db: &Path) -> Server {
    start_with(db, &[])
}

pub fn start_with(db: &Path, flags: &[&str]) -> Server {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let token = run(
        &["token", "create", &bench_admin(db), "--label", "bench"],
        db,
    )
    .trim()
    .to_string();
    let mut command = Command::new(bin());
    command
        .arg("--db")
        .arg(db)
        .args(["--bind", &format!("127.0.0.1:{port}")])
        .args(flags)
        .arg("serve")
        .stdout(Stdio::null());
    // `SERVER_LOG=spades_im::db::group_commit=debug` shows the server's log (batch sizes).
    match std::env::var("SERVER_LOG") {
        Ok(filter) => command.env("SPADES_LOG", filter).stderr(Stdio::inherit()),
        Err(_) => command.env("SPADES_LOG", "warn").stderr(Stdio::null()),
    };
    let child = command.spawn().expect("start spades-im serve");
    let server = Server {
        child,
        base: format!("http://127.0.0.1:{port}"),
        token,
    };
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return server;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the server did not start");
}

/// What a load measured.
#[derive(Debug, Clone, Copy, Default)]
pub struct Stats {
    pub rps: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub errors: u64,
}

pub fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64() * 1000.0
}

/// Two hands that keep a game going (each team sets and makes in turn; no loss floor under
/// unc-im-500), so every supervisor stays on one match.
pub fn hand(n: usize) -> Value {
    if n.is_multiple_of(2) {
        json!({"a": {"bids": [4, 3], "tricks": [3, 3]}, "b": {"bids": [2, 2], "tricks": [4, 3]}})
    } else {
        json!({"a": {"bids": [2, 2], "tricks": [4, 3]}, "b": {"bids": [4, 3], "tricks": [3, 3]}})
    }
}

/// Hands a supervisor enters on a match before moving to the next one: the median game to
/// 500 is 15–16 hands, and the answer (the whole match, every hand) grows with the match.
pub const HANDS_PER_MATCH: usize = 16;

/// Creates a match between `a` and `b` and starts it; returns its id and version.
pub async fn new_started_match(
    client: &reqwest::Client,
    base: &str,
    auth: &str,
    (a, b): (i64, i64),
) -> (i64, i64) {
    let m: Value = client
        .post(format!("{base}/api/v1/leagues/bench/matches"))
        .header("authorization", auth)
        .json(&json!({"team_a": a, "team_b": b}))
        .send()
        .await
        .expect("create match")
        .json()
        .await
        .expect("match json");
    let id = m["id"].as_i64().expect("match id");
    (id, start_match(client, base, auth, id).await)
}

/// `connections` supervisors for `seconds`, each entering hands on its own started match
/// and, after [`HANDS_PER_MATCH`] hands, creating and starting its next match (not timed:
/// only the hands' latencies are kept, but the wall time includes the starts).
pub async fn post_hands(
    server: &Server,
    teams: &[i64],
    connections: usize,
    seconds: u64,
    answer: Answer,
) -> Stats {
    post_hands_to(&[server], teams, connections, seconds, answer).await
}

/// The answer a supervisor asks for: the whole match (the API's default) or its totals
/// (`Prefer: return=minimal`, what the console's outbox asks for).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Full,
    Light,
}

impl Answer {
    pub fn name(self) -> &'static str {
        match self {
            Answer::Full => "full",
            Answer::Light => "light",
        }
    }
}

/// [`post_hands`] with the supervisors spread over `servers` (instances on one database):
/// supervisor `i` talks to `servers[i % n]` only.
pub async fn post_hands_to(
    servers: &[&Server],
    teams: &[i64],
    connections: usize,
    seconds: u64,
    answer: Answer,
) -> Stats {
    let server = servers[0];
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(connections)
        .build()
        .expect("client");
    let auth = format!("Bearer {}", server.token);
    let pair = |i: usize| {
        (
            teams[(2 * i) % teams.len()],
            teams[(2 * i + 1) % teams.len()],
        )
    };
    // Setup (not timed): a started match per supervisor.
    let mut matches = Vec::with_capacity(connections);
    let base_of = |i: usize| servers[i % servers.len()].base.clone();
    for i in 0..connections {
        matches.push(new_started_match(&client, &base_of(i), &auth, pair(i)).await);
    }
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for (i, (mut id, mut version)) in matches.into_iter().enumerate() {
        let (client, auth, stop, base, teams) = (
            client.clone(),
            auth.clone(),
            stop.clone(),
            base_of(i),
            pair(i),
        );
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut errors = 0u64;
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                if n == HANDS_PER_MATCH {
                    (id, version) = new_started_match(&client, &base, &auth, teams).await;
                    n = 0;
                }
                let t = Instant::now();
                let mut post = client
                    .post(format!("{base}/api/v1/matches/{id}/hands"))
                    .header("authorization", &auth)
                    .json(&json!({"hand": hand(n), "expected_version": version}));
                if answer == Answer::Light {
                    post = post.header("prefer", "return=minimal");
                }
                let r = post.send().await;
                match r {
                    Ok(r) if r.status() == 201 => {
                        let m: Value = r.json().await.unwrap_or_default();
                        latencies.push(t.elapsed());
                        version = m["version"].as_i64().unwrap_or(version);
                        n += 1;
                    }
                    _ => {
                        errors += 1;
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                }
            }
            (latencies, errors)
        }));
    }
    stopped_after(seconds, &stop, started, tasks).await
}

pub fn seconds() -> u64 {
    std::env::var("LOAD_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5)
}

pub fn connection_counts() -> Vec<usize> {
    std::env::var("LOAD_CONNS")
        .unwrap_or_else(|_| "1,16,64,256".into())
        .split(',')
        .filter_map(|c| c.trim().parse().ok())
        .collect()
}

pub async fn api(server: &Server, method: &str, path: &str, body: Value) -> Value {
    let client = reqwest::Client::new();
    let url = format!("{}{path}", server.base);
    let request = match method {
        "POST" => client.post(url).json(&body),
        _ => client.get(url),
    };
    let r = request
        .header("authorization", format!("Bearer {}", server.token))
        .send()
        .await
        .expect("api call");
    assert!(r.status().is_success(), "{method} {path}: {}", r.status());
    r.json().await.unwrap_or_default()
}

/// Starts match `id`; returns its version.
pub async fn start_match(client: &reqwest::Client, base: &str, auth: &str, id: i64) -> i64 {
    let started: Value = client
        .post(format!("{base}/api/v1/matches/{id}/start"))
        .header("authorization", auth)
        .json(&json!({}))
        .send()
        .await
        .expect("start")
        .json()
        .await
        .expect("start json");
    started["version"].as_i64().expect("version")
}

/// The ids of the bench league's teams, in standings order.
pub async fn bench_teams(server: &Server) -> Vec<i64> {
    let standings = api(server, "GET", "/api/v1/leagues/bench/standings", json!({})).await;
    standings["rows"]
        .as_array()
        .map(|rows| rows.iter().filter_map(|r| r["team_id"].as_i64()).collect())
        .unwrap_or_default()
}

/// `connections` visitors for `seconds`, each asking for `url` again as soon as it has its
/// answer (keep-alive); an answer that is not 200 counts as an error.
pub async fn get_loop(url: &str, connections: usize, seconds: u64) -> Stats {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(connections)
        .build()
        .expect("client");
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let tasks: Vec<_> = (0..connections)
        .map(|_| {
            let (client, url, stop) = (client.clone(), url.to_string(), stop.clone());
            tokio::spawn(async move {
                let (mut latencies, mut errors) = (Vec::new(), 0u64);
                while !stop.load(Ordering::Relaxed) {
                    let t = Instant::now();
                    let answered = match client.get(&url).send().await {
                        Ok(r) => r.status() == 200 && r.bytes().await.is_ok(),
                        Err(_) => false,
                    };
                    if answered {
                        latencies.push(t.elapsed());
                    } else {
                        errors += 1;
                    }
                }
                (latencies, errors)
            })
        })
        .collect();
    stopped_after(seconds, &stop, started, tasks).await
}

/// Lets the load's `tasks` run for `seconds`, stops them, and gathers their latencies and
/// errors: answers a second over the time since `started`, p50 and p99.
async fn stopped_after(
    seconds: u64,
    stop: &AtomicBool,
    started: Instant,
    tasks: Vec<tokio::task::JoinHandle<(Vec<Duration>, u64)>>,
) -> Stats {
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let (mut all, mut errors) = (Vec::new(), 0);
    for t in tasks {
        let (l, e) = t.await.expect("task");
        all.extend(l);
        errors += e;
    }
    let elapsed = started.elapsed().as_secs_f64();
    all.sort();
    Stats {
        rps: all.len() as f64 / elapsed,
        p50_ms: percentile(&all, 0.50),
        p99_ms: percentile(&all, 0.99),
        errors,
    }
}
