//! Text as people read it: a score below zero has a minus sign ("−80", never "–-80"), one
//! bag is "1 bag", the console's breadcrumb names the league (not its slug), and an error in
//! a stage's rules says "rules" once.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{hand_of, json_with_status, spawn_app};

#[actix_web::test]
async fn a_score_below_zero_reads_with_a_minus_sign_and_the_console_names_the_league() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Fall League", "slug": "fall", "rules": {"regular": "unc-im-300"}}),
        )
        .await;
    json_with_status(r, 201, "the league").await;
    let mut teams = Vec::new();
    for name in ["Nil Rebels", "Book Club"] {
        let r = admin
            .post(
                "/api/v1/leagues/fall/teams",
                &json!({"name": name, "players": [format!("{name} 1"), format!("{name} 2")]}),
            )
            .await;
        teams.push(json_with_status(r, 201, name).await["id"].as_i64().unwrap());
    }
    let m = admin.add_match("fall", teams[0], teams[1], "4").await;
    let id = m["id"].as_i64().unwrap();
    // Nil Rebels bid 8 and take 3: set, −80. Book Club bid 6 and take 10: 64.
    let played = admin
        .play_hands(id, &[hand_of([4, 4], [2, 1], [3, 3], [5, 5])])
        .await;
    assert_eq!(played["a"]["score"], -80, "{played}");

    for path in [
        format!("/leagues/fall/teams/{}", teams[0]),
        "/leagues/fall/schedule".to_string(),
        "/leagues/fall".to_string(),
    ] {
        let html = app.get(&path).await.text().await.unwrap();
        assert!(html.contains("\u{2212}80"), "{path} shows −80:\n{html}");
        assert!(
            !html.contains("-80") && !html.contains("–-"),
            "{path} has no hyphen for a minus:\n{html}"
        );
    }
    let team = app
        .get(&format!("/leagues/fall/teams/{}", teams[0]))
        .await
        .text()
        .await
        .unwrap();
    assert!(team.contains("\u{2212}80 – 64"), "{team}");

    let coord = app.browser("coord").await;
    let console = coord
        .get(&format!("/supervise/matches/{id}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        console.contains("<span id=\"league-name\">Fall League</span>"),
        "the breadcrumb names the league:\n{console}"
    );
}

#[actix_web::test]
async fn one_bag_is_one_bag_on_the_calculator() {
    let app = spawn_app().await;
    // unc-im-300: A bid 4 + nil, took 5 + 0: 101 and 1 bag; B bid 6, took 8: 62 and 2 bags.
    let body = "preset=unc-im-300&rows=1&h0_a_bid0=4&h0_a_tricks0=5&h0_a_bid1=nil&h0_a_tricks1=0\
                &h0_b_bid0=3&h0_b_tricks0=4&h0_b_bid1=3&h0_b_tricks1=4";
    let html = app
        .client
        .post(app.url("/calculator"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        html.contains("<strong id=\"score-a\">101</strong>"),
        "{html}"
    );
    assert!(html.contains("<span class=\"bags\">1 bag</span>"), "{html}");
    assert!(
        html.contains("<span class=\"bags\">2 bags</span>"),
        "{html}"
    );
}

#[actix_web::test]
async fn a_stage_rules_error_says_rules_once() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Fall", "slug": "fall",
                    "rules": {"regular": {"preset": "unc-im-300", "bogus": 1}}}),
        )
        .await;
    let body: Value = json_with_status(r, 422, "an unknown rules field").await;
    let message = body["error"]["message"].as_str().unwrap();
    assert_eq!(message, "regular rules: unknown field \"bogus\"", "{body}");
}
