//! Swiss rounds (docs/api.md §21.2): `POST …/schedule {"mode": "swiss_round"}` pairs the
//! next round from the standings, never a rematch, the bye (a win) to the lowest-ranked team
//! without one; the next round waits for the last; the standings carry Buchholz.

use std::collections::HashSet;

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, expect_error, html_element, html_text, json_with_status, spawn_app};

/// Team A of match `m` wins it by the other team's forfeit.
async fn a_wins(admin: &Api, m: &Value) {
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/forfeit", m["id"]),
            &json!({"team": "b"}),
        )
        .await;
    json_with_status(r, 200, "a forfeit").await;
}

async fn standings(admin: &Api, slug: &str) -> Vec<Value> {
    let r = admin
        .get(&format!("/api/v1/leagues/{slug}/standings"))
        .await;
    json_with_status(r, 200, "the standings").await["rows"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[actix_web::test]
async fn swiss_rounds_pair_without_rematches_and_give_each_bye_once() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "swiss", json!("classic"), 5).await;

    // A round robin's fields are not a Swiss round's, nor the other way round.
    let r = admin
        .post(
            "/api/v1/leagues/swiss/schedule",
            &json!({"mode": "swiss_round", "start_date": "2027-01-04"}),
        )
        .await;
    assert_eq!(
        expect_error(r, 422, "invalid_schedule").await["field"],
        "start_date"
    );
    let r = admin
        .post(
            "/api/v1/leagues/swiss/schedule",
            &json!({"format": "round_robin", "scheduled_at": "2027-01-04T19:00"}),
        )
        .await;
    assert_eq!(
        expect_error(r, 422, "invalid_schedule").await["field"],
        "scheduled_at"
    );

    let mut met: HashSet<(i64, i64)> = HashSet::new();
    let mut byes: Vec<i64> = Vec::new();
    let mut round = 0;
    loop {
        let before = standings(&admin, "swiss").await;
        let r = admin
            .post(
                "/api/v1/leagues/swiss/schedule",
                &json!({"mode": "swiss_round", "scheduled_at": "2027-01-04T19:00"}),
            )
            .await;
        if r.status() == 409 {
            let e = expect_error(r, 409, "swiss_exhausted").await;
            assert!(
                e["message"].as_str().unwrap_or("").contains("playoffs"),
                "{e}"
            );
            break;
        }
        let paired = json_with_status(r, 201, "a Swiss round").await;
        round += 1;
        assert_eq!(paired["round"], round, "{paired}");
        let matches = paired["matches"].as_array().cloned().unwrap_or_default();
        assert_eq!(matches.len(), 2, "five teams: two matches and a bye");
        // The bye: the lowest-ranked team (before the round) without one.
        let bye = paired["bye"].as_i64().expect("an odd field has a bye");
        let lowest_without = before
            .iter()
            .rev()
            .map(|row| row["team_id"].as_i64().unwrap_or(0))
            .find(|id| !byes.contains(id));
        assert!(!byes.contains(&bye), "a second bye for team {bye}");
        byes.push(bye);
        let mut playing = HashSet::new();
        for m in &matches {
            let (a, b) = (
                m["team_a"]["id"].as_i64().unwrap_or(0),
                m["team_b"]["id"].as_i64().unwrap_or(0),
            );
            assert!(
                met.insert((a.min(b), a.max(b))),
                "round {round} repeats {a} v {b}"
            );
            assert!(playing.insert(a) && playing.insert(b) && !playing.contains(&bye));
            assert_eq!(m["round"], round);
            assert_eq!(m["scheduled_at"], "2027-01-04T19:00");
        }
        if round == 1 {
            assert_eq!(Some(bye), lowest_without, "{before:?}");
            // The next round waits for this one.
            let r = admin
                .post(
                    "/api/v1/leagues/swiss/schedule",
                    &json!({"mode": "swiss_round"}),
                )
                .await;
            expect_error(r, 409, "round_unfinished").await;
        }
        for m in &matches {
            a_wins(&admin, m).await;
        }
    }
    assert!(
        round >= 3,
        "five teams pair at least three rounds, got {round}"
    );

    // Every bye is a win; Buchholz is each team's opponents' wins.
    let rows = standings(&admin, "swiss").await;
    let wins = |id: i64| {
        rows.iter()
            .find(|row| row["team_id"] == id)
            .and_then(|row| row["won"].as_i64())
            .unwrap_or(-1)
    };
    for row in &rows {
        let id = row["team_id"].as_i64().unwrap_or(0);
        let expected: i64 = met
            .iter()
            .filter_map(|&(a, b)| match id {
                _ if a == id => Some(wins(b)),
                _ if b == id => Some(wins(a)),
                _ => None,
            })
            .sum();
        assert_eq!(row["buchholz"], expected, "{row}");
        let byes_had = byes.iter().filter(|&&b| b == id).count() as i64;
        let played = met.iter().filter(|&&(a, b)| a == id || b == id).count() as i64;
        assert_eq!(row["played"], played + byes_had, "{row}");
    }
    assert_eq!(rows.len(), teams.len());
    let page = app
        .get("/leagues/swiss/standings")
        .await
        .text()
        .await
        .unwrap_or_default();
    assert!(page.contains("class=\"c-buchholz\""), "the page's column");
    assert!(
        page.contains("<li>Buchholz: the sum"),
        "the first tiebreak in the legend"
    );
    let csv = app
        .get("/leagues/swiss/standings.csv")
        .await
        .text()
        .await
        .unwrap_or_default();
    assert!(
        csv.lines().next().unwrap_or("").ends_with(",buchholz"),
        "{csv}"
    );

    // A Swiss league takes no round robin.
    let r = admin
        .post("/api/v1/leagues/swiss/schedule", &json!({"mode": "rest"}))
        .await;
    expect_error(r, 409, "schedule_exists").await;
}

#[actix_web::test]
async fn a_round_robin_league_plays_no_swiss_round_and_other_leagues_show_no_buchholz() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(&admin, "rr", json!("classic"), 4).await;
    let r = admin
        .post(
            "/api/v1/leagues/rr/schedule",
            &json!({"format": "round_robin"}),
        )
        .await;
    let made = json_with_status(r, 201, "a round robin").await;
    assert!(
        made.get("round").is_none() && made.get("bye").is_none(),
        "{made}"
    );
    let r = admin
        .post(
            "/api/v1/leagues/rr/schedule",
            &json!({"mode": "swiss_round"}),
        )
        .await;
    expect_error(r, 409, "schedule_exists").await;
    let rows = standings(&admin, "rr").await;
    assert!(
        rows.iter().all(|row| row.get("buchholz").is_none()),
        "{rows:?}"
    );
}

#[actix_web::test]
async fn a_swiss_league_travels_whole_in_its_document() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(&admin, "open", json!("classic"), 5).await;
    for _ in 0..2 {
        let r = admin
            .post(
                "/api/v1/leagues/open/schedule",
                &json!({"mode": "swiss_round"}),
            )
            .await;
        let paired = json_with_status(r, 201, "a Swiss round").await;
        for m in paired["matches"].as_array().cloned().unwrap_or_default() {
            a_wins(&admin, &m).await;
        }
    }
    let doc = crate::league_doc::export(&admin, "open").await;
    assert_eq!(
        doc["swiss_rounds"].as_array().map(Vec::len),
        Some(2),
        "{doc}"
    );

    // The copy ranks the same, byes and Buchholz included, and pairs the same next round.
    let r = admin
        .post(
            "/api/v1/leagues/import",
            &json!({"slug": "open-copy", "document": doc}),
        )
        .await;
    json_with_status(r, 201, "the import").await;
    let shown = |rows: Vec<Value>| -> Vec<(Value, Value, Value)> {
        rows.into_iter()
            .map(|r| (r["team"].clone(), r["won"].clone(), r["buchholz"].clone()))
            .collect()
    };
    let original = shown(standings(&admin, "open").await);
    assert!(original.iter().all(|(_, _, b)| b.is_u64()), "{original:?}");
    assert_eq!(original, shown(standings(&admin, "open-copy").await));
    let next = |slug: &'static str| {
        let admin = &admin;
        async move {
            let r = admin
                .post(
                    &format!("/api/v1/leagues/{slug}/schedule"),
                    &json!({"mode": "swiss_round"}),
                )
                .await;
            let paired = json_with_status(r, 201, "round 3").await;
            let names: Vec<(Value, Value)> = paired["matches"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .iter()
                .map(|m| (m["team_a"]["name"].clone(), m["team_b"]["name"].clone()))
                .collect();
            (paired["round"].clone(), names)
        }
    };
    assert_eq!(next("open").await, next("open-copy").await);

    // A round twice, or a second bye for a team: refused at the row, nothing written.
    let mut bad = crate::league_doc::export(&admin, "open").await;
    bad["swiss_rounds"][1]["round"] = bad["swiss_rounds"][0]["round"].clone();
    let r = admin
        .post(
            "/api/v1/leagues/import",
            &json!({"slug": "bad", "document": bad}),
        )
        .await;
    let e = expect_error(r, 422, "invalid_document").await;
    assert_eq!(e["field"], "/swiss_rounds/1/round", "{e}");
    let mut bad = crate::league_doc::export(&admin, "open").await;
    bad["swiss_rounds"][1]["bye_team_id"] = bad["swiss_rounds"][0]["bye_team_id"].clone();
    let r = admin
        .post(
            "/api/v1/leagues/import",
            &json!({"slug": "bad", "document": bad}),
        )
        .await;
    let e = expect_error(r, 422, "invalid_document").await;
    assert_eq!(e["field"], "/swiss_rounds/1/bye_team_id", "{e}");
}

#[actix_web::test]
async fn the_coordinator_pairs_swiss_rounds_on_the_schedule_page() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(&admin, "night", json!("classic"), 4).await;
    let browser = app.browser("coord").await;
    let page = "/admin/leagues/night/schedule";
    let html = browser.get(page).await.text().await.unwrap_or_default();
    assert!(
        html.contains("id=\"swiss-title\">Or play Swiss rounds"),
        "{html}"
    );

    // A time that does not read: the form comes back with it and the message by the field.
    let r = browser
        .post_form(
            "/admin/leagues/night/schedule",
            &[
                ("mode", "swiss_round"),
                ("from", "schedule"),
                ("scheduled_at", "tonight"),
            ],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap_or_default();
    let field = html_element(&html, "swiss-scheduled_at", ">").unwrap_or_default();
    assert!(
        field.contains("value=\"tonight\"") && field.contains("aria-invalid"),
        "{field}"
    );
    assert!(html.contains("id=\"swiss-scheduled_at-error\""), "{html}");

    let r = browser
        .post_form(
            "/admin/leagues/night/schedule",
            &[
                ("mode", "swiss_round"),
                ("from", "schedule"),
                ("scheduled_at", "2026-12-05T13:00"),
            ],
        )
        .await;
    assert_eq!(r.status(), 303);
    let to = r.headers()["location"].to_str().unwrap_or("").to_string();
    let html = browser.get(&to).await.text().await.unwrap_or_default();
    let notice = html_text(html_element(&html, "notice", "</p>").unwrap_or_default());
    assert!(
        notice.contains("Paired Swiss round 1: 2 matches"),
        "{notice}"
    );
    // Now the next round is offered, not the round robin's forms; pairing it before the
    // first is over comes back by the form.
    assert!(html.contains("id=\"swiss-button\">Pair round 2"), "{html}");
    assert!(!html.contains("id=\"rest\"") && !html.contains("id=\"replace\""));
    let r = browser
        .post_form(
            "/admin/leagues/night/schedule",
            &[
                ("mode", "swiss_round"),
                ("from", "schedule"),
                ("scheduled_at", ""),
            ],
        )
        .await;
    assert_eq!(r.status(), 409);
    let html = r.text().await.unwrap_or_default();
    let error = html_text(html_element(&html, "swiss-error", "</p>").unwrap_or_default());
    assert!(
        error.contains("2 matches of the last round are not over"),
        "{error}"
    );
}

/// `demo --tournament`: 24 teams, four Swiss rounds with no rematch and one bye-free field,
/// Buchholz on every row, then the top 8 of those standings seeded in the bracket, its
/// quarter-finals played.
#[actix_web::test]
async fn the_tournament_demo_is_a_night_played_through_the_services() {
    let app = spawn_app().await;
    let summary = spades_im::demo::tournament::load(&app.db)
        .await
        .expect("the tournament loads");
    assert!(
        summary.contains("24 teams on 6 tables, 4 Swiss rounds"),
        "{summary}"
    );
    let slug = spades_im::demo::tournament::SLUG;
    let r = app
        .get(&format!("/api/v1/leagues/{slug}/matches?limit=500"))
        .await;
    let page: Value = r.json().await.unwrap_or_default();
    let matches = page["matches"].as_array().cloned().unwrap_or_default();
    let regular: Vec<&Value> = matches.iter().filter(|m| m["stage"] == "regular").collect();
    assert_eq!(regular.len(), 4 * 12, "four rounds of twelve matches");
    let mut met = HashSet::new();
    for m in &regular {
        let (a, b) = (
            m["team_a"]["id"].as_i64().unwrap_or(0),
            m["team_b"]["id"].as_i64().unwrap_or(0),
        );
        assert!(met.insert((a.min(b), a.max(b))), "a rematch: {m}");
        assert_eq!(m["status"], "complete", "{m}");
    }
    let rows: Value = app
        .get(&format!("/api/v1/leagues/{slug}/standings"))
        .await
        .json()
        .await
        .unwrap_or_default();
    let rows = rows["rows"].as_array().cloned().unwrap_or_default();
    assert_eq!(rows.len(), 24);
    assert!(
        rows.iter()
            .all(|r| r["buchholz"].is_u64() && r["played"] == 4),
        "{rows:?}"
    );
    let bracket: Value = app
        .get(&format!("/api/v1/leagues/{slug}/bracket"))
        .await
        .json()
        .await
        .unwrap_or_default();
    assert_eq!(bracket["teams"], 8);
    // The cut: seed n is the n-th team of the standings.
    for m in bracket["matches"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["bracket"] == "winners" && m["round"] == 1)
    {
        for (team, seed) in [("team_a", "seed_a"), ("team_b", "seed_b")] {
            let seed = m[seed].as_u64().unwrap_or(0) as usize;
            assert_eq!(m[team]["id"], rows[seed - 1]["team_id"], "seed {seed}");
        }
        assert_eq!(m["status"], "complete", "{m}");
    }
    // The queue called every match to one of the six tables; the semi-finals are called.
    assert!(
        matches
            .iter()
            .all(|m| ["1", "2", "3", "4", "5", "6"].contains(&m["table"].as_str().unwrap_or(""))),
        "{matches:?}"
    );
    let q: Value = app
        .get(&format!("/api/v1/leagues/{slug}/queue"))
        .await
        .json()
        .await
        .unwrap_or_default();
    let called = q["tables"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["status"] == "called")
        .count();
    assert_eq!(called, 2, "the two semi-finals: {q}");
}

/// A team that withdraws mid-round forfeits its Swiss match (its opponent has the win) and
/// is left out of the next round.
#[actix_web::test]
async fn a_team_that_withdraws_forfeits_its_swiss_match() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "walk", json!("classic"), 4).await;
    let r = admin
        .post(
            "/api/v1/leagues/walk/schedule",
            &json!({"mode": "swiss_round"}),
        )
        .await;
    let paired = json_with_status(r, 201, "round 1").await;
    let matches = paired["matches"].as_array().cloned().unwrap_or_default();
    let leaving = teams[0];
    let theirs = matches
        .iter()
        .find(|m| m["team_a"]["id"] == leaving || m["team_b"]["id"] == leaving)
        .cloned()
        .unwrap_or_default();
    let opponent = if theirs["team_a"]["id"] == leaving {
        theirs["team_b"]["id"].clone()
    } else {
        theirs["team_a"]["id"].clone()
    };
    let browser = app.browser("coord").await;
    let r = browser
        .post_form(
            &format!("/admin/leagues/walk/teams/{leaving}/withdraw"),
            &[("withdrawn", "1")],
        )
        .await;
    assert_eq!(r.status(), 303);
    let r = admin
        .get(&format!("/api/v1/matches/{}", theirs["id"]))
        .await;
    let after = json_with_status(r, 200, "the match").await;
    assert_eq!(after["status"], "forfeit", "{after}");
    let rows = standings(&admin, "walk").await;
    let won = |id: &Value| {
        rows.iter()
            .find(|r| &r["team_id"] == id)
            .map(|r| r["won"].clone())
            .unwrap_or_default()
    };
    assert_eq!(won(&opponent), 1, "the opponent has the win");
    // The other match over, round 2 pairs the three left (one bye).
    for m in matches.iter().filter(|m| m["id"] != theirs["id"]) {
        a_wins(&admin, m).await;
    }
    let r = admin
        .post(
            "/api/v1/leagues/walk/schedule",
            &json!({"mode": "swiss_round"}),
        )
        .await;
    let next = json_with_status(r, 201, "round 2").await;
    assert_eq!(next["matches"].as_array().map(Vec::len), Some(1), "{next}");
    assert!(next["bye"].is_i64() && next["bye"] != leaving, "{next}");
    let m = &next["matches"][0];
    assert!(
        m["team_a"]["id"] != leaving && m["team_b"]["id"] != leaving,
        "{next}"
    );
}
