//! Backup under load and `restore` (the CLI, as built), checked against the source server.
//!
//! - Load stopped, then a backup (CLI) of the running server, restored (CLI) into a new file
//!   and served: every public read of the API and every CSV export (leagues, teams, matches
//!   with their hands, standings, the bracket, the scoreboard) answers exactly what the source
//!   answers, and the two databases hold the same rows.
//! - A backup taken while clients post hands (by the CLI, and by `Db::backup` in the server at
//!   the same moment): it restores and passes `integrity_check`, and each match in it is a
//!   prefix of what was acknowledged: at least the hands acknowledged before the backup
//!   started, at most those sent before it ended, and the match exactly as the source answered
//!   right after its last hand.
//! - `restore` refuses what is not a sound spades-im backup (not SQLite, damaged pages, broken
//!   foreign keys, another program's or a newer release's schema, an unfinished migration),
//!   a database in use (even with `--force`) and an existing one without `--force`; it leaves
//!   nothing behind when it refuses, removes the old database's log so it is never applied to
//!   the restored one, and folds in the log of a backup copied as files.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection};
use tokio::sync::Barrier;

use crate::concurrency::{
    Plan, Progress, Season, check_file, cli_async, db_path, play, season_on_sqlite, stderr, stdout,
    stored_hands,
};
use crate::helpers::{TestApp, spawn_app_on_copy, tables};

/// One answer as compared: status, content type and body (JSON parsed, else the text).
#[derive(Debug, PartialEq)]
struct Answer {
    status: u16,
    content_type: String,
    json: Option<Value>,
    text: String,
}

async fn ask(app: &TestApp, path: &str) -> Answer {
    let r = app.get(path).await;
    let status = r.status().as_u16();
    let content_type = r
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let text = r.text().await.expect("a body");
    let json = content_type
        .starts_with("application/json")
        .then(|| serde_json::from_str(&text).unwrap_or_else(|e| panic!("GET {path}: {e}")));
    Answer {
        status,
        content_type,
        // JSON is compared as values (the order of fields is not part of the API).
        text: if json.is_some() { String::new() } else { text },
        json,
    }
}

async fn json(app: &TestApp, path: &str) -> Value {
    let a = ask(app, path).await;
    assert_eq!(a.status, 200, "GET {path}");
    a.json.unwrap_or_else(|| panic!("GET {path}: not JSON"))
}

/// Every public read, found through the API: the lists, then per league its pages and
/// exports, then per match the match and its scoresheet.
async fn reads(app: &TestApp) -> Vec<String> {
    let mut out: Vec<String> = ["/api/v1/leagues", "/api/v1/scoreboard"]
        .map(String::from)
        .to_vec();
    let leagues = json(app, "/api/v1/leagues").await;
    for league in leagues["leagues"].as_array().expect("leagues") {
        let slug = league["slug"].as_str().expect("slug");
        for tail in ["", "/teams", "/matches", "/standings", "/bracket"] {
            out.push(format!("/api/v1/leagues/{slug}{tail}"));
        }
        out.push(format!("/leagues/{slug}/standings.csv"));
        out.push(format!("/leagues/{slug}/bracket.csv"));
        let matches = json(app, &format!("/api/v1/leagues/{slug}/matches")).await;
        for m in matches["matches"].as_array().expect("matches") {
            let id = m["id"].as_i64().expect("match id");
            out.push(format!("/api/v1/matches/{id}"));
            out.push(format!("/matches/{id}/scoresheet.csv"));
        }
    }
    out
}

/// Asks every read of `source` of both servers; panics at the first difference. Returns how
/// many reads were compared.
async fn assert_same_answers(source: &TestApp, copy: &TestApp) -> usize {
    let paths = reads(source).await;
    assert_eq!(paths, reads(copy).await, "the same leagues and matches");
    for path in &paths {
        let (want, got) = (ask(source, path).await, ask(copy, path).await);
        assert_eq!(got, want, "GET {path}: the restored copy answers otherwise");
    }
    paths.len()
}

/// `backup FILE` through the CLI; the file is written and checked.
async fn cli_backup(db: &Path, file: &Path) {
    let out = cli_async(db, &["backup", file.to_str().unwrap()]).await;
    assert!(out.status.success(), "backup: {}", stderr(&out));
    assert!(
        stdout(&out).contains("checked"),
        "backup says it checked the copy"
    );
}

/// `restore BACKUP_FILE --db target` through the CLI, expected to succeed.
async fn cli_restore(backup: &Path, target: &Path, force: bool) -> String {
    let mut args = vec!["restore", backup.to_str().unwrap()];
    if force {
        args.push("--force");
    }
    let out = cli_async(target, &args).await;
    assert!(
        out.status.success(),
        "restore {}: {}",
        backup.display(),
        stderr(&out)
    );
    let said = stdout(&out);
    assert!(
        said.contains(&format!(
            "serve it with: cargo run --release -- --db {}",
            target.display()
        )),
        "restore says how to serve the copy, as started with cargo: {said}"
    );
    no_bare_command(&said);
    said
}

/// What the program prints names its commands as run from the source tree (`cargo run
/// --release -- …`), never as a bare `spades-im …` that is not on anyone's PATH.
fn no_bare_command(said: &str) {
    for bare in [
        "`spades-im ",
        "\"spades-im ",
        "run spades-im",
        "with spades-im ",
    ] {
        assert!(!said.contains(bare), "a bare command in: {said}");
    }
    assert!(
        !said
            .lines()
            .any(|l| l.trim_start().starts_with("spades-im ")),
        "a bare command in: {said}"
    );
}

/// The bracket's playoff matches that have both teams and are not played yet.
fn ready(bracket: &Value) -> Vec<i64> {
    bracket["matches"]
        .as_array()
        .expect("bracket matches")
        .iter()
        .filter(|m| m["match_id"].is_i64() && m["status"] == "scheduled")
        .map(|m| m["match_id"].as_i64().unwrap())
        .collect()
}

/// A season after league night under load: of four matches played at once, two won by a
/// sweep (one by each side) and two left in progress after 12 hands; a fifth forfeited; then
/// a 4-team playoff bracket, a semifinal started with two hands in.
async fn played_season() -> Season {
    let s = season_on_sqlite("fall", 4).await;
    let plans = [Plan::Sweep("a"), Plan::Sweep("b"), Plan::Bags, Plan::Bags];
    let barrier = Arc::new(Barrier::new(plans.len()));
    let stop = Arc::new(AtomicBool::new(true));
    let clients: Vec<_> = plans
        .iter()
        .enumerate()
        .map(|(t, plan)| {
            let (phone, barrier, stop, plan) = (s.phone(), barrier.clone(), stop.clone(), *plan);
            let (id, version) = (s.id(t), s.version(t));
            actix_web::rt::spawn(async move {
                barrier.wait().await;
                play(phone, id, version, plan, (12, 12), stop, Arc::default()).await
            })
        })
        .collect();
    for (t, client) in clients.into_iter().enumerate() {
        let answers = client.await.expect("a client");
        let last = answers.last().expect("hands");
        match t {
            0 | 1 => assert_eq!(last["status"], "complete", "table {t}"),
            _ => assert_eq!(answers.len(), 12, "table {t}"),
        }
    }
    // A forfeit (team b does not show up).
    let r = s
        .admin
        .post(
            &format!("/api/v1/leagues/{}/matches", s.slug),
            &json!({"team_a": s.teams[4], "team_b": s.teams[1], "table": "Court 9"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let id = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let sup = s.app.api(&s.sup_token);
    let r = sup
        .post(
            &format!("/api/v1/matches/{id}/forfeit"),
            &json!({"team": "b"}),
        )
        .await;
    assert_eq!(r.status(), 200, "forfeit");
    // The playoffs, a semifinal under way.
    let r = s
        .admin
        .post(
            &format!("/api/v1/leagues/{}/playoffs", s.slug),
            &json!({"format": "single_elimination", "teams": 4, "force": true}),
        )
        .await;
    assert_eq!(r.status(), 201, "playoffs: {}", r.text().await.unwrap());
    let bracket = json(&s.app, &format!("/api/v1/leagues/{}/bracket", s.slug)).await;
    let semi = *ready(&bracket).first().expect("a semifinal to play");
    let r = sup
        .post(&format!("/api/v1/matches/{semi}/start"), &json!({}))
        .await;
    assert_eq!(r.status(), 200, "start the semifinal");
    let started: Value = r.json().await.unwrap();
    let answers = play(
        s.phone(),
        semi,
        started["version"].as_i64().unwrap(),
        Plan::Sweep("a"),
        (2, 2),
        Arc::new(AtomicBool::new(true)),
        Arc::default(),
    )
    .await;
    assert_eq!(answers.len(), 2);
    s
}

#[actix_web::test]
async fn a_backup_taken_after_the_load_restores_to_the_same_answers() {
    let s = played_season().await;
    let dir = tempfile::tempdir().unwrap();
    let backup = dir.path().join("after-the-load.sqlite3");
    cli_backup(&db_path(&s.app).await, &backup).await;
    let restored = dir.path().join("restored").join("spades.sqlite3");
    let said = cli_restore(&backup, &restored, false).await;
    assert!(!said.contains("in place of"), "{said}");
    let (integrity, broken) = check_file(&restored).await;
    assert_eq!((integrity, broken), (vec!["ok".to_string()], 0));

    let copy = spawn_app_on_copy(&restored).await;
    let compared = assert_same_answers(&s.app, &copy).await;
    // 2 lists + 7 per league + 2 per match (4 + 1 forfeit + the playoff matches).
    assert!(compared >= 2 + 7 + 2 * 7, "{compared} reads compared");
    // The bracket, the standings and the scoreboard are among them and are not empty.
    let bracket = json(&copy, "/api/v1/leagues/fall/bracket").await;
    assert!(!bracket["matches"].as_array().unwrap().is_empty());
    let board = json(&copy, "/api/v1/scoreboard").await;
    // (A game that ended in the last minute is there too, as final.)
    let in_play = board["matches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["status"] == "in_progress")
        .count();
    assert_eq!(in_play, 3, "two matches and the semifinal in play: {board}");
    // Beyond the API: the same rows in every table, and the same tokens work.
    tables(&s.app.db)
        .await
        .assert_same(&tables(&copy.db).await, "the restored copy");
    let m = json(&copy, &format!("/api/v1/matches/{}", s.id(2))).await;
    let (status, _, answer) = crate::concurrency::Phone {
        base: copy.address.clone(),
        token: s.sup_token.clone(),
        http: reqwest::Client::new(),
    }
    .post_hand(
        s.id(2),
        &json!({"hand": crate::concurrency::bag_hand(s.id(2), 13),
                "expected_version": m["version"], "idempotency_key": "after-restore"}),
    )
    .await;
    assert_eq!(
        status, 201,
        "league night goes on on the restored copy: {answer}"
    );
}

#[actix_web::test]
async fn a_backup_taken_during_the_load_holds_a_prefix_of_the_acknowledged_hands() {
    const TABLES: usize = 6;
    let s = season_on_sqlite("busy", TABLES).await;
    let db = db_path(&s.app).await;
    let stop = Arc::new(AtomicBool::new(false));
    let progress: Vec<Arc<Progress>> = (0..TABLES).map(|_| Arc::default()).collect();
    let barrier = Arc::new(Barrier::new(TABLES));
    let clients: Vec<_> = (0..TABLES)
        .map(|t| {
            let (phone, barrier, stop) = (s.phone(), barrier.clone(), stop.clone());
            let (id, version, progress) = (s.id(t), s.version(t), progress[t].clone());
            actix_web::rt::spawn(async move {
                barrier.wait().await;
                play(phone, id, version, Plan::Bags, (4, 500), stop, progress).await
            })
        })
        .collect();
    let acked = |p: &Vec<Arc<Progress>>| -> Vec<usize> {
        p.iter().map(|p| p.acked.load(Ordering::SeqCst)).collect()
    };
    // Under way: every table has hands in.
    let deadline = Instant::now() + Duration::from_secs(30);
    while acked(&progress).iter().any(|&n| n < 2) {
        assert!(Instant::now() < deadline, "the load did not start");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }

    // Two backups at the same moment: the CLI's (its own process and connection) and the
    // server's own `Db::backup` (the admin page's download).
    let dir = tempfile::tempdir().unwrap();
    let (by_cli, by_server) = (
        dir.path().join("by-cli.sqlite3"),
        dir.path().join("by-server.sqlite3"),
    );
    let before = acked(&progress);
    let (_, server_backup) = tokio::join!(cli_backup(&db, &by_cli), s.app.db.backup(&by_server));
    server_backup.expect("Db::backup under load");
    let sent_by_end: Vec<usize> = progress
        .iter()
        .map(|p| p.sent.load(Ordering::SeqCst))
        .collect();
    let during_backup = acked(&progress);
    // The load goes on after the backup, then stops.
    let deadline = Instant::now() + Duration::from_secs(30);
    while acked(&progress)
        .iter()
        .zip(&sent_by_end)
        .any(|(&now, &then)| now < then + 1)
    {
        assert!(
            Instant::now() < deadline,
            "the load stopped with the backup"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    stop.store(true, Ordering::SeqCst);
    let mut answers = Vec::new();
    for client in clients {
        answers.push(client.await.expect("a client"));
    }
    println!(
        "acknowledged before the backups {before:?}, during {during_backup:?}, sent by their end \
         {sent_by_end:?}, in all {:?}",
        answers.iter().map(Vec::len).collect::<Vec<_>>()
    );

    for backup in [&by_cli, &by_server] {
        let mut held = Vec::new();
        let (integrity, broken) = check_file(backup).await;
        assert_eq!(integrity, ["ok"], "{}", backup.display());
        assert_eq!(broken, 0, "{}", backup.display());
        let target = dir.path().join(format!(
            "restored-{}",
            backup.file_name().unwrap().to_str().unwrap()
        ));
        cli_restore(backup, &target, false).await;
        let copy = spawn_app_on_copy(&target).await;
        for t in 0..TABLES {
            let id = s.id(t);
            let m = json(&copy, &format!("/api/v1/matches/{id}")).await;
            let n = m["hands"].as_array().expect("hands").len();
            let what = format!("{}: match {id} with {n} hands", backup.display());
            assert!(
                n >= before[t],
                "{what}: {} were acknowledged before the backup started",
                before[t]
            );
            assert!(
                n <= sent_by_end[t],
                "{what}: only {} were sent before it ended",
                sent_by_end[t]
            );
            assert!(n <= answers[t].len(), "{what}: more than the source has");
            // The match exactly as the source answered right after its hand n.
            let then = if n == 0 {
                &s.started[t]
            } else {
                &answers[t][n - 1]
            };
            assert_eq!(&m, then, "{what}: not the match as it was after hand {n}");
            // One row per hand, no duplicates.
            let rows = stored_hands(&copy, id).await;
            let numbers: Vec<i64> = rows.iter().map(|(n, r, _)| n * 100 + r).collect();
            let expected: Vec<i64> = (1..=n as i64).map(|k| k * 100 + 1).collect();
            assert_eq!(numbers, expected, "{what}: the stored hands");
            held.push(n);
        }
        println!("{} holds {held:?} hands", backup.display());
    }
}

/// A small season's backup (two hands in), written by `Db::backup`; the season stays up.
async fn small_backup(dir: &Path) -> (Season, PathBuf) {
    let s = season_on_sqlite("small", 1).await;
    let answers = play(
        s.phone(),
        s.id(0),
        s.version(0),
        Plan::Bags,
        (2, 2),
        Arc::new(AtomicBool::new(true)),
        Arc::default(),
    )
    .await;
    assert_eq!(answers.len(), 2);
    let file = dir.join("small.sqlite3");
    s.app.db.backup(&file).await.expect("backup");
    (s, file)
}

/// A copy of `from` at `to`, changed by `sql` (foreign keys off).
async fn altered(from: &Path, to: &Path, sql: &str) {
    std::fs::copy(from, to).unwrap();
    let mut conn = SqliteConnectOptions::new()
        .filename(to)
        .foreign_keys(false)
        .connect()
        .await
        .unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_string()))
        .execute(&mut conn)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    conn.close().await.unwrap();
}

/// A new SQLite file made of `sql`.
async fn made_of(to: &Path, sql: &str) {
    let mut conn = SqliteConnectOptions::new()
        .filename(to)
        .create_if_missing(true)
        .connect()
        .await
        .unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_string()))
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
}

/// The files in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[actix_web::test]
async fn restore_refuses_what_is_not_a_sound_spades_im_backup() {
    let dir = tempfile::tempdir().unwrap();
    let (s, good) = small_backup(dir.path()).await;
    let bad = |name: &str| dir.path().join(name);

    std::fs::write(
        bad("text.sqlite3"),
        "these are not the pages you are looking for\n".repeat(200),
    )
    .unwrap();
    // Every byte of the last page overwritten: a damaged b-tree page.
    let damaged = bad("damaged.sqlite3");
    std::fs::copy(&good, &damaged).unwrap();
    let mut bytes = std::fs::read(&damaged).unwrap();
    let page = match u16::from_be_bytes([bytes[16], bytes[17]]) {
        1 => 65536,
        n => n as usize,
    };
    let len = bytes.len();
    assert!(len >= 3 * page, "a backup of several pages");
    bytes[len - page..].fill(0xA5);
    std::fs::write(&damaged, &bytes).unwrap();
    // An index whose entries no longer match its table (its definition changed under it):
    // every read still works; only the integrity check sees it. (An index taken out of the
    // schema, its pages left, is not always seen: whether SQLite reports the lost pages
    // depended on where the backup put them.)
    altered(
        &good,
        &bad("stale-index.sqlite3"),
        "PRAGMA writable_schema = ON;
         UPDATE sqlite_master SET sql = 'CREATE INDEX matches_league ON matches(team_b, status)'
         WHERE name = 'matches_league';
         PRAGMA writable_schema = OFF;",
    )
    .await;
    altered(
        &good,
        &bad("orphans.sqlite3"),
        "DELETE FROM users WHERE username = 'sup'",
    )
    .await;
    altered(
        &good,
        &bad("newer.sqlite3"),
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
         VALUES (20990101000000, 'from the future', 1, x'00', 0)",
    )
    .await;
    altered(
        &good,
        &bad("unfinished.sqlite3"),
        "UPDATE _sqlx_migrations SET success = 0
         WHERE version = (SELECT max(version) FROM _sqlx_migrations)",
    )
    .await;
    altered(
        &good,
        &bad("changed.sqlite3"),
        "UPDATE _sqlx_migrations SET checksum = x'0badc0de' WHERE version = 1",
    )
    .await;
    made_of(
        &bad("plain.sqlite3"),
        "CREATE TABLE t (x); INSERT INTO t VALUES (1);",
    )
    .await;
    made_of(
        &bad("other-app.sqlite3"),
        "CREATE TABLE _sqlx_migrations (version BIGINT PRIMARY KEY, description TEXT NOT NULL,
             installed_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, success BOOLEAN NOT NULL,
             checksum BLOB NOT NULL, execution_time BIGINT NOT NULL);
         INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
             VALUES (1, 'init', 1, x'0102', 0);",
    )
    .await;
    std::fs::write(bad("empty.sqlite3"), "").unwrap();

    let cases: &[(&str, &str)] = &[
        ("missing.sqlite3", "cannot read the backup"),
        ("text.sqlite3", "is not an SQLite database"),
        ("damaged.sqlite3", "is damaged"),
        (
            "stale-index.sqlite3",
            "is damaged: its integrity check found",
        ),
        ("orphans.sqlite3", "refer to rows that do not exist"),
        ("newer.sqlite3", "was written by a newer spades-im"),
        ("unfinished.sqlite3", "did not finish"),
        (
            "changed.sqlite3",
            "is not a spades-im database: its migration 1 is not this program's",
        ),
        (
            "plain.sqlite3",
            "is not a spades-im database: it has no _sqlx_migrations table",
        ),
        ("other-app.sqlite3", "is not a spades-im database"),
        ("empty.sqlite3", "is not a spades-im database"),
    ];
    let into = dir.path().join("into");
    std::fs::create_dir(&into).unwrap();
    let target = into.join("spades.sqlite3");
    for (name, says) in cases {
        let file = bad(name);
        let out = cli_async(&target, &["restore", file.to_str().unwrap()]).await;
        let said = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{name}: {said}");
        assert!(
            said.starts_with("error: ")
                && said.contains(&file.display().to_string())
                && said.contains(says),
            "{name}: expected \"{says}\", got: {said}"
        );
        assert!(!said.contains("panicked"), "{name}: {said}");
        no_bare_command(&said);
        assert_eq!(
            listing(&into),
            Vec::<String>::new(),
            "{name}: nothing left behind"
        );
    }

    // The good one is restored, and served answers as its source.
    cli_restore(&good, &target, false).await;
    assert_eq!(listing(&into), ["spades.sqlite3"]);
    let copy = spawn_app_on_copy(&target).await;
    assert_same_answers(&s.app, &copy).await;

    // With --force over it, a bad backup is refused all the same and the database in place
    // is left byte for byte as it was.
    let in_place = std::fs::read(&target).unwrap();
    for (name, says) in cases {
        let file = bad(name);
        let out = cli_async(&target, &["restore", file.to_str().unwrap(), "--force"]).await;
        assert_eq!(out.status.code(), Some(1), "{name} --force");
        assert!(
            stderr(&out).contains(says),
            "{name} --force: {}",
            stderr(&out)
        );
        assert_eq!(
            std::fs::read(&target).unwrap(),
            in_place,
            "{name} --force: the database in place is untouched"
        );
        assert_eq!(listing(&into), ["spades.sqlite3"], "{name} --force");
    }
}

#[actix_web::test]
async fn restore_never_replaces_a_database_in_use_and_an_existing_one_only_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let (_source, good) = small_backup(dir.path()).await;

    // A server running on its database: refused, even with --force; the server's data is
    // as it was and it goes on serving.
    let live = season_on_sqlite("live", 1).await;
    let live_db = db_path(&live.app).await;
    let before = live.app.tables().await;
    for force in [false, true] {
        let mut args = vec!["restore", good.to_str().unwrap()];
        if force {
            args.push("--force");
        }
        let out = cli_async(&live_db, &args).await;
        let said = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "force {force}: {said}");
        assert!(
            said.contains(&format!("{} is in use", live_db.display()))
                && said.contains("stop the server first"),
            "force {force}: {said}"
        );
    }
    live.app
        .assert_nothing_written(&before, "a refused restore")
        .await;
    assert_eq!(
        json(&live.app, "/api/v1/leagues/live").await["slug"],
        "live"
    );
    let (integrity, _) = check_file(&live_db).await;
    assert_eq!(integrity, ["ok"]);

    // An existing database nobody has open: only with --force.
    let target = dir.path().join("existing.sqlite3");
    cli_restore(&good, &target, false).await;
    let first = std::fs::read(&target).unwrap();
    let out = cli_async(&target, &["restore", good.to_str().unwrap()]).await;
    let said = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!("{} already exists: add --force", target.display())),
        "{said}"
    );
    assert_eq!(std::fs::read(&target).unwrap(), first, "left as it was");
    let said = cli_restore(&good, &target, true).await;
    assert!(
        said.contains("in place of the database that was there"),
        "{said}"
    );
    // A backup is not restored over itself.
    let out = cli_async(&target, &["restore", target.to_str().unwrap(), "--force"]).await;
    assert!(
        stderr(&out).contains("is the database itself"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        listing(dir.path()),
        ["existing.sqlite3", "small.sqlite3"],
        "no temporary file left"
    );
}

/// The leagues' slugs in the database file at `path`, opened in place (its log, if any,
/// applied as SQLite does).
async fn slugs_in(path: &Path) -> Vec<String> {
    let mut conn = SqliteConnectOptions::new()
        .filename(path)
        .connect()
        .await
        .unwrap();
    let slugs = sqlx::query_scalar("SELECT slug FROM leagues ORDER BY slug")
        .fetch_all(&mut conn)
        .await
        .unwrap();
    let integrity: String = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    assert_eq!(integrity, "ok", "{}", path.display());
    slugs
}

fn copy_with_log(from: &Path, to: &Path, suffixes: &[&str]) {
    std::fs::copy(from, to).unwrap();
    for s in suffixes {
        let mut f = from.as_os_str().to_owned();
        f.push(s);
        let mut t = to.as_os_str().to_owned();
        t.push(s);
        std::fs::copy(&f, &t).unwrap_or_else(|e| panic!("copy {f:?}: {e}"));
    }
}

fn log_of(path: &Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    p.into()
}

#[actix_web::test]
async fn restore_removes_the_old_log_and_folds_in_the_log_of_a_copied_database() {
    let dir = tempfile::tempdir().unwrap();
    let (_source, good) = small_backup(dir.path()).await;
    // A database whose latest writes are still in its write-ahead log (no checkpoint yet).
    let old = season_on_sqlite("old", 1).await;
    let old_db = db_path(&old.app).await;
    assert!(
        std::fs::metadata(log_of(&old_db, "-wal")).unwrap().len() > 0,
        "the old database has a log"
    );

    // The log (and index) of a database whose file was deleted: never applied to the
    // restored one.
    let orphan = dir.path().join("orphan.sqlite3");
    copy_with_log(&old_db, &orphan, &["-wal", "-shm"]);
    std::fs::remove_file(&orphan).unwrap();
    cli_restore(&good, &orphan, false).await;
    for s in ["-wal", "-shm"] {
        assert!(!log_of(&orphan, s).exists(), "the stale {s} is removed");
    }
    assert_eq!(slugs_in(&orphan).await, ["small"]);

    // Replacing a database left with its log (a server that was stopped hard): the same.
    let replaced = dir.path().join("replaced.sqlite3");
    copy_with_log(&old_db, &replaced, &["-wal", "-shm"]);
    cli_restore(&good, &replaced, true).await;
    for s in ["-wal", "-shm"] {
        assert!(!log_of(&replaced, s).exists(), "the stale {s} is removed");
    }
    assert_eq!(slugs_in(&replaced).await, ["small"]);

    // A backup made by copying the files of a stopped server (database and log): the log is
    // part of it and is folded in.
    let copied = dir.path().join("copied.sqlite3");
    copy_with_log(&old_db, &copied, &["-wal"]);
    let target = dir.path().join("from-copied.sqlite3");
    cli_restore(&copied, &target, false).await;
    assert!(!log_of(&target, "-wal").exists());
    assert_eq!(slugs_in(&target).await, ["old"]);
    let (integrity, broken) = check_file(&target).await;
    assert_eq!((integrity, broken), (vec!["ok".to_string()], 0));
}
