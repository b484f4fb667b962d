//! The light answer to a hand (`Prefer: return=minimal`, docs/api.md §7.3): the totals
//! after the hand, the same size at hand 40 as at hand 1; the same totals the full answer
//! gives; a resend answers in the form its first request asked for.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, TestApp, spawn_app};

/// A started match of league "light" (partnership to 500): the admin, its id and version.
async fn started(app: &TestApp) -> (Api, i64, i64) {
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "light", json!("partnership"), 2).await;
    let m = admin
        .add_match("light", teams[0], teams[1], "Table 1")
        .await;
    let id = m["id"].as_i64().expect("id");
    let m = admin.start_match(id).await;
    (admin, id, m["version"].as_i64().expect("version"))
}

/// Hand `k`: the teams take turns to be set, so the game does not end for a long while.
fn hand(k: usize) -> Value {
    if k.is_multiple_of(2) {
        json!({"a": {"bids": [4, 3], "tricks": [3, 3]}, "b": {"bids": [2, 2], "tricks": [4, 3]}})
    } else {
        json!({"a": {"bids": [2, 2], "tricks": [4, 3]}, "b": {"bids": [4, 3], "tricks": [3, 3]}})
    }
}

async fn post(admin: &Api, id: i64, body: &Value, prefer: Option<&str>) -> reqwest::Response {
    let mut r = admin
        .client
        .post(format!("{}/api/v1/matches/{id}/hands", admin.base))
        .bearer_auth(&admin.token)
        .json(body);
    if let Some(p) = prefer {
        r = r.header("Prefer", p);
    }
    r.send().await.expect("a hand")
}

#[actix_web::test]
async fn the_light_answer_is_the_totals_and_stays_the_same_size() {
    let app = spawn_app().await;
    let (admin, id, mut version) = started(&app).await;
    let mut sizes = Vec::new();
    for k in 1..=40 {
        let body = json!({"hand": hand(k), "expected_version": version});
        let r = post(&admin, id, &body, Some("return=minimal")).await;
        assert_eq!(r.status(), 201);
        assert_eq!(r.headers()["preference-applied"], "return=minimal");
        let text = r.text().await.expect("body");
        sizes.push(text.len());
        let light: Value = serde_json::from_str(&text).expect("json");
        // The full match, read now, says the same.
        let full: Value = app
            .get(&format!("/api/v1/matches/{id}"))
            .await
            .json()
            .await
            .expect("the match");
        assert_eq!(light["number"], k, "{light}");
        assert_eq!(light["version"], full["version"]);
        for side in ["a", "b"] {
            assert_eq!(light[side]["score"], full[side]["score"], "{light} {side}");
            assert_eq!(light[side]["bags"], full[side]["bags"], "{light} {side}");
        }
        assert_eq!(light["game_status"], full["game_status"]);
        assert_eq!(light["winner"], full["winner"]);
        assert_eq!(
            light.as_object().map(|o| o.len()),
            Some(6),
            "version, number, a, b, game_status, winner: {light}"
        );
        version = light["version"].as_i64().expect("version");
    }
    let (least, most) = (sizes.iter().min(), sizes.iter().max());
    assert!(
        most.zip(least).is_some_and(|(m, l)| m - l <= 8),
        "the same size at hand 40 as at hand 1 (but for its numbers): {sizes:?}"
    );
    // Without the header: the documented answer, every hand.
    let body = json!({"hand": hand(41), "expected_version": version});
    let r = post(&admin, id, &body, Some("respond-async, wait=5")).await;
    assert_eq!(r.status(), 201);
    assert!(r.headers().get("preference-applied").is_none());
    let full: Value = r.json().await.expect("json");
    assert_eq!(full["hands"].as_array().map(Vec::len), Some(41));
}

#[actix_web::test]
async fn a_resend_answers_in_the_form_first_asked_for() {
    let app = spawn_app().await;
    let (admin, id, version) = started(&app).await;
    let light = json!({"hand": hand(1), "expected_version": version, "idempotency_key": "k1"});
    let r = post(&admin, id, &light, Some("foo, RETURN=\"minimal\"")).await;
    assert_eq!(r.status(), 201);
    let first: Value = r.json().await.expect("json");
    assert_eq!(first["number"], 1);
    let version = first["version"].as_i64().expect("version");
    // Another hand after it, then the first key again without the header: the light answer
    // as it was (hand 1's totals), marked as a replay.
    let body = json!({"hand": hand(2), "expected_version": version, "idempotency_key": "k2"});
    let r = post(&admin, id, &body, None).await;
    assert_eq!(r.status(), 201);
    let second: Value = r.json().await.expect("json");
    assert_eq!(second["hands"].as_array().map(Vec::len), Some(2), "full");
    let r = post(&admin, id, &light, None).await;
    assert_eq!(r.status(), 201);
    assert_eq!(r.headers()["idempotent-replay"], "true");
    assert_eq!(r.headers()["preference-applied"], "return=minimal");
    assert_eq!(r.json::<Value>().await.expect("json"), first);
    // And the full one asked for light: full, as first answered.
    let r = post(&admin, id, &body, Some("return=minimal")).await;
    assert_eq!(r.headers()["idempotent-replay"], "true");
    assert!(r.headers().get("preference-applied").is_none());
    assert_eq!(r.json::<Value>().await.expect("json"), second);
}

/// Hands of every kind, in turn: made bids, a nil made and one set, a misdeal, a team set,
/// bags piling up.
fn varied(k: usize) -> Value {
    match k % 6 {
        0 => {
            json!({"a": {"bids": [4, 3], "tricks": [4, 3]}, "b": {"bids": [3, 3], "tricks": [3, 3]}})
        }
        1 => {
            json!({"a": {"bids": [4, "nil"], "tricks": [5, 0]}, "b": {"bids": [3, 3], "tricks": [4, 4]}})
        }
        2 => {
            json!({"a": {"bids": [4, "nil"], "tricks": [4, 1]}, "b": {"bids": [3, 3], "tricks": [4, 4]}})
        }
        3 => json!({"misdeal": true}),
        4 => {
            json!({"a": {"bids": [5, 4], "tricks": [3, 3]}, "b": {"bids": [2, 2], "tricks": [4, 3]}})
        }
        _ => {
            json!({"a": {"bids": [1, 1], "tricks": [5, 4]}, "b": {"bids": [2, 2], "tricks": [2, 2]}})
        }
    }
}

/// The light answers (the game continued from the match's kept totals, its hands not
/// replayed) say what replaying every hand says, hand after hand, to the game's end.
#[actix_web::test]
async fn the_light_totals_are_the_replayed_totals_to_the_end() {
    let app = spawn_app().await;
    let (admin, id, mut version) = started(&app).await;
    let mut answers = Vec::new();
    for k in 1..=200 {
        let body = json!({"hand": varied(k), "expected_version": version});
        let r = post(&admin, id, &body, Some("return=minimal")).await;
        assert_eq!(r.status(), 201, "hand {k}");
        let light: Value = r.json().await.expect("json");
        version = light["version"].as_i64().expect("version");
        let over = light["game_status"] != "in_progress" && light["game_status"] != "tiebreak";
        answers.push(light);
        if over {
            break;
        }
    }
    let last = answers.last().expect("hands").clone();
    assert_eq!(last["game_status"], "won", "the game ends: {last}");
    // The match's hands, replayed from the first when the match is read.
    let full: Value = app
        .get(&format!("/api/v1/matches/{id}"))
        .await
        .json()
        .await
        .expect("the match");
    let hands = full["hands"].as_array().expect("hands");
    assert_eq!(hands.len(), answers.len());
    for (light, replayed) in answers.iter().zip(hands) {
        for side in ["a", "b"] {
            assert_eq!(
                light[side]["score"], replayed[side]["score"],
                "hand {}",
                light["number"]
            );
            assert_eq!(
                light[side]["bags"], replayed[side]["bags"],
                "hand {}",
                light["number"]
            );
        }
    }
    assert_eq!(last["winner"], full["winner"]);
    // And the totals the match keeps agree with its hands (`spades-im check`).
    let report = spades_im::service::check::check(&app.db)
        .await
        .expect("the check");
    assert!(report.differences.is_empty(), "{:?}", report.differences);
}
