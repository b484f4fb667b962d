//! Every answer under `/api/v1` is in the JSON error shape (docs/api.md §3, §3.4): a path
//! id that is not a number is a 404, an unknown path a 404, a method a path does not answer
//! a 405 with `Allow`, a body over the limit a 413 (whatever its content type); and `HEAD`
//! answers every `GET` route, pages and API alike, with the same headers and no body.

use reqwest::Method;
use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, TestApp, spawn_app};

/// Sends `method path` with `api`'s token and, when given, `body` as JSON.
async fn send(api: &Api, method: Method, path: &str, body: Option<&Value>) -> reqwest::Response {
    let mut request = api
        .client
        .request(method, format!("{}{}", api.base, path))
        .bearer_auth(&api.token);
    if let Some(body) = body {
        request = request.json(body);
    }
    request.send().await.expect("request failed")
}

/// Checks that `response` is `status` with a JSON error of `code`; returns its headers.
async fn assert_json_error(
    response: reqwest::Response,
    status: u16,
    code: &str,
    what: &str,
) -> reqwest::header::HeaderMap {
    let got = response.status().as_u16();
    let headers = response.headers().clone();
    let content_type = headers
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let text = response.text().await.unwrap();
    assert_eq!(got, status, "{what}: {text}");
    assert_eq!(content_type, "application/json", "{what}: {text}");
    let body: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {text}"));
    assert_eq!(body["error"]["code"], code, "{what}: {text}");
    assert!(body["error"]["message"].is_string(), "{what}: {text}");
    headers
}

/// Every route with a numeric id in its path, with a body it would accept.
fn routes_with_an_id(id: &str, number: &str) -> Vec<(Method, String, Option<Value>)> {
    let hand =
        json!({"a": {"bids": [4, 3], "tricks": [4, 3]}, "b": {"bids": [3, 3], "tricks": [3, 3]}});
    vec![
        (Method::GET, format!("/api/v1/matches/{id}"), None),
        (Method::POST, format!("/api/v1/matches/{id}/start"), None),
        (
            Method::POST,
            format!("/api/v1/matches/{id}/hands"),
            Some(json!({"hand": hand, "expected_version": 1})),
        ),
        (
            Method::PUT,
            format!("/api/v1/matches/{id}/hands/{number}"),
            Some(json!({"hand": hand, "reason": "typo", "expected_version": 1})),
        ),
        (
            Method::POST,
            format!("/api/v1/matches/{id}/time"),
            Some(json!({"expected_version": 1})),
        ),
        (
            Method::POST,
            format!("/api/v1/matches/{id}/forfeit"),
            Some(json!({"team": "a"})),
        ),
    ]
}

#[actix_web::test]
async fn a_path_id_that_is_not_a_number_is_a_json_404_on_every_route_with_an_id() {
    let app = spawn_app().await;
    let admin = app.api_user("admin", Role::Admin).await;
    let mut cases = routes_with_an_id("abc", "1");
    // An id past i64, and a hand number that is not a number.
    cases.extend(routes_with_an_id("9223372036854775808", "1"));
    cases.push((
        Method::PUT,
        "/api/v1/matches/1/hands/first".into(),
        Some(json!({"hand": {"misdeal": true}, "reason": "typo", "expected_version": 1})),
    ));
    for (method, path, body) in cases {
        let what = format!("{method} {path}");
        let response = send(&admin, method, &path, body.as_ref()).await;
        assert_json_error(response, 404, "not_found", &what).await;
    }
}

#[actix_web::test]
async fn a_page_path_id_that_is_not_a_number_is_an_html_404() {
    let app = spawn_app().await;
    for path in ["/matches/abc/scoresheet.csv", "/matches/1x/scoresheet.csv"] {
        let response = app.get(path).await;
        assert_eq!(response.status(), 404, "{path}");
        assert_eq!(
            response.headers()["content-type"],
            "text/html; charset=utf-8",
            "{path}"
        );
    }
}

#[actix_web::test]
async fn a_method_a_path_does_not_answer_is_a_json_405_naming_the_methods_that_do() {
    let app = spawn_app().await;
    let admin = app.api_user("admin", Role::Admin).await;
    let cases = [
        (Method::DELETE, "/api/v1/leagues", "GET, HEAD, POST"),
        (Method::PUT, "/api/v1/matches/1", "GET, HEAD, PATCH, DELETE"),
        (
            Method::POST,
            "/api/v1/matches/abc",
            "GET, HEAD, PATCH, DELETE",
        ),
        (Method::GET, "/api/v1/matches/1/postpone", "POST"),
        (Method::GET, "/api/v1/matches/1/check-in", "POST"),
        (Method::PUT, "/api/v1/matches/1/sportsmanship", "POST"),
        (
            Method::GET,
            "/api/v1/leagues/fall-2026/eligibility/3",
            "POST",
        ),
        (
            Method::POST,
            "/api/v1/leagues/fall-2026/eligibility",
            "GET, HEAD",
        ),
        (Method::GET, "/api/v1/leagues/fall-2026/nights/move", "POST"),
        (Method::GET, "/api/v1/score", "POST"),
        (Method::POST, "/api/v1/presets", "GET, HEAD"),
        (Method::GET, "/api/v1/matches/1/hands", "POST"),
        (Method::DELETE, "/api/v1/matches/1/hands/2", "PUT"),
        (
            Method::PUT,
            "/api/v1/leagues/fall-2026/teams",
            "GET, HEAD, POST",
        ),
        (Method::OPTIONS, "/api/v1/scoreboard", "GET, HEAD"),
        (
            Method::from_bytes(b"TRACE").unwrap(),
            "/api/v1/leagues/fall-2026",
            "GET, HEAD, PATCH, DELETE",
        ),
    ];
    for (method, path, allow) in cases {
        let what = format!("{method} {path}");
        let headers = assert_json_error(
            send(&admin, method, path, None).await,
            405,
            "method_not_allowed",
            &what,
        )
        .await;
        assert_eq!(headers["allow"], allow, "{what}");
    }
    // Anonymous too: no route, so no credentials are asked for.
    let response = reqwest::Client::new()
        .delete(app.url("/api/v1/leagues"))
        .send()
        .await
        .unwrap();
    assert_json_error(response, 405, "method_not_allowed", "anonymous DELETE").await;
}

#[actix_web::test]
async fn an_unknown_api_path_is_a_json_404() {
    let app = spawn_app().await;
    let admin = app.api_user("admin", Role::Admin).await;
    for (method, path) in [
        (Method::GET, "/api/v1/nothing"),
        (Method::POST, "/api/v1/nothing"),
        (Method::GET, "/api/v2/leagues"),
        (Method::GET, "/api/v1/leagues/"),
        (Method::GET, "/api/v1/matches/1/nothing"),
        (Method::DELETE, "/api/v1/matches/1/hands/2/3"),
    ] {
        let what = format!("{method} {path}");
        assert_json_error(
            send(&admin, method, path, None).await,
            404,
            "not_found",
            &what,
        )
        .await;
    }
}

/// Sends `HEAD {target}` (or `GET`) over a plain TCP connection and returns the whole
/// answer as bytes: the status line, the headers and whatever follows them.
async fn raw(app: &TestApp, method: &str, target: &str) -> Vec<u8> {
    use std::io::{Read, Write};
    let host = app.address.trim_start_matches("http://").to_string();
    let request =
        format!("{method} {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    actix_web::rt::task::spawn_blocking(move || {
        let mut stream = std::net::TcpStream::connect(&host).unwrap();
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).unwrap();
        answer
    })
    .await
    .unwrap()
}

/// The status, the headers (lowercase names; `date` and the page cache's hit or miss left
/// out, they differ between two requests) and the body of a raw answer.
fn parse_raw(answer: &[u8]) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let end = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("the end of the headers");
    let head = String::from_utf8_lossy(&answer[..end]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap()[9..12].parse().unwrap();
    let mut headers: Vec<(String, String)> = lines
        .map(|line| {
            let (name, value) = line.split_once(':').unwrap();
            (name.trim().to_ascii_lowercase(), value.trim().to_string())
        })
        // Each request has an id of its own (observe.rs tests that every answer has one).
        .filter(|(name, _)| !["date", "x-page-cache", "x-request-id"].contains(&name.as_str()))
        .collect();
    headers.sort();
    (status, headers, answer[end + 4..].to_vec())
}

#[actix_web::test]
async fn head_answers_every_get_route_with_its_headers_and_no_body() {
    let app = spawn_app().await;
    let admin = app.api_user("admin", Role::Admin).await;
    app.league(&admin, "fall-2026", json!("unc-im-300"), 2)
        .await;
    for path in [
        "/",
        "/leagues/fall-2026",
        "/leagues/fall-2026/standings.csv",
        "/static/style.css",
        "/healthz",
        "/api/v1/leagues",
        "/api/v1/leagues/fall-2026",
        "/api/v1/presets",
        "/api/v1/openapi.json",
        "/api/v1/scoreboard",
    ] {
        let (get_status, get_headers, get_body) = parse_raw(&raw(&app, "GET", path).await);
        let (status, headers, body) = parse_raw(&raw(&app, "HEAD", path).await);
        assert_eq!(get_status, 200, "GET {path}");
        assert!(!get_body.is_empty(), "GET {path} has a body");
        assert_eq!(status, 200, "HEAD {path}");
        assert_eq!(headers, get_headers, "HEAD {path}: the headers of GET");
        assert!(
            body.is_empty(),
            "HEAD {path}: no body, got {:?}",
            String::from_utf8_lossy(&body)
        );
        assert!(
            headers.contains(&("content-length".into(), get_body.len().to_string())),
            "HEAD {path}: the length of GET's body"
        );
    }
    // As GET would: a 404 (JSON under the API) and a 405, without their bodies.
    let (status, headers, body) = parse_raw(&raw(&app, "HEAD", "/api/v1/matches/abc").await);
    assert_eq!(status, 404);
    assert!(headers.contains(&("content-type".into(), "application/json".into())));
    assert!(body.is_empty());
    let (status, headers, body) = parse_raw(&raw(&app, "HEAD", "/api/v1/score").await);
    assert_eq!(status, 405);
    assert!(headers.contains(&("allow".into(), "POST".into())));
    assert!(body.is_empty());
    let (status, _, body) = parse_raw(&raw(&app, "HEAD", "/no-such-page").await);
    assert_eq!(status, 404);
    assert!(body.is_empty());
}

#[actix_web::test]
async fn a_body_over_the_limit_is_a_json_413_on_every_route_that_takes_one() {
    let app = spawn_app().await;
    let admin = app.api_user("admin", Role::Admin).await;
    let big = format!(r#"{{"name": "{}"}}"#, "x".repeat(300 * 1024));
    let routes = [
        (Method::POST, "/api/v1/score"),
        (Method::POST, "/api/v1/leagues"),
        (Method::POST, "/api/v1/leagues/fall-2026/teams"),
        (Method::POST, "/api/v1/leagues/fall-2026/supervisors"),
        (Method::POST, "/api/v1/leagues/fall-2026/schedule"),
        (Method::POST, "/api/v1/leagues/fall-2026/matches"),
        (Method::POST, "/api/v1/leagues/fall-2026/playoffs"),
        (Method::POST, "/api/v1/matches/1/hands"),
        (Method::PUT, "/api/v1/matches/1/hands/1"),
        (Method::POST, "/api/v1/matches/1/time"),
        (Method::POST, "/api/v1/matches/1/forfeit"),
        (Method::PATCH, "/api/v1/matches/1"),
        (Method::POST, "/api/v1/matches/1/postpone"),
        (Method::POST, "/api/v1/matches/1/cancel"),
        (Method::PATCH, "/api/v1/leagues/fall-2026"),
        (Method::POST, "/api/v1/leagues/fall-2026/nights/move"),
        (Method::POST, "/api/v1/matches/1/check-in"),
        (Method::POST, "/api/v1/matches/1/sportsmanship"),
        (Method::POST, "/api/v1/leagues/fall-2026/eligibility/1"),
    ];
    for (method, path) in routes {
        // Declared as JSON, and declared as something else: the size is judged first.
        for content_type in ["application/json", "text/plain"] {
            let what = format!("{method} {path} ({content_type})");
            let response = admin
                .client
                .request(method.clone(), app.url(path))
                .bearer_auth(&admin.token)
                .header("content-type", content_type)
                .body(big.clone())
                .send()
                .await
                .unwrap();
            assert_json_error(response, 413, "too_large", &what).await;
        }
    }
}

#[actix_web::test]
async fn the_openapi_document_states_the_limits_of_the_input() {
    let app = spawn_app().await;
    let doc: Value = app.get("/api/v1/openapi.json").await.json().await.unwrap();
    let schemas = &doc["components"]["schemas"];
    let reason = &schemas["CorrectionRequest"]["properties"]["reason"];
    assert_eq!(reason["maxLength"], 500);
    assert_eq!(
        schemas["PresetName"]["enum"],
        json!([
            "chicago-im",
            "unc-im-300",
            "unc-im-500",
            "classic",
            "partnership"
        ])
    );
    assert_eq!(
        schemas["TeamHandInput"]["properties"]["tricks"]["items"]["maximum"],
        13
    );
    assert_eq!(
        schemas["NewTeamInput"]["properties"]["name"]["maxLength"],
        80
    );
    assert_eq!(
        schemas["ForfeitInput"]["properties"]["team"]["$ref"],
        "#/components/schemas/ForfeitSide"
    );
    let hands = &doc["paths"]["/api/v1/matches/{id}/hands"]["post"];
    for status in ["400", "401", "403", "404", "409", "413", "415", "422"] {
        assert!(
            hands["responses"][status].is_object(),
            "POST hands documents {status}"
        );
    }
    assert_eq!(hands["parameters"][0]["schema"]["minimum"], 1);
}
