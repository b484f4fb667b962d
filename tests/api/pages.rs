//! The HTML pages: home, rules, the calculator form (without JavaScript), headers, 404s.

use crate::helpers::spawn_app;

fn hand_fields(i: usize, a: [&str; 4], b: [&str; 4]) -> Vec<(String, String)> {
    let mut fields = Vec::new();
    for (team, cells) in [("a", a), ("b", b)] {
        fields.push((format!("h{i}_{team}_bid0"), cells[0].to_string()));
        fields.push((format!("h{i}_{team}_tricks0"), cells[1].to_string()));
        fields.push((format!("h{i}_{team}_bid1"), cells[2].to_string()));
        fields.push((format!("h{i}_{team}_tricks1"), cells[3].to_string()));
    }
    fields
}

async fn post_form(app: &crate::helpers::TestApp, fields: &[(String, String)]) -> (u16, String) {
    let body = fields
        .iter()
        .map(|(k, v)| format!("{}={}", k, v.replace(' ', "+")))
        .collect::<Vec<_>>()
        .join("&");
    let response = app
        .client
        .post(app.url("/calculator"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

#[actix_web::test]
async fn public_pages_render() {
    let app = spawn_app().await;
    for (path, needle) in [
        ("/", "Spades leagues, scored exactly"),
        ("/rules", "unc-im-300"),
        ("/rules/unc-im-300", "Every 6th bag costs 60 points"),
        (
            "/rules/unc-im-300",
            "+60 if the bidder takes no trick, −60 otherwise",
        ),
        (
            "/rules/unc-im-300",
            "Readings taken where the rules are unclear",
        ),
        ("/rules/chicago-im", "Blind nil may not be bid."),
        ("/rules/classic", "more than 100 points behind"),
        ("/calculator", "Scoring calculator"),
        (
            "/calculator?preset=classic",
            "<option value=\"classic\" selected>",
        ),
    ] {
        let response = app.get(path).await;
        assert_eq!(response.status(), 200, "{path}");
        let html = response.text().await.unwrap();
        assert!(html.contains(needle), "{path} shows {needle:?}");
    }
}

#[actix_web::test]
async fn the_rules_table_shows_every_preset_value() {
    let app = spawn_app().await;
    let html = app.get("/rules").await.text().await.unwrap();
    for needle in [
        "<td>6 / 60 / carry / 1</td>",
        "<td>10 / 120 / per_bid_trick</td>",
        "<td>10 / 200 / per_bid_trick</td>",
        "<td>count_toward_bid</td>",
        "<td>3 / 30</td>",
    ] {
        assert!(html.contains(needle), "rules table has {needle}");
    }
}

#[actix_web::test]
async fn unknown_pages_are_404_in_the_right_format() {
    let app = spawn_app().await;
    let page = app.get("/rules/hearts").await;
    assert_eq!(page.status(), 404);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let api = app.get("/api/v1/nothing").await;
    assert_eq!(api.status(), 404);
    let body: serde_json::Value = api.json().await.unwrap();
    assert_eq!(body["error"]["code"], "not_found");
}

#[actix_web::test]
async fn every_answer_carries_the_security_headers() {
    let app = spawn_app().await;
    for path in ["/", "/calculator", "/api/v1/presets", "/static/style.css"] {
        let response = app.get(path).await;
        let headers = response.headers();
        let csp = headers["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("script-src 'self'"), "{path}");
        assert!(csp.contains("frame-ancestors 'none'"), "{path}");
        assert!(!csp.contains("unsafe-inline"), "{path}");
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
    }
}

#[actix_web::test]
async fn static_assets_are_served_from_the_binary() {
    let app = spawn_app().await;
    let css = app.get("/static/style.css").await;
    assert_eq!(css.status(), 200);
    assert!(
        css.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/css")
    );
    let js = app.get("/static/calculator.js").await;
    assert!(js.text().await.unwrap().contains("add-hand"));
}

/// `..` in a static path, sent as typed: reqwest (like a browser) would resolve
/// `/static/../Cargo.toml` to `/Cargo.toml` before sending, so these go over a raw
/// connection. Every form is a 404, and nothing of the files next to `static/` comes back.
#[actix_web::test]
async fn static_paths_do_not_leave_static() {
    let app = spawn_app().await;
    let root = env!("CARGO_MANIFEST_DIR");
    let cargo = std::fs::read_to_string(format!("{root}/Cargo.toml")).unwrap();
    let main = std::fs::read_to_string(format!("{root}/src/main.rs")).unwrap();
    // A line of each file that no page or asset of the service contains.
    let leaks = [
        cargo
            .lines()
            .find(|l| l.starts_with("rust-version"))
            .unwrap(),
        main.lines().find(|l| l.starts_with("use ")).unwrap(),
    ];
    // A file that is there, asked for the same ways, is found: the raw requests do reach the
    // asset route.
    let (status, answer) = app.raw_get("/static/style.css").await;
    assert_eq!(status, 200, "{answer}");
    for target in [
        "/static/../Cargo.toml",
        "/static/../src/main.rs",
        "/static/../../spades-im/Cargo.toml",
        "/static/%2e%2e/Cargo.toml",
        "/static/%2E%2E/Cargo.toml",
        "/static/.%2e/Cargo.toml",
        "/static/..%2fCargo.toml",
        "/static/..%2FCargo.toml",
        "/static/%2e%2e%2fCargo.toml",
        "/static/%2e%2e%2Fsrc%2Fmain.rs",
        "/static/..%5cCargo.toml",
        "/static/..\\Cargo.toml",
        "/static/%252e%252e%252fCargo.toml",
        "/static/....//Cargo.toml",
        "/static//../Cargo.toml",
        "/static/./../Cargo.toml",
        "/static/style.css/../../Cargo.toml",
    ] {
        let (status, answer) = app.raw_get(target).await;
        assert_eq!(status, 404, "GET {target}: {answer}");
        for leak in leaks {
            assert!(
                !answer.contains(leak),
                "GET {target} leaks {leak:?}: {answer}"
            );
        }
    }
}

#[actix_web::test]
async fn healthz_names_the_store_and_says_it_takes_writes() {
    let app = spawn_app().await;
    let response = app.get("/healthz").await;
    assert_eq!(response.status(), 200);
    let body: serde_json::Value = response.json().await.unwrap();
    let store = if crate::helpers::on_postgres() {
        "postgresql"
    } else {
        "sqlite"
    };
    assert_eq!(
        body,
        serde_json::json!({"status": "ok", "store": store, "writable": true})
    );
}

#[actix_web::test]
async fn the_calculator_form_scores_like_the_api() {
    let app = spawn_app().await;
    let mut fields = vec![("preset".to_string(), "unc-im-300".to_string())];
    fields.extend(hand_fields(0, ["4", "5", "nil", "0"], ["3", "4", "3", "4"]));
    fields.extend(hand_fields(1, ["5", "6", "2", "2"], ["4", "3", "1", "2"]));
    let (status, html) = post_form(&app, &fields).await;
    assert_eq!(status, 200, "{html}");
    // Hand 1: A 101, B 62; hand 2: A 71, B 50 (see score.rs for the arithmetic).
    assert!(
        html.contains("<strong id=\"score-a\">172</strong>"),
        "{html}"
    );
    assert!(html.contains("<strong id=\"score-b\">112</strong>"));
    assert!(html.contains("In progress"));
    // The typed values come back, and a blank row is added for the next hand.
    assert!(html.contains("name=\"h0_a_tricks0\" value=\"5\""));
    assert!(html.contains("name=\"h2_a_tricks0\" value=\"\""));
}

#[actix_web::test]
async fn an_invalid_hand_comes_back_with_every_value_and_the_message() {
    let app = spawn_app().await;
    let mut fields = vec![
        ("preset".to_string(), "unc-im-300".to_string()),
        ("stage".to_string(), "playoff".to_string()),
    ];
    fields.extend(hand_fields(0, ["4", "5", "nil", "0"], ["3", "4", "3", "4"]));
    // Tricks sum to 12.
    fields.extend(hand_fields(1, ["5", "6", "2", "2"], ["4", "3", "1", "1"]));
    let (status, html) = post_form(&app, &fields).await;
    assert_eq!(status, 422);
    assert!(
        html.contains("id=\"hand-2-error\">hand 2: tricks sum to 12, not 13"),
        "{html}"
    );
    assert!(html.contains("<option value=\"playoff\" selected>"));
    assert!(html.contains("name=\"h1_b_tricks1\" value=\"1\""));
    assert!(html.contains("name=\"h0_a_tricks0\" value=\"5\""));
    assert!(
        !html.contains("id=\"score-a\""),
        "no scores for an invalid form"
    );
}

#[actix_web::test]
async fn a_missing_trick_count_is_marked_on_its_field() {
    let app = spawn_app().await;
    let mut fields = vec![("preset".to_string(), "partnership".to_string())];
    fields.extend(hand_fields(0, ["4", "5", "3", ""], ["3", "4", "3", "4"]));
    let (status, html) = post_form(&app, &fields).await;
    assert_eq!(status, 422);
    assert!(html.contains("hand 1: seat 3 has no trick count"));
    assert!(
        html.contains(
            "name=\"h0_a_tricks1\" value=\"\" aria-invalid=\"true\" \
             aria-describedby=\"hand-1-error\" class=\"invalid\""
        ),
        "{html}"
    );
}

#[actix_web::test]
async fn bad_overrides_are_reported_next_to_the_field() {
    let app = spawn_app().await;
    for (overrides, message) in [
        ("{not json", "overrides are not valid JSON"),
        ("[1]", "overrides must be a JSON object"),
        ("{\"bogus\": 1}", "rules: unknown field \"bogus\""),
    ] {
        let fields = vec![
            ("preset".to_string(), "classic".to_string()),
            ("overrides".to_string(), overrides.to_string()),
        ];
        let (status, html) = post_form(&app, &fields).await;
        assert_eq!(status, 422, "{overrides}");
        let escaped = message.replace('"', "&#34;");
        assert!(html.contains(&escaped), "{overrides}: {html}");
        assert!(html.contains("id=\"overrides-error\""));
    }
}

#[actix_web::test]
async fn overrides_change_the_scoring() {
    let app = spawn_app().await;
    // Chicago with blind nil agreed by both teams (000: ±200).
    let mut fields = vec![
        ("preset".to_string(), "chicago-im".to_string()),
        (
            "overrides".to_string(),
            "{\"blind_nil\": {\"when\": \"always\"}}".to_string(),
        ),
    ];
    fields.extend(hand_fields(
        0,
        ["blind_nil", "0", "5", "6"],
        ["3", "4", "3", "3"],
    ));
    let (status, html) = post_form(&app, &fields).await;
    assert_eq!(status, 200, "{html}");
    // A: blind nil made +200, contract 5 with 6 tricks → 51; total 251.
    assert!(
        html.contains("<strong id=\"score-a\">251</strong>"),
        "{html}"
    );
}

#[actix_web::test]
async fn a_proxy_forwarded_host_counts_as_this_site() {
    let app = spawn_app().await;
    let post = |forwarded: Option<&'static str>| {
        let mut request = app
            .client
            .post(app.url("/login"))
            .header("origin", "https://spades.example.edu")
            .form(&[("username", "nobody"), ("password", "wrong password")]);
        if let Some(host) = forwarded {
            request = request.header("x-forwarded-host", host);
        }
        request.send()
    };
    // Another site's origin is refused before anything else happens.
    assert_eq!(post(None).await.unwrap().status(), 403);
    assert_eq!(post(Some("evil.example")).await.unwrap().status(), 403);
    // The public host, passed on by the proxy: the login itself answers (wrong password).
    assert_eq!(
        post(Some("spades.example.edu")).await.unwrap().status(),
        401
    );
}
