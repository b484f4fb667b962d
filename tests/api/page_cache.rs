//! The page cache (src/web/page_cache.rs): anonymous visitors get a copy of a public page
//! until anything it may show changes (a hand, a renamed team, a change written by another
//! process); logged-in users always get their own render; the scoreboard, built from the
//! cached totals, shows what the match itself shows.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::spawn_app;

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
