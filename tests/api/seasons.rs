//! Past seasons (docs/api.md §18.2): an archived league refuses every write of the API with
//! 409 `league_archived` and writes nothing, hand entry included; archiving, listing, the
//! champion, unarchiving; cloning a league for the next term; deleting a match never begun.

use std::collections::BTreeSet;

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, TestApp, expect_error, json_with_status, spawn_app};
use crate::playoffs::{a_hand, play_a_wins};

/// Writes of the API that touch no league's rows, or that an archived league allows: the
/// accounts, the calculator, a new league or an imported one, the export of a person's data, and unarchiving
/// and cloning (cloning reads the league and writes a new one).
const NOT_LEAGUE_WRITES: &[(&str, &str)] = &[
    ("post", "/api/v1/score"),
    ("post", "/api/v1/leagues"),
    ("post", "/api/v1/users"),
    ("patch", "/api/v1/users/{username}"),
    ("post", "/api/v1/users/{username}/reset-password"),
    ("post", "/api/v1/people/export"),
    ("post", "/api/v1/leagues/{slug}/unarchive"),
    ("post", "/api/v1/leagues/{slug}/clone"),
    ("post", "/api/v1/leagues/import"),
    // A captain's: a captain of an archived league has no session (401 before any write).
    ("post", "/api/v1/matches/{id}/reschedule-requests"),
    ("post", "/api/v1/matches/{id}/disputes"),
];

/// A league under timed partnership rules with a sportsmanship scale, playoffs and final to
/// 100, and two teams; their ids.
async fn league(admin: &Api, slug: &str) -> [i64; 2] {
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": slug, "slug": slug,
                    "rules": {"regular": {"preset": "partnership", "time_limit_minutes": 60},
                              "playoff": {"preset": "unc-im-300", "target": 100},
                              "final": {"preset": "unc-im-300", "target": 100}},
                    "settings": {"sportsmanship": {"min": 1, "max": 5}}}),
        )
        .await;
    json_with_status(r, 201, "league").await;
    let mut ids = [0; 2];
    for (i, id) in ids.iter_mut().enumerate() {
        let r = admin
            .post(
                &format!("/api/v1/leagues/{slug}/teams"),
                &json!({"name": format!("Team {i}"), "players": [format!("P{i}a"), format!("P{i}b")]}),
            )
            .await;
        *id = json_with_status(r, 201, "team").await["id"]
            .as_i64()
            .unwrap();
    }
    ids
}

async fn add_match(admin: &Api, slug: &str, teams: [i64; 2], at: Option<&str>) -> Value {
    let mut body = json!({"team_a": teams[0], "team_b": teams[1], "table": "T1"});
    if let Some(at) = at {
        body["scheduled_at"] = json!(at);
    }
    let r = admin
        .post(&format!("/api/v1/leagues/{slug}/matches"), &body)
        .await;
    json_with_status(r, 201, "add a match").await
}

async fn send(
    app: &TestApp,
    admin: &Api,
    method: &str,
    path: &str,
    body: &Value,
) -> reqwest::Response {
    let method = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
    let request = app
        .client
        .request(method, app.url(path))
        .bearer_auth(&admin.token);
    // A string is the body as text: a roster's CSV.
    let request = match body.as_str() {
        Some(csv) => request
            .header("content-type", "text/csv")
            .body(csv.to_string()),
        None => request.json(body),
    };
    request.send().await.unwrap()
}

/// A league played to its decided final: two teams, a forfeited regular-season match, the
/// final (team 0 wins). Returns the teams and the final's id.
async fn decided(app: &TestApp, admin: &Api, slug: &str) -> ([i64; 2], i64) {
    let teams = league(admin, slug).await;
    let m = add_match(admin, slug, teams, None).await;
    let id = m["id"].as_i64().unwrap();
    let r = admin
        .post(
            &format!("/api/v1/matches/{id}/forfeit"),
            &json!({"team": "b"}),
        )
        .await;
    json_with_status(r, 200, "forfeit").await;
    let r = admin
        .post(
            &format!("/api/v1/leagues/{slug}/playoffs"),
            &json!({"format": "single_elimination"}),
        )
        .await;
    let bracket = json_with_status(r, 201, "playoffs").await;
    let final_id = bracket["matches"][0]["match_id"].as_i64().unwrap();
    let _ = app;
    play_a_wins(admin, final_id).await;
    (teams, final_id)
}

#[actix_web::test]
async fn an_archived_league_refuses_every_write_of_the_api_and_writes_nothing() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.user("sup", Role::Supervisor).await;
    let (teams, final_id) = decided(&app, &admin, "past").await;
    let roster = json_with_status(
        admin
            .get(&format!("/api/v1/teams/{}/roster", teams[0]))
            .await,
        200,
        "roster",
    )
    .await;
    let p: Vec<i64> = roster["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_i64().unwrap())
        .collect();
    // A match in progress (one hand), and one scheduled on a league night.
    let playing = add_match(&admin, "past", teams, None).await["id"]
        .as_i64()
        .unwrap();
    let playing = admin.play_hands(playing, &[a_hand()]).await;
    let waiting = add_match(&admin, "past", teams, Some("2027-01-05T19:00")).await;
    let w = waiting["id"].as_i64().unwrap();
    // Archiving waits for the match in progress.
    let e = expect_error(
        admin.post("/api/v1/leagues/past/archive", &json!({})).await,
        409,
        "match_started",
    )
    .await;
    let m = playing["id"].as_i64().unwrap();
    assert!(
        e["message"].as_str().unwrap().contains(&format!("#{m}")),
        "{e}"
    );
    // A league with teams only, archived through the API: what a schedule and a bracket
    // would be made for.
    league(&admin, "quiet").await;
    let quiet = json_with_status(
        admin
            .post("/api/v1/leagues/quiet/archive", &json!({}))
            .await,
        200,
        "archive quiet",
    )
    .await;
    assert_eq!(quiet["archived"], true);
    // `past` archived with its match still in progress (the API refuses to), so that every
    // write, hand entry included, has an object it would otherwise succeed on; with a
    // captain's reschedule request and dispute from before (ids 1), for the coordinator to
    // answer.
    {
        let mut tx = app.db.write().await.unwrap();
        let conn: &mut spades_im::db::Conn = &mut tx;
        spades_im::on_store!(conn, execute sqlx::query(
            "INSERT INTO reschedule_requests (match_id, team_id, captain, reason, proposals, created_at)
             VALUES ($1, $2, 'Kim, captain of A', 'exam', '[\"2027-02-01T19:00\"]', '2026-11-01T00:00:00Z')"
        ).bind(w).bind(teams[0]))
        .unwrap();
        spades_im::on_store!(conn, execute sqlx::query(
            "INSERT INTO disputes (match_id, team_id, captain, category, reason, created_at)
             VALUES ($1, $2, 'Kim, captain of A', 'result', 'late', '2026-11-01T00:00:00Z')"
        ).bind(w).bind(teams[0]))
        .unwrap();
        spades_im::on_store!(conn, execute sqlx::query(
            "UPDATE leagues SET archived = TRUE WHERE slug = 'past'"
        ))
        .unwrap();
        tx.commit().await.unwrap();
    }

    let v = |m: &Value| m["version"].clone();
    let final_now = json_with_status(
        app.get(&format!("/api/v1/matches/{final_id}")).await,
        200,
        "final",
    )
    .await;
    let walk: Vec<(&str, String, Value)> = vec![
        (
            "patch",
            "/api/v1/leagues/past".into(),
            json!({"settings": {"forfeit": {"grace_minutes": 5}}}),
        ),
        (
            "post",
            "/api/v1/leagues/past/teams".into(),
            json!({"name": "Late", "players": ["La", "Lb"]}),
        ),
        (
            "post",
            "/api/v1/leagues/past/divisions".into(),
            json!({"name": "Late"}),
        ),
        (
            "patch",
            format!("/api/v1/teams/{}", teams[0]),
            json!({"name": "Renamed"}),
        ),
        (
            "post",
            "/api/v1/leagues/past/supervisors".into(),
            json!({"username": "sup"}),
        ),
        (
            "post",
            "/api/v1/leagues/quiet/schedule".into(),
            json!({"format": "round_robin"}),
        ),
        (
            "post",
            "/api/v1/leagues/past/matches".into(),
            json!({"team_a": teams[0], "team_b": teams[1]}),
        ),
        (
            "post",
            format!("/api/v1/leagues/past/eligibility/{}", teams[0]),
            json!({"eligible": true, "reason": "appeal"}),
        ),
        (
            "post",
            "/api/v1/leagues/past/nights/move".into(),
            json!({"from": "2027-01-05", "to": "2027-01-06"}),
        ),
        (
            "post",
            "/api/v1/leagues/quiet/playoffs".into(),
            json!({"format": "single_elimination"}),
        ),
        ("post", "/api/v1/leagues/past/archive".into(), json!({})),
        (
            "post",
            "/api/v1/leagues/past/bracket/schedule".into(),
            json!({"matches": [{"id": final_id, "table": "T9"}]}),
        ),
        (
            "patch",
            format!("/api/v1/matches/{w}"),
            json!({"table": "T7", "expected_version": v(&waiting)}),
        ),
        ("post", format!("/api/v1/matches/{w}/start"), json!({})),
        (
            "post",
            format!("/api/v1/matches/{w}/default"),
            json!({"team": "a", "reason": "sick"}),
        ),
        (
            "post",
            "/api/v1/reschedule-requests/1/approve".into(),
            json!({"scheduled_at": "2027-02-01T19:00"}),
        ),
        (
            "post",
            "/api/v1/reschedule-requests/1/decline".into(),
            json!({"reason": "no"}),
        ),
        (
            "post",
            "/api/v1/disputes/1/resolve".into(),
            json!({"note": "stands"}),
        ),
        // Hand entry as the console's outbox replays it: batched, with an idempotency key.
        (
            "post",
            format!("/api/v1/matches/{m}/hands"),
            json!({"hand": a_hand(), "expected_version": v(&playing), "idempotency_key": "outbox-1"}),
        ),
        (
            "put",
            format!("/api/v1/matches/{final_id}/hands/1"),
            json!({"hand": {"a": {"bids": [4, 3], "tricks": [4, 4]}, "b": {"bids": [2, 2], "tricks": [3, 2]}}, "reason": "typo", "expected_version": v(&final_now)}),
        ),
        (
            "post",
            format!("/api/v1/matches/{m}/time"),
            json!({"expected_version": v(&playing)}),
        ),
        (
            "post",
            format!("/api/v1/matches/{w}/forfeit"),
            json!({"team": "b"}),
        ),
        (
            "post",
            format!("/api/v1/matches/{w}/check-in"),
            json!({"team": "a"}),
        ),
        (
            "post",
            format!("/api/v1/matches/{w}/lineup"),
            json!({"team": "a", "players": [p[0], p[1]]}),
        ),
        (
            "post",
            format!("/api/v1/matches/{final_id}/sportsmanship"),
            json!({"a": 4, "b": 5}),
        ),
        (
            "post",
            format!("/api/v1/matches/{w}/postpone"),
            json!({"reason": "gym"}),
        ),
        (
            "post",
            format!("/api/v1/matches/{w}/cancel"),
            json!({"reason": "gym"}),
        ),
        ("delete", format!("/api/v1/matches/{w}"), json!({})),
        ("delete", "/api/v1/leagues/past".into(), json!({})),
        (
            "post",
            format!("/api/v1/teams/{}/players", teams[0]),
            json!({"name": "Extra"}),
        ),
        (
            "patch",
            format!("/api/v1/players/{}", p[0]),
            json!({"name": "Renamed"}),
        ),
        ("post", format!("/api/v1/players/{}/erase", p[0]), json!({})),
        (
            "post",
            format!("/api/v1/players/{}/eligibility-override", p[0]),
            json!({"eligible": true, "reason": "ok"}),
        ),
        (
            "post",
            "/api/v1/leagues/past/roster".into(),
            json!("team,player\nNew Team,Nia\nNew Team,Ned\n"),
        ),
        (
            "put",
            "/api/v1/leagues/past/tables".into(),
            json!({"tables": ["1", "2"]}),
        ),
        ("post", "/api/v1/leagues/past/queue".into(), json!({})),
        (
            "post",
            format!("/api/v1/matches/{w}/call"),
            json!({"table": "1"}),
        ),
    ];
    let before = app.tables().await;
    let mut walked = BTreeSet::new();
    for (method, path, body) in &walk {
        let r = send(&app, &admin, method, path, body).await;
        let e = expect_error(r, 409, "league_archived").await;
        assert!(
            e["message"].as_str().unwrap().contains("archived"),
            "{method} {path}: {e}"
        );
        walked.insert((method.to_string(), template(path)));
    }
    app.assert_nothing_written(&before, "writes to an archived league")
        .await;

    // The walk covers every write of the API's document but those outside any league.
    let doc = json_with_status(app.get("/api/v1/openapi.json").await, 200, "openapi").await;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            if !["post", "put", "patch", "delete"].contains(&method.as_str())
                || NOT_LEAGUE_WRITES.contains(&(method.as_str(), path.as_str()))
            {
                continue;
            }
            assert!(
                walked.contains(&(method.clone(), path.clone())),
                "{method} {path} is not walked"
            );
            // … and each says, in the document, that it can answer so.
            let conflict = item[method]["responses"]["409"]["description"].as_str();
            assert!(
                conflict.is_some_and(|d| d.contains("league_archived")),
                "{method} {path}: the document's 409 names league_archived: {conflict:?}"
            );
        }
    }
    // Still public: reads answer as before.
    for path in [
        "/api/v1/leagues/past",
        "/api/v1/leagues/past/matches",
        "/leagues/past",
        "/leagues/past/schedule",
        "/leagues/past/bracket",
    ] {
        assert_eq!(app.get(path).await.status(), 200, "{path}");
    }
}

/// `path` with its ids put back as the document's parameters.
fn template(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').collect();
    let mut out = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let prev = if i > 0 { parts[i - 1] } else { "" };
        out.push(if part.parse::<i64>().is_ok() {
            match prev {
                "eligibility" => "{team_id}".to_string(),
                "hands" => "{number}".to_string(),
                _ => "{id}".to_string(),
            }
        } else if prev == "leagues" && i == 4 {
            "{slug}".to_string()
        } else {
            part.to_string()
        });
    }
    out.join("/")
}

#[actix_web::test]
async fn archive_lists_past_seasons_with_their_champion_and_unarchive_undoes_it() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let (teams, _) = decided(&app, &admin, "fall").await;
    league(&admin, "spring").await;
    let fall = json_with_status(app.get("/api/v1/leagues/fall").await, 200, "fall").await;
    assert_eq!(fall["archived"], false);
    assert_eq!(fall["champion"], json!({"id": teams[0], "name": "Team 0"}));
    let spring = json_with_status(app.get("/api/v1/leagues/spring").await, 200, "spring").await;
    assert_eq!(spring["champion"], Value::Null);

    let sup = app.api_user("sup", Role::Supervisor).await;
    let r = sup.post("/api/v1/leagues/fall/archive", &json!({})).await;
    assert_eq!(r.status(), 403);
    let archived = json_with_status(
        admin.post("/api/v1/leagues/fall/archive", &json!({})).await,
        200,
        "archive",
    )
    .await;
    assert_eq!(archived["archived"], true);
    assert_eq!(archived["champion"]["id"], teams[0]);
    let slugs = |v: &Value| -> Vec<String> {
        v["leagues"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["slug"].as_str().unwrap().to_string())
            .collect()
    };
    let current = json_with_status(app.get("/api/v1/leagues").await, 200, "list").await;
    assert_eq!(slugs(&current), ["spring"]);
    let past = json_with_status(app.get("/api/v1/leagues?archived=true").await, 200, "past").await;
    assert_eq!(slugs(&past), ["fall"]);
    assert_eq!(past["leagues"][0]["champion"]["name"], "Team 0");
    expect_error(
        app.get("/api/v1/leagues?archived=maybe").await,
        400,
        "malformed",
    )
    .await;
    // The home page and /leagues: current leagues, then the past seasons with champions.
    for page in ["/", "/leagues"] {
        let html = app.get(page).await.text().await.unwrap();
        let (current, past) = html
            .split_once("id=\"past-seasons\"")
            .unwrap_or_else(|| panic!("{page}: no past seasons: {html}"));
        assert!(past.contains("href=\"/leagues/fall\""), "{page}");
        assert!(past.contains("Champion: <strong>Team 0</strong>"), "{page}");
        assert!(
            !past.contains("/leagues/spring\""),
            "{page}: spring is current"
        );
        assert!(current.contains("href=\"/leagues/spring\""), "{page}");
        assert!(
            !current.contains("href=\"/leagues/fall\""),
            "{page}: fall is past"
        );
    }
    // Archiving twice is refused; unarchiving makes it writable again.
    expect_error(
        admin.post("/api/v1/leagues/fall/archive", &json!({})).await,
        409,
        "league_archived",
    )
    .await;
    let back = json_with_status(
        admin
            .post("/api/v1/leagues/fall/unarchive", &json!({}))
            .await,
        200,
        "unarchive",
    )
    .await;
    assert_eq!(back["archived"], false);
    let r = admin
        .patch(
            "/api/v1/leagues/fall",
            &json!({"settings": {"forfeit": {"grace_minutes": 5}}}),
        )
        .await;
    json_with_status(r, 200, "a change after unarchiving").await;
    assert_eq!(app.audit_rows("archive", &["entity"]).await.len(), 1);
    assert_eq!(app.audit_rows("unarchive", &["entity"]).await.len(), 1);
}

#[actix_web::test]
async fn clone_copies_rules_settings_and_optionally_teams_never_matches() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let (teams, _) = decided(&app, &admin, "fall").await;
    let r = admin
        .post(
            &format!("/api/v1/teams/{}/players", teams[0]),
            &json!({"name": "Kim", "student_id": "S-1"}),
        )
        .await;
    json_with_status(r, 201, "a third player").await;
    // A division, and a team added to it late (the others have played: theirs is fixed).
    let r = admin
        .post("/api/v1/leagues/fall/divisions", &json!({"name": "Rec"}))
        .await;
    let rec = json_with_status(r, 201, "division").await["id"].clone();
    let r = admin
        .post(
            "/api/v1/leagues/fall/teams",
            &json!({"name": "Late Adds", "players": ["Lu", "Li"], "division": rec}),
        )
        .await;
    json_with_status(r, 201, "a team in Rec").await;
    json_with_status(
        admin.post("/api/v1/leagues/fall/archive", &json!({})).await,
        200,
        "archive",
    )
    .await;
    let fall = json_with_status(app.get("/api/v1/leagues/fall").await, 200, "fall").await;

    let with = json_with_status(
        admin
            .post(
                "/api/v1/leagues/fall/clone",
                &json!({"name": "Spring", "slug": "spring", "teams": true}),
            )
            .await,
        201,
        "clone with teams",
    )
    .await;
    assert_eq!(with["archived"], false);
    assert_eq!(with["champion"], Value::Null);
    for field in ["rules_spec", "rules", "tiebreak_order", "settings"] {
        assert_eq!(with[field], fall[field], "{field}");
    }
    let copied =
        json_with_status(app.get("/api/v1/leagues/spring/teams").await, 200, "teams").await;
    let original =
        json_with_status(app.get("/api/v1/leagues/fall/teams").await, 200, "teams").await;
    let names = |v: &Value| -> Vec<Value> {
        v["teams"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| json!([t["name"], t["players"]]))
            .collect()
    };
    assert_eq!(names(&copied), names(&original));
    // The division is copied, and the team is in the copy's division of that name.
    let divisions = json_with_status(
        app.get("/api/v1/leagues/spring/divisions").await,
        200,
        "divisions",
    )
    .await;
    assert_eq!(divisions["divisions"].as_array().unwrap().len(), 1);
    assert_eq!(divisions["divisions"][0]["name"], "Rec");
    assert_ne!(
        divisions["divisions"][0]["id"], rec,
        "a division of its own"
    );
    for team in copied["teams"].as_array().unwrap() {
        let division = match team["name"].as_str() {
            Some("Late Adds") => divisions["divisions"][0]["id"].clone(),
            _ => Value::Null,
        };
        assert_eq!(team["division"], division, "{team}");
    }
    let first = copied["teams"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["players"].as_array().unwrap().contains(&json!("Kim")))
        .unwrap()["id"]
        .as_i64()
        .unwrap();
    let roster = json_with_status(
        admin.get(&format!("/api/v1/teams/{first}/roster")).await,
        200,
        "roster",
    )
    .await;
    assert!(
        roster["players"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["student_id"] == "S-1"),
        "{roster}"
    );
    let matches = json_with_status(
        app.get("/api/v1/leagues/spring/matches").await,
        200,
        "matches",
    )
    .await;
    assert_eq!(matches["matches"], json!([]));
    assert_eq!(
        app.get("/api/v1/leagues/spring/bracket").await.status(),
        404
    );

    let without = json_with_status(
        admin
            .post(
                "/api/v1/leagues/fall/clone",
                &json!({"name": "Summer Term"}),
            )
            .await,
        201,
        "clone without teams",
    )
    .await;
    assert_eq!(without["slug"], "summer-term");
    let none = json_with_status(
        app.get("/api/v1/leagues/summer-term/teams").await,
        200,
        "teams",
    )
    .await;
    assert_eq!(none["teams"], json!([]));
    let divisions = json_with_status(
        app.get("/api/v1/leagues/summer-term/divisions").await,
        200,
        "divisions",
    )
    .await;
    assert_eq!(divisions["divisions"][0]["name"], "Rec", "divisions always");
    // The slug taken, a bad slug, no name: on the field, nothing written.
    let before = app.tables().await;
    let e = expect_error(
        admin
            .post(
                "/api/v1/leagues/fall/clone",
                &json!({"name": "X", "slug": "spring"}),
            )
            .await,
        409,
        "slug_taken",
    )
    .await;
    assert_eq!(e["field"], "slug");
    let e = expect_error(
        admin
            .post(
                "/api/v1/leagues/fall/clone",
                &json!({"name": "X", "slug": "Bad Slug"}),
            )
            .await,
        422,
        "invalid_league",
    )
    .await;
    assert_eq!(e["field"], "slug");
    let e = expect_error(
        admin
            .post("/api/v1/leagues/fall/clone", &json!({"name": " "}))
            .await,
        422,
        "invalid_input",
    )
    .await;
    assert_eq!(e["field"], "name");
    app.assert_nothing_written(&before, "refused clones").await;
    assert_eq!(app.audit_rows("clone", &["entity"]).await.len(), 2);
}

#[actix_web::test]
async fn delete_removes_a_match_never_begun_and_refuses_one_that_began() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = league(&admin, "fall").await;
    let mistake = add_match(&admin, "fall", teams, Some("2027-01-05T19:00")).await;
    let id = mistake["id"].as_i64().unwrap();
    let checked = add_match(&admin, "fall", teams, None).await["id"]
        .as_i64()
        .unwrap();
    let r = admin
        .post(
            &format!("/api/v1/matches/{checked}/check-in"),
            &json!({"team": "a"}),
        )
        .await;
    json_with_status(r, 200, "check-in").await;
    let started = add_match(&admin, "fall", teams, None).await["id"]
        .as_i64()
        .unwrap();
    admin.start_match(started).await;
    let forfeited = add_match(&admin, "fall", teams, None).await["id"]
        .as_i64()
        .unwrap();
    let r = admin
        .post(
            &format!("/api/v1/matches/{forfeited}/forfeit"),
            &json!({"team": "b"}),
        )
        .await;
    json_with_status(r, 200, "forfeit").await;

    let sup = app.api_user("sup", Role::Supervisor).await;
    let r = send(
        &app,
        &sup,
        "delete",
        &format!("/api/v1/matches/{id}"),
        &json!({}),
    )
    .await;
    assert_eq!(r.status(), 403);
    let before = app.tables().await;
    for begun in [checked, started, forfeited] {
        let r = send(
            &app,
            &admin,
            "delete",
            &format!("/api/v1/matches/{begun}"),
            &json!({}),
        )
        .await;
        expect_error(r, 409, "match_started").await;
    }
    app.assert_nothing_written(&before, "refused deletes").await;
    let r = send(
        &app,
        &admin,
        "delete",
        &format!("/api/v1/matches/{id}"),
        &json!({}),
    )
    .await;
    assert_eq!(r.status(), 204);
    assert_eq!(
        app.get(&format!("/api/v1/matches/{id}")).await.status(),
        404
    );
    let schedule = app
        .get("/leagues/fall/schedule")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        !schedule.contains(&format!("/matches/{id}\"")),
        "gone from the public schedule"
    );
    let r = send(
        &app,
        &admin,
        "delete",
        &format!("/api/v1/matches/{id}"),
        &json!({}),
    )
    .await;
    assert_eq!(r.status(), 404);
    let audit = app.audit_rows("delete", &["entity", "before"]).await;
    assert_eq!(audit.len(), 1, "{audit:?}");
    assert_eq!(audit[0][0], "match");
    assert!(audit[0][1].contains("2027-01-05T19:00"), "{audit:?}");
    // The entry belongs to the league and the match, though the match is gone.
    for filter in ["league=fall", &format!("match={id}")] {
        let page = json_with_status(
            admin
                .get(&format!("/api/v1/audit?{filter}&action=delete"))
                .await,
            200,
            "audit",
        )
        .await;
        assert_eq!(
            page["entries"].as_array().unwrap().len(),
            1,
            "{filter}: {page}"
        );
    }
}

/// Runs `sql` (binding `id` as `$1`) in a write transaction of the app's store.
async fn write_sql(app: &TestApp, sql: &'static str, id: i64) {
    use spades_im::db::Connection as _;
    let mut tx = app.db.write().await.unwrap();
    spades_im::on_store!(tx, execute sqlx::query(sql).bind(id)).unwrap();
    tx.commit().await.unwrap();
}

/// Clears what the API sets with a lineup or a hand (checked in, started, in progress), so
/// that only the lineup or hand itself is left to refuse the delete.
const NEVER_STARTED: &str = "UPDATE matches SET status = 'scheduled', started_at = NULL,
     checked_in_a = NULL, checked_in_b = NULL WHERE id = $1";

/// Every refusal of `DELETE /api/v1/matches/{id}` (docs/api.md §18.2), each alone on a match
/// that has nothing else: team b checked in, a lineup, a hand, a sportsmanship rating, a
/// place in the bracket (409 `match_started`), and a never-begun match of an archived league
/// (409 `league_archived`). Nothing is written by any of them. (Team a checked in, started
/// and forfeited: `delete_removes_a_match_never_begun_and_refuses_one_that_began`.)
#[actix_web::test]
async fn delete_refuses_each_thing_that_makes_a_match_begun() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = league(&admin, "fall").await;
    let new_match = async || {
        add_match(&admin, "fall", teams, None).await["id"]
            .as_i64()
            .unwrap()
    };
    let roster = json_with_status(
        admin
            .get(&format!("/api/v1/teams/{}/roster", teams[0]))
            .await,
        200,
        "roster",
    )
    .await;
    let seats: Vec<i64> = roster["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_i64().unwrap())
        .collect();

    let checked_b = new_match().await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{checked_b}/check-in"),
            &json!({"team": "b"}),
        )
        .await;
    json_with_status(r, 200, "check-in b").await;

    let lined_up = new_match().await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{lined_up}/lineup"),
            &json!({"team": "a", "players": [seats[0], seats[1]]}),
        )
        .await;
    json_with_status(r, 200, "lineup").await;
    write_sql(&app, NEVER_STARTED, lined_up).await;

    let with_hand = new_match().await;
    admin.play_hands(with_hand, &[a_hand()]).await;
    write_sql(&app, NEVER_STARTED, with_hand).await;

    let rated = new_match().await;
    write_sql(
        &app,
        "INSERT INTO rating_notes (match_id, author_id, note) VALUES ($1, NULL, 'late')",
        rated,
    )
    .await;

    // A bracket's match, never begun, in a league of its own.
    let spring = league(&admin, "spring").await;
    add_match(&admin, "spring", spring, None).await;
    let r = admin
        .post(
            "/api/v1/leagues/spring/playoffs",
            &json!({"format": "single_elimination", "teams": 2, "force": true}),
        )
        .await;
    let bracket = json_with_status(r, 201, "playoffs").await;
    let in_bracket = bracket["matches"][0]["match_id"].as_i64().unwrap();

    // A never-begun match of a league archived since.
    let old = league(&admin, "old").await;
    let archived = add_match(&admin, "old", old, None).await["id"]
        .as_i64()
        .unwrap();
    let r = admin
        .post(
            "/api/v1/leagues/old/archive",
            &json!({"unplayed": "cancel"}),
        )
        .await;
    json_with_status(r, 200, "archive").await;

    let before = app.tables().await;
    // Every refusal is tried and each miss named, not only the first.
    let mut missed = Vec::new();
    for (id, code, what) in [
        (checked_b, "match_started", "team b checked in"),
        (lined_up, "match_started", "a lineup"),
        (with_hand, "match_started", "a hand"),
        (rated, "match_started", "a rating"),
        (in_bracket, "match_started", "a place in the bracket"),
        (archived, "league_archived", "an archived league"),
    ] {
        let r = send(
            &app,
            &admin,
            "delete",
            &format!("/api/v1/matches/{id}"),
            &json!({}),
        )
        .await;
        let status = r.status().as_u16();
        let body = r.text().await.unwrap();
        let answer: Value = serde_json::from_str(&body).unwrap_or_default();
        if (status, answer["error"]["code"].as_str()) != (409, Some(code)) {
            missed.push(format!("{what}: {status} {body}"));
        }
    }
    assert!(
        missed.is_empty(),
        "not refused as they should be:\n{}",
        missed.join("\n")
    );
    app.assert_nothing_written(&before, "refused deletes").await;
    // A match with none of these goes (the checks above are not refusing everything).
    let plain = new_match().await;
    let r = send(
        &app,
        &admin,
        "delete",
        &format!("/api/v1/matches/{plain}"),
        &json!({}),
    )
    .await;
    assert_eq!(r.status(), 204);
}
