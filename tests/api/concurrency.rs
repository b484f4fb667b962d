//! Real parallel requests: clients released together by a barrier against a real server.
//!
//! - Two phones send a hand on the same `expected_version`: one is stored (201), the other is
//!   refused (409 `version_conflict`), and exactly one hand is in the match.
//! - One idempotency key sent eight times at once (a double tap, a retry storm): every answer
//!   is the same match, and one hand is stored.
//! - A match read by four clients while hands go in: each read's totals are its last hand's
//!   (one snapshot, not the row of one commit and the hands of the next).
//! - The command line (the built binary: `demo`, `user add`, `token create`) writes to the
//!   database file while clients post hands: each command succeeds or says plainly that the
//!   database is busy; afterwards the file passes `PRAGMA integrity_check` and every
//!   acknowledged hand is stored exactly once. A write lock held past the busy timeout gives
//!   the busy message, and the same command then succeeds.
//!
//! The load helpers here (a season of started matches, clients posting hands, the CLI) are
//! shared with `restore.rs`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use spades_im::db::Location;
use spades_im::service::{Role, people::accounts};
use sqlx::ConnectOptions;
use sqlx::sqlite::SqliteConnectOptions;
use tokio::sync::Barrier;

use crate::helpers::{Api, TestApp, spawn_app};

/// The `spades-im` binary built for the tests.
pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_spades-im");

/// What a command prints when the database stayed locked past the busy timeout.
pub(crate) const BUSY: &str = "error: the database is busy (the server is writing): try again";

/// A league of "partnership" matches in play, run by the supervisor `sup`.
pub(crate) struct Season {
    pub app: TestApp,
    pub admin: Api,
    pub slug: String,
    pub sup_token: String,
    pub teams: Vec<i64>,
    /// The started matches: the answer of `POST …/start` for each.
    pub started: Vec<Value>,
}

impl Season {
    pub fn id(&self, table: usize) -> i64 {
        self.started[table]["id"].as_i64().expect("match id")
    }

    pub fn version(&self, table: usize) -> i64 {
        self.started[table]["version"].as_i64().expect("version")
    }

    /// A client of the supervisor's, with its own connections.
    pub fn phone(&self) -> Phone {
        Phone {
            base: self.app.address.clone(),
            token: self.sup_token.clone(),
            http: reqwest::Client::new(),
        }
    }

    /// A new supervisor of the league, as a phone.
    pub async fn another_supervisor(&self, name: &str) -> Phone {
        let token = {
            self.app.user(name, Role::Supervisor).await;
            self.app.token(name).await
        };
        let r = self
            .admin
            .post(
                &format!("/api/v1/leagues/{}/supervisors", self.slug),
                &json!({"username": name}),
            )
            .await;
        assert_eq!(r.status(), 204, "assign {name}");
        Phone {
            base: self.app.address.clone(),
            token,
            http: reqwest::Client::new(),
        }
    }
}

/// `2 × tables` teams under "partnership" and one started match per pair of teams.
pub(crate) async fn season(slug: &str, tables: usize) -> Season {
    season_on(spawn_app().await, slug, tables).await
}

/// [`season`] on an SQLite file whatever the tests run on: for what only a file store has
/// (backup and restore of the file).
pub(crate) async fn season_on_sqlite(slug: &str, tables: usize) -> Season {
    season_on(crate::helpers::spawn_sqlite_app().await, slug, tables).await
}

async fn season_on(app: TestApp, slug: &str, tables: usize) -> Season {
    let admin = app.api_user("coord", Role::Admin).await;
    app.user("sup", Role::Supervisor).await;
    let sup_token = app.token("sup").await;
    let teams = app
        .league(&admin, slug, json!("partnership"), 2 * tables)
        .await;
    let r = admin
        .post(
            &format!("/api/v1/leagues/{slug}/supervisors"),
            &json!({"username": "sup"}),
        )
        .await;
    assert_eq!(r.status(), 204, "assign sup");
    let sup = app.api(&sup_token);
    let mut started = Vec::new();
    for t in 0..tables {
        let r = admin
            .post(
                &format!("/api/v1/leagues/{slug}/matches"),
                &json!({"team_a": teams[2 * t], "team_b": teams[2 * t + 1],
                        "table": format!("Table {}", t + 1)}),
            )
            .await;
        assert_eq!(r.status(), 201, "create match {t}");
        let id = r.json::<Value>().await.expect("match")["id"]
            .as_i64()
            .expect("id");
        let r = sup
            .post(&format!("/api/v1/matches/{id}/start"), &json!({}))
            .await;
        assert_eq!(r.status(), 200, "start match {id}");
        started.push(r.json().await.expect("started match"));
    }
    Season {
        app,
        admin,
        slug: slug.to_string(),
        sup_token,
        teams,
        started,
    }
}

/// Hand `k` of match `id`: every bid 0 (a number under "partnership", not nil), so every
/// trick is a bag and the game never ends; the tricks vary with `id` and `k`, so each hand
/// can be told from the others.
pub(crate) fn bag_hand(id: i64, k: usize) -> Value {
    let t = (id * 5 + k as i64 * 3) % 14;
    let r = 13 - t;
    json!({"a": {"bids": [0, 0], "tricks": [t / 2, t - t / 2]},
           "b": {"bids": [0, 0], "tricks": [r / 2, r - r / 2]}})
}

/// Team `side` ("a" or "b") bids 13 and takes all 13 tricks: 130 points; four win the game.
pub(crate) fn sweep(side: &str) -> Value {
    let (win, lose) = (
        json!({"bids": [7, 6], "tricks": [7, 6]}),
        json!({"bids": [0, 0], "tricks": [0, 0]}),
    );
    if side == "a" {
        json!({"a": win, "b": lose})
    } else {
        json!({"a": lose, "b": win})
    }
}

/// The idempotency key of hand `k` of match `id`.
pub(crate) fn key(id: i64, k: usize) -> String {
    format!("match-{id}-hand-{k}")
}

/// One supervisor's phone: its own HTTP client (its own connections) and token.
#[derive(Clone)]
pub(crate) struct Phone {
    pub base: String,
    pub token: String,
    pub http: reqwest::Client,
}

impl Phone {
    /// Posts `body` to the match's hands; the status, the `Idempotent-Replay` header and the
    /// answer's JSON.
    pub async fn post_hand(&self, id: i64, body: &Value) -> (u16, bool, Value) {
        self.post_hand_for(id, body, false).await
    }

    /// As [`Phone::post_hand`], asking for the light answer (`Prefer: return=minimal`) when
    /// `light`.
    pub async fn post_hand_for(&self, id: i64, body: &Value, light: bool) -> (u16, bool, Value) {
        let mut post = self
            .http
            .post(format!("{}/api/v1/matches/{id}/hands", self.base))
            .bearer_auth(&self.token)
            .json(body);
        if light {
            post = post.header("Prefer", "return=minimal");
        }
        let r = post.send().await.expect("post a hand");
        let status = r.status().as_u16();
        let replay = r.headers().get("idempotent-replay").is_some();
        let answer = r.json().await.expect("a JSON answer");
        (status, replay, answer)
    }
}

/// How far a client is: hands sent (the one in flight included) and acknowledged (201), and
/// the 503s it got (each sent again).
#[derive(Default)]
pub(crate) struct Progress {
    pub sent: AtomicUsize,
    pub acked: AtomicUsize,
    pub busy: AtomicUsize,
}

/// 503s one hand may get in a row before the test fails: the server answers busy only after
/// waiting its busy timeout (5 s) for the write lock, so this is a lock held for minutes.
pub(crate) const MAX_BUSY_IN_A_ROW: usize = 20;

/// What a client posts to its match.
#[derive(Clone, Copy)]
pub(crate) enum Plan {
    /// Hands that never end the game.
    Bags,
    /// Team "a" or "b" sweeps every hand until it has won.
    Sweep(&'static str),
}

/// A client entering hands into match `id`, one after the other, each with its expected
/// version and idempotency key; a 503 (busy: not saved) is sent again as it was, counted in
/// `progress`, at most [`MAX_BUSY_IN_A_ROW`] times in a row (then the test fails). It goes on
/// until the game is over, `max` hands are in, or `stop` is set and `min` are in. Returns the
/// 201 answers in order: the answer to hand `k` is the match right after hand `k`.
pub(crate) async fn play(
    phone: Phone,
    id: i64,
    mut version: i64,
    plan: Plan,
    (min, max): (usize, usize),
    stop: Arc<AtomicBool>,
    progress: Arc<Progress>,
) -> Vec<Value> {
    let mut answers: Vec<Value> = Vec::new();
    loop {
        let k = answers.len() + 1;
        if k > max || (k > min && stop.load(Ordering::SeqCst)) {
            return answers;
        }
        let hand = match plan {
            Plan::Bags => bag_hand(id, k),
            Plan::Sweep(side) => sweep(side),
        };
        let body =
            json!({"hand": hand, "expected_version": version, "idempotency_key": key(id, k)});
        progress.sent.store(k, Ordering::SeqCst);
        let mut busy = 0;
        let answer = loop {
            let (status, _, answer) = phone.post_hand(id, &body).await;
            match status {
                201 => break answer,
                503 => {
                    assert_eq!(answer["error"]["code"], "busy", "match {id} hand {k}");
                    busy += 1;
                    progress.busy.fetch_add(1, Ordering::SeqCst);
                    assert!(
                        busy <= MAX_BUSY_IN_A_ROW,
                        "match {id} hand {k}: {busy} busy answers in a row"
                    );
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                _ => panic!("match {id} hand {k}: {status} {answer}"),
            }
        };
        assert_eq!(
            answer["hands"].as_array().map(Vec::len),
            Some(k),
            "match {id}: the answer to hand {k}"
        );
        version = answer["version"].as_i64().expect("version");
        progress.acked.store(k, Ordering::SeqCst);
        let over = answer["status"] != "in_progress";
        answers.push(answer);
        if over {
            return answers;
        }
    }
}

/// The file the server's database is in.
/// `--db` for a command on the test app's database: its file, or its PostgreSQL URL.
pub(crate) async fn db_path(app: &TestApp) -> PathBuf {
    match &app.location {
        Location::File(path) => path.clone(),
        Location::Postgres(url) => PathBuf::from(url),
    }
}

/// Runs the CLI on the database `db` (blocking; see [`cli_async`]).
pub(crate) fn cli(db: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .arg("--db")
        .arg(db)
        .env("SPADES_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .expect("run the CLI")
}

/// [`cli`] off the test's thread (the server under test may share it).
pub(crate) async fn cli_async(db: &Path, args: &[&str]) -> Output {
    let db = db.to_path_buf();
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    actix_web::rt::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        cli(&db, &args)
    })
    .await
    .expect("the CLI thread")
}

pub(crate) fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub(crate) fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `PRAGMA integrity_check` and `foreign_key_check` of the file, on a connection of its own.
pub(crate) async fn check_file(path: &Path) -> (Vec<String>, usize) {
    let mut conn = SqliteConnectOptions::new()
        .filename(path)
        .read_only(true)
        .connect()
        .await
        .unwrap_or_else(|e| panic!("open {}: {e}", path.display()));
    let integrity: Vec<String> = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_all(&mut conn)
        .await
        .expect("integrity_check");
    let broken = sqlx::query("PRAGMA foreign_key_check")
        .fetch_all(&mut conn)
        .await
        .expect("foreign_key_check")
        .len();
    (integrity, broken)
}

/// (number, revision, hand JSON) of every stored row of the match's hands, by number.
pub(crate) async fn stored_hands(app: &TestApp, id: i64) -> Vec<(i64, i64, Value)> {
    let rows: Vec<(i64, i64, String)> = spades_im::on_store!(app.db.read().await.unwrap(), |c| {
        sqlx::query_as(
        "SELECT number, revision, hand FROM hands WHERE match_id = $1 ORDER BY number, revision",
    )
    .bind(id)
    .fetch_all(c)
    .await
    })
    .expect("hands");
    rows.into_iter()
        .map(|(n, r, h)| (n, r, serde_json::from_str(&h).expect("stored hand JSON")))
        .collect()
}

async fn idempotency_keys(app: &TestApp, id: i64) -> Vec<String> {
    spades_im::on_store!(app.db.read().await.unwrap(), |c| sqlx::query_scalar(
        "SELECT key FROM idempotency_keys WHERE match_id = $1 ORDER BY key"
    )
    .bind(id)
    .fetch_all(c)
    .await)
    .expect("idempotency keys")
}

/// The bids and tricks of a hand as sent (a stored hand carries more fields).
fn played(hand: &Value) -> (Value, Value) {
    (hand["a"].clone(), hand["b"].clone())
}

async fn get_match(app: &TestApp, id: i64) -> Value {
    let r = app.get(&format!("/api/v1/matches/{id}")).await;
    assert_eq!(r.status(), 200, "GET match {id}");
    r.json().await.expect("match JSON")
}

#[actix_web::test]
async fn two_hands_on_one_version_store_one_and_refuse_the_other() {
    two_hands_on_one_version(false).await;
}

/// The light answer's hand is scored on the match's cached totals, not its hands replayed:
/// the same race, the same outcome.
#[actix_web::test]
async fn two_light_hands_on_one_version_store_one_and_refuse_the_other() {
    two_hands_on_one_version(true).await;
}

/// Two phones send a hand each on the same version, round after round, asking for the light
/// answer or not: one is stored and answered, the other refused with nothing left behind.
async fn two_hands_on_one_version(light: bool) {
    const ROUNDS: usize = 8;
    let s = season(if light { "race-light" } else { "race" }, 1).await;
    let id = s.id(0);
    let phones = [s.phone(), s.another_supervisor("sup2").await];
    let mut version = s.version(0);
    let mut winners: Vec<Value> = Vec::new();
    for round in 1..=ROUNDS {
        let barrier = Arc::new(Barrier::new(phones.len()));
        let tasks: Vec<_> = phones
            .iter()
            .enumerate()
            .map(|(p, phone)| {
                let (phone, barrier) = (phone.clone(), barrier.clone());
                // The two phones enter different hands (told apart by their tricks).
                let hand = bag_hand(id, 2 * round + p);
                let body = json!({"hand": hand, "expected_version": version,
                                  "idempotency_key": format!("phone-{p}-round-{round}")});
                actix_web::rt::spawn(async move {
                    barrier.wait().await;
                    (hand, phone.post_hand_for(id, &body, light).await)
                })
            })
            .collect();
        let mut results = Vec::new();
        for task in tasks {
            results.push(task.await.expect("a phone"));
        }
        let mut statuses: Vec<u16> = results.iter().map(|(_, (s, _, _))| *s).collect();
        statuses.sort_unstable();
        assert_eq!(
            statuses,
            [201, 409],
            "round {round}: one hand stored, one refused ({results:?})"
        );
        let (stored, (_, _, answer)) = results.iter().find(|(_, (s, _, _))| *s == 201).unwrap();
        let (_, (_, _, refusal)) = results.iter().find(|(_, (s, _, _))| *s == 409).unwrap();
        assert_eq!(
            refusal["error"]["code"], "version_conflict",
            "round {round}"
        );
        if light {
            assert_eq!(answer["number"], round, "round {round}: {answer}");
        } else {
            let hands = answer["hands"].as_array().expect("hands");
            assert_eq!(hands.len(), round, "round {round}: the answer's hands");
            assert_eq!(
                played(&hands[round - 1]["hand"]),
                played(stored),
                "round {round}: the answer shows the stored hand"
            );
        }
        version = answer["version"].as_i64().expect("version");
        winners.push(stored.clone());
    }

    // Exactly one hand per round, each the one that was answered 201; the refused requests
    // left nothing behind (not even their idempotency keys).
    let m = get_match(&s.app, id).await;
    assert_eq!(m["version"], version);
    let rows = stored_hands(&s.app, id).await;
    assert_eq!(rows.len(), ROUNDS, "one stored hand per round: {rows:?}");
    for (i, ((number, revision, hand), winner)) in rows.iter().zip(&winners).enumerate() {
        assert_eq!((*number, *revision), (i as i64 + 1, 1));
        assert_eq!(played(hand), played(winner), "hand {number}");
        assert_eq!(
            played(&m["hands"][i]["hand"]),
            played(winner),
            "hand {number}"
        );
    }
    assert_eq!(idempotency_keys(&s.app, id).await.len(), ROUNDS);
}

#[actix_web::test]
async fn one_idempotency_key_sent_at_once_records_one_hand_and_answers_it_to_all() {
    const TAPS: usize = 8;
    const HANDS: usize = 4;
    let s = season("taps", 1).await;
    let id = s.id(0);
    let phones: Vec<Phone> = (0..TAPS).map(|_| s.phone()).collect();
    let mut version = s.version(0);
    for k in 1..=HANDS {
        let body = json!({"hand": bag_hand(id, k), "expected_version": version,
                          "idempotency_key": key(id, k)});
        let barrier = Arc::new(Barrier::new(TAPS));
        let tasks: Vec<_> = phones
            .iter()
            .map(|phone| {
                let (phone, barrier, body) = (phone.clone(), barrier.clone(), body.clone());
                actix_web::rt::spawn(async move {
                    barrier.wait().await;
                    phone.post_hand(id, &body).await
                })
            })
            .collect();
        let mut answers = Vec::new();
        for task in tasks {
            answers.push(task.await.expect("a tap"));
        }
        for (status, _, answer) in &answers {
            assert_eq!(
                *status, 201,
                "hand {k}: every tap is answered 201: {answer}"
            );
        }
        let first = &answers[0].2;
        for (_, _, answer) in &answers {
            assert_eq!(answer, first, "hand {k}: every tap gets the same match");
        }
        let recorded = answers.iter().filter(|(_, replay, _)| !replay).count();
        assert_eq!(
            recorded, 1,
            "hand {k}: one tap records, the others are replays"
        );
        let hands = first["hands"].as_array().expect("hands");
        assert_eq!(hands.len(), k, "hand {k}: the answer's hands");
        assert_eq!(played(&hands[k - 1]["hand"]), played(&bag_hand(id, k)));
        let m = get_match(&s.app, id).await;
        assert_eq!(
            &m, first,
            "hand {k}: the match is what every tap was answered"
        );
        version = first["version"].as_i64().expect("version");
    }
    let rows = stored_hands(&s.app, id).await;
    assert_eq!(rows.len(), HANDS, "one stored hand per key: {rows:?}");
    for (i, (number, revision, hand)) in rows.iter().enumerate() {
        assert_eq!((*number, *revision), (i as i64 + 1, 1));
        assert_eq!(played(hand), played(&bag_hand(id, i + 1)));
    }
    let keys = idempotency_keys(&s.app, id).await;
    let mut expected: Vec<String> = (1..=HANDS).map(|k| key(id, k)).collect();
    expected.sort();
    assert_eq!(keys, expected);
}

/// How one CLI run ended.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Done(String),
    Busy,
}

/// A CLI run must succeed or say plainly that the database is busy, and only after waiting
/// the busy timeout (5 s) for the lock; anything else (a panic, a raw SQLite error, giving up
/// at once) fails the test.
fn outcome(args: &[&str], out: &Output, took: Duration) -> Outcome {
    let (so, se) = (stdout(out), stderr(out));
    assert!(
        !se.contains("panicked"),
        "{args:?} panicked: {se}\n(stdout: {so})"
    );
    if out.status.success() {
        return Outcome::Done(so);
    }
    assert_eq!(
        out.status.code(),
        Some(1),
        "{args:?}: exit status {:?}: {se}",
        out.status
    );
    assert_eq!(
        se.trim(),
        BUSY,
        "{args:?} failed other than busy (stdout: {so})"
    );
    assert!(
        took >= Duration::from_millis(4500),
        "{args:?} gave up after {took:?}, not after the busy timeout"
    );
    Outcome::Busy
}

#[actix_web::test]
async fn the_cli_writes_while_the_server_writes_and_nothing_is_lost_or_damaged() {
    const TABLES: usize = 4;
    const USERS: usize = 4;
    let began = Instant::now();
    let s = season("shared", TABLES).await;
    let db = db_path(&s.app).await;
    let stop = Arc::new(AtomicBool::new(false));
    let barrier = Arc::new(Barrier::new(TABLES + 1));
    let progress: Vec<Arc<Progress>> = (0..TABLES).map(|_| Arc::default()).collect();
    let mut clients = Vec::new();
    for t in 0..TABLES {
        let (phone, stop, barrier) = (s.phone(), stop.clone(), barrier.clone());
        let (id, version, progress) = (s.id(t), s.version(t), progress[t].clone());
        clients.push(actix_web::rt::spawn(async move {
            barrier.wait().await;
            play(phone, id, version, Plan::Bags, (3, 400), stop, progress).await
        }));
    }
    // The command line, in one process after the other, while the clients post hands:
    // the demo season (many transactions), then users and their tokens.
    barrier.wait().await;
    let mut runs: Vec<(Vec<String>, Outcome)> = Vec::new();
    let mut run = async |args: &[&str]| {
        let started = Instant::now();
        let out = cli_async(&db, args).await;
        let o = outcome(args, &out, started.elapsed());
        runs.push((args.iter().map(|a| a.to_string()).collect(), o));
    };
    run(&["demo"]).await;
    for i in 0..USERS {
        let name = format!("cli-{i}");
        run(&["user", "add", &name, "--role", "supervisor"]).await;
        run(&["token", "create", &name]).await;
    }
    stop.store(true, Ordering::SeqCst);
    let mut acked = Vec::new();
    for client in clients {
        acked.push(client.await.expect("a client"));
    }

    // An SQLite file is sound (PostgreSQL has no file of ours to damage, and checks every
    // foreign key as it writes).
    if let Location::File(file) = &s.app.location {
        let (integrity, broken) = check_file(file).await;
        assert_eq!(integrity, ["ok"], "integrity_check after the shared writes");
        assert_eq!(broken, 0, "foreign_key_check after the shared writes");
    }

    // Every acknowledged hand is stored exactly once, as sent, and nothing else is.
    for (t, answers) in acked.iter().enumerate() {
        let id = s.id(t);
        let rows = stored_hands(&s.app, id).await;
        assert_eq!(
            rows.len(),
            answers.len(),
            "match {id}: {} hands acknowledged, {} stored",
            answers.len(),
            rows.len()
        );
        for (i, (number, revision, hand)) in rows.iter().enumerate() {
            assert_eq!((*number, *revision), (i as i64 + 1, 1), "match {id}");
            assert_eq!(
                played(hand),
                played(&bag_hand(id, i + 1)),
                "match {id} hand {number}"
            );
        }
        assert_eq!(idempotency_keys(&s.app, id).await.len(), answers.len());
        let last = answers.last().expect("at least the minimum of hands");
        assert_eq!(
            &get_match(&s.app, id).await,
            last,
            "match {id}: the last answer"
        );
    }

    // What the command line said it did is there.
    let mut done = 0;
    for (args, o) in &runs {
        let Outcome::Done(out) = o else { continue };
        done += 1;
        match args[0].as_str() {
            "demo" => {
                let r = s.app.get("/api/v1/leagues/demo-fall").await;
                assert_eq!(r.status(), 200, "the demo league: {out}");
            }
            "user" => {
                let n: i64 =
                    spades_im::on_store!(s.app.db.read().await.unwrap(), |c| sqlx::query_scalar(
                        "SELECT count(*) FROM users WHERE username = $1"
                    )
                    .bind(&args[2])
                    .fetch_one(c)
                    .await)
                    .unwrap();
                assert_eq!(n, 1, "user {} added: {out}", args[2]);
            }
            "token" => {
                let user = accounts::token_holder(&s.app.db, out.trim())
                    .await
                    .unwrap()
                    .map(|h| h.user)
                    .unwrap_or_else(|| panic!("the token printed for {} works", args[2]));
                assert_eq!(user.username, args[2]);
            }
            other => panic!("unexpected command {other}"),
        }
    }
    let hands: usize = acked.iter().map(Vec::len).sum();
    let busy: usize = progress.iter().map(|p| p.busy.load(Ordering::SeqCst)).sum();
    println!(
        "{} commands ({done} done, {} busy) while {hands} hands were entered ({busy} busy \
         answers, each sent again), in {:.1} s",
        runs.len(),
        runs.len() - done,
        began.elapsed().as_secs_f64()
    );
    // A hand is answered busy only when a command held the lock past the server's busy
    // timeout: at most once per table for each command run.
    let bound = TABLES * runs.len();
    assert!(
        busy <= bound,
        "{busy} busy answers to {TABLES} tables during {} commands (at most {bound})",
        runs.len()
    );
}

#[actix_web::test]
async fn a_command_on_a_database_held_past_the_busy_timeout_says_busy_then_succeeds() {
    let s = season("held", 1).await;
    let db = db_path(&s.app).await;
    // The server's writer, held in a write transaction longer than the 5 s busy timeout.
    let held = s.app.db.write().await.expect("BEGIN IMMEDIATE");
    let started = Instant::now();
    let (add, token) = tokio::join!(
        cli_async(&db, &["user", "add", "late", "--role", "supervisor"]),
        cli_async(&db, &["token", "create", "sup"]),
    );
    let waited = started.elapsed();
    drop(held);
    for (args, out) in [("user add", &add), ("token create", &token)] {
        assert!(
            !out.status.success(),
            "{args} succeeded with the database locked"
        );
        assert_eq!(out.status.code(), Some(1), "{args}");
        assert_eq!(stderr(out).trim(), BUSY, "{args}");
        assert_eq!(stdout(out), "", "{args}");
    }
    assert!(
        waited >= Duration::from_secs(4),
        "the commands waited for the busy timeout ({waited:?})"
    );
    let n: i64 = spades_im::on_store!(s.app.db.read().await.unwrap(), |c| sqlx::query_scalar(
        "SELECT count(*) FROM users WHERE username = 'late'"
    )
    .fetch_one(c)
    .await)
    .unwrap();
    assert_eq!(n, 0, "nothing written by the refused command");
    // Trying again, once the lock is gone, works.
    let again = cli_async(&db, &["user", "add", "late", "--role", "supervisor"]).await;
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(stdout(&again).starts_with("user late (supervisor) added"));
}

/// A match read while its hands are recorded shows totals that agree with the hands it lists:
/// one snapshot, never the row of one commit and the hands of the next (three hands with two
/// hands' totals was seen by a browser test under load).
#[actix_web::test]
async fn a_match_read_while_hands_are_recorded_agrees_with_itself() {
    const HANDS: usize = 60;
    const READERS: usize = 4;
    let s = season("torn", 1).await;
    let done = Arc::new(AtomicBool::new(false));
    let id = s.id(0);
    let phone = s.phone();
    let mut version = s.version(0);
    let writer = actix_web::rt::spawn(async move {
        for n in 0..HANDS {
            let body = json!({"hand": bag_hand(id, n), "expected_version": version});
            let (status, _, answer) = phone.post_hand(id, &body).await;
            assert_eq!(status, 201, "hand {n}: {answer}");
            version = answer["version"].as_i64().expect("version");
        }
    });
    // Readers on their own connections, as the TV and the match pages are.
    let readers: Vec<_> = (0..READERS)
        .map(|_| {
            let (address, writer_done) = (s.app.address.clone(), done.clone());
            actix_web::rt::spawn(async move {
                let client = reqwest::Client::new();
                let mut reads = 0;
                while !writer_done.load(Ordering::SeqCst) {
                    let url = format!("{address}/api/v1/matches/{id}");
                    let view: Value = client.get(url).send().await.unwrap().json().await.unwrap();
                    let hands = view["hands"].as_array().expect("hands");
                    let (a, b) = hands.last().map_or((json!(0), json!(0)), |h| {
                        (h["a"]["score"].clone(), h["b"]["score"].clone())
                    });
                    assert_eq!(
                        (&view["a"]["score"], &view["b"]["score"]),
                        (&a, &b),
                        "a read after {} hands shows the totals of its last hand",
                        hands.len()
                    );
                    reads += 1;
                }
                reads
            })
        })
        .collect();
    writer.await.expect("the hands");
    done.store(true, Ordering::SeqCst);
    let mut reads = 0;
    for reader in readers {
        reads += reader.await.expect("a reader");
    }
    assert!(reads > 10, "reads while the hands went in: {reads}");
}
