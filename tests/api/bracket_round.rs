//! A whole playoff round scheduled at once: `POST /api/v1/leagues/{slug}/bracket/schedule`
//! (docs/api.md §18.5), all or nothing.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::bracket_page::{bracket, league, playoffs};
use crate::helpers::{TestApp, expect_error, spawn_app};

/// The real match ids of the bracket's first round (winners round 1), in bracket order.
async fn first_round(app: &TestApp, slug: &str) -> Vec<i64> {
    bracket(app, slug).await["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .filter(|m| m["bracket"] == "winners" && m["round"] == 1)
        .filter_map(|m| m["match_id"].as_i64())
        .collect()
}

async fn match_json(app: &TestApp, id: i64) -> Value {
    app.get(&format!("/api/v1/matches/{id}"))
        .await
        .json()
        .await
        .expect("match")
}

#[actix_web::test]
async fn a_round_is_scheduled_at_once_with_its_clashes_and_each_change_audited() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    league(&admin, "round", 8).await;
    playoffs(&admin, "round", json!({"format": "single_elimination"})).await;
    let ids = first_round(&app, "round").await;
    assert_eq!(ids.len(), 4);
    let r = admin
        .post(
            "/api/v1/leagues/round/bracket/schedule",
            &json!({"matches": [
                {"id": ids[0], "scheduled_at": "2026-12-08T19:00", "table": "1"},
                {"id": ids[1], "scheduled_at": "2026-12-08T19:00", "table": "2"},
                {"id": ids[2], "scheduled_at": "2026-12-08T20:00", "table": "1"},
                // Table 1 at 19:00 again: saved, with a warning.
                {"id": ids[3], "scheduled_at": "2026-12-08T19:00", "table": " 1 "},
            ]}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.expect("JSON");
    let saved = body["matches"].as_array().expect("matches");
    assert_eq!(saved.len(), 4);
    assert_eq!(saved[0]["id"], ids[0]);
    assert_eq!(saved[0]["scheduled_at"], "2026-12-08T19:00");
    assert_eq!(saved[2]["table"], "1");
    assert_eq!(saved[3]["label"], "M4 · Quarter-final");
    let warnings = body["warnings"].as_array().expect("warnings");
    assert!(
        warnings
            .iter()
            .any(|w| w["code"] == "table_taken" && w["match"] == ids[0]),
        "{warnings:?}"
    );
    assert!(
        warnings.iter().any(|w| w["message"]
            .as_str()
            .unwrap_or_default()
            .contains("M1 · Quarter-final")),
        "the other match by its label: {warnings:?}"
    );
    for id in &ids {
        assert!(match_json(&app, *id).await["scheduled_at"].is_string());
    }
    let audited = app.audit_rows("change_match", &["action"]).await;
    assert_eq!(audited.len(), 4, "one audit row a match: {audited:?}");
}

#[actix_web::test]
async fn one_bad_item_refuses_the_whole_round_and_names_it() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    league(&admin, "bad", 8).await;
    league(&admin, "other", 4).await;
    playoffs(&admin, "bad", json!({"format": "single_elimination"})).await;
    playoffs(&admin, "other", json!({"format": "single_elimination"})).await;
    let ids = first_round(&app, "bad").await;
    let elsewhere = first_round(&app, "other").await[0];
    let before = app.tables().await;
    let cases = [
        (
            json!([{"id": ids[0], "scheduled_at": "2026-12-08T19:00"},
                   {"id": ids[1], "scheduled_at": "2026-12-08T19:00"},
                   {"id": ids[2], "scheduled_at": "2026-12-08T19:00", "table": "x\ny"}]),
            "matches[2].table",
        ),
        (
            json!([{"id": ids[0], "scheduled_at": "2026-12-08T19:00"},
                   {"id": ids[1], "scheduled_at": "next tuesday"}]),
            "matches[1].scheduled_at",
        ),
        (
            json!([{"id": ids[0], "scheduled_at": "2026-12-08T19:00"},
                   {"id": elsewhere, "scheduled_at": "2026-12-08T19:00"}]),
            "matches[1].id",
        ),
        (
            json!([{"id": ids[0], "scheduled_at": "2026-12-08T19:00"},
                   {"id": ids[0], "table": "2"}]),
            "matches[1].id",
        ),
        (json!([]), "matches"),
    ];
    for (items, field) in cases {
        let r = admin
            .post(
                "/api/v1/leagues/bad/bracket/schedule",
                &json!({ "matches": items }),
            )
            .await;
        let e = expect_error(
            r,
            422,
            if field == "matches" {
                "invalid_request"
            } else {
                "invalid_match"
            },
        )
        .await;
        assert_eq!(e["field"], field, "{e}");
        app.assert_nothing_written(&before, field).await;
    }
}
