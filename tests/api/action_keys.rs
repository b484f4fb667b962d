//! Idempotency keys of a match's actions other than a new hand (docs/api.md §7.8): a
//! correction, a time call, a forfeit, a check-in, sportsmanship ratings, a lineup, a start.
//!
//! - Sent twice with one key, an action is done once: the second answer is the first, byte
//!   for byte, with `Idempotent-Replay: true`, and writes nothing (no audit row, no version).
//! - The same key with another request, another action or a hand's key is 422
//!   `idempotency_key_reused`, and writes nothing; a key of another match is not replayed.
//! - A refused action keeps no key; a key is kept a week, then pruned by later actions.
//! - Two sends of one key at once are done once.
//! - The console's forms carry a fresh key: sent again, the same redirect, nothing written.

use reqwest::Method;
use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{
    Api, Browser, TestApp, expect_error, json_with_status, manual_clock, spawn_app,
    spawn_app_with_clock,
};

/// A league night: a league "keys" with a one-hour limit rating sportsmanship 1 to 5, its
/// two teams and each one's two players (roster ids).
struct Night {
    app: TestApp,
    admin: Api,
    teams: [i64; 2],
    players: [[i64; 2]; 2],
}

async fn night(app: TestApp) -> Night {
    let admin = app.api_user("coord", Role::Admin).await;
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Keys", "slug": "keys",
                    "rules": {"regular": {"preset": "partnership", "time_limit_minutes": 60}},
                    "settings": {"sportsmanship": {"min": 1, "max": 5}}}),
        )
        .await;
    json_with_status(r, 201, "league").await;
    let mut teams = [0; 2];
    let mut players = [[0; 2]; 2];
    for (i, name) in ["Aces", "Kings"].into_iter().enumerate() {
        let r = admin
            .post(
                "/api/v1/leagues/keys/teams",
                &json!({"name": name, "players": [format!("{name} 1"), format!("{name} 2")]}),
            )
            .await;
        teams[i] = json_with_status(r, 201, "team").await["id"]
            .as_i64()
            .unwrap();
        let r = admin
            .get(&format!("/api/v1/teams/{}/roster", teams[i]))
            .await;
        let roster = json_with_status(r, 200, "roster").await;
        for (seat, p) in roster["players"].as_array().unwrap().iter().enumerate() {
            players[i][seat] = p["id"].as_i64().unwrap();
        }
    }
    Night {
        app,
        admin,
        teams,
        players,
    }
}

/// Team a bids 7 and makes it, team b bids 6 and makes it.
fn even_hand() -> Value {
    json!({"a": {"bids": [4, 3], "tricks": [4, 3]}, "b": {"bids": [3, 3], "tricks": [3, 3]}})
}

/// Every action that takes a key, besides a new hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Start,
    CheckIn,
    Lineup,
    Time,
    Correct,
    Forfeit,
    Rate,
}

const ACTIONS: [Action; 7] = [
    Action::Start,
    Action::CheckIn,
    Action::Lineup,
    Action::Time,
    Action::Correct,
    Action::Forfeit,
    Action::Rate,
];

/// A request of an action: method, path, body.
type Request = (Method, String, Value);

impl Action {
    /// Its audit row's action.
    fn audited(self) -> &'static str {
        match self {
            Action::Start => "start",
            Action::CheckIn => "check_in",
            Action::Lineup => "lineup",
            Action::Time => "call_time",
            Action::Correct => "correct_hand",
            Action::Forfeit => "forfeit",
            Action::Rate => "rate_sportsmanship",
        }
    }

    /// A new match in the state the action needs (its requests sent without keys).
    async fn ready(self, n: &Night) -> i64 {
        let r = n
            .admin
            .post(
                "/api/v1/leagues/keys/matches",
                &json!({"team_a": n.teams[0], "team_b": n.teams[1]}),
            )
            .await;
        let id = json_with_status(r, 201, "match").await["id"]
            .as_i64()
            .unwrap();
        if matches!(self, Action::Start | Action::CheckIn | Action::Lineup) {
            return id;
        }
        let m = n.admin.start_match(id).await;
        match self {
            Action::Time | Action::Correct => {
                n.admin.enter_hand(&m, &even_hand()).await;
            }
            Action::Rate => {
                let r = n
                    .admin
                    .post(
                        &format!("/api/v1/matches/{id}/forfeit"),
                        &json!({"team": "a"}),
                    )
                    .await;
                json_with_status(r, 200, "forfeit before rating").await;
            }
            _ => {}
        }
        id
    }

    /// The action on match `id` (at `version`) with `key`; `other`: a different request of
    /// the same action.
    fn request(self, n: &Night, id: i64, version: i64, key: &str, other: bool) -> Request {
        let path = |tail: &str| format!("/api/v1/matches/{id}/{tail}");
        let team = if other { "b" } else { "a" };
        let mut body = match self {
            Action::Start => json!({}),
            Action::CheckIn => json!({"team": team}),
            Action::Lineup => {
                let [p1, p2] = n.players[0];
                let seats = if other { [p2, p1] } else { [p1, p2] };
                json!({"team": "a", "players": seats})
            }
            Action::Time => json!({"expected_version": version - i64::from(other)}),
            Action::Correct => json!({
                "hand": {"a": {"bids": [4, 3], "tricks": [5, 3]}, "b": {"bids": [3, 3], "tricks": [2, 3]}},
                "reason": if other { "seat 3 took 4" } else { "seat 1 took 5" },
                "expected_version": version}),
            Action::Forfeit => json!({"team": team, "expected_version": version}),
            Action::Rate => json!({"a": if other { 2 } else { 3 }, "b": 4}),
        };
        body["idempotency_key"] = json!(key);
        let (method, tail) = match self {
            Action::Start => (Method::POST, "start"),
            Action::CheckIn => (Method::POST, "check-in"),
            Action::Lineup => (Method::POST, "lineup"),
            Action::Time => (Method::POST, "time"),
            Action::Correct => (Method::PUT, "hands/1"),
            Action::Forfeit => (Method::POST, "forfeit"),
            Action::Rate => (Method::POST, "sportsmanship"),
        };
        (method, path(tail), body)
    }
}

/// Sends `request`: the status, whether it is a replay, and the body as answered.
async fn send(api: &Api, (method, path, body): &Request) -> (u16, bool, String) {
    let r = if *method == Method::PUT {
        api.put(path, body).await
    } else {
        api.post(path, body).await
    };
    let status = r.status().as_u16();
    let replay = match r.headers().get("idempotent-replay") {
        None => false,
        Some(v) => {
            assert_eq!(v, "true", "{path}");
            true
        }
    };
    (status, replay, r.text().await.unwrap())
}

/// The match's version as the API shows it now.
async fn version(n: &Night, id: i64) -> i64 {
    let r = n.admin.get(&format!("/api/v1/matches/{id}")).await;
    json_with_status(r, 200, "match").await["version"]
        .as_i64()
        .unwrap()
}

/// How many audit rows of `action` match `id` has.
async fn audited(app: &TestApp, action: Action, id: i64) -> i64 {
    let mut conn = app.db.read().await.unwrap();
    spades_im::on_store!(conn, |c| sqlx::query_scalar(
        "SELECT count(*) FROM audit_log WHERE action = $1 AND match_id = $2"
    )
    .bind(action.audited())
    .bind(id)
    .fetch_one(c)
    .await)
    .unwrap()
}

#[actix_web::test]
async fn each_action_sent_twice_with_one_key_is_done_once_and_answered_the_same() {
    let n = night(spawn_app().await).await;
    for action in ACTIONS {
        let id = action.ready(&n).await;
        let before = version(&n, id).await;
        let key = format!("phone-1-{action:?}");
        let request = action.request(&n, id, before, &key, false);

        let (status, replay, first) = send(&n.admin, &request).await;
        assert_eq!((status, replay), (200, false), "{action:?}: {first}");
        let after = version(&n, id).await;
        let answered: Value = serde_json::from_str(&first).unwrap();
        assert_eq!(
            answered["version"], after,
            "{action:?}: the answer is the match now"
        );
        assert_eq!(audited(&n.app, action, id).await, 1, "{action:?}");

        // Sent again: the first answer, byte for byte, and nothing written at all.
        let tables = n.app.tables().await;
        let (status, replay, again) = send(&n.admin, &request).await;
        assert_eq!((status, replay), (200, true), "{action:?}: {again}");
        assert_eq!(again, first, "{action:?}");
        n.app
            .assert_nothing_written(&tables, format!("{action:?} sent again"))
            .await;

        // The same key with another request: refused, nothing written.
        let other = action.request(&n, id, after, &key, true);
        if other.2 != request.2 {
            let error = expect_error(
                send_raw(&n.admin, &other).await,
                422,
                "idempotency_key_reused",
            )
            .await;
            assert_eq!(error["field"], "idempotency_key", "{action:?}");
            n.app
                .assert_nothing_written(&tables, format!("{action:?} with another request"))
                .await;
        }
        assert_eq!(version(&n, id).await, after, "{action:?}: moved once");
        assert_eq!(audited(&n.app, action, id).await, 1, "{action:?}");
    }
}

/// Sends `request` for its response.
async fn send_raw(api: &Api, (method, path, body): &Request) -> reqwest::Response {
    if *method == Method::PUT {
        api.put(path, body).await
    } else {
        api.post(path, body).await
    }
}

#[actix_web::test]
async fn a_key_belongs_to_one_action_of_one_match() {
    let n = night(spawn_app().await).await;

    // A check-in's key, sent with another action of the same match: refused.
    let id = Action::CheckIn.ready(&n).await;
    let check_in = Action::CheckIn.request(&n, id, 1, "k1", false);
    assert_eq!(send(&n.admin, &check_in).await.0, 200);
    let tables = n.app.tables().await;
    let start = Action::Start.request(&n, id, 1, "k1", false);
    expect_error(
        send_raw(&n.admin, &start).await,
        422,
        "idempotency_key_reused",
    )
    .await;
    n.app
        .assert_nothing_written(&tables, "a check-in's key sent with a start")
        .await;

    // The same key in another match is that match's own: done there, not a replay.
    let other = Action::CheckIn.ready(&n).await;
    let (status, replay, body) = send(
        &n.admin,
        &Action::CheckIn.request(&n, other, 1, "k1", false),
    )
    .await;
    assert_eq!((status, replay), (200, false), "{body}");
    assert_eq!(audited(&n.app, Action::CheckIn, other).await, 1);

    // A hand's key sent with an action, and an action's key sent with a hand: refused.
    let id = Action::Time.ready(&n).await;
    let v = version(&n, id).await;
    let r = n
        .admin
        .post(
            &format!("/api/v1/matches/{id}/hands"),
            &json!({"hand": even_hand(), "expected_version": v, "idempotency_key": "hand-2"}),
        )
        .await;
    json_with_status(r, 201, "hand 2").await;
    let v = version(&n, id).await;
    let tables = n.app.tables().await;
    let time = Action::Time.request(&n, id, v, "hand-2", false);
    expect_error(
        send_raw(&n.admin, &time).await,
        422,
        "idempotency_key_reused",
    )
    .await;
    n.app
        .assert_nothing_written(&tables, "a hand's key sent with a time call")
        .await;
    let time = Action::Time.request(&n, id, v, "time-1", false);
    assert_eq!(send(&n.admin, &time).await.0, 200);
    let v = version(&n, id).await;
    let tables = n.app.tables().await;
    let r = n
        .admin
        .post(
            &format!("/api/v1/matches/{id}/hands"),
            &json!({"hand": even_hand(), "expected_version": v, "idempotency_key": "time-1"}),
        )
        .await;
    let error = expect_error(r, 422, "idempotency_key_reused").await;
    assert_eq!(error["field"], "idempotency_key");
    n.app
        .assert_nothing_written(&tables, "a time call's key sent with a hand")
        .await;
}

#[actix_web::test]
async fn a_key_that_is_empty_too_long_or_holds_a_control_character_is_refused() {
    let n = night(spawn_app().await).await;
    let long = "k".repeat(201);
    for action in ACTIONS {
        let id = action.ready(&n).await;
        let v = version(&n, id).await;
        let tables = n.app.tables().await;
        for key in ["", long.as_str(), "a\u{7}b"] {
            let request = action.request(&n, id, v, key, false);
            let error =
                expect_error(send_raw(&n.admin, &request).await, 422, "invalid_request").await;
            assert_eq!(error["field"], "idempotency_key", "{action:?} {key:?}");
        }
        n.app
            .assert_nothing_written(&tables, format!("{action:?} with bad keys"))
            .await;
        // 200 characters is a key.
        let request = action.request(&n, id, v, &"k".repeat(200), false);
        let (status, _, body) = send(&n.admin, &request).await;
        assert_eq!(status, 200, "{action:?}: {body}");
    }
}

#[actix_web::test]
async fn a_refused_action_keeps_no_key() {
    let n = night(spawn_app().await).await;
    for action in [Action::Time, Action::Correct, Action::Forfeit] {
        let id = action.ready(&n).await;
        let v = version(&n, id).await;
        // A version the match has left: 409, and the key is not kept.
        let stale = action.request(&n, id, v - 1, "late", false);
        let tables = n.app.tables().await;
        expect_error(send_raw(&n.admin, &stale).await, 409, "version_conflict").await;
        n.app
            .assert_nothing_written(&tables, format!("{action:?} refused"))
            .await;
        // So the key is free: sent on the current version, it is done.
        let (status, replay, body) =
            send(&n.admin, &action.request(&n, id, v, "late", false)).await;
        assert_eq!((status, replay), (200, false), "{action:?}: {body}");
    }
}

#[actix_web::test]
async fn two_sends_of_one_key_at_once_are_done_once() {
    let n = night(spawn_app().await).await;
    for action in [
        Action::Start,
        Action::Time,
        Action::Correct,
        Action::Forfeit,
    ] {
        for round in 0..4 {
            let id = action.ready(&n).await;
            let v = version(&n, id).await;
            let request = action.request(&n, id, v, &format!("both-{round}"), false);
            let (a, b) = tokio::join!(send(&n.admin, &request), send(&n.admin, &request));
            assert_eq!((a.0, b.0), (200, 200), "{action:?}: {} / {}", a.2, b.2);
            assert!(
                a.1 != b.1,
                "{action:?}: one answer is the replay of the other"
            );
            assert_eq!(a.2, b.2, "{action:?}");
            assert_eq!(audited(&n.app, action, id).await, 1, "{action:?}");
        }
    }
}

#[actix_web::test]
async fn a_key_is_kept_a_week_then_pruned_by_later_actions() {
    let (clock, time) = manual_clock("2026-11-23T19:00:00Z", chrono_tz::UTC);
    let n = night(spawn_app_with_clock(clock).await).await;
    let id = Action::CheckIn.ready(&n).await;
    let request = Action::CheckIn.request(&n, id, 1, "old", false);
    assert_eq!(send(&n.admin, &request).await.0, 200);
    time.advance(chrono::Duration::days(6));
    let (status, replay, _) = send(&n.admin, &request).await;
    assert_eq!((status, replay), (200, true), "six days on, still kept");
    assert_eq!(keys(&n.app).await, ["old"]);

    // Past the week, the next keyed action deletes it.
    time.advance(chrono::Duration::days(2));
    let other = Action::CheckIn.ready(&n).await;
    let later = Action::CheckIn.request(&n, other, 1, "new", false);
    assert_eq!(send(&n.admin, &later).await.0, 200);
    assert_eq!(keys(&n.app).await, ["new"]);
}

/// The kept action keys, in order.
async fn keys(app: &TestApp) -> Vec<String> {
    let mut conn = app.db.read().await.unwrap();
    spades_im::on_store!(conn, |c| sqlx::query_scalar(
        "SELECT key FROM action_keys ORDER BY key"
    )
    .fetch_all(c)
    .await)
    .unwrap()
}

// ------------------------------------------------------------------ the console's forms

/// The value of the hidden `idempotency_key` whose value ends with `suffix` on `page`.
fn form_key(page: &str, suffix: &str) -> String {
    let marker = "name=\"idempotency_key\" value=\"";
    page.match_indices(marker)
        .map(|(at, _)| {
            let rest = &page[at + marker.len()..];
            rest[..rest.find('"').unwrap()].to_string()
        })
        .find(|key| key.ends_with(suffix))
        .unwrap_or_else(|| panic!("no idempotency_key ending {suffix:?} on the page"))
}

async fn page(browser: &Browser, path: &str) -> String {
    let r = browser.get(path).await;
    assert_eq!(r.status(), 200, "{path}");
    r.text().await.unwrap()
}

/// Posts `fields` to `path` twice: both answers are the same redirect to the console, the
/// form's key is kept (a check-in or a lineup sent again changes nothing even without one),
/// and the second writes nothing.
async fn post_twice(n: &Night, browser: &Browser, id: i64, path: &str, fields: &[(&str, &str)]) {
    let console = format!("/supervise/matches/{id}");
    let r = browser.post_form(path, fields).await;
    let status = r.status();
    let location = r.headers().get("location").cloned();
    assert_eq!(status, 303, "{path}: {}", r.text().await.unwrap());
    assert_eq!(location.unwrap(), console.as_str(), "{path}");
    let (_, key) = fields
        .iter()
        .find(|(name, _)| *name == "idempotency_key")
        .unwrap();
    assert!(
        keys(&n.app).await.iter().any(|k| k == key),
        "{path}: {key} kept"
    );
    let tables = n.app.tables().await;
    let r = browser.post_form(path, fields).await;
    let status = r.status();
    let location = r.headers().get("location").cloned();
    assert_eq!(status, 303, "{path} again: {}", r.text().await.unwrap());
    assert_eq!(location.unwrap(), console.as_str(), "{path} again");
    n.app
        .assert_nothing_written(&tables, format!("{path} sent again"))
        .await;
}

#[actix_web::test]
async fn each_console_form_sent_again_redirects_the_same_and_changes_nothing() {
    let n = night(spawn_app().await).await;
    let browser = n.app.browser("coord").await;
    let players = n.players[0].map(|p| p.to_string());

    // Before the start: a check-in, a lineup, the start, each from the console's own form.
    let id = Action::Start.ready(&n).await;
    let console = format!("/supervise/matches/{id}");
    let html = page(&browser, &console).await;
    let key = form_key(&html, "-check-in-a");
    let fields = [
        ("team", "a"),
        ("present", "1"),
        ("idempotency_key", key.as_str()),
    ];
    post_twice(&n, &browser, id, &format!("{console}/check-in"), &fields).await;
    assert_eq!(audited(&n.app, Action::CheckIn, id).await, 1);

    let html = page(&browser, &console).await;
    let key = form_key(&html, "-lineup-a");
    let fields = [
        ("team", "a"),
        ("player1", players[0].as_str()),
        ("player2", players[1].as_str()),
        ("idempotency_key", key.as_str()),
    ];
    post_twice(&n, &browser, id, &format!("{console}/lineup"), &fields).await;
    assert_eq!(audited(&n.app, Action::Lineup, id).await, 1);

    let html = page(&browser, &console).await;
    let key = form_key(&html, "-start");
    post_twice(
        &n,
        &browser,
        id,
        &format!("{console}/start"),
        &[("idempotency_key", &key)],
    )
    .await;
    assert_eq!(audited(&n.app, Action::Start, id).await, 1);

    // In play: a correction (from its edit page), then time called.
    n.admin
        .enter_hand(
            &json_with_status(
                n.admin.get(&format!("/api/v1/matches/{id}")).await,
                200,
                "m",
            )
            .await,
            &even_hand(),
        )
        .await;
    let edit = page(&browser, &format!("{console}/hands/1/edit")).await;
    let key = form_key(&edit, "");
    let v = version(&n, id).await.to_string();
    let mut fields = vec![
        ("expected_version", v.as_str()),
        ("idempotency_key", key.as_str()),
        ("reason", "seat 1 took 5"),
    ];
    for (name, value) in [
        ("a_bid0", "4"),
        ("a_tricks0", "5"),
        ("b_bid0", "3"),
        ("b_tricks0", "2"),
        ("a_bid1", "3"),
        ("a_tricks1", "3"),
        ("b_bid1", "3"),
        ("b_tricks1", "3"),
    ] {
        fields.push((name, value));
    }
    post_twice(&n, &browser, id, &format!("{console}/hands/1"), &fields).await;
    assert_eq!(audited(&n.app, Action::Correct, id).await, 1);

    let html = page(&browser, &console).await;
    let key = form_key(&html, "-time");
    let v = version(&n, id).await.to_string();
    let fields = [
        ("expected_version", v.as_str()),
        ("confirm", "1"),
        ("idempotency_key", key.as_str()),
    ];
    post_twice(&n, &browser, id, &format!("{console}/time"), &fields).await;
    assert_eq!(audited(&n.app, Action::Time, id).await, 1);

    // A forfeit from its confirmation page, then the ratings.
    let confirm = page(&browser, &format!("{console}/forfeit?team=a")).await;
    let key = form_key(&confirm, "");
    let v = version(&n, id).await.to_string();
    let fields = [
        ("team", "a"),
        ("confirm", "1"),
        ("expected_version", v.as_str()),
        ("idempotency_key", key.as_str()),
    ];
    post_twice(&n, &browser, id, &format!("{console}/forfeit"), &fields).await;
    assert_eq!(audited(&n.app, Action::Forfeit, id).await, 1);

    let html = page(&browser, &console).await;
    let key = form_key(&html, "-ratings");
    let fields = [
        ("a", "3"),
        ("b", "4"),
        ("note", ""),
        ("idempotency_key", key.as_str()),
    ];
    post_twice(
        &n,
        &browser,
        id,
        &format!("{console}/sportsmanship"),
        &fields,
    )
    .await;
    assert_eq!(audited(&n.app, Action::Rate, id).await, 1);
}

#[actix_web::test]
async fn a_start_is_sent_with_no_body_null_or_a_key() {
    let n = night(spawn_app().await).await;
    for body in [None, Some("null"), Some("{}")] {
        let id = Action::Start.ready(&n).await;
        let mut request = n
            .app
            .client
            .post(n.app.url(&format!("/api/v1/matches/{id}/start")))
            .bearer_auth(&n.admin.token);
        if let Some(body) = body {
            request = request
                .header("content-type", "application/json")
                .body(body);
        }
        let r = request.send().await.unwrap();
        assert_eq!(r.status(), 200, "{body:?}: {}", r.text().await.unwrap());
    }
    // A body that is neither: refused as the API refuses a wrong shape.
    let id = Action::Start.ready(&n).await;
    let r = n
        .admin
        .post(&format!("/api/v1/matches/{id}/start"), &json!({"key": "k"}))
        .await;
    expect_error(r, 422, "invalid_request").await;
}
