//! Who may enter the playoffs (docs/api.md §6.10): each team judged by the league's
//! eligibility settings with the failing rules and what it needs in words, and the bracket
//! seeding only eligible teams.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{json_with_status, spawn_app};

fn row(table: &Value, team: i64) -> &Value {
    table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["team_id"] == team)
        .unwrap()
}

#[actix_web::test]
async fn only_eligible_teams_are_seeded_and_the_reasons_are_in_words() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let t = app.league(&admin, "fall", json!("classic"), 5).await;
    // Before any setting, everybody is eligible and nobody is at risk.
    let table = json_with_status(
        admin.get("/api/v1/leagues/fall/eligibility").await,
        200,
        "eligibility",
    )
    .await;
    assert!(
        table["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["eligible"] == true)
    );
    let r = admin
        .client
        .patch(app.url("/api/v1/leagues/fall"))
        .bearer_auth(&admin.token)
        .json(&json!({"settings": {"eligibility": {"max_forfeits": 0}, "forfeit": {"drop_after": 2}}}))
        .send()
        .await
        .unwrap();
    json_with_status(r, 200, "settings").await;
    // Team 1 forfeits its match against team 2; team 5 withdraws.
    let m = admin.add_match("fall", t[0], t[1], "T1").await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/forfeit", m["id"]),
            &json!({"team": "a"}),
        )
        .await;
    json_with_status(r, 200, "forfeit").await;
    let browser = {
        app.user("coord-page", Role::Admin).await;
        app.browser("coord-page").await
    };
    let r = browser
        .post_form(&format!("/admin/leagues/fall/teams/{}/withdraw", t[4]), &[])
        .await;
    assert!(
        r.status().is_redirection() || r.status().is_success(),
        "withdraw: {}",
        r.status()
    );

    let table = json_with_status(
        app.get("/api/v1/leagues/fall/eligibility").await,
        200,
        "eligibility",
    )
    .await;
    let one = row(&table, t[0]);
    assert_eq!(one["eligible"], false);
    assert_eq!(
        one["reasons"],
        json!(["1 forfeit, more than the 0 allowed"])
    );
    assert_eq!(
        one["at_risk"],
        json!(["one more forfeit and the team is dropped from the league"])
    );
    let two = row(&table, t[1]);
    assert_eq!(two["eligible"], true);
    assert_eq!(
        two["at_risk"],
        json!(["one more forfeit and you are out of the playoffs"])
    );
    let five = row(&table, t[4]);
    assert_eq!(five["eligible"], false);
    assert_eq!(five["reasons"], json!(["the team has withdrawn"]));

    // Four teams cannot be seeded from three eligible ones.
    let before = app.tables().await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/playoffs",
            &json!({"format": "single_elimination", "teams": 4}),
        )
        .await;
    let refused = json_with_status(r, 422, "four of three").await;
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("3 eligible"),
        "{refused}"
    );
    app.assert_nothing_written(&before, "a bracket of too many teams")
        .await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/playoffs",
            &json!({"format": "single_elimination"}),
        )
        .await;
    let bracket = json_with_status(r, 201, "playoffs").await;
    let seeded: Vec<i64> = bracket["matches"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| [m["team_a"]["id"].as_i64(), m["team_b"]["id"].as_i64()])
        .flatten()
        .collect();
    assert!(
        !seeded.contains(&t[0]),
        "team 1 is not eligible: {seeded:?}"
    );
    assert!(!seeded.contains(&t[4]), "team 5 has withdrawn");
    assert!(seeded.contains(&t[1]));
    // Unknown league: 404.
    assert_eq!(
        app.get("/api/v1/leagues/nope/eligibility").await.status(),
        404
    );
}

#[actix_web::test]
async fn playoffs_wait_for_the_season_unless_forced_and_a_force_is_audited() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let t = app.league(&admin, "fall", json!("classic"), 4).await;
    let done = admin.add_match("fall", t[0], t[1], "T1").await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/forfeit", done["id"]),
            &json!({"team": "b"}),
        )
        .await;
    json_with_status(r, 200, "forfeit").await;
    let open = admin.add_match("fall", t[2], t[3], "T2").await;
    let postponed = admin.add_match("fall", t[0], t[2], "T3").await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/postpone", postponed["id"]),
            &json!({"reason": "snow"}),
        )
        .await;
    json_with_status(r, 200, "postpone").await;
    let before = app.tables().await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/playoffs",
            &json!({"format": "single_elimination"}),
        )
        .await;
    let refused = json_with_status(r, 409, "unfinished").await;
    assert_eq!(refused["error"]["code"], "season_unfinished");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("2 regular-season matches are still to be played"),
        "{refused}"
    );
    app.assert_nothing_written(&before, "playoffs before the season ends")
        .await;
    // A cancelled match is not waited for; forcing creates it, and says so in the audit log.
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/cancel", open["id"]),
            &json!({"reason": "no gym"}),
        )
        .await;
    json_with_status(r, 200, "cancel").await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/playoffs",
            &json!({"format": "single_elimination", "force": true}),
        )
        .await;
    json_with_status(r, 201, "forced").await;
    let mut conn = app.db.read().await.unwrap();
    let reason: Option<String> = spades_im::on_store!(conn, |c| sqlx::query_scalar(
        "SELECT reason FROM audit_log WHERE action = 'create_playoffs'"
    )
    .fetch_one(c)
    .await)
    .unwrap();
    assert_eq!(
        reason.as_deref(),
        Some("forced with 1 regular-season match unplayed")
    );
}

#[actix_web::test]
async fn a_league_that_does_not_require_the_whole_season_seeds_at_once() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let t = app.league(&admin, "fall", json!("classic"), 4).await;
    admin.add_match("fall", t[0], t[1], "T1").await;
    let r = admin
        .client
        .patch(app.url("/api/v1/leagues/fall"))
        .bearer_auth(&admin.token)
        .json(&json!({"settings": {"eligibility": {"require_all_played": false}}}))
        .send()
        .await
        .unwrap();
    json_with_status(r, 200, "settings").await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/playoffs",
            &json!({"format": "single_elimination"}),
        )
        .await;
    json_with_status(r, 201, "playoffs mid-season").await;
    let mut conn = app.db.read().await.unwrap();
    let reason: Option<String> = spades_im::on_store!(conn, |c| sqlx::query_scalar(
        "SELECT reason FROM audit_log WHERE action = 'create_playoffs'"
    )
    .fetch_one(c)
    .await)
    .unwrap();
    assert_eq!(reason, None, "nothing was forced");
}

#[actix_web::test]
async fn a_team_is_dropped_at_its_nth_forfeit_in_the_same_transaction() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let t = app.league(&admin, "fall", json!("classic"), 4).await;
    let r = admin
        .client
        .patch(app.url("/api/v1/leagues/fall"))
        .bearer_auth(&admin.token)
        .json(&json!({"settings": {"forfeit": {"drop_after": 2}}}))
        .send()
        .await
        .unwrap();
    json_with_status(r, 200, "settings").await;
    let first = admin.add_match("fall", t[0], t[1], "T1").await;
    let second = admin.add_match("fall", t[2], t[0], "T2").await;
    let later = admin.add_match("fall", t[0], t[3], "T3").await;
    let others = admin.add_match("fall", t[1], t[2], "T4").await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/forfeit", first["id"]),
            &json!({"team": "a"}),
        )
        .await;
    json_with_status(r, 200, "first forfeit").await;
    let teams = json_with_status(app.get("/api/v1/leagues/fall/teams").await, 200, "teams").await;
    assert_eq!(
        teams["teams"][0]["withdrawn"], false,
        "one forfeit: still in"
    );
    // The second forfeit (team 1 is team b there) drops the team.
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/forfeit", second["id"]),
            &json!({"team": "b"}),
        )
        .await;
    json_with_status(r, 200, "second forfeit").await;
    let teams = json_with_status(app.get("/api/v1/leagues/fall/teams").await, 200, "teams").await;
    let one = teams["teams"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == t[0])
        .unwrap();
    assert_eq!(one["withdrawn"], true);
    assert_eq!(one["dropped_reason"], "dropped after 2 forfeits");
    // Its match not started is cancelled; the others' stays; its results stay.
    let later = json_with_status(
        app.get(&format!("/api/v1/matches/{}", later["id"])).await,
        200,
        "later",
    )
    .await;
    assert_eq!(later["status"], "cancelled");
    assert_eq!(later["status_note"], "Team 1 dropped after 2 forfeits");
    let others = json_with_status(
        app.get(&format!("/api/v1/matches/{}", others["id"])).await,
        200,
        "others",
    )
    .await;
    assert_eq!(others["status"], "scheduled");
    let standings = json_with_status(
        app.get("/api/v1/leagues/fall/standings").await,
        200,
        "standings",
    )
    .await;
    let row = standings["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["team_id"] == t[0])
        .unwrap();
    assert_eq!(row["forfeits"], 2, "results stay");
    let table = json_with_status(
        app.get("/api/v1/leagues/fall/eligibility").await,
        200,
        "eligibility",
    )
    .await;
    assert_eq!(
        row_of(&table, t[0])["reasons"],
        json!(["the team was dropped after 2 forfeits"])
    );
    let mut conn = app.db.read().await.unwrap();
    let audited: Vec<(String, Option<String>)> = spades_im::on_store!(conn, |c| sqlx::query_as(
        "SELECT after, reason FROM audit_log WHERE action = 'drop_team'"
    )
    .fetch_all(c)
    .await)
    .unwrap();
    assert_eq!(
        audited,
        vec![(
            "dropped after 2 forfeits; 1 matches cancelled".to_string(),
            Some("dropped after 2 forfeits".to_string())
        )]
    );
}

fn row_of(table: &Value, team: i64) -> &Value {
    row(table, team)
}
