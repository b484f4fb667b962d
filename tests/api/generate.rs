//! The benchmark season generator: every generated match's cached totals and hand count are
//! the ones its hands rebuild through the rules engine, and the list pages show them.

use spades_im::generate::{Generated, SeasonSpec, admin, season};

use crate::helpers::{TestApp, spawn_app};

/// A generated league `gen` of 9 teams, 40 matches and 400 hands, drawn with `seed`.
pub(crate) async fn small_season(app: &TestApp, seed: u64) -> Generated {
    let (admin, _) = admin(&app.db).await.expect("admin");
    let spec = SeasonSpec {
        slug: "gen".into(),
        teams: 9,
        matches: 40,
        hands: 400,
        seed,
    };
    season(&app.db, &admin, &spec).await.expect("generated")
}

#[actix_web::test]
async fn a_generated_season_is_consistent_with_its_hands() {
    let app = spawn_app().await;
    let g = small_season(&app, 7).await;
    assert_eq!(g.matches, 40);
    assert_eq!(g.hands, 400);
    assert!(g.complete > 10, "{g:?}");
    assert!(g.in_progress <= 1);
    let mut conn = app.db.read().await.unwrap();
    let summaries = spades_im::service::views::summaries::summaries(&mut conn, g.league_id)
        .await
        .unwrap();
    assert_eq!(summaries.len(), 40);
    let mut hands = 0;
    for s in &summaries {
        // `load` replays the stored hands with the frozen rules.
        let (view, _) = spades_im::service::night::match_view::load(&mut conn, s.id)
            .await
            .unwrap();
        assert_eq!(s.hands, view.hands.len(), "match {}", s.id);
        assert_eq!((s.a, s.b), (view.a, view.b), "match {}", s.id);
        assert_eq!(s.winner, view.winner, "match {}", s.id);
        assert_eq!(s.status, view.status, "match {}", s.id);
        assert_eq!(
            s.state,
            spades_im::service::views::summaries::state_words(&view),
            "match {}",
            s.id
        );
        hands += view.hands.len();
    }
    assert_eq!(hands, 400);
    drop(conn);
    // The whole season's schedule shows every match from the cached totals.
    let page = app
        .get("/leagues/gen/schedule?week=all")
        .await
        .text()
        .await
        .unwrap();
    let done = summaries
        .iter()
        .find(|s| s.status == spades_im::domain::MatchStatus::Complete)
        .unwrap();
    assert!(page.contains(&format!("/matches/{}", done.id)));
    assert!(page.contains(&done.state), "{}", done.state);
}

/// The standings follow every change at once: a finished match, a corrected result, a
/// renamed team and a new tiebreak order.
#[actix_web::test]
async fn the_standings_follow_every_change() {
    use serde_json::{Value, json};
    use spades_im::service::Role;
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "fall", json!("partnership"), 3).await;
    let standings = || async {
        let v: Value = app
            .get("/api/v1/leagues/fall/standings")
            .await
            .json()
            .await
            .unwrap();
        v["rows"].as_array().unwrap().clone()
    };
    let first = standings().await;
    assert!(first.iter().all(|r| r["played"] == 0));
    let m: Value = admin
        .post(
            "/api/v1/leagues/fall/matches",
            &json!({"team_a": teams[0], "team_b": teams[1]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let id = m["id"].as_i64().unwrap();
    // Started, not finished: the standings do not change.
    let r = admin
        .post(&format!("/api/v1/matches/{id}/start"), &json!({}))
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(standings().await, first);
    let r = admin
        .post(
            &format!("/api/v1/matches/{id}/forfeit"),
            &json!({"team": "b"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let after = standings().await;
    assert_eq!(after[0]["team_id"], teams[0]);
    assert_eq!(after[0]["won"], 1);
    // A team renamed on the admin page shows under its new name at once.
    let coord = app.browser("coord").await;
    let r = coord
        .post_form(
            &format!("/admin/leagues/fall/teams/{}", teams[0]),
            &[
                ("name", "Renamed Aces"),
                ("player1", "P1"),
                ("player2", "P2"),
            ],
        )
        .await;
    assert_eq!(r.status(), 303);
    assert_eq!(standings().await[0]["team"], "Renamed Aces");
    let page = app
        .get("/leagues/fall/standings")
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("Renamed Aces"));
}
