//! Lineups in the JSON API (docs/api.md, "Lineups"): a team's two players by id or by
//! student id, shown by name in the match; a substitution from the next hand on keeps the
//! hands already played; a league that requires lineups waits for both before the first
//! hand. Every refusal writes nothing, and no answer repeats a student id.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, TestApp, anonymous_get, hand_of, json_with_status, spawn_app};

/// An app, an admin, a supervisor of league `fall` (games to 100) and its two teams
/// ("Team 1": P1a, P1b, Cy with student id S-301, inactive Dee; "Team 2": P2a, P2b, Eve
/// with student id 4402).
async fn season() -> (TestApp, Api, Api, [i64; 2]) {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let sup = app.api_user("sup", Role::Supervisor).await;
    let t = app
        .league(
            &admin,
            "fall",
            json!({"preset": "unc-im-300", "target": 100}),
            2,
        )
        .await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "sup"}),
        )
        .await;
    assert!(r.status().is_success(), "supervisor: {}", r.status());
    add_player(
        &admin,
        t[0],
        json!({"name": "Cy Park", "student_id": "S-301"}),
    )
    .await;
    let dee = add_player(&admin, t[0], json!({"name": "Dee Ray"})).await;
    let r = admin
        .patch(&format!("/api/v1/players/{dee}"), &json!({"active": false}))
        .await;
    json_with_status(r, 200, "deactivate Dee").await;
    add_player(
        &admin,
        t[1],
        json!({"name": "Eve Li", "student_id": "4402"}),
    )
    .await;
    (app, admin, sup, [t[0], t[1]])
}

async fn add_player(admin: &Api, team: i64, player: Value) -> i64 {
    let r = admin
        .post(&format!("/api/v1/teams/{team}/players"), &player)
        .await;
    json_with_status(r, 201, "add a player").await["id"]
        .as_i64()
        .unwrap()
}

/// Team `team`'s player ids by name.
async fn ids(admin: &Api, team: i64) -> Vec<(String, i64)> {
    let r = admin.get(&format!("/api/v1/teams/{team}/roster")).await;
    json_with_status(r, 200, "roster").await["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["id"].as_i64().unwrap(),
            )
        })
        .collect()
}

async fn id_of(admin: &Api, team: i64, name: &str) -> i64 {
    ids(admin, team)
        .await
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("{name} on team {team}"))
        .1
}

fn names(m: &Value, team: &str) -> Vec<String> {
    m["lineup"][team]
        .as_array()
        .map(|seats| {
            seats
                .iter()
                .map(|s| s["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

async fn set(api: &Api, id: i64, body: Value) -> reqwest::Response {
    api.post(&format!("/api/v1/matches/{id}/lineup"), &body)
        .await
}

async fn lineup_rows(app: &TestApp) -> Vec<(String, i64, i64, i64)> {
    let mut conn = app.db.read().await.expect("reader");
    spades_im::on_store!(conn, |c| sqlx::query_as::<_, (String, i64, i64, i64)>(
        "SELECT team, from_hand, seat1, seat2 FROM lineups ORDER BY team, from_hand"
    )
    .fetch_all(c)
    .await)
    .expect("lineups")
}

async fn audit_after(app: &TestApp, action: &str) -> Vec<(Option<String>, Option<String>)> {
    let mut conn = app.db.read().await.expect("reader");
    spades_im::on_store!(conn, |c| sqlx::query_as::<
        _,
        (Option<String>, Option<String>),
    >(
        "SELECT before, after FROM audit_log WHERE action = $1 ORDER BY id"
    )
    .bind(action)
    .fetch_all(c)
    .await)
    .expect("audit")
}

#[actix_web::test]
async fn a_lineup_by_id_or_by_student_id_is_shown_by_name_in_seat_order() {
    let (app, admin, sup, t) = season().await;
    let m = admin.add_match("fall", t[0], t[1], "T1").await;
    let id = m["id"].as_i64().unwrap();
    assert_eq!(m["lineup"], json!({"a": null, "b": null}));
    let cy = id_of(&admin, t[0], "Cy Park").await;
    let p1a = id_of(&admin, t[0], "P1a").await;

    // Team a by ids (Cy in the first seat), team b by student ids, one sent as a number.
    let r = set(&sup, id, json!({"team": "a", "players": [cy, p1a]})).await;
    let after = json_with_status(r, 200, "lineup a").await;
    assert_eq!(names(&after, "a"), ["Cy Park", "P1a"]);
    assert_eq!(after["lineup"]["a"][0]["id"], cy);
    assert_eq!(after["lineup"]["b"], Value::Null);
    assert!(
        after["version"].as_i64() > m["version"].as_i64(),
        "the version moves"
    );
    let eve_first = json!({"team": "b", "student_ids": [4402, "s-301"]});
    let r = set(&sup, id, eve_first).await;
    // S-301 is Cy's, on team a: not on team b's roster, whatever the case.
    let body = json_with_status(r, 422, "another team's student id").await;
    assert_eq!(body["error"]["code"], "not_on_roster");
    let r = set(
        &sup,
        id,
        json!({"team": "b", "student_ids": [" 4402 ", "P2B-NONE"]}),
    )
    .await;
    json_with_status(r, 422, "an unknown student id").await;
    let eve = id_of(&admin, t[1], "Eve Li").await;
    let p2b = id_of(&admin, t[1], "P2b").await;
    let r = set(&sup, id, json!({"team": "b", "players": [p2b, eve]})).await;
    let both = json_with_status(r, 200, "lineup b").await;
    assert_eq!(names(&both, "b"), ["P2b", "Eve Li"]);

    // Anyone reads the lineup, by name only.
    let (status, _, body) = anonymous_get(&app, &format!("/api/v1/matches/{id}")).await;
    assert_eq!(status, 200);
    let public: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(names(&public, "a"), ["Cy Park", "P1a"]);
    assert_eq!(names(&public, "b"), ["P2b", "Eve Li"]);
    assert!(!body.contains("S-301") && !body.contains("4402"), "{body}");
    assert_eq!(
        lineup_rows(&app).await,
        [("a".into(), 1, cy, p1a), ("b".into(), 1, p2b, eve)]
    );
    let audit = audit_after(&app, "lineup").await;
    assert_eq!(audit.len(), 2, "{audit:?}");
    assert_eq!(
        audit[0].1.as_deref(),
        Some("team a from hand 1: Cy Park, P1a")
    );
}

#[actix_web::test]
async fn a_student_id_finds_the_player() {
    let (_app, admin, sup, t) = season().await;
    let m = admin.add_match("fall", t[0], t[1], "T1").await;
    let id = m["id"].as_i64().unwrap();
    let p2a = id_of(&admin, t[1], "P2a").await;
    let r = admin
        .patch(
            &format!("/api/v1/players/{p2a}"),
            &json!({"student_id": "B-7"}),
        )
        .await;
    json_with_status(r, 200, "P2a's id").await;
    // As a card reader types it (trimmed), and in lower case.
    let r = set(
        &sup,
        id,
        json!({"team": "b", "student_ids": ["4402", " b-7 "]}),
    )
    .await;
    let after = json_with_status(r, 200, "by student ids").await;
    assert_eq!(names(&after, "b"), ["Eve Li", "P2a"]);
}

#[actix_web::test]
async fn every_refusal_writes_nothing_and_repeats_no_student_id() {
    let (app, admin, sup, t) = season().await;
    let m = admin.add_match("fall", t[0], t[1], "T1").await;
    let id = m["id"].as_i64().unwrap();
    let team_a = ids(&admin, t[0]).await;
    let (cy, dee) = (team_a[2].1, team_a[3].1);
    let p1a = team_a[0].1;
    let eve = id_of(&admin, t[1], "Eve Li").await;
    let other = app.api_user("other", Role::Supervisor).await;
    let before = app.tables().await;
    let cases: Vec<(&Api, Value, u16, &str, &str)> = vec![
        (
            &sup,
            json!({"team": "a", "players": [cy, eve]}),
            422,
            "not_on_roster",
            "players[1]",
        ),
        (
            &sup,
            json!({"team": "a", "players": [dee, cy]}),
            422,
            "not_on_roster",
            "players[0]",
        ),
        (
            &sup,
            json!({"team": "a", "players": [cy, 999_999]}),
            422,
            "not_on_roster",
            "players[1]",
        ),
        (
            &sup,
            json!({"team": "a", "student_ids": ["4402", "S-301"]}),
            422,
            "not_on_roster",
            "student_ids[0]",
        ),
        (
            &sup,
            json!({"team": "a", "student_ids": ["S-301", "no!"]}),
            422,
            "invalid_student_id",
            "student_ids[1]",
        ),
        (
            &sup,
            json!({"team": "a", "student_ids": ["S-301", -3]}),
            422,
            "invalid_student_id",
            "student_ids[1]",
        ),
        (
            &sup,
            json!({"team": "a", "players": [cy]}),
            422,
            "invalid_input",
            "players",
        ),
        (
            &sup,
            json!({"team": "a", "players": [cy, p1a, eve]}),
            422,
            "invalid_input",
            "players",
        ),
        (
            &sup,
            json!({"team": "a", "players": [cy, cy]}),
            422,
            "invalid_input",
            "players",
        ),
        (
            &sup,
            json!({"team": "a", "players": [cy, p1a], "student_ids": ["S-301", "x"]}),
            422,
            "invalid_input",
            "players",
        ),
        (&sup, json!({"team": "a"}), 422, "invalid_input", "players"),
        (
            &sup,
            json!({"team": "c", "players": [cy, p1a]}),
            422,
            "invalid_input",
            "team",
        ),
        (
            &other,
            json!({"team": "a", "players": [cy, p1a]}),
            404,
            "not_found",
            "",
        ),
    ];
    for (api, body, status, code, field) in cases {
        let r = set(api, id, body.clone()).await;
        assert_eq!(r.status().as_u16(), status, "{body}");
        let text = r.text().await.unwrap();
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(answer["error"]["code"], code, "{body}: {text}");
        if !field.is_empty() {
            assert_eq!(answer["error"]["field"], field, "{body}: {text}");
        }
        assert!(
            !text.contains("S-301") && !text.contains("4402"),
            "{body}: {text}"
        );
    }
    let r = app
        .post_json(
            &format!("/api/v1/matches/{id}/lineup"),
            &json!({"team": "a", "players": [cy, p1a]}),
        )
        .await;
    assert_eq!(r.status(), 401, "no token");
    app.assert_nothing_written(&before, "refused lineups").await;

    // Over: no change, even to the same players.
    let won = admin
        .play_hands(id, &vec![hand_of([4, 3], [4, 4], [3, 3], [2, 3]); 2])
        .await;
    assert_eq!(won["status"], "complete");
    let before = app.tables().await;
    let r = set(&sup, id, json!({"team": "a", "players": [cy, p1a]})).await;
    let body = json_with_status(r, 409, "a finished match").await;
    assert_eq!(body["error"]["code"], "match_closed");
    app.assert_nothing_written(&before, "a lineup after the end")
        .await;
}

#[actix_web::test]
async fn statuses_of_the_refusals() {
    let (_app, admin, sup, t) = season().await;
    let m = admin.add_match("fall", t[0], t[1], "T1").await;
    let id = m["id"].as_i64().unwrap();
    let cy = id_of(&admin, t[0], "Cy Park").await;
    let eve = id_of(&admin, t[1], "Eve Li").await;
    let r = set(&sup, id, json!({"team": "a", "players": [cy, eve]})).await;
    let body = json_with_status(r, 422, "not on the roster").await;
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("not an active player on this team's roster"),
        "{message}"
    );
    let r = set(&sup, 999_999, json!({"team": "a", "players": [cy, eve]})).await;
    json_with_status(r, 404, "no such match").await;
}

#[actix_web::test]
async fn a_substitution_starts_at_the_next_hand_and_keeps_the_hands_played() {
    let (app, admin, sup, t) = season().await;
    let m = admin.add_match("fall", t[0], t[1], "T1").await;
    let id = m["id"].as_i64().unwrap();
    let team_a = ids(&admin, t[0]).await;
    let (p1a, p1b, cy) = (team_a[0].1, team_a[1].1, team_a[2].1);
    set(&sup, id, json!({"team": "a", "players": [p1a, p1b]})).await;
    // Changed before the first hand: still the lineup (replaced, not a substitution).
    let r = set(&sup, id, json!({"team": "a", "players": [p1b, p1a]})).await;
    json_with_status(r, 200, "a changed lineup").await;
    let started = sup.start_match(id).await;
    let r = sup
        .post(
            &format!("/api/v1/matches/{id}/hands"),
            &json!({"hand": hand_of([3, 3], [3, 3], [3, 3], [3, 4]),
                    "expected_version": started["version"], "idempotency_key": "hand-1"}),
        )
        .await;
    let one = json_with_status(r, 201, "hand 1").await;
    assert_eq!(names(&one, "a"), ["P1b", "P1a"]);

    // Cy comes in for P1a from hand 2.
    let r = set(&sup, id, json!({"team": "a", "players": [p1b, cy]})).await;
    let subbed = json_with_status(r, 200, "substitution").await;
    assert_eq!(names(&subbed, "a"), ["P1b", "Cy Park"]);
    assert_eq!(
        lineup_rows(&app).await,
        [("a".into(), 1, p1b, p1a), ("a".into(), 2, p1b, cy)]
    );
    let audit = audit_after(&app, "substitution").await;
    assert_eq!(
        audit,
        [(
            Some("team a from hand 2: P1b, P1a".into()),
            Some("team a from hand 2: P1b, Cy Park".into())
        )]
    );
    assert_eq!(audit_after(&app, "lineup").await.len(), 2);
    // The same lineup again writes nothing (an outbox may send it twice).
    let before = app.tables().await;
    let r = set(&sup, id, json!({"team": "a", "players": [p1b, cy]})).await;
    json_with_status(r, 200, "the same lineup").await;
    app.assert_nothing_written(&before, "the lineup in force again")
        .await;

    // Hand 1's answer, asked again, shows who played it.
    let r = sup
        .post(
            &format!("/api/v1/matches/{id}/hands"),
            &json!({"hand": hand_of([3, 3], [3, 3], [3, 3], [3, 4]),
                    "expected_version": started["version"], "idempotency_key": "hand-1"}),
        )
        .await;
    let replay = json_with_status(r, 201, "hand 1 again").await;
    assert_eq!(replay, one, "the first answer, unchanged");
    let two = sup
        .enter_hand(&subbed, &hand_of([3, 3], [3, 3], [3, 3], [3, 4]))
        .await;
    assert_eq!(names(&two, "a"), ["P1b", "Cy Park"]);
}

#[actix_web::test]
async fn a_league_that_requires_lineups_waits_for_both_and_checks_teams_in() {
    let (app, admin, sup, t) = season().await;
    let r = admin
        .patch(
            "/api/v1/leagues/fall",
            &json!({"settings": {"lineups": {"required": true}}}),
        )
        .await;
    let league = json_with_status(r, 200, "settings").await;
    assert_eq!(league["settings"]["lineups"], json!({"required": true}));
    let m = admin.add_match("fall", t[0], t[1], "T1").await;
    let id = m["id"].as_i64().unwrap();
    let team_a = ids(&admin, t[0]).await;
    let r = set(
        &sup,
        id,
        json!({"team": "a", "players": [team_a[0].1, team_a[2].1]}),
    )
    .await;
    let after = json_with_status(r, 200, "lineup a").await;
    assert!(
        after["checked_in"]["a"].is_string(),
        "team a checked in: {after}"
    );
    assert_eq!(after["checked_in"]["b"], Value::Null);
    let started = sup.start_match(id).await;
    let before = app.tables().await;
    let r = sup
        .post(
            &format!("/api/v1/matches/{id}/hands"),
            &json!({"hand": hand_of([3, 3], [3, 3], [3, 3], [3, 4]), "expected_version": started["version"]}),
        )
        .await;
    let body = json_with_status(r, 409, "a first hand without b's lineup").await;
    assert_eq!(body["error"]["code"], "lineup_missing");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("Team 2") && !message.contains("Team 1"),
        "{message}"
    );
    app.assert_nothing_written(&before, "a refused first hand")
        .await;
    let r = set(
        &sup,
        id,
        json!({"team": "b", "student_ids": ["4402", "4402"]}),
    )
    .await;
    json_with_status(r, 422, "one player twice").await;
    let eve = id_of(&admin, t[1], "Eve Li").await;
    let p2a = id_of(&admin, t[1], "P2a").await;
    let r = set(&sup, id, json!({"team": "b", "players": [eve, p2a]})).await;
    let ready = json_with_status(r, 200, "lineup b").await;
    // Started already: no check-in after the start.
    assert_eq!(ready["checked_in"]["b"], Value::Null);
    sup.enter_hand(&ready, &hand_of([3, 3], [3, 3], [3, 3], [3, 4]))
        .await;
}
