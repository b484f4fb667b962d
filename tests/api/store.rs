//! What the store promises at start-up and under concurrent writes, on the test store
//! (`SPADES_TEST_DB`): each promise on PostgreSQL, and on SQLite too where it applies.

use serde_json::{Value, json};
use spades_im::db::{Db, Location};
use spades_im::domain::{Clock, LeagueId, machine_zone};
use spades_im::service::{Role, people::accounts};
use sqlx::Connection;

use crate::concurrency::bag_hand;
use crate::helpers::{empty_postgres_store, json_with_status, on_postgres, spawn_app, test_store};

/// The PostgreSQL URL of `location`.
fn pg_url(location: &Location) -> &str {
    let Location::Postgres(url) = location else {
        panic!("on PostgreSQL")
    };
    url
}

/// The name of the database a PostgreSQL URL names.
fn database_name(url: &str) -> &str {
    let base = url.split_once('?').map_or(url, |(base, _)| base);
    base.rsplit('/').next().expect("a database name")
}

/// Runs `sql` on a connection of its own to the PostgreSQL database `url`.
async fn pg_execute(url: &str, sql: String) {
    let mut conn = sqlx::PgConnection::connect(url).await.expect("connect");
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql.clone()))
        .execute(&mut conn)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    conn.close().await.expect("close");
}

fn clock() -> Clock {
    Clock::system(machine_zone())
}

/// Two instances starting together on an empty database, each making sure an admin exists
/// (twice each, to give the race every chance): all of them start, and exactly one made the
/// admin.
#[actix_web::test]
async fn instances_starting_together_on_an_empty_database_make_one_admin() {
    let dir = tempfile::tempdir().expect("dir");
    let location = test_store(dir.path()).await;
    let one = Db::open(&location, clock()).await.expect("one opens");
    let two = Db::open(&location, clock()).await.expect("two opens");
    let results = tokio::join!(
        accounts::ensure_admin(&one),
        accounts::ensure_admin(&two),
        accounts::ensure_admin(&one),
        accounts::ensure_admin(&two),
    );
    let results = [results.0, results.1, results.2, results.3];
    let made: Vec<_> = results
        .iter()
        .map(|r| match r {
            Ok(made) => made.is_some(),
            Err(e) => panic!("an instance failed to start: {e} ({results:?})"),
        })
        .collect();
    assert_eq!(made.iter().filter(|m| **m).count(), 1, "{results:?}");
    let mut conn = one.read().await.expect("conn");
    assert_eq!(
        spades_im::db::users::count_admins(&mut conn)
            .await
            .expect("count"),
        1
    );
}

/// On a PostgreSQL database whose default isolation is REPEATABLE READ, hands sent at once
/// to two instances are all recorded: a write transaction asks for READ COMMITTED, so what
/// it reads after the write lock includes the writes committed while it waited.
#[actix_web::test]
async fn writes_are_read_committed_whatever_the_database_default() {
    if !on_postgres() {
        // SQLite has one isolation (serializable): nothing to set.
        return;
    }
    let one = spawn_app().await;
    let url = pg_url(&one.location).to_string();
    pg_execute(
        &url,
        format!(
            "ALTER DATABASE {} SET default_transaction_isolation = 'repeatable read'",
            database_name(&url)
        ),
    )
    .await;
    // New connections (the two instances below) get the setting.
    let mut probe = sqlx::PgConnection::connect(&url).await.expect("connect");
    let default: String = sqlx::query_scalar("SHOW default_transaction_isolation")
        .fetch_one(&mut probe)
        .await
        .expect("show");
    assert_eq!(default, "repeatable read");
    probe.close().await.expect("close");
    let two = one.another_instance().await;
    let three = one.another_instance().await;
    let admin = one.api_user("coord", Role::Admin).await;
    let teams = one.league(&admin, "iso", json!("partnership"), 2).await;
    let (on_two, on_three) = (two.api(&admin), three.api(&admin));
    let mut matches = Vec::new();
    for _ in 0..8 {
        let m = admin.add_match("iso", teams[0], teams[1], "T1").await;
        matches.push(admin.start_match(m["id"].as_i64().expect("id")).await);
    }
    for round in 0..3 {
        let sends = matches.iter().enumerate().map(|(i, m)| {
            let id = m["id"].as_i64().expect("id");
            let api = if i % 2 == 0 { &on_two } else { &on_three };
            let body = json!({"hand": bag_hand(id, round), "expected_version": m["version"]});
            async move {
                let r = api
                    .post(&format!("/api/v1/matches/{id}/hands"), &body)
                    .await;
                let status = r.status().as_u16();
                (status, r.json::<Value>().await.expect("json"))
            }
        });
        let answers = futures_util::future::join_all(sends).await;
        for (i, (status, body)) in answers.into_iter().enumerate() {
            assert_eq!(status, 201, "round {round}, match {i}: {body}");
            matches[i] = body;
        }
    }
}

/// Every PostgreSQL connection ends a session left idle inside a transaction (a vanished
/// instance's, holding the write lock) and probes a silent one.
#[actix_web::test]
async fn every_postgres_connection_frees_the_lock_of_a_vanished_instance() {
    if !on_postgres() {
        // An SQLite writer lives and dies with its process.
        return;
    }
    let app = spawn_app().await;
    let mut tx = app.db.write().await.expect("write");
    let mut conn = app.db.read().await.expect("read");
    for conn in [&mut *tx, &mut conn] {
        let mut settings = Vec::new();
        for name in [
            "idle_in_transaction_session_timeout",
            "lock_timeout",
            "tcp_keepalives_idle",
            "tcp_keepalives_interval",
            "tcp_keepalives_count",
        ] {
            let shown: String =
                spades_im::on_store!(conn, |c| sqlx::query_scalar("SELECT current_setting($1)")
                    .bind(name)
                    .fetch_one(c)
                    .await)
                .expect("current_setting");
            settings.push(format!("{name}={shown}"));
        }
        assert_eq!(
            settings,
            [
                "idle_in_transaction_session_timeout=30s",
                "lock_timeout=5s",
                "tcp_keepalives_idle=60",
                "tcp_keepalives_interval=10",
                "tcp_keepalives_count=6",
            ]
        );
    }
    drop(tx);
}

/// A migration changed after it was applied is refused at the next start, even when no
/// migration is left to run (PostgreSQL then skips the migrator, which would have said so).
#[actix_web::test]
async fn a_changed_applied_migration_is_refused_at_start() {
    let app = spawn_app().await;
    let mut tx = app.db.write().await.expect("write");
    let changed = spades_im::on_store!(tx, |c| sqlx::query(
        "UPDATE _sqlx_migrations SET checksum = $1 WHERE version = 1"
    )
    .bind(vec![0u8; 48])
    .execute(c)
    .await
    .map(|r| r.rows_affected()))
    .expect("change the checksum");
    assert_eq!(changed, 1);
    tx.commit().await.expect("commit");
    let refused = Db::open(&app.location, clock())
        .await
        .expect_err("a changed migration");
    assert_eq!(
        refused.to_string(),
        "database migrations: migration 1 was previously applied but has been modified"
    );
}

/// The server is checked before anything is written: on a database that may lose commits,
/// the start is refused and no table is created.
#[actix_web::test]
async fn a_refused_server_is_left_as_it_was() {
    if !on_postgres() {
        // SQLite's settings are set by the server itself at every connection.
        return;
    }
    let location = empty_postgres_store().await;
    let url = pg_url(&location);
    pg_execute(
        url,
        format!(
            "ALTER DATABASE {} SET synchronous_commit = off",
            database_name(url)
        ),
    )
    .await;
    let refused = Db::open(&location, clock())
        .await
        .expect_err("a database that may lose commits");
    assert_eq!(
        refused.to_string(),
        "database setting synchronous_commit is off, expected on; refusing to run"
    );
    let mut conn = sqlx::PgConnection::connect(url).await.expect("connect");
    let tables: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')",
    )
    .fetch_one(&mut conn)
    .await
    .expect("count tables");
    assert_eq!(tables, 0, "nothing was migrated");
}

/// The matches in play are listed in the same order on both stores: among matches of the
/// same time (here none), one without a round (added by hand) comes before the schedule's
/// rounds, as SQLite sorts NULLs first.
#[actix_web::test]
async fn a_match_without_a_round_comes_first_in_play_on_both_stores() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "order", json!("partnership"), 4).await;
    let r = admin
        .post(
            "/api/v1/leagues/order/schedule",
            &json!({"format": "round_robin", "start_date": "2026-09-15", "time": "19:00",
                    "days_between": 7}),
        )
        .await;
    let schedule = json_with_status(r, 201, "schedule").await;
    let first_round: Vec<&Value> = schedule["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .filter(|m| m["round"] == 1)
        .collect();
    assert_eq!(first_round.len(), 2, "{schedule}");
    let mut rounds = Vec::new();
    for m in first_round {
        let id = m["id"].as_i64().expect("id");
        let r = admin
            .patch(
                &format!("/api/v1/matches/{id}"),
                &json!({"scheduled_at": null, "expected_version": m["version"]}),
            )
            .await;
        json_with_status(r, 200, "unschedule").await;
        rounds.push(id);
    }
    let by_hand = admin.add_match("order", teams[0], teams[1], "T9").await;
    let by_hand = by_hand["id"].as_i64().expect("id");
    for id in [rounds[1], by_hand, rounds[0]] {
        admin.start_match(id).await;
    }
    let mut conn = app.db.read().await.expect("read");
    let live: Vec<i64> = spades_im::db::tonight::live(&mut conn, None)
        .await
        .expect("live")
        .iter()
        .map(|row| row.m.id.0)
        .collect();
    assert_eq!(live, [by_hand, rounds[0], rounds[1]]);
}

/// A league's latest results are read in the order of an index, on both stores: the query
/// plan reads `matches_finished` and sorts nothing.
#[actix_web::test]
async fn the_latest_results_are_read_in_index_order() {
    let app = spawn_app().await;
    let (admin, _) = spades_im::generate::admin(&app.db).await.expect("admin");
    let spec = spades_im::generate::SeasonSpec {
        slug: "plan".into(),
        teams: 16,
        matches: 600,
        hands: 3000,
        seed: 5,
    };
    let g = spades_im::generate::season(&app.db, &admin, &spec)
        .await
        .expect("generated");
    assert!(g.complete > 100, "{g:?}");
    let LeagueId(league) = g.league_id;
    let mut conn = app.db.read_latest().await.expect("conn");
    let plan: Vec<String> = match conn.raw() {
        spades_im::db::Raw::Sqlite(c) => {
            sqlx::raw_sql("ANALYZE")
                .execute(&mut *c)
                .await
                .expect("analyze");
            let rows: Vec<(i64, i64, i64, String)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "EXPLAIN QUERY PLAN {}",
                spades_im::db::matches::LATEST_RESULTS
            )))
            .bind(league)
            .bind(10i64)
            .fetch_all(&mut *c)
            .await
            .expect("explain");
            rows.into_iter().map(|r| r.3).collect()
        }
        spades_im::db::Raw::Postgres(c) => {
            sqlx::raw_sql("ANALYZE matches")
                .execute(&mut *c)
                .await
                .expect("analyze");
            sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                "EXPLAIN {}",
                spades_im::db::matches::LATEST_RESULTS
            )))
            .bind(league)
            .bind(10i64)
            .fetch_all(&mut *c)
            .await
            .expect("explain")
        }
    };
    let plan = plan.join("\n");
    assert!(
        plan.contains("matches_finished") && !plan.contains("Sort") && !plan.contains("B-TREE"),
        "{plan}"
    );
}

/// `data_version`, which keys the page cache, moves when a transaction that wrote commits,
/// and not for a write rolled back: a savepoint rolled back (a refused request of a group
/// commit) takes its step with it, and a write after it in the same transaction steps again.
/// On PostgreSQL it moves once a transaction (migration 0020); SQLite's triggers step once a
/// statement.
#[actix_web::test]
async fn data_version_moves_for_each_committed_write_and_not_for_one_rolled_back() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(&admin, "dv", json!("partnership"), 2).await;
    const TOUCH: &str = "UPDATE leagues SET name = name WHERE slug = 'dv'";
    let run = |statements: &'static [&'static str]| {
        let db = app.db.clone();
        async move {
            let mut tx = db.write().await.expect("write");
            for &statement in statements {
                spades_im::on_store!(tx, |c| sqlx::raw_sql(statement)
                    .execute(c)
                    .await
                    .map(|_| ()))
                .unwrap_or_else(|e| panic!("{statement}: {e}"));
            }
            tx.commit().await.expect("commit");
            db.data_version().await.expect("data_version")
        }
    };
    let before = app.db.data_version().await.expect("data_version");
    let rolled_back = run(&["SAVEPOINT r", TOUCH, "ROLLBACK TO r", "RELEASE r"]).await;
    assert_eq!(rolled_back, before, "a write rolled back moves nothing");
    let after_refused = run(&["SAVEPOINT r", TOUCH, "ROLLBACK TO r", "RELEASE r", TOUCH]).await;
    assert!(
        after_refused > rolled_back,
        "a write after a refused one moves it"
    );
    let twice = run(&[TOUCH, TOUCH]).await;
    let moved_by = twice - after_refused;
    if on_postgres() {
        assert_eq!(moved_by, 1, "once a transaction on PostgreSQL");
        assert_eq!(after_refused - rolled_back, 1);
    } else {
        assert_eq!(moved_by, 2, "once a statement on SQLite");
    }
}

/// What a request of [`a_failing_request_of_a_batch_is_rolled_back_alone`] does.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// Inserts its number.
    Insert(i64),
    /// Inserts its number, then fails: the insert must not be kept.
    InsertThenFail(i64),
    /// Inserts its number, then panics (a bug): the insert must not be kept.
    InsertThenPanic(i64),
}

/// Inserts `x` into `batch_t`; the transaction's id on PostgreSQL (0 on SQLite, which has
/// none to show).
async fn insert_x(c: &mut spades_im::db::Conn, x: i64) -> Result<i64, sqlx::Error> {
    spades_im::on_store!(c, execute sqlx::query("INSERT INTO batch_t (x) VALUES ($1)").bind(x))?;
    match c.raw() {
        spades_im::db::Raw::Postgres(pg) => {
            sqlx::query_scalar("SELECT txid_current()")
                .fetch_one(pg)
                .await
        }
        spades_im::db::Raw::Sqlite(_) => Ok(0),
    }
}

/// `step` as a request of the writer's next batch: its answer.
fn batched(db: &Db, step: Step) -> impl Future<Output = Result<i64, sqlx::Error>> + '_ {
    db.batched(move |c| {
        Box::pin(async move {
            match step {
                Step::Insert(x) => insert_x(c, x).await,
                Step::InsertThenFail(x) => {
                    insert_x(&mut *c, x).await?;
                    Err(sqlx::Error::RowNotFound)
                }
                Step::InsertThenPanic(x) => {
                    insert_x(&mut *c, x).await?;
                    panic!("a bug in a request");
                }
            }
        })
    })
}

/// The group commit on the test store (PostgreSQL in CI's second pass): one batch of six
/// requests, where the ones that fail (an error after a write, a constraint, a panic) are
/// rolled back alone, to their savepoints, and answered with their error; the others are
/// committed together (on PostgreSQL: in one transaction, by its id) and answered with their
/// values. A failed statement aborts a PostgreSQL transaction unless rolled back to a
/// savepoint, so the requests after it commit only if that works there.
#[actix_web::test]
async fn a_failing_request_of_a_batch_is_rolled_back_alone() {
    use spades_im::db::Connection as _;
    let app = spawn_app().await;
    let db = app.db.clone();
    let mut tx = db.write().await.expect("write");
    spades_im::on_store!(tx, execute sqlx::query("CREATE TABLE batch_t (x BIGINT UNIQUE)"))
        .expect("the table");
    tx.commit().await.expect("commit");

    // A first request holds the writer until the six are queued: they then make one batch.
    let (started, running) = tokio::sync::oneshot::channel::<()>();
    let (release, released) = tokio::sync::oneshot::channel::<()>();
    let holder = {
        let db = db.clone();
        actix_web::rt::spawn(async move {
            db.batched(move |c| {
                Box::pin(async move {
                    let _ = started.send(());
                    let _ = released.await;
                    insert_x(c, 0).await
                })
            })
            .await
        })
    };
    running.await.expect("the writer runs the first request");
    let steps = [
        Step::Insert(1),
        Step::InsertThenFail(10),
        Step::Insert(2),
        // Sees the batch's earlier writes: 1 is taken.
        Step::Insert(1),
        Step::InsertThenPanic(11),
        Step::Insert(3),
    ];
    // `join` polls the requests first (each is queued on its first poll), then lets the
    // writer go.
    let (results, ()) = futures_util::future::join(
        futures_util::future::join_all(steps.iter().map(|s| batched(&db, *s))),
        async {
            let _ = release.send(());
        },
    )
    .await;
    let first = holder.await.expect("the holder").expect("the first batch");
    let results: Vec<Result<i64, String>> = results
        .into_iter()
        .map(|r| r.map_err(|e| e.to_string()))
        .collect();
    assert!(results[0].is_ok(), "{results:?}");
    assert!(results[1].is_err(), "{results:?}");
    assert!(results[2].is_ok(), "{results:?}");
    assert!(
        results[3]
            .as_ref()
            .is_err_and(|e| e.contains("UNIQUE") || e.contains("unique")),
        "{results:?}"
    );
    assert!(
        results[4]
            .as_ref()
            .is_err_and(|e| e.contains("nothing was saved")),
        "{results:?}"
    );
    assert!(results[5].is_ok(), "{results:?}");
    if on_postgres() {
        let ids: Vec<i64> = [0, 2, 5]
            .iter()
            .map(|&i| results[i].clone().expect("committed"))
            .collect();
        assert!(
            ids.iter().all(|&id| id == ids[0]),
            "one transaction: {ids:?}"
        );
        assert_ne!(ids[0], first, "a batch after the holder's");
    }
    let mut conn = db.read_latest().await.expect("read");
    let rows: Vec<i64> = spades_im::on_store!(conn, |c| sqlx::query_scalar(
        "SELECT x FROM batch_t ORDER BY x"
    )
    .fetch_all(c)
    .await)
    .expect("rows");
    assert_eq!(
        rows,
        [0, 1, 2, 3],
        "only the failed requests' writes are gone"
    );
}
