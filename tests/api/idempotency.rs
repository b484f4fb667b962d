//! Idempotency keys (docs/api.md §7.3): what a resend answers, what a key keeps, and when it
//! goes.
//!
//! - A resend gets the first answer back byte for byte, however far the match has moved on
//!   since: later hands, a correction of an earlier hand, a new table, a renamed team, time
//!   called, the game over and rated, the league's settings changed.
//! - A key is kept for a week after its first use, then deleted (by the hands recorded with
//!   keys after that); a resend after that is refused as a stale version, never recorded
//!   twice.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, TestApp, manual_clock, spawn_app, spawn_app_with_clock};

/// A league "idem" under partnership with a one-hour time limit, rating sportsmanship.
const TIMED: &str = "partnership, timed";
/// A league "idem" under partnership with no time limit (a match may go on for days).
const UNTIMED: &str = "partnership";

/// A league "idem" (`TIMED` or `UNTIMED`) and a started match between its two teams at
/// "Table 1": the admin, and the match's id and version.
async fn started_match(app: &TestApp, league: &str) -> (Api, i64, i64) {
    let rules = match league {
        TIMED => json!({"preset": "partnership", "time_limit_minutes": 60}),
        _ => json!("partnership"),
    };
    let admin = app.api_user("coord", Role::Admin).await;
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Idem", "slug": "idem",
                    "rules": {"regular": rules},
                    "settings": {"sportsmanship": {"min": 1, "max": 5, "required": true}}}),
        )
        .await;
    assert_eq!(r.status(), 201, "league");
    let mut teams = Vec::new();
    for name in ["Aces", "Kings"] {
        let r = admin
            .post(
                "/api/v1/leagues/idem/teams",
                &json!({"name": name, "players": [format!("{name} 1"), format!("{name} 2")]}),
            )
            .await;
        assert_eq!(r.status(), 201, "team {name}");
        teams.push(r.json::<Value>().await.unwrap()["id"].clone());
    }
    let r = admin
        .post(
            "/api/v1/leagues/idem/matches",
            &json!({"team_a": teams[0], "team_b": teams[1], "table": "Table 1"}),
        )
        .await;
    assert_eq!(r.status(), 201, "match");
    let id = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let r = admin
        .post(&format!("/api/v1/matches/{id}/start"), &json!({}))
        .await;
    assert_eq!(r.status(), 200, "start");
    let version = r.json::<Value>().await.unwrap()["version"]
        .as_i64()
        .unwrap();
    (admin, id, version)
}

/// Team a bids 7 and makes it, team b bids 6 and makes it.
fn even_hand() -> Value {
    json!({"a": {"bids": [4, 3], "tricks": [4, 3]}, "b": {"bids": [3, 3], "tricks": [3, 3]}})
}

/// The body of hand `k` with key `key-k`, sent on `version`.
fn keyed(k: usize, version: i64) -> Value {
    json!({"hand": even_hand(), "expected_version": version, "idempotency_key": format!("key-{k}")})
}

/// Posts a hand: the status, whether it is a replay, and the body as sent, byte for byte.
async fn post_hand(api: &Api, id: i64, body: &Value) -> (u16, bool, String) {
    let r = api.post(&format!("/api/v1/matches/{id}/hands"), body).await;
    let status = r.status().as_u16();
    let replay = r.headers().get("idempotent-replay").is_some();
    (status, replay, r.text().await.unwrap())
}

fn version_of(body: &str) -> i64 {
    let m: Value = serde_json::from_str(body).unwrap();
    m["version"].as_i64().unwrap()
}

#[actix_web::test]
async fn a_resend_gets_the_first_answer_byte_for_byte_after_the_match_moved_on() {
    let app = spawn_app().await;
    let (admin, id, v0) = started_match(&app, TIMED).await;

    // Two hands, each answered; their bodies are what a resend must get back.
    let mut sent = Vec::new();
    let mut first = Vec::new();
    let mut version = v0;
    for k in 1..=2 {
        let body = keyed(k, version);
        let (status, replay, answer) = post_hand(&admin, id, &body).await;
        assert_eq!((status, replay), (201, false), "hand {k}: {answer}");
        version = version_of(&answer);
        sent.push(body);
        first.push(answer);
    }

    // The match moves on: hand 1 corrected, a new table, team a renamed, time called.
    let r = admin
        .put(
            &format!("/api/v1/matches/{id}/hands/1"),
            &json!({"hand": {"a": {"bids": [4, 3], "tricks": [5, 3]},
                             "b": {"bids": [3, 3], "tricks": [2, 3]}},
                    "reason": "seat 1 took 5", "expected_version": version}),
        )
        .await;
    assert_eq!(r.status(), 200, "correct hand 1");
    version = r.json::<Value>().await.unwrap()["version"]
        .as_i64()
        .unwrap();
    let r = admin
        .client
        .patch(format!("{}/api/v1/matches/{id}", admin.base))
        .bearer_auth(&admin.token)
        .json(&json!({"table": "Lounge B", "expected_version": version}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "new table");
    version = r.json::<Value>().await.unwrap()["version"]
        .as_i64()
        .unwrap();
    // (No API renames a team; the admin pages do, with this update.)
    spades_im::on_store!(app.db.read_latest().await.unwrap(), |c| sqlx::query(
        "UPDATE teams SET name = 'Aces High' WHERE name = 'Aces'"
    )
    .execute(c)
    .await
    .map(|r| r.rows_affected()))
    .unwrap();
    let r = admin
        .post(
            &format!("/api/v1/matches/{id}/time"),
            &json!({"expected_version": version}),
        )
        .await;
    assert_eq!(r.status(), 200, "call time");
    version = r.json::<Value>().await.unwrap()["version"]
        .as_i64()
        .unwrap();

    // Hand 3 is the time-called hand: team a leads, the game is over.
    let body = keyed(3, version);
    let (status, replay, answer) = post_hand(&admin, id, &body).await;
    assert_eq!((status, replay), (201, false), "hand 3: {answer}");
    let m: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(m["status"], "complete", "{answer}");
    assert_eq!(m["hands"][2]["hand"]["time_called"], true, "{answer}");
    sent.push(body);
    first.push(answer);

    // Rated, and the league stops rating sportsmanship.
    let r = admin
        .post(
            &format!("/api/v1/matches/{id}/sportsmanship"),
            &json!({"a": 4, "b": 5, "note": "calm night"}),
        )
        .await;
    assert_eq!(r.status(), 200, "rate");
    let r = admin
        .client
        .patch(format!("{}/api/v1/leagues/idem", admin.base))
        .bearer_auth(&admin.token)
        .json(&json!({"settings": {"sportsmanship": null}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "settings");

    let now = app.get(&format!("/api/v1/matches/{id}")).await;
    let now: Value = now.json().await.unwrap();
    assert_eq!(now["table"], "Lounge B");
    assert_eq!(now["team_a"]["name"], "Aces High");
    assert_eq!(now["hands"][0]["revision"], 2);
    assert!(now.get("sportsmanship").is_none(), "{now}");

    // Every key answers its first answer again, exactly, and records nothing.
    let before = app.tables().await;
    for (k, (body, answer)) in sent.iter().zip(&first).enumerate() {
        let (status, replay, again) = post_hand(&admin, id, body).await;
        assert_eq!((status, replay), (201, true), "resend of hand {}", k + 1);
        assert_eq!(&again, answer, "resend of hand {}: the first answer", k + 1);
    }
    app.assert_nothing_written(&before, "the resends").await;
}

#[actix_web::test]
async fn a_key_is_kept_a_week_then_a_resend_is_a_stale_version_not_a_second_hand() {
    let (clock, time) = manual_clock("2026-11-02T19:00:00Z", chrono_tz::Tz::UTC);
    let app = spawn_app_with_clock(clock).await;
    let (admin, id, v0) = started_match(&app, UNTIMED).await;
    let keys = || async {
        let keys: Vec<String> = spades_im::on_store!(app.db.read().await.unwrap(), |c| {
            sqlx::query_scalar("SELECT key FROM idempotency_keys ORDER BY key")
                .fetch_all(c)
                .await
        })
        .unwrap();
        keys
    };

    let hand1 = keyed(1, v0);
    let (status, _, answer1) = post_hand(&admin, id, &hand1).await;
    assert_eq!(status, 201);
    // Six days and 23 hours later: still kept, still answered, even once a later hand has
    // swept for expired keys.
    time.advance(chrono::Duration::days(7) - chrono::Duration::hours(1));
    let (status, replay, again) = post_hand(&admin, id, &hand1).await;
    assert_eq!((status, replay), (201, true));
    assert_eq!(again, answer1);
    let (status, _, answer2) = post_hand(&admin, id, &keyed(2, version_of(&answer1))).await;
    assert_eq!(status, 201, "{answer2}");
    assert_eq!(keys().await, ["key-1", "key-2"]);

    // Past the week of key 1 (not of key 2): the next keyed hand deletes key 1.
    time.advance(chrono::Duration::hours(2));
    let (status, _, answer3) = post_hand(&admin, id, &keyed(3, version_of(&answer2))).await;
    assert_eq!(status, 201, "{answer3}");
    assert_eq!(keys().await, ["key-2", "key-3"], "key 1 expired");

    // Hand 1 sent again after its key is gone: its version is long past, so it is refused,
    // and nothing is recorded.
    let before = app.tables().await;
    let (status, replay, refusal) = post_hand(&admin, id, &hand1).await;
    assert_eq!((status, replay), (409, false), "{refusal}");
    let refusal: Value = serde_json::from_str(&refusal).unwrap();
    assert_eq!(refusal["error"]["code"], "version_conflict");
    app.assert_nothing_written(&before, "a resend after its key expired")
        .await;
    let m: Value = app
        .get(&format!("/api/v1/matches/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(m["hands"].as_array().unwrap().len(), 3, "no hand twice");
    // Key 2 is still answered.
    let (status, replay, again) = post_hand(&admin, id, &keyed(2, version_of(&answer1))).await;
    assert_eq!((status, replay), (201, true));
    assert_eq!(again, answer2);
}
