//! The queue of a tournament night (docs/api.md §21.1): the room's tables, matches called to
//! free tables with the result that frees them, "no show?" after `call_minutes`, calls and
//! put-backs by hand; and a night of Swiss rounds played by concurrent supervisors, results
//! arriving in any order, in which no table ever holds two matches and no team is ever at two
//! tables (run on PostgreSQL too when `SPADES_TEST_DB` names one).

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{
    Api, TestApp, expect_error, hand_of, html_element, html_text, json_with_status, manual_clock,
    spawn_app, spawn_app_with_clock,
};

/// Two hands: team a reaches 100 and wins (the league plays to 100).
fn winning_hands() -> Vec<Value> {
    vec![
        hand_of([4, 3], [4, 4], [3, 3], [2, 3]),
        hand_of([4, 3], [4, 4], [3, 3], [2, 3]),
    ]
}

/// A league `slug` of `teams` teams playing to 100, with supervisor `sup`.
async fn night(app: &TestApp, admin: &Api, slug: &str, teams: usize) -> Vec<i64> {
    let ids = app
        .league(
            admin,
            slug,
            json!({"preset": "unc-im-300", "target": 100}),
            teams,
        )
        .await;
    let r = admin
        .post(
            &format!("/api/v1/leagues/{slug}/supervisors"),
            &json!({"username": "sup"}),
        )
        .await;
    assert!(r.status().is_success(), "supervisor: {}", r.status());
    ids
}

/// Pairs the next Swiss round of league `slug` without a time: the answer and its matches'
/// ids, the top pair first.
async fn swiss_round(admin: &Api, slug: &str) -> (Value, Vec<i64>) {
    let r = admin
        .post(
            &format!("/api/v1/leagues/{slug}/schedule"),
            &json!({"mode": "swiss_round"}),
        )
        .await;
    let round = json_with_status(r, 201, &format!("a Swiss round of {slug}")).await;
    let m = round["matches"]
        .as_array()
        .map(|all| all.iter().filter_map(|m| m["id"].as_i64()).collect())
        .unwrap_or_default();
    (round, m)
}

async fn queue(api: &Api, slug: &str) -> Value {
    let r = api.get(&format!("/api/v1/leagues/{slug}/queue")).await;
    json_with_status(r, 200, "the queue").await
}

async fn get_match(api: &Api, id: i64) -> Value {
    let r = api.get(&format!("/api/v1/matches/{id}")).await;
    json_with_status(r, 200, "a match").await
}

/// The match at table `i` of the queue and its status.
fn at(q: &Value, i: usize) -> (Option<i64>, String) {
    let t = &q["tables"][i];
    (
        t["match"].as_i64(),
        t["status"].as_str().unwrap_or("").to_string(),
    )
}

fn ids(v: &Value) -> Vec<i64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_i64).collect())
        .unwrap_or_default()
}

#[actix_web::test]
async fn matches_are_called_to_tables_as_results_free_them() {
    let (clock, time) = manual_clock("2026-11-30T18:00:00Z", chrono_tz::UTC);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    let sup = app.api_user("sup", Role::Supervisor).await;
    let other = app.api_user("other", Role::Supervisor).await;
    night(&app, &admin, "cup", 6).await;

    // The tables: checked as every door checks them.
    let r = admin
        .put(
            "/api/v1/leagues/cup/tables",
            &json!({"tables": ["1", "Table 1"]}),
        )
        .await;
    assert_eq!(
        expect_error(r, 422, "invalid_settings").await["field"],
        "tables[1]"
    );
    let many: Vec<String> = (1..=101).map(|i| i.to_string()).collect();
    let r = admin
        .put("/api/v1/leagues/cup/tables", &json!({ "tables": many }))
        .await;
    expect_error(r, 422, "invalid_settings").await;
    let r = sup
        .put("/api/v1/leagues/cup/tables", &json!({"tables": ["1"]}))
        .await;
    assert_eq!(r.status(), 403, "a supervisor does not set the tables");
    let r = admin
        .put(
            "/api/v1/leagues/cup/tables",
            &json!({"tables": [" 1 ", "2"]}),
        )
        .await;
    assert_eq!(
        json_with_status(r, 200, "tables").await,
        json!({"tables": ["1", "2"]})
    );
    let r = admin
        .patch(
            "/api/v1/leagues/cup",
            &json!({"settings": {"queue": {"auto": true, "call_minutes": 5}}}),
        )
        .await;
    let league = json_with_status(r, 200, "auto").await;
    assert_eq!(league["settings"]["tables"], json!(["1", "2"]));
    assert_eq!(league["settings"]["queue"]["auto"], true);

    // A Swiss round without a time: three matches, two tables. The pairing's own
    // transaction calls the first two.
    let (_, m) = swiss_round(&admin, "cup").await;
    let q = queue(&admin, "cup").await;
    assert_eq!(at(&q, 0), (Some(m[0]), "called".into()), "{q}");
    assert_eq!(at(&q, 1), (Some(m[1]), "called".into()), "{q}");
    assert_eq!(ids(&q["waiting"]), vec![m[2]], "{q}");
    assert_eq!(q["tables"][0]["no_show"], false);
    let first = get_match(&admin, m[0]).await;
    assert_eq!(first["table"], "1");
    assert!(first["called_at"].is_string(), "{first}");

    // Anyone may read it; five minutes on, a call not started is "no show?".
    let r = app.get("/api/v1/leagues/cup/queue").await;
    assert_eq!(
        json_with_status(r, 200, "anonymous").await["tables"],
        q["tables"]
    );
    time.advance(chrono::Duration::minutes(5));
    assert_eq!(queue(&admin, "cup").await["tables"][0]["no_show"], true);

    // Table 1 plays; its result calls the waiting match to it with the result.
    sup.play_hands(m[0], &winning_hands()).await;
    let q = queue(&admin, "cup").await;
    assert_eq!(at(&q, 0), (Some(m[2]), "called".into()), "{q}");
    assert_eq!(q["tables"][0]["no_show"], false, "a new call");
    assert!(ids(&q["waiting"]).is_empty());
    // A correction that would play match 0 again finds its table given away: refused.
    let done = get_match(&admin, m[0]).await;
    let losing = hand_of([4, 3], [2, 2], [3, 3], [4, 5]);
    let r = admin.correct_hand(&done, 2, &losing, "typo", false).await;
    expect_error(r, 409, "table_busy").await;
    sup.start_match(m[1]).await;
    assert_eq!(
        at(&queue(&admin, "cup").await, 1),
        (Some(m[1]), "playing".into())
    );

    // By hand: a busy table, a table the league does not have, another league's supervisor.
    let call = |id: i64| format!("/api/v1/matches/{id}/call");
    let r = sup.post(&call(m[2]), &json!({"table": "2"})).await;
    expect_error(r, 409, "table_busy").await;
    let r = sup.post(&call(m[2]), &json!({"table": "9"})).await;
    assert_eq!(
        expect_error(r, 422, "invalid_input").await["field"],
        "table"
    );
    let r = other.post(&call(m[2]), &json!({"table": "1"})).await;
    assert_eq!(r.status(), 404, "not their league");
    let r = sup.post(&call(m[1]), &json!({"table": null})).await;
    expect_error(r, 409, "match_started").await;

    // Put back: the match waits; the table it left does not take it again at once.
    let r = sup.post(&call(m[2]), &json!({"table": null})).await;
    let back = json_with_status(r, 200, "put back").await;
    assert!(back.get("called_at").is_none(), "{back}");
    let q = queue(&admin, "cup").await;
    assert_eq!(at(&q, 0), (None, "free".into()), "{q}");
    assert_eq!(ids(&q["waiting"]), vec![m[2]]);
    // ... and is called by hand ("Table 1" is table "1"), twice the same.
    for _ in 0..2 {
        let r = sup.post(&call(m[2]), &json!({"table": "Table 1"})).await;
        assert_eq!(json_with_status(r, 200, "a call").await["table"], "1");
    }
    assert_eq!(
        at(&queue(&admin, "cup").await, 0),
        (Some(m[2]), "called".into())
    );
    assert_eq!(app.audit_rows("call_match", &["action"]).await.len(), 1);
    assert_eq!(app.audit_rows("put_back", &["action"]).await.len(), 1);

    // A forfeit frees its table too; nothing waits, so it stays free.
    let r = sup
        .post(
            &format!("/api/v1/matches/{}/forfeit", m[1]),
            &json!({"team": "b"}),
        )
        .await;
    json_with_status(r, 200, "forfeit").await;
    assert_eq!(at(&queue(&admin, "cup").await, 1), (None, "free".into()));
}

#[actix_web::test]
async fn without_auto_nothing_is_called_but_by_hand() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.user("sup", Role::Supervisor).await;
    night(&app, &admin, "plain", 4).await;
    let r = admin
        .put(
            "/api/v1/leagues/plain/tables",
            &json!({"tables": ["A", "B"]}),
        )
        .await;
    json_with_status(r, 200, "tables").await;
    let (round, m) = swiss_round(&admin, "plain").await;
    let first = m[0];
    let q = json_with_status(
        admin.post("/api/v1/leagues/plain/queue", &json!({})).await,
        200,
        "fill",
    )
    .await;
    assert_eq!(at(&q, 0), (None, "free".into()), "{q}");
    assert_eq!(ids(&q["waiting"]).len(), 2);
    assert_eq!(q["auto"], false);
    let r = admin
        .post(
            &format!("/api/v1/matches/{first}/call"),
            &json!({"table": "b"}),
        )
        .await;
    json_with_status(r, 200, "by hand").await;
    let q = queue(&admin, "plain").await;
    assert_eq!(at(&q, 1), (Some(first), "called".into()), "{q}");
    // Its second match shares no team, but table B is taken.
    let second = m[1];
    let r = admin
        .post(
            &format!("/api/v1/matches/{second}/call"),
            &json!({"table": "B"}),
        )
        .await;
    expect_error(r, 409, "table_busy").await;

    // Started by hand without a call, a match keeps the same two rules: not at a table
    // another match holds, not with a team at another table.
    let m2 = json_with_status(
        admin.get(&format!("/api/v1/matches/{second}")).await,
        200,
        "m",
    )
    .await;
    let r = admin
        .patch(
            &format!("/api/v1/matches/{second}"),
            &json!({"table": "b", "expected_version": m2["version"]}),
        )
        .await;
    json_with_status(r, 200, "planned at table b").await;
    let r = admin
        .post(&format!("/api/v1/matches/{second}/start"), &json!({}))
        .await;
    expect_error(r, 409, "table_busy").await;
    let first_teams = &round["matches"][0];
    let r = admin
        .post(
            "/api/v1/leagues/plain/matches",
            &json!({"team_a": first_teams["team_a"]["id"], "team_b": first_teams["team_b"]["id"], "table": "A"}),
        )
        .await;
    let rematch = json_with_status(r, 201, "a second meeting").await["id"]
        .as_i64()
        .unwrap();
    let r = admin
        .post(&format!("/api/v1/matches/{rematch}/start"), &json!({}))
        .await;
    expect_error(r, 409, "team_busy").await;
    // The first match plays at its table; the second starts where it was planned once free.
    admin.start_match(first).await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{first}/forfeit"),
            &json!({"team": "a"}),
        )
        .await;
    json_with_status(r, 200, "forfeit").await;
    admin.start_match(second).await;
    assert_eq!(
        at(&queue(&admin, "plain").await, 1),
        (Some(second), "playing".into())
    );

    // The supervisor's console of a waiting match offers the free tables only.
    let r = admin
        .post(
            &format!("/api/v1/matches/{rematch}/call"),
            &json!({"table": "A"}),
        )
        .await;
    json_with_status(r, 200, "a call to A").await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{rematch}/call"),
            &json!({"table": null}),
        )
        .await;
    json_with_status(r, 200, "put back").await;
    let sup = app.browser("sup").await;
    let console = sup
        .get(&format!("/supervise/matches/{rematch}"))
        .await
        .text()
        .await
        .unwrap();
    let select = html_element(&console, "call-table", "</select>").expect("the tables");
    assert!(
        select.contains("<option value=\"A\">Table A</option>"),
        "{select}"
    );
    assert!(select.contains("disabled>Table B (in use)"), "{select}");

    // A table taken out of the room gives back the match called to it.
    let r = admin
        .post(
            &format!("/api/v1/matches/{rematch}/call"),
            &json!({"table": "A"}),
        )
        .await;
    json_with_status(r, 200, "a call to A").await;
    let r = admin
        .put("/api/v1/leagues/plain/tables", &json!({"tables": ["B"]}))
        .await;
    json_with_status(r, 200, "table A gone").await;
    let back = get_match(&admin, rematch).await;
    assert!(back.get("called_at").is_none(), "{back}");
    assert!(ids(&queue(&admin, "plain").await["waiting"]).contains(&rematch));

    // Only the day's matches are called: tomorrow's is refused.
    let t = &round["matches"][1];
    let r = admin
        .post(
            "/api/v1/leagues/plain/matches",
            &json!({"team_a": t["team_a"]["id"], "team_b": t["team_b"]["id"], "scheduled_at": "2099-01-01T19:00"}),
        )
        .await;
    let later = json_with_status(r, 201, "a later match").await["id"]
        .as_i64()
        .unwrap();
    let r = admin
        .post(
            &format!("/api/v1/matches/{later}/call"),
            &json!({"table": "B"}),
        )
        .await;
    expect_error(r, 409, "not_scheduled").await;
}

/// One night as the supervisors play it, on three tables: every called match started and
/// played (or forfeited) by its own task at once, the tasks finishing in a random order;
/// after each batch every match of the league is read, and no table holds two matches nor
/// any team two tables. `rounds` Swiss rounds, or (0) a whole round robin added at once
/// without times, where most matches share a team with another.
async fn a_night(app: &TestApp, admin: &Api, sup: &Api, slug: &str, teams: usize, rounds: i64) {
    let team_ids = night(app, admin, slug, teams).await;
    let r = admin
        .patch(
            &format!("/api/v1/leagues/{slug}"),
            &json!({"settings": {"tables": ["1", "2", "3"], "queue": {"auto": true}}}),
        )
        .await;
    json_with_status(r, 200, "tables and auto").await;
    let mut all: Vec<i64> = Vec::new();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    if rounds == 0 {
        for (i, a) in team_ids.iter().enumerate() {
            for b in &team_ids[i + 1..] {
                let r = admin
                    .post(
                        &format!("/api/v1/leagues/{slug}/matches"),
                        &json!({"team_a": a, "team_b": b}),
                    )
                    .await;
                all.push(
                    json_with_status(r, 201, "a match").await["id"]
                        .as_i64()
                        .unwrap(),
                );
            }
        }
        let r = sup
            .post(&format!("/api/v1/leagues/{slug}/queue"), &json!({}))
            .await;
        json_with_status(r, 200, "the first calls").await;
        play_until_done(admin, sup, slug, &all, &mut seed).await;
    }
    for _ in 1..=rounds {
        all.extend(swiss_round(admin, slug).await.1);
        play_until_done(admin, sup, slug, &all, &mut seed).await;
    }
    for id in &all {
        let m = get_match(admin, *id).await;
        assert!(
            m["status"] == "complete" || m["status"] == "forfeit",
            "every match was called and played: {m}"
        );
    }
}

/// Plays every called match at once until none is called; checks the tables after each
/// batch.
async fn play_until_done(admin: &Api, sup: &Api, slug: &str, all: &[i64], seed: &mut u64) {
    loop {
        let q = queue(admin, slug).await;
        let called: Vec<i64> = q["tables"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["status"] == "called")
            .filter_map(|t| t["match"].as_i64())
            .collect();
        if called.is_empty() {
            assert!(
                ids(&q["waiting"]).is_empty(),
                "tables free and a match waits: {q}"
            );
            return;
        }
        let plays = called.into_iter().map(|id| {
            *seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let pause = Duration::from_millis(*seed >> 58);
            let forfeit = (*seed >> 40).is_multiple_of(4);
            async move {
                tokio::time::sleep(pause).await;
                if forfeit {
                    let r = sup
                        .post(
                            &format!("/api/v1/matches/{id}/forfeit"),
                            &json!({"team": "a"}),
                        )
                        .await;
                    json_with_status(r, 200, "forfeit").await;
                } else {
                    sup.play_hands(id, &winning_hands()).await;
                }
            }
        });
        futures_util::future::join_all(plays).await;
        no_double_booking(admin, all).await;
    }
}

/// Every match of `all` read: no table holds two matches called or in play, no team is in
/// two of them.
async fn no_double_booking(admin: &Api, all: &[i64]) {
    // "1" and "Table 1" are one table.
    let mut tables: HashMap<String, i64> = HashMap::new();
    let mut teams: HashSet<i64> = HashSet::new();
    for id in all {
        let m = get_match(admin, *id).await;
        let held = m["status"] == "in_progress"
            || (m["status"] == "scheduled" && m["called_at"].is_string());
        if !held {
            continue;
        }
        let table =
            spades_im::domain::table_name::shown(m["table"].as_str().unwrap_or("")).to_lowercase();
        if let Some(before) = tables.insert(table.clone(), *id) {
            panic!("table {table} holds matches {before} and {id}");
        }
        for side in ["team_a", "team_b"] {
            let team = m[side]["id"].as_i64().unwrap();
            assert!(teams.insert(team), "team {team} is at two tables");
        }
    }
}

#[actix_web::test]
async fn a_night_of_concurrent_results_never_double_books() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let sup = app.api_user("sup", Role::Supervisor).await;
    a_night(&app, &admin, &sup, "swissnight", 10, 3).await;
    a_night(&app, &admin, &sup, "allplay", 6, 0).await;
}

#[actix_web::test]
async fn the_supervisor_sees_each_table_and_calls_from_the_console() {
    let (clock, time) = manual_clock("2026-11-30T18:00:00Z", chrono_tz::UTC);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.api_user("sup", Role::Supervisor).await;
    night(&app, &admin, "room", 6).await;
    let r = admin
        .patch(
            "/api/v1/leagues/room",
            &json!({"settings": {"tables": ["1", "2"], "queue": {"auto": true, "call_minutes": 3}}}),
        )
        .await;
    json_with_status(r, 200, "tables").await;
    let (_, m) = swiss_round(&admin, "room").await;
    let sup = app.browser("sup").await;
    let list = sup.get("/supervise").await.text().await.unwrap();
    let tables = html_element(&list, "tables-room", "</section>").expect("the tables");
    let first = html_text(html_element(tables, "table-room-1", "</li>").unwrap());
    assert!(first.starts_with("Table 1 called"), "{first}");
    assert!(!first.contains("no show?"), "{first}");
    assert!(html_text(tables).contains("Waiting (1)"), "{tables}");

    // Three minutes on: "no show?" on the list and the console; put back from the console.
    time.advance(chrono::Duration::minutes(3));
    let list = sup.get("/supervise").await.text().await.unwrap();
    let first = html_text(html_element(&list, "table-room-1", "</li>").unwrap());
    assert!(first.contains("no show?"), "{first}");
    let console = sup
        .get(&format!("/supervise/matches/{}", m[0]))
        .await
        .text()
        .await
        .unwrap();
    let called = html_text(html_element(&console, "called", "</p>").expect("the call"));
    assert!(
        called.starts_with("Called to Table 1") && called.contains("No show?"),
        "{called}"
    );
    // A call that names no table is refused, never taken for a put-back.
    let r = sup
        .post_form(
            &format!("/supervise/matches/{}/call", m[0]),
            &[("table", "")],
        )
        .await;
    assert_eq!(r.status(), 422, "no table named");
    assert_eq!(
        at(&queue(&admin, "room").await, 0),
        (Some(m[0]), "called".into())
    );
    let r = sup
        .post_form(
            &format!("/supervise/matches/{}/call", m[0]),
            &[("put_back", "1")],
        )
        .await;
    assert_eq!(r.status(), 303, "put back");
    // The table it left took the waiting match; it waits, at no table.
    let q = queue(&admin, "room").await;
    assert_eq!(at(&q, 0), (Some(m[2]), "called".into()), "{q}");
    assert_eq!(ids(&q["waiting"]), vec![m[0]]);

    // Both tables are in use: its console says so rather than offer a call; a call sent
    // anyway is refused as a conflict, with the match's console one tap away.
    let console = sup
        .get(&format!("/supervise/matches/{}", m[0]))
        .await
        .text()
        .await
        .unwrap();
    assert!(html_element(&console, "call-table", "</select>").is_none());
    let busy = html_text(html_element(&console, "no-free-table", "</p>").expect("in use"));
    assert!(busy.contains("the queue calls the match"), "{busy}");
    let r = sup
        .post_form(
            &format!("/supervise/matches/{}/call", m[0]),
            &[("table", "2")],
        )
        .await;
    assert_eq!(r.status(), 409);
    assert!(r.text().await.unwrap().contains("is at Table 2"));

    // The forfeit at table 2 frees it, and the match put back is called to it.
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/forfeit", m[1]),
            &json!({"team": "a"}),
        )
        .await;
    json_with_status(r, 200, "forfeit").await;
    assert_eq!(
        at(&queue(&admin, "room").await, 1),
        (Some(m[0]), "called".into())
    );
}

#[actix_web::test]
async fn a_league_night_starts_with_the_lists_button() {
    let (clock, time) = manual_clock("2026-11-30T12:00:00Z", chrono_tz::UTC);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.api_user("sup", Role::Supervisor).await;
    let t = night(&app, &admin, "tue", 4).await;
    let r = admin
        .patch(
            "/api/v1/leagues/tue",
            &json!({"settings": {"tables": ["1"], "queue": {"auto": true}}}),
        )
        .await;
    json_with_status(r, 200, "tables").await;
    // Tomorrow's matches wait for their day: not called today.
    for (a, b, at) in [(0, 1, "2026-12-01T19:00"), (2, 3, "2026-12-01T19:30")] {
        let r = admin
            .post(
                "/api/v1/leagues/tue/matches",
                &json!({"team_a": t[a], "team_b": t[b], "scheduled_at": at, "table": "1"}),
            )
            .await;
        json_with_status(r, 201, "a match").await;
    }
    let q = queue(&admin, "tue").await;
    assert_eq!(at(&q, 0), (None, "free".into()), "{q}");
    assert!(ids(&q["waiting"]).is_empty(), "{q}");
    let sup = app.browser("sup").await;
    let list = sup.get("/supervise").await.text().await.unwrap();
    assert!(
        html_element(&list, "fill-tue", "</button>").is_none(),
        "nothing to call"
    );

    // The day comes: both wait, the list offers the calls, one tap makes them.
    time.advance(chrono::Duration::hours(24));
    let sup = app.browser("sup").await;
    let list = sup.get("/supervise").await.text().await.unwrap();
    assert!(
        html_element(&list, "fill-tue", "</button>").is_some(),
        "{list}"
    );
    // Without the session's token the button is refused and nothing is called.
    let r = sup
        .post_form("/supervise/leagues/tue/queue", &[("csrf", "forged")])
        .await;
    assert_eq!(r.status(), 403);
    assert_eq!(queue(&admin, "tue").await["tables"][0]["status"], "free");
    let r = sup.post_form("/supervise/leagues/tue/queue", &[]).await;
    assert_eq!(r.status(), 303);
    let q = queue(&admin, "tue").await;
    assert_eq!(q["tables"][0]["status"], "called", "{q}");
    assert_eq!(ids(&q["waiting"]).len(), 1, "{q}");
}

#[actix_web::test]
async fn the_coordinator_sets_the_room_on_a_form() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.api_user("sup", Role::Supervisor).await;
    night(&app, &admin, "hall", 4).await;
    let coord = app.browser("coord").await;
    let league = coord.get("/admin/leagues/hall").await.text().await.unwrap();
    assert!(league.contains("href=\"/admin/leagues/hall/tables\""));

    // Two alike: refused by the field, everything typed kept, the summary first.
    let typed = "1\nLounge B\ntable 1";
    let r = coord
        .post_form(
            "/admin/leagues/hall/tables",
            &[("tables", typed), ("auto", "on"), ("call_minutes", "4")],
        )
        .await;
    assert_eq!(r.status(), 422);
    let page = r.text().await.unwrap();
    let summary = html_text(html_element(&page, "form-error", "</p>").expect("a summary"));
    assert!(
        summary.contains("table 1 is in the list twice"),
        "{summary}"
    );
    assert!(
        page.contains("Lounge B\ntable 1</textarea>"),
        "the typing is kept"
    );
    assert!(html_element(&page, "room-tables-error", "</p>").is_some());
    assert!(page.contains("id=\"room-auto\" name=\"auto\" checked"));
    let r = coord
        .post_form(
            "/admin/leagues/hall/tables",
            &[("tables", "1\n2"), ("call_minutes", "soon")],
        )
        .await;
    assert_eq!(r.status(), 422);
    let page = r.text().await.unwrap();
    assert!(
        html_element(&page, "room-call_minutes-error", "</p>").is_some(),
        "{page}"
    );
    assert!(page.contains("value=\"soon\""));
    let r = coord
        .post_form(
            "/admin/leagues/hall/tables",
            &[("tables", "1\n2"), ("call_minutes", "0")],
        )
        .await;
    assert_eq!(r.status(), 422);
    assert!(html_element(&r.text().await.unwrap(), "room-call_minutes-error", "</p>").is_some());
    let long = format!("1\n\n{}", "x".repeat(41));
    let r = coord
        .post_form(
            "/admin/leagues/hall/tables",
            &[("tables", &long), ("call_minutes", "5")],
        )
        .await;
    assert_eq!(r.status(), 422);
    let page = r.text().await.unwrap();
    let message = html_text(html_element(&page, "room-tables-error", "</p>").unwrap());
    assert!(
        message.contains("table 2 in the list is longer than 40"),
        "{message}"
    );
    let l = json_with_status(admin.get("/api/v1/leagues/hall").await, 200, "league").await;
    assert!(l["settings"].get("tables").is_none(), "nothing saved: {l}");

    // Saved: the settings say so, and the page lists the tables free.
    let r = coord
        .post_form(
            "/admin/leagues/hall/tables",
            &[
                ("tables", " 1 \n\n2\n"),
                ("auto", "on"),
                ("call_minutes", "4"),
            ],
        )
        .await;
    assert_eq!(r.status(), 303);
    let l = json_with_status(admin.get("/api/v1/leagues/hall").await, 200, "league").await;
    assert_eq!(l["settings"]["tables"], json!(["1", "2"]));
    assert_eq!(
        l["settings"]["queue"],
        json!({"auto": true, "call_minutes": 4})
    );
    let page = coord
        .get("/admin/leagues/hall/tables?saved=1")
        .await
        .text()
        .await
        .unwrap();
    let now = html_text(html_element(&page, "room-now", "</ul>").unwrap());
    assert_eq!(now, "Table 1 : free Table 2 : free");
}
