//! The page cache (src/web/page_cache.rs): anonymous visitors get a copy of a public page
//! until anything it may show changes (a hand, a renamed team, a change written by another
//! process); logged-in users always get their own render; the scoreboard, built from the
//! cached totals, shows what the match itself shows.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{expect_error, json_with_status, spawn_app, spawn_app_with_page_cache};

/// The `X-Page-Cache` of an anonymous 200 of `path`, and its body.
async fn fetch(app: &crate::helpers::TestApp, path: &str) -> (String, String) {
    let r = app.get(path).await;
    assert_eq!(r.status(), 200, "GET {path}");
    let cache = r
        .headers()
        .get("x-page-cache")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (cache, r.text().await.unwrap())
}

#[actix_web::test]
async fn anonymous_pages_are_copies_until_something_changes() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "fall", json!("partnership"), 2).await;
    let m: Value = admin
        .post(
            "/api/v1/leagues/fall/matches",
            &json!({"team_a": teams[0], "team_b": teams[1], "table": "Table 4"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let id = m["id"].as_i64().unwrap();
    let m: Value = admin
        .post(&format!("/api/v1/matches/{id}/start"), &json!({}))
        .await
        .json()
        .await
        .unwrap();
    let page = format!("/matches/{id}");

    let (first, before) = fetch(&app, &page).await;
    let (second, again) = fetch(&app, &page).await;
    assert_eq!((first.as_str(), second.as_str()), ("miss", "hit"));
    assert_eq!(before, again);

    // A hand: the very next anonymous view is a fresh render with the new score.
    let hand =
        json!({"a": {"bids": [4, 3], "tricks": [5, 3]}, "b": {"bids": [2, 2], "tricks": [3, 2]}});
    let r = admin
        .post(
            &format!("/api/v1/matches/{id}/hands"),
            &json!({"hand": hand, "expected_version": m["version"]}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let after_hand: Value = r.json().await.unwrap();
    let score_a = after_hand["a"]["score"].as_i64().unwrap();
    assert_eq!(score_a, 71, "7 bid, 8 taken");
    let (cache, after) = fetch(&app, &page).await;
    assert_eq!(cache, "miss");
    assert!(
        !before.contains(">71<") && after.contains(">71<"),
        "{after}"
    );

    // The scoreboard (page and JSON), from the cached totals, agrees with the match.
    let (_, board_page) = fetch(&app, "/scoreboard").await;
    assert!(board_page.contains("Table 4"));
    let board: Value = app.get("/api/v1/scoreboard").await.json().await.unwrap();
    let row = &board["matches"][0];
    assert_eq!(row["id"], id);
    assert_eq!(row["a"], after_hand["a"]);
    assert_eq!(row["b"], after_hand["b"]);
    assert_eq!(row["hands"], 1);
    assert_eq!(row["version"], after_hand["version"]);
    assert_eq!(row["team_a"], after_hand["team_a"]);

    // A logged-in user gets their own page (their name in the nav), never the copy.
    let coord = app.browser("coord").await;
    let r = coord.get(&page).await;
    assert!(r.headers().get("x-page-cache").is_none());
    let own = r.text().await.unwrap();
    assert!(own.contains("coord"));
    let (cache, anonymous) = fetch(&app, &page).await;
    assert_eq!(cache, "hit");
    assert!(
        !anonymous.contains("coord"),
        "the copy is the anonymous page"
    );

    // A change written by another process (the CLI, straight SQL) is seen too: the
    // counter is bumped by triggers, not by this server.
    let (_, standings) = fetch(&app, "/leagues/fall/standings").await;
    assert!(!standings.contains("Renamed by SQL"));
    spades_im::on_store!(app.db.read_latest().await.unwrap(), |c| sqlx::query(
        "UPDATE teams SET name = 'Renamed by SQL' WHERE id = $1"
    )
    .bind(teams[0])
    .execute(c)
    .await
    .map(|r| r.rows_affected()))
    .unwrap();
    let (cache, standings) = fetch(&app, "/leagues/fall/standings").await;
    assert_eq!(cache, "miss");
    assert!(standings.contains("Renamed by SQL"));
    let (_, match_page) = fetch(&app, &page).await;
    assert!(match_page.contains("Renamed by SQL"));
}

/// A league `slug` of `teams` teams with its round robin (no dates): its matches' ids.
async fn season(app: &crate::helpers::TestApp, slug: &str, teams: usize) -> Vec<i64> {
    let admin = app.api_user(&format!("coord-{slug}"), Role::Admin).await;
    app.league(&admin, slug, json!("partnership"), teams).await;
    let r = admin
        .post(
            &format!("/api/v1/leagues/{slug}/schedule"),
            &json!({"format": "round_robin"}),
        )
        .await;
    let made = json_with_status(r, 201, "schedule").await;
    made["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect()
}

#[actix_web::test]
async fn parameters_a_page_does_not_read_share_its_copy() {
    let app = spawn_app().await;
    season(&app, "fall", 4).await;
    for page in [
        "/leagues/fall/standings",
        "/leagues/fall/schedule?week=all",
        "/api/v1/leagues/fall/standings",
        "/api/v1/leagues/fall/matches?limit=2",
        "/api/v1/leagues",
        "/scoreboard",
    ] {
        let (first, body) = fetch(&app, page).await;
        assert_eq!(first, "miss", "{page}");
        let join = if page.contains('?') { '&' } else { '?' };
        for extra in ["x=1", "x=2", "utm_source=mail&y", "zz=%FF"] {
            let (cache, again) = fetch(&app, &format!("{page}{join}{extra}")).await;
            assert_eq!(cache, "hit", "{page} {extra}");
            assert_eq!(again, body, "{page} {extra}");
        }
    }
    // A parameter the page reads is another page: its own copy.
    let (cache, _) = fetch(&app, "/api/v1/leagues/fall/matches?limit=3&x=1").await;
    assert_eq!(cache, "miss");
    let (cache, _) = fetch(&app, "/api/v1/leagues/fall/matches?x=2&limit=3").await;
    assert_eq!(cache, "hit");
}

#[actix_web::test]
async fn unknown_parameters_do_not_change_a_fresh_answer() {
    // With the copies off every request renders: the handler itself ignores them.
    let app = spawn_app_with_page_cache(0).await;
    season(&app, "fall", 4).await;
    for page in [
        "/api/v1/leagues",
        "/api/v1/leagues/fall/matches",
        "/leagues/fall/schedule",
    ] {
        let plain = app.get(page).await;
        assert_eq!(plain.status(), 200, "{page}");
        assert!(plain.headers().get("x-page-cache").is_none());
        let plain = plain.text().await.unwrap();
        let odd = app
            .get(&format!("{page}?x=1&utm_source=a&archive=yes"))
            .await;
        assert_eq!(odd.status(), 200, "{page}");
        assert_eq!(odd.text().await.unwrap(), plain, "{page}");
    }
}

#[actix_web::test]
async fn past_its_bound_the_cache_lets_the_least_recently_used_copy_go() {
    let app = spawn_app_with_page_cache(0).await;
    season(&app, "fall", 4).await;
    let standings = app.get("/api/v1/leagues/fall/standings").await;
    let size = standings.text().await.unwrap().len();
    // Room for two copies of a page this size (with their headers), not three.
    let app = spawn_app_with_page_cache(2 * size + 1200).await;
    for slug in ["a", "b", "c"] {
        season(&app, slug, 4).await;
    }
    let page = |slug: &str| format!("/api/v1/leagues/{slug}/standings");
    for slug in ["a", "b", "a", "c"] {
        fetch(&app, &page(slug)).await;
    }
    // `a` was used after `b`: `b` went to make room for `c`.
    assert_eq!(fetch(&app, &page("a")).await.0, "hit");
    assert_eq!(fetch(&app, &page("c")).await.0, "hit");
    assert_eq!(fetch(&app, &page("b")).await.0, "miss");
    assert_eq!(fetch(&app, &page("a")).await.0, "miss");
}

#[actix_web::test]
async fn a_leagues_matches_come_a_page_at_a_time() {
    let app = spawn_app().await;
    let ids = season(&app, "fall", 6).await;
    assert_eq!(ids.len(), 15);
    let all = json_with_status(app.get("/api/v1/leagues/fall/matches").await, 200, "all").await;
    let in_order: Vec<i64> = all["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    assert_eq!(in_order.len(), 15, "the default page holds them all");
    assert_eq!(all["next"], Value::Null);

    let mut seen = Vec::new();
    let mut path = "/api/v1/leagues/fall/matches?limit=4".to_string();
    loop {
        let page = json_with_status(app.get(&path).await, 200, &path).await;
        let matches = page["matches"].as_array().unwrap();
        assert!(matches.len() <= 4);
        seen.extend(matches.iter().map(|m| m["id"].as_i64().unwrap()));
        match page["next"].as_i64() {
            Some(next) => {
                assert_eq!(Some(next), seen.last().copied());
                path = format!("/api/v1/leagues/fall/matches?limit=4&after={next}");
            }
            None => break,
        }
    }
    assert_eq!(seen, in_order, "every match once, in schedule order");
    // A page that ends exactly at the last match says so.
    let last = json_with_status(
        app.get(&format!(
            "/api/v1/leagues/fall/matches?limit=3&after={}",
            in_order[11]
        ))
        .await,
        200,
        "last three",
    )
    .await;
    assert_eq!(last["matches"].as_array().unwrap().len(), 3);
    assert_eq!(last["next"], Value::Null);
}

#[actix_web::test]
async fn a_page_of_matches_out_of_range_is_refused() {
    let app = spawn_app().await;
    season(&app, "fall", 4).await;
    let other = season(&app, "spring", 4).await;
    let foreign = format!("after={}", other[0]);
    for (query, field) in [
        ("limit=0", "limit"),
        ("limit=501", "limit"),
        ("limit=-1", "limit"),
    ] {
        let r = app
            .get(&format!("/api/v1/leagues/fall/matches?{query}"))
            .await;
        let error = expect_error(r, 422, "invalid_request").await;
        assert_eq!(error["field"], field, "{query}");
    }
    for query in ["limit=abc", "limit=2&limit=3", "after=x"] {
        let r = app
            .get(&format!("/api/v1/leagues/fall/matches?{query}"))
            .await;
        expect_error(r, 400, "malformed").await;
    }
    // An `after` that names no match of the league is not found, as a list filter naming
    // nothing is.
    for query in ["after=999999", foreign.as_str()] {
        let r = app
            .get(&format!("/api/v1/leagues/fall/matches?{query}"))
            .await;
        expect_error(r, 404, "not_found").await;
    }
    let r = app.get("/api/v1/leagues/fall/matches?limit=500").await;
    assert_eq!(r.status(), 200);
    let r = app.get("/api/v1/leagues/nope/matches?limit=5").await;
    expect_error(r, 404, "not_found").await;
}
