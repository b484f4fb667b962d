//! What a student at the next table could try, each refused with a clear answer and nothing
//! written: an API write riding on the supervisor's session cookie, a body that is not
//! declared JSON, a correction reason of 200,000 characters, a NUL or an escape in a name; and
//! no page a logged-in user sees is kept by the browser.
//! (Before: the session cookie alone wrote through the API with any Content-Type, a reason had
//! no limit, NUL was stored in names, and `/`, `/calculator`, `/rules` were cacheable for a
//! logged-in user although they carry the CSRF token.)

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{hand_of, html_text, json_with_status, spawn_app};

#[actix_web::test]
async fn an_api_write_with_the_session_cookie_needs_the_csrf_header() {
    let app = spawn_app().await;
    app.user("coord", Role::Admin).await;
    let admin = app.api_user("coord-api", Role::Admin).await;
    app.league(&admin, "fall", json!("classic"), 2).await;
    let browser = app.browser("coord").await;
    let url = app.url("/api/v1/leagues/fall/teams");
    let team = json!({"name": "Cookie Team", "players": ["Ann", "Al"]});
    let before = app.tables().await;
    for (header, what) in [
        (None, "no X-CSRF-Token"),
        (Some("not-the-token"), "a wrong X-CSRF-Token"),
        (Some(""), "an empty X-CSRF-Token"),
    ] {
        let mut request = browser.client.post(&url).json(&team);
        if let Some(value) = header {
            request = request.header("X-CSRF-Token", value);
        }
        let body = json_with_status(request.send().await.unwrap(), 403, what).await;
        assert_eq!(body["error"]["code"], "forbidden", "{what}");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("X-CSRF-Token"),
            "{what}: {body}"
        );
    }
    app.assert_nothing_written(&before, "cookie-only API writes")
        .await;
    // The pages' own scripts send the session's token: that write goes through.
    let r = browser
        .client
        .post(&url)
        .header("X-CSRF-Token", &browser.csrf)
        .json(&team)
        .send()
        .await
        .unwrap();
    json_with_status(r, 201, "with the session's CSRF token").await;
    // Reads need no token.
    let r = browser.get("/api/v1/leagues/fall/teams").await;
    assert_eq!(r.status(), 200);
}

#[actix_web::test]
async fn an_api_body_must_be_declared_json() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(&admin, "fall", json!("classic"), 2).await;
    let url = app.url("/api/v1/leagues/fall/teams");
    let team = json!({"name": "Typed Team", "players": ["Ann", "Al"]}).to_string();
    let before = app.tables().await;
    for content_type in [
        None,
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        Some("text/json"),
        Some("application/jsonx"),
    ] {
        let mut request = app
            .client
            .post(&url)
            .bearer_auth(&admin.token)
            .body(team.clone());
        if let Some(value) = content_type {
            request = request.header("Content-Type", value);
        }
        let body = json_with_status(
            request.send().await.unwrap(),
            415,
            &format!("Content-Type {content_type:?}"),
        )
        .await;
        assert_eq!(body["error"]["code"], "unsupported_media_type");
    }
    app.assert_nothing_written(&before, "bodies not declared JSON")
        .await;
    // Credentials are still judged first: an anonymous text/plain write is a 401.
    let r = app
        .client
        .post(&url)
        .header("Content-Type", "text/plain")
        .body(team.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // JSON with a charset parameter, or a +json type, is JSON.
    for (i, content_type) in [
        "application/json; charset=utf-8",
        "application/merge-patch+json",
    ]
    .iter()
    .enumerate()
    {
        let body = json!({"name": format!("Team J{i}"), "players": ["Ann", "Al"]}).to_string();
        let r = app
            .client
            .post(&url)
            .bearer_auth(&admin.token)
            .header("Content-Type", *content_type)
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201, "{content_type}");
    }
}

#[actix_web::test]
async fn stored_text_has_limits_and_no_control_characters() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "fall", json!("classic"), 2).await;
    let m = admin.add_match("fall", teams[0], teams[1], "Table 1").await;
    let m = admin
        .play_hands(
            m["id"].as_i64().unwrap(),
            &[hand_of([3, 3], [3, 3], [3, 4], [3, 4])],
        )
        .await;
    let other = hand_of([3, 3], [4, 3], [3, 4], [3, 3]);
    let before = app.tables().await;
    let refusals: Vec<(String, &str)> = vec![
        (
            "x".repeat(200_000),
            "the reason must be 1 to 500 characters (this one has 200000)",
        ),
        (
            "x".repeat(501),
            "the reason must be 1 to 500 characters (this one has 501)",
        ),
        (
            "typo\0".into(),
            "the reason contains a control character (U+0000)",
        ),
        (
            "typo \u{1b}[2J".into(),
            "the reason contains a control character (U+001B)",
        ),
    ];
    for (reason, message) in &refusals {
        let r = admin.correct_hand(&m, 1, &other, reason, false).await;
        let body = json_with_status(r, 422, message).await;
        assert_eq!(body["error"]["field"], "reason");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with(message),
            "{body}"
        );
    }
    let names: [(Value, &str, &str); 4] = [
        (
            json!({"name": "Aces\0", "players": ["Ann", "Al"]}),
            "name",
            "U+0000",
        ),
        (
            json!({"name": "Aces", "players": ["Ann\u{7}", "Al"]}),
            "players",
            "U+0007",
        ),
        (
            json!({"name": "Ace\ns", "players": ["Ann", "Al"]}),
            "name",
            "U+000A",
        ),
        (
            json!({"name": "x".repeat(81), "players": ["Ann", "Al"]}),
            "name",
            "1 to 80",
        ),
    ];
    for (team, field, message) in &names {
        let r = admin.post("/api/v1/leagues/fall/teams", team).await;
        let body = json_with_status(r, 422, message).await;
        assert_eq!(body["error"]["field"], *field, "{body}");
        assert!(
            body["error"]["message"].as_str().unwrap().contains(message),
            "{body}"
        );
    }
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Fall\0", "slug": "fall2", "rules": {"regular": "classic"}}),
        )
        .await;
    assert_eq!(r.status(), 422);
    app.assert_nothing_written(&before, "over-long or control-character text")
        .await;
    // 500 characters, over two lines, is a reason.
    let reason = format!("{}\n{}", "a".repeat(250), "b".repeat(249));
    let r = admin.correct_hand(&m, 1, &other, &reason, false).await;
    json_with_status(r, 200, "a 500-character reason").await;
}

#[actix_web::test]
async fn the_admin_form_says_why_a_name_is_refused_and_keeps_it() {
    let app = spawn_app().await;
    app.user("coord", Role::Admin).await;
    let admin = app.api_user("coord-api", Role::Admin).await;
    app.league(&admin, "fall", json!("classic"), 2).await;
    let browser = app.browser("coord").await;
    let before = app.tables().await;
    let r = browser
        .post_form(
            "/admin/leagues/fall/teams",
            &[
                ("name", "Aces\u{0}High"),
                ("player1", "Ann"),
                ("player2", "Al"),
            ],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    let text = html_text(&html);
    assert!(
        text.contains("the team's name contains a control character (U+0000)"),
        "{text}"
    );
    assert!(
        html.contains("value=\"Ann\""),
        "the form keeps what was typed"
    );
    app.assert_nothing_written(&before, "a NUL in a team name")
        .await;
}

#[actix_web::test]
async fn nothing_shown_to_a_logged_in_user_is_cacheable() {
    let app = spawn_app().await;
    app.user("sup", Role::Supervisor).await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(&admin, "fall", json!("classic"), 2).await;
    let browser = app.browser("sup").await;
    for path in [
        "/",
        "/calculator",
        "/rules",
        "/rules/classic",
        "/leagues/fall",
        "/leagues/fall/standings",
        "/supervise",
        "/account",
        "/no-such-page",
    ] {
        let r = browser.get(path).await;
        assert_eq!(
            r.headers()
                .get("cache-control")
                .map(|v| v.to_str().unwrap()),
            Some("no-store"),
            "{path} as sup ({})",
            r.status()
        );
    }
    // The API with a bearer token, too.
    let r = admin.get("/api/v1/leagues/fall/standings").await;
    assert_eq!(r.headers()["cache-control"], "no-store");
    // Static assets are the same for everyone and stay cacheable.
    let r = browser.get("/static/style.css").await;
    assert_eq!(r.headers()["cache-control"], "public, max-age=3600");
}

/// A body, or a part of one, that should be an object is never read from an array of its
/// fields (serde would take `["Aces", ["Ann", "Al"]]` for a team, and `[]` for anything
/// whose fields are all optional, such as the removal of an eligibility decision): a 422
/// naming the field, and nothing written.
#[actix_web::test]
async fn an_object_is_never_read_from_an_array() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "fall", json!("classic"), 2).await;
    let r = admin
        .post(
            &format!("/api/v1/leagues/fall/eligibility/{}", teams[0]),
            &json!({"eligible": false, "reason": "two forfeits"}),
        )
        .await;
    json_with_status(r, 200, "a decision").await;
    let before = app.tables().await;
    let cases: [(String, Value, &str); 4] = [
        (
            "/api/v1/leagues/fall/teams".into(),
            json!(["Aces", ["Ann", "Al"]]),
            ".",
        ),
        (
            format!("/api/v1/leagues/fall/eligibility/{}", teams[0]),
            json!([]),
            ".",
        ),
        (
            "/api/v1/leagues".into(),
            json!({"name": "Spring", "slug": "spring", "rules": {"regular": {"preset": "classic", "bags": [5, 100]}}}),
            "rules.regular.bags",
        ),
        (
            "/api/v1/score".into(),
            json!({"rules": {"preset": "classic", "bags": []}}),
            "rules.bags",
        ),
    ];
    for (path, body, field) in &cases {
        let r = admin.post(path, body).await;
        let what = format!("{path} {body}");
        let answer = json_with_status(r, 422, &what).await;
        if *field != "." {
            assert_eq!(answer["error"]["field"], *field, "{what}: {answer}");
        }
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("invalid type: sequence"),
            "{what}: {answer}"
        );
    }
    app.assert_nothing_written(&before, "objects sent as arrays")
        .await;
}
