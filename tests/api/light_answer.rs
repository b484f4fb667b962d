//! The light answer to a hand (`Prefer: return=minimal`, docs/api.md §7.3): the totals
//! after the hand, the same size at hand 40 as at hand 1; the same totals the full answer
//! gives; a resend answers in the form its first request asked for. The console's hand form
//! gives the same answer to its outbox (`static/outbox/transport.js`), which asks for it the
//! same way, and still its redirect to a form posted without it.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, Browser, TestApp, spawn_app};
use crate::playoffs::get_match;

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
        let full: Value = get_match(&app, id).await;
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
    let full: Value = get_match(&app, id).await;
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

/// API hand `hand` as the console's hand form posts it, on `version` with `key`.
fn form_of(hand: &Value, version: i64, key: &str) -> Vec<(String, String)> {
    let mut fields = vec![
        ("expected_version".to_string(), version.to_string()),
        ("idempotency_key".to_string(), key.to_string()),
    ];
    for side in ["a", "b"] {
        for i in 0..2 {
            let cell = |what: &str| hand[side][what][i].to_string().replace('"', "");
            fields.push((format!("{side}_bid{i}"), cell("bids")));
            fields.push((format!("{side}_tricks{i}"), cell("tricks")));
        }
    }
    fields
}

/// Posts the console's hand form of match `id` as `browser` (its session's CSRF token),
/// with `Prefer: {prefer}` if given; redirects not followed.
async fn console_post(
    browser: &Browser,
    id: i64,
    fields: &[(String, String)],
    prefer: Option<&str>,
) -> reqwest::Response {
    let mut all = fields.to_vec();
    all.push(("csrf".to_string(), browser.csrf.clone()));
    let mut r = browser
        .client
        .post(format!("{}/supervise/matches/{id}/hands", browser.base))
        .form(&all);
    if let Some(p) = prefer {
        r = r.header("Prefer", p);
    }
    r.send().await.expect("a hand from the console")
}

/// The header `name` of `r`, or "".
fn header<'a>(r: &'a reqwest::Response, name: &str) -> &'a str {
    r.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

/// The outbox's hand: asked with `Prefer: return=minimal`, the console's hand form answers
/// the totals (not a redirect to the console page, which lists every hand): the same size
/// at hand 30 as at hand 1, and the same again for a resend. Without the header, the
/// redirect of the form without script. A refusal is its page either way.
#[actix_web::test]
async fn the_console_answers_the_outbox_with_the_totals() {
    let app = spawn_app().await;
    let (admin, id, mut version) = started(&app).await;
    let coord = app.browser("coord").await;
    let mut sizes = Vec::new();
    let mut last = (Vec::new(), Value::Null);
    for k in 1..=30 {
        let fields = form_of(&hand(k), version, &format!("outbox-{k}"));
        let r = console_post(&coord, id, &fields, Some("return=minimal")).await;
        assert_eq!(r.status(), 201, "hand {k}");
        assert_eq!(header(&r, "preference-applied"), "return=minimal");
        assert!(header(&r, "content-type").starts_with("application/json"));
        assert!(r.headers().get("idempotent-replay").is_none(), "hand {k}");
        let text = r.text().await.expect("body");
        sizes.push(text.len());
        let light: Value = serde_json::from_str(&text).expect("json");
        let full = app.get(&format!("/api/v1/matches/{id}")).await;
        let full: Value = full.json().await.expect("the match");
        assert_eq!(light["number"], k, "{light}");
        assert_eq!(light["version"], full["version"]);
        for side in ["a", "b"] {
            assert_eq!(light[side], full[side], "{light} {side}");
        }
        assert_eq!(light["game_status"], full["game_status"]);
        version = light["version"].as_i64().expect("version");
        last = (fields, light);
    }
    let (least, most) = (sizes.iter().min(), sizes.iter().max());
    assert!(
        most.zip(least).is_some_and(|(m, l)| m - l <= 8 && *m < 200),
        "the same small size at hand 30 as at hand 1: {sizes:?}"
    );

    // The last hand again (its answer lost on the way): its first answer, marked as a
    // replay, recorded once; without the header, the redirect as the first time.
    let (fields, light) = last;
    let r = console_post(&coord, id, &fields, Some("return=minimal")).await;
    assert_eq!(r.status(), 201);
    assert_eq!(header(&r, "idempotent-replay"), "true");
    assert_eq!(header(&r, "preference-applied"), "return=minimal");
    assert_eq!(r.json::<Value>().await.expect("json"), light);
    let r = console_post(&coord, id, &fields, None).await;
    assert_eq!(r.status(), 303);
    let full: Value = get_match(&app, id).await;
    assert_eq!(
        full["hands"].as_array().map(Vec::len),
        Some(30),
        "recorded once"
    );

    // A key first answered in full through the API: the console's outbox gets its totals.
    let body = json!({"hand": hand(31), "expected_version": version, "idempotency_key": "api-31"});
    let r = post(&admin, id, &body, None).await;
    assert_eq!(r.status(), 201);
    let first: Value = r.json().await.expect("json");
    let fields = form_of(&hand(31), version, "api-31");
    let r = console_post(&coord, id, &fields, Some("return=minimal")).await;
    assert_eq!(r.status(), 201);
    assert_eq!(header(&r, "idempotent-replay"), "true");
    let again: Value = r.json().await.expect("json");
    assert_eq!(again["number"], 31, "{again}");
    assert_eq!(again["version"], first["version"]);
    assert_eq!(again["a"], first["a"]);
    version = first["version"].as_i64().expect("version");

    // Without the header: the redirect to the console at the next hand, as ever.
    let fields = form_of(&hand(32), version, "form-32");
    let r = console_post(&coord, id, &fields, None).await;
    assert_eq!(r.status(), 303);
    assert_eq!(
        header(&r, "location"),
        format!("/supervise/matches/{id}#next-hand")
    );
    assert!(r.headers().get("preference-applied").is_none());

    // Refused with the header: the conflict page (a stale version), as the outbox reads it.
    let fields = form_of(&hand(33), version, "stale-33");
    let r = console_post(&coord, id, &fields, Some("return=minimal")).await;
    assert_eq!(r.status(), 409);
    assert!(header(&r, "content-type").starts_with("text/html"));
    assert!(r.headers().get("preference-applied").is_none());
    let full: Value = get_match(&app, id).await;
    assert_eq!(full["hands"].as_array().map(Vec::len), Some(32));
}

/// What the outbox downloads per hand it sends, before and after it asked for the light
/// answer (BENCHMARKS.md, "The outbox"): the console page its redirect led to, and the
/// totals. Bodies only, at hands 1, 100 and 200 of one match. Run by hand:
/// `cargo test --test api outbox_bytes -- --ignored --nocapture`.
#[actix_web::test]
#[ignore = "a measurement: prints the bytes per hand"]
async fn outbox_bytes_per_hand() {
    let app = spawn_app().await;
    let (_, id, mut version) = started(&app).await;
    let coord = app.browser("coord").await;
    println!("| hand | before: console page (bytes) | after: totals (bytes) |");
    for k in 1..=200 {
        let fields = form_of(&hand(k), version, &format!("bytes-{k}"));
        let r = console_post(&coord, id, &fields, Some("return=minimal")).await;
        assert_eq!(r.status(), 201, "hand {k}");
        let light = r.bytes().await.expect("body");
        let totals: Value = serde_json::from_slice(&light).expect("json");
        version = totals["version"].as_i64().expect("version");
        if [1, 100, 200].contains(&k) {
            let page = coord.get(&format!("/supervise/matches/{id}")).await;
            let page = page.bytes().await.expect("the console page");
            println!("| {k} | {} | {} |", page.len(), light.len());
            assert!(page.len() > 20 * light.len());
        }
    }
}
