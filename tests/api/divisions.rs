//! Divisions (docs/api.md §18.1): made by name once per league, a team's division set at
//! creation or by PATCH until it has played, a round robin within divisions (never across)
//! with blackout nights, standings ranked within each division (JSON, CSV, page) and playoff
//! seeds with the division winners first.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, TestApp, csv_rows, expect_error, hand_of, json_with_status, spawn_app};

/// A win for team a in two hands of a game to 100.
fn a_wins() -> Value {
    hand_of([4, 4], [6, 5], [2, 2], [1, 1])
}

async fn division(admin: &Api, slug: &str, name: &str) -> i64 {
    let r = admin
        .post(
            &format!("/api/v1/leagues/{slug}/divisions"),
            &json!({"name": name}),
        )
        .await;
    let d = json_with_status(r, 201, "a division").await;
    assert_eq!(d["name"], name);
    d["id"].as_i64().unwrap()
}

async fn set_division(admin: &Api, team: i64, division: Value) -> reqwest::Response {
    admin
        .patch(
            &format!("/api/v1/teams/{team}"),
            &json!({"division": division}),
        )
        .await
}

/// Plays match `id` until team a has won it.
async fn a_beats_b(admin: &Api, id: i64) {
    let mut m = admin.start_match(id).await;
    for _ in 0..5 {
        if m["status"] != "in_progress" {
            break;
        }
        m = admin.enter_hand(&m, &a_wins()).await;
    }
    assert_eq!(m["status"], "complete", "{m}");
}

#[actix_web::test]
async fn a_division_name_is_used_once_in_a_league() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(&admin, "fall", json!("unc-im-300"), 2).await;
    app.league(&admin, "spring", json!("unc-im-300"), 2).await;
    let competitive = division(&admin, "fall", "Competitive").await;
    // The same name in another league is another division.
    division(&admin, "spring", "Competitive").await;

    let before = app.tables().await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/divisions",
            &json!({"name": "competitive"}),
        )
        .await;
    let e = expect_error(r, 409, "division_taken").await;
    assert_eq!(e["field"], "name", "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("Competitive"),
        "{e}"
    );
    for bad in [json!(""), json!("   "), json!("x".repeat(61))] {
        let r = admin
            .post("/api/v1/leagues/fall/divisions", &json!({"name": bad}))
            .await;
        let e = expect_error(r, 422, "invalid_division").await;
        assert_eq!(e["field"], "name", "{e}");
    }
    app.assert_nothing_written(&before, "refused divisions")
        .await;

    let list = json_with_status(
        app.get("/api/v1/leagues/fall/divisions").await,
        200,
        "the divisions",
    )
    .await;
    assert_eq!(
        list,
        json!({"divisions": [{"id": competitive, "name": "Competitive"}]})
    );
    // A supervisor may not make one.
    let supervisor = app.api_user("sup", Role::Supervisor).await;
    let r = supervisor
        .post("/api/v1/leagues/fall/divisions", &json!({"name": "Rec"}))
        .await;
    assert_eq!(r.status(), 403);
}

#[actix_web::test]
async fn a_team_changes_division_only_before_it_has_played() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let t = app
        .league(
            &admin,
            "fall",
            json!({"preset": "unc-im-300", "target": 100}),
            3,
        )
        .await;
    app.league(&admin, "spring", json!("unc-im-300"), 0).await;
    let gold = division(&admin, "fall", "Gold").await;
    let silver = division(&admin, "fall", "Silver").await;
    let elsewhere = division(&admin, "spring", "Gold").await;

    // At creation.
    let r = admin
        .post(
            "/api/v1/leagues/fall/teams",
            &json!({"name": "Late", "players": ["A", "B"], "division": silver}),
        )
        .await;
    let late = json_with_status(r, 201, "a team in a division").await;
    assert_eq!(late["division"], silver);
    let before = app.tables().await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/teams",
            &json!({"name": "Later", "players": ["C", "D"], "division": elsewhere}),
        )
        .await;
    let e = expect_error(r, 422, "invalid_division").await;
    assert_eq!(e["field"], "division");
    app.assert_nothing_written(&before, "a team in another league's division")
        .await;

    // By PATCH, before playing: set, changed, taken away.
    let team = json_with_status(set_division(&admin, t[0], json!(gold)).await, 200, "set").await;
    assert_eq!(team["division"], gold);
    assert_eq!(team["name"], "Team 1");
    let team = json_with_status(set_division(&admin, t[0], json!(null)).await, 200, "none").await;
    assert_eq!(team["division"], Value::Null);
    json_with_status(set_division(&admin, t[0], json!(gold)).await, 200, "again").await;
    let e = expect_error(
        set_division(&admin, t[0], json!(elsewhere)).await,
        422,
        "invalid_division",
    )
    .await;
    assert_eq!(e["field"], "division");
    let teams = json_with_status(app.get("/api/v1/leagues/fall/teams").await, 200, "teams").await;
    let divisions: Vec<&Value> = teams["teams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["division"])
        .collect();
    assert_eq!(
        divisions,
        [&json!(silver), &json!(gold), &Value::Null, &Value::Null]
    );

    // Once it has played (a started match is enough), the division stays.
    let m = admin.add_match("fall", t[0], t[1], "1").await;
    admin.start_match(m["id"].as_i64().unwrap()).await;
    let before = app.tables().await;
    let e = expect_error(
        set_division(&admin, t[0], json!(silver)).await,
        409,
        "team_has_played",
    )
    .await;
    assert!(e["message"].as_str().unwrap().contains("Team 1"), "{e}");
    expect_error(
        set_division(&admin, t[1], json!(silver)).await,
        409,
        "team_has_played",
    )
    .await;
    app.assert_nothing_written(&before, "a division change after playing")
        .await;
    // Its name may still change, and the same division is no change.
    let r = admin
        .patch(
            &format!("/api/v1/teams/{}", t[0]),
            &json!({"name": "Aces", "division": gold}),
        )
        .await;
    let team = json_with_status(r, 200, "renamed").await;
    assert_eq!(
        (&team["name"], &team["division"]),
        (&json!("Aces"), &json!(gold))
    );
    // The team that has not played may still move.
    json_with_status(set_division(&admin, t[2], json!(silver)).await, 200, "t3").await;
    let r = admin
        .patch("/api/v1/teams/999999", &json!({"name": "X"}))
        .await;
    assert_eq!(r.status(), 404);
}

/// The matches of a league's schedule.
async fn schedule(app: &TestApp, slug: &str) -> Vec<Value> {
    let all = json_with_status(
        app.get(&format!("/api/v1/leagues/{slug}/matches")).await,
        200,
        "matches",
    )
    .await;
    all["matches"].as_array().unwrap().clone()
}

fn pair(m: &Value) -> (i64, i64) {
    let (a, b) = (
        m["team_a"]["id"].as_i64().unwrap(),
        m["team_b"]["id"].as_i64().unwrap(),
    );
    (a.min(b), a.max(b))
}

async fn generate(admin: &Api, body: Value) -> reqwest::Response {
    admin.post("/api/v1/leagues/fall/schedule", &body).await
}

#[actix_web::test]
async fn a_round_robin_within_divisions_never_crosses_them_and_skips_blackouts() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let t = app.league(&admin, "fall", json!("unc-im-300"), 7).await;
    let gold = division(&admin, "fall", "Gold").await;
    let silver = division(&admin, "fall", "Silver").await;

    // A team in no division: refused, nothing written.
    for &team in &t[..4] {
        json_with_status(set_division(&admin, team, json!(gold)).await, 200, "gold").await;
    }
    for &team in &t[4..6] {
        json_with_status(
            set_division(&admin, team, json!(silver)).await,
            200,
            "silver",
        )
        .await;
    }
    let before = app.tables().await;
    let e = expect_error(
        generate(
            &admin,
            json!({"format": "round_robin", "within": "division"}),
        )
        .await,
        422,
        "invalid_division",
    )
    .await;
    assert!(e["message"].as_str().unwrap().contains("Team 7"), "{e}");
    // A blackout that is not a date names its item.
    let e = expect_error(
        generate(
            &admin,
            json!({"format": "round_robin", "start_date": "2026-01-05",
                        "blackouts": ["2026-01-12", "2026-02-30"]}),
        )
        .await,
        422,
        "invalid_schedule",
    )
    .await;
    assert_eq!(e["field"], "blackouts[1]", "{e}");
    assert!(e["message"].as_str().unwrap().contains("2026-02-30"), "{e}");
    // A year of blackout nights at most: more is refused before anything is computed.
    let year: Vec<String> = (0..367)
        .map(|d| {
            (chrono::NaiveDate::from_ymd_opt(2027, 1, 1).unwrap() + chrono::Days::new(d))
                .to_string()
        })
        .collect();
    let e = expect_error(
        generate(
            &admin,
            json!({"format": "round_robin", "start_date": "2026-01-05", "blackouts": year}),
        )
        .await,
        422,
        "invalid_schedule",
    )
    .await;
    assert_eq!(e["field"], "blackouts", "{e}");
    assert!(e["message"].as_str().unwrap().contains("366"), "{e}");
    app.assert_nothing_written(&before, "refused round robins")
        .await;

    json_with_status(
        set_division(&admin, t[6], json!(silver)).await,
        200,
        "silver",
    )
    .await;
    let r = generate(
        &admin,
        json!({
            "format": "round_robin", "within": "division", "start_date": "2026-01-05",
            "time": "19:00", "blackouts": ["2026-01-12"]
        }),
    )
    .await;
    json_with_status(r, 201, "the round robin within divisions").await;
    let matches = schedule(&app, "fall").await;
    let in_gold: BTreeSet<i64> = t[..4].iter().copied().collect();
    // Each division's pairs exactly once, none across: 4 teams 6 pairs, 3 teams 3.
    let pairs: BTreeSet<(i64, i64)> = matches.iter().map(pair).collect();
    assert_eq!((matches.len(), pairs.len()), (9, 9));
    for (a, b) in &pairs {
        assert_eq!(
            in_gold.contains(a),
            in_gold.contains(b),
            "{a} v {b} crosses divisions"
        );
    }
    // Round 1 on the first night, round 2 after the blackout, round 3 a week later; on a
    // night no table holds two matches and no team plays twice.
    let mut nights: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for m in &matches {
        nights
            .entry(m["scheduled_at"].as_str().unwrap().to_string())
            .or_default()
            .push(m);
    }
    let dates: Vec<&str> = nights.keys().map(|k| &k[..10]).collect();
    assert_eq!(
        dates,
        ["2026-01-05", "2026-01-19", "2026-01-26"],
        "{nights:?}"
    );
    for (night, ms) in &nights {
        let tables: BTreeSet<&str> = ms.iter().map(|m| m["table"].as_str().unwrap()).collect();
        assert_eq!(tables.len(), ms.len(), "{night}: a table twice");
        let teams: BTreeSet<i64> = ms.iter().flat_map(|m| [pair(m).0, pair(m).1]).collect();
        assert_eq!(teams.len(), 2 * ms.len(), "{night}: a team twice");
    }
}

#[actix_web::test]
async fn blackouts_move_every_later_round_by_one_night() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(&admin, "fall", json!("unc-im-300"), 4).await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin", "start_date": "2026-01-05",
                    "blackouts": ["2026-01-05", " 2026-01-19 ", "2026-03-02"]}),
        )
        .await;
    json_with_status(r, 201, "the round robin").await;
    let nights: BTreeSet<String> = schedule(&app, "fall")
        .await
        .iter()
        .map(|m| m["scheduled_at"].as_str().unwrap()[..10].to_string())
        .collect();
    // Weekly nights 5, 12, 19, 26 January: the 5th and the 19th are skipped.
    assert_eq!(
        nights.into_iter().collect::<Vec<_>>(),
        ["2026-01-12", "2026-01-26", "2026-02-02"]
    );
}

#[actix_web::test]
async fn standings_rank_each_division_and_playoffs_seed_the_winners_first() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let t = app
        .league(
            &admin,
            "fall",
            json!({"preset": "unc-im-300", "target": 100}),
            5,
        )
        .await;
    let competitive = division(&admin, "fall", "Competitive").await;
    let recreational = division(&admin, "fall", "Recreational").await;
    // Competitive: teams 1, 2, 3; Recreational: teams 4, 5.
    for &team in &t[..3] {
        json_with_status(
            set_division(&admin, team, json!(competitive)).await,
            200,
            "c",
        )
        .await;
    }
    for &team in &t[3..] {
        json_with_status(
            set_division(&admin, team, json!(recreational)).await,
            200,
            "r",
        )
        .await;
    }
    // Team a wins each: overall Team 1 (3-0), Team 2 (2-1), Team 4 (1-1), Team 3 (1-2),
    // Team 5 (0-3). Seeding by the overall order would put Team 2 second, not Team 4.
    for (a, b) in [(0, 1), (0, 2), (0, 4), (1, 4), (1, 2), (3, 4), (2, 3)] {
        let m = admin.add_match("fall", t[a], t[b], "1").await;
        a_beats_b(&admin, m["id"].as_i64().unwrap()).await;
    }
    let standings = json_with_status(
        app.get("/api/v1/leagues/fall/standings").await,
        200,
        "standings",
    )
    .await;
    let rows: Vec<(i64, i64, Value, Value)> = standings["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["team_id"].as_i64().unwrap(),
                r["rank"].as_i64().unwrap(),
                r["division"].clone(),
                r["division_rank"].clone(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (t[0], 1, json!(competitive), json!(1)),
            (t[1], 2, json!(competitive), json!(2)),
            (t[3], 3, json!(recreational), json!(1)),
            (t[2], 4, json!(competitive), json!(3)),
            (t[4], 5, json!(recreational), json!(2)),
        ],
        "{standings}"
    );
    // The CSV ends each row with the division's name and the rank in it.
    let csv = app
        .get("/leagues/fall/standings.csv")
        .await
        .text()
        .await
        .unwrap();
    let csv = csv_rows(&csv);
    let last2 = |row: &Vec<String>| row[row.len() - 2..].to_vec();
    assert_eq!(last2(&csv[0]), ["division", "division_rank"]);
    assert_eq!(last2(&csv[3]), ["Recreational", "1"]);
    // The page: one table per division, with the division rank.
    let page = app
        .get("/leagues/fall/standings")
        .await
        .text()
        .await
        .unwrap();
    let table = crate::helpers::html_element(
        &page,
        &format!("standings-division-{recreational}"),
        "</table>",
    )
    .expect("the Recreational table");
    assert!(
        table.contains(&format!(
            "data-team-id=\"{}\" data-division-rank=\"1\"",
            t[3]
        )),
        "{table}"
    );
    assert!(
        !table.contains(&format!("data-team-id=\"{}\"", t[0])),
        "{table}"
    );

    // Seeds: the winners of Competitive and Recreational, then everyone else overall.
    let before = app.tables().await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/playoffs",
            &json!({"format": "single_elimination", "teams": 4, "seeding": "by_mood"}),
        )
        .await;
    let e = expect_error(r, 422, "invalid_division").await;
    assert_eq!(e["field"], "seeding");
    app.assert_nothing_written(&before, "an unknown seeding")
        .await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/playoffs",
            &json!({"format": "single_elimination", "teams": 4, "seeding": "division_winners_first"}),
        )
        .await;
    let bracket = json_with_status(r, 201, "the bracket").await;
    assert_eq!(
        bracket["seeding"],
        "Seeds 1–2: the winners of Competitive and Recreational; seeds 3–4 by overall standing"
    );
    let mut seeds = BTreeMap::new();
    for m in bracket["matches"].as_array().unwrap() {
        for side in ["a", "b"] {
            if let (Some(seed), Some(team)) = (
                m[format!("seed_{side}")].as_i64(),
                m[format!("team_{side}")]["id"].as_i64(),
            ) {
                seeds.insert(seed, team);
            }
        }
    }
    assert_eq!(
        seeds.into_values().collect::<Vec<_>>(),
        [t[0], t[3], t[1], t[2]]
    );
    let page = app.get("/leagues/fall/bracket").await.text().await.unwrap();
    assert!(
        page.contains("Seeds 1–2: the winners of Competitive and Recreational"),
        "bracket page"
    );
}

#[actix_web::test]
async fn without_divisions_the_standings_and_seeds_are_as_before() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(&admin, "fall", json!("unc-im-300"), 2).await;
    let standings = json_with_status(
        app.get("/api/v1/leagues/fall/standings").await,
        200,
        "standings",
    )
    .await;
    for row in standings["rows"].as_array().unwrap() {
        assert_eq!(
            (&row["division"], &row["division_rank"]),
            (&Value::Null, &Value::Null)
        );
    }
    let r = admin
        .post(
            "/api/v1/leagues/fall/playoffs",
            &json!({"format": "single_elimination", "seeding": "division_winners_first", "force": true}),
        )
        .await;
    let e = expect_error(r, 422, "invalid_division").await;
    assert_eq!(e["field"], "seeding");
}
