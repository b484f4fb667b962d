//! A team's players (docs/api.md, "Players"): teams of 2 to 8 players, the admin routes
//! `GET /api/v1/teams/{id}/roster`, `POST /api/v1/teams/{id}/players`,
//! `PATCH /api/v1/players/{id}`, the erasure and a person's export; every refusal writes
//! nothing.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::authz_matrix::{Access, ROUTES};
use crate::helpers::{Api, TestApp, expect_error, hand_of, json_with_status, spawn_app};

/// A league `fall` with teams "Aces" (Ann, Al) and "Kings" (Kim, Ken, with student ids), as
/// the coordinator `coord`.
async fn league(app: &TestApp) -> (Api, i64, i64) {
    let admin = app.api_user("coord", Role::Admin).await;
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Fall", "slug": "fall", "rules": {"regular": "classic"}}),
        )
        .await;
    json_with_status(r, 201, "league").await;
    let aces = team(
        &admin,
        "fall",
        json!({"name": "Aces", "players": ["Ann", "Al"]}),
    )
    .await;
    let kings = team(
        &admin,
        "fall",
        json!({"name": "Kings", "players": [
            {"name": "Kim", "student_id": "s100", "email": "kim@example.edu", "captain": true},
            {"name": "Ken", "student_id": "S101"},
            "Kai"
        ]}),
    )
    .await;
    (admin, aces, kings)
}

async fn team(admin: &Api, slug: &str, body: Value) -> i64 {
    let r = admin
        .post(&format!("/api/v1/leagues/{slug}/teams"), &body)
        .await;
    json_with_status(r, 201, "team").await["id"]
        .as_i64()
        .unwrap()
}

async fn roster(admin: &Api, team: i64) -> Vec<Value> {
    let r = admin.get(&format!("/api/v1/teams/{team}/roster")).await;
    json_with_status(r, 200, "roster").await["players"]
        .as_array()
        .unwrap()
        .clone()
}

#[actix_web::test]
async fn a_team_is_made_of_two_to_eight_players_shown_by_name_only_in_public() {
    let app = spawn_app().await;
    let (admin, aces, kings) = league(&app).await;
    let players = roster(&admin, kings).await;
    let shown: Vec<Value> = players
        .iter()
        .map(|p| {
            json!([
                p["name"],
                p["student_id"],
                p["email"],
                p["captain"],
                p["active"],
                p["matches"]
            ])
        })
        .collect();
    assert_eq!(
        shown,
        vec![
            json!(["Kim", "S100", "kim@example.edu", true, true, 0]),
            json!(["Ken", "S101", null, false, true, 0]),
            json!(["Kai", null, null, false, true, 0]),
        ]
    );
    assert_eq!(roster(&admin, aces).await.len(), 2);

    // The public list: names only.
    let teams = json_with_status(app.get("/api/v1/leagues/fall/teams").await, 200, "teams").await;
    assert_eq!(teams["teams"][1]["players"], json!(["Kim", "Ken", "Kai"]));
    let text = teams.to_string();
    assert!(
        !text.contains("S100") && !text.contains("kim@example.edu"),
        "{text}"
    );

    // One player, or nine, is refused and writes nothing.
    let before = app.tables().await;
    for players in [
        json!(["Solo"]),
        json!((1..=9).map(|i| format!("P{i}")).collect::<Vec<_>>()),
    ] {
        let r = admin
            .post(
                "/api/v1/leagues/fall/teams",
                &json!({"name": "Odd", "players": players}),
            )
            .await;
        expect_error(r, 422, "invalid_team").await;
    }
    before.assert_same(&app.tables().await, "refused team sizes");
    let eight: Vec<String> = (1..=8).map(|i| format!("P{i}")).collect();
    let r = admin
        .post(
            "/api/v1/leagues/fall/teams",
            &json!({"name": "Eights", "players": eight}),
        )
        .await;
    let eights = json_with_status(r, 201, "eight players").await;
    assert_eq!(eights["players"].as_array().unwrap().len(), 8);
    let after = roster(&admin, eights["id"].as_i64().unwrap()).await;
    assert_eq!(after.len(), 8);
}

#[actix_web::test]
async fn a_student_id_is_on_one_team_of_a_league_and_refusals_write_nothing() {
    let app = spawn_app().await;
    let (admin, aces, kings) = league(&app).await;
    let sue = app.api_user("sue", Role::Supervisor).await;
    let before = app.tables().await;

    // The same student id (any case) on another team: 409 naming that team.
    let r = admin
        .post(
            &format!("/api/v1/teams/{aces}/players"),
            &json!({"name": "Kimmy", "student_id": " s100 "}),
        )
        .await;
    let e = expect_error(r, 409, "player_on_another_team").await;
    let message = e["message"].as_str().unwrap();
    assert!(message.contains("\"Kings\""), "{message}");
    assert!(
        !message.contains("S100") && !message.contains("s100"),
        "{message}"
    );
    // In a new team too.
    let r = admin
        .post(
            "/api/v1/leagues/fall/teams",
            &json!({"name": "Jacks", "players": [{"name": "J", "student_id": "S101"}, "K"]}),
        )
        .await;
    expect_error(r, 409, "player_on_another_team").await;
    // On the same team.
    let r = admin
        .post(
            &format!("/api/v1/teams/{kings}/players"),
            &json!({"name": "Kip", "student_id": "S101"}),
        )
        .await;
    expect_error(r, 409, "student_id_taken").await;
    // Bad fields.
    for (body, code, field) in [
        (
            json!({"name": "X", "student_id": "no spaces"}),
            "invalid_student_id",
            "student_id",
        ),
        (
            json!({"name": "X", "email": "nobody"}),
            "invalid_email",
            "email",
        ),
        (json!({"name": "\u{202E}X"}), "invalid_input", "name"),
        (json!({"name": "X", "shoe": 9}), "invalid_request", ""),
        (
            json!({"name": "X", "student_id": [7700123]}),
            "invalid_request",
            "student_id",
        ),
    ] {
        let r = admin
            .post(&format!("/api/v1/teams/{aces}/players"), &body)
            .await;
        let e = expect_error(r, 422, code).await;
        if !field.is_empty() {
            assert_eq!(e["field"], field, "{body}: {e}");
        }
        assert!(
            !e.to_string().contains("zq") && !e.to_string().contains("7700123"),
            "{e}"
        );
    }
    let r = admin
        .post("/api/v1/teams/999999/players", &json!({"name": "X"}))
        .await;
    expect_error(r, 404, "not_found").await;
    let r = admin
        .patch("/api/v1/players/999999", &json!({"name": "X"}))
        .await;
    expect_error(r, 404, "not_found").await;
    // Fewer than two active players, or a ninth.
    let ann = roster(&admin, aces).await[0]["id"].as_i64().unwrap();
    let r = admin
        .patch(&format!("/api/v1/players/{ann}"), &json!({"active": false}))
        .await;
    expect_error(r, 409, "player_limit").await;
    // A supervisor may not read or write a roster.
    let r = sue.get(&format!("/api/v1/teams/{kings}/roster")).await;
    expect_error(r, 403, "forbidden").await;
    let r = sue
        .post(
            &format!("/api/v1/teams/{aces}/players"),
            &json!({"name": "S"}),
        )
        .await;
    expect_error(r, 403, "forbidden").await;
    let after = app.tables().await;
    before.assert_same(&after, "refused player writes");

    // Five more make eight; the ninth is refused.
    for i in 0..6 {
        let r = admin
            .post(
                &format!("/api/v1/teams/{aces}/players"),
                &json!({"name": format!("Sub {i}")}),
            )
            .await;
        json_with_status(r, 201, "sub").await;
    }
    let r = admin
        .post(
            &format!("/api/v1/teams/{aces}/players"),
            &json!({"name": "Ninth"}),
        )
        .await;
    expect_error(r, 409, "player_limit").await;
}

#[actix_web::test]
async fn players_are_added_changed_and_deactivated_keeping_their_history() {
    let app = spawn_app().await;
    let (admin, aces, kings) = league(&app).await;
    let r = admin
        .post(
            &format!("/api/v1/teams/{aces}/players"),
            &json!({"name": "Ava", "student_id": "s200", "email": "ava@example.edu", "captain": true}),
        )
        .await;
    let ava = json_with_status(r, 201, "add").await;
    assert_eq!(ava["student_id"], "S200");
    assert_eq!(ava["captain"], true);
    assert_eq!(ava["active"], true);
    let id = ava["id"].as_i64().unwrap();

    // A student id sent as a number is taken as its digits.
    let r = admin
        .post(
            &format!("/api/v1/teams/{kings}/players"),
            &json!({"name": "Num", "student_id": 7700123}),
        )
        .await;
    assert_eq!(
        json_with_status(r, 201, "number").await["student_id"],
        "7700123"
    );
    let r = admin
        .patch(
            &format!("/api/v1/players/{id}"),
            &json!({"name": "Ava B", "email": "", "student_id": "S201"}),
        )
        .await;
    let changed = json_with_status(r, 200, "change").await;
    assert_eq!(changed["name"], "Ava B");
    assert_eq!(changed["email"], Value::Null);
    assert_eq!(changed["student_id"], "S201");

    // The first player steps down: the public list shows the active players.
    let ann = roster(&admin, aces).await[0]["id"].as_i64().unwrap();
    let r = admin
        .patch(&format!("/api/v1/players/{ann}"), &json!({"active": false}))
        .await;
    assert_eq!(
        json_with_status(r, 200, "deactivate").await["active"],
        false
    );
    let all = roster(&admin, aces).await;
    assert_eq!(all.len(), 3, "a deactivated player stays on the roster");
    let teams = json_with_status(app.get("/api/v1/leagues/fall/teams").await, 200, "teams").await;
    assert_eq!(teams["teams"][0]["players"], json!(["Al", "Ava B"]));
    // One captain a team: Kai made captain, Kim no longer is.
    let kai = roster(&admin, kings).await[2]["id"].as_i64().unwrap();
    let r = admin
        .patch(&format!("/api/v1/players/{kai}"), &json!({"captain": true}))
        .await;
    json_with_status(r, 200, "captain").await;
    let captains: Vec<bool> = roster(&admin, kings)
        .await
        .iter()
        .map(|p| p["captain"].as_bool().unwrap())
        .collect();
    assert_eq!(captains, [false, false, true, false]);
}

/// The columns of a player's audit rows compared here.
const ENTITY_AFTER_REASON: &[&str] = &["entity", "after", "reason"];

#[actix_web::test]
async fn an_erasure_removes_personal_data_and_keeps_every_score() {
    let app = spawn_app().await;
    let (admin, aces, kings) = league(&app).await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/matches",
            &json!({"team_a": aces, "team_b": kings}),
        )
        .await;
    let m = json_with_status(r, 201, "match").await["id"]
        .as_i64()
        .unwrap();
    admin
        .play_hands(m, &[hand_of([3, 3], [3, 3], [3, 4], [3, 4])])
        .await;
    let score = |v: Value| {
        json!([
            v["score_a"],
            v["score_b"],
            v["hands"].as_array().map(Vec::len)
        ])
    };
    let before =
        score(json_with_status(app.get(&format!("/api/v1/matches/{m}")).await, 200, "m").await);

    let kim = roster(&admin, kings).await[0]["id"].as_i64().unwrap();
    let r = admin
        .post(&format!("/api/v1/players/{kim}/erase"), &json!({}))
        .await;
    let erased = json_with_status(r, 200, "erase").await;
    assert_eq!(
        json!([erased["name"], erased["student_id"], erased["email"]]),
        json!(["Former player", null, null])
    );
    let after =
        score(json_with_status(app.get(&format!("/api/v1/matches/{m}")).await, 200, "m").await);
    assert_eq!(before, after, "the erasure changes no score");
    let rows = app.audit_rows("erase", ENTITY_AFTER_REASON).await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0][0], "player");
    assert_eq!(rows[0][2], "personal data erased");
    let all = format!("{rows:?}");
    assert!(!all.contains("S100") && !all.contains("kim@"), "{all}");
    // A given name instead.
    let ken = roster(&admin, kings).await[1]["id"].as_i64().unwrap();
    let r = admin
        .post(
            &format!("/api/v1/players/{ken}/erase"),
            &json!({"name": "Player 2"}),
        )
        .await;
    assert_eq!(json_with_status(r, 200, "erase").await["name"], "Player 2");
    // A name that shows nothing (a zero-width space) is no name; a control character is
    // refused on the field.
    let r = admin
        .post(
            &format!("/api/v1/players/{ken}/erase"),
            &json!({"name": "\u{200B} "}),
        )
        .await;
    assert_eq!(
        json_with_status(r, 200, "erase").await["name"],
        "Former player"
    );
    let r = admin
        .post(
            &format!("/api/v1/players/{ken}/erase"),
            &json!({"name": "A\u{0098}"}),
        )
        .await;
    assert_eq!(
        json_with_status(r, 422, "erase").await["error"]["field"],
        "name"
    );
    // The student id is free again in the league.
    let r = admin
        .post(
            &format!("/api/v1/teams/{aces}/players"),
            &json!({"name": "New Kim", "student_id": "S100"}),
        )
        .await;
    json_with_status(r, 201, "the id is free").await;
}

#[actix_web::test]
async fn a_person_is_exported_from_every_league_by_student_id() {
    let app = spawn_app().await;
    let (admin, _, _) = league(&app).await;
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Spring", "slug": "spring", "rules": {"regular": "classic"}}),
        )
        .await;
    json_with_status(r, 201, "league").await;
    team(
        &admin,
        "spring",
        json!({"name": "Queens", "players": [{"name": "Kim S", "student_id": "S100"}, "Q"]}),
    )
    .await;
    let r = admin
        .post("/api/v1/people/export", &json!({"student_id": "s100"}))
        .await;
    let export = json_with_status(r, 200, "export").await;
    assert_eq!(export["student_id"], "S100");
    let found: Vec<Value> = export["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            json!([
                p["league"],
                p["team"],
                p["player"]["name"],
                p["player"]["email"]
            ])
        })
        .collect();
    assert_eq!(
        found,
        vec![
            json!(["fall", "Kings", "Kim", "kim@example.edu"]),
            json!(["spring", "Queens", "Kim S", null]),
        ]
    );
    assert_eq!(export["lineups"], json!([]));
    let rows = app.audit_rows("export", ENTITY_AFTER_REASON).await;
    assert_eq!(rows.len(), 2, "one audit row per player exported");
    assert!(!format!("{rows:?}").contains("S100"));
    // Nobody else may ask, and a bad id is refused.
    let sue = app.api_user("sue", Role::Supervisor).await;
    let r = sue
        .post("/api/v1/people/export", &json!({"student_id": "S100"}))
        .await;
    expect_error(r, 403, "forbidden").await;
    let r = admin
        .post("/api/v1/people/export", &json!({"student_id": "  "}))
        .await;
    expect_error(r, 422, "invalid_student_id").await;
}

/// Student ids and emails of the season: each is personal data, so none may appear in any
/// public answer or the server's log. Each is typed in a form the service changes (the id
/// in small letters) and searched for both as typed and as stored.
const SECRETS: [&str; 6] = [
    "zq9001",
    "ZQ9001",
    "zq9002",
    "ZQ9002",
    "ann.zq@example.edu",
    "kim.zq@example.edu",
];

/// `path` of the route table with its parameters filled: every team's or match's id, and
/// for a player's page every (team, player) of `players`.
fn filled(path: &str, teams: &[i64], matches: &[i64], players: &[(i64, i64)]) -> Vec<String> {
    if path.contains("{player_id}") {
        return players
            .iter()
            .map(|(team, player)| {
                path.replace("{slug}", "fall")
                    .replace("{id}", &team.to_string())
                    .replace("{player_id}", &player.to_string())
            })
            .collect();
    }
    let path = path
        .replace("{slug}", "fall")
        .replace("{preset}", "classic")
        .replace("{name}", "style.css");
    let ids = if path.contains("/teams/{id}") {
        teams
    } else if path.contains("{id}") {
        matches
    } else {
        return vec![path];
    };
    ids.iter()
        .map(|id| path.replace("{id}", &id.to_string()))
        .collect()
}

#[actix_web::test]
async fn no_student_id_or_email_is_in_a_public_answer_or_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let db = spades_im::db::Db::open_file(
        &dir.path().join("db.sqlite3"),
        spades_im::domain::Clock::system(spades_im::domain::machine_zone()),
    )
    .await
    .unwrap();
    spades_im::service::people::accounts::create_user(
        &db,
        None,
        "coord",
        Role::Admin,
        crate::helpers::PASSWORD,
    )
    .await
    .unwrap();
    let token = spades_im::service::people::accounts::create_token(&db, "coord", "t")
        .await
        .unwrap();
    drop(db);
    let log = dir.path().join("server.log");
    let served = crate::observe::serve(dir.path(), &log, &[]).await;
    let admin = Api {
        base: served.base.clone(),
        token,
        client: reqwest::Client::new(),
    };
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Fall", "slug": "fall", "rules": {"regular": "classic"}}),
        )
        .await;
    json_with_status(r, 201, "league").await;
    let mut teams = vec![
        team(
            &admin,
            "fall",
            json!({"name": "Aces", "players": [
            {"name": "Ann", "student_id": "zq9001", "email": "ann.zq@example.edu", "captain": true},
            "Al"]}),
        )
        .await,
        team(
            &admin,
            "fall",
            json!({"name": "Kings", "players": ["Kim", "Ken"]}),
        )
        .await,
    ];
    teams.push(
        team(
            &admin,
            "fall",
            json!({"name": "Jacks", "players": ["Jo", "Jay"]}),
        )
        .await,
    );
    let kim = roster(&admin, teams[1]).await[0]["id"].as_i64().unwrap();
    let r = admin
        .patch(
            &format!("/api/v1/players/{kim}"),
            &json!({"student_id": "zq9002", "email": "kim.zq@example.edu"}),
        )
        .await;
    json_with_status(r, 200, "kim").await;
    // Refusals that hold an id: on another team, and a bad email.
    let r = admin
        .post(
            &format!("/api/v1/teams/{}/players", teams[2]),
            &json!({"name": "X", "student_id": "zq9001"}),
        )
        .await;
    expect_error(r, 409, "player_on_another_team").await;
    let r = admin
        .post("/api/v1/people/export", &json!({"student_id": "zq9002"}))
        .await;
    json_with_status(r, 200, "export").await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin"}),
        )
        .await;
    let schedule = json_with_status(r, 201, "schedule").await;
    let matches: Vec<i64> = schedule["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    // Every player of the first two teams, and a lineup with Ann (whose id and email are
    // secrets) so that her statistics and eligibility are shown.
    let mut players = Vec::new();
    for team in &teams[..2] {
        for p in roster(&admin, *team).await {
            players.push((*team, p["id"].as_i64().unwrap()));
        }
    }
    let first = json_with_status(
        admin.get(&format!("/api/v1/matches/{}", matches[0])).await,
        200,
        "first match",
    )
    .await;
    let team_of = |id: &Value| {
        players
            .iter()
            .filter(|(t, _)| Some(*t) == id.as_i64())
            .map(|(_, p)| *p)
            .take(2)
            .collect::<Vec<i64>>()
    };
    for side in ["a", "b"] {
        let seats = team_of(&first[format!("team_{side}")]["id"]);
        if seats.len() == 2 {
            let r = admin
                .post(
                    &format!("/api/v1/matches/{}/lineup", matches[0]),
                    &json!({"team": side, "players": seats}),
                )
                .await;
            json_with_status(r, 200, "lineup").await;
        }
    }
    admin
        .patch(
            "/api/v1/leagues/fall",
            &json!({"settings": {"eligibility": {"min_matches_played": 2}}}),
        )
        .await;
    admin
        .play_hands(matches[0], &[hand_of([3, 3], [3, 3], [3, 4], [3, 4])])
        .await;

    let r = admin
        .post(
            "/api/v1/leagues/fall/playoffs",
            &json!({"format": "single_elimination", "teams": 2, "force": true}),
        )
        .await;
    json_with_status(r, 201, "playoffs").await;

    // The admin sees them: the scan below looks for text that is there to find.
    let admin_view = admin
        .get(&format!("/api/v1/teams/{}/roster", teams[0]))
        .await
        .text()
        .await
        .unwrap();
    assert!(admin_view.contains("ZQ9001") && admin_view.contains("ann.zq@example.edu"));

    let client = reqwest::Client::new();
    let mut scanned = 0;
    for (method, path, access) in ROUTES {
        if *method != "GET" || *access != Access::Public {
            continue;
        }
        for url in filled(path, &teams, &matches, &players) {
            let r = client
                .get(format!("{}{url}", served.base))
                .send()
                .await
                .unwrap();
            assert!(r.status().as_u16() < 500, "{url}: {}", r.status());
            let body = r.text().await.unwrap();
            for secret in SECRETS {
                assert!(!body.contains(secret), "{url} shows {secret}");
            }
            scanned += 1;
        }
    }
    assert!(scanned > 30, "{scanned} public answers scanned");
    drop(served);
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(log.contains("answered"), "the log was captured:\n{log}");
    for secret in SECRETS {
        assert!(!log.contains(secret), "the server's log shows {secret}");
    }
}

/// The admin's roster page of team `team` of league `fall`.
fn page(team: i64) -> String {
    format!("/admin/leagues/fall/teams/{team}/players")
}

/// The HTML of a page answer with `status`.
async fn html_with_status(r: reqwest::Response, status: u16, what: &str) -> String {
    assert_eq!(r.status(), status, "{what}");
    r.text().await.unwrap()
}

/// `/admin/leagues/{slug}/teams/{id}/players` shows the whole roster with the personal data
/// (admins only) and adds, changes, deactivates and reactivates players.
#[actix_web::test]
async fn the_roster_page_shows_every_player_and_adds_changes_and_deactivates_them() {
    let app = spawn_app().await;
    let (admin, aces, kings) = league(&app).await;
    let boss = app.browser("coord").await;
    let league_page = html_with_status(boss.get("/admin/leagues/fall").await, 200, "league").await;
    assert!(
        league_page.contains(&format!("href=\"{}\"", page(kings))),
        "the league's admin page links each team's players"
    );
    let r = boss.get(&page(kings)).await;
    assert_eq!(r.headers()["cache-control"], "no-store");
    let html = html_with_status(r, 200, "roster page").await;
    for shown in ["Kim", "Ken", "Kai", "S100", "S101", "kim@example.edu"] {
        assert!(html.contains(shown), "the page shows {shown}");
    }

    let added = boss
        .post_form(
            &page(kings),
            &[
                ("name", "Kit"),
                ("student_id", "s102"),
                ("email", "kit@example.edu"),
                ("captain", "1"),
            ],
        )
        .await;
    let html = html_with_status(added, 200, "add").await;
    assert!(html.contains("Kit added."), "{html}");
    let kit = roster(&admin, kings).await[3].clone();
    assert_eq!(kit["name"], "Kit");
    assert_eq!(kit["student_id"], "S102");
    assert_eq!(kit["email"], "kit@example.edu");
    assert_eq!(kit["captain"], true);
    assert_eq!(
        roster(&admin, kings).await[0]["captain"],
        false,
        "one captain"
    );

    // Ken's change form: a new email, the student id removed, the name kept.
    let ken = roster(&admin, kings).await[1]["id"].as_i64().unwrap();
    let changed = boss
        .post_form(
            &format!("{}/{ken}", page(kings)),
            &[
                ("name", "Ken"),
                ("student_id", ""),
                ("email", "ken@example.edu"),
            ],
        )
        .await;
    let html = html_with_status(changed, 200, "change").await;
    assert!(html.contains("Ken saved."), "{html}");
    let ken_now = roster(&admin, kings).await[1].clone();
    assert_eq!(ken_now["email"], "ken@example.edu");
    assert_eq!(ken_now["student_id"], Value::Null);
    assert_eq!(ken_now["captain"], false);

    // Ann leaves the Aces once Ava joins; then she comes back.
    let ann = roster(&admin, aces).await[0]["id"].as_i64().unwrap();
    let r = boss.post_form(&page(aces), &[("name", "Ava")]).await;
    html_with_status(r, 200, "add Ava").await;
    let active = format!("{}/{ann}/active", page(aces));
    let html = html_with_status(
        boss.post_form(&active, &[("active", "0")]).await,
        200,
        "deactivate",
    )
    .await;
    assert!(html.contains("Ann deactivated."), "{html}");
    assert_eq!(roster(&admin, aces).await[0]["active"], false);
    let teams = json_with_status(app.get("/api/v1/leagues/fall/teams").await, 200, "teams").await;
    assert_eq!(teams["teams"][0]["players"], json!(["Al", "Ava"]));
    let html = html_with_status(
        boss.post_form(&active, &[("active", "1")]).await,
        200,
        "reactivate",
    )
    .await;
    assert!(html.contains("Ann reactivated."), "{html}");
    assert_eq!(roster(&admin, aces).await[0]["active"], true);
}

/// Each refusal of the roster page is shown by its field with the typed values kept, and
/// writes nothing.
#[actix_web::test]
async fn the_roster_page_shows_each_refusal_by_its_field_and_writes_nothing() {
    let app = spawn_app().await;
    let (admin, aces, kings) = league(&app).await;
    let boss = app.browser("coord").await;
    let before = (roster(&admin, aces).await, roster(&admin, kings).await);
    let add = |student_id: &'static str, email: &'static str| {
        [
            ("name", "Newcomer"),
            ("student_id", student_id),
            ("email", email),
        ]
    };
    // (form fields, the field whose message shows, words of the message)
    let cases = [
        (add("S100", ""), "add-student_id", "&#34;Kings&#34;"),
        (
            add("bad id!", ""),
            "add-student_id",
            "letters, digits and dashes",
        ),
        (add("", "not-an-email"), "add-email", "email"),
    ];
    for (fields, field, words) in cases {
        let html = html_with_status(boss.post_form(&page(aces), &fields).await, 422, field).await;
        assert!(html.contains("class=\"error-summary\""), "{field}: summary");
        assert!(
            html.contains(&format!("href=\"#{field}\"")),
            "{field}: the summary links the field"
        );
        let error = html
            .split(&format!("id=\"{field}-error\">"))
            .nth(1)
            .unwrap_or_else(|| panic!("{field}: no message by the field:\n{html}"));
        let message = error.split("</p>").next().unwrap();
        assert!(message.contains(words), "{field}: {message}");
        assert!(
            html.contains("value=\"Newcomer\""),
            "{field}: the typed name is kept"
        );
        for (name, value) in fields {
            if !value.is_empty() {
                let id = format!("id=\"add-{name}\"");
                let input = html.split(&id).nth(1).unwrap().split('>').next().unwrap();
                assert!(
                    input.contains(&format!("value=\"{value}\"")),
                    "{field}: {name} kept: {input}"
                );
            }
        }
    }

    // A change refused: typed values kept in that player's form.
    let ken = before.1[1]["id"].as_i64().unwrap();
    let html = html_with_status(
        boss.post_form(
            &format!("{}/{ken}", page(kings)),
            &[("name", "Kenny"), ("student_id", "S100"), ("email", "")],
        )
        .await,
        422,
        "change to a taken id",
    )
    .await;
    let key = format!("player-{ken}");
    assert!(
        html.contains(&format!("id=\"{key}-student_id-error\"")),
        "{html}"
    );
    assert!(html.contains("value=\"Kenny\""), "the typed name is kept");

    // The Aces keep two active players: Ann cannot leave.
    let ann = before.0[0]["id"].as_i64().unwrap();
    let html = html_with_status(
        boss.post_form(&format!("{}/{ann}/active", page(aces)), &[("active", "0")])
            .await,
        422,
        "too few",
    )
    .await;
    assert!(
        html.contains(&format!(
            "id=\"player-{ann}-active-error\">a team keeps at least 2"
        )),
        "{html}"
    );
    assert_eq!(
        (roster(&admin, aces).await, roster(&admin, kings).await),
        before,
        "no refusal wrote anything"
    );

    // Eight active players: a ninth is refused at the top of the add form.
    for name in ["Kay", "Kev", "Kip", "Kyle", "Kurt"] {
        let r = boss.post_form(&page(kings), &[("name", name)]).await;
        html_with_status(r, 200, name).await;
    }
    let html = html_with_status(
        boss.post_form(&page(kings), &[("name", "Ninth")]).await,
        422,
        "player_limit",
    )
    .await;
    assert!(
        html.contains("id=\"add-error\">a team has at most 8 active players"),
        "{html}"
    );
    assert!(html.contains("value=\"Ninth\""), "the typed name is kept");
    assert_eq!(roster(&admin, kings).await.len(), 8);
}

/// A team of another league, or a player of another team, is not found from this page.
#[actix_web::test]
async fn the_roster_page_answers_404_for_a_team_or_player_not_on_it() {
    let app = spawn_app().await;
    let (admin, aces, kings) = league(&app).await;
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Spring", "slug": "spring", "rules": {"regular": "classic"}}),
        )
        .await;
    json_with_status(r, 201, "league").await;
    let boss = app.browser("coord").await;
    let before = (roster(&admin, aces).await, roster(&admin, kings).await);
    let spring = format!("/admin/leagues/spring/teams/{aces}/players");
    assert_eq!(boss.get(&spring).await.status(), 404, "GET");
    let added = boss.post_form(&spring, &[("name", "Stray")]).await;
    assert_eq!(added.status(), 404, "add");
    let kim = before.1[0]["id"].as_i64().unwrap();
    let changed = boss
        .post_form(&format!("{}/{kim}", page(aces)), &[("name", "Stolen")])
        .await;
    assert_eq!(changed.status(), 404, "change");
    let deactivated = boss
        .post_form(&format!("{}/{kim}/active", page(aces)), &[("active", "0")])
        .await;
    assert_eq!(deactivated.status(), 404, "deactivate");
    assert_eq!(
        (roster(&admin, aces).await, roster(&admin, kings).await),
        before,
        "nothing written"
    );
}

/// The erasure from the roster page: refused until its box is ticked, then the student id
/// and email are gone, the name is "Former player" (or the one typed) and no score or
/// standing changes.
#[actix_web::test]
async fn the_roster_page_erases_personal_data_once_confirmed_keeping_every_score() {
    let app = spawn_app().await;
    let (admin, aces, kings) = league(&app).await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/matches",
            &json!({"team_a": aces, "team_b": kings}),
        )
        .await;
    let m = json_with_status(r, 201, "match").await["id"]
        .as_i64()
        .unwrap();
    admin
        .play_hands(m, &[hand_of([3, 3], [3, 3], [3, 4], [3, 4])])
        .await;
    let results = || async {
        let m = json_with_status(app.get(&format!("/api/v1/matches/{m}")).await, 200, "m").await;
        let standings = app.get("/api/v1/leagues/fall/standings").await;
        let standings = json_with_status(standings, 200, "standings").await;
        json!([m["score_a"], m["score_b"], m["hands"], standings])
    };
    let before = results().await;
    let boss = app.browser("coord").await;
    let kim = roster(&admin, kings).await[0]["id"].as_i64().unwrap();
    let erase = format!("{}/{kim}/erase", page(kings));
    let html = html_with_status(boss.get(&page(kings)).await, 200, "page").await;
    assert!(
        html.contains(&format!("action=\"{erase}\"")),
        "each player has an erasure form"
    );

    // Not confirmed: refused by the box, the typed name kept, nothing written.
    let kept = roster(&admin, kings).await;
    let html = html_with_status(
        boss.post_form(&erase, &[("name", "Player K")]).await,
        422,
        "unconfirmed",
    )
    .await;
    assert!(
        html.contains(&format!("id=\"erase-{kim}-confirm-error\">tick the box")),
        "{html}"
    );
    assert!(html.contains(&format!("href=\"#erase-{kim}-confirm\"")));
    assert!(
        html.contains("value=\"Player K\""),
        "the typed name is kept"
    );
    assert_eq!(roster(&admin, kings).await, kept, "nothing erased");

    // Confirmed, no name typed: "Former player".
    let html = html_with_status(
        boss.post_form(&erase, &[("name", ""), ("confirm", "1")])
            .await,
        200,
        "erase",
    )
    .await;
    assert!(
        html.contains("Personal data erased: the player is now Former player."),
        "{html}"
    );
    assert!(!html.contains("S100") && !html.contains("kim@example.edu"));
    let kim_now = roster(&admin, kings).await[0].clone();
    assert_eq!(
        json!([
            kim_now["name"],
            kim_now["student_id"],
            kim_now["email"],
            kim_now["captain"]
        ]),
        json!(["Former player", null, null, true])
    );
    // A typed name instead, for Ken.
    let ken = roster(&admin, kings).await[1]["id"].as_i64().unwrap();
    let r = boss
        .post_form(
            &format!("{}/{ken}/erase", page(kings)),
            &[("name", "Player 2"), ("confirm", "1")],
        )
        .await;
    html_with_status(r, 200, "erase Ken").await;
    let ken_now = roster(&admin, kings).await[1].clone();
    assert_eq!(
        json!([ken_now["name"], ken_now["student_id"]]),
        json!(["Player 2", null])
    );
    assert_eq!(results().await, before, "no score or standing changed");
    let rows = app.audit_rows("erase", ENTITY_AFTER_REASON).await;
    assert_eq!(rows.len(), 2, "each erasure audited");
    assert!(!format!("{rows:?}").contains("S10"));
}

/// "Export everything held about this person" answers the JSON of the API's export as a
/// download, audited; a player without a student id has no such button.
#[actix_web::test]
async fn the_roster_page_downloads_everything_held_about_a_person() {
    let app = spawn_app().await;
    let (admin, aces, kings) = league(&app).await;
    let boss = app.browser("coord").await;
    let kim = roster(&admin, kings).await[0]["id"].as_i64().unwrap();
    let export = format!("{}/{kim}/export", page(kings));
    let html = html_with_status(boss.get(&page(kings)).await, 200, "page").await;
    assert!(html.contains(&format!("action=\"{export}\"")), "{html}");
    let ann = roster(&admin, aces).await[0]["id"].as_i64().unwrap();
    let html = html_with_status(boss.get(&page(aces)).await, 200, "aces").await;
    assert!(
        !html.contains("/export\""),
        "no export for players without a student id"
    );

    let r = boss.post_form(&export, &[]).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/json");
    assert_eq!(r.headers()["cache-control"], "no-store");
    assert_eq!(
        r.headers()["content-disposition"],
        format!("attachment; filename=\"player-{kim}-export.json\"")
    );
    let downloaded: Value = r.json().await.unwrap();
    assert_eq!(downloaded["student_id"], "S100");
    assert_eq!(
        downloaded["players"][0]["player"]["email"],
        "kim@example.edu"
    );
    assert_eq!(downloaded["players"][0]["team"], "Kings");
    let r = admin
        .post("/api/v1/people/export", &json!({"student_id": "S100"}))
        .await;
    let from_api = json_with_status(r, 200, "api export").await;
    assert_eq!(downloaded, from_api, "the same JSON as the API's export");
    let rows = app.audit_rows("export", ENTITY_AFTER_REASON).await;
    assert_eq!(rows.len(), 2, "the page's export is audited as the API's");
    assert!(!format!("{rows:?}").contains("S100"));

    // A player without a student id: nothing to look up by, nothing audited.
    let html = html_with_status(
        boss.post_form(&format!("{}/{ann}/export", page(aces)), &[])
            .await,
        422,
        "no student id",
    )
    .await;
    assert!(html.contains("this player has no student id"), "{html}");
    assert_eq!(app.audit_rows("export", ENTITY_AFTER_REASON).await.len(), 2);
}

/// The erasure and the export refuse a post without the session's CSRF token and anyone
/// but an admin, and write nothing.
#[actix_web::test]
async fn the_erasure_and_the_export_need_the_csrf_token_and_an_admin() {
    let app = spawn_app().await;
    let (admin, _, kings) = league(&app).await;
    let boss = app.browser("coord").await;
    app.user("sue", Role::Supervisor).await;
    let sue = app.browser("sue").await;
    let kim = roster(&admin, kings).await[0]["id"].as_i64().unwrap();
    let before = app.tables().await;
    for (path, form) in [
        (
            format!("{}/{kim}/erase", page(kings)),
            vec![("confirm", "1")],
        ),
        (format!("{}/{kim}/export", page(kings)), vec![]),
    ] {
        let r = boss
            .client
            .post(format!("{}{path}", boss.base))
            .form(&form)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403, "no CSRF token: {path}");
        let mut wrong = form.clone();
        wrong.push(("csrf", "0123456789abcdef"));
        assert_eq!(
            boss.post_form(&path, &wrong).await.status(),
            403,
            "wrong CSRF token: {path}"
        );
        let r = sue.post_form(&path, &form).await;
        assert_eq!(r.status(), 403, "a supervisor: {path}");
        assert!(!r.text().await.unwrap().contains("S100"));
    }
    app.assert_nothing_written(&before, "refused erasure or export")
        .await;
}

/// Every player of league `slug`, team by team: (team, name, student id, email, captain,
/// active), as the API's rosters show them.
async fn league_players(app: &TestApp, admin: &Api, slug: &str) -> Vec<Value> {
    let r = app.get(&format!("/api/v1/leagues/{slug}/teams")).await;
    let teams = json_with_status(r, 200, "teams").await;
    let mut out = Vec::new();
    for t in teams["teams"].as_array().unwrap() {
        for p in roster(admin, t["id"].as_i64().unwrap()).await {
            out.push(json!([
                t["name"],
                p["name"],
                p["student_id"],
                p["email"],
                p["captain"],
                p["active"]
            ]));
        }
    }
    out
}

/// `GET /admin/leagues/{slug}/roster.csv`: one row per player with the personal data, as a
/// download, audited; the roster import reads it back into a fresh league as the same
/// players (deactivated ones too, and a name the export guards against spreadsheets).
#[actix_web::test]
async fn the_roster_csv_lists_every_player_and_imports_back_into_a_fresh_league() {
    let app = spawn_app().await;
    let (admin, aces, kings) = league(&app).await;
    let boss = app.browser("coord").await;
    // A name with a comma, one a spreadsheet would run as a formula, a deactivated player.
    for name in ["Lee, Jr", "-Dash"] {
        let r = boss.post_form(&page(aces), &[("name", name)]).await;
        html_with_status(r, 200, name).await;
    }
    let kai = roster(&admin, kings).await[2]["id"].as_i64().unwrap();
    let r = boss
        .post_form(&format!("{}/{kai}/active", page(kings)), &[("active", "0")])
        .await;
    html_with_status(r, 200, "deactivate Kai").await;
    let league_page = html_with_status(boss.get("/admin/leagues/fall").await, 200, "league").await;
    assert!(league_page.contains("href=\"/admin/leagues/fall/roster.csv\""));

    let r = boss.get("/admin/leagues/fall/roster.csv").await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "text/csv; charset=utf-8");
    assert_eq!(r.headers()["cache-control"], "no-store");
    assert_eq!(
        r.headers()["content-disposition"],
        "attachment; filename=\"fall-roster.csv\""
    );
    let exported = r.text().await.unwrap();
    let row = |cells: [&str; 7]| cells.map(String::from).to_vec();
    assert_eq!(
        crate::helpers::csv_rows(&exported),
        vec![
            row([
                "team",
                "division",
                "player",
                "student_id",
                "email",
                "captain",
                "active"
            ]),
            row(["Aces", "", "Ann", "", "", "no", "yes"]),
            row(["Aces", "", "Al", "", "", "no", "yes"]),
            row(["Aces", "", "Lee, Jr", "", "", "no", "yes"]),
            row(["Aces", "", "'-Dash", "", "", "no", "yes"]),
            row(["Kings", "", "Kim", "S100", "kim@example.edu", "yes", "yes"]),
            row(["Kings", "", "Ken", "S101", "", "no", "yes"]),
            row(["Kings", "", "Kai", "", "", "no", "no"]),
        ]
    );
    let rows = app.audit_rows("export_roster", ENTITY_AFTER_REASON).await;
    assert_eq!(
        rows,
        [["league", "7 players", "roster CSV downloaded"]],
        "the download is audited without who"
    );

    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Spring", "slug": "spring", "rules": {"regular": "classic"}}),
        )
        .await;
    json_with_status(r, 201, "league").await;
    let r = boss
        .post_form(
            "/admin/leagues/spring/import",
            &[("csv", exported.as_str()), ("confirm", "1")],
        )
        .await;
    assert_eq!(r.status(), 303, "{}", r.text().await.unwrap());
    assert_eq!(
        league_players(&app, &admin, "spring").await,
        league_players(&app, &admin, "fall").await,
        "the same players, in the same order"
    );
    let again = boss.get("/admin/leagues/spring/roster.csv").await;
    assert_eq!(again.text().await.unwrap(), exported, "the same file again");
    // The public team list names the active players only.
    let teams = json_with_status(app.get("/api/v1/leagues/spring/teams").await, 200, "t").await;
    assert_eq!(teams["teams"][1]["players"], json!(["Kim", "Ken"]));
    // A team's division is its rows' second column.
    let r = admin
        .post(
            "/api/v1/leagues/fall/divisions",
            &json!({"name": "Compétitive"}),
        )
        .await;
    let division = json_with_status(r, 201, "division").await["id"].clone();
    let r = admin
        .patch(
            &format!("/api/v1/teams/{kings}"),
            &json!({"division": division}),
        )
        .await;
    json_with_status(r, 200, "move Kings").await;
    let exported = boss.get("/admin/leagues/fall/roster.csv").await;
    let rows = crate::helpers::csv_rows(&exported.text().await.unwrap());
    let divisions: Vec<&str> = rows[1..].iter().map(|r| r[1].as_str()).collect();
    assert_eq!(
        divisions,
        ["", "", "", "", "Compétitive", "Compétitive", "Compétitive"]
    );

    // Admins only.
    app.user("sue", Role::Supervisor).await;
    let sue = app.browser("sue").await;
    let r = sue.get("/admin/leagues/fall/roster.csv").await;
    assert_eq!(r.status(), 403);
    assert!(!r.text().await.unwrap().contains("S100"));
    let nobody = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let r = nobody
        .get(app.url("/admin/leagues/fall/roster.csv"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303, "to the login form");
    assert!(!r.text().await.unwrap().contains("S100"));
    assert_eq!(
        app.audit_rows("export_roster", ENTITY_AFTER_REASON)
            .await
            .len(),
        3,
        "the three downloads above, none of the refused ones"
    );
}
