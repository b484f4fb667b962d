//! What a student at the next table could try, each refused with a clear answer and nothing
//! written: an API write riding on the supervisor's session cookie, a body that is not
//! declared JSON, a correction reason of 200,000 characters, a NUL or an escape in a name; and
//! no page a logged-in user sees is kept by the browser. Authentication at the edges: a
//! foreign `Authorization` header (a staging proxy's HTTP Basic login) leaves the pages alone,
//! the API refuses bad credentials on every route, a token opens no account page, the session
//! cookie is `__Host-` when `Secure`, and a log-out tells the browser to forget the site.
//! (Before: the session cookie alone wrote through the API with any Content-Type, a reason had
//! no limit, NUL was stored in names, and `/`, `/calculator`, `/rules` were cacheable for a
//! logged-in user although they carry the CSRF token.)

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{
    PASSWORD, TestApp, hand_of, html_text, json_with_status, manual_clock, spawn_app,
    spawn_app_with_clock, spawn_secure_app,
};

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
                .contains("must be an object"),
            "{what}: {answer}"
        );
    }
    app.assert_nothing_written(&before, "objects sent as arrays")
        .await;
}

/// A body of the wrong shape is refused in the service's words, never the deserializer's:
/// a missing field is named itself, a null where a number goes says what it must be.
#[actix_web::test]
async fn a_refused_body_is_said_in_plain_words() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(&admin, "fall", json!("unc-im-300"), 4).await;
    let cases = [
        (
            "/api/v1/leagues/fall/playoffs",
            json!({}),
            "format",
            "\"format\" is required",
        ),
        (
            "/api/v1/leagues/fall/teams",
            json!({"name": 7}),
            "name",
            "must be text",
        ),
        (
            "/api/v1/leagues/fall/schedule",
            json!({"format": "round_robin", "days_between": null, "start_date": []}),
            "start_date",
            "must be text",
        ),
    ];
    for (path, body, field, words) in cases {
        let answer = json_with_status(admin.post(path, &body).await, 422, path).await;
        let message = answer["error"]["message"].as_str().unwrap();
        assert_eq!(answer["error"]["field"], field, "{path}: {answer}");
        assert!(message.ends_with(words), "{path}: {message}");
        for parser in ["invalid type", "expected", "missing field", "`"] {
            assert!(!message.contains(parser), "{path}: {message}");
        }
    }
}

/// An app on a still clock (pages rendered twice are the same bytes) with league `fall`, a
/// match, supervisor `sup`, and the match's id.
async fn still_league() -> (TestApp, i64) {
    let (clock, _) = manual_clock("2026-11-23T18:00:00Z", chrono_tz::UTC);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "fall", json!("classic"), 2).await;
    let m = admin.add_match("fall", teams[0], teams[1], "T1").await;
    app.user("sup", Role::Supervisor).await;
    (app, m["id"].as_i64().unwrap())
}

/// `GET path` with `Authorization: value` (none for `None`): status, `Cache-Control`, body.
async fn get_with(app: &TestApp, path: &str, value: Option<&str>) -> (u16, String, String) {
    let mut request = app.client.get(app.url(path));
    if let Some(value) = value {
        request = request.header("Authorization", value);
    }
    let r = request.send().await.unwrap();
    let status = r.status().as_u16();
    let cache = r
        .headers()
        .get("cache-control")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (status, cache, r.text().await.unwrap())
}

/// Behind nginx with HTTP Basic auth every request carries `Authorization: Basic …`. Pages go
/// by the session cookie alone: whatever the header (Basic, Digest, another service's bearer
/// token, a token of ours unknown, revoked or valid), a public page is the anonymous page
/// (from the page cache too, which it neither reads as someone nor fills with someone's
/// page), a page that needs a login sends a browser to the login form, which answers, and a
/// logged-in browser is itself. (Before: every page answered 303 to `/login`, and `/login`
/// to itself.)
#[actix_web::test]
async fn a_foreign_authorization_header_leaves_the_pages_alone() {
    let (app, id) = still_league().await;
    let valid = app.token("sup").await;
    let revoked = app.revoked_token("sup").await;
    let ours_valid = format!("Bearer {valid}");
    let ours_revoked = format!("Bearer {revoked}");
    let foreign = [
        "Basic c3RhZ2luZzpzZWNyZXQ=",
        r#"Digest username="staging", realm="staging", nonce="1", uri="/", response="0""#,
        "Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmVk",
        "Bearer",
    ];
    let ours = [
        ours_valid.as_str(),
        ours_revoked.as_str(),
        "Bearer spim_000000000000000000000000000000000000000000000000",
    ];
    let browser = app.browser("sup").await;
    let before = app.tables().await;
    for path in [
        "/leagues/fall/standings".to_string(),
        "/leagues/fall".to_string(),
        format!("/matches/{id}"),
        "/scoreboard".to_string(),
        "/leagues/fall/standings.csv".to_string(),
        "/leagues/fall/calendar.ics".to_string(),
        "/".to_string(),
        "/rules".to_string(),
        "/calculator".to_string(),
        "/login".to_string(),
        "/login?next=/supervise".to_string(),
    ] {
        // A valid token first: were it read, its page (with the name) would fill the cache.
        let (status, cache, with_token) = get_with(&app, &path, Some(&ours_valid)).await;
        assert_eq!(status, 200, "{path} with a valid token");
        let anonymous = get_with(&app, &path, None).await;
        assert_eq!(anonymous.0, 200, "{path}");
        assert!(
            !anonymous.2.contains("href=\"/account\""),
            "{path}: the anonymous page names a user:\n{}",
            anonymous.2
        );
        assert_eq!(with_token, anonymous.2, "{path} with a valid token");
        assert_eq!(cache, anonymous.1, "{path}: the token changes caching");
        for value in foreign.iter().chain(&ours) {
            let got = get_with(&app, &path, Some(value)).await;
            assert_eq!(got, anonymous, "{path} with Authorization: {value}");
        }
    }
    // A page that needs a login: to the login form (a header not ours), which answers.
    for value in foreign {
        let r = app
            .client
            .get(app.url("/supervise"))
            .header("Authorization", value)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 303, "/supervise with {value}");
        assert_eq!(r.headers()["location"], "/login?next=/supervise", "{value}");
    }
    // With one of our tokens and no session: a token is not a login, 401 (a script would
    // make nothing of a login form).
    for value in ours {
        let (status, _, body) = get_with(&app, "/supervise", Some(value)).await;
        assert_eq!(status, 401, "/supervise with {value}: {body}");
        assert!(
            html_text(&body).contains("pages take a browser session"),
            "{body}"
        );
    }
    // A logged-in browser behind the proxy is itself.
    for value in foreign.iter().chain(&ours) {
        let r = browser
            .client
            .get(app.url("/supervise"))
            .header("Authorization", *value)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "the session with Authorization: {value}");
        assert!(r.text().await.unwrap().contains(">sup</a>"));
    }
    app.assert_nothing_written(&before, "pages with a foreign Authorization header")
        .await;
}

/// Under `/api/`, a `Bearer` header must hold a valid token of ours: malformed, unknown or
/// revoked is a 401 on every route, the public reads included (and never a copy from the page
/// cache). A header of another scheme (a proxy's HTTP Basic login, sent by a browser behind it
/// with every request) is not read: the reads answer as to anyone, a write says what the API
/// reads. (Before: the reads answered 200 with a revoked token.)
#[actix_web::test]
async fn the_api_refuses_bad_tokens_on_reads_too() {
    let (app, id) = still_league().await;
    let valid = app.token("sup").await;
    let revoked = format!("Bearer {}", app.revoked_token("sup").await);
    let lowercase = format!("bearer {valid}");
    let bad = [
        "Bearer",
        "Bearer ",
        "Bearer spim_000000000000000000000000000000000000000000000000",
        "Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmVk",
        revoked.as_str(),
        lowercase.as_str(),
    ];
    let reads = [
        "/api/v1/leagues".to_string(),
        "/api/v1/leagues/fall".to_string(),
        "/api/v1/leagues/fall/standings".to_string(),
        format!("/api/v1/matches/{id}"),
        "/api/v1/scoreboard".to_string(),
        "/api/v1/presets".to_string(),
        "/api/v1/openapi.json".to_string(),
        "/api/v1/no-such-route".to_string(),
    ];
    // The cached reads have a copy to give.
    for path in &reads[..5] {
        let first = app.get(path).await;
        assert_eq!(first.status(), 200, "{path}");
        let again = app.get(path).await;
        assert_eq!(again.headers()["x-page-cache"], "hit", "{path}");
    }
    let before = app.tables().await;
    for value in bad {
        for path in &reads {
            for method in [reqwest::Method::GET, reqwest::Method::HEAD] {
                let r = app
                    .client
                    .request(method.clone(), app.url(path))
                    .header("Authorization", value)
                    .send()
                    .await
                    .unwrap();
                assert_eq!(r.status(), 401, "{method} {path} with {value}");
                assert!(r.headers().get("x-page-cache").is_none(), "{path}");
                if method == reqwest::Method::GET {
                    let body: Value = r.json().await.unwrap();
                    assert_eq!(body["error"]["code"], "unauthorized", "{path}: {body}");
                }
            }
        }
        let r = app
            .client
            .post(app.url("/api/v1/score"))
            .header("Authorization", value)
            .json(&json!({"rules": "classic", "hands": []}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401, "POST /api/v1/score with {value}");
    }
    // A proxy's Basic login: the reads are everyone's, a write needs a token.
    let basic = "Basic c3RhZ2luZzpzZWNyZXQ=";
    for path in &reads[..7] {
        let anonymous = get_with(&app, path, None).await;
        assert_eq!(anonymous.0, 200, "{path}");
        let got = get_with(&app, path, Some(basic)).await;
        assert_eq!(got, anonymous, "{path} with {basic}");
    }
    let r = app
        .client
        .post(app.url("/api/v1/leagues/fall/teams"))
        .header("Authorization", basic)
        .json(&json!({"name": "Basic", "players": ["A", "B"]}))
        .send()
        .await
        .unwrap();
    let body = json_with_status(r, 401, "a write with Basic").await;
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Authorization: Bearer"),
        "{body}"
    );
    app.assert_nothing_written(&before, "API requests with bad credentials")
        .await;
    // A valid token reads, afresh.
    let r = app
        .client
        .get(app.url("/api/v1/leagues/fall"))
        .bearer_auth(&valid)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("x-page-cache").is_none());
}

/// The account pages need a browser session: a bearer token (stolen, say) can neither open
/// the account page nor make a token that outlives its revocation, revoke one, or change the
/// password; nothing is written. (Before: `POST /account/tokens` with a bearer token made a
/// new token.)
#[actix_web::test]
async fn an_api_token_opens_no_account_page() {
    let app = spawn_app().await;
    app.user("sup", Role::Supervisor).await;
    let token = app.token("sup").await;
    let browser = app.browser("sup").await;
    let account = browser.get("/account").await.text().await.unwrap();
    // The token's own revoke button.
    let revoke = account
        .split("action=\"/account/tokens/")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .map(|path| format!("/account/tokens/{path}"))
        .expect("a revoke button");
    let before = app.tables().await;
    let bearer = format!("Bearer {token}");
    let send = |method: reqwest::Method, path: &str, form: &[(&str, &str)]| {
        app.client
            .request(method, app.url(path))
            .header("Authorization", bearer.clone())
            .form(form)
            .send()
    };
    for (method, path, form) in [
        (reqwest::Method::GET, "/account", vec![]),
        (
            reqwest::Method::POST,
            "/account/tokens",
            vec![("name", "forever")],
        ),
        (reqwest::Method::POST, revoke.as_str(), vec![]),
        (
            reqwest::Method::POST,
            "/account/password",
            vec![
                ("current", PASSWORD),
                ("new", "a stolen new password"),
                ("repeat", "a stolen new password"),
            ],
        ),
    ] {
        let r = send(method.clone(), path, &form).await.unwrap();
        let status = r.status();
        let body = r.text().await.unwrap();
        assert_eq!(status, 401, "{method} {path} with a token: {body}");
        assert!(!body.contains("spim_"), "{method} {path}: {body}");
    }
    app.assert_nothing_written(&before, "account pages with a bearer token")
        .await;
    // The token still reads the API; the session still makes tokens.
    assert_eq!(app.api(&token).get("/api/v1/leagues").await.status(), 200);
    let r = browser
        .post_form("/account/tokens", &[("name", "phone")])
        .await;
    assert_eq!(r.status(), 200);
    assert!(r.text().await.unwrap().contains("spim_"));
}

/// A log-out answer tells the browser to forget the site (`Clear-Site-Data: "cache",
/// "storage"`: the console's service worker with its pages, the outbox), not its cookies
/// (that would be every cookie of the campus's domain; the session cookie is removed by
/// name). A log-out whose session is already over clears too; one with a live session and a
/// wrong CSRF token is refused.
#[actix_web::test]
async fn logging_out_tells_the_browser_to_forget_the_site() {
    let app = spawn_app().await;
    app.user("sup", Role::Supervisor).await;
    let browser = app.browser("sup").await;
    let r = browser.post_form("/logout", &[]).await;
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], "/");
    assert_eq!(r.headers()["clear-site-data"], r#""cache", "storage""#);
    assert_eq!(r.headers()["cache-control"], "no-store");
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(
        cookie.starts_with("spades_session=;") && cookie.contains("Max-Age=0"),
        "{cookie}"
    );
    assert_eq!(browser.get("/account").await.status(), 303, "logged out");
    // No live session (it expired, another tab logged out): cleared all the same.
    let r = app
        .client
        .post(app.url("/logout"))
        .form(&[("csrf", "")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["clear-site-data"], r#""cache", "storage""#);
    // A live session and a wrong token: refused, still logged in.
    let other = app.browser("sup").await;
    let before = app.tables().await;
    let r = other.post_form("/logout", &[("csrf", "forged")]).await;
    assert_eq!(r.status(), 403);
    assert!(r.headers().get("clear-site-data").is_none());
    app.assert_nothing_written(&before, "a log-out with a forged CSRF token")
        .await;
    assert_eq!(other.get("/account").await.status(), 200);
}

/// With `Secure` cookies (production) the session cookie is `__Host-spades_session`: a
/// browser takes it only from this host over HTTPS, `Path=/`, no `Domain`, so a site on a
/// sibling subdomain can neither set nor overwrite it. The plain name means nothing there
/// (after the upgrade, whoever was logged in logs in again).
#[actix_web::test]
async fn a_secure_session_cookie_is_host_only() {
    let app = spawn_secure_app().await;
    app.user("sup", Role::Supervisor).await;
    let r = app
        .client
        .post(app.url("/login"))
        .form(&[("username", "sup"), ("password", PASSWORD)])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_string();
    let attributes: Vec<&str> = cookie.split(';').map(str::trim).collect();
    let id = attributes[0]
        .strip_prefix("__Host-spades_session=")
        .unwrap_or_else(|| panic!("the cookie's name: {cookie}"))
        .to_string();
    assert!(attributes.contains(&"Secure"), "{cookie}");
    assert!(attributes.contains(&"Path=/"), "{cookie}");
    assert!(
        !attributes.iter().any(|a| a.starts_with("Domain")),
        "{cookie}"
    );
    let with = |cookie: String| {
        app.client
            .get(app.url("/account"))
            .header("Cookie", cookie)
            .send()
    };
    let r = with(format!("__Host-spades_session={id}")).await.unwrap();
    assert_eq!(r.status(), 200, "logged in by the __Host- cookie");
    let page = r.text().await.unwrap();
    let csrf = crate::helpers::csrf_in(&page).unwrap();
    let r = with(format!("spades_session={id}")).await.unwrap();
    assert_eq!(
        r.status(),
        303,
        "the plain name is no login on a Secure instance"
    );
    // The log-out removes it by its name, Secure (a browser refuses a __Host- cookie without).
    let r = app
        .client
        .post(app.url("/logout"))
        .header("Cookie", format!("__Host-spades_session={id}"))
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    let gone = r.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(
        gone.starts_with("__Host-spades_session=;") && gone.contains("Secure"),
        "{gone}"
    );
    let r = with(format!("__Host-spades_session={id}")).await.unwrap();
    assert_eq!(r.status(), 303, "the session is over");
}
