//! The coordinator's side of the playoffs: creating the bracket from the admin page with a
//! preview, confirming a reset of a started path after a correction (console and API), and
//! choosing who advances after a double forfeit (docs/scoring.md §9.8–§9.9, docs/api.md §8.4–§8.5).

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, TestApp, spawn_app};
use crate::playoffs::{
    a_hand, b_big_hand, bracket, forfeit, get_match, play_a_wins, scheduled, season, start,
};

async fn audit_actions(app: &TestApp, action: &str) -> Vec<(i64, String, String)> {
    let mut conn = app.db.read().await.expect("reader");
    spades_im::on_store!(conn, |c| sqlx::query_as::<_, (i64, String, String)>(
        "SELECT entity_id, coalesce(before, ''), coalesce(reason, '') FROM audit_log
         WHERE action = $1 ORDER BY id",
    )
    .bind(action)
    .fetch_all(c)
    .await)
    .expect("audit")
}

async fn hands_of(app: &TestApp, id: i64) -> i64 {
    let mut conn = app.db.read().await.expect("reader");
    spades_im::on_store!(conn, |c| sqlx::query_scalar(
        "SELECT count(*) FROM hands WHERE match_id = $1"
    )
    .bind(id)
    .fetch_one(c)
    .await)
    .expect("count")
}

/// A 4-team single elimination: semi 1 won by A in two hands, semi 2 by forfeit, the final
/// started with one hand. Returns (semi1 id, its version, final id, final's team in the
/// semi-1 slot, semi-1's team B).
async fn final_under_way(app: &TestApp, admin: &Api, slug: &str) -> (i64, i64, i64, String, Value) {
    season(app, admin, slug, 4).await;
    let r = admin
        .post(
            &format!("/api/v1/leagues/{slug}/playoffs"),
            &json!({"format": "single_elimination"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let b: Value = r.json().await.unwrap();
    let semis = scheduled(&b);
    let semi1 = semis[0]["match_id"].as_i64().unwrap();
    let won = play_a_wins(admin, semi1).await;
    forfeit(admin, semis[1]["match_id"].as_i64().unwrap(), "b").await;
    let b = bracket(app, slug).await;
    let final_id = scheduled(&b).pop().unwrap()["match_id"].as_i64().unwrap();
    let slot = if semis[0]["next_slot"] == 0 {
        "team_a"
    } else {
        "team_b"
    };
    let m = start(admin, final_id).await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{final_id}/hands"),
            &json!({"hand": a_hand(), "expected_version": m["version"]}),
        )
        .await;
    assert_eq!(r.status(), 201);
    (
        semi1,
        won["version"].as_i64().unwrap(),
        final_id,
        slot.to_string(),
        semis[0]["team_b"].clone(),
    )
}

#[actix_web::test]
async fn an_admin_confirms_resetting_a_started_path_through_the_api() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.user("sam", Role::Supervisor).await;
    let r = admin
        .post(
            "/api/v1/leagues/spring/supervisors",
            &json!({"username": "sam"}),
        )
        .await;
    // The league does not exist yet: created by `season` below, assigned after.
    assert_eq!(r.status(), 404);
    let (semi1, version, final_id, slot, semi1_b) = final_under_way(&app, &admin, "spring").await;
    let r = admin
        .post(
            "/api/v1/leagues/spring/supervisors",
            &json!({"username": "sam"}),
        )
        .await;
    assert_eq!(r.status(), 204);
    let sam = app.api(&app.token("sam").await);
    let correction = json!({"hand": b_big_hand(), "reason": "tricks misread",
                            "expected_version": version});

    // Without the confirmation: 409 naming the final, nothing written.
    let before = (
        get_match(&app, semi1).await,
        get_match(&app, final_id).await,
    );
    let r = admin
        .put(&format!("/api/v1/matches/{semi1}/hands/2"), &correction)
        .await;
    assert_eq!(r.status(), 409);
    let e: Value = r.json().await.unwrap();
    assert_eq!(e["error"]["code"], "bracket_reset_needed");
    let message = e["error"]["message"].as_str().unwrap();
    assert!(message.contains(&format!("#{final_id}")), "{message}");
    assert!(message.contains("reset_bracket_path"), "{message}");
    assert_eq!(
        (
            get_match(&app, semi1).await,
            get_match(&app, final_id).await
        ),
        before
    );

    // A supervisor may not confirm it.
    let mut confirmed = correction.clone();
    confirmed["reset_bracket_path"] = json!(true);
    let r = sam
        .put(&format!("/api/v1/matches/{semi1}/hands/2"), &confirmed)
        .await;
    assert_eq!(r.status(), 403);
    assert_eq!(get_match(&app, final_id).await, before.1);

    // The admin confirms: the final is cancelled (its hand kept), a new final has the right
    // team, and the audit log says what was reset and why.
    let r = admin
        .put(&format!("/api/v1/matches/{semi1}/hands/2"), &confirmed)
        .await;
    assert_eq!(r.status(), 200);
    let semi: Value = r.json().await.unwrap();
    assert_eq!(semi["winner"], "b");
    let old_final = get_match(&app, final_id).await;
    assert_eq!(old_final["status"], "cancelled");
    assert_eq!(
        hands_of(&app, final_id).await,
        1,
        "the cancelled final keeps its hand"
    );
    let b = bracket(&app, "spring").await;
    let new_final = b["matches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["bracket"] == "final")
        .unwrap()
        .clone();
    let new_id = new_final["match_id"].as_i64().expect("a new final");
    assert_ne!(new_id, final_id);
    assert_eq!(new_final["status"], "scheduled");
    assert_eq!(new_final[slot.as_str()], semi1_b);
    assert_eq!(get_match(&app, new_id).await[slot.as_str()], semi1_b);
    let resets = audit_actions(&app, "reset_bracket_path").await;
    assert_eq!(resets.len(), 1);
    assert_eq!(resets[0].0, final_id);
    assert!(resets[0].1.contains("in_progress"), "{resets:?}");
    assert!(resets[0].2.contains("tricks misread"), "{resets:?}");
}

#[actix_web::test]
async fn the_console_shows_what_a_reset_cancels_and_asks_the_admin_to_confirm() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.user("sam", Role::Supervisor).await;
    let (semi1, version, final_id, _, _) = final_under_way(&app, &admin, "fall").await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "sam"}),
        )
        .await;
    assert_eq!(r.status(), 204);
    let v = version.to_string();
    // The typed correction: hand 2 as `b_big_hand`.
    let fields = [
        ("expected_version", v.as_str()),
        ("reason", "tricks misread"),
        ("a_bid0", "3"),
        ("a_bid1", "3"),
        ("a_tricks0", "1"),
        ("a_tricks1", "1"),
        ("b_bid0", "4"),
        ("b_bid1", "3"),
        ("b_tricks0", "6"),
        ("b_tricks1", "5"),
    ];
    let path = format!("/supervise/matches/{semi1}/hands/2");

    // A supervisor is told to ask the coordinator; nothing changes.
    let sam = app.browser("sam").await;
    let r = sam.post_form(&path, &fields).await;
    assert_eq!(r.status(), 409);
    let page = r.text().await.unwrap();
    assert!(page.contains("Ask the coordinator"), "{page}");
    assert!(page.contains(&format!("#{final_id}")));
    assert!(!page.contains("reset-form"));
    assert_eq!(get_match(&app, final_id).await["status"], "in_progress");

    // The admin sees the final that resets (teams, score, hands) and a confirm form that
    // carries the typed correction.
    let coord = app.browser("coord").await;
    let r = coord.post_form(&path, &fields).await;
    assert_eq!(r.status(), 409);
    let page = r.text().await.unwrap();
    assert!(page.contains(&format!("id=\"reset-{final_id}\"")), "{page}");
    assert!(page.contains("id=\"reset-form\""));
    assert!(page.contains("name=\"reset_bracket_path\" value=\"1\""));
    assert!(page.contains("name=\"b_tricks0\" value=\"6\""));
    assert!(page.contains("tricks misread"));
    assert_eq!(get_match(&app, final_id).await["status"], "in_progress");

    // Confirming resets the final and saves the correction.
    let mut confirmed = fields.to_vec();
    confirmed.push(("reset_bracket_path", "1"));
    let r = coord.post_form(&path, &confirmed).await;
    assert_eq!(r.status(), 303);
    assert_eq!(get_match(&app, semi1).await["winner"], "b");
    assert_eq!(get_match(&app, final_id).await["status"], "cancelled");
    assert_eq!(audit_actions(&app, "reset_bracket_path").await.len(), 1);
}

#[actix_web::test]
async fn a_playoff_double_forfeit_waits_for_the_admin_to_choose_who_advances() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.user("sam", Role::Supervisor).await;
    season(&app, &admin, "fall", 4).await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "sam"}),
        )
        .await;
    assert_eq!(r.status(), 204);
    let sam = app.api(&app.token("sam").await);
    let r = admin
        .post(
            "/api/v1/leagues/fall/playoffs",
            &json!({"format": "single_elimination"}),
        )
        .await;
    let b: Value = r.json().await.unwrap();
    let semi = scheduled(&b)[0].clone();
    let id = semi["match_id"].as_i64().unwrap();
    let url = format!("/api/v1/matches/{id}/forfeit");

    let r = sam.post(&url, &json!({"team": "both"})).await;
    assert_eq!(r.status(), 409);
    let e: Value = r.json().await.unwrap();
    assert_eq!(e["error"]["code"], "double_forfeit_playoff");
    let r = sam
        .post(&url, &json!({"team": "both", "advance": "b"}))
        .await;
    assert_eq!(r.status(), 403);
    let r = admin
        .post(&url, &json!({"team": "both", "advance": "c"}))
        .await;
    assert_eq!(r.status(), 422);
    let e: Value = r.json().await.unwrap();
    assert_eq!(e["error"]["field"], "advance");
    let r = admin
        .post(&url, &json!({"team": "a", "advance": "b"}))
        .await;
    assert_eq!(r.status(), 422);
    assert_eq!(get_match(&app, id).await["status"], "scheduled");

    let r = admin
        .post(&url, &json!({"team": "both", "advance": "b"}))
        .await;
    assert_eq!(r.status(), 200);
    let m: Value = r.json().await.unwrap();
    assert_eq!(m["status"], "forfeit");
    assert_eq!(m["winner"], "b");
    let b = bracket(&app, "fall").await;
    let fin = b["matches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["bracket"] == "final")
        .unwrap()
        .clone();
    let slot = if semi["next_slot"] == 0 {
        "team_a"
    } else {
        "team_b"
    };
    assert_eq!(fin[slot], semi["team_b"], "team b advanced");
    let audit = audit_actions(&app, "forfeit").await;
    assert!(audit.iter().any(|(e, _, _)| *e == id));

    // The console: a supervisor sees the note, not the buttons; the admin sees both choices.
    let other = scheduled(&b)
        .into_iter()
        .find(|m| m["bracket"] == "winners")
        .unwrap();
    let other_id = other["match_id"].as_i64().unwrap();
    let page = app
        .browser("sam")
        .await
        .get(&format!("/supervise/matches/{other_id}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("id=\"double-forfeit-note\""), "{page}");
    assert!(!page.contains("forfeit-both"));
    let coord = app.browser("coord").await;
    let page = coord
        .get(&format!("/supervise/matches/{other_id}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("value=\"both-a\""));
    assert!(page.contains("value=\"both-b\""));
    let r = coord
        .post_form(
            &format!("/supervise/matches/{other_id}/forfeit"),
            &[("team", "both-a"), ("confirm", "1")],
        )
        .await;
    assert_eq!(r.status(), 303);
    let m = get_match(&app, other_id).await;
    assert_eq!(
        (m["status"].as_str(), m["winner"].as_str()),
        (Some("forfeit"), Some("a"))
    );
}

#[actix_web::test]
async fn the_admin_previews_then_creates_the_playoffs_from_the_page() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let seeds = season(&app, &admin, "fall", 6).await;
    let coord = app.browser("coord").await;
    let page = coord.get("/admin/leagues/fall/playoffs").await;
    assert_eq!(page.status(), 200);
    let page = page.text().await.unwrap();
    assert!(
        page.contains("value=\"6\""),
        "defaults to every active team"
    );

    // A bad field comes back with the typed values and the message next to it.
    let r = coord
        .post_form(
            "/admin/leagues/fall/playoffs",
            &[
                ("format", "double_elimination"),
                ("teams", "six"),
                ("grand_final", "simple"),
                ("action", "preview"),
            ],
        )
        .await;
    assert_eq!(r.status(), 422);
    let page = r.text().await.unwrap();
    assert!(page.contains("id=\"teams-error\""));
    assert!(page.contains("value=\"six\""));
    assert!(page.contains("value=\"simple\" selected"));
    assert!(page.contains("value=\"double_elimination\" checked"));
    let r = coord
        .post_form(
            "/admin/leagues/fall/playoffs",
            &[
                ("format", "single_elimination"),
                ("teams", "9"),
                ("action", "create"),
            ],
        )
        .await;
    assert_eq!(r.status(), 422);
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("the league has 6 eligible")
    );
    assert_eq!(app.get("/api/v1/leagues/fall/bracket").await.status(), 404);

    // The preview: seeds from the standings, byes to seeds 1 and 2, the pairings; nothing
    // saved.
    let r = coord
        .post_form(
            "/admin/leagues/fall/playoffs",
            &[
                ("format", "single_elimination"),
                ("teams", "6"),
                ("third_place", "1"),
                ("action", "preview"),
            ],
        )
        .await;
    assert_eq!(r.status(), 200);
    let page = r.text().await.unwrap();
    assert!(page.contains("id=\"playoffs-preview\""));
    assert!(page.contains("6 teams, 2 byes"), "{page}");
    let standings: Value = app
        .get("/api/v1/leagues/fall/standings")
        .await
        .json()
        .await
        .unwrap();
    let name_of = |id: i64| {
        standings["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["team_id"] == id)
            .unwrap()["team"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let seed1 = name_of(seeds[0]);
    assert!(
        page.contains(&format!("<td>1</td><td>{seed1}</td><td>bye</td>")),
        "{page}"
    );
    let (s3, s6) = (name_of(seeds[2]), name_of(seeds[5]));
    assert!(page.contains(&format!("(3) {s3} v (6) {s6}")), "{page}");
    // The preview is drawn as the bracket page draws it, without match links.
    assert!(page.contains("id=\"bracket\""), "{page}");
    assert!(page.contains("Semi-finals"));
    assert!(page.contains("Third place"));
    assert!(!page.contains("href=\"/matches/"));
    assert_eq!(app.get("/api/v1/leagues/fall/bracket").await.status(), 404);

    // Create: to the bracket page; the bracket is the previewed one.
    let r = coord
        .post_form(
            "/admin/leagues/fall/playoffs",
            &[
                ("format", "single_elimination"),
                ("teams", "6"),
                ("third_place", "1"),
                ("action", "create"),
            ],
        )
        .await;
    assert_eq!(r.status(), 303);
    assert_eq!(
        r.headers()["location"].to_str().unwrap(),
        "/leagues/fall/bracket"
    );
    let b = bracket(&app, "fall").await;
    assert_eq!(b["teams"], 6);
    assert_eq!(b["third_place"], true);
    let page = coord
        .get("/admin/leagues/fall/playoffs")
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("id=\"bracket-exists\""));
    // A second bracket is refused, on the form.
    let r = coord
        .post_form(
            "/admin/leagues/fall/playoffs",
            &[("format", "single_elimination"), ("action", "create")],
        )
        .await;
    assert_eq!(r.status(), 422);
    // Supervisors may not see the page.
    app.user("sam", Role::Supervisor).await;
    let r = app
        .browser("sam")
        .await
        .get("/admin/leagues/fall/playoffs")
        .await;
    assert_eq!(r.status(), 403);
}
