//! Who may enter the playoffs (docs/api.md §6.10): each team judged by the league's
//! eligibility settings with the failing rules and what it needs in words, and the bracket
//! seeding only eligible teams.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{hand_of, json_with_status, spawn_app};

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
    // Each one named, with its state.
    let message = refused["error"]["message"].as_str().unwrap();
    for (m, state) in [(&open, "scheduled"), (&postponed, "postponed")] {
        let named = format!(
            "M{} · {} v {}, {state} — not played",
            m["id"],
            m["team_a"]["name"].as_str().unwrap(),
            m["team_b"]["name"].as_str().unwrap()
        );
        assert!(message.contains(&named), "{named} in {message}");
    }
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
async fn the_playoffs_page_names_the_unplayed_matches_and_only_its_anyway_button_forces() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let t = app.league(&admin, "fall", json!("classic"), 4).await;
    let postponed = admin.add_match("fall", t[0], t[2], "T3").await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/postpone", postponed["id"]),
            &json!({"reason": "snow"}),
        )
        .await;
    json_with_status(r, 200, "postpone").await;
    let id = postponed["id"].as_i64().unwrap();
    let named = format!(
        "<a href=\"/matches/{id}\">M{id} · {} v {}, postponed — not played</a>",
        postponed["team_a"]["name"].as_str().unwrap(),
        postponed["team_b"]["name"].as_str().unwrap()
    );
    let coord = app.browser("coord").await;
    // Choices off the defaults, to see them kept: 3 teams, no third-place match.
    let form = |action: &'static str| {
        [
            ("format", "single_elimination"),
            ("teams", "3"),
            ("action", action),
        ]
    };
    // The preview names the match, with its link, and offers the second button.
    let r = coord
        .post_form("/admin/leagues/fall/playoffs", &form("preview"))
        .await;
    assert_eq!(r.status(), 200);
    let page = r.text().await.unwrap();
    let unplayed = &page[page.find("id=\"preview-unplayed\"").expect("listed")..];
    assert!(unplayed.contains(&named), "{page}");
    assert!(page.contains("id=\"create-anyway\""), "{page}");

    // The normal button never forces (not even with the old checkbox sent along): refused,
    // the error summary first and focused, in words, naming the match; the preview and
    // the choices kept.
    let mut with_checkbox = form("create").to_vec();
    with_checkbox.push(("force", "1"));
    let r = coord
        .post_form("/admin/leagues/fall/playoffs", &with_checkbox)
        .await;
    assert_eq!(r.status(), 422);
    let page = r.text().await.unwrap();
    let summary = page.find("class=\"error-summary\"").expect("summary");
    let summary_tag = &page[summary..summary + page[summary..].find('>').unwrap()];
    assert!(summary_tag.contains("autofocus"), "{summary_tag}");
    assert!(
        summary < page.find("id=\"eligibility-section\"").unwrap(),
        "the summary is at the top"
    );
    let summary = &page[summary..summary + page[summary..].find("</div>").unwrap()];
    assert!(
        summary.contains("the regular season is not over"),
        "{summary}"
    );
    assert!(summary.contains(&named), "{summary}");
    assert!(!summary.contains("\"force\""), "API wording: {summary}");
    assert!(page.contains("id=\"playoffs-preview\""), "{page}");
    assert!(page.contains("3 teams, 1 bye"), "{page}");
    assert!(page.contains("id=\"teams\" name=\"teams\" inputmode=\"numeric\" value=\"3\""));
    assert!(
        !page.contains("id=\"third_place\" value=\"1\" checked"),
        "{page}"
    );
    assert!(page.contains("id=\"create-anyway\""), "{page}");
    assert_eq!(app.get("/api/v1/leagues/fall/bracket").await.status(), 404);

    // The second button creates it, with the choices.
    let r = coord
        .post_form("/admin/leagues/fall/playoffs", &form("create_anyway"))
        .await;
    assert_eq!(r.status(), 303);
    let b = json_with_status(
        app.get("/api/v1/leagues/fall/bracket").await,
        200,
        "bracket",
    )
    .await;
    assert_eq!(b["teams"], 3);
    assert_eq!(b["third_place"], false);
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

/// Sets (or with `null` removes) the league's `min_matches_played`.
async fn min_matches(admin: &crate::helpers::Api, value: Value) -> reqwest::Response {
    admin
        .patch(
            "/api/v1/leagues/fall",
            &json!({"settings": {"eligibility": {"min_matches_played": value}}}),
        )
        .await
}

/// The coordinator's decision on player `id`, sent by `who`.
async fn decide(who: &crate::helpers::Api, id: i64, body: &Value) -> reqwest::Response {
    who.post(&format!("/api/v1/players/{id}/eligibility-override"), body)
        .await
}

/// Team `side`'s lineup of match `m`.
async fn lineup(
    admin: &crate::helpers::Api,
    m: i64,
    side: &str,
    seats: [i64; 2],
) -> reqwest::Response {
    admin
        .post(
            &format!("/api/v1/matches/{m}/lineup"),
            &json!({"team": side, "players": seats}),
        )
        .await
}

/// The players of team `team` by name (admin roster).
async fn players_of(admin: &crate::helpers::Api, team: i64) -> Vec<(String, i64)> {
    let r = admin.get(&format!("/api/v1/teams/{team}/roster")).await;
    json_with_status(r, 200, "roster").await["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["id"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// Player eligibility (docs/api.md §15): under `min_matches_played`, a player short of
/// complete regular-season matches is refused in a playoff lineup (409 `player_ineligible`,
/// nothing written) but not in a regular-season one, until the coordinator decides so with a
/// reason (audited); every refusal of the decision writes nothing.
#[actix_web::test]
async fn a_player_short_of_matches_sits_out_the_playoffs_until_the_coordinator_decides() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Fall", "slug": "fall", "rules": {"regular": "classic"}}),
        )
        .await;
    json_with_status(r, 201, "league").await;
    let mut t = Vec::new();
    for body in [
        json!({"name": "Aces", "players": ["Ann", "Al", {"name": "Cy Park", "student_id": "cy4242", "email": "cy@example.edu"}]}),
        json!({"name": "Kings", "players": ["Kim", "Ken"]}),
    ] {
        let r = admin.post("/api/v1/leagues/fall/teams", &body).await;
        t.push(
            json_with_status(r, 201, "team").await["id"]
                .as_i64()
                .unwrap(),
        );
    }
    let aces = players_of(&admin, t[0]).await;
    let kings = players_of(&admin, t[1]).await;
    let (ann, al, cy) = (aces[0].1, aces[1].1, aces[2].1);
    // Out of range: 422 by the field, nothing written.
    let before = app.tables().await;
    for bad in [json!(0), json!(51)] {
        let e = json_with_status(min_matches(&admin, bad).await, 422, "range").await;
        assert_eq!(
            e["error"]["field"], "settings.eligibility.min_matches_played",
            "{e}"
        );
    }
    app.assert_nothing_written(&before, "a minimum out of range")
        .await;
    json_with_status(min_matches(&admin, json!(1)).await, 200, "min 1").await;

    // A regular-season match Ann and Al play to the end (Aces win 5 hands of 121).
    let m = admin.add_match("fall", t[0], t[1], "T1").await["id"]
        .as_i64()
        .unwrap();
    for (team, seats) in [("a", [ann, al]), ("b", [kings[0].1, kings[1].1])] {
        let r = admin
            .post(
                &format!("/api/v1/matches/{m}/lineup"),
                &json!({"team": team, "players": seats}),
            )
            .await;
        json_with_status(r, 200, "lineup").await;
    }
    let hands: Vec<Value> = (0..5)
        .map(|_| hand_of([6, 6], [7, 6], [1, 1], [0, 0]))
        .collect();
    let done = admin.play_hands(m, &hands).await;
    assert_eq!(done["status"], "complete", "{done}");
    // A second regular-season match: Cy may sit in it (no playoff check there).
    let m2 = admin.add_match("fall", t[0], t[1], "T2").await["id"]
        .as_i64()
        .unwrap();
    let r = admin
        .post(
            &format!("/api/v1/matches/{m2}/lineup"),
            &json!({"team": "a", "players": [ann, cy]}),
        )
        .await;
    json_with_status(r, 200, "Cy in the regular season").await;

    // The eligibility rows list each team's players, names and ids only.
    let table = json_with_status(
        app.get("/api/v1/leagues/fall/eligibility").await,
        200,
        "eligibility",
    )
    .await;
    let players = &row(&table, t[0])["players"];
    let shown: Vec<Value> = players
        .as_array()
        .unwrap()
        .iter()
        .map(|p| json!([p["id"], p["name"], p["eligible"], p["matches"]]))
        .collect();
    assert_eq!(
        shown,
        [
            json!([ann, "Ann", true, 1]),
            json!([al, "Al", true, 1]),
            json!([cy, "Cy Park", false, 0])
        ]
    );
    assert_eq!(
        players[2]["needs"],
        "Cy Park needs 1 more regular-season match to play in the playoffs"
    );
    assert_eq!(
        row(&table, t[0])["eligible"],
        true,
        "the team is not judged by its players"
    );
    let text = table.to_string();
    assert!(
        !text.contains("CY4242") && !text.contains("cy@example"),
        "{text}"
    );
    // The admin's Player.matches: the finished matches each sat in.
    let r = admin.get(&format!("/api/v1/teams/{}/roster", t[0])).await;
    let roster = json_with_status(r, 200, "roster").await;
    let matches: Vec<&Value> = roster["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["matches"])
        .collect();
    assert_eq!(matches, [&json!(1), &json!(1), &json!(0)]);
    // The team page says what Cy needs.
    let (_, _, page) =
        crate::helpers::anonymous_get(&app, &format!("/leagues/fall/teams/{}", t[0])).await;
    let needs = crate::helpers::html_element(&page, "team-player-needs", "</ul>").expect("needs");
    assert!(
        crate::helpers::html_text(needs)
            .contains("Cy Park needs 1 more regular-season match to play in the playoffs"),
        "{needs}"
    );
    // So does the coordinator's eligibility table, in the team's row.
    app.user("coord-table", Role::Admin).await;
    let coordinator = app.browser("coord-table").await;
    let table = coordinator
        .get("/admin/leagues/fall/playoffs")
        .await
        .text()
        .await
        .unwrap();
    let row = crate::helpers::html_element(&table, &format!("elig-{}", t[0]), "</tr>")
        .expect("the team's row");
    assert!(
        crate::helpers::html_text(row)
            .contains("Cy Park needs 1 more regular-season match to play in the playoffs"),
        "{row}"
    );

    // The playoffs: Cy is refused in a playoff lineup, and nothing is written.
    let r = admin
        .post(
            "/api/v1/leagues/fall/playoffs",
            &json!({"format": "single_elimination", "teams": 2, "force": true}),
        )
        .await;
    let bracket = json_with_status(r, 201, "playoffs").await;
    let p = &bracket["matches"][0];
    let side = if p["team_a"]["id"] == t[0] { "a" } else { "b" };
    let p = p["match_id"].as_i64().unwrap();
    let before = app.tables().await;
    let e = json_with_status(
        lineup(&admin, p, side, [ann, cy]).await,
        409,
        "Cy in the playoffs",
    )
    .await;
    assert_eq!(e["error"]["code"], "player_ineligible");
    assert_eq!(
        e["error"]["message"],
        "Cy Park needs 1 more regular-season match to play in the playoffs"
    );
    app.assert_nothing_written(&before, "an ineligible player")
        .await;

    // The decision's refusals write nothing: no reason, `false`, a supervisor, no player.
    let sue = app.api_user("sue", Role::Supervisor).await;
    let before = app.tables().await;
    for body in [
        json!({"eligible": true}),
        json!({"eligible": true, "reason": "  "}),
        json!({"eligible": false, "reason": "no"}),
    ] {
        let e = json_with_status(decide(&admin, cy, &body).await, 422, "bad").await;
        assert_eq!(e["error"]["code"], "invalid_input", "{body}: {e}");
    }
    let r = decide(&sue, cy, &json!({"eligible": true, "reason": "x"})).await;
    json_with_status(r, 403, "supervisor").await;
    let r = decide(&admin, 999_999, &json!({"eligible": true, "reason": "x"})).await;
    json_with_status(r, 404, "no player").await;
    app.assert_nothing_written(&before, "refused decisions")
        .await;

    // The decision lets Cy in, audited with its reason.
    let r = decide(
        &admin,
        cy,
        &json!({"eligible": true, "reason": "joined late from the waiting list"}),
    )
    .await;
    let decided = json_with_status(r, 200, "decision").await;
    assert_eq!(decided["eligible"], true);
    assert_eq!(decided["matches"], 0);
    assert_eq!(
        decided["override"]["reason"],
        "joined late from the waiting list"
    );
    assert_eq!(decided["override"]["by"], "coord");
    let mut conn = app.db.read().await.unwrap();
    let audited: Vec<(String, String)> = spades_im::on_store!(conn, |c| sqlx::query_as(
        "SELECT coalesce(after, ''), coalesce(reason, '') FROM audit_log
         WHERE action = 'override_eligibility' AND entity = 'player' AND entity_id = $1"
    )
    .bind(cy)
    .fetch_all(c)
    .await)
    .unwrap();
    drop(conn);
    assert_eq!(audited.len(), 1, "{audited:?}");
    assert_eq!(audited[0].1, "joined late from the waiting list");
    let view = json_with_status(lineup(&admin, p, side, [ann, cy]).await, 200, "Cy let in").await;
    let seated = &view["lineup"][side];
    assert_eq!(seated[1]["name"], "Cy Park", "{view}");

    // Removed again: Cy is refused once more (another seat order makes it a change).
    let r = decide(&admin, cy, &json!({"eligible": null})).await;
    assert_eq!(json_with_status(r, 200, "removed").await["eligible"], false);
    let before = app.tables().await;
    let e = json_with_status(lineup(&admin, p, side, [cy, ann]).await, 409, "again").await;
    assert_eq!(e["error"]["code"], "player_ineligible");
    app.assert_nothing_written(&before, "refused again").await;

    // Without a minimum, nobody is held back.
    json_with_status(min_matches(&admin, Value::Null).await, 200, "no minimum").await;
    json_with_status(lineup(&admin, p, side, [cy, ann]).await, 200, "no minimum").await;
}

/// The admin players page's eligibility block: a decision without a reason is refused by
/// its field with nothing written; with one, the player may play; then it is removed.
#[actix_web::test]
async fn the_players_page_decides_a_players_eligibility_with_a_reason() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let t = app.league(&admin, "fall", json!("classic"), 2).await;
    let r = admin
        .patch(
            "/api/v1/leagues/fall",
            &json!({"settings": {"eligibility": {"min_matches_played": 2}}}),
        )
        .await;
    json_with_status(r, 200, "settings").await;
    let p1a = players_of(&admin, t[0]).await[0].1;
    app.user("boss", Role::Admin).await;
    let boss = app.browser("boss").await;
    let page = format!("/admin/leagues/fall/teams/{}/players", t[0]);
    let html = boss.get(&page).await.text().await.unwrap();
    let block = crate::helpers::html_element(&html, "eligibility-players", "</ul>").unwrap();
    assert!(
        crate::helpers::html_text(block)
            .contains("P1a: 0 regular-season matches · not eligible yet"),
        "{block}"
    );
    let action = format!("{page}/{p1a}/eligibility");
    let before = app.tables().await;
    let r = boss
        .post_form(&action, &[("eligible", "1"), ("reason", " ")])
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    assert!(
        html.contains(&format!("href=\"#elig-{p1a}-reason\"")),
        "{html}"
    );
    assert!(html.contains(&format!("id=\"elig-{p1a}-reason-error\"")));
    app.assert_nothing_written(&before, "a decision without a reason")
        .await;
    let r = boss
        .post_form(&action, &[("eligible", "1"), ("reason", "transfer <ok>")])
        .await;
    assert_eq!(r.status(), 200);
    let html = r.text().await.unwrap();
    assert!(html.contains("P1a may play in the playoffs."), "{html}");
    assert!(
        html.contains("(your decision: transfer &#60;ok&#62;)"),
        "{html}"
    );
    let r = boss.post_form(&action, &[("eligible", "")]).await;
    let html = r.text().await.unwrap();
    assert!(html.contains("The decision on P1a is removed."), "{html}");
}

/// Enters `hand` in match `m` (started) until it is over (at most 20 hands); the match then.
async fn play_out(admin: &crate::helpers::Api, m: i64, hand: &Value) -> Value {
    let mut view = admin.start_match(m).await;
    for _ in 0..20 {
        view = admin.enter_hand(&view, hand).await;
        if view["status"] == "complete" {
            return view;
        }
    }
    panic!("match {m} not over after 20 hands: {view}");
}

/// Only complete regular-season matches count toward `min_matches_played`, in the league's
/// table (`GET /api/v1/leagues/{slug}/eligibility`) and for one player (the verdict a
/// decision answers, the one a playoff lineup is judged by): a regular-season match still in
/// play does not, a complete playoff match does not, a complete regular-season match does.
#[actix_web::test]
async fn only_complete_regular_season_matches_count_toward_eligibility() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Fall", "slug": "fall", "rules": {"regular": "classic"}}),
        )
        .await;
    json_with_status(r, 201, "league").await;
    let mut t = Vec::new();
    for body in [
        json!({"name": "Aces", "players": ["Ann", "Al", "Cy", "Dee", "Eve", "Fay"]}),
        json!({"name": "Kings", "players": ["Kim", "Ken"]}),
    ] {
        let r = admin.post("/api/v1/leagues/fall/teams", &body).await;
        t.push(
            json_with_status(r, 201, "team").await["id"]
                .as_i64()
                .unwrap(),
        );
    }
    let aces: Vec<i64> = players_of(&admin, t[0]).await.iter().map(|p| p.1).collect();
    let kings: Vec<i64> = players_of(&admin, t[1]).await.iter().map(|p| p.1).collect();
    let (ann, al, cy, dee, eve, fay) = (aces[0], aces[1], aces[2], aces[3], aces[4], aces[5]);
    let hand = hand_of([6, 6], [7, 6], [1, 1], [0, 0]);

    // Ann and Al: a regular-season match still in play (one hand).
    let playing = admin.add_match("fall", t[0], t[1], "T1").await["id"]
        .as_i64()
        .unwrap();
    for (side, seats) in [("a", [ann, al]), ("b", [kings[0], kings[1]])] {
        json_with_status(lineup(&admin, playing, side, seats).await, 200, "lineup").await;
    }
    let m = admin.play_hands(playing, std::slice::from_ref(&hand)).await;
    assert_eq!(m["status"], "in_progress", "{m}");
    // Eve and Fay: a complete regular-season match.
    let done = admin.add_match("fall", t[0], t[1], "T2").await["id"]
        .as_i64()
        .unwrap();
    for (side, seats) in [("a", [eve, fay]), ("b", [kings[0], kings[1]])] {
        json_with_status(lineup(&admin, done, side, seats).await, 200, "lineup").await;
    }
    play_out(&admin, done, &hand).await;
    // Cy and Dee: the final, played to its end (no minimum yet, so they may sit in it).
    let r = admin
        .post(
            "/api/v1/leagues/fall/playoffs",
            &json!({"format": "single_elimination", "teams": 2, "force": true}),
        )
        .await;
    let bracket = json_with_status(r, 201, "playoffs").await;
    let fin = &bracket["matches"][0];
    let aces_side = if fin["team_a"]["id"] == t[0] {
        "a"
    } else {
        "b"
    };
    let kings_side = if aces_side == "a" { "b" } else { "a" };
    let fin = fin["match_id"].as_i64().unwrap();
    json_with_status(
        lineup(&admin, fin, aces_side, [cy, dee]).await,
        200,
        "final",
    )
    .await;
    json_with_status(
        lineup(&admin, fin, kings_side, [kings[0], kings[1]]).await,
        200,
        "final",
    )
    .await;
    play_out(&admin, fin, &hand).await;
    json_with_status(min_matches(&admin, json!(1)).await, 200, "min 1").await;

    let expected = [
        (ann, 0, "a match in play"),
        (al, 0, "a match in play"),
        (cy, 0, "a playoff match"),
        (dee, 0, "a playoff match"),
        (eve, 1, "a complete regular-season match"),
        (fay, 1, "a complete regular-season match"),
        (kings[0], 1, "all three"),
        (kings[1], 1, "all three"),
    ];
    let table = json_with_status(
        app.get("/api/v1/leagues/fall/eligibility").await,
        200,
        "eligibility",
    )
    .await;
    let listed: std::collections::HashMap<i64, Value> = t
        .iter()
        .flat_map(|team| row(&table, *team)["players"].as_array().unwrap().clone())
        .map(|p| (p["id"].as_i64().unwrap(), p))
        .collect();
    // Every player is checked and each miss named, not only the first.
    let mut missed = Vec::new();
    for (player, matches, what) in expected {
        let p = &listed[&player];
        if p["matches"] != matches || p["eligible"] != (matches >= 1) {
            missed.push(format!("the table, {what}: {p}"));
        }
        // One player's verdict, as a decision (here none) answers it.
        let r = decide(&admin, player, &json!({"eligible": null})).await;
        let one = json_with_status(r, 200, "no decision").await;
        if one["matches"] != matches {
            missed.push(format!("one player, {what}: {one}"));
        }
    }
    assert!(missed.is_empty(), "counted wrong:\n{}", missed.join("\n"));
}
