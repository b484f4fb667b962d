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
