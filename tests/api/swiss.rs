//! Swiss rounds (docs/api.md §21.2): `POST …/schedule {"mode": "swiss_round"}` pairs the
//! next round from the standings, never a rematch, the bye (a win) to the lowest-ranked team
//! without one; the next round waits for the last; the standings carry Buchholz.

use std::collections::HashSet;

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, expect_error, json_with_status, spawn_app};

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
