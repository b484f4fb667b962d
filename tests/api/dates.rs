//! Every date and time a user sends is a day from 2000-01-01 to 2100-12-31 (docs/api.md §1.3):
//! a match's time, a night to move and where to, a schedule's first date (and its last
//! round), a week of the public schedule. Out of it, the API answers 422 naming the field, a
//! form comes back with what was typed and the message by the field, a week is no page
//! (404); nothing is written. A database that already holds a time at the edge of what
//! chrono can hold (written before the bound) still shows every page.
//! (Before: `?week=-262143-01-01` panicked, `{"to": "-262143-01-01"}` moved a night there
//! and the schedule then panicked for every visitor; years 0000 and 9999 were taken.)

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{
    Api, Browser, TestApp, anonymous_get, html_element, html_text, json_with_status, spawn_app,
};

/// Dates chrono reads but no user may send.
const OUT_OF_RANGE: [&str; 5] = [
    "-262143-01-01",
    "0000-01-01",
    "1999-12-31",
    "2101-01-01",
    "9999-12-31",
];

const RANGE: &str = "the date must be between 2000-01-01 and 2100-12-31";

/// League "fall" of 4 teams with a weekly round robin from Tuesday 24 November 2026, 19:00.
async fn season() -> (TestApp, Api, Browser, Vec<i64>, Vec<Value>) {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "fall", json!("unc-im-300"), 4).await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin", "start_date": "2026-11-24", "time": "19:00"}),
        )
        .await;
    let matches = json_with_status(r, 201, "round robin").await["matches"]
        .as_array()
        .unwrap()
        .clone();
    let browser = app.browser("coord").await;
    (app, admin, browser, teams, matches)
}

async fn refused(r: reqwest::Response, code: &str, field: &str, what: &str) -> String {
    let body = json_with_status(r, 422, what).await;
    assert_eq!(body["error"]["code"], code, "{what}: {body}");
    assert_eq!(body["error"]["field"], field, "{what}: {body}");
    body["error"]["message"].as_str().unwrap().to_string()
}

#[actix_web::test]
async fn the_api_refuses_a_date_out_of_range_naming_the_field() {
    let (app, admin, _, teams, matches) = season().await;
    let id = matches[0]["id"].as_i64().unwrap();
    let patch = |body: Value| {
        admin
            .client
            .patch(format!("{}/api/v1/matches/{id}", admin.base))
            .bearer_auth(&admin.token)
            .json(&body)
            .send()
    };
    let before = app.tables().await;
    for day in OUT_OF_RANGE {
        let at = format!("{day}T19:00");
        let r = admin
            .post(
                "/api/v1/leagues/fall/matches",
                &json!({"team_a": teams[0], "team_b": teams[1], "scheduled_at": at}),
            )
            .await;
        let message = refused(r, "invalid_match", "scheduled_at", &at).await;
        assert_eq!(message, RANGE, "{at}");
        // With an offset, as RFC 3339.
        let r = admin
            .post(
                "/api/v1/leagues/fall/matches",
                &json!({"team_a": teams[0], "team_b": teams[1], "scheduled_at": format!("{at}:00Z")}),
            )
            .await;
        if day != "-262143-01-01" {
            // (RFC 3339 has four-digit years: that one is not a time at all.)
            assert_eq!(
                refused(r, "invalid_match", "scheduled_at", &at).await,
                RANGE
            );
        } else {
            refused(r, "invalid_match", "scheduled_at", &at).await;
        }
        let r = patch(json!({"scheduled_at": at, "expected_version": 1}))
            .await
            .unwrap();
        assert_eq!(
            refused(r, "invalid_match", "scheduled_at", &at).await,
            RANGE
        );
        for (from, to, field) in [("2026-11-24", day, "to"), (day, "2026-11-26", "from")] {
            let r = admin
                .post(
                    "/api/v1/leagues/fall/nights/move",
                    &json!({"from": from, "to": to}),
                )
                .await;
            let what = format!("move {from} to {to}");
            assert_eq!(refused(r, "invalid_schedule", field, &what).await, RANGE);
        }
        let r = admin
            .post(
                "/api/v1/leagues/fall/schedule",
                &json!({"format": "round_robin", "mode": "replace", "start_date": day}),
            )
            .await;
        assert_eq!(
            refused(r, "invalid_schedule", "start_date", day).await,
            RANGE
        );
    }
    // A first date in range whose last round falls after 2100 (4 teams: 3 weekly rounds).
    let r = admin
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin", "mode": "replace", "start_date": "2100-12-20"}),
        )
        .await;
    assert_eq!(
        refused(r, "invalid_schedule", "start_date", "last round in 2101").await,
        "the last round would fall on 2101-01-03, outside 2000-01-01 to 2100-12-31: choose another first date or fewer days between nights"
    );
    app.assert_nothing_written(&before, "dates out of range")
        .await;

    // The edges are days like any other.
    let r = admin
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin", "mode": "replace", "start_date": "2100-12-17"}),
        )
        .await;
    let generated = json_with_status(r, 201, "last round on 2100-12-31").await;
    let last = generated["matches"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["scheduled_at"].as_str())
        .max()
        .unwrap()
        .to_string();
    assert_eq!(last, "2100-12-31T19:00");
    let r = admin
        .post(
            "/api/v1/leagues/fall/nights/move",
            &json!({"from": "2100-12-31", "to": "2000-01-01"}),
        )
        .await;
    assert_eq!(json_with_status(r, 200, "to 2000").await["moved"], 2);
    for at in ["2000-01-01T00:00", "2100-12-31T23:59"] {
        let r = admin
            .post(
                "/api/v1/leagues/fall/matches",
                &json!({"team_a": teams[0], "team_b": teams[1], "scheduled_at": at}),
            )
            .await;
        assert_eq!(json_with_status(r, 201, at).await["scheduled_at"], at);
    }
}

/// The text of the element `id` of `html` (to the first `close` after it).
fn text_of(html: &str, id: &str, close: &str) -> String {
    html_text(html_element(html, id, close).unwrap_or_else(|| panic!("no #{id}: {html}")))
}

#[actix_web::test]
async fn a_form_keeps_a_date_out_of_range_with_the_message_by_the_field() {
    let (app, _, browser, teams, matches) = season().await;
    let id = matches[0]["id"].as_i64().unwrap();
    let (a, b) = (teams[0].to_string(), teams[1].to_string());
    let before = app.tables().await;

    // Moving a night to 2101.
    let r = browser
        .post_form(
            "/admin/leagues/fall/nights/move",
            &[
                ("from", "2026-11-24"),
                ("to", "2101-01-01"),
                ("group", "night-2026-11-24"),
            ],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    assert_eq!(
        text_of(&html, "move-night-2026-11-24-to-error", "</p>"),
        RANGE
    );
    assert!(
        html.contains(
            "id=\"move-night-2026-11-24-to\" type=\"date\" name=\"to\" value=\"2101-01-01\""
        ),
        "the date typed is kept"
    );
    assert!(text_of(&html, "form-error", "</p>").contains(RANGE));
    // The browser is told the range too.
    assert!(
        html_element(&html, "move-night-2026-11-24-to", ">")
            .unwrap()
            .contains(" min=\"2000-01-01\" max=\"2100-12-31\""),
    );

    // A match's time in year 9999.
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/matches/{id}"),
            &[
                ("expected_version", "1"),
                ("scheduled_at", "9999-12-31T19:00"),
                ("table", "Table 7"),
                ("team_a", &a),
                ("team_b", &b),
            ],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    assert_eq!(
        text_of(&html, &format!("m{id}-scheduled_at-error"), "</p>"),
        RANGE
    );
    assert!(html.contains("value=\"9999-12-31T19:00\""));
    assert!(html.contains("value=\"Table 7\""));

    // A new match in year 0000, from the schedule page and from the league's page.
    for (from, page) in [("schedule", "schedule"), ("", "league")] {
        let r = browser
            .post_form(
                "/admin/leagues/fall/matches",
                &[
                    ("team_a", &a),
                    ("team_b", &b),
                    ("table", "Table 9"),
                    ("scheduled_at", "0000-01-01T19:00"),
                    ("from", from),
                ],
            )
            .await;
        assert_eq!(r.status(), 422, "{page}");
        let html = r.text().await.unwrap();
        assert!(
            html.contains(RANGE) && html.contains("value=\"0000-01-01T19:00\""),
            "{page}: {html}"
        );
        if page == "schedule" {
            assert_eq!(text_of(&html, "match-scheduled_at-error", "</p>"), RANGE);
        }
    }

    // The rest of the round robin from 1999.
    let r = browser
        .post_form(
            "/admin/leagues/fall/schedule",
            &[
                ("mode", "rest"),
                ("start_date", "1999-12-31"),
                ("time", "19:00"),
                ("from", "schedule"),
            ],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    assert_eq!(text_of(&html, "rest-start_date-error", "</p>"), RANGE);
    assert!(html.contains("value=\"1999-12-31\""));
    app.assert_nothing_written(&before, "forms with dates out of range")
        .await;
}

#[actix_web::test]
async fn a_week_out_of_range_is_no_page_of_the_schedule() {
    let (app, _, browser, _, _) = season().await;
    let weeks = OUT_OF_RANGE
        .iter()
        .map(|d| d.to_string())
        .chain(["-262144-01-01", "+262143-12-31", "+10000-01-01"].map(String::from));
    for week in weeks {
        let path = format!("/leagues/fall/schedule?week={}", week.replace('+', "%2B"));
        let (status, _, html) = anonymous_get(&app, &path).await;
        assert_eq!(status, 404, "{path}");
        assert!(html.contains("<h1>404"), "{path}: an HTML page");
        assert_eq!(browser.get(&path).await.status(), 404, "{path}, logged in");
    }
    for week in ["2000-01-03", "2100-12-27"] {
        let path = format!("/leagues/fall/schedule?week={week}");
        assert_eq!(anonymous_get(&app, &path).await.0, 200, "{path}");
    }
}

/// Sets match `id`'s stored time to `at` as an older release could have stored it.
async fn store_time(app: &TestApp, id: i64, at: &str) {
    let rows = spades_im::on_store!(app.db.read_latest().await.unwrap(), |c| sqlx::query(
        "UPDATE matches SET scheduled_at = $1 WHERE id = $2"
    )
    .bind(at)
    .bind(id)
    .execute(c)
    .await
    .map(|r| r.rows_affected()))
    .unwrap();
    assert_eq!(rows, 1);
}

#[actix_web::test]
async fn a_stored_time_at_the_edge_of_the_calendar_breaks_no_page() {
    let (app, admin, browser, teams, matches) = season().await;
    // Grace periods, so the console computes when each one ends.
    let r = admin
        .client
        .patch(format!("{}/api/v1/leagues/fall", admin.base))
        .bearer_auth(&admin.token)
        .json(&json!({"settings": {"forfeit": {"grace_minutes": 15}}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    app.user("sue", Role::Supervisor).await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "sue"}),
        )
        .await;
    assert_eq!(r.status(), 204);
    let sue = app.browser("sue").await;
    // chrono's first and last days (as it writes them), and years 0 and 9999.
    let edges = [
        "-262143-01-01T19:00",
        "+262142-12-31T23:59",
        "0000-01-01T00:00",
        "9999-12-31T23:59",
    ];
    let ids: Vec<i64> = matches.iter().map(|m| m["id"].as_i64().unwrap()).collect();
    for (id, at) in ids.iter().zip(edges) {
        store_time(&app, *id, at).await;
    }
    let mut paths = vec![
        "/leagues/fall".to_string(),
        "/leagues/fall/schedule".into(),
        "/leagues/fall/schedule?week=all".into(),
        "/leagues/fall/schedule?week=2026-11-24".into(),
        "/leagues/fall/standings".into(),
        "/leagues/fall/teams".into(),
        "/leagues/fall/calendar.ics".into(),
        "/scoreboard".into(),
        "/api/v1/leagues/fall/matches".into(),
        "/api/v1/scoreboard".into(),
        "/admin/leagues/fall".into(),
        "/admin/leagues/fall/schedule".into(),
        "/admin/leagues/fall/schedule?show=all".into(),
        "/supervise".into(),
    ];
    for team in &teams {
        paths.push(format!("/leagues/fall/teams/{team}"));
        paths.push(format!("/teams/{team}/calendar.ics"));
    }
    for id in &ids {
        paths.push(format!("/matches/{id}"));
        paths.push(format!("/api/v1/matches/{id}"));
        paths.push(format!("/supervise/matches/{id}"));
    }
    for path in &paths {
        let (status, _, body) = anonymous_get(&app, path).await;
        assert!(status < 500, "anonymous GET {path}: {status} {body:.300}");
        for (who, client) in [("admin", &browser), ("supervisor", &sue)] {
            let r = client.get(path).await;
            let status = r.status();
            assert!(
                status.is_success() || status.as_u16() == 403,
                "{who} GET {path}: {status}"
            );
        }
    }
    // Such a match gets a time in range again from the page.
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/matches/{}", ids[0]),
            &[
                ("expected_version", "1"),
                ("scheduled_at", "2026-12-01T19:00"),
            ],
        )
        .await;
    assert_eq!(r.status(), 303);
}
