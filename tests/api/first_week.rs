//! A coordinator's first week, the mistakes it must not let stand: two current leagues of
//! one name (409 `league_name_taken`, on create, rename, clone and unarchive).

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, expect_error, json_with_status, spawn_app};

async fn create(admin: &Api, name: &str, slug: &str) -> reqwest::Response {
    let body = json!({"name": name, "slug": slug, "rules": {"regular": "classic"}});
    admin.post("/api/v1/leagues", &body).await
}

fn on_name(error: &Value) -> &str {
    assert_eq!(error["field"], "name", "{error}");
    error["message"].as_str().unwrap()
}

#[actix_web::test]
async fn a_current_league_name_is_taken_once() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    json_with_status(
        create(&admin, "Spring 2027 Spades", "spring").await,
        201,
        "first",
    )
    .await;
    let before = app.tables().await;
    for name in [
        "spring 2027 spades",
        "Spring 2027 Sp\u{0430}des",
        " Spring  2027 Spades ",
    ] {
        let r = create(&admin, name, "again").await;
        let error = expect_error(r, 409, "league_name_taken").await;
        assert!(
            on_name(&error).contains("\"Spring 2027 Spades\" (spring)"),
            "{error}"
        );
    }
    let r = admin
        .post(
            "/api/v1/leagues/spring/clone",
            &json!({"name": "Spring 2027 Spades", "slug": "copy"}),
        )
        .await;
    expect_error(r, 409, "league_name_taken").await;
    app.assert_nothing_written(&before, "a name taken").await;

    // A rename onto it (the league's edit form) is refused by the name; keeping one's own
    // name is no clash.
    json_with_status(create(&admin, "Fall", "fall").await, 201, "fall").await;
    let browser = app.browser("coord").await;
    let rename = |name: &'static str| {
        [
            ("name", name),
            ("regular_preset", "classic"),
            ("confirm", "1"),
        ]
    };
    let r = browser
        .post_form("/admin/leagues/fall/edit", &rename("SPRING 2027 SPADES"))
        .await;
    assert_eq!(r.status(), 422, "the form's refusal");
    let html = crate::helpers::unescape(&r.text().await.unwrap());
    assert!(
        html.contains("\"Spring 2027 Spades\" (spring) has that name"),
        "{html}"
    );
    assert!(
        html.contains("value=\"SPRING 2027 SPADES\""),
        "what was typed is kept"
    );
    let r = browser
        .post_form("/admin/leagues/spring/edit", &rename("Spring 2027 Spades"))
        .await;
    assert_eq!(r.status(), 303, "its own name");

    // A past season may share it; bringing it back while the name is taken may not.
    let r = admin
        .post("/api/v1/leagues/spring/archive", &json!({}))
        .await;
    json_with_status(r, 200, "archive").await;
    json_with_status(
        create(&admin, "Spring 2027 Spades", "spring-2").await,
        201,
        "next",
    )
    .await;
    let r = admin
        .post("/api/v1/leagues/spring/unarchive", &json!({}))
        .await;
    expect_error(r, 409, "league_name_taken").await;
}

/// The ids of the matches a scoreboard answer shows.
fn board_ids(board: &Value) -> Vec<i64> {
    let matches = board["matches"].as_array().unwrap();
    matches.iter().map(|m| m["id"].as_i64().unwrap()).collect()
}

#[actix_web::test]
async fn the_scoreboard_and_the_tv_show_the_leagues_asked_for() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let mut live = Vec::new();
    for slug in ["east", "west"] {
        let teams = app.league(&admin, slug, json!("classic"), 2).await;
        let m = admin.add_match(slug, teams[0], teams[1], "Table 3").await;
        let id = m["id"].as_i64().unwrap();
        admin.start_match(id).await;
        live.push(id);
    }
    let board = |query: &'static str| {
        let app = &app;
        async move {
            let r = app.get(&format!("/api/v1/scoreboard{query}")).await;
            json_with_status(r, 200, query).await
        }
    };
    assert_eq!(board_ids(&board("").await), live, "every league");
    assert_eq!(board_ids(&board("?league=east").await), [live[0]]);
    assert_eq!(board_ids(&board("?league=west").await), [live[1]]);
    assert_eq!(board_ids(&board("?league=east&league=west").await), live);
    let r = app.get("/api/v1/scoreboard?league=nowhere").await;
    expect_error(r, 404, "not_found").await;

    // The TV of one league: its table only, polling its own board; a copy per league.
    for (slug, mine, other) in [("east", live[0], live[1]), ("west", live[1], live[0])] {
        let path = format!("/scoreboard?tv=1&league={slug}");
        for _ in 0..2 {
            let (status, _, html) = crate::helpers::anonymous_get(&app, &path).await;
            assert_eq!(status, 200);
            assert!(html.contains(&format!("id=\"board-{mine}\"")), "{slug}");
            assert!(!html.contains(&format!("id=\"board-{other}\"")), "{slug}");
            assert!(
                html.contains(&format!("data-poll=\"/api/v1/scoreboard?league={slug}\"")),
                "{slug}"
            );
        }
    }
    let (status, _, _) = crate::helpers::anonymous_get(&app, "/scoreboard?league=nowhere").await;
    assert_eq!(status, 404);
    let browser = app.browser("coord").await;
    let page = browser
        .get("/admin/leagues/east")
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("href=\"/scoreboard?tv=1&amp;league=east\""));
}

#[actix_web::test]
async fn closing_a_season_says_what_is_unplayed_and_may_cancel_it() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "fall", json!("classic"), 4).await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin", "start_date": "2026-12-01"}),
        )
        .await;
    let made = json_with_status(r, 201, "schedule").await;
    let mut ids: Vec<i64> = made["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    ids.sort_unstable();
    assert_eq!(ids.len(), 6);
    let _ = teams;

    // Refused, listing them; nothing written.
    let browser = app.browser("coord").await;
    let before = app.tables().await;
    let r = admin.post("/api/v1/leagues/fall/archive", &json!({})).await;
    let body = json_with_status(r, 409, "unplayed").await;
    assert_eq!(body["error"]["code"], "unplayed_matches");
    assert_eq!(body["matches"], json!(ids));
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("6 matches are still to play")
    );
    app.assert_nothing_written(&before, "a refused close").await;

    // The page lists them by label and teams, and closes only with the box ticked.
    let html = browser
        .get("/admin/leagues/fall/archive")
        .await
        .text()
        .await
        .unwrap();
    let list = crate::helpers::html_element(&html, "unplayed-list", "</ul>").unwrap();
    assert_eq!(list.matches("<li>").count(), 6, "{list}");
    assert!(list.contains(&format!("M{} · Team ", ids[0])), "{list}");
    let r = browser
        .post_form("/admin/leagues/fall/archive", &[("confirm", "1")])
        .await;
    assert_eq!(r.status(), 409);
    let html = r.text().await.unwrap();
    assert!(html.contains("id=\"form-error\""), "a focused refusal");
    app.assert_nothing_written(&before, "a refused close from the page")
        .await;
    let r = browser
        .post_form(
            "/admin/leagues/fall/archive",
            &[("confirm", "1"), ("cancel_unplayed", "1")],
        )
        .await;
    assert_eq!(r.status(), 303);
    let league = json_with_status(app.get("/api/v1/leagues/fall").await, 200, "fall").await;
    assert_eq!(league["archived"], true);
    for id in &ids {
        let m = json_with_status(app.get(&format!("/api/v1/matches/{id}")).await, 200, "m").await;
        assert_eq!(m["status"], "cancelled");
        assert_eq!(m["status_note"], "season closed");
    }
    let feed = app
        .get("/leagues/fall/calendar.ics")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(feed.matches("STATUS:CANCELLED").count(), 6, "{feed}");
}
