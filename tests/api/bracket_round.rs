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

/// The admin playoffs page of league `slug`, as `coord` sees it: its status and HTML.
async fn playoffs_page(coord: &crate::helpers::Browser, path: &str) -> (u16, String) {
    let r = coord.get(path).await;
    let status = r.status().as_u16();
    (status, r.text().await.expect("page"))
}

/// The "Schedule the quarter-finals" form's fields for `ids` with `values` (time, table).
fn round_fields<'a>(ids: &'a [String], values: &'a [(&'a str, &'a str)]) -> Vec<(String, &'a str)> {
    let mut fields = vec![("round".to_string(), "winners-1")];
    for (id, (at, table)) in ids.iter().zip(values) {
        fields.push(("match".to_string(), id.as_str()));
        fields.push((format!("at-{id}"), *at));
        fields.push((format!("table-{id}"), *table));
    }
    fields
}

async fn post_round(
    coord: &crate::helpers::Browser,
    slug: &str,
    fields: &[(String, &str)],
) -> reqwest::Response {
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    coord
        .post_form(&format!("/admin/leagues/{slug}/playoffs/schedule"), &fields)
        .await
}

#[actix_web::test]
async fn the_playoffs_page_schedules_a_round_in_one_post() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    league(&admin, "cup", 8).await;
    playoffs(&admin, "cup", json!({"format": "single_elimination"})).await;
    let ids = first_round(&app, "cup").await;
    let coord = app.browser("coord").await;
    let (status, page) = playoffs_page(&coord, "/admin/leagues/cup/playoffs").await;
    assert_eq!(status, 200);
    assert!(page.contains("id=\"round-winners-1\""), "{page}");
    assert!(page.contains("Schedule the quarter-finals"), "{page}");
    assert!(page.contains("M4 · Quarter-final"), "{page}");
    // The semi-finals wait for their teams: no form yet.
    assert!(!page.contains("id=\"round-winners-2\""), "{page}");

    let id_texts: Vec<String> = ids.iter().map(i64::to_string).collect();
    let values = [
        ("2026-12-08T19:00", "Table 1"),
        ("2026-12-08T19:00", "Table 2"),
        ("2026-12-08T20:30", "Table 1"),
        ("2026-12-08T20:30", "Table 2"),
    ];
    let r = post_round(&coord, "cup", &round_fields(&id_texts, &values)).await;
    assert_eq!(r.status(), 303);
    let to = r.headers()["location"]
        .to_str()
        .expect("location")
        .to_string();
    assert_eq!(
        to,
        "/admin/leagues/cup/playoffs?round=winners-1&n=4#round-winners-1"
    );
    for (id, (at, table)) in ids.iter().zip(values) {
        let m = match_json(&app, *id).await;
        assert_eq!(m["scheduled_at"], at, "{m}");
        assert_eq!(m["table"], table, "{m}");
    }
    assert_eq!(app.audit_rows("change_match", &["action"]).await.len(), 4);
    let (_, page) = playoffs_page(&coord, &to).await;
    assert!(
        page.contains("Scheduled the quarter-finals (4 matches); recorded in the"),
        "{page}"
    );
    assert!(!page.contains("id=\"clash-warnings\""), "no clash: {page}");
    // The form shows the saved values.
    assert!(page.contains("value=\"2026-12-08T20:30\""), "{page}");
}

#[actix_web::test]
async fn a_bad_table_in_a_round_keeps_what_was_typed_names_the_match_and_saves_nothing() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    league(&admin, "cup", 8).await;
    playoffs(&admin, "cup", json!({"format": "single_elimination"})).await;
    let ids = first_round(&app, "cup").await;
    let coord = app.browser("coord").await;
    let before = app.tables().await;
    let id_texts: Vec<String> = ids.iter().map(i64::to_string).collect();
    let long = "T".repeat(41);
    let values = [
        ("2026-12-08T19:00", "Table 1"),
        ("2026-12-08T19:00", "Table 2"),
        ("2026-12-08T20:30", long.as_str()),
        ("2026-12-09T18:15", "Table 4"),
    ];
    let r = post_round(&coord, "cup", &round_fields(&id_texts, &values)).await;
    assert_eq!(r.status(), 422);
    let page = r.text().await.expect("page");
    app.assert_nothing_written(&before, "a refused round").await;
    // Every typed value is kept.
    for (at, table) in values {
        assert!(page.contains(&format!("value=\"{at}\"")), "{at}: {page}");
        assert!(
            page.contains(&format!("value=\"{table}\"")),
            "{table}: {page}"
        );
    }
    // The summary names the match, focused; the message is by its table, which is marked.
    let third = ids[2];
    let label = match_json(&app, third).await["label"]
        .as_str()
        .expect("label")
        .to_string();
    assert_eq!(label, "M3 · Quarter-final");
    assert!(
        page.contains(&format!(
            "id=\"form-error\" tabindex=\"-1\" autofocus>Not saved: {label}: "
        )),
        "{page}"
    );
    assert!(
        page.contains(&format!("href=\"#m{third}-table\"")),
        "the summary links to the field: {page}"
    );
    assert!(
        page.contains(&format!(
            "aria-invalid=\"true\" aria-describedby=\"m{third}-table-error\""
        )),
        "{page}"
    );
    assert!(
        page.contains(&format!("id=\"m{third}-table-error\"")),
        "{page}"
    );
    assert!(
        !page.contains(&format!("id=\"m{}-table-error\"", ids[0])),
        "only the bad match is marked: {page}"
    );
}

#[actix_web::test]
async fn a_saved_round_lists_its_clashes_and_a_started_match_is_text() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    league(&admin, "cup", 8).await;
    playoffs(&admin, "cup", json!({"format": "single_elimination"})).await;
    let ids = first_round(&app, "cup").await;
    // The last quarter-final has started: shown as text, without inputs.
    crate::bracket_page::start(&admin, ids[3]).await;
    let coord = app.browser("coord").await;
    let (_, page) = playoffs_page(&coord, "/admin/leagues/cup/playoffs").await;
    assert!(
        page.contains(&format!("id=\"m{}-table\"", ids[2])),
        "{page}"
    );
    assert!(
        !page.contains(&format!("id=\"m{}-table\"", ids[3])),
        "{page}"
    );
    assert!(page.contains("being played"), "{page}");

    let id_texts: Vec<String> = ids[..3].iter().map(i64::to_string).collect();
    // Table 1 at 19:00 twice: saved, with a warning.
    let values = [
        ("2026-12-08T19:00", "Table 1"),
        ("2026-12-08T19:00", "Table 2"),
        ("2026-12-08T19:00", "Table 1"),
    ];
    let r = post_round(&coord, "cup", &round_fields(&id_texts, &values)).await;
    assert_eq!(r.status(), 303);
    let to = r.headers()["location"]
        .to_str()
        .expect("location")
        .to_string();
    let (_, page) = playoffs_page(&coord, &to).await;
    assert!(
        page.contains("Scheduled the quarter-finals (3 matches)"),
        "{page}"
    );
    assert!(page.contains("id=\"clash-warnings\""), "{page}");
    assert!(page.contains("class=\"clash-table_taken\""), "{page}");
    assert!(page.contains("M1 · Quarter-final"), "{page}");
    assert_eq!(match_json(&app, ids[2]).await["table"], "Table 1");
}
