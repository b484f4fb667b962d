//! Playoffs through the API: brackets seeded from the standings, winners advancing by
//! themselves, the final under the final rules, CSV and JSON agreeing, double elimination
//! with a grand-final reset, and corrections that flip a winner.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, TestApp, spawn_app};

/// A hand team A wins (71 to 41).
pub fn a_hand() -> Value {
    json!({"a": {"bids": [4, 3], "tricks": [5, 3]}, "b": {"bids": [2, 2], "tricks": [3, 2]}})
}

/// A hand that, after one `a_hand`, takes team B over 100 and leaves A at 11.
pub fn b_big_hand() -> Value {
    json!({"a": {"bids": [3, 3], "tricks": [1, 1]}, "b": {"bids": [4, 3], "tricks": [6, 5]}})
}

/// A league under partnership rules, playoffs to 100 (unc-im rules), the final unc-im-500;
/// `teams` teams; the round robin finished by forfeits (team b of each match forfeits).
/// Returns the team ids in standings order (seed 1 first).
pub async fn season(app: &TestApp, admin: &Api, slug: &str, teams: usize) -> Vec<i64> {
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": slug, "slug": slug, "rules": {
                "regular": "partnership",
                "playoff": {"preset": "unc-im-300", "target": 100},
                "final": "unc-im-500"}}),
        )
        .await;
    assert_eq!(r.status(), 201);
    for i in 1..=teams {
        let r = admin
            .post(
                &format!("/api/v1/leagues/{slug}/teams"),
                &json!({"name": format!("Team {i}"), "players": [format!("P{i}a"), format!("P{i}b")]}),
            )
            .await;
        assert_eq!(r.status(), 201);
    }
    let schedule: Value = admin
        .post(
            &format!("/api/v1/leagues/{slug}/schedule"),
            &json!({"format": "round_robin"}),
        )
        .await
        .json()
        .await
        .unwrap();
    for m in schedule["matches"].as_array().unwrap() {
        let id = m["id"].as_i64().unwrap();
        let r = admin
            .post(
                &format!("/api/v1/matches/{id}/forfeit"),
                &json!({"team": "b"}),
            )
            .await;
        assert_eq!(r.status(), 200);
    }
    let standings: Value = app
        .get(&format!("/api/v1/leagues/{slug}/standings"))
        .await
        .json()
        .await
        .unwrap();
    standings["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["team_id"].as_i64().unwrap())
        .collect()
}

pub async fn bracket(app: &TestApp, slug: &str) -> Value {
    let r = app.get(&format!("/api/v1/leagues/{slug}/bracket")).await;
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

pub async fn get_match(app: &TestApp, id: i64) -> Value {
    app.get(&format!("/api/v1/matches/{id}"))
        .await
        .json()
        .await
        .unwrap()
}

pub async fn start(admin: &Api, id: i64) -> Value {
    let r = admin
        .post(&format!("/api/v1/matches/{id}/start"), &json!({}))
        .await;
    assert_eq!(r.status(), 200, "start {id}");
    r.json().await.unwrap()
}

pub async fn enter(admin: &Api, id: i64, hand: &Value, version: i64) -> Value {
    let r = admin
        .post(
            &format!("/api/v1/matches/{id}/hands"),
            &json!({"hand": hand, "expected_version": version}),
        )
        .await;
    assert_eq!(r.status(), 201, "hand in {id}");
    r.json().await.unwrap()
}

/// Plays a playoff match to 100 with two hands team A wins.
pub async fn play_a_wins(admin: &Api, id: i64) -> Value {
    let m = start(admin, id).await;
    let m = enter(admin, id, &a_hand(), m["version"].as_i64().unwrap()).await;
    let m = enter(admin, id, &a_hand(), m["version"].as_i64().unwrap()).await;
    assert_eq!(m["status"], "complete");
    assert_eq!(m["winner"], "a");
    m
}

pub async fn forfeit(admin: &Api, id: i64, team: &str) -> Value {
    let r = admin
        .post(
            &format!("/api/v1/matches/{id}/forfeit"),
            &json!({"team": team}),
        )
        .await;
    assert_eq!(r.status(), 200, "forfeit {id}");
    r.json().await.unwrap()
}

/// The bracket matches with a real match not yet played.
pub fn scheduled(b: &Value) -> Vec<Value> {
    b["matches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["match_id"].is_i64() && m["status"] == "scheduled")
        .cloned()
        .collect()
}

/// Splits a CSV line (the cells here hold no commas or quotes).
fn cells(line: &str) -> Vec<String> {
    line.split(',').map(str::to_string).collect()
}

#[actix_web::test]
async fn six_team_single_elimination_with_byes_and_third_place() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let seeds = season(&app, &admin, "spring", 6).await;
    assert_eq!(seeds.len(), 6);

    // Only an admin; a second bracket is refused.
    let sup = app.api_user("sup", Role::Supervisor).await;
    let r = sup
        .post(
            "/api/v1/leagues/spring/playoffs",
            &json!({"format": "single_elimination"}),
        )
        .await;
    assert_eq!(r.status(), 403);
    let r = app.get("/api/v1/leagues/spring/bracket").await;
    assert_eq!(r.status(), 404, "no bracket yet");

    let r = admin
        .post(
            "/api/v1/leagues/spring/playoffs",
            &json!({"format": "single_elimination", "third_place": true}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let created: Value = r.json().await.unwrap();
    assert_eq!(created["format"], "single_elimination");
    assert_eq!(created, bracket(&app, "spring").await);
    let r = admin
        .post(
            "/api/v1/leagues/spring/playoffs",
            &json!({"format": "single_elimination"}),
        )
        .await;
    assert_eq!(r.status(), 409);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], "bracket_exists");

    // Byes to seeds 1 and 2, and they are the right teams.
    let all = created["matches"].as_array().unwrap();
    let byes: Vec<&Value> = all.iter().filter(|m| m["status"] == "bye").collect();
    assert_eq!(byes.len(), 2);
    let mut bye_seeds: Vec<i64> = byes
        .iter()
        .map(|m| m["seed_a"].as_i64().or(m["seed_b"].as_i64()).unwrap())
        .collect();
    bye_seeds.sort();
    assert_eq!(bye_seeds, [1, 2]);
    for m in &byes {
        let (team, seed) = if m["team_a"].is_null() {
            (&m["team_b"], &m["seed_b"])
        } else {
            (&m["team_a"], &m["seed_a"])
        };
        assert_eq!(team["id"], seeds[seed.as_i64().unwrap() as usize - 1]);
        assert!(m["match_id"].is_null(), "a bye is not played");
    }
    // Two first-round matches are created at once: 3 v 6 and 4 v 5.
    let ready = scheduled(&created);
    assert_eq!(ready.len(), 2);
    let mut pairs: Vec<(i64, i64)> = ready
        .iter()
        .map(|m| {
            let (a, b) = (m["seed_a"].as_i64().unwrap(), m["seed_b"].as_i64().unwrap());
            (a.min(b), a.max(b))
        })
        .collect();
    pairs.sort();
    assert_eq!(pairs, [(3, 6), (4, 5)]);
    for m in &ready {
        let real = get_match(&app, m["match_id"].as_i64().unwrap()).await;
        assert_eq!(real["stage"], "playoff");
        assert_eq!(real["rules"]["target"], 100);
        assert_eq!(real["team_a"]["id"], m["team_a"]["id"]);
    }

    // Play everything: the winners advance by themselves.
    let mut played = 0;
    loop {
        let b = bracket(&app, "spring").await;
        let ready = scheduled(&b);
        if ready.is_empty() {
            break;
        }
        for m in ready {
            let id = m["match_id"].as_i64().unwrap();
            if m["bracket"] == "final" {
                let real = start(&admin, id).await;
                assert_eq!(real["stage"], "final");
                assert_eq!(real["rules"]["target"], 500, "the final rules");
                let real = enter(&admin, id, &a_hand(), real["version"].as_i64().unwrap()).await;
                assert_eq!(real["status"], "in_progress", "71 is not 500");
                forfeit(&admin, id, "b").await;
            } else {
                play_a_wins(&admin, id).await;
            }
            played += 1;
        }
    }
    // 2 quarter-finals, 2 semi-finals, third place, final.
    assert_eq!(played, 6);
    let b = bracket(&app, "spring").await;
    let final_match = b["matches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["bracket"] == "final")
        .unwrap()
        .clone();
    assert_eq!(final_match["winner"], "a");
    assert_eq!(b["champion"], final_match["team_a"]);
    let third = b["matches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["bracket"] == "third_place")
        .unwrap()
        .clone();
    assert_eq!(third["status"], "complete");
    assert_eq!(third["winner"], "a");
    // Every semi-final loser is in the third-place match.
    for m in b["matches"].as_array().unwrap() {
        if m["next_match"] == final_match["id"] {
            let loser = if m["winner"] == "a" {
                &m["team_b"]
            } else {
                &m["team_a"]
            };
            assert!(third["team_a"] == *loser || third["team_b"] == *loser);
        }
    }
    // CSV and JSON agree.
    let r = app.get("/leagues/spring/bracket.csv").await;
    assert_eq!(r.status(), 200);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    let text = r.text().await.unwrap();
    let text = text.strip_prefix('\u{feff}').expect("a byte order mark");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "round,bracket,position,match_id,seed_a,team_a,seed_b,team_b,status,score_a,score_b,winner,match,label"
    );
    let matches = b["matches"].as_array().unwrap();
    assert_eq!(lines.len(), matches.len() + 1);
    let s = |v: &Value| match v {
        Value::Null => String::new(),
        Value::String(t) => t.clone(),
        other => other.to_string(),
    };
    for (line, m) in lines[1..].iter().zip(matches) {
        let c = cells(line);
        assert_eq!(c[0], s(&m["round"]));
        assert_eq!(c[1], s(&m["bracket"]));
        assert_eq!(c[2], s(&m["position"]));
        assert_eq!(c[3], s(&m["match_id"]));
        assert_eq!(c[4], s(&m["seed_a"]));
        assert_eq!(c[5], s(&m["team_a"]["name"]));
        assert_eq!(c[6], s(&m["seed_b"]));
        assert_eq!(c[7], s(&m["team_b"]["name"]));
        assert_eq!(c[8], s(&m["status"]));
        assert_eq!(c[9], s(&m["score_a"]));
        assert_eq!(c[10], s(&m["score_b"]));
        let winner = match m["winner"].as_str() {
            Some("a") => s(&m["team_a"]["name"]),
            Some("b") => s(&m["team_b"]["name"]),
            _ => String::new(),
        };
        assert_eq!(c[11], winner);
        // The number the drawing prints ("Winner of M3").
        assert_eq!(c[12], format!("M{}", m["id"].as_i64().unwrap() + 1));
        if let Some(id) = m["match_id"].as_i64() {
            let real = get_match(&app, id).await;
            assert_eq!(real["a"]["score"], m["score_a"]);
            assert_eq!(real["team_a"], m["team_a"]);
        }
    }
}

#[actix_web::test]
async fn eight_team_double_elimination_with_a_grand_final_reset() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    season(&app, &admin, "winter", 8).await;
    let r = admin
        .post(
            "/api/v1/leagues/winter/playoffs",
            &json!({"format": "double_elimination", "grand_final": "double"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let b: Value = r.json().await.unwrap();
    assert_eq!(b["grand_final"], "double");
    assert_eq!(scheduled(&b).len(), 4, "winners' round 1");
    let mut played = 0;
    loop {
        let b = bracket(&app, "winter").await;
        let ready = scheduled(&b);
        if ready.is_empty() {
            break;
        }
        for m in ready {
            let id = m["match_id"].as_i64().unwrap();
            let real = get_match(&app, id).await;
            if m["bracket"] == "final" {
                assert_eq!(real["stage"], "final");
                assert_eq!(real["rules"]["target"], 500);
                if m["round"] == 1 {
                    // The losers'-bracket champion (slot b) wins the first grand final.
                    forfeit(&admin, id, "a").await;
                } else {
                    forfeit(&admin, id, "b").await;
                }
            } else {
                assert_eq!(real["stage"], "playoff");
                // A double forfeit would leave nobody to advance.
                let r = admin
                    .post(
                        &format!("/api/v1/matches/{id}/forfeit"),
                        &json!({"team": "both"}),
                    )
                    .await;
                assert_eq!(r.status(), 409);
                let body: Value = r.json().await.unwrap();
                assert_eq!(body["error"]["code"], "double_forfeit_playoff");
                forfeit(&admin, id, "b").await;
            }
            played += 1;
        }
    }
    // Winners' bracket 7, losers' bracket 6, the grand final and its reset.
    assert_eq!(played, 15);
    let b = bracket(&app, "winter").await;
    let finals: Vec<&Value> = b["matches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["bracket"] == "final")
        .collect();
    assert_eq!(finals.len(), 2);
    let reset = finals.iter().find(|m| m["round"] == 2).unwrap();
    assert_eq!(reset["status"], "forfeit");
    assert_eq!(b["champion"], reset["team_a"]);
    assert!(!b["champion"].is_null());
}

#[actix_web::test]
async fn a_correction_moves_the_winner_on_until_the_next_match_starts() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    season(&app, &admin, "fall", 4).await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/playoffs",
            &json!({"format": "single_elimination"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let b: Value = r.json().await.unwrap();
    let semis = scheduled(&b);
    assert_eq!(semis.len(), 2);
    let semi1 = semis[0]["match_id"].as_i64().unwrap();
    let semi2 = semis[1]["match_id"].as_i64().unwrap();
    let won = play_a_wins(&admin, semi1).await;
    forfeit(&admin, semi2, "b").await;
    let b = bracket(&app, "fall").await;
    let final_view = scheduled(&b).pop().expect("the final is created");
    assert_eq!(final_view["bracket"], "final");
    let final_id = final_view["match_id"].as_i64().unwrap();
    let winner_slot = if semis[0]["next_slot"] == 0 {
        "team_a"
    } else {
        "team_b"
    };
    assert_eq!(final_view[winner_slot], semis[0]["team_a"]);

    // Hand 2 corrected: team B wins the semi-final; the final (not started) changes team.
    let r = admin
        .put(
            &format!("/api/v1/matches/{semi1}/hands/2"),
            &json!({"hand": b_big_hand(), "reason": "tricks misread",
                    "expected_version": won["version"]}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let semi: Value = r.json().await.unwrap();
    assert_eq!(semi["winner"], "b");
    let b = bracket(&app, "fall").await;
    let final_view = b["matches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["bracket"] == "final")
        .unwrap()
        .clone();
    assert_eq!(final_view["match_id"], final_id, "the same match");
    assert_eq!(final_view[winner_slot], semis[0]["team_b"]);
    let real = get_match(&app, final_id).await;
    assert_eq!(real[winner_slot], semis[0]["team_b"]);

    // Once the final has started, flipping the semi-final back is refused; nothing written.
    start(&admin, final_id).await;
    let before_bracket = bracket(&app, "fall").await;
    let before_semi = get_match(&app, semi1).await;
    let before_final = get_match(&app, final_id).await;
    let r = admin
        .put(
            &format!("/api/v1/matches/{semi1}/hands/2"),
            &json!({"hand": a_hand(), "reason": "it was right the first time",
                    "expected_version": semi["version"]}),
        )
        .await;
    assert_eq!(r.status(), 409);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], "bracket_reset_needed");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&format!("#{final_id}")),
        "names the match: {body}"
    );
    assert_eq!(get_match(&app, semi1).await, before_semi);
    assert_eq!(get_match(&app, final_id).await, before_final);
    assert_eq!(bracket(&app, "fall").await, before_bracket);
}

#[actix_web::test]
async fn a_correction_that_undoes_a_result_removes_the_next_match_until_decided_again() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let seeds = season(&app, &admin, "summer", 5).await;
    for (body, field) in [
        (json!({"format": "swiss"}), "format"),
        (json!({"format": "single_elimination", "teams": 6}), "teams"),
        (json!({"format": "single_elimination", "teams": 1}), "teams"),
        (
            json!({"format": "single_elimination", "grand_final": "double"}),
            "grand_final",
        ),
        (
            json!({"format": "double_elimination", "grand_final": "twice"}),
            "grand_final",
        ),
    ] {
        let r = admin.post("/api/v1/leagues/summer/playoffs", &body).await;
        assert_eq!(r.status(), 422, "{body}");
        let e: Value = r.json().await.unwrap();
        assert_eq!(e["error"]["field"], field, "{e}");
    }
    // The top 4 of 5.
    let r = admin
        .post(
            "/api/v1/leagues/summer/playoffs",
            &json!({"format": "single_elimination", "teams": 4}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let b: Value = r.json().await.unwrap();
    assert_eq!(b["teams"], 4);
    let semis = scheduled(&b);
    let in_bracket: Vec<i64> = semis
        .iter()
        .flat_map(|m| [m["team_a"]["id"].as_i64(), m["team_b"]["id"].as_i64()])
        .flatten()
        .collect();
    assert!(!in_bracket.contains(&seeds[4]), "seed 5 is out");
    let semi1 = semis[0]["match_id"].as_i64().unwrap();
    let semi2 = semis[1]["match_id"].as_i64().unwrap();
    let won = play_a_wins(&admin, semi1).await;
    forfeit(&admin, semi2, "b").await;
    let final_id = scheduled(&bracket(&app, "summer").await)[0]["match_id"]
        .as_i64()
        .unwrap();

    // Hand 2 corrected so nobody has reached 100 (A 31, B 28): the final loses an entrant
    // and, not started, is removed.
    let undo =
        json!({"a": {"bids": [2, 2], "tricks": [1, 1]}, "b": {"bids": [2, 2], "tricks": [6, 5]}});
    let r = admin
        .put(
            &format!("/api/v1/matches/{semi1}/hands/2"),
            &json!({"hand": undo, "reason": "misread", "expected_version": won["version"]}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let semi: Value = r.json().await.unwrap();
    assert_eq!(semi["status"], "in_progress");
    let b = bracket(&app, "summer").await;
    let final_view = b["matches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["bracket"] == "final")
        .unwrap()
        .clone();
    assert!(final_view["match_id"].is_null());
    assert_eq!(final_view["status"], "waiting");
    assert_eq!(
        app.get(&format!("/api/v1/matches/{final_id}"))
            .await
            .status(),
        404
    );

    // Another hand decides it for B (A -9, B 111): the final is created again, with B.
    let b_wins =
        json!({"a": {"bids": [2, 2], "tricks": [1, 1]}, "b": {"bids": [4, 4], "tricks": [6, 5]}});
    let semi = enter(&admin, semi1, &b_wins, semi["version"].as_i64().unwrap()).await;
    assert_eq!(semi["winner"], "b");
    let b = bracket(&app, "summer").await;
    let ready = scheduled(&b);
    assert_eq!(ready.len(), 1);
    assert_eq!(ready[0]["bracket"], "final");
    let slot = if semis[0]["next_slot"] == 0 {
        "team_a"
    } else {
        "team_b"
    };
    assert_eq!(ready[0][slot], semis[0]["team_b"]);
}
