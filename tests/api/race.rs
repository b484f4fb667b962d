//! The playoff race in the standings (docs/api.md, "The playoff race"): with
//! `settings.playoffs.teams`, each row says whether the team has clinched a place, is out,
//! or how many of its remaining matches it must win; the team page says it in words.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, anonymous_get, expect_error, json_with_status, spawn_app};

/// Team `loser` of match `m` forfeits it.
async fn forfeit(admin: &Api, m: &Value, loser: i64) {
    let side = if m["team_a"]["id"] == loser { "a" } else { "b" };
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/forfeit", m["id"]),
            &json!({"team": side}),
        )
        .await;
    json_with_status(r, 200, "a forfeit").await;
}

/// The row of team `id`.
fn row(standings: &Value, id: i64) -> Value {
    standings["rows"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["team_id"] == id)
        .cloned()
        .unwrap_or(Value::Null)
}

#[actix_web::test]
async fn the_standings_say_who_is_in_who_is_out_and_what_it_takes() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let t = app.league(&admin, "race", json!("classic"), 4).await;
    let r = admin
        .post(
            "/api/v1/leagues/race/schedule",
            &json!({"format": "round_robin", "start_date": "2027-01-04"}),
        )
        .await;
    let made = json_with_status(r, 201, "the round robin").await;
    let matches = made["matches"].as_array().cloned().unwrap_or_default();

    // No places said: no race.
    let standings: Value = app
        .get("/api/v1/leagues/race/standings")
        .await
        .json()
        .await
        .unwrap();
    assert!(row(&standings, t[0]).get("race").is_none(), "{standings}");

    // Two places. Team 1 wins its three matches, team 4 loses its three: with the other
    // three matches left, team 1 is in (only one team can reach three wins... none can), team
    // 4 is out (three teams have a win more than it can get ... at least two do).
    let r = admin
        .patch(
            "/api/v1/leagues/race",
            &json!({"settings": {"playoffs": {"teams": 2}}}),
        )
        .await;
    json_with_status(r, 200, "two playoff places").await;
    let r = admin
        .patch(
            "/api/v1/leagues/race",
            &json!({"settings": {"playoffs": {"teams": 65}}}),
        )
        .await;
    let e = expect_error(r, 422, "invalid_settings").await;
    assert_eq!(e["field"], "settings.playoffs.teams");

    for m in &matches {
        let (a, b) = (
            m["team_a"]["id"].as_i64().unwrap(),
            m["team_b"]["id"].as_i64().unwrap(),
        );
        if a == t[0] || b == t[0] {
            forfeit(&admin, m, if a == t[0] { b } else { a }).await;
        } else if a == t[3] || b == t[3] {
            forfeit(&admin, m, t[3]).await;
        }
    }
    let standings: Value = app
        .get("/api/v1/leagues/race/standings")
        .await
        .json()
        .await
        .unwrap();
    let race = |id: i64| row(&standings, id)["race"].clone();
    assert_eq!(
        race(t[0]),
        json!({"status": "clinched", "games_left": 0, "wins_needed": 0})
    );
    assert_eq!(
        race(t[3]),
        json!({"status": "eliminated", "games_left": 0, "wins_needed": null})
    );
    // Teams 2 and 3 are 1–1 with their match against each other left: its winner is in.
    for id in [t[1], t[2]] {
        assert_eq!(
            race(id),
            json!({"status": "alive", "games_left": 1, "wins_needed": 1})
        );
    }

    // The team page says it in words.
    let (_, _, page) = anonymous_get(&app, &format!("/leagues/race/teams/{}", t[0])).await;
    assert!(page.contains("Clinched a playoff place"), "{page}");
    let (_, _, page) = anonymous_get(&app, &format!("/leagues/race/teams/{}", t[1])).await;
    assert!(
        page.contains("Win your last match and you are in, whatever else happens"),
        "{page}"
    );
    let (_, _, page) = anonymous_get(&app, &format!("/leagues/race/teams/{}", t[3])).await;
    assert!(page.contains("Out of the playoff race"), "{page}");
}

/// With `division_winners_first`, a division title is a place: the leader of the weaker
/// division is in though two teams of the other division are above it overall.
#[actix_web::test]
async fn a_division_title_counts_as_a_place_when_division_winners_go_first() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let t = app.league(&admin, "divs", json!("classic"), 6).await;
    for (name, teams) in [("North", &t[..3]), ("South", &t[3..])] {
        let r = admin
            .post("/api/v1/leagues/divs/divisions", &json!({"name": name}))
            .await;
        let d = json_with_status(r, 201, "a division").await["id"].clone();
        for team in teams {
            let r = admin
                .patch(&format!("/api/v1/teams/{team}"), &json!({"division": d}))
                .await;
            json_with_status(r, 200, "its division").await;
        }
    }
    // North: team 1 4–0, team 2 4–1, team 3 2–2; South: team 4 1–2 (its leader), teams 5
    // and 6 0–3. Nothing left to play.
    for (winner, loser) in [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (1, 5),
        (2, 4),
        (2, 5),
        (3, 5),
    ] {
        let m = admin.add_match("divs", t[winner], t[loser], "T1").await;
        forfeit(&admin, &m, t[loser]).await;
    }
    let r = admin
        .patch(
            "/api/v1/leagues/divs",
            &json!({"settings": {"playoffs": {"teams": 3}}}),
        )
        .await;
    json_with_status(r, 200, "three places").await;
    let standings: Value = app
        .get("/api/v1/leagues/divs/standings")
        .await
        .json()
        .await
        .unwrap();
    // Overall, the top three are North's: team 3 in, South's leader out.
    assert_eq!(
        row(&standings, t[2])["race"]["status"],
        "clinched",
        "{standings}"
    );
    assert_eq!(
        row(&standings, t[3])["race"]["status"],
        "eliminated",
        "{standings}"
    );
    let r = admin
        .patch(
            "/api/v1/leagues/divs",
            &json!({"settings": {"playoffs": {"teams": 3, "division_winners_first": true}}}),
        )
        .await;
    let league = json_with_status(r, 200, "division winners first").await;
    assert_eq!(
        league["settings"]["playoffs"]["division_winners_first"],
        true
    );
    let standings: Value = app
        .get("/api/v1/leagues/divs/standings")
        .await
        .json()
        .await
        .unwrap();
    let statuses: Vec<Value> = t
        .iter()
        .map(|&id| row(&standings, id)["race"]["status"].clone())
        .collect();
    // North's winner (1) and South's (4) are in; the one place left goes to team 2, and
    // team 3 is out.
    assert_eq!(
        statuses,
        [
            json!("clinched"),
            json!("clinched"),
            json!("eliminated"),
            json!("clinched"),
            json!("eliminated"),
            json!("eliminated")
        ],
        "{standings}"
    );
    // The bracket, asked without a seeding, seeds by the league's rule.
    let r = admin
        .post(
            "/api/v1/leagues/divs/playoffs",
            &json!({"format": "single_elimination", "teams": 4}),
        )
        .await;
    let bracket = json_with_status(r, 201, "the bracket").await;
    let words = bracket["seeding"].as_str().unwrap_or_default();
    assert!(
        words.contains("the winners of North and South"),
        "{bracket}"
    );
}
