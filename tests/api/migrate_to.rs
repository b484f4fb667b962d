//! `migrate-to postgres://…`: an SQLite database copied into an empty PostgreSQL one answers
//! every API read exactly as the original did. The copy itself needs a PostgreSQL server: it
//! runs in the PostgreSQL pass of the suite (`SPADES_TEST_DB`, as `.ci/run` does).

use serde_json::{Value, json};
use spades_im::app::{Application, Settings};
use spades_im::db::Location;
use spades_im::service::Role;

use crate::concurrency::{cli_async, stderr, stdout};
use crate::helpers::{Api, json_with_status, on_postgres, spawn_sqlite_app, test_store};

/// The copy goes to PostgreSQL only: a file is refused, and nothing is written to it.
#[actix_web::test]
async fn migrate_to_refuses_anything_but_a_postgres_url() {
    let app = spawn_sqlite_app().await;
    let Location::File(source) = &app.location else {
        panic!("an SQLite file")
    };
    let dir = tempfile::tempdir().expect("dir");
    let target = dir.path().join("other.sqlite3");
    let target = target.to_str().expect("utf-8");
    let out = cli_async(source, &["migrate-to", target]).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("copies an SQLite database (--db FILE) into PostgreSQL"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("other.sqlite3").exists());
    let out = cli_async(source, &["migrate-to", "mysql://u:secret@h/d"]).await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!stderr(&out).contains("secret"), "{}", stderr(&out));
}

/// A season with everything in it (hands and corrections, forfeits, ratings, a bracket with
/// results, accounts and tokens) is copied; the copy answers every read as the original, with
/// the same ids, and takes a new hand; a second copy into the same database is refused.
#[actix_web::test]
async fn a_season_moves_to_postgres_and_answers_every_read_the_same() {
    if !on_postgres() {
        // The SQLite pass has no server to copy to; the PostgreSQL pass runs the rest.
        return;
    }
    let source = spawn_sqlite_app().await;
    let admin = source.api_user("coord", Role::Admin).await;
    spades_im::demo::load(&source.db).await.expect("demo");
    crate::generate::small_season(&source, 11).await;
    let r = admin
        .post(
            "/api/v1/leagues/demo-fall/playoffs",
            &json!({"format": "double_elimination", "force": true}),
        )
        .await;
    let bracket = json_with_status(r, 201, "bracket").await;
    let first = bracket["matches"]
        .as_array()
        .and_then(|ms| ms.iter().find_map(|m| m["match_id"].as_i64()))
        .expect("a playoff match");
    // A lineup, so that the copy carries one.
    let m = read(&admin, &format!("/api/v1/matches/{first}")).await;
    let roster = read(
        &admin,
        &format!("/api/v1/teams/{}/roster", m["team_a"]["id"]),
    )
    .await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{first}/lineup"),
            &json!({"team": "a", "players": [roster["players"][1]["id"], roster["players"][0]["id"]]}),
        )
        .await;
    let with_lineup = json_with_status(r, 200, "lineup").await;
    assert!(with_lineup["lineup"]["a"].is_array(), "{with_lineup}");
    let started = admin.start_match(first).await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{first}/forfeit"),
            &json!({"team": "b", "expected_version": started["version"]}),
        )
        .await;
    json_with_status(r, 200, "forfeit").await;

    let Location::File(file) = &source.location else {
        panic!("an SQLite file")
    };
    let dir = tempfile::tempdir().expect("dir");
    let Location::Postgres(url) = test_store(dir.path()).await else {
        panic!("SPADES_TEST_DB is PostgreSQL")
    };
    let out = cli_async(file, &["migrate-to", &url]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("every match's totals"),
        "{}",
        stdout(&out)
    );

    let settings = Settings {
        bind: "127.0.0.1:0".into(),
        db: Location::Postgres(url.clone()),
        secure_cookies: false,
        page_cache_bytes: spades_im::web::middleware::page_cache::DEFAULT_BYTES,
        clock: source.db.clock().clone(),
        trusted_proxies: vec![],
        workers: None,
        public_url: None,
        oidc: None,
        mail: None,
    };
    let copy = Application::build(&settings).await.expect("copy builds");
    let copy_admin = Api {
        base: format!("http://127.0.0.1:{}", copy.port()),
        token: admin.token.clone(),
        client: reqwest::Client::new(),
    };
    actix_web::rt::spawn(copy.run_until_stopped());

    let leagues = read(&admin, "/api/v1/leagues").await;
    let mut paths = vec![
        "/api/v1/leagues".to_string(),
        "/api/v1/scoreboard".to_string(),
    ];
    for league in leagues["leagues"].as_array().expect("leagues") {
        let slug = league["slug"].as_str().expect("slug");
        for part in [
            "",
            "/teams",
            "/matches",
            "/standings",
            "/eligibility",
            "/bracket",
        ] {
            paths.push(format!("/api/v1/leagues/{slug}{part}"));
        }
        let matches = read(&admin, &format!("/api/v1/leagues/{slug}/matches")).await;
        for m in matches["matches"].as_array().expect("matches") {
            paths.push(format!("/api/v1/matches/{}", m["id"]));
        }
    }
    assert!(paths.len() > 60, "{paths:?}");
    for path in &paths {
        let (a, b) = (admin.get(path).await, copy_admin.get(path).await);
        assert_eq!(a.status(), b.status(), "{path}");
        let (a, b) = (a.text().await.expect("body"), b.text().await.expect("body"));
        assert_eq!(a, b, "{path}");
    }

    // The copy takes writes, with new ids after the copied ones.
    let teams = read(&copy_admin, "/api/v1/leagues/gen/teams").await;
    let (ta, tb) = (
        teams["teams"][0]["id"].as_i64(),
        teams["teams"][1]["id"].as_i64(),
    );
    let added = copy_admin
        .add_match("gen", ta.expect("team"), tb.expect("team"), "T9")
        .await;
    let last = read(&admin, "/api/v1/leagues/gen/matches").await;
    let max_before = last["matches"]
        .as_array()
        .and_then(|ms| ms.iter().filter_map(|m| m["id"].as_i64()).max())
        .expect("ids");
    assert!(added["id"].as_i64().expect("id") > max_before, "{added}");

    let again = cli_async(file, &["migrate-to", &url]).await;
    assert_eq!(again.status.code(), Some(1));
    assert!(
        stderr(&again).contains("is not empty"),
        "{}",
        stderr(&again)
    );
}

async fn read(api: &Api, path: &str) -> Value {
    json_with_status(api.get(path).await, 200, path).await
}

/// A past season (an archived league, here the tournament night with its Swiss rounds) is
/// copied too: the archive's triggers refuse its rows while it is closed, so the copy opens
/// it for its rows and closes it again; the copy reads the same and still refuses writes.
#[actix_web::test]
async fn a_past_season_moves_to_postgres_still_closed() {
    if !on_postgres() {
        return;
    }
    let source = spawn_sqlite_app().await;
    let admin = source.api_user("coord", Role::Admin).await;
    spades_im::demo::tournament::load(&source.db)
        .await
        .expect("the tournament");
    let slug = spades_im::demo::tournament::SLUG;
    let r = admin
        .post(
            &format!("/api/v1/leagues/{slug}/archive"),
            &json!({"unplayed": "cancel"}),
        )
        .await;
    json_with_status(r, 200, "archived").await;
    let Location::File(file) = &source.location else {
        panic!("an SQLite file")
    };
    let dir = tempfile::tempdir().expect("dir");
    let Location::Postgres(url) = test_store(dir.path()).await else {
        panic!("SPADES_TEST_DB is PostgreSQL")
    };
    let out = cli_async(file, &["migrate-to", &url]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let settings = Settings {
        bind: "127.0.0.1:0".into(),
        db: Location::Postgres(url.clone()),
        secure_cookies: false,
        page_cache_bytes: spades_im::web::middleware::page_cache::DEFAULT_BYTES,
        clock: source.db.clock().clone(),
        trusted_proxies: vec![],
        workers: None,
        public_url: None,
        oidc: None,
        mail: None,
    };
    let copy = Application::build(&settings).await.expect("copy builds");
    let copy_admin = Api {
        base: format!("http://127.0.0.1:{}", copy.port()),
        token: admin.token.clone(),
        client: reqwest::Client::new(),
    };
    actix_web::rt::spawn(copy.run_until_stopped());
    for part in ["", "/standings", "/bracket"] {
        let path = format!("/api/v1/leagues/{slug}{part}");
        assert_eq!(
            read(&admin, &path).await,
            read(&copy_admin, &path).await,
            "{path}"
        );
    }
    assert_eq!(
        read(&copy_admin, &format!("/api/v1/leagues/{slug}")).await["archived"],
        true
    );
    let r = copy_admin
        .post(
            &format!("/api/v1/leagues/{slug}/schedule"),
            &json!({"mode": "swiss_round"}),
        )
        .await;
    assert_eq!(r.status(), 409, "a past season takes no write");
}
