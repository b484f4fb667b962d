//! Two instances of the service on one store, a client going from one to the other as a
//! proxy would send it: nothing an instance keeps for itself may change an answer. Runs on
//! the test store (`SPADES_TEST_DB`): PostgreSQL, the store meant for several instances,
//! and an SQLite file, which two processes may share on one machine.

use serde_json::{Value, json};
use spades_im::service::Role;
use spades_im::service::people::throttle::{DEVICE_BUDGET, USER_BUDGET};

use crate::concurrency::{bag_hand, sweep};
use crate::helpers::{
    PASSWORD, anonymous_get, json_with_status, manual_clock, on_postgres, spawn_app,
    spawn_app_with_clock,
};

/// A session opened on one instance works on the other, and logging out on the other ends it
/// everywhere.
#[actix_web::test]
async fn a_session_made_on_one_instance_works_on_the_other() {
    let one = spawn_app().await;
    let two = one.another_instance().await;
    one.user("coord", Role::Admin).await;
    let browser = one.browser("coord").await;
    let on_two = browser
        .client
        .get(two.url("/admin"))
        .send()
        .await
        .expect("GET /admin");
    assert_eq!(on_two.status(), 200, "the session cookie of one, on two");
    let r = browser
        .client
        .post(two.url("/logout"))
        .form(&[("csrf", browser.csrf.as_str())])
        .send()
        .await
        .expect("logout");
    assert_eq!(r.status(), 303, "logout on two");
    let on_one = browser.get("/admin").await;
    assert_eq!(on_one.status(), 303, "the session ended on one too");
}

/// Wrong passwords counted on one instance hold back the same clients on the other (a
/// guesser gets no fresh budget per instance), and a device cookie given by one instance is
/// honoured by the other: every instance signs with the database's key.
#[actix_web::test]
async fn the_login_throttle_and_device_cookies_hold_across_instances() {
    let (clock, _time) = manual_clock("2026-11-24T19:00:00Z", chrono_tz::America::New_York);
    let one = spawn_app_with_clock(clock).await;
    let two = one.another_instance().await;
    one.user("sup", Role::Supervisor).await;
    let client = |cookies: bool| {
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .cookie_store(cookies)
            .build()
            .expect("client")
    };
    let login = async |client: &reqwest::Client, url: String, password: &str| {
        client
            .post(url)
            .form(&[("username", "sup"), ("password", password)])
            .send()
            .await
            .expect("login")
            .status()
            .as_u16()
    };
    let on = |i: i64| {
        if i % 2 == 0 {
            one.url("/login")
        } else {
            two.url("/login")
        }
    };
    // The first logins on both instances at once: each reads or makes the database's key.
    let (phone, tablet) = (client(true), client(true));
    let (a, b) = tokio::join!(
        login(&phone, one.url("/login"), PASSWORD),
        login(&tablet, two.url("/login"), PASSWORD)
    );
    assert_eq!((a, b), (303, 303));
    // A guesser without a cookie, going from one instance to the other, spends the
    // username's one budget.
    let guesser = client(false);
    for i in 0..USER_BUDGET {
        assert_eq!(login(&guesser, on(i), "wrong").await, 401, "failure {i}");
    }
    assert_eq!(
        login(&guesser, two.url("/login"), PASSWORD).await,
        429,
        "held on two"
    );
    assert_eq!(
        login(&guesser, one.url("/login"), PASSWORD).await,
        429,
        "held on one"
    );
    // The phone's cookie, made by one, is honoured by two, and the tablet's by one.
    assert_eq!(
        login(&phone, two.url("/login"), PASSWORD).await,
        303,
        "trusted on two"
    );
    assert_eq!(
        login(&tablet, one.url("/login"), PASSWORD).await,
        303,
        "trusted on one"
    );
    // The phone's own failures count on both.
    for i in 0..DEVICE_BUDGET {
        assert_eq!(
            login(&phone, on(i), "wrong").await,
            401,
            "phone's failure {i}"
        );
    }
    assert_eq!(
        login(&phone, one.url("/login"), PASSWORD).await,
        429,
        "phone on one"
    );
    assert_eq!(
        login(&phone, two.url("/login"), PASSWORD).await,
        429,
        "phone on two"
    );
}

/// The same hand sent to both instances at once, with different idempotency keys: exactly
/// one is recorded (201), the other is refused as stale (409), and the match holds one hand.
#[actix_web::test]
async fn the_same_hand_on_both_instances_at_once_is_recorded_once() {
    let one = spawn_app().await;
    let two = one.another_instance().await;
    let admin = one.api_user("coord", Role::Admin).await;
    let teams = one.league(&admin, "both", json!("partnership"), 2).await;
    for round in 0..8 {
        let m = admin.add_match("both", teams[0], teams[1], "T1").await;
        let id = m["id"].as_i64().expect("id");
        let started = admin.start_match(id).await;
        let body = |key: &str| {
            json!({"hand": bag_hand(id, round), "expected_version": started["version"],
                   "idempotency_key": key})
        };
        let path = format!("/api/v1/matches/{id}/hands");
        let admin_two = two.api(&admin);
        let (from_one, from_two) = (body("from-one"), body("from-two"));
        let (a, b) = tokio::join!(
            admin.post(&path, &from_one),
            admin_two.post(&path, &from_two),
        );
        let mut statuses = [a.status().as_u16(), b.status().as_u16()];
        statuses.sort();
        assert_eq!(statuses, [201, 409], "round {round}");
        let m: Value = json_with_status(
            admin.get(&format!("/api/v1/matches/{id}")).await,
            200,
            "match",
        )
        .await;
        assert_eq!(
            m["hands"].as_array().map(Vec::len),
            Some(1),
            "round {round}: {m}"
        );
    }
}

/// A public page served from one instance's cache shows, at once, what was written through
/// the other: every instance keys its copies by the store's own change counter.
#[actix_web::test]
async fn a_page_on_one_instance_shows_a_write_on_the_other_at_once() {
    let one = spawn_app().await;
    let two = one.another_instance().await;
    let admin = one.api_user("coord", Role::Admin).await;
    let teams = one.league(&admin, "night", json!("partnership"), 2).await;
    let m = admin.add_match("night", teams[0], teams[1], "T1").await;
    let id = m["id"].as_i64().expect("id");
    let page = format!("/matches/{id}");
    let read_on_two = || async {
        let r = reqwest::get(two.url(&page)).await.expect("GET");
        let cache = r
            .headers()
            .get("x-page-cache")
            .map(|v| v.to_str().expect("header").to_string())
            .unwrap_or_default();
        (r.status().as_u16(), cache, r.text().await.expect("body"))
    };
    let (status, _, before) = read_on_two().await;
    assert_eq!(status, 200);
    let (_, cache, again) = read_on_two().await;
    assert_eq!(cache, "hit", "the copy is kept on two");
    assert_eq!(before, again);
    // Four sweeps by team A win the game: written through one, read on two.
    let mut m = admin.start_match(id).await;
    for _ in 0..4 {
        m = admin.enter_hand(&m, &sweep("a")).await;
    }
    assert_eq!(m["game_status"], "won", "{m}");
    let (status, cache, after) = read_on_two().await;
    assert_eq!(status, 200);
    assert_eq!(cache, "miss", "two noticed the change made on one");
    assert!(after.contains("520"), "the final score on two: {after}");
    let (_, _, on_one) = anonymous_get(&one, &page).await;
    assert_eq!(after, on_one, "both instances show the same page");
}

/// `/healthz` names the store; on PostgreSQL, an instance whose database turned read-only (a
/// standby, or `default_transaction_read_only`) answers 503 so the proxy stops sending it
/// writes.
#[actix_web::test]
async fn healthz_answers_503_when_the_store_is_read_only() {
    let one = spawn_app().await;
    let r = reqwest::get(one.url("/healthz")).await.expect("GET");
    assert_eq!(r.status(), 200);
    if !on_postgres() {
        // An SQLite file is read-only only to a user other than root (the CI's): the
        // PostgreSQL run covers the 503.
        return;
    }
    let spades_im::db::Location::Postgres(url) = &one.location else {
        panic!("on PostgreSQL")
    };
    let name = url.rsplit('/').next().expect("database name");
    spades_im::on_store!(one.db.read().await.expect("conn"), |c| sqlx::raw_sql(
        sqlx::AssertSqlSafe(format!(
            "ALTER DATABASE {name} SET default_transaction_read_only = on"
        ))
    )
    .execute(c)
    .await
    .map(|r| r.rows_affected()))
    .expect("make the database read-only");
    // New connections (a new instance) get the setting.
    let two = one.another_instance().await;
    let r = reqwest::get(two.url("/healthz")).await.expect("GET");
    assert_eq!(r.status(), 503);
    let body: Value = r.json().await.expect("json");
    assert_eq!(
        body,
        json!({"status": "read_only", "store": "postgresql", "writable": false})
    );
}

/// An instance refuses to start on a PostgreSQL database that may lose a commit it
/// acknowledged (`synchronous_commit = off`), naming the setting.
#[actix_web::test]
async fn an_instance_refuses_a_database_that_may_lose_commits() {
    if !on_postgres() {
        // SQLite's settings are the server's own (set at every connection).
        return;
    }
    let one = spawn_app().await;
    let spades_im::db::Location::Postgres(url) = &one.location else {
        panic!("on PostgreSQL")
    };
    let name = url.rsplit('/').next().expect("database name");
    spades_im::on_store!(one.db.read().await.expect("conn"), |c| sqlx::raw_sql(
        sqlx::AssertSqlSafe(format!(
            "ALTER DATABASE {name} SET synchronous_commit = off"
        ))
    )
    .execute(c)
    .await
    .map(|r| r.rows_affected()))
    .expect("ALTER DATABASE");
    let refused = spades_im::db::Db::open(&one.location, one.db.clock().clone())
        .await
        .expect_err("a database that may lose commits");
    assert_eq!(
        refused.to_string(),
        "database setting synchronous_commit is off, expected on; refusing to run"
    );
}
