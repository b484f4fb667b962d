//! Schedule safeguards (docs/api.md §18.5): a change or an added match that clashes with
//! another (a table taken at that time, a team playing twice the same night, a pairing
//! scheduled twice) is saved all the same, and the answer warns of it: `warnings` in the
//! API, a warning notice naming the other match, with links, on the schedule page.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, html_element, json_with_status, spawn_app};

/// A 4-team round robin of "fall" from 24 November 2026 (weekly, 19:00): its matches.
async fn generated(admin: &Api) -> Vec<Value> {
    let r = admin
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin", "start_date": "2026-11-24"}),
        )
        .await;
    let v = json_with_status(r, 201, "generate").await;
    v["matches"].as_array().expect("matches").clone()
}

fn on(all: &[Value], at: &str) -> Vec<Value> {
    all.iter()
        .filter(|m| m["scheduled_at"] == at)
        .cloned()
        .collect()
}

fn codes(v: &Value) -> Vec<(String, i64)> {
    v["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .map(|w| {
            (
                w["code"].as_str().expect("code").to_string(),
                w["match"].as_i64().expect("match"),
            )
        })
        .collect()
}

#[actix_web::test]
async fn a_clashing_change_is_saved_with_warnings_in_the_api() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(&admin, "fall", json!("unc-im-300"), 4).await;
    let all = generated(&admin).await;
    let first = on(&all, "2026-11-24T19:00");
    let (a, b) = (&first[0], &first[1]);
    let (a_id, b_id) = (a["id"].as_i64().unwrap(), b["id"].as_i64().unwrap());
    let a_table = a["table"].as_str().expect("a table").to_string();
    assert_ne!(b["table"], a["table"]);

    // Onto the other match's table at the same time: saved, with one warning.
    let r = admin
        .patch(
            &format!("/api/v1/matches/{b_id}"),
            &json!({"table": a_table, "expected_version": 1}),
        )
        .await;
    let v = json_with_status(r, 200, "table clash").await;
    assert_eq!(v["table"], a_table, "saved all the same");
    assert_eq!(v["version"], 2);
    assert_eq!(codes(&v), vec![("table_taken".to_string(), a_id)]);
    let message = v["warnings"][0]["message"].as_str().unwrap();
    assert!(message.contains(&a_table), "{message}");
    assert!(message.contains(&format!("M{a_id} · ")), "{message}");
    assert!(message.contains("Tue 24 Nov 2026, 19:00"), "{message}");

    // Back to a free table: no warning.
    let r = admin
        .patch(
            &format!("/api/v1/matches/{b_id}"),
            &json!({"table": "Table 9", "expected_version": 2}),
        )
        .await;
    let v = json_with_status(r, 200, "no clash").await;
    assert_eq!(v["warnings"], json!([]));

    // A match of the next night moved onto the first, at another table: both its teams
    // already play that night.
    let later = &on(&all, "2026-12-01T19:00")[0];
    let later_id = later["id"].as_i64().unwrap();
    let r = admin
        .patch(
            &format!("/api/v1/matches/{later_id}"),
            &json!({"scheduled_at": "2026-11-24T20:30", "table": "Table 5", "expected_version": 1}),
        )
        .await;
    let v = json_with_status(r, 200, "team clash").await;
    assert_eq!(v["scheduled_at"], "2026-11-24T20:30");
    let found = codes(&v);
    assert_eq!(found.len(), 2, "{v}");
    assert!(found.iter().all(|(code, _)| code == "team_busy"), "{v}");
    let mut others: Vec<i64> = found.iter().map(|(_, m)| *m).collect();
    others.sort_unstable();
    let mut expected = vec![a_id, b_id];
    expected.sort_unstable();
    assert_eq!(others, expected);

    // Adding a pairing that already has a regular-season match.
    let r = admin
        .post(
            "/api/v1/leagues/fall/matches",
            &json!({
                "team_a": a["team_a"]["id"],
                "team_b": a["team_b"]["id"],
                "scheduled_at": "2027-01-12T19:00",
                "table": "Table 1",
            }),
        )
        .await;
    let v = json_with_status(r, 201, "pairing again").await;
    assert_eq!(codes(&v), vec![("pairing_scheduled".to_string(), a_id)]);
    // Added all the same.
    let r = admin.get(&format!("/api/v1/matches/{}", v["id"])).await;
    json_with_status(r, 200, "the added match").await;
}

#[actix_web::test]
async fn the_schedule_page_warns_of_a_clash_naming_the_other_match() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(&admin, "fall", json!("unc-im-300"), 4).await;
    let browser = app.browser("coord").await;
    let all = generated(&admin).await;
    let first = on(&all, "2026-11-24T19:00");
    let (a, b) = (&first[0], &first[1]);
    let a_id = a["id"].as_i64().unwrap();
    let b_id = b["id"].as_i64().unwrap();
    let a_table = a["table"].as_str().unwrap();
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/matches/{b_id}"),
            &[("expected_version", "1"), ("table", a_table)],
        )
        .await;
    assert_eq!(r.status(), 303);
    let to = r.headers()["location"].to_str().unwrap().to_string();
    let html = browser.get(&to).await.text().await.unwrap();
    assert!(html.contains("id=\"notice\""), "saved");
    let warning = html_element(&html, "clash-warnings", "</div>").expect("a warning notice");
    assert!(
        warning.contains(&format!("{a_table} is already taken")),
        "{warning}"
    );
    assert!(warning.contains("Tue 24 Nov 2026, 19:00"), "{warning}");
    assert!(
        warning.contains(&format!("href=\"/matches/{a_id}\"")),
        "{warning}"
    );
    assert!(
        warning.contains(&format!("#match-{a_id}\"")),
        "a link to it on the schedule: {warning}"
    );

    // A change that clashes with nothing has no warning.
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/matches/{b_id}"),
            &[("expected_version", "2"), ("table", "Table 9")],
        )
        .await;
    let to = r.headers()["location"].to_str().unwrap().to_string();
    let html = browser.get(&to).await.text().await.unwrap();
    assert!(html.contains("id=\"notice\""));
    assert!(!html.contains("clash-warnings"));
}

/// The league's warnings as the schedule stands, for the API and the top of the page.
async fn standing(api: &Api) -> Vec<(String, Vec<i64>)> {
    let r = api.get("/api/v1/leagues/fall/schedule/warnings").await;
    let v = json_with_status(r, 200, "warnings").await;
    v["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .map(|w| {
            let ids = w["matches"].as_array().unwrap();
            let ids = ids.iter().map(|i| i.as_i64().unwrap()).collect();
            (w["code"].as_str().unwrap().to_string(), ids)
        })
        .collect()
}

#[actix_web::test]
async fn a_warning_stays_listed_until_its_cause_is_gone() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(&admin, "fall", json!("unc-im-300"), 4).await;
    let browser = app.browser("coord").await;
    let all = generated(&admin).await;
    assert_eq!(standing(&admin).await, [], "a generated schedule is clean");
    let first = on(&all, "2026-11-24T19:00");
    let (a_id, b_id) = (
        first[0]["id"].as_i64().unwrap(),
        first[1]["id"].as_i64().unwrap(),
    );
    let a_table = first[0]["table"].as_str().unwrap().to_string();
    let r = admin
        .patch(
            &format!("/api/v1/matches/{b_id}"),
            &json!({"table": a_table, "expected_version": 1}),
        )
        .await;
    json_with_status(r, 200, "table clash").await;
    // Read again, as after a reload: still there, once, naming both matches.
    for _ in 0..2 {
        assert_eq!(
            standing(&admin).await,
            [("table_taken".to_string(), vec![a_id, b_id])]
        );
    }
    let html = browser
        .get("/admin/leagues/fall/schedule")
        .await
        .text()
        .await
        .unwrap();
    let listed = html_element(&html, "schedule-warnings", "</section>").expect("the list");
    assert!(listed.contains("1 schedule warning"), "{listed}");
    assert!(
        listed.contains(&format!("#match-{a_id}")) && listed.contains(&format!("#match-{b_id}"))
    );
    // A supervisor of the league reads them; one of another league does not; nor does anyone
    // signed out.
    app.user("sue", Role::Supervisor).await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "sue"}),
        )
        .await;
    assert!(r.status().is_success(), "{}", r.status());
    let sue = app.api(&app.token("sue").await);
    assert_eq!(standing(&sue).await.len(), 1);
    let tom = app.api_user("tom", Role::Supervisor).await;
    let r = tom.get("/api/v1/leagues/fall/schedule/warnings").await;
    assert_eq!(r.status(), 404);
    let r = app.get("/api/v1/leagues/fall/schedule/warnings").await;
    assert_eq!(r.status(), 401);

    // Resolved: the list is empty and the page says nothing.
    let r = admin
        .patch(
            &format!("/api/v1/matches/{b_id}"),
            &json!({"table": "Table 9", "expected_version": 2}),
        )
        .await;
    json_with_status(r, 200, "resolved").await;
    assert_eq!(standing(&admin).await, []);
    let html = browser
        .get("/admin/leagues/fall/schedule")
        .await
        .text()
        .await
        .unwrap();
    assert!(!html.contains("id=\"schedule-warnings\""));
}

/// The league's `settings.blackouts`, as its JSON gives them.
async fn kept_blackouts(api: &Api) -> Vec<String> {
    let r = api.get("/api/v1/leagues/fall").await;
    let league = json_with_status(r, 200, "league").await;
    league["settings"]["blackouts"]
        .as_array()
        .map(|a| a.iter().map(|d| d.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

#[actix_web::test]
async fn blackouts_are_kept_and_a_match_or_night_moved_onto_one_warns() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(&admin, "fall", json!("unc-im-300"), 5).await;
    // The schedule's blackout night is kept by the league, after one set beforehand.
    let r = admin
        .patch(
            "/api/v1/leagues/fall",
            &json!({"settings": {"blackouts": ["2026-12-29", "2026-12-29"]}}),
        )
        .await;
    json_with_status(r, 200, "a blackout set by hand").await;
    assert_eq!(kept_blackouts(&admin).await, ["2026-12-29"]);
    let r = admin
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin", "start_date": "2026-11-24",
                    "blackouts": ["2026-12-01"]}),
        )
        .await;
    let made = json_with_status(r, 201, "generate").await;
    let nights: std::collections::BTreeSet<String> = made["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["scheduled_at"].as_str().unwrap()[..10].to_string())
        .collect();
    assert!(!nights.contains("2026-12-01"), "{nights:?}");
    assert!(
        !nights.contains("2026-12-29"),
        "the league's own blackout: {nights:?}"
    );
    assert_eq!(kept_blackouts(&admin).await, ["2026-12-01", "2026-12-29"]);
    assert_eq!(standing(&admin).await, [], "a generated schedule is clean");

    // A match moved onto a blackout night: saved, with the warning, which stays listed.
    let first = made["matches"][0]["id"].as_i64().unwrap();
    let r = admin
        .patch(
            &format!("/api/v1/matches/{first}"),
            &json!({"scheduled_at": "2026-12-01T19:00", "expected_version": 1}),
        )
        .await;
    let saved = json_with_status(r, 200, "moved onto a blackout").await;
    assert!(
        codes(&saved).contains(&("blackout".into(), first)),
        "{saved}"
    );
    let message = saved["warnings"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("Tue 1 Dec 2026, a blackout night"),
        "{message}"
    );
    assert_eq!(
        standing(&admin).await,
        [("blackout".to_string(), vec![first])]
    );

    // A night moved onto one: every match of it warns.
    let r = admin
        .post(
            "/api/v1/leagues/fall/nights/move",
            &json!({"from": "2026-11-24", "to": "2026-12-29"}),
        )
        .await;
    let moved = json_with_status(r, 200, "night moved").await;
    let n = moved["moved"].as_u64().unwrap() as usize;
    assert!(n >= 1, "{moved}");
    let blackout_warnings = codes(&moved)
        .iter()
        .filter(|(c, _)| c == "blackout")
        .count();
    assert_eq!(blackout_warnings, n, "{moved}");

    // Clearing the blackouts clears the warnings.
    let r = admin
        .patch(
            "/api/v1/leagues/fall",
            &json!({"settings": {"blackouts": null}}),
        )
        .await;
    json_with_status(r, 200, "blackouts cleared").await;
    assert!(kept_blackouts(&admin).await.is_empty());
    assert!(
        standing(&admin).await.iter().all(|(c, _)| c != "blackout"),
        "no blackout left"
    );
}

#[actix_web::test]
async fn the_schedule_page_shows_the_blackout_nights_and_the_byes() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(&admin, "fall", json!("unc-im-300"), 5).await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin", "start_date": "2026-11-24",
                    "blackouts": ["2026-12-01"]}),
        )
        .await;
    json_with_status(r, 201, "generate").await;
    let browser = app.browser("coord").await;
    let page = browser.get("/admin/leagues/fall/schedule?show=all").await;
    let html = page.text().await.unwrap();
    assert!(
        html.contains("href=\"/leagues/fall/schedule.csv\" download id=\"schedule-csv\""),
        "the schedule's CSV linked"
    );
    let skipped = html_element(&html, "blackout-nights", "</p>").expect("the blackout nights");
    assert!(skipped.contains("Tue 1 Dec 2026"), "{skipped}");
    // Five teams: each night one of them has a bye, each team once over the five rounds.
    let mut byes = Vec::new();
    for night in [
        "2026-11-24",
        "2026-12-08",
        "2026-12-15",
        "2026-12-22",
        "2026-12-29",
    ] {
        let id = format!("night-{night}-byes");
        let line = html_element(&html, &id, "</p>").unwrap_or_else(|| panic!("{id}"));
        let team = crate::helpers::html_text(line);
        byes.push(team.rsplit(": ").next().unwrap().trim().to_string());
    }
    byes.sort();
    assert_eq!(byes, ["Team 1", "Team 2", "Team 3", "Team 4", "Team 5"]);
}

#[actix_web::test]
async fn a_blackout_that_does_not_read_is_refused_in_words() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(&admin, "fall", json!("unc-im-300"), 2).await;
    let before = app.tables().await;
    for (blackouts, field) in [
        (
            json!(["2026-12-01", "next tuesday"]),
            "settings.blackouts[1]",
        ),
        (json!("2026-12-01"), "settings.blackouts"),
        (json!(vec!["2026-12-01"; 367]), "settings.blackouts"),
        // A date a person never means: the same range as every other date (2000–2100).
        (json!(["1900-01-02"]), "settings.blackouts[0]"),
    ] {
        let r = admin
            .patch(
                "/api/v1/leagues/fall",
                &json!({"settings": {"blackouts": blackouts}}),
            )
            .await;
        let v = json_with_status(r, 422, "a bad blackout").await;
        assert_eq!(v["error"]["code"], "invalid_settings", "{v}");
        assert_eq!(v["error"]["field"], field, "{v}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(!message.contains("invalid type"), "{message}");
    }
    app.assert_nothing_written(&before, "bad blackouts").await;
}
