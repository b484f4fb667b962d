//! The JSON API of league night (docs/api.md §6–§7) over real HTTP: every
//! route's happy path, its refusals (anonymous, bad or revoked token, cross-site, wrong
//! role, wrong league, stale version, duplicate submission), bad JSON
//! inputs, forfeits, corrections, time calls, and the demo season.
//!
//! "Nothing written" is checked on the database itself: every row of every table
//! ([`crate::helpers::Tables`]), read before and after each refusal, must be the same.
//!
//! Refusals tested per write route (`refusals_route_by_route`, `revoked_token_is_refused`,
//! `stale_version_is_a_conflict_and_writes_nothing`):
//!
//! | route                                  | anon | bad token | revoked | cross-site | wrong role | wrong league | stale |
//! |----------------------------------------|------|-----------|---------|------------|------------|--------------|-------|
//! | POST /api/v1/leagues                   | 401  | 401       | 401     | 403        | 403        |              |       |
//! | POST /api/v1/leagues/{slug}/teams      | 401  | 401       | 401     | 403        | 403        |              |       |
//! | POST /api/v1/leagues/{slug}/supervisors| 401  | 401       | 401     | 403        | 403        |              |       |
//! | POST /api/v1/leagues/{slug}/schedule   | 401  | 401       | 401     | 403        | 403        |              |       |
//! | POST /api/v1/leagues/{slug}/matches    | 401  | 401       | 401     | 403        | 403        |              |       |
//! | POST /api/v1/matches/{id}/start        | 401  | 401       | 401     | 403        |            | 404          |       |
//! | POST /api/v1/matches/{id}/hands        | 401  | 401       | 401     | 403        |            | 404          | 409   |
//! | PUT  /api/v1/matches/{id}/hands/{n}    | 401  | 401       | 401     | 403        |            | 404          | 409   |
//! | POST /api/v1/matches/{id}/time         | 401  | 401       | 401     | 403        |            | 404          | 409   |
//! | POST /api/v1/matches/{id}/forfeit      | 401  | 401       | 401     | 403        |            | 404          | 409   |
//!
//! 10 write routes: 10 × 4 (anonymous, bad token, revoked token, cross-site `Origin`) + 10
//! cross-site `Sec-Fetch-Site` + 5 wrong role + 5 wrong league + 4 stale versions = 64
//! refusals, each checked to write nothing; then the same 10 requests from the right user
//! (with this site's `Origin`) succeed. Plus: the duplicate idempotency key (3 sends, one
//! hand), 404 on the 5
//! read routes that name a league or match that does not exist and on a correction of a hand
//! that does not exist, and the state refusals: a second start, a second round robin, a
//! forfeit / hand / start on a forfeited match, a hand or time call after the game ended by
//! time, time called under rules without a time limit.
//!
//! The bad JSON inputs are tabled in `bad_inputs_are_refused_and_write_nothing`.

use serde_json::{Value, json};
use spades_im::db::users;
use spades_im::service::{Role, people::accounts};

use crate::helpers::{Api, PASSWORD, TestApp, spawn_app};

/// A league night: an admin, a supervisor assigned to "fall" (unc-im-300: 30-minute limit,
/// minimum team bid 4) and an outsider assigned only to "spring" (classic: no time limit).
struct Night {
    app: TestApp,
    admin: Api,
    sup: Api,
    outsider: Api,
    teams: Vec<i64>,
    spring_teams: Vec<i64>,
}

async fn night() -> Night {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let sup = app.api_user("sup", Role::Supervisor).await;
    let outsider = app.api_user("outsider", Role::Supervisor).await;
    let teams = app.league(&admin, "fall", json!("unc-im-300"), 4).await;
    let spring_teams = app.league(&admin, "spring", json!("classic"), 2).await;
    for (slug, who) in [("fall", "sup"), ("spring", "outsider")] {
        let r = admin
            .post(
                &format!("/api/v1/leagues/{slug}/supervisors"),
                &json!({"username": who}),
            )
            .await;
        assert_eq!(r.status(), 204, "assign {who} to {slug}");
    }
    Night {
        app,
        admin,
        sup,
        outsider,
        teams,
        spring_teams,
    }
}

impl Night {
    async fn new_match(&self, slug: &str, a: i64, b: i64) -> i64 {
        let r = self
            .admin
            .post(
                &format!("/api/v1/leagues/{slug}/matches"),
                &json!({"team_a": a, "team_b": b, "table": "Table 1"}),
            )
            .await;
        assert_eq!(r.status(), 201, "create match");
        r.json::<Value>().await.expect("match")["id"]
            .as_i64()
            .expect("id")
    }

    /// A started match of "fall" between teams `i` and `j`; returns its id and version.
    async fn started(&self, i: usize, j: usize) -> (i64, i64) {
        let id = self.new_match("fall", self.teams[i], self.teams[j]).await;
        let r = self
            .sup
            .post(&format!("/api/v1/matches/{id}/start"), &json!({}))
            .await;
        assert_eq!(r.status(), 200, "start");
        let m: Value = r.json().await.expect("match");
        (id, m["version"].as_i64().expect("version"))
    }

    async fn get_match(&self, id: i64) -> Value {
        let r = self.app.get(&format!("/api/v1/matches/{id}")).await;
        assert_eq!(r.status(), 200);
        r.json().await.expect("match")
    }

    /// Enters `hand` as the supervisor; returns the answer (201 expected).
    async fn enter(&self, id: i64, hand: &Value, version: i64) -> Value {
        let r = self
            .sup
            .post(
                &format!("/api/v1/matches/{id}/hands"),
                &json!({"hand": hand, "expected_version": version}),
            )
            .await;
        assert_eq!(r.status(), 201, "enter hand");
        r.json().await.expect("match")
    }

    async fn standings(&self, slug: &str) -> Vec<Value> {
        let r = self
            .app
            .get(&format!("/api/v1/leagues/{slug}/standings"))
            .await;
        assert_eq!(r.status(), 200);
        let body: Value = r.json().await.expect("standings");
        body["rows"].as_array().expect("rows").clone()
    }
}

/// A played hand: each team's two bids and two trick counts, in seat order.
fn hand(a_bids: [i64; 2], a_tricks: [i64; 2], b_bids: [i64; 2], b_tricks: [i64; 2]) -> Value {
    json!({"a": {"bids": a_bids, "tricks": a_tricks}, "b": {"bids": b_bids, "tricks": b_tricks}})
}

/// A: 7 bid, 8 taken → 71 (1 bag); B: 4 bid, 5 taken → 41 (1 bag).
fn hand1() -> Value {
    hand([4, 3], [4, 4], [2, 2], [3, 2])
}
/// A: 6 bid, 6 taken → 60; B: 7 bid, 7 taken → 70.
fn hand2() -> Value {
    hand([3, 3], [3, 3], [3, 4], [3, 4])
}
/// A: 4 bid, 4 taken → 40; B: 8 bid, 9 taken → 81.
fn hand3() -> Value {
    hand([2, 2], [2, 2], [4, 4], [5, 4])
}

/// Checks the error shape of docs/api.md §3.1 and status; returns the `error` object.
async fn refused(r: reqwest::Response, status: u16, code: &str, what: &str) -> Value {
    assert_eq!(r.status().as_u16(), status, "{what}: status");
    let body: Value = r
        .json()
        .await
        .unwrap_or_else(|e| panic!("{what}: error body is JSON: {e}"));
    let error = body["error"].clone();
    assert_eq!(error["code"], code, "{what}: code in {body}");
    assert!(
        error["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{what}: a message in {body}"
    );
    error
}

/// How a request is authenticated in the refusal table.
#[derive(Clone, Copy, Debug)]
enum Cred<'a> {
    Anonymous,
    Bearer(&'a str),
}

async fn send(
    app: &TestApp,
    cred: Cred<'_>,
    method: &str,
    path: &str,
    body: &str,
    headers: &[(&str, String)],
) -> reqwest::Response {
    let url = app.url(path);
    let client = reqwest::Client::new();
    let mut request = match method {
        "PUT" => client.put(url),
        _ => client.post(url),
    }
    .header("content-type", "application/json")
    .body(body.to_string());
    if let Cred::Bearer(token) = cred {
        request = request.bearer_auth(token);
    }
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    request.send().await.expect("request")
}

#[actix_web::test]
async fn every_route_happy_path() {
    let n = night().await;
    let app = &n.app;

    // Leagues: create (201, resolved rules per stage), list, show; unknown → 404.
    let r = n
        .admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Winter Ladder", "rules": {"regular": "unc-im-300", "final": "unc-im-500"}}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let league: Value = r.json().await.unwrap();
    assert_eq!(league["slug"], "winter-ladder");
    assert_eq!(league["rules"]["regular"]["target"], 300);
    assert_eq!(league["rules"]["playoff"]["target"], 300);
    assert_eq!(league["rules"]["final"]["target"], 500);
    let all: Value = app.get("/api/v1/leagues").await.json().await.unwrap();
    assert_eq!(all["leagues"].as_array().unwrap().len(), 3);
    let shown: Value = app
        .get("/api/v1/leagues/winter-ladder")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(shown["name"], "Winter Ladder");
    // Reads are public, and the same with a token.
    let with_token: Value = n
        .admin
        .get("/api/v1/leagues/winter-ladder")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(with_token, shown);
    refused(
        app.get("/api/v1/leagues/nope").await,
        404,
        "not_found",
        "unknown league",
    )
    .await;

    // Teams: add (201 with id and players), list.
    let r = n
        .admin
        .post(
            "/api/v1/leagues/winter-ladder/teams",
            &json!({"name": "Aces", "players": ["Ann", "Bo"]}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let team: Value = r.json().await.unwrap();
    assert_eq!(team["players"], json!(["Ann", "Bo"]));
    for (name, players) in [("Kings", ["Cy", "Di"]), ("Queens", ["Ed", "Flo"])] {
        let r = n
            .admin
            .post(
                "/api/v1/leagues/winter-ladder/teams",
                &json!({"name": name, "players": players}),
            )
            .await;
        assert_eq!(r.status(), 201);
    }
    let teams: Value = app
        .get("/api/v1/leagues/winter-ladder/teams")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(teams["teams"].as_array().unwrap().len(), 3);
    refused(
        app.get("/api/v1/leagues/nope/teams").await,
        404,
        "not_found",
        "teams of unknown league",
    )
    .await;

    // Supervisors: 204; the supervisor may then start a match of that league.
    let r = n
        .admin
        .post(
            "/api/v1/leagues/winter-ladder/supervisors",
            &json!({"username": "sup"}),
        )
        .await;
    assert_eq!(r.status(), 204);

    // Schedule: a round robin of 3 teams is 3 matches over 3 rounds (a bye each round).
    let r = n
        .admin
        .post(
            "/api/v1/leagues/winter-ladder/schedule",
            &json!({"format": "round_robin", "start_date": "2026-12-01", "time": "18:30"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let schedule: Value = r.json().await.unwrap();
    let scheduled = schedule["matches"].as_array().unwrap();
    assert_eq!(scheduled.len(), 3);
    assert_eq!(scheduled[0]["scheduled_at"], "2026-12-01T18:30");
    assert!(scheduled.iter().all(|m| m["status"] == "scheduled"));
    // A second round robin is refused.
    refused(
        n.admin
            .post(
                "/api/v1/leagues/winter-ladder/schedule",
                &json!({"format": "round_robin"}),
            )
            .await,
        409,
        "schedule_exists",
        "second schedule",
    )
    .await;

    // Single match: 201 with teams, table and time.
    let r = n
        .admin
        .post(
            "/api/v1/leagues/fall/matches",
            &json!({"team_a": n.teams[0], "team_b": n.teams[1], "stage": "playoff",
                    "table": "Court 3", "scheduled_at": "2026-12-02T19:00"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let m: Value = r.json().await.unwrap();
    let id = m["id"].as_i64().unwrap();
    assert_eq!(m["stage"], "playoff");
    assert_eq!(m["table"], "Court 3");
    assert_eq!(m["scheduled_at"], "2026-12-02T19:00");
    assert_eq!(m["status"], "scheduled");
    assert_eq!(m["team_a"]["id"], n.teams[0]);
    let listed: Value = app
        .get("/api/v1/leagues/fall/matches")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed["matches"].as_array().unwrap().len(), 1);
    assert_eq!(n.get_match(id).await["id"], id);
    refused(
        app.get("/api/v1/matches/99999").await,
        404,
        "not_found",
        "unknown match",
    )
    .await;

    // Start: 200, started_at set, rules frozen, version bumped.
    let r = n
        .sup
        .post(&format!("/api/v1/matches/{id}/start"), &json!({}))
        .await;
    assert_eq!(r.status(), 200);
    let m: Value = r.json().await.unwrap();
    assert_eq!(m["status"], "in_progress");
    assert!(m["started_at"].is_string());
    assert_eq!(m["rules"]["target"], 300);
    assert!(m["ends_at"].is_string(), "unc-im-300 has a 30-minute limit");
    refused(
        n.sup
            .post(&format!("/api/v1/matches/{id}/start"), &json!({}))
            .await,
        409,
        "not_scheduled",
        "second start",
    )
    .await;

    // Hands: 201 with the breakdown.
    let v = m["version"].as_i64().unwrap();
    let m = n.enter(id, &hand1(), v).await;
    assert_eq!(m["hands"][0]["a"]["points"], 71);
    assert_eq!(m["hands"][0]["b"]["points"], 41);
    assert_eq!(m["hands"][0]["revision"], 1);
    assert!(m["hands"][0]["recorded_at"].is_string());
    assert_eq!(m["a"], json!({"score": 71, "bags": 1}));
    assert_eq!(m["version"], v + 1);

    // Correction: 200, revision 2.
    let r = n
        .sup
        .put(
            &format!("/api/v1/matches/{id}/hands/1"),
            &json!({"hand": hand2(), "reason": "bids swapped", "expected_version": v + 1}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let m: Value = r.json().await.unwrap();
    assert_eq!(m["hands"][0]["revision"], 2);
    assert_eq!(m["a"]["score"], 60);
    // A hand that does not exist: 404.
    refused(
        n.sup
            .put(
                &format!("/api/v1/matches/{id}/hands/5"),
                &json!({"hand": hand2(), "reason": "typo", "expected_version": v + 2}),
            )
            .await,
        404,
        "not_found",
        "correct hand 5 of 1",
    )
    .await;

    // Time: 200 with time_called_at.
    let r = n
        .sup
        .post(
            &format!("/api/v1/matches/{id}/time"),
            &json!({"expected_version": v + 2}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let m: Value = r.json().await.unwrap();
    assert!(m["time_called_at"].is_string());

    // Forfeit: 200.
    let r = n
        .sup
        .post(
            &format!("/api/v1/matches/{id}/forfeit"),
            &json!({"team": "b"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let m: Value = r.json().await.unwrap();
    assert_eq!(m["status"], "forfeit");
    assert_eq!(m["winner"], "a");

    // Standings: 200 with one row per team (the playoff match does not count).
    let rows = n.standings("fall").await;
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().all(|r| r["played"] == 0));
    for key in [
        "rank",
        "team_id",
        "team",
        "played",
        "won",
        "lost",
        "tied",
        "forfeits",
        "win_pct",
        "points_for",
        "points_against",
        "differential",
    ] {
        assert!(rows[0].get(key).is_some(), "standing has {key}");
    }
    refused(
        app.get("/api/v1/leagues/nope/standings").await,
        404,
        "not_found",
        "standings of unknown",
    )
    .await;
    refused(
        app.get("/api/v1/leagues/nope/matches").await,
        404,
        "not_found",
        "matches of unknown",
    )
    .await;
}

/// The write routes with a body that succeeds for the right user.
struct Route {
    method: &'static str,
    path: String,
    body: String,
    admin_only: bool,
}

async fn write_routes(n: &Night) -> (Vec<Route>, i64, i64) {
    // A scheduled match to start, a started one with a hand to write to.
    let to_start = n.new_match("fall", n.teams[2], n.teams[3]).await;
    let (live, v) = n.started(0, 1).await;
    let m = n.enter(live, &hand1(), v).await;
    let v = m["version"].as_i64().unwrap();
    let route = |method, path: String, body: Value, admin_only| Route {
        method,
        path,
        body: body.to_string(),
        admin_only,
    };
    let routes = vec![
        route(
            "POST",
            "/api/v1/leagues".into(),
            json!({"name": "New League", "rules": {"regular": "classic"}}),
            true,
        ),
        route(
            "POST",
            "/api/v1/leagues/fall/teams".into(),
            json!({"name": "Team 9", "players": ["X", "Y"]}),
            true,
        ),
        route(
            "POST",
            "/api/v1/leagues/fall/supervisors".into(),
            json!({"username": "outsider"}),
            true,
        ),
        route(
            "POST",
            "/api/v1/leagues/spring/schedule".into(),
            json!({"format": "round_robin"}),
            true,
        ),
        route(
            "POST",
            "/api/v1/leagues/fall/matches".into(),
            json!({"team_a": n.teams[0], "team_b": n.teams[2]}),
            true,
        ),
        route(
            "POST",
            format!("/api/v1/matches/{to_start}/start"),
            json!({}),
            false,
        ),
        route(
            "POST",
            format!("/api/v1/matches/{live}/hands"),
            json!({"hand": hand2(), "expected_version": v, "idempotency_key": "r-1"}),
            false,
        ),
        route(
            "PUT",
            format!("/api/v1/matches/{live}/hands/1"),
            json!({"hand": hand3(), "reason": "misread", "expected_version": v}),
            false,
        ),
        route(
            "POST",
            format!("/api/v1/matches/{live}/time"),
            json!({"expected_version": v}),
            false,
        ),
        route(
            "POST",
            format!("/api/v1/matches/{live}/forfeit"),
            json!({"team": "a", "expected_version": v}),
            false,
        ),
    ];
    (routes, live, v)
}

#[actix_web::test]
async fn refusals_route_by_route() {
    let n = night().await;
    let app = &n.app;
    let (routes, _, _) = write_routes(&n).await;
    let before = app.tables().await;
    let mut refusals = 0;
    let evil = [("origin", "https://evil.example".to_string())];
    let cross = [("sec-fetch-site", "cross-site".to_string())];
    for r in &routes {
        let what = format!("{} {}", r.method, r.path);
        let (m, p, b) = (r.method, r.path.as_str(), r.body.as_str());
        refused(
            send(app, Cred::Anonymous, m, p, b, &[]).await,
            401,
            "unauthorized",
            &format!("{what} anonymous"),
        )
        .await;
        refused(
            send(app, Cred::Bearer("spim_not_a_token"), m, p, b, &[]).await,
            401,
            "unauthorized",
            &format!("{what} bad token"),
        )
        .await;
        refused(
            send(app, Cred::Bearer(&n.admin.token), m, p, b, &evil).await,
            403,
            "forbidden",
            &format!("{what} cross-site Origin"),
        )
        .await;
        refused(
            send(app, Cred::Bearer(&n.admin.token), m, p, b, &cross).await,
            403,
            "forbidden",
            &format!("{what} Sec-Fetch-Site: cross-site"),
        )
        .await;
        refusals += 4;
        if r.admin_only {
            refused(
                send(app, Cred::Bearer(&n.sup.token), m, p, b, &[]).await,
                403,
                "forbidden",
                &format!("{what} as a supervisor"),
            )
            .await;
        } else {
            refused(
                send(app, Cred::Bearer(&n.outsider.token), m, p, b, &[]).await,
                404,
                "not_found",
                &format!("{what} as a supervisor of another league"),
            )
            .await;
        }
        refusals += 1;
        app.assert_nothing_written(&before, format_args!("{what}: nothing written"))
            .await;
    }
    assert_eq!(refusals, 50);

    // The same requests from the right user, with this site's Origin, succeed. Each match
    // route bumps the version, so the later ones are sent with the version of then.
    let origin = [("origin", app.address.clone())];
    let mut version = None;
    for r in &routes {
        let token = if r.admin_only {
            &n.admin.token
        } else {
            &n.sup.token
        };
        let mut body: Value = serde_json::from_str(&r.body).unwrap();
        if let (Some(v), Some(slot)) = (version, body.get_mut("expected_version")) {
            *slot = json!(v);
        }
        let response = send(
            app,
            Cred::Bearer(token),
            r.method,
            &r.path,
            &body.to_string(),
            &origin,
        )
        .await;
        let status = response.status().as_u16();
        let answer: Value = if status == 204 {
            Value::Null
        } else {
            response.json().await.unwrap()
        };
        assert!(
            [200, 201, 204].contains(&status),
            "{} {} by the right user: {status} {answer}",
            r.method,
            r.path
        );
        if r.path.contains("/hands") || r.path.ends_with("/time") {
            version = answer["version"].as_i64();
        }
    }
    assert_ne!(app.tables().await, before);
}

#[actix_web::test]
async fn revoked_token_is_refused() {
    let n = night().await;
    let app = &n.app;
    let (routes, live, _) = write_routes(&n).await;
    // A second token of the supervisor, working before it is revoked (a refused forfeit
    // for team "c" gets past authentication to the 422).
    let token = app.token("sup").await;
    refused(
        send(
            app,
            Cred::Bearer(&token),
            "POST",
            &format!("/api/v1/matches/{live}/forfeit"),
            r#"{"team": "c"}"#,
            &[],
        )
        .await,
        422,
        "invalid_forfeit",
        "the new token works",
    )
    .await;
    // Revoked on the account page.
    let token_id = {
        let mut conn = app.db.read().await.unwrap();
        let user = users::by_name(&mut conn, "sup").await.unwrap().unwrap();
        users::tokens_of(&mut conn, user.id).await.unwrap()[0].id
    };
    let browser = app.browser("sup").await;
    let r = browser
        .post_form(&format!("/account/tokens/{token_id}/revoke"), &[])
        .await;
    assert_eq!(r.status(), 200, "revoke on the account page");
    let before = app.tables().await;
    for r in &routes {
        refused(
            send(app, Cred::Bearer(&token), r.method, &r.path, &r.body, &[]).await,
            401,
            "unauthorized",
            &format!("{} {} with a revoked token", r.method, r.path),
        )
        .await;
    }
    app.assert_nothing_written(&before, "nothing written").await;
}

#[actix_web::test]
async fn stale_version_is_a_conflict_and_writes_nothing() {
    let n = night().await;
    let app = &n.app;
    let (id, v0) = n.started(0, 1).await;
    let m = n.enter(id, &hand1(), v0).await;
    let v1 = m["version"].as_i64().unwrap();
    assert_eq!(v1, v0 + 1);
    let before = app.tables().await;
    let stale: [(&str, String, Value); 4] = [
        (
            "POST",
            format!("/api/v1/matches/{id}/hands"),
            json!({"hand": hand2(), "expected_version": v0, "idempotency_key": "other-tablet"}),
        ),
        (
            "PUT",
            format!("/api/v1/matches/{id}/hands/1"),
            json!({"hand": hand2(), "reason": "typo", "expected_version": v0}),
        ),
        (
            "POST",
            format!("/api/v1/matches/{id}/time"),
            json!({"expected_version": v0}),
        ),
        (
            "POST",
            format!("/api/v1/matches/{id}/forfeit"),
            json!({"team": "both", "expected_version": v0}),
        ),
    ];
    for (method, path, body) in &stale {
        let error = refused(
            send(
                app,
                Cred::Bearer(&n.sup.token),
                method,
                path,
                &body.to_string(),
                &[],
            )
            .await,
            409,
            "version_conflict",
            &format!("{method} {path} with version {v0}"),
        )
        .await;
        assert!(
            error["message"].as_str().unwrap().contains(&v1.to_string()),
            "the conflict names the current version: {error}"
        );
        app.assert_nothing_written(&before, format_args!("{method} {path}: nothing written"))
            .await;
    }
    let m = n.get_match(id).await;
    assert_eq!(m["version"], v1);
    assert_eq!(m["hands"].as_array().unwrap().len(), 1);
    assert_eq!(m["a"]["score"], 71);
}

#[actix_web::test]
async fn duplicate_idempotency_key_records_once() {
    let n = night().await;
    let app = &n.app;
    let (id, v) = n.started(0, 1).await;
    let path = format!("/api/v1/matches/{id}/hands");
    let body = json!({"hand": hand1(), "expected_version": v, "idempotency_key": "table-1-hand-1"});
    let first = n.sup.post(&path, &body).await;
    assert_eq!(first.status(), 201);
    let first: Value = first.json().await.unwrap();
    let after_first = app.tables().await;

    // The double tap: the same body again.
    let again = n.sup.post(&path, &body).await;
    assert_eq!(again.status(), 201);
    assert_eq!(
        again
            .headers()
            .get("idempotent-replay")
            .map(|v| v.to_str().unwrap()),
        Some("true")
    );
    let again: Value = again.json().await.unwrap();
    assert_eq!(again, first, "the first answer, as it was");
    app.assert_nothing_written(&after_first, "nothing new recorded")
        .await;

    // The same key with another hand (and a version now stale) is refused, not answered with
    // the first hand: the client must not believe this hand was recorded.
    let retry = n
        .sup
        .post(
            &path,
            &json!({"hand": hand2(), "expected_version": v, "idempotency_key": "table-1-hand-1"}),
        )
        .await;
    refused(
        retry,
        422,
        "idempotency_key_reused",
        "the key with another hand",
    )
    .await;
    app.assert_nothing_written(&after_first, "nothing written")
        .await;

    let m = n.get_match(id).await;
    assert_eq!(m["hands"].as_array().unwrap().len(), 1);
    assert_eq!(m["version"], first["version"]);
    let mut conn = app.db.read().await.unwrap();
    let hands: i64 = spades_im::on_store!(conn, |c| sqlx::query_scalar(
        "SELECT count(*) FROM hands WHERE match_id = $1"
    )
    .bind(id)
    .fetch_one(c)
    .await)
    .unwrap();
    assert_eq!(hands, 1);

    // The same key on another match is another hand.
    let (other, v2) = n.started(2, 3).await;
    let r = n
        .sup
        .post(
            &format!("/api/v1/matches/{other}/hands"),
            &json!({"hand": hand1(), "expected_version": v2, "idempotency_key": "table-1-hand-1"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    assert!(r.headers().get("idempotent-replay").is_none());
}

#[actix_web::test]
async fn forfeits_one_team_and_both_count_in_standings() {
    let n = night().await;
    let app = &n.app;
    let [t1, t2, t3, t4] = [n.teams[0], n.teams[1], n.teams[2], n.teams[3]];
    // t1 v t2 started with a hand in, then t1 (team a) forfeits: t2 wins.
    let (m1, v) = n.started(0, 1).await;
    n.enter(m1, &hand1(), v).await;
    let r = n
        .sup
        .post(
            &format!("/api/v1/matches/{m1}/forfeit"),
            &json!({"team": "a"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let m: Value = r.json().await.unwrap();
    assert_eq!(m["status"], "forfeit");
    assert_eq!(m["forfeit"], "a");
    assert_eq!(m["winner"], "b");
    assert_eq!(m["reason"], "forfeit");
    // t3 v t4 not even started: both forfeit, both lose.
    let m2 = n.new_match("fall", t3, t4).await;
    let r = n
        .sup
        .post(
            &format!("/api/v1/matches/{m2}/forfeit"),
            &json!({"team": "both"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let m: Value = r.json().await.unwrap();
    assert_eq!(m["forfeit"], "both");
    assert_eq!(m["winner"], Value::Null);

    // A closed match takes no second forfeit, no hand, no start, no time call.
    let before = app.tables().await;
    refused(
        n.sup
            .post(
                &format!("/api/v1/matches/{m1}/forfeit"),
                &json!({"team": "b"}),
            )
            .await,
        409,
        "match_closed",
        "second forfeit",
    )
    .await;
    let v = n.get_match(m1).await["version"].as_i64().unwrap();
    refused(
        n.sup
            .post(
                &format!("/api/v1/matches/{m1}/hands"),
                &json!({"hand": hand2(), "expected_version": v}),
            )
            .await,
        422,
        "game_over",
        "hand after a forfeit",
    )
    .await;
    refused(
        n.sup
            .post(&format!("/api/v1/matches/{m2}/start"), &json!({}))
            .await,
        409,
        "not_scheduled",
        "start after a forfeit",
    )
    .await;
    app.assert_nothing_written(&before, "nothing written").await;

    let rows = n.standings("fall").await;
    let row = |id: i64| rows.iter().find(|r| r["team_id"] == id).unwrap().clone();
    let (r1, r2, r3, r4) = (row(t1), row(t2), row(t3), row(t4));
    assert_eq!(
        (&r1["played"], &r1["won"], &r1["lost"], &r1["forfeits"]),
        (&json!(1), &json!(0), &json!(1), &json!(1))
    );
    assert_eq!(
        (&r2["played"], &r2["won"], &r2["lost"], &r2["forfeits"]),
        (&json!(1), &json!(1), &json!(0), &json!(0))
    );
    for r in [&r3, &r4] {
        assert_eq!(
            (&r["played"], &r["won"], &r["lost"], &r["forfeits"]),
            (&json!(1), &json!(0), &json!(1), &json!(1))
        );
    }
    // A forfeit counts no points, even with a hand in.
    assert_eq!(r1["points_for"], 0);
    assert_eq!(r2["points_for"], 0);
    assert_eq!(r2["win_pct"], 1.0);
    assert_eq!(rows[0]["team_id"], t2, "the winner by forfeit leads");
}

#[actix_web::test]
async fn correction_keeps_history_and_rescores_later_hands() {
    let n = night().await;
    let app = &n.app;
    let (id, mut v) = n.started(0, 1).await;
    for h in [hand1(), hand2(), hand3()] {
        v = n.enter(id, &h, v).await["version"].as_i64().unwrap();
    }
    let m = n.get_match(id).await;
    assert_eq!(m["a"], json!({"score": 171, "bags": 1}));
    assert_eq!(m["b"], json!({"score": 192, "bags": 2}));
    assert_eq!(m["hands"][1]["a"]["score"], 131);

    // A reason is required: missing (422 invalid_request), blank (422 invalid_correction).
    let before = app.tables().await;
    let path = format!("/api/v1/matches/{id}/hands/1");
    let corrected = hand([4, 3], [3, 3], [2, 2], [4, 3]);
    refused(
        n.sup
            .put(&path, &json!({"hand": corrected, "expected_version": v}))
            .await,
        422,
        "invalid_request",
        "no reason",
    )
    .await;
    let e = refused(
        n.sup
            .put(
                &path,
                &json!({"hand": corrected, "reason": "   ", "expected_version": v}),
            )
            .await,
        422,
        "invalid_correction",
        "blank reason",
    )
    .await;
    assert_eq!(e["field"], "reason");
    app.assert_nothing_written(&before, "nothing written").await;

    // Hand 1 was A 6 taken (set: −70) and B 7 taken (40 + 3 bags).
    let r = n
        .sup
        .put(
            &path,
            &json!({"hand": corrected, "reason": "tricks misread at table 1", "expected_version": v}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let m: Value = r.json().await.unwrap();
    assert_eq!(m["version"], v + 1);
    let h1 = &m["hands"][0];
    assert_eq!(h1["revision"], 2);
    assert_eq!(h1["reason"], "tricks misread at table 1");
    assert_eq!(h1["a"]["points"], -70);
    assert_eq!(h1["b"]["points"], 43);
    // Later hands rescored from the new first hand; their own revision unchanged.
    assert_eq!(m["hands"][1]["revision"], 1);
    assert_eq!(m["hands"][1]["a"]["score"], -10);
    assert_eq!(m["hands"][1]["b"]["score"], 113);
    assert_eq!(m["hands"][2]["b"]["bags"], 4);
    assert_eq!(m["a"], json!({"score": 30, "bags": 0}));
    assert_eq!(m["b"], json!({"score": 194, "bags": 4}));
    assert_eq!(m["hands"].as_array().unwrap().len(), 3);

    // The old revision is still there, and the audit row has the reason.
    let mut conn = app.db.read().await.unwrap();
    let history =
        spades_im::service::night::match_view::history(&mut conn, spades_im::domain::MatchId(id))
            .await
            .unwrap();
    let first: Vec<_> = history.iter().filter(|h| h.number == 1).collect();
    assert_eq!(first.len(), 2);
    assert_eq!(first[0].revision, 1);
    assert_eq!(
        serde_json::from_str::<Value>(&first[0].hand).unwrap(),
        hand1()
    );
    assert_eq!(first[1].revision, 2);
    assert_eq!(
        first[1].reason.as_deref(),
        Some("tricks misread at table 1")
    );
    let reason: Option<String> = spades_im::on_store!(conn, |c| sqlx::query_scalar(
        "SELECT reason FROM audit_log WHERE action = 'correct_hand' AND entity_id = $1",
    )
    .bind(id)
    .fetch_one(c)
    .await)
    .unwrap();
    assert_eq!(reason.as_deref(), Some("tricks misread at table 1"));
    drop(conn);
    // The standings do not count a match in progress.
    assert!(n.standings("fall").await.iter().all(|r| r["played"] == 0));
}

#[actix_web::test]
async fn time_call_ends_the_game_after_the_next_hand() {
    let n = night().await;
    let app = &n.app;
    let (id, v) = n.started(0, 1).await;
    let m = n.enter(id, &hand1(), v).await;
    let v = m["version"].as_i64().unwrap();
    let r = n
        .sup
        .post(
            &format!("/api/v1/matches/{id}/time"),
            &json!({"expected_version": v}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let m: Value = r.json().await.unwrap();
    assert!(m["time_called_at"].is_string());
    assert_eq!(m["status"], "in_progress");
    assert_eq!(m["version"], v + 1);
    // The next hand is the time-called one (the supervisor did not mark it): A 131, B 111.
    let m = n.enter(id, &hand2(), v + 1).await;
    assert_eq!(m["hands"][1]["time_called"], true);
    assert_eq!(m["hands"][1]["hand"]["time_called"], true);
    assert_eq!(m["hands"][0]["time_called"], false);
    assert_eq!(m["status"], "complete");
    assert_eq!(m["game_status"], "won");
    assert_eq!(m["reason"], "time");
    assert_eq!(m["winner"], "a");
    assert_eq!(m["a"]["score"], 131);
    assert_eq!(m["b"]["score"], 111);
    // Correcting the time-called hand without sending the mark again keeps it the
    // time-called one, and the game stays ended by time: A's tricks fixed from 6 to 5
    // (set: −60, so A 11), B's from 7 to 8 (70 + 1 bag, so B 112): B wins on time.
    let v = m["version"].as_i64().unwrap();
    let r = n
        .sup
        .put(
            &format!("/api/v1/matches/{id}/hands/2"),
            &json!({"hand": hand([3, 3], [3, 2], [3, 4], [4, 4]), "reason": "tricks miscounted",
                    "expected_version": v}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let m: Value = r.json().await.unwrap();
    assert_eq!(m["hands"][1]["time_called"], true);
    assert_eq!(m["hands"][1]["revision"], 2);
    assert_eq!(m["status"], "complete");
    assert_eq!(m["reason"], "time");
    assert_eq!(m["a"]["score"], 11);
    assert_eq!(m["b"]["score"], 112);
    assert_eq!(m["winner"], "b");
    // And back as it was, so the standings below see A win 131 to 111.
    let v = m["version"].as_i64().unwrap();
    let r = n
        .sup
        .put(
            &format!("/api/v1/matches/{id}/hands/2"),
            &json!({"hand": hand2(), "reason": "first count was right", "expected_version": v}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let m: Value = r.json().await.unwrap();
    assert_eq!(m["winner"], "a");
    assert_eq!(m["hands"][1]["revision"], 3);

    // Over: no more hands, no second time call.
    let before = app.tables().await;
    let v = m["version"].as_i64().unwrap();
    refused(
        n.sup
            .post(
                &format!("/api/v1/matches/{id}/hands"),
                &json!({"hand": hand3(), "expected_version": v}),
            )
            .await,
        422,
        "game_over",
        "hand after time",
    )
    .await;
    refused(
        n.sup
            .post(
                &format!("/api/v1/matches/{id}/time"),
                &json!({"expected_version": v}),
            )
            .await,
        409,
        "not_in_progress",
        "time after the end",
    )
    .await;
    app.assert_nothing_written(&before, "nothing written").await;
    // The standings count the win by time, with the points.
    let rows = n.standings("fall").await;
    let winner = rows.iter().find(|r| r["team_id"] == n.teams[0]).unwrap();
    assert_eq!(winner["won"], 1);
    assert_eq!(winner["points_for"], 131);
    assert_eq!(winner["points_against"], 111);
    assert_eq!(winner["differential"], 20);

    // Rules without a time limit (classic): time cannot be called.
    let spring = n
        .new_match("spring", n.spring_teams[0], n.spring_teams[1])
        .await;
    let r = n
        .outsider
        .post(&format!("/api/v1/matches/{spring}/start"), &json!({}))
        .await;
    assert_eq!(r.status(), 200);
    let v: i64 = r.json::<Value>().await.unwrap()["version"]
        .as_i64()
        .unwrap();
    let before = app.tables().await;
    refused(
        n.outsider
            .post(
                &format!("/api/v1/matches/{spring}/time"),
                &json!({"expected_version": v}),
            )
            .await,
        409,
        "no_time_limit",
        "time without a limit",
    )
    .await;
    app.assert_nothing_written(&before, "nothing written").await;
}

#[actix_web::test]
async fn cross_site_origin_is_refused_on_writes_only() {
    let n = night().await;
    let app = &n.app;
    let before = app.tables().await;
    let body = json!({"name": "Evil League", "rules": {"regular": "classic"}}).to_string();
    for headers in [
        vec![("origin", "https://evil.example".to_string())],
        vec![("origin", "null".to_string())],
        vec![("sec-fetch-site", "cross-site".to_string())],
        vec![("sec-fetch-site", "same-site".to_string())],
    ] {
        refused(
            send(
                app,
                Cred::Bearer(&n.admin.token),
                "POST",
                "/api/v1/leagues",
                &body,
                &headers,
            )
            .await,
            403,
            "forbidden",
            &format!("cross-site {headers:?}"),
        )
        .await;
    }
    app.assert_nothing_written(&before, "nothing written").await;
    // Reads from anywhere are fine.
    let r = reqwest::Client::new()
        .get(app.url("/api/v1/leagues"))
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    // This site's own Origin passes.
    let r = send(
        app,
        Cred::Bearer(&n.admin.token),
        "POST",
        "/api/v1/leagues",
        &body,
        &[
            ("origin", app.address.clone()),
            ("sec-fetch-site", "same-origin".into()),
        ],
    )
    .await;
    assert_eq!(r.status(), 201);
}

/// One bad request: where it goes, the raw body, the status, code and field it gets.
struct Bad {
    what: &'static str,
    method: &'static str,
    path: String,
    body: String,
    status: u16,
    code: &'static str,
    field: Option<&'static str>,
    /// The 1-based hand the error names.
    hand: Option<i64>,
}

/// | #  | route         | input                                             | status | code               |
/// |----|---------------|---------------------------------------------------|--------|--------------------|
/// | 1  | leagues       | not JSON (cut off)                                | 400    | malformed          |
/// | 2  | leagues       | empty body                                        | 400    | malformed          |
/// | 3  | leagues       | name is a number                                  | 422    | invalid_request    |
/// | 4  | leagues       | unknown field                                     | 422    | invalid_request    |
/// | 5  | leagues       | rules missing                                     | 422    | invalid_request    |
/// | 6  | leagues       | unknown preset                                    | 422    | invalid_rules      |
/// | 7  | leagues       | unknown rule field in overrides                   | 422    | invalid_rules      |
/// | 8  | leagues       | rule value out of range (bags.limit 0)            | 422    | invalid_rules      |
/// | 9  | leagues       | slug with spaces and capitals                     | 422    | invalid_league     |
/// | 10 | leagues       | blank name                                        | 422    | invalid_input      |
/// | 11 | leagues       | unknown tiebreak                                  | 422    | invalid_league     |
/// | 12 | leagues       | slug taken                                        | 409    | slug_taken         |
/// | 13 | teams         | one player                                        | 422    | invalid_team       |
/// | 14 | teams         | players is a string                               | 422    | invalid_request    |
/// | 15 | teams         | name already in the league                        | 422    | invalid_team       |
/// | 16 | teams         | blank player name                                 | 422    | invalid_input      |
/// | 17 | supervisors   | no such user                                      | 422    | invalid_user       |
/// | 18 | schedule      | unknown format                                    | 422    | invalid_schedule   |
/// | 19 | schedule      | bad start_date                                    | 422    | invalid_schedule   |
/// | 20 | matches       | team of another league                            | 422    | invalid_match      |
/// | 21 | matches       | team plays itself                                 | 422    | invalid_match      |
/// | 22 | matches       | bad scheduled_at                                  | 422    | invalid_match      |
/// | 23 | matches       | unknown stage                                     | 422    | invalid_request    |
/// | 24 | matches       | team_a is a string                                | 422    | invalid_request    |
/// | 25 | hands         | tricks sum to 12                                  | 422    | invalid_hand       |
/// | 26 | hands         | team bid under the minimum of 4                   | 422    | invalid_hand       |
/// | 27 | hands         | bid 14                                            | 422    | invalid_hand       |
/// | 28 | hands         | negative tricks                                   | 422    | invalid_hand       |
/// | 29 | hands         | three bids                                        | 422    | invalid_hand       |
/// | 30 | hands         | team b missing                                    | 422    | invalid_hand       |
/// | 31 | hands         | blind nil when not 100 behind                     | 422    | invalid_hand       |
/// | 32 | hands         | misdeal with bids                                 | 422    | invalid_hand       |
/// | 33 | hands         | 14 revokes                                        | 422    | invalid_hand       |
/// | 34 | hands         | bid "pass"                                        | 422    | invalid_hand       |
/// | 35 | hands         | bid true (wrong type)                             | 422    | invalid_request    |
/// | 36 | hands         | unknown field in the hand                         | 422    | invalid_request    |
/// | 37 | hands         | expected_version missing                          | 422    | invalid_request    |
/// | 38 | hands         | expected_version a string                         | 422    | invalid_request    |
/// | 39 | hands         | empty idempotency key                             | 422    | invalid_request    |
/// | 40 | hands         | hand is an array                                  | 422    | invalid_request    |
/// | 41 | hands         | to a match not started                            | 409    | not_started        |
/// | 42 | correction    | no reason                                         | 422    | invalid_request    |
/// | 43 | correction    | blank reason                                      | 422    | invalid_correction |
/// | 44 | correction    | invalid hand (tricks sum to 14)                   | 422    | invalid_hand       |
/// | 45 | time          | not JSON                                          | 400    | malformed          |
/// | 46 | time          | expected_version missing                          | 422    | invalid_request    |
/// | 47 | forfeit       | team "c"                                          | 422    | invalid_forfeit    |
/// | 48 | forfeit       | team missing                                      | 422    | invalid_request    |
///
/// 48 bad inputs, each answered in the error shape of docs/api.md §3.1 and leaving the database as it was.
#[actix_web::test]
async fn bad_inputs_are_refused_and_write_nothing() {
    let n = night().await;
    let app = &n.app;
    let (live, v0) = n.started(0, 1).await;
    let v = n.enter(live, &hand1(), v0).await["version"]
        .as_i64()
        .unwrap();
    let not_started = n.new_match("fall", n.teams[2], n.teams[3]).await;
    let (t1, t2, other) = (n.teams[0], n.teams[1], n.spring_teams[0]);
    let good_hand = hand2();
    let hand_body = |h: Value| json!({"hand": h, "expected_version": v}).to_string();
    let hands = format!("/api/v1/matches/{live}/hands");
    let bad = |what, method, path: &str, body: String, status, code, field| Bad {
        what,
        method,
        path: path.to_string(),
        body,
        status,
        code,
        field,
        hand: None,
    };
    let bad_hand = |what, h: Value, field| Bad {
        hand: Some(2),
        ..bad(
            what,
            "POST",
            &hands,
            hand_body(h),
            422,
            "invalid_hand",
            Some(field),
        )
    };
    let leagues = "/api/v1/leagues";
    let teams = "/api/v1/leagues/fall/teams";
    let matches = "/api/v1/leagues/fall/matches";
    let cases = vec![
        bad("not JSON", "POST", leagues, r#"{"name": "#.into(), 400, "malformed", None),
        bad("empty body", "POST", leagues, String::new(), 400, "malformed", None),
        bad(
            "name is a number",
            "POST",
            leagues,
            r#"{"name": 5, "rules": {"regular": "classic"}}"#.into(),
            422,
            "invalid_request",
            Some("name"),
        ),
        bad(
            "unknown field",
            "POST",
            leagues,
            r#"{"name": "X", "rules": {"regular": "classic"}, "colour": "red"}"#.into(),
            422,
            "invalid_request",
            None,
        ),
        bad(
            "rules missing",
            "POST",
            leagues,
            r#"{"name": "X"}"#.into(),
            422,
            "invalid_request",
            None,
        ),
        bad(
            "unknown preset",
            "POST",
            leagues,
            r#"{"name": "X", "rules": {"regular": "no-such-rules"}}"#.into(),
            422,
            "invalid_rules",
            Some("rules.regular.preset"),
        ),
        bad(
            "unknown rule field",
            "POST",
            leagues,
            r#"{"name": "X", "rules": {"regular": {"preset": "classic", "jokers": true}}}"#.into(),
            422,
            "invalid_rules",
            None,
        ),
        bad(
            "bags.limit 0",
            "POST",
            leagues,
            r#"{"name": "X", "rules": {"regular": "classic", "playoff": {"preset": "classic", "bags": {"limit": 0}}}}"#.into(),
            422,
            "invalid_rules",
            None,
        ),
        bad(
            "bad slug",
            "POST",
            leagues,
            r#"{"name": "X", "slug": "Fall League!", "rules": {"regular": "classic"}}"#.into(),
            422,
            "invalid_league",
            Some("slug"),
        ),
        bad(
            "blank name",
            "POST",
            leagues,
            r#"{"name": "   ", "rules": {"regular": "classic"}}"#.into(),
            422,
            "invalid_input",
            Some("name"),
        ),
        bad(
            "unknown tiebreak",
            "POST",
            leagues,
            r#"{"name": "X", "rules": {"regular": "classic"}, "tiebreak_order": ["coin_toss"]}"#
                .into(),
            422,
            "invalid_league",
            Some("tiebreak_order"),
        ),
        bad(
            "slug taken",
            "POST",
            leagues,
            r#"{"name": "Fall", "slug": "fall", "rules": {"regular": "classic"}}"#.into(),
            409,
            "slug_taken",
            None,
        ),
        bad(
            "one player",
            "POST",
            teams,
            r#"{"name": "Solo", "players": ["Han"]}"#.into(),
            422,
            "invalid_team",
            Some("players"),
        ),
        bad(
            "players a string",
            "POST",
            teams,
            r#"{"name": "Duo", "players": "Han, Leia"}"#.into(),
            422,
            "invalid_request",
            Some("players"),
        ),
        bad(
            "team name taken",
            "POST",
            teams,
            r#"{"name": "team 1", "players": ["A", "B"]}"#.into(),
            422,
            "invalid_team",
            Some("name"),
        ),
        bad(
            "blank player",
            "POST",
            teams,
            r#"{"name": "Duo", "players": ["Han", " "]}"#.into(),
            422,
            "invalid_input",
            Some("players"),
        ),
        bad(
            "no such user",
            "POST",
            "/api/v1/leagues/fall/supervisors",
            r#"{"username": "ghost"}"#.into(),
            422,
            "invalid_user",
            Some("username"),
        ),
        bad(
            "unknown format",
            "POST",
            "/api/v1/leagues/fall/schedule",
            r#"{"format": "swiss"}"#.into(),
            422,
            "invalid_schedule",
            Some("format"),
        ),
        bad(
            "bad start_date",
            "POST",
            "/api/v1/leagues/fall/schedule",
            r#"{"format": "round_robin", "start_date": "next tuesday"}"#.into(),
            422,
            "invalid_schedule",
            Some("start_date"),
        ),
        bad(
            "team of another league",
            "POST",
            matches,
            json!({"team_a": t1, "team_b": other}).to_string(),
            422,
            "invalid_match",
            Some("team_b"),
        ),
        bad(
            "team plays itself",
            "POST",
            matches,
            json!({"team_a": t1, "team_b": t1}).to_string(),
            422,
            "invalid_match",
            Some("team_b"),
        ),
        bad(
            "bad scheduled_at",
            "POST",
            matches,
            json!({"team_a": t1, "team_b": t2, "scheduled_at": "tomorrow 7pm"}).to_string(),
            422,
            "invalid_match",
            Some("scheduled_at"),
        ),
        bad(
            "unknown stage",
            "POST",
            matches,
            json!({"team_a": t1, "team_b": t2, "stage": "semifinal"}).to_string(),
            422,
            "invalid_request",
            Some("stage"),
        ),
        bad(
            "team_a a string",
            "POST",
            matches,
            json!({"team_a": "Team 1", "team_b": t2}).to_string(),
            422,
            "invalid_request",
            Some("team_a"),
        ),
        bad_hand(
            "tricks sum to 12",
            hand([4, 3], [4, 3], [2, 2], [3, 2]),
            "tricks",
        ),
        bad_hand(
            "team bid 3 under unc-im-300's minimum of 4",
            hand([4, 3], [4, 4], [2, 1], [3, 2]),
            "bids",
        ),
        bad_hand("bid 14", hand([14, 3], [4, 4], [2, 2], [3, 2]), "bids"),
        bad_hand(
            "negative tricks",
            hand([4, 3], [-1, 9], [2, 2], [3, 2]),
            "tricks",
        ),
        bad_hand(
            "three bids",
            json!({"a": {"bids": [4, 3, 1], "tricks": [4, 4]}, "b": {"bids": [2, 2], "tricks": [3, 2]}}),
            "bids",
        ),
        bad_hand(
            "team b missing",
            json!({"a": {"bids": [4, 3], "tricks": [4, 4]}}),
            "bids",
        ),
        bad_hand(
            "blind nil while ahead",
            json!({"a": {"bids": ["blind_nil", 5], "tricks": [0, 8]}, "b": {"bids": [2, 2], "tricks": [3, 2]}}),
            "bids",
        ),
        bad_hand(
            "misdeal with bids",
            json!({"misdeal": true, "a": {"bids": [4, 3], "tricks": [4, 4]}}),
            "misdeal",
        ),
        bad_hand(
            "14 revokes",
            json!({"a": {"bids": [4, 3], "tricks": [4, 4]}, "b": {"bids": [2, 2], "tricks": [3, 2]}, "revokes": {"a": 14}}),
            "revokes",
        ),
        bad_hand(
            "bid \"pass\"",
            json!({"a": {"bids": ["pass", 3], "tricks": [4, 4]}, "b": {"bids": [2, 2], "tricks": [3, 2]}}),
            "bids",
        ),
        bad(
            "bid true",
            "POST",
            &hands,
            hand_body(json!({"a": {"bids": [true, 3], "tricks": [4, 4]}, "b": {"bids": [2, 2], "tricks": [3, 2]}})),
            422,
            "invalid_request",
            None,
        ),
        bad(
            "unknown field in the hand",
            "POST",
            &hands,
            hand_body(json!({"a": {"bids": [4, 3], "tricks": [4, 4]}, "b": {"bids": [2, 2], "tricks": [3, 2]}, "jokers": 2})),
            422,
            "invalid_request",
            None,
        ),
        bad(
            "expected_version missing",
            "POST",
            &hands,
            json!({"hand": good_hand}).to_string(),
            422,
            "invalid_request",
            None,
        ),
        bad(
            "expected_version a string",
            "POST",
            &hands,
            json!({"hand": good_hand, "expected_version": v.to_string()}).to_string(),
            422,
            "invalid_request",
            Some("expected_version"),
        ),
        bad(
            "empty idempotency key",
            "POST",
            &hands,
            json!({"hand": good_hand, "expected_version": v, "idempotency_key": ""}).to_string(),
            422,
            "invalid_request",
            Some("idempotency_key"),
        ),
        bad(
            "hand is an array",
            "POST",
            &hands,
            json!({"hand": [4, 3, 2, 2], "expected_version": v}).to_string(),
            422,
            "invalid_request",
            None,
        ),
        bad(
            "hand to a match not started",
            "POST",
            &format!("/api/v1/matches/{not_started}/hands"),
            json!({"hand": good_hand, "expected_version": 1}).to_string(),
            409,
            "not_started",
            None,
        ),
        bad(
            "correction without reason",
            "PUT",
            &format!("/api/v1/matches/{live}/hands/1"),
            json!({"hand": good_hand, "expected_version": v}).to_string(),
            422,
            "invalid_request",
            None,
        ),
        bad(
            "correction with a blank reason",
            "PUT",
            &format!("/api/v1/matches/{live}/hands/1"),
            json!({"hand": good_hand, "reason": "", "expected_version": v}).to_string(),
            422,
            "invalid_correction",
            Some("reason"),
        ),
        Bad {
            hand: Some(1),
            ..bad(
                "correction with tricks summing to 14",
                "PUT",
                &format!("/api/v1/matches/{live}/hands/1"),
                json!({"hand": hand([4, 3], [5, 4], [2, 2], [3, 2]), "reason": "typo", "expected_version": v})
                    .to_string(),
                422,
                "invalid_hand",
                Some("tricks"),
            )
        },
        bad(
            "time: not JSON",
            "POST",
            &format!("/api/v1/matches/{live}/time"),
            "expected_version=3".into(),
            400,
            "malformed",
            None,
        ),
        bad(
            "time: expected_version missing",
            "POST",
            &format!("/api/v1/matches/{live}/time"),
            "{}".into(),
            422,
            "invalid_request",
            None,
        ),
        bad(
            "forfeit team c",
            "POST",
            &format!("/api/v1/matches/{live}/forfeit"),
            r#"{"team": "c"}"#.into(),
            422,
            "invalid_forfeit",
            Some("team"),
        ),
        bad(
            "forfeit team missing",
            "POST",
            &format!("/api/v1/matches/{live}/forfeit"),
            r#"{"expected_version": 2}"#.into(),
            422,
            "invalid_request",
            None,
        ),
    ];
    assert_eq!(cases.len(), 48, "the table above");
    let mut whats: Vec<&str> = cases.iter().map(|c| c.what).collect();
    whats.sort_unstable();
    whats.dedup();
    assert_eq!(whats.len(), cases.len(), "distinct cases");

    let before = app.tables().await;
    for case in &cases {
        let token = if case.path.starts_with("/api/v1/matches/") {
            &n.sup.token
        } else {
            &n.admin.token
        };
        let response = send(
            app,
            Cred::Bearer(token),
            case.method,
            &case.path,
            &case.body,
            &[],
        )
        .await;
        let error = refused(response, case.status, case.code, case.what).await;
        if let Some(field) = case.field {
            assert_eq!(error["field"], field, "{}: field in {error}", case.what);
        }
        if let Some(number) = case.hand {
            assert_eq!(error["hand"], number, "{}: hand in {error}", case.what);
        }
        app.assert_nothing_written(&before, format_args!("{}: nothing written", case.what))
            .await;
    }
    // And the match is as it was: one hand, the same version.
    let m = n.get_match(live).await;
    assert_eq!(m["version"], v);
    assert_eq!(m["hands"].as_array().unwrap().len(), 1);
    // The good hand is still accepted afterwards.
    n.enter(live, &good_hand, v).await;
}

#[actix_web::test]
async fn demo_season_loads_through_the_services() {
    let app = spawn_app().await;
    let summary = spades_im::demo::load(&app.db).await.expect("demo loads");
    assert!(summary.contains("supervisor"), "{summary}");
    assert!(summary.contains("password"), "{summary}");

    let league: Value = app
        .get("/api/v1/leagues/demo-fall")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(league["name"], "Demo Fall Season");
    assert_eq!(league["rules"]["regular"]["target"], 300);
    assert_eq!(league["rules"]["final"]["target"], 500);
    let teams: Value = app
        .get("/api/v1/leagues/demo-fall/teams")
        .await
        .json()
        .await
        .unwrap();
    let teams = teams["teams"].as_array().unwrap();
    assert_eq!(teams.len(), 8);
    assert!(
        teams
            .iter()
            .all(|t| t["players"].as_array().unwrap().len() == 2)
    );

    let matches: Value = app
        .get("/api/v1/leagues/demo-fall/matches")
        .await
        .json()
        .await
        .unwrap();
    let matches = matches["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 28);
    let count = |status: &str| matches.iter().filter(|m| m["status"] == status).count();
    let complete = count("complete");
    assert!(complete >= 12, "{complete} complete");
    assert_eq!(count("in_progress"), 1);
    assert_eq!(complete + count("in_progress") + count("scheduled"), 28);
    for m in matches.iter().filter(|m| m["status"] == "complete") {
        assert!(m["winner"].is_string() || m["game_status"] == "tied", "{m}");
        let hands = m["hands"].as_array().unwrap();
        assert!(hands.len() >= 2);
        let last = hands.last().unwrap();
        assert_eq!(last["a"]["score"], m["a"]["score"]);
        assert!(
            m["a"]["score"]
                .as_i64()
                .unwrap()
                .max(m["b"]["score"].as_i64().unwrap())
                >= 300
        );
    }
    let live = matches
        .iter()
        .find(|m| m["status"] == "in_progress")
        .unwrap();
    assert!(!live["hands"].as_array().unwrap().is_empty());
    assert_eq!(live["game_status"], "in_progress");
    assert!(
        matches
            .iter()
            .flat_map(|m| m["hands"].as_array().unwrap())
            .any(|h| h["hand"].to_string().contains("nil")),
        "some nil bids"
    );

    // Standings: every complete match counted twice (once per team), win/loss consistent.
    let standings: Value = app
        .get("/api/v1/leagues/demo-fall/standings")
        .await
        .json()
        .await
        .unwrap();
    let rows = standings["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 8);
    let sum = |key: &str| rows.iter().map(|r| r[key].as_i64().unwrap()).sum::<i64>();
    assert_eq!(sum("played"), 2 * complete as i64);
    assert_eq!(sum("won") + sum("lost") + sum("tied"), sum("played"));
    assert_eq!(sum("won"), sum("lost"));
    assert_eq!(sum("points_for"), sum("points_against"));
    for r in rows {
        assert_eq!(
            r["won"].as_i64().unwrap() + r["lost"].as_i64().unwrap() + r["tied"].as_i64().unwrap(),
            r["played"].as_i64().unwrap()
        );
    }

    // The supervisor can log in and run the match in progress (assigned to the league).
    let password = summary
        .split("password ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the password is in the summary");
    let r = app
        .client
        .post(app.url("/login"))
        .form(&[("username", "supervisor"), ("password", password)])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303, "the printed password works");
    let mut conn = app.db.read().await.unwrap();
    let sup = users::by_name(&mut conn, "supervisor")
        .await
        .unwrap()
        .unwrap();
    let league_id = league["id"].as_i64().unwrap();
    assert!(
        spades_im::db::leagues::is_supervisor(
            &mut conn,
            spades_im::domain::LeagueId(league_id),
            sup.id
        )
        .await
        .unwrap()
    );
    drop(conn);

    // Loading it again is refused, and changes nothing.
    let before = app.tables().await;
    let again = spades_im::demo::load(&app.db).await;
    assert!(again.is_err());
    app.assert_nothing_written(&before, "nothing written").await;
}

#[actix_web::test]
async fn demo_season_is_set_up_by_the_first_admin_when_there_is_one() {
    let app = spawn_app().await;
    app.user("coord", Role::Admin).await;
    spades_im::demo::load(&app.db).await.expect("demo loads");
    let mut conn = app.db.read().await.unwrap();
    let coord = users::by_name(&mut conn, "coord").await.unwrap().unwrap();
    let sup = users::by_name(&mut conn, "supervisor")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(sup.role, Role::Supervisor);
    let by: Vec<(String, Option<i64>)> = spades_im::on_store!(conn, |c| sqlx::query_as(
        "SELECT DISTINCT action, user_id FROM audit_log ORDER BY action, user_id"
    )
    .fetch_all(c)
    .await)
    .unwrap();
    // The coordinator's part as the admin, the tables run by the supervisor; only the
    // coordinator's own account was made by nobody (the test's setup, as the command line).
    for (action, user) in &by {
        let Some(user) = user else {
            assert_eq!(action, "create", "{action} by nobody");
            continue;
        };
        let expected = if ["start", "record_hand"].contains(&action.as_str()) {
            sup.id
        } else {
            coord.id
        };
        assert_eq!(*user, expected.0, "{action} by {user}");
    }
    let supervisor_created_by: Option<i64> = spades_im::on_store!(conn, |c| sqlx::query_scalar(
        "SELECT user_id FROM audit_log WHERE action = 'create' AND entity = 'user' AND entity_id = $1",
    )
    .bind(sup.id.0)
    .fetch_one(c)
    .await)
    .unwrap();
    assert_eq!(
        supervisor_created_by,
        Some(coord.id.0),
        "the demo's supervisor, by the admin"
    );
    assert!(by.iter().any(|(a, _)| a == "record_hand"));
    assert!(by.iter().any(|(a, _)| a == "generate_schedule"));
}

/// The caller's rights are judged before the body: bad credentials with a bad body are a
/// 401, a supervisor's bad body on an admin route a 403, every time (the extractors run at
/// the same time, so a body error must not win the race); a body over the limit is a 413 in
/// the API's error shape.
#[actix_web::test]
async fn credentials_are_judged_before_the_body() {
    let app = spawn_app().await;
    let supervisor = app.api_user("sup", Role::Supervisor).await;
    let bad_token = app.api("spim_not_a_token");
    for _ in 0..20 {
        let r = bad_token
            .client
            .post(app.url("/api/v1/leagues"))
            .bearer_auth(&bad_token.token)
            .header("content-type", "application/json")
            .body("{not json")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401);
        let r = supervisor.post("/api/v1/leagues", &json!({"nme": 1})).await;
        assert_eq!(r.status(), 403);
    }
    let admin = app.api_user("coord", Role::Admin).await;
    let huge = "x".repeat(300 * 1024);
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": huge, "rules": {"regular": "classic"}}),
        )
        .await;
    assert_eq!(r.status(), 413);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], "too_large");
    // A right body from the admin still goes through.
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Ok", "rules": {"regular": "classic"}}),
        )
        .await;
    assert_eq!(r.status(), 201);
}

/// Accounts leave audit rows too: a user created by the admin (by nobody from the command
/// line), a password changed, a token created and revoked.
#[actix_web::test]
async fn account_changes_are_audited() {
    let app = spawn_app().await;
    app.user("coord", Role::Admin).await;
    let coord = {
        let mut conn = app.db.read().await.unwrap();
        users::by_name(&mut conn, "coord").await.unwrap().unwrap()
    };
    let admin = spades_im::service::User {
        id: coord.id,
        username: coord.username.clone(),
        role: Role::Admin,
    };
    let sup = accounts::create_user(&app.db, Some(&admin), "sup", Role::Supervisor, PASSWORD)
        .await
        .unwrap();
    accounts::change_password(
        &app.db,
        &sup,
        "no-such-session",
        PASSWORD,
        "another good password",
    )
    .await
    .unwrap();
    let token = accounts::create_token(&app.db, "sup", "phone")
        .await
        .unwrap();
    assert!(!token.is_empty());
    let tokens = accounts::tokens(&app.db, &sup).await.unwrap();
    accounts::revoke_token(&app.db, &sup, tokens[0].id)
        .await
        .unwrap();
    let mut conn = app.db.read().await.unwrap();
    let rows: Vec<(String, String, Option<i64>)> = spades_im::on_store!(conn, |c| sqlx::query_as(
        "SELECT action, entity, user_id FROM audit_log WHERE entity IN ('user', 'api_token') ORDER BY id",
    )
    .fetch_all(c)
    .await)
    .unwrap();
    let (coord_id, sup_id) = (Some(coord.id.0), Some(sup.id.0));
    assert_eq!(
        rows,
        vec![
            ("create".into(), "user".into(), None),
            ("create".into(), "user".into(), coord_id),
            ("change_password".into(), "user".into(), sup_id),
            ("create_token".into(), "api_token".into(), sup_id),
            ("revoke_token".into(), "api_token".into(), sup_id),
        ]
    );
}

/// The same idempotency key with a different hand is refused (422 `idempotency_key_reused`,
/// nothing recorded): answering it with the first hand would make the client believe a hand
/// was recorded that was not. The same key with the same hand still returns the first answer.
#[actix_web::test]
async fn an_idempotency_key_reused_for_another_hand_is_refused() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "keys", json!("classic"), 2).await;
    let m: Value = admin
        .post(
            "/api/v1/leagues/keys/matches",
            &json!({"team_a": teams[0], "team_b": teams[1]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let id = m["id"].as_i64().unwrap();
    let started: Value = admin
        .post(&format!("/api/v1/matches/{id}/start"), &json!({}))
        .await
        .json()
        .await
        .unwrap();
    let send = |h: Value| json!({"hand": h, "expected_version": started["version"], "idempotency_key": "table-3-hand-1"});
    let first = admin
        .post(&format!("/api/v1/matches/{id}/hands"), &send(hand1()))
        .await;
    assert_eq!(first.status(), 201);
    let first: Value = first.json().await.unwrap();
    let again = admin
        .post(&format!("/api/v1/matches/{id}/hands"), &send(hand1()))
        .await;
    assert_eq!(again.status(), 201);
    assert_eq!(again.json::<Value>().await.unwrap(), first);
    let before = app.tables().await;
    let other = admin
        .post(&format!("/api/v1/matches/{id}/hands"), &send(hand2()))
        .await;
    let error = refused(
        other,
        422,
        "idempotency_key_reused",
        "another hand, same key",
    )
    .await;
    assert_eq!(error["field"], "idempotency_key");
    app.assert_nothing_written(&before, "a reused key").await;
    let m: Value = admin
        .get(&format!("/api/v1/matches/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(m["hands"].as_array().unwrap().len(), 1);
}

/// `new` is the address of the new-league page (`/admin/leagues/new`): the API refuses it as
/// a slug as the page does (422 `invalid_league` on `slug`), given or made from the name,
/// and writes nothing; the league it would have made could never be administered.
#[actix_web::test]
async fn the_reserved_slug_new_is_refused() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    for body in [
        json!({"name": "Fall", "slug": "new", "rules": {"regular": "classic"}}),
        json!({"name": "New", "rules": {"regular": "classic"}}),
    ] {
        let before = app.tables().await;
        let r = admin.post("/api/v1/leagues", &body).await;
        let error = refused(r, 422, "invalid_league", &body.to_string()).await;
        assert_eq!(error["field"], "slug", "{body}");
        app.assert_nothing_written(&before, &body).await;
    }
    let r = admin.get("/api/v1/leagues/new").await;
    assert_eq!(r.status().as_u16(), 404, "no league took the slug");
}
