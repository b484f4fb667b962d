//! The scoring calculator through the JSON API, the CLI and the page: same numbers, same
//! error shapes (docs/api.md §3 and §5.1).

use serde_json::{Value, json};

use crate::helpers::spawn_app;

/// A game under unc-im-300 (docs/scoring.md §5.2): nil ±60, min bid 4, 6-bag rule, revokes 3/30.
fn unc_request() -> Value {
    json!({
        "rules": "unc-im-300",
        "hands": [
            // A: 4 + nil, took 5 + 0 → nil +60, contract 40, 1 bag → 101.
            // B: 3 + 3 = 6, took 4 + 4 = 8 → 60 + 2 bags → 62.
            {"a": {"bids": [4, "nil"], "tricks": [5, 0]}, "b": {"bids": [3, 3], "tricks": [4, 4]}},
            // A: 5 + 2 = 7, took 8 → 71 (002's example). B: 4 + 1 = 5, took 5 → 50.
            {"a": {"bids": [5, 2], "tricks": [6, 2]}, "b": {"bids": [4, 1], "tricks": [3, 2]}},
            // B revokes once: 3 of B's tricks move to A, A gains 30.
            // A: 3 + 2 = 5, took 4 + 1 = 5 (+3) → 50 + 3 bags + 30 = 83.
            // B: 4 + 2 = 6, took 5 + 3 = 8 (−3 = 5) → set, −60.
            {"a": {"bids": [3, 2], "tricks": [4, 1]}, "b": {"bids": [4, 2], "tricks": [5, 3]},
             "revokes": {"b": 1}}
        ]
    })
}

#[actix_web::test]
async fn score_answers_every_field_of_api_md() {
    let app = spawn_app().await;
    let response = app.post_json("/api/v1/score", &unc_request()).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["rules"]["target"], 300);
    assert_eq!(body["rules"]["bags"]["limit"], 6);
    let hands = body["hands"].as_array().unwrap();
    assert_eq!(hands.len(), 3);
    let first = &hands[0];
    for field in ["number", "misdeal", "time_called", "a", "b", "status"] {
        assert!(first.get(field).is_some(), "hand has {field}");
    }
    for field in [
        "nil_points",
        "contract",
        "tricks_counted",
        "made",
        "contract_points",
        "bag_points",
        "bag_penalty",
        "revoke_award",
        "points",
        "bags",
        "score",
    ] {
        assert!(first["a"].get(field).is_some(), "team result has {field}");
    }
    assert_eq!(first["a"]["nil_points"], 60);
    assert_eq!(first["a"]["contract_points"], 40);
    assert_eq!(first["a"]["points"], 101);
    assert_eq!(first["b"]["points"], 62);
    assert_eq!(hands[1]["a"]["points"], 71);
    let third = &hands[2];
    assert_eq!(third["a"]["tricks_counted"], 8);
    assert_eq!(third["a"]["revoke_award"], 30);
    assert_eq!(third["a"]["points"], 83);
    assert_eq!(third["b"]["tricks_counted"], 5);
    assert_eq!(third["b"]["made"], false);
    assert_eq!(third["b"]["contract_points"], -60);
    // Bags: 1 (hand 1) + 1 (hand 2) + 3 (hand 3).
    assert_eq!(body["a"], json!({"score": 101 + 71 + 83, "bags": 5}));
    assert_eq!(body["b"], json!({"score": 62 + 50 - 60, "bags": 2}));
    assert_eq!(body["status"], "in_progress");
    assert_eq!(body["winner"], Value::Null);
    assert_eq!(body["reason"], Value::Null);
}

#[actix_web::test]
async fn a_game_won_on_target_reports_winner_and_reason() {
    let app = spawn_app().await;
    let request = json!({
        "rules": "unc-im-300",
        "start": {"a": {"score": 280, "bags": 0}, "b": {"score": 100, "bags": 0}},
        "hands": [{"a": {"bids": [3, 2], "tricks": [3, 2]}, "b": {"bids": [4, 4], "tricks": [4, 4]}}]
    });
    let body: Value = app
        .post_json("/api/v1/score", &request)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(body["a"]["score"], 330);
    assert_eq!(body["status"], "won");
    assert_eq!(body["winner"], "a");
    assert_eq!(body["reason"], "target");
}

#[actix_web::test]
async fn errors_have_one_shape_and_the_right_status() {
    let app = spawn_app().await;
    // (what, request, status, code, hand, field)
    type Case = (
        &'static str,
        Value,
        u16,
        &'static str,
        Option<u64>,
        Option<&'static str>,
    );
    let cases: Vec<Case> = vec![
        (
            "tricks sum to 12",
            json!({"rules": "unc-im-300", "hands": [{"a": {"bids": [4, 3], "tricks": [4, 3]}, "b": {"bids": [3, 3], "tricks": [3, 2]}}]}),
            422,
            "invalid_hand",
            Some(1),
            Some("tricks"),
        ),
        (
            "below the minimum team bid",
            json!({"rules": "unc-im-300", "hands": [{"a": {"bids": [2, 1], "tricks": [4, 3]}, "b": {"bids": [3, 3], "tricks": [3, 3]}}]}),
            422,
            "invalid_hand",
            Some(1),
            Some("bids"),
        ),
        (
            "a bid of 14",
            json!({"rules": "partnership", "hands": [{"a": {"bids": [14, 3], "tricks": [4, 3]}, "b": {"bids": [3, 3], "tricks": [3, 3]}}]}),
            422,
            "invalid_hand",
            Some(1),
            Some("bids"),
        ),
        (
            "a bid of the wrong type names its hand",
            json!({"rules": "partnership", "hands": [{"misdeal": true}, {"a": {"bids": [true, 3], "tricks": [4, 3]}, "b": {"bids": [3, 3], "tricks": [3, 3]}}]}),
            422,
            "invalid_hand",
            Some(2),
            Some("bids"),
        ),
        (
            "blind nil not allowed when level",
            json!({"rules": "unc-im-300", "hands": [{"a": {"bids": [5, "blind_nil"], "tricks": [6, 0]}, "b": {"bids": [4, 3], "tricks": [4, 3]}}]}),
            422,
            "invalid_hand",
            Some(1),
            Some("bids"),
        ),
        (
            "unknown preset",
            json!({"rules": "hearts", "hands": []}),
            422,
            "invalid_rules",
            None,
            Some("rules.preset"),
        ),
        (
            "unknown rules field",
            json!({"rules": {"preset": "classic", "bags": {"limt": 5}}, "hands": []}),
            422,
            "invalid_rules",
            None,
            Some("rules.bags.limt"),
        ),
        (
            "rules field of the wrong type",
            json!({"rules": {"preset": "classic", "target": "lots"}, "hands": []}),
            422,
            "invalid_rules",
            None,
            Some("rules.target"),
        ),
        (
            "unknown request field",
            json!({"rules": "classic", "hands": [], "extra": 1}),
            422,
            "invalid_request",
            None,
            Some("extra"),
        ),
        (
            "start bags at the limit",
            json!({"rules": "unc-im-300", "start": {"a": {"score": 0, "bags": 6}}, "hands": []}),
            422,
            "invalid_start",
            None,
            Some("start"),
        ),
        (
            "a team's start as an array",
            json!({"rules": "unc-im-300", "start": {"a": []}, "hands": []}),
            422,
            "invalid_request",
            None,
            Some("start.a"),
        ),
        (
            "a team's start as an array of its fields",
            json!({"rules": "unc-im-300", "start": {"a": {"score": 0}, "b": [120, 3]}, "hands": []}),
            422,
            "invalid_request",
            None,
            Some("start.b"),
        ),
        (
            "the start as an array",
            json!({"rules": "unc-im-300", "start": [], "hands": []}),
            422,
            "invalid_request",
            None,
            Some("start"),
        ),
        (
            "the start as a number",
            json!({"rules": "unc-im-300", "start": 0, "hands": []}),
            422,
            "invalid_request",
            None,
            Some("start"),
        ),
        (
            "a start's score as an array",
            json!({"rules": "unc-im-300", "start": {"a": {"score": [], "bags": 0}}, "hands": []}),
            422,
            "invalid_request",
            None,
            Some("start.a.score"),
        ),
        (
            "a hand after the game is decided",
            json!({"rules": "unc-im-300", "start": {"a": {"score": 300, "bags": 0}},
                   "hands": [{"a": {"bids": [4, 3], "tricks": [4, 3]}, "b": {"bids": [3, 3], "tricks": [3, 3]}}]}),
            422,
            "game_over",
            Some(1),
            None,
        ),
    ];
    for (what, request, status, code, hand, field) in cases {
        let response = app.post_json("/api/v1/score", &request).await;
        assert_eq!(response.status().as_u16(), status, "{what}");
        let body: Value = response.json().await.unwrap();
        let error = &body["error"];
        assert_eq!(error["code"], code, "{what}: {body}");
        assert!(
            error["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{what}"
        );
        assert_eq!(error["hand"].as_u64(), hand, "{what}: {body}");
        assert_eq!(error["field"].as_str(), field, "{what}: {body}");
    }
}

#[actix_web::test]
async fn a_body_that_is_not_json_is_a_400() {
    let app = spawn_app().await;
    let response = app
        .client
        .post(app.url("/api/v1/score"))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "malformed");
}

#[actix_web::test]
async fn presets_lists_the_five_presets_resolved() {
    let app = spawn_app().await;
    let body: Value = app.get("/api/v1/presets").await.json().await.unwrap();
    let presets = body["presets"].as_array().unwrap();
    let names: Vec<&str> = presets
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "chicago-im",
            "unc-im-300",
            "unc-im-500",
            "classic",
            "partnership"
        ]
    );
    let unc500 = &presets[2]["rules"];
    assert_eq!(unc500["target"], 500);
    assert_eq!(unc500["time_limit_minutes"], 45);
    assert_eq!(
        unc500["ten_for_200"],
        json!({"min_bid": 10, "value": 200, "set": "per_bid_trick"})
    );
    assert_eq!(unc500["revoke"], json!({"tricks": 3, "award": 30}));
    assert_eq!(presets[0]["rules"]["regular_season_ties"], "draw");
    assert_eq!(presets[3]["rules"]["blind_nil"]["when"], "behind_more_than");
}

#[actix_web::test]
async fn openapi_document_describes_the_calculator() {
    let app = spawn_app().await;
    let body: Value = app.get("/api/v1/openapi.json").await.json().await.unwrap();
    assert!(body["openapi"].as_str().unwrap().starts_with('3'));
    assert!(body["paths"]["/api/v1/score"]["post"].is_object());
    assert!(body["paths"]["/api/v1/presets"]["get"].is_object());
    assert!(body["components"]["schemas"]["Rules"]["properties"]["ten_for_200"].is_object());
}

/// Every route under `/api/v1` (docs/api.md §12), with its method; `true` when it writes (needs a login).
const API_ROUTES: &[(&str, &str, bool)] = &[
    ("get", "/api/v1/users", true),
    ("post", "/api/v1/users", true),
    ("patch", "/api/v1/users/{username}", true),
    ("post", "/api/v1/users/{username}/reset-password", true),
    ("get", "/api/v1/teams/{id}/roster", true),
    ("post", "/api/v1/teams/{id}/players", true),
    ("patch", "/api/v1/players/{id}", true),
    ("post", "/api/v1/players/{id}/erase", true),
    ("post", "/api/v1/people/export", true),
    ("get", "/api/v1/audit", true),
    ("get", "/api/v1/notices", true),
    ("post", "/api/v1/score", false),
    ("get", "/api/v1/presets", false),
    ("get", "/api/v1/openapi.json", false),
    ("post", "/api/v1/leagues", true),
    ("get", "/api/v1/leagues", false),
    ("get", "/api/v1/leagues/{slug}", false),
    ("post", "/api/v1/leagues/{slug}/teams", true),
    ("get", "/api/v1/leagues/{slug}/teams", false),
    ("post", "/api/v1/leagues/{slug}/supervisors", true),
    ("get", "/api/v1/leagues/{slug}/export", true),
    ("post", "/api/v1/leagues/import", true),
    ("post", "/api/v1/leagues/{slug}/divisions", true),
    ("get", "/api/v1/leagues/{slug}/divisions", false),
    ("patch", "/api/v1/teams/{id}", true),
    ("post", "/api/v1/leagues/{slug}/schedule", true),
    ("post", "/api/v1/leagues/{slug}/matches", true),
    ("get", "/api/v1/leagues/{slug}/matches", false),
    ("get", "/api/v1/leagues/{slug}/standings", false),
    ("post", "/api/v1/leagues/{slug}/playoffs", true),
    ("get", "/api/v1/leagues/{slug}/bracket", false),
    ("get", "/api/v1/matches/{id}", false),
    ("post", "/api/v1/matches/{id}/start", true),
    ("post", "/api/v1/matches/{id}/hands", true),
    ("put", "/api/v1/matches/{id}/hands/{number}", true),
    ("post", "/api/v1/matches/{id}/time", true),
    ("post", "/api/v1/matches/{id}/forfeit", true),
    ("patch", "/api/v1/matches/{id}", true),
    ("patch", "/api/v1/leagues/{slug}", true),
    ("get", "/api/v1/leagues/{slug}/eligibility", false),
    ("post", "/api/v1/matches/{id}/postpone", true),
    ("post", "/api/v1/matches/{id}/cancel", true),
    ("post", "/api/v1/leagues/{slug}/nights/move", true),
    ("post", "/api/v1/leagues/{slug}/bracket/schedule", true),
    ("post", "/api/v1/matches/{id}/check-in", true),
    ("post", "/api/v1/matches/{id}/lineup", true),
    ("get", "/api/v1/captain", false),
    ("post", "/api/v1/matches/{id}/default", true),
    ("post", "/api/v1/matches/{id}/reschedule-requests", false),
    ("get", "/api/v1/reschedule-requests", true),
    ("post", "/api/v1/reschedule-requests/{id}/approve", true),
    ("post", "/api/v1/reschedule-requests/{id}/decline", true),
    ("post", "/api/v1/matches/{id}/disputes", false),
    ("get", "/api/v1/disputes", true),
    ("post", "/api/v1/disputes/{id}/resolve", true),
    ("post", "/api/v1/players/{id}/eligibility-override", true),
    ("get", "/api/v1/teams/{id}/stats", false),
    ("post", "/api/v1/matches/{id}/sportsmanship", true),
    ("post", "/api/v1/leagues/{slug}/eligibility/{team_id}", true),
    ("get", "/api/v1/scoreboard", false),
    ("post", "/api/v1/leagues/{slug}/archive", true),
    ("post", "/api/v1/leagues/{slug}/unarchive", true),
    ("post", "/api/v1/leagues/{slug}/clone", true),
    ("delete", "/api/v1/leagues/{slug}", true),
    ("delete", "/api/v1/matches/{id}", true),
    ("post", "/api/v1/leagues/{slug}/roster", true),
    ("get", "/api/v1/leagues/{slug}/schedule/warnings", true),
    ("put", "/api/v1/leagues/{slug}/tables", true),
    ("get", "/api/v1/leagues/{slug}/queue", false),
    ("post", "/api/v1/leagues/{slug}/queue", true),
    ("post", "/api/v1/matches/{id}/call", true),
];

#[actix_web::test]
async fn openapi_document_describes_every_route() {
    let app = spawn_app().await;
    let body: Value = app.get("/api/v1/openapi.json").await.json().await.unwrap();
    let mut documented: Vec<(String, String)> = body["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(path, item)| {
            item.as_object()
                .unwrap()
                .keys()
                .filter(|k| ["get", "post", "put", "patch", "delete"].contains(&k.as_str()))
                .map(|method| (method.clone(), path.clone()))
                .collect::<Vec<_>>()
        })
        .collect();
    documented.sort();
    let mut expected: Vec<(String, String)> = API_ROUTES
        .iter()
        .map(|(method, path, _)| (method.to_string(), path.to_string()))
        .collect();
    expected.sort();
    assert_eq!(documented, expected);

    let schemes = &body["components"]["securitySchemes"]["bearer"];
    assert_eq!(schemes["type"], "http");
    assert_eq!(schemes["scheme"], "bearer");
    for (method, path, writes) in API_ROUTES {
        let operation = &body["paths"][path][method];
        let needs_login = operation["security"]
            .as_array()
            .is_some_and(|s| s.iter().any(|r| r.get("bearer").is_some()));
        assert_eq!(needs_login, *writes, "{method} {path}: security");
        for param in ["slug", "id", "number"] {
            if path.contains(&format!("{{{param}}}")) {
                let declared = operation["parameters"]
                    .as_array()
                    .is_some_and(|ps| ps.iter().any(|p| p["name"] == param && p["in"] == "path"));
                assert!(declared, "{method} {path}: path parameter {param}");
            }
        }
        // Every error answer is documented with the error shape (a refused roster's has
        // the rows' report beside its `error`).
        let responses = operation["responses"].as_object().unwrap();
        for (status, response) in responses {
            if status.starts_with('4') {
                let schema = &response["content"]["application/json"]["schema"]["$ref"];
                let name = schema.as_str().unwrap_or_default();
                let name = name.trim_start_matches("#/components/schemas/");
                assert!(
                    name == "ErrorBody" || name == "RosterRefused",
                    "{method} {path}: {status}: {schema}"
                );
                let shape = body["components"]["schemas"][name].to_string();
                let error = r##""error":{"$ref":"#/components/schemas/FieldError"}"##;
                assert!(shape.contains(error), "{name} has the error: {shape}");
            }
        }
        if *writes {
            assert!(responses.contains_key("401"), "{method} {path}: 401");
            assert!(responses.contains_key("403"), "{method} {path}: 403");
        }
        if path.contains('{') {
            assert!(responses.contains_key("404"), "{method} {path}: 404");
        }
    }
    let schemas = body["components"]["schemas"].as_object().unwrap();
    for schema in [
        "NewLeagueInput",
        "LeagueView",
        "LeagueList",
        "TeamList",
        "SupervisorInput",
        "MatchView",
        "ScheduleAnswer",
        "HandRequest",
        "CorrectionRequest",
        "VersionRequest",
        "ForfeitInput",
        "StandingsOut",
        "StandingOut",
        "Board",
        "BoardMatch",
        "ErrorBody",
    ] {
        assert!(schemas.contains_key(schema), "schema {schema}");
    }
    assert_eq!(
        body["paths"]["/api/v1/matches/{id}/hands"]["post"]["requestBody"]["content"]["application/json"]
            ["schema"]["$ref"],
        "#/components/schemas/HandRequest"
    );
}

#[actix_web::test]
async fn the_cli_prints_the_same_answer_as_the_api() {
    let app = spawn_app().await;
    let request = unc_request();
    let api: Value = app
        .post_json("/api/v1/score", &request)
        .await
        .json()
        .await
        .unwrap();
    let cli = run_cli(&request.to_string());
    assert!(
        cli.status.success(),
        "{}",
        String::from_utf8_lossy(&cli.stderr)
    );
    let printed: Value = serde_json::from_slice(&cli.stdout).unwrap();
    assert_eq!(printed, api);
}

#[actix_web::test]
async fn the_cli_fails_with_the_error_json_on_invalid_input() {
    let bad = json!({"rules": "unc-im-300", "hands": [{"a": {"bids": [4, 3], "tricks": [4, 3]}, "b": {"bids": [3, 3], "tricks": [3, 2]}}]});
    let cli = run_cli(&bad.to_string());
    assert!(!cli.status.success());
    let printed: Value = serde_json::from_slice(&cli.stdout).unwrap();
    assert_eq!(printed["error"]["code"], "invalid_hand");
    assert_eq!(
        printed["error"]["message"],
        "hand 1: tricks sum to 12, not 13"
    );
    let garbage = run_cli("not json");
    assert!(!garbage.status.success());
    let printed: Value = serde_json::from_slice(&garbage.stdout).unwrap();
    assert_eq!(printed["error"]["code"], "malformed");
}

fn run_cli(stdin: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_spades-im"))
        .arg("score")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn the CLI");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}
