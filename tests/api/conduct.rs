//! Conduct at the table in the JSON API (docs/api.md §6.9): check-in before the start,
//! sportsmanship ratings after the match (a forfeiting team rated automatically), the
//! standings' average, eligibility from the ratings, and an admin's override. Every refusal
//! writes nothing.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, TestApp, hand_of, json_with_status, manual_clock, spawn_app_with_clock};

const SETTINGS: &str = r#"{"forfeit": {"grace_minutes": 10},
    "sportsmanship": {"min": 1, "max": 5, "forfeit_rating": 1, "required": true},
    "eligibility": {"min_sportsmanship": 3.0}}"#;

/// An app on a clock at 18:00 UTC, an admin, a supervisor of league `fall` (4 teams, games
/// to 100, the settings above) and the team ids.
async fn season() -> (TestApp, Api, Api, Vec<i64>) {
    let (clock, _) = manual_clock("2026-11-23T18:00:00Z", chrono_tz::UTC);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    let sup = app.api_user("sup", Role::Supervisor).await;
    let t = app
        .league(
            &admin,
            "fall",
            json!({"preset": "unc-im-300", "target": 100}),
            4,
        )
        .await;
    let settings: Value = serde_json::from_str(SETTINGS).unwrap();
    let r = admin
        .client
        .patch(app.url("/api/v1/leagues/fall"))
        .bearer_auth(&admin.token)
        .json(&json!({ "settings": settings }))
        .send()
        .await
        .unwrap();
    json_with_status(r, 200, "settings").await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "sup"}),
        )
        .await;
    assert!(r.status().is_success(), "supervisor: {}", r.status());
    (app, admin, sup, t)
}

/// Two hands: team a reaches 100 and wins.
fn winning_hands() -> Vec<Value> {
    vec![
        hand_of([4, 3], [4, 4], [3, 3], [2, 3]),
        hand_of([4, 3], [4, 4], [3, 3], [2, 3]),
    ]
}

async fn refused(response: reqwest::Response, status: u16, code: &str, what: &str) -> Value {
    let body = json_with_status(response, status, what).await;
    assert_eq!(body["error"]["code"], code, "{what}: {body}");
    body
}

#[actix_web::test]
async fn a_team_checks_in_once_and_only_before_the_start() {
    let (app, admin, sup, t) = season().await;
    let m = admin.add_match("fall", t[0], t[1], "T1").await;
    let id = m["id"].as_i64().unwrap();
    assert_eq!(m["checked_in"], json!({"a": null, "b": null}));
    let path = format!("/api/v1/matches/{id}/check-in");

    let r = sup.post(&path, &json!({"team": "a"})).await;
    let after = json_with_status(r, 200, "check in a").await;
    assert_eq!(after["checked_in"]["a"], "2026-11-23T18:00:00Z");
    assert_eq!(after["checked_in"]["b"], Value::Null);
    // Again: the first time is kept, nothing written.
    let before = app.tables().await;
    let r = sup.post(&path, &json!({"team": "a"})).await;
    let again = json_with_status(r, 200, "check in a again").await;
    assert_eq!(again["checked_in"]["a"], "2026-11-23T18:00:00Z");
    app.assert_nothing_written(&before, "a second check-in")
        .await;
    // A wrong tap is taken back.
    let r = sup
        .post(&path, &json!({"team": "a", "present": false}))
        .await;
    let undone = json_with_status(r, 200, "undo").await;
    assert_eq!(undone["checked_in"]["a"], Value::Null);
    // `null` is the default: present.
    let r = sup
        .post(&path, &json!({"team": "a", "present": null}))
        .await;
    let back = json_with_status(r, 200, "present: null").await;
    assert_eq!(back["checked_in"]["a"], "2026-11-23T18:00:00Z");
    let r = sup
        .post(&path, &json!({"team": "a", "present": false}))
        .await;
    json_with_status(r, 200, "undo again").await;

    // Refusals, each writing nothing.
    let outsider = app.api_user("other", Role::Supervisor).await;
    let before = app.tables().await;
    refused(
        sup.post(&path, &json!({"team": "c"})).await,
        422,
        "invalid_input",
        "team c",
    )
    .await;
    refused(
        sup.post(&path, &json!({"team": "a", "late": true})).await,
        422,
        "invalid_request",
        "unknown field",
    )
    .await;
    refused(
        outsider.post(&path, &json!({"team": "a"})).await,
        404,
        "not_found",
        "a supervisor of another league",
    )
    .await;
    let anonymous = reqwest::Client::new()
        .post(app.url(&path))
        .json(&json!({"team": "a"}))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);
    refused(
        sup.post("/api/v1/matches/9999/check-in", &json!({"team": "a"}))
            .await,
        404,
        "not_found",
        "no such match",
    )
    .await;
    app.assert_nothing_written(&before, "refused check-ins")
        .await;

    // Once started: 409.
    admin.start_match(id).await;
    let before = app.tables().await;
    let body = refused(
        sup.post(&path, &json!({"team": "b"})).await,
        409,
        "not_scheduled",
        "after the start",
    )
    .await;
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("in progress"),
        "{body}"
    );
    app.assert_nothing_written(&before, "a check-in after the start")
        .await;
}

#[actix_web::test]
async fn ratings_go_on_the_league_scale_after_the_match_and_make_the_average() {
    let (app, admin, sup, t) = season().await;
    let m = admin.add_match("fall", t[0], t[1], "T1").await;
    let id = m["id"].as_i64().unwrap();
    let path = format!("/api/v1/matches/{id}/sportsmanship");
    assert_eq!(
        m["sportsmanship"],
        json!({"a": null, "b": null, "note": null, "missing": false})
    );
    // Not before the end.
    let before = app.tables().await;
    refused(
        sup.post(&path, &json!({"a": 4, "b": 5})).await,
        409,
        "match_not_over",
        "a scheduled match",
    )
    .await;
    app.assert_nothing_written(&before, "rating a scheduled match")
        .await;

    let done = admin.play_hands(id, &winning_hands()).await;
    assert_eq!(done["status"], "complete");
    assert_eq!(done["sportsmanship"]["missing"], true, "{done}");

    // Off the scale, a bad note, a wrong type: 422, nothing written.
    let before = app.tables().await;
    for (body, field) in [
        (json!({"a": 6, "b": 4}), "a"),
        (json!({"a": 4, "b": 0}), "b"),
        (json!({"a": 4, "b": 4, "note": "bad\u{7}bell"}), "note"),
    ] {
        let e = refused(
            sup.post(&path, &body).await,
            422,
            "invalid_rating",
            "off scale",
        )
        .await;
        assert_eq!(e["error"]["field"], field, "{body}: {e}");
    }
    let e = refused(
        sup.post(&path, &json!({"a": 4})).await,
        422,
        "invalid_request",
        "no b",
    )
    .await;
    assert!(e["error"]["message"].as_str().unwrap().contains('b'), "{e}");
    app.assert_nothing_written(&before, "refused ratings").await;

    let r = sup
        .post(
            &path,
            &json!({"a": 4, "b": 2, "note": "  b argued every call \n  "}),
        )
        .await;
    let rated = json_with_status(r, 200, "rate").await;
    assert_eq!(
        rated["sportsmanship"],
        json!({"a": 4, "b": 2, "note": "b argued every call", "missing": false})
    );
    // The note is for the coordinator: the public reads leave it out.
    let public =
        json_with_status(app.get(&format!("/api/v1/matches/{id}")).await, 200, "read").await;
    assert_eq!(
        public["sportsmanship"],
        json!({"a": 4, "b": 2, "note": null, "missing": false})
    );
    let listed = json_with_status(app.get("/api/v1/leagues/fall/matches").await, 200, "list").await;
    assert!(
        !listed.to_string().contains("argued"),
        "the league's matches leave the note out"
    );
    // A second rating replaces the first, and is audited with both.
    let r = sup.post(&path, &json!({"a": 5, "b": 2})).await;
    let rerated = json_with_status(r, 200, "re-rate").await;
    assert_eq!(rerated["sportsmanship"]["a"], 5);
    assert_eq!(rerated["sportsmanship"]["note"], Value::Null);
    let mut conn = app.db.read().await.unwrap();
    let audit: Vec<(String, String)> = spades_im::on_store!(conn, |c| sqlx::query_as(
        "SELECT before, after FROM audit_log WHERE action = 'rate_sportsmanship' ORDER BY id",
    )
    .fetch_all(c)
    .await)
    .unwrap();
    assert_eq!(
        audit,
        [
            ("a unrated, b unrated".to_string(), "a 4, b 2".to_string()),
            ("a 4, b 2".to_string(), "a 5, b 2".to_string()),
        ]
    );
    drop(conn);

    // The standings show each team's average, the eligibility judges it.
    let standings = json_with_status(
        app.get("/api/v1/leagues/fall/standings").await,
        200,
        "standings",
    )
    .await;
    let average = |team: i64| {
        standings["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["team_id"] == team)
            .unwrap()["sportsmanship"]
            .clone()
    };
    assert_eq!(average(t[0]), json!(5.0));
    assert_eq!(average(t[1]), json!(2.0));
    assert_eq!(average(t[2]), Value::Null, "not rated yet");
    let table = json_with_status(
        app.get("/api/v1/leagues/fall/eligibility").await,
        200,
        "eligibility",
    )
    .await;
    let row = |team: i64| {
        table["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["team_id"] == team)
            .unwrap()
            .clone()
    };
    assert_eq!(row(t[1])["eligible"], false);
    assert_eq!(
        row(t[1])["reasons"],
        json!(["sportsmanship average 2.0 is below 3.0"])
    );
    assert_eq!(row(t[2])["eligible"], true, "not rated: not held back");
    assert_eq!(row(t[0])["override"], Value::Null);
}

#[actix_web::test]
async fn a_forfeiting_team_gets_the_forfeit_rating_in_the_forfeits_transaction() {
    let (app, admin, sup, t) = season().await;
    let m = admin.add_match("fall", t[0], t[1], "T1").await;
    let id = m["id"].as_i64().unwrap();
    let r = sup
        .post(
            &format!("/api/v1/matches/{id}/forfeit"),
            &json!({"team": "b"}),
        )
        .await;
    let forfeited = json_with_status(r, 200, "forfeit").await;
    assert_eq!(
        forfeited["sportsmanship"],
        json!({"a": null, "b": 1, "note": null, "missing": true})
    );
    let path = format!("/api/v1/matches/{id}/sportsmanship");
    // The forfeiting team's rating is not the supervisor's to change.
    let before = app.tables().await;
    let e = refused(
        sup.post(&path, &json!({"a": 5, "b": 3})).await,
        422,
        "invalid_rating",
        "a forfeiting team rated 3",
    )
    .await;
    assert_eq!(e["error"]["field"], "b");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("forfeit rating, 1"),
        "{e}"
    );
    app.assert_nothing_written(&before, "a forfeiting team re-rated")
        .await;
    let r = sup.post(&path, &json!({"a": 5, "b": 1})).await;
    let rated = json_with_status(r, 200, "rate the team that came").await;
    assert_eq!(rated["sportsmanship"]["missing"], false);

    // A double forfeit rates both.
    let m = admin.add_match("fall", t[2], t[3], "T2").await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/forfeit", m["id"]),
            &json!({"team": "both"}),
        )
        .await;
    let both = json_with_status(r, 200, "double forfeit").await;
    assert_eq!(both["sportsmanship"]["a"], 1);
    assert_eq!(both["sportsmanship"]["b"], 1);
    assert_eq!(both["sportsmanship"]["missing"], false);
}

#[actix_web::test]
async fn a_league_without_a_scale_does_not_rate() {
    let (clock, _) = manual_clock("2026-11-23T18:00:00Z", chrono_tz::UTC);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    let t = app
        .league(
            &admin,
            "plain",
            json!({"preset": "unc-im-300", "target": 100}),
            2,
        )
        .await;
    let m = admin.add_match("plain", t[0], t[1], "T1").await;
    assert!(m.get("sportsmanship").is_none(), "{m}");
    let id = m["id"].as_i64().unwrap();
    admin.play_hands(id, &winning_hands()).await;
    let before = app.tables().await;
    refused(
        admin
            .post(
                &format!("/api/v1/matches/{id}/sportsmanship"),
                &json!({"a": 4, "b": 4}),
            )
            .await,
        409,
        "no_sportsmanship",
        "no scale",
    )
    .await;
    app.assert_nothing_written(&before, "rating without a scale")
        .await;
    let standings = json_with_status(
        app.get("/api/v1/leagues/plain/standings").await,
        200,
        "standings",
    )
    .await;
    assert!(
        standings["rows"][0].get("sportsmanship").is_none(),
        "{standings}"
    );
}

#[actix_web::test]
async fn an_admin_overrides_eligibility_with_a_reason_and_it_is_audited() {
    let (app, admin, sup, t) = season().await;
    // Team 2 rated 2: below the 3.0 minimum.
    let m = admin.add_match("fall", t[0], t[1], "T1").await;
    let id = m["id"].as_i64().unwrap();
    admin.play_hands(id, &winning_hands()).await;
    let r = sup
        .post(
            &format!("/api/v1/matches/{id}/sportsmanship"),
            &json!({"a": 5, "b": 2}),
        )
        .await;
    json_with_status(r, 200, "rate").await;
    let path = format!("/api/v1/leagues/fall/eligibility/{}", t[1]);

    // Refusals: no reason, a supervisor, a team of another league, a withdrawn team made
    // eligible — nothing written.
    app.league(&admin, "spring", json!("classic"), 2).await;
    let spring: Value = admin
        .get("/api/v1/leagues/spring/teams")
        .await
        .json()
        .await
        .unwrap();
    let spring_team = spring["teams"][0]["id"].as_i64().unwrap();
    let before = app.tables().await;
    let e = refused(
        admin.post(&path, &json!({"eligible": true})).await,
        422,
        "invalid_input",
        "no reason",
    )
    .await;
    assert_eq!(e["error"]["field"], "reason");
    refused(
        admin
            .post(&path, &json!({"eligible": true, "reason": "   "}))
            .await,
        422,
        "invalid_input",
        "a blank reason",
    )
    .await;
    refused(
        sup.post(&path, &json!({"eligible": true, "reason": "x"}))
            .await,
        403,
        "forbidden",
        "a supervisor",
    )
    .await;
    refused(
        admin
            .post(
                &format!("/api/v1/leagues/fall/eligibility/{spring_team}"),
                &json!({"eligible": true, "reason": "x"}),
            )
            .await,
        404,
        "not_found",
        "a team of another league",
    )
    .await;
    // Taking a decision back needs no reason, but one that is given is checked all the same
    // (it goes to the audit log).
    for (reason, says) in [
        (
            "appeal\u{0}withdrawn".to_string(),
            "control character (U+0000)",
        ),
        (
            "\u{202E}nwardhtiw".to_string(),
            "direction control (U+202E)",
        ),
        ("x".repeat(501), "1 to 500 characters"),
    ] {
        let e = refused(
            admin
                .post(&path, &json!({"eligible": null, "reason": reason}))
                .await,
            422,
            "invalid_input",
            &format!("a removal with the reason {reason:?}"),
        )
        .await;
        assert_eq!(e["error"]["field"], "reason", "{e}");
        assert!(
            e["error"]["message"].as_str().unwrap().contains(says),
            "{e}"
        );
    }
    app.assert_nothing_written(&before, "refused overrides")
        .await;

    let r = admin
        .post(
            &path,
            &json!({"eligible": true, "reason": "the rating was a misunderstanding; see the appeal"}),
        )
        .await;
    let row = json_with_status(r, 200, "override").await;
    assert_eq!(row["eligible"], true);
    assert_eq!(
        row["reasons"],
        json!(["sportsmanship average 2.0 is below 3.0"]),
        "the rules' verdict stays visible"
    );
    assert_eq!(row["override"]["eligible"], true);
    assert_eq!(row["override"]["by"], "coord");
    assert_eq!(row["override"]["at"], "2026-11-23T18:00:00Z");
    let table: Value = app
        .get("/api/v1/leagues/fall/eligibility")
        .await
        .json()
        .await
        .unwrap();
    let listed = table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["team_id"] == t[1])
        .unwrap();
    assert_eq!(listed["override"], row["override"]);

    // The playoffs seed the overridden team (forced: matches remain unplayed elsewhere).
    let r = admin
        .post(
            "/api/v1/leagues/fall/playoffs",
            &json!({"format": "single_elimination", "teams": 4, "force": true}),
        )
        .await;
    let bracket = json_with_status(r, 201, "playoffs").await;
    let seeded: Vec<i64> = bracket["matches"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| [m["team_a"]["id"].as_i64(), m["team_b"]["id"].as_i64()])
        .flatten()
        .collect();
    assert!(seeded.contains(&t[1]), "overridden in: {seeded:?}");

    // Removing the override gives the verdict back to the rules; both are audited.
    let r = admin.post(&path, &json!({"eligible": null})).await;
    let back = json_with_status(r, 200, "remove the override").await;
    assert_eq!(back["eligible"], false);
    assert_eq!(back["override"], Value::Null);
    let mut conn = app.db.read().await.unwrap();
    let audit: Vec<(Option<String>, String, Option<String>)> =
        spades_im::on_store!(conn, |c| sqlx::query_as(
            "SELECT before, after, reason FROM audit_log WHERE action = 'override_eligibility'
         ORDER BY id",
        )
        .fetch_all(c)
        .await)
        .unwrap();
    assert_eq!(
        audit,
        [
            (
                None,
                "eligible (admin's decision)".to_string(),
                Some("the rating was a misunderstanding; see the appeal".to_string())
            ),
            (
                Some("eligible (admin's decision)".to_string()),
                "as the rules say".to_string(),
                None
            ),
        ]
    );
}

#[actix_web::test]
async fn a_withdrawn_team_cannot_be_made_eligible() {
    let (app, admin, _sup, t) = season().await;
    let r = admin
        .client
        .patch(app.url("/api/v1/leagues/fall"))
        .bearer_auth(&admin.token)
        .json(&json!({"settings": {"forfeit": {"drop_after": 1}}}))
        .send()
        .await
        .unwrap();
    json_with_status(r, 200, "drop after 1").await;
    // An admin lets team 1 in before its forfeit; the drop still takes it out.
    let r = admin
        .post(
            &format!("/api/v1/leagues/fall/eligibility/{}", t[0]),
            &json!({"eligible": true, "reason": "appeal won"}),
        )
        .await;
    assert_eq!(json_with_status(r, 200, "let in").await["eligible"], true);
    let m = admin.add_match("fall", t[0], t[1], "T1").await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/forfeit", m["id"]),
            &json!({"team": "a"}),
        )
        .await;
    json_with_status(r, 200, "forfeit: team 1 dropped").await;
    let table = json_with_status(
        app.get("/api/v1/leagues/fall/eligibility").await,
        200,
        "eligibility",
    )
    .await;
    let one = table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["team_id"] == t[0])
        .unwrap();
    assert_eq!(
        one["eligible"], false,
        "dropped, whatever the decision: {one}"
    );
    assert_eq!(one["override"]["eligible"], true);
    let path = format!("/api/v1/leagues/fall/eligibility/{}", t[0]);
    let before = app.tables().await;
    let e = refused(
        admin
            .post(&path, &json!({"eligible": true, "reason": "appeal won"}))
            .await,
        422,
        "invalid_input",
        "a dropped team made eligible",
    )
    .await;
    assert_eq!(e["error"]["field"], "eligible");
    app.assert_nothing_written(&before, "a dropped team made eligible")
        .await;
    // Keeping it out is allowed (and says so).
    let r = admin
        .post(&path, &json!({"eligible": false, "reason": "conduct"}))
        .await;
    let row = json_with_status(r, 200, "keep out").await;
    assert_eq!(row["eligible"], false);
    assert_eq!(
        row["reasons"],
        json!([
            "the team was dropped after 1 forfeit",
            "sportsmanship average 1.0 is below 3.0"
        ]),
        "its forfeit rating counts too"
    );
}

#[actix_web::test]
async fn a_check_in_is_for_one_time_and_place_and_makes_an_older_page_stale() {
    let (app, admin, sup, t) = season().await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/matches",
            &json!({"team_a": t[0], "team_b": t[1], "scheduled_at": "2026-11-23T19:00"}),
        )
        .await;
    let m = json_with_status(r, 201, "match").await;
    let id = m["id"].as_i64().unwrap();
    let check_in = |team: &'static str| {
        let sup = &sup;
        async move {
            let r = sup
                .post(
                    &format!("/api/v1/matches/{id}/check-in"),
                    &json!({ "team": team }),
                )
                .await;
            json_with_status(r, 200, "check in").await
        }
    };
    let checked = check_in("b").await;
    // The check-in moves the version on: a forfeit confirmed on a page from before it (the
    // grace offer against b) is refused.
    assert_eq!(checked["version"], m["version"].as_i64().unwrap() + 1);
    let before = app.tables().await;
    let r = sup
        .post(
            &format!("/api/v1/matches/{id}/forfeit"),
            &json!({"team": "b", "expected_version": m["version"]}),
        )
        .await;
    refused(
        r,
        409,
        "version_conflict",
        "a forfeit from before the check-in",
    )
    .await;
    app.assert_nothing_written(&before, "a stale forfeit").await;

    // Only the table changes: the check-in stays.
    let r = admin
        .client
        .patch(app.url(&format!("/api/v1/matches/{id}")))
        .bearer_auth(&admin.token)
        .json(&json!({"table": "T9", "expected_version": checked["version"]}))
        .send()
        .await
        .unwrap();
    let moved = json_with_status(r, 200, "new table").await;
    assert_eq!(moved["checked_in"]["b"], checked["checked_in"]["b"]);
    // Postponed and given a new date: checked in again that night.
    let r = admin
        .post(
            &format!("/api/v1/matches/{id}/postpone"),
            &json!({"reason": "gym closed"}),
        )
        .await;
    let postponed = json_with_status(r, 200, "postpone").await;
    assert_eq!(postponed["checked_in"], json!({"a": null, "b": null}));
    check_in_refused(&sup, id).await;
    let r = admin
        .client
        .patch(app.url(&format!("/api/v1/matches/{id}")))
        .bearer_auth(&admin.token)
        .json(
            &json!({"scheduled_at": "2026-12-14T19:00", "expected_version": postponed["version"]}),
        )
        .send()
        .await
        .unwrap();
    let again = json_with_status(r, 200, "new date").await;
    assert_eq!(again["status"], "scheduled");
    assert_eq!(again["checked_in"], json!({"a": null, "b": null}));
    // A new team a does not inherit the old one's check-in; b keeps its own.
    check_in("a").await;
    let b_at = check_in("b").await["checked_in"]["b"].clone();
    let now = json_with_status(app.get(&format!("/api/v1/matches/{id}")).await, 200, "read").await;
    let r = admin
        .client
        .patch(app.url(&format!("/api/v1/matches/{id}")))
        .bearer_auth(&admin.token)
        .json(&json!({"team_a": t[2], "expected_version": now["version"]}))
        .send()
        .await
        .unwrap();
    let swapped = json_with_status(r, 200, "new team a").await;
    assert_eq!(swapped["checked_in"]["a"], Value::Null);
    assert_eq!(swapped["checked_in"]["b"], b_at);
}

/// A postponed match takes no check-in.
async fn check_in_refused(sup: &Api, id: i64) {
    let r = sup
        .post(
            &format!("/api/v1/matches/{id}/check-in"),
            &json!({"team": "a"}),
        )
        .await;
    refused(r, 409, "not_scheduled", "a postponed match").await;
}

/// The grace clock reads the match time in the league's zone: in New York a 19:00 match with
/// 10 minutes' grace is offered for forfeit from 19:10 EST (00:10 UTC the next day), not at
/// 19:10 UTC (14:10 in New York).
/// Planted bug that fails it: comparing the local match time with the UTC clock.
#[actix_web::test]
async fn the_grace_period_runs_on_the_leagues_clock() {
    let (clock, time) = manual_clock("2026-11-23T19:30:00Z", chrono_tz::America::New_York);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    let t = app.league(&admin, "fall", json!("classic"), 2).await;
    let r = admin
        .client
        .patch(app.url("/api/v1/leagues/fall"))
        .bearer_auth(&admin.token)
        .json(&json!({"settings": {"forfeit": {"grace_minutes": 10}}}))
        .send()
        .await
        .unwrap();
    json_with_status(r, 200, "grace").await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/matches",
            &json!({"team_a": t[0], "team_b": t[1], "scheduled_at": "2026-11-23T19:00"}),
        )
        .await;
    let id = json_with_status(r, 201, "match").await["id"]
        .as_i64()
        .unwrap();
    app.user("boss", Role::Admin).await;
    let boss = app.browser("boss").await;
    let console = format!("/supervise/matches/{id}");
    let offered = |page: &str| page.contains("id=\"absent-both\"");
    // 14:30 in New York: nothing to offer.
    let page = boss.get(&console).await.text().await.unwrap();
    assert!(!offered(&page), "14:30 EST");
    // 19:09 EST: still within the grace.
    time.set(
        chrono::DateTime::parse_from_rfc3339("2026-11-24T00:09:00Z")
            .unwrap()
            .to_utc(),
    );
    let page = boss.get(&console).await.text().await.unwrap();
    assert!(!offered(&page), "19:09 EST");
    // 19:11 EST: both absent, the double forfeit offered.
    time.advance(chrono::Duration::minutes(2));
    let page = boss.get(&console).await.text().await.unwrap();
    assert!(offered(&page), "19:11 EST");
}

/// A sportsmanship note is its author's: seen by its author (their console, the answer to
/// their rating) and the admins (the league's admin page), never by another supervisor of the
/// league, and a rating replaces only the rater's own note. (Before: one note per match, shown
/// on the console to every supervisor of the league, replaced by whoever rated next.)
#[actix_web::test]
async fn a_note_is_for_its_author_and_the_admins() {
    let (app, admin, sup, t) = season().await;
    app.user("sam", Role::Supervisor).await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "sam"}),
        )
        .await;
    assert!(r.status().is_success(), "sam: {}", r.status());
    let m = admin.add_match("fall", t[0], t[1], "T1").await;
    let id = m["id"].as_i64().unwrap();
    admin.play_hands(id, &winning_hands()).await;
    let path = format!("/api/v1/matches/{id}/sportsmanship");
    let console = format!("/supervise/matches/{id}");

    // The coordinator rates with a note about the supervisors' table.
    let r = admin
        .post(
            &path,
            &json!({"a": 2, "b": 4, "note": "coord: sup was late"}),
        )
        .await;
    let rated = json_with_status(r, 200, "the coordinator rates").await;
    assert_eq!(rated["sportsmanship"]["note"], "coord: sup was late");

    // The league's supervisors do not see it on their console.
    let sup_browser = app.browser("sup").await;
    let sam = app.browser("sam").await;
    for (who, browser) in [("sup", &sup_browser), ("sam", &sam)] {
        let page = browser.get(&console).await.text().await.unwrap();
        assert!(page.contains("id=\"ratings-form\""), "{who}: the form");
        assert!(
            !page.contains("sup was late"),
            "{who} sees the coordinator's note:\n{page}"
        );
    }

    // A supervisor rates again with a note of their own: the ratings are theirs now, the
    // coordinator's note stays; the answer carries the supervisor's note only.
    let r = sup
        .post(
            &path,
            &json!({"a": 4, "b": 4, "note": "sup: friendly game"}),
        )
        .await;
    let rerated = json_with_status(r, 200, "the supervisor rates").await;
    assert_eq!(
        rerated["sportsmanship"],
        json!({"a": 4, "b": 4, "note": "sup: friendly game", "missing": false})
    );
    let sup_page = sup_browser.get(&console).await.text().await.unwrap();
    assert!(sup_page.contains("sup: friendly game"), "sup's own note");
    assert!(!sup_page.contains("sup was late"), "{sup_page}");
    let sam_page = sam.get(&console).await.text().await.unwrap();
    assert!(
        !sam_page.contains("friendly game") && !sam_page.contains("sup was late"),
        "sam sees nobody's note:\n{sam_page}"
    );
    // Every read leaves the notes out.
    let public =
        json_with_status(app.get(&format!("/api/v1/matches/{id}")).await, 200, "read").await;
    assert_eq!(public["sportsmanship"]["note"], Value::Null);

    // The admins see both, with their authors.
    let coord = app.browser("coord").await;
    let admin_page = coord.get("/admin/leagues/fall").await.text().await.unwrap();
    let row = crate::helpers::html_element(&admin_page, &format!("rating-{id}"), "</tr>")
        .expect("the match's ratings row");
    assert_eq!(
        crate::helpers::html_cells(row)[1..],
        [
            "4",
            "4",
            "coord: sup was late (coord) sup: friendly game (sup)"
        ]
    );

    // Rating again without a note removes the rater's own note only.
    let r = sup.post(&path, &json!({"a": 5, "b": 4})).await;
    let again = json_with_status(r, 200, "rated without a note").await;
    assert_eq!(again["sportsmanship"]["note"], Value::Null);
    let admin_page = coord.get("/admin/leagues/fall").await.text().await.unwrap();
    let row = crate::helpers::html_element(&admin_page, &format!("rating-{id}"), "</tr>").unwrap();
    assert_eq!(
        crate::helpers::html_cells(row)[1..],
        ["5", "4", "coord: sup was late (coord)"]
    );
    // The coordinator's console shows the coordinator's note, in the form to change it.
    let page = coord.get(&console).await.text().await.unwrap();
    assert!(page.contains("coord: sup was late"), "{page}");
}
