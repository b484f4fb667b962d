// Test code may stop at the first impossible state.
#![allow(clippy::unwrap_used, clippy::expect_used)]
//! kill -9 during league night: the real `spades-im` binary serves a real SQLite file while
//! many clients enter hands at once, each to its own match, with idempotency keys and
//! expected versions. The server is killed with SIGKILL at a random moment, restarted on the
//! same file, and then:
//!
//! - every hand whose POST was acknowledged (201 received) is there, with what was sent;
//! - each client's last request that got no answer is sent again with the same idempotency
//!   key: the hand ends up recorded exactly once, whether the first try was committed before
//!   the kill (the retry gets the first answer back) or not (the retry records it).
//!
//! Every kill must hit requests in flight (sent before the kill, never answered), or the
//! round proved nothing: the test fails if none did. A 503 ("busy: not saved, send again")
//! is sent again, at most [`MAX_BUSY_IN_A_ROW`] times in a row, and the 503s are counted:
//! the test fails past [`MAX_BUSY`] in all (nothing here should keep the writer busy).
//!
//! Several rounds; the totals are printed. The moment of each kill is drawn from a seeded
//! generator, printed as `KILL9_SEED=<n>`; set `KILL9_SEED` (decimal or `0x` hex) to draw the
//! same moments again (the same schedule of kills; how far the server got by then still
//! depends on the machine). Finally the database itself is checked: one row per hand (no
//! revisions, no duplicates) and one idempotency key per hand.
//!
//! With `SPADES_TEST_DB=postgres://…` the server runs on a new PostgreSQL database of that
//! server instead (the instance is killed; PostgreSQL stays up, as when one of several
//! instances dies).

use std::fs::File;
use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "support/postgres.rs"]
mod postgres_support;

const BIN: &str = env!("CARGO_BIN_EXE_spades-im");
/// Matches in play, one client each.
const CLIENTS: usize = 16;
const ROUNDS: usize = 8;
/// 503s one request may get in a row before the test fails: the server answers busy only
/// after waiting for its writer (seconds), so this is already a writer stuck for minutes.
const MAX_BUSY_IN_A_ROW: usize = 20;
/// 503s in the whole test before it fails: one per client and round. A busy answer means the
/// writer waited past its timeout; with 16 clients on a store of their own, that is a fault,
/// not load (none were seen in the runs that set this bound).
const MAX_BUSY: usize = CLIENTS * ROUNDS;

/// The server process; killed when dropped, so a failing test leaves nothing behind.
struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// SIGKILL, no warning, no clean shutdown.
    fn kill9(mut self) {
        self.child.kill().expect("SIGKILL the server");
        self.child.wait().expect("reap the server");
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Runs a CLI command on the database and returns its standard output.
fn cli(db: &Path, args: &[&str]) -> String {
    cli_with_input(db, args, "")
}

/// `cli` with `input` on the command's standard input (a password for `--password-stdin`).
fn cli_with_input(db: &Path, args: &[&str], input: &str) -> String {
    let mut child = Command::new(BIN)
        .args(args)
        .arg("--db")
        .arg(db)
        .env("SPADES_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run spades-im");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("run spades-im");
    assert!(
        out.status.success(),
        "spades-im {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Starts `spades-im serve` on a free port and waits until it answers.
async fn start(db: &Path, log: &Path) -> Server {
    let port = free_port();
    let log_file = File::options()
        .create(true)
        .append(true)
        .open(log)
        .expect("log file");
    let child = Command::new(BIN)
        .args(["serve", "--bind", &format!("127.0.0.1:{port}"), "--db"])
        .arg(db)
        // (clap reads a bool flag's variable as "true"/"false"; "1" is refused.)
        .env("SPADES_INSECURE_COOKIES", "true")
        .env("SPADES_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::from(log_file))
        .spawn()
        .expect("start the server");
    let mut server = Server {
        child,
        base: format!("http://127.0.0.1:{port}"),
    };
    let http = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(r) = http.get(format!("{}/healthz", server.base)).send().await
            && r.status() == 200
        {
            return server;
        }
        if let Some(status) = server.child.try_wait().expect("server status") {
            panic!(
                "the server exited ({status}): {}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
        }
        assert!(Instant::now() < deadline, "the server did not come up");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// A tiny xorshift: every random choice of the test comes from it (today: when each round's
/// kill falls). Its seed is `KILL9_SEED` if set, else the clock; it is printed as
/// `KILL9_SEED=<n>` so a failure can be run again with the same choices.
struct Rng(u64);

/// The variable that sets the seed: decimal (`KILL9_SEED=12345`) or hex (`KILL9_SEED=0x3039`).
const SEED_VAR: &str = "KILL9_SEED";

/// `text` as a seed: decimal, or hex after `0x`; never 0 (xorshift would stay at 0).
fn parse_seed(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    match parsed {
        Ok(0) => Err(format!("{SEED_VAR}={text}: the seed must not be 0")),
        Ok(seed) => Ok(seed),
        Err(e) => Err(format!(
            "{SEED_VAR}={text}: not a decimal or 0x-hex u64 ({e})"
        )),
    }
}

/// The seed from `KILL9_SEED`, or from the clock when it is unset or empty.
fn seed() -> u64 {
    match std::env::var(SEED_VAR) {
        Ok(text) if !text.trim().is_empty() => parse_seed(&text).unwrap_or_else(|e| panic!("{e}")),
        _ => {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
                | 1
        }
    }
}

#[test]
fn seeds_are_read_in_decimal_and_hex() {
    assert_eq!(parse_seed("12345"), Ok(12345));
    assert_eq!(parse_seed(" 0x3039 "), Ok(12345));
    assert_eq!(parse_seed("0X3039"), Ok(12345));
    assert_eq!(parse_seed("18446744073709551615"), Ok(u64::MAX));
    assert!(parse_seed("0").is_err());
    assert!(parse_seed("0x0").is_err());
    assert!(parse_seed("12ab").is_err());
    assert!(parse_seed("-1").is_err());
    // The same seed, the same choices.
    let (mut a, mut b) = (Rng(12345), Rng(parse_seed("0x3039").unwrap()));
    for _ in 0..100 {
        assert_eq!(a.range(150, 900), b.range(150, 900));
    }
}

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }
}

/// Hand `k` of match `id`: every bid 0 (under "partnership" a 0 bid is a number, so every
/// trick is a bag and the game never reaches its target); the tricks vary with `id` and `k`
/// so the content of every hand can be checked.
fn hand_for(id: i64, k: i64) -> Value {
    let t = (id * 5 + k * 3) % 14;
    let r = 13 - t;
    json!({"a": {"bids": [0, 0], "tricks": [t / 2, t - t / 2]},
           "b": {"bids": [0, 0], "tricks": [r / 2, r - r / 2]}})
}

fn key_for(id: i64, k: i64) -> String {
    format!("match-{id}-hand-{k}")
}

/// One table: its match, what was acknowledged, and the request left without an answer.
#[derive(Debug, Clone)]
struct Table {
    id: i64,
    version: i64,
    /// The number of the next hand.
    next: i64,
    acked: Vec<i64>,
    /// A request that got no answer.
    pending: Option<Pending>,
    /// 503 answers so far (each sent again).
    busy: usize,
}

/// A request that got no answer: its hand, the version it was sent on, and when it was
/// sent (before the kill: it was in flight when the server died).
#[derive(Debug, Clone, Copy)]
struct Pending {
    hand: i64,
    version: i64,
    sent_at: Instant,
}

fn body_for(id: i64, k: i64, version: i64) -> Value {
    json!({"hand": hand_for(id, k), "expected_version": version, "idempotency_key": key_for(id, k)})
}

/// Posts `body` to the match's hands; a 503 ("busy: not saved") is sent again, counted in
/// `busy`, at most [`MAX_BUSY_IN_A_ROW`] times in a row (then the test fails). The first
/// answer that is not a 503, or the error of a request that got none.
async fn send_hand(
    http: &reqwest::Client,
    base: &str,
    token: &str,
    id: i64,
    body: &Value,
    busy: &mut usize,
) -> reqwest::Result<reqwest::Response> {
    let mut in_a_row = 0;
    loop {
        let response = http
            .post(format!("{base}/api/v1/matches/{id}/hands"))
            .bearer_auth(token)
            .json(body)
            .send()
            .await?;
        if response.status() != 503 {
            return Ok(response);
        }
        *busy += 1;
        in_a_row += 1;
        assert!(
            in_a_row <= MAX_BUSY_IN_A_ROW,
            "match {id}: {in_a_row} busy answers in a row to {body}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Enters hands as fast as the server takes them, until the server goes away.
async fn play(http: reqwest::Client, base: String, token: String, mut t: Table) -> Table {
    loop {
        let k = t.next;
        let pending = Some(Pending {
            hand: k,
            version: t.version,
            sent_at: Instant::now(),
        });
        let body = body_for(t.id, k, t.version);
        let Ok(response) = send_hand(&http, &base, &token, t.id, &body, &mut t.busy).await else {
            t.pending = pending;
            return t;
        };
        let status = response.status().as_u16();
        let body = response.json::<Value>().await;
        match (status, body) {
            (201, Ok(m)) => {
                assert_eq!(m["hands"].as_array().map(Vec::len), Some(k as usize));
                t.version = m["version"].as_i64().expect("version");
                t.acked.push(k);
                t.next = k + 1;
            }
            // The answer was cut off: not acknowledged.
            (201, Err(_)) => {
                t.pending = pending;
                return t;
            }
            (status, body) => panic!("match {} hand {k}: {status} {body:?}", t.id),
        }
    }
}

async fn get_match(http: &reqwest::Client, base: &str, id: i64) -> Value {
    let r = http
        .get(format!("{base}/api/v1/matches/{id}"))
        .send()
        .await
        .expect("get match");
    assert_eq!(r.status(), 200);
    r.json().await.expect("match json")
}

fn assert_hand(m: &Value, id: i64, k: i64) {
    let hands = m["hands"].as_array().expect("hands");
    let h = &hands[(k - 1) as usize];
    let expected = hand_for(id, k);
    assert_eq!(h["number"], k, "match {id} hand {k}: number");
    assert_eq!(h["revision"], 1, "match {id} hand {k}: revision");
    assert_eq!(
        h["hand"]["a"], expected["a"],
        "match {id} hand {k}: content"
    );
    assert_eq!(
        h["hand"]["b"], expected["b"],
        "match {id} hand {k}: content"
    );
}

#[derive(Default, Debug)]
struct Totals {
    rounds: usize,
    acked_checks: usize,
    retries: usize,
    /// Requests in flight when the server was killed: sent before the kill, never answered.
    in_flight: usize,
    /// Retries answered with the first answer: committed before the kill, never acknowledged.
    replayed: usize,
    duplicates: usize,
    /// Answers made to be lost on purpose (see [`lost_answer`]).
    lost_answers: usize,
    /// 503s to the retries after a restart (each sent again; the tables count their own).
    busy: usize,
}

/// After a restart: every acknowledged hand is there; the unanswered request is sent again
/// with its idempotency key and the hand is then there exactly once.
async fn verify_and_retry(base: &str, token: &str, tables: &mut [Table], totals: &mut Totals) {
    let http = reqwest::Client::new();
    for t in tables.iter_mut() {
        let m = get_match(&http, base, t.id).await;
        let count = m["hands"].as_array().expect("hands").len() as i64;
        for &k in &t.acked {
            assert!(
                k <= count,
                "match {}: acknowledged hand {k} lost ({count} hands)",
                t.id
            );
            assert_hand(&m, t.id, k);
            totals.acked_checks += 1;
        }
        let Some(Pending {
            hand: k, version, ..
        }) = t.pending.take()
        else {
            continue;
        };
        assert!(
            count == k - 1 || count == k,
            "match {}: {count} hands with hand {k} unanswered",
            t.id
        );
        let r = send_hand(
            &http,
            base,
            token,
            t.id,
            &body_for(t.id, k, version),
            &mut totals.busy,
        )
        .await
        .expect("retry");
        assert_eq!(r.status(), 201, "match {} retry of hand {k}", t.id);
        let replay = r.headers().get("idempotent-replay").is_some();
        assert_eq!(
            replay,
            count == k,
            "match {}: a retry of a committed hand gets the first answer, else it records it",
            t.id
        );
        totals.retries += 1;
        totals.replayed += usize::from(replay);
        let m = get_match(&http, base, t.id).await;
        let after = m["hands"].as_array().expect("hands").len() as i64;
        if after != k {
            totals.duplicates += 1;
        }
        assert_eq!(after, k, "match {}: hand {k} recorded exactly once", t.id);
        assert_hand(&m, t.id, k);
        t.acked.push(k);
        t.next = k + 1;
        t.version = m["version"].as_i64().expect("version");
    }
}

/// The answer that never reached the client, made to happen: the hand is sent on a raw
/// connection whose answer is never read; once the hand is in, the connection is dropped and
/// the request is sent again with the same idempotency key. It gets the first answer back
/// and nothing is recorded twice.
async fn lost_answer(base: &str, token: &str, t: &mut Table, totals: &mut Totals) {
    use std::io::Write;
    let http = reqwest::Client::new();
    let k = t.next;
    let body = body_for(t.id, k, t.version).to_string();
    let host = base.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(host).expect("connect");
    write!(
        stream,
        "POST /api/v1/matches/{}/hands HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        t.id,
        body.len()
    )
    .expect("send");
    stream.flush().expect("flush");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let m = get_match(&http, base, t.id).await;
        if m["hands"].as_array().expect("hands").len() as i64 == k {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "match {}: hand {k} never recorded",
            t.id
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    drop(stream);
    let r = send_hand(
        &http,
        base,
        token,
        t.id,
        &body_for(t.id, k, t.version),
        &mut totals.busy,
    )
    .await
    .expect("retry");
    assert_eq!(r.status(), 201);
    assert!(
        r.headers().get("idempotent-replay").is_some(),
        "match {}: the retry of a committed hand gets the first answer",
        t.id
    );
    let first: Value = r.json().await.expect("answer");
    assert_eq!(first["hands"].as_array().map(Vec::len), Some(k as usize));
    let m = get_match(&http, base, t.id).await;
    let after = m["hands"].as_array().expect("hands").len() as i64;
    if after != k {
        totals.duplicates += 1;
    }
    assert_eq!(after, k, "match {}: hand {k} recorded exactly once", t.id);
    assert_hand(&m, t.id, k);
    totals.retries += 1;
    totals.replayed += 1;
    totals.lost_answers += 1;
    t.acked.push(k);
    t.next = k + 1;
    t.version = m["version"].as_i64().expect("version");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn acknowledged_hands_survive_kill_9_and_retries_record_once() {
    let began = Instant::now();
    let dir = tempfile::tempdir().expect("temp dir");
    let db: PathBuf = match std::env::var("SPADES_TEST_DB") {
        Ok(url) if !url.trim().is_empty() => PathBuf::from(
            postgres_support::new_database(&url, &format!("spades_kill9_{}", std::process::id()))
                .await,
        ),
        _ => dir.path().join("league.sqlite3"),
    };
    let log = dir.path().join("server.log");
    let seed = seed();
    let mut rng = Rng(seed);
    // Shown with a failure (cargo prints a failing test's output): run it again with
    // `KILL9_SEED=<n> cargo test --test kill9`.
    println!("kill9: {SEED_VAR}={seed}");

    // Accounts through the CLI, with passwords of their own (a one-time password's tokens
    // are refused until it is changed).
    for (name, role) in [("coord", "admin"), ("sup", "supervisor")] {
        let args = ["user", "add", name, "--role", role, "--password-stdin"];
        cli_with_input(&db, &args, "a password of their own\n");
    }
    let admin = cli(&db, &["token", "create", "coord"]).trim().to_string();
    let sup = cli(&db, &["token", "create", "sup"]).trim().to_string();

    // The league through the API.
    let mut server = start(&db, &log).await;
    let http = reqwest::Client::new();
    let post = |token: &str, path: &str, body: Value| {
        http.post(format!("{}{path}", server.base))
            .bearer_auth(token)
            .json(&body)
            .send()
    };
    let r = post(
        &admin,
        "/api/v1/leagues",
        json!({"name": "Kill Nine", "slug": "k9", "rules": {"regular": "partnership"}}),
    )
    .await
    .expect("league");
    assert_eq!(r.status(), 201);
    let r = post(
        &admin,
        "/api/v1/leagues/k9/supervisors",
        json!({"username": "sup"}),
    )
    .await
    .expect("assign");
    assert_eq!(r.status(), 204);
    let mut team_ids = Vec::new();
    for i in 0..2 * CLIENTS {
        let r = post(
            &admin,
            "/api/v1/leagues/k9/teams",
            json!({"name": format!("Team {i}"), "players": [format!("P{i}a"), format!("P{i}b")]}),
        )
        .await
        .expect("team");
        assert_eq!(r.status(), 201);
        team_ids.push(r.json::<Value>().await.expect("team")["id"].clone());
    }
    let mut tables = Vec::new();
    for pair in team_ids.chunks(2) {
        let r = post(
            &admin,
            "/api/v1/leagues/k9/matches",
            json!({"team_a": pair[0], "team_b": pair[1], "table": format!("Table {}", tables.len() + 1)}),
        )
        .await
        .expect("match");
        assert_eq!(r.status(), 201);
        let id = r.json::<Value>().await.expect("match")["id"]
            .as_i64()
            .expect("id");
        let r = post(&sup, &format!("/api/v1/matches/{id}/start"), json!({}))
            .await
            .expect("start");
        assert_eq!(r.status(), 200);
        let version = r.json::<Value>().await.expect("match")["version"]
            .as_i64()
            .expect("version");
        tables.push(Table {
            id,
            version,
            next: 1,
            acked: Vec::new(),
            pending: None,
            busy: 0,
        });
    }

    let mut totals = Totals::default();
    for round in 1..=ROUNDS {
        // Every table enters hands at once; the server dies at a random moment.
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .expect("client");
        let tasks: Vec<_> = tables
            .iter()
            .cloned()
            .map(|t| tokio::spawn(play(http.clone(), server.base.clone(), sup.clone(), t)))
            .collect();
        let after = Duration::from_millis(rng.range(150, 900));
        tokio::time::sleep(after).await;
        let killed_at = Instant::now();
        server.kill9();
        let mut next = Vec::with_capacity(tables.len());
        for task in tasks {
            next.push(task.await.expect("client task"));
        }
        tables = next;
        let acked: usize = tables.iter().map(|t| t.acked.len()).sum();
        let unanswered = tables.iter().filter(|t| t.pending.is_some()).count();
        // Sent while the server was alive and never answered: the kill caught them.
        let in_flight = tables
            .iter()
            .filter(|t| t.pending.is_some_and(|p| p.sent_at < killed_at))
            .count();
        totals.in_flight += in_flight;
        let busy = totals.busy + tables.iter().map(|t| t.busy).sum::<usize>();

        // Back up on the same file: check, retry, go on.
        server = start(&db, &log).await;
        let replayed = totals.replayed;
        verify_and_retry(&server.base, &sup, &mut tables, &mut totals).await;
        totals.rounds = round;
        println!(
            "kill9: round {round}: killed after {after:?}; {acked} hands acknowledged so far, \
             {unanswered} unanswered and retried ({in_flight} in flight at the kill, {} had \
             been committed); {busy} busy answers so far",
            totals.replayed - replayed
        );
        lost_answer(
            &server.base,
            &sup,
            &mut tables[round % CLIENTS],
            &mut totals,
        )
        .await;
    }
    server.kill9();

    // The database itself: one row per hand, one idempotency key per hand.
    let clock = spades_im::domain::Clock::system(chrono_tz::Tz::UTC);
    let location = spades_im::db::Location::parse(db.to_str().expect("utf-8")).expect("--db");
    let database = spades_im::db::Db::open(&location, clock)
        .await
        .expect("open");
    let mut conn = database.read().await.expect("reader");
    let rows: i64 =
        spades_im::on_store!(conn, |c| sqlx::query_scalar("SELECT count(*) FROM hands")
            .fetch_one(c)
            .await)
        .expect("count");
    let distinct: i64 = spades_im::on_store!(conn, |c| sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT DISTINCT match_id, number FROM hands) AS d"
    )
    .fetch_one(c)
    .await)
    .expect("count");
    let keys: i64 = spades_im::on_store!(conn, |c| sqlx::query_scalar(
        "SELECT count(*) FROM idempotency_keys"
    )
    .fetch_one(c)
    .await)
    .expect("count");
    let acked: usize = tables.iter().map(|t| t.acked.len()).sum();
    assert_eq!(rows, distinct, "no hand recorded twice");
    assert_eq!(rows as usize, acked, "every hand acknowledged in the end");
    assert_eq!(keys, rows, "one idempotency key per hand");
    assert_eq!(totals.duplicates, 0);
    assert!(totals.acked_checks > 0);
    let busy = totals.busy + tables.iter().map(|t| t.busy).sum::<usize>();
    println!(
        "kill9: {} rounds, {} acknowledged-hand checks ({acked} hands in {} matches), {} retries \
         ({} requests in flight at a kill; {} answered with the first answer: {} committed \
         before a kill, {} answers dropped on purpose), {} duplicates, {busy} busy answers \
         (at most {MAX_BUSY}), {:.1?}",
        totals.rounds,
        totals.acked_checks,
        tables.len(),
        totals.retries,
        totals.in_flight,
        totals.replayed,
        totals.replayed - totals.lost_answers,
        totals.lost_answers,
        totals.duplicates,
        began.elapsed()
    );
    assert!(
        totals.in_flight > 0,
        "no kill hit a request in flight: the rounds tested nothing"
    );
    assert!(
        busy <= MAX_BUSY,
        "{busy} busy answers, more than {MAX_BUSY}"
    );
}
