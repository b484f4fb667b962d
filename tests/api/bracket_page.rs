//! The public bracket page and its printable report over HTTP: before the playoffs are
//! drawn, for an unknown league, a 6-team single elimination with third place as matches are
//! played, and a double elimination's sections.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, TestApp, spawn_app};

/// A hand team A wins (71 to 41).
pub fn a_hand() -> Value {
    json!({"a": {"bids": [4, 3], "tricks": [5, 3]}, "b": {"bids": [2, 2], "tricks": [3, 2]}})
}

/// A league `slug` ("Bracket League {slug}") of `teams` teams ("Team 1"...), whose playoffs
/// and final are played to 100 (two `a_hand`s win a match); no regular season is played
/// (the standings as they are seed the bracket).
pub async fn league(admin: &Api, slug: &str, teams: usize) {
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": format!("Bracket League {slug}"), "slug": slug, "rules": {
                "regular": "partnership",
                "playoff": {"preset": "unc-im-300", "target": 100},
                "final": {"preset": "unc-im-300", "target": 100}}}),
        )
        .await;
    assert_eq!(r.status(), 201, "create league {slug}");
    for i in 1..=teams {
        let r = admin
            .post(
                &format!("/api/v1/leagues/{slug}/teams"),
                &json!({"name": format!("Team {i}"), "players": [format!("P{i}a"), format!("P{i}b")]}),
            )
            .await;
        assert_eq!(r.status(), 201, "team {i}");
    }
}

/// Creates the league's playoffs (`body` as the API takes it); the bracket's JSON.
pub async fn playoffs(admin: &Api, slug: &str, body: Value) -> Value {
    let r = admin
        .post(&format!("/api/v1/leagues/{slug}/playoffs"), &body)
        .await;
    assert_eq!(r.status(), 201, "create playoffs of {slug}");
    r.json().await.expect("bracket json")
}

pub async fn bracket(app: &TestApp, slug: &str) -> Value {
    let r = app.get(&format!("/api/v1/leagues/{slug}/bracket")).await;
    assert_eq!(r.status(), 200);
    r.json().await.expect("bracket json")
}

/// The first bracket match with a real match not started yet.
pub fn first_scheduled(b: &Value) -> Option<Value> {
    b["matches"]
        .as_array()?
        .iter()
        .find(|m| m["match_id"].is_i64() && m["status"] == "scheduled")
        .cloned()
}

/// Starts real match `id`; its JSON.
pub async fn start(admin: &Api, id: i64) -> Value {
    let r = admin
        .post(&format!("/api/v1/matches/{id}/start"), &json!({}))
        .await;
    assert_eq!(r.status(), 200, "start {id}");
    r.json().await.expect("match json")
}

/// Enters one `a_hand` in a started match; its JSON after.
pub async fn hand(admin: &Api, id: i64, version: i64) -> Value {
    let r = admin
        .post(
            &format!("/api/v1/matches/{id}/hands"),
            &json!({"hand": a_hand(), "expected_version": version}),
        )
        .await;
    assert_eq!(r.status(), 201, "hand in {id}");
    r.json().await.expect("match json")
}

/// Plays real match `id` to 100 (team A wins 142 to 82); its JSON.
pub async fn play_a_wins(admin: &Api, id: i64) -> Value {
    let m = start(admin, id).await;
    let m = hand(admin, id, m["version"].as_i64().expect("version")).await;
    let m = hand(admin, id, m["version"].as_i64().expect("version")).await;
    assert_eq!(m["status"], "complete");
    m
}

async fn page(app: &TestApp, path: &str) -> (u16, String, String) {
    let r = app.get(path).await;
    let status = r.status().as_u16();
    let kind = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    (status, kind, r.text().await.expect("body"))
}

#[actix_web::test]
async fn a_league_without_playoffs_says_so() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    league(&admin, "early", 4).await;

    let (status, kind, html) = page(&app, "/leagues/early/bracket").await;
    assert_eq!(status, 200);
    assert!(kind.starts_with("text/html"), "{kind}");
    assert!(
        html.contains("The playoffs have not been drawn yet"),
        "{html}"
    );
    assert!(html.contains("Bracket League early"));
    assert!(!html.contains("id=\"bracket\""), "no drawing");

    let (status, _, html) = page(&app, "/leagues/early/bracket/print").await;
    assert_eq!(status, 200);
    assert!(html.contains("The playoffs have not been drawn yet"));

    // The league's pages link to the bracket.
    let (_, _, home) = page(&app, "/leagues/early").await;
    assert!(home.contains("href=\"/leagues/early/bracket\""), "{home}");
}

#[actix_web::test]
async fn an_unknown_league_is_the_sites_404_page() {
    let app = spawn_app().await;
    for path in ["/leagues/nope/bracket", "/leagues/nope/bracket/print"] {
        let (status, kind, html) = page(&app, path).await;
        assert_eq!(status, 404, "{path}");
        assert!(kind.starts_with("text/html"), "{path}: {kind}");
        assert!(html.contains("<html"), "{path}: the HTML error page");
    }
}

#[actix_web::test]
async fn six_team_single_elimination_page_shows_teams_seeds_scores_and_what_waits() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    league(&admin, "six", 6).await;
    let created = playoffs(
        &admin,
        "six",
        json!({"format": "single_elimination", "third_place": true}),
    )
    .await;

    let (status, _, html) = page(&app, "/leagues/six/bracket").await;
    assert_eq!(status, 200);
    for i in 1..=6 {
        assert!(html.contains(&format!(">Team {i}<")), "Team {i} listed");
        assert!(
            html.contains(&format!("<span class=\"seed\">{i}</span>")),
            "seed {i} shown"
        );
    }
    for heading in ["Quarter-finals", "Semi-finals", "Final", "Third place"] {
        assert!(html.contains(&format!("<h3>{heading}</h3>")), "{heading}");
    }
    assert!(html.contains("Winner of M"), "a slot waiting for a winner");
    assert!(html.contains("Loser of M"), "the third-place match waits");
    assert!(html.contains("href=\"/leagues/six/bracket.csv\""));
    assert!(html.contains("href=\"/api/v1/leagues/six/bracket\""));
    assert!(html.contains("href=\"/leagues/six/bracket/print\""));
    assert!(!html.contains("http-equiv=\"refresh\""), "nothing live yet");
    assert!(!html.contains("id=\"champion\""));

    // A match in play: the page updates itself in place (public.js follows the scoreboard's
    // key), and reloads without scripts; a reader may pause the updates (WCAG 2.2.1).
    let first = first_scheduled(&created).expect("a first-round match");
    let id = first["match_id"].as_i64().expect("match id");
    let m = start(&admin, id).await;
    let (_, _, html) = page(&app, "/leagues/six/bracket").await;
    assert!(
        html.contains("<noscript><meta http-equiv=\"refresh\" content=\"30\"></noscript>"),
        "live: reloads without scripts"
    );
    assert!(
        html.contains("data-poll=\"/api/v1/scoreboard\""),
        "live: updates in place"
    );
    assert!(html.contains("id=\"pause-live\""), "live: can be paused");
    assert!(html.contains("In progress"));

    // Played: its score, its winner marked, a link to it; its winner moved on.
    let m = hand(&admin, id, m["version"].as_i64().expect("version")).await;
    let done = hand(&admin, id, m["version"].as_i64().expect("version")).await;
    assert_eq!(done["status"], "complete");
    let (a, b) = (
        done["a"]["score"].as_i64().expect("score"),
        done["b"]["score"].as_i64().expect("score"),
    );
    let winner = done["team_a"]["name"].as_str().expect("name").to_string();
    let (_, _, html) = page(&app, "/leagues/six/bracket").await;
    let number = first["id"].as_i64().expect("bracket id") + 1;
    let at = html
        .find(&format!("id=\"box-M{number}\""))
        .expect("the played match's box");
    let start_tag = html[..at].rfind('<').expect("the box's tag");
    let the_box = &html[start_tag..at + html[at..].find("</li>").expect("box end")];
    assert!(
        the_box.starts_with("<a class=\"mbox status-complete\"")
            && the_box.contains(&format!("href=\"/matches/{id}\"")),
        "the box links to the match: {the_box}"
    );
    assert!(
        the_box.contains(&format!("<span class=\"score\">{a}</span>")),
        "{the_box}"
    );
    assert!(
        the_box.contains(&format!("<span class=\"score\">{b}</span>")),
        "{the_box}"
    );
    // A finished first-round match is "Played", never "Final" (its round is no final).
    assert!(
        the_box.contains("<span class=\"state\">Played</span>"),
        "status in words: {the_box}"
    );
    let winner_side = the_box
        .find("winner\"><span class=\"seed\">")
        .map(|w| &the_box[w..])
        .expect("a winner side");
    assert!(
        winner_side.contains(&format!(">{winner}<")) && winner_side.contains('✓'),
        "the winner is marked: {the_box}"
    );
    assert!(!html.contains("http-equiv=\"refresh\""), "nothing live now");

    // The same bracket as a list, in sentences, linked from the drawing.
    assert!(
        html.contains("href=\"#bracket-list\""),
        "the drawing links its list"
    );
    let list = crate::helpers::html_element(&html, "bracket-list", "</section>")
        .expect("the bracket as a list");
    let played = crate::helpers::html_element(list, &format!("list-M{number}"), "</li>")
        .expect("the played match in the list");
    let loser = done["team_b"]["name"].as_str().expect("name");
    assert!(
        played.contains(&format!("M{number} · Quarter-final: {winner} (seed "))
            && played.contains(&format!(" {a} – {loser} (seed "))
            && played.contains(&format!(" {b}, {winner} won.")),
        "the played match in words: {played}"
    );
    assert!(
        list.contains("has a bye into the next round.") && !list.contains(">Bye<"),
        "byes described as byes: {list}"
    );
    assert!(
        list.contains("– Winner of match ") && list.contains(", not yet played."),
        "a match waiting for a winner: {list}"
    );
    // Two sections (the bracket, third place): section headings h3, rounds h4.
    assert!(
        list.contains("<h3 id=\"list-third_place\">Third place</h3>"),
        "{list}"
    );
    assert!(
        list.contains("<h4 class=\"list-round\">Semi-finals</h4>"),
        "{list}"
    );

    // The print view: the league, every team, no site navigation.
    let (status, _, print) = page(&app, "/leagues/six/bracket/print").await;
    assert_eq!(status, 200);
    assert!(print.contains("Bracket League six"));
    for i in 1..=6 {
        assert!(
            print.contains(&format!(">Team {i}<")),
            "print lists Team {i}"
        );
    }
    assert!(print.contains("Single elimination, 6 teams, with a third-place match"));
    assert!(print.contains("In progress"));
    assert!(!print.contains("class=\"league-nav\""), "no navigation");
    assert!(!print.contains("<a class=\"mbox"), "no links on paper");
}

#[actix_web::test]
async fn double_elimination_page_has_losers_and_grand_final_sections() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    league(&admin, "dbl", 4).await;
    playoffs(
        &admin,
        "dbl",
        json!({"format": "double_elimination", "grand_final": "double"}),
    )
    .await;
    let (status, _, html) = page(&app, "/leagues/dbl/bracket").await;
    assert_eq!(status, 200);
    let winners = html
        .find("id=\"section-winners\"")
        .expect("winners section");
    let losers = html.find("id=\"section-losers\"").expect("losers section");
    let grand = html.find("id=\"section-final\"").expect("final section");
    assert!(winners < losers && losers < grand, "sections in order");
    for heading in [
        "Winners bracket",
        "Losers bracket",
        "Losers round 1",
        "Losers final",
        "Grand final",
        "Grand final reset",
    ] {
        assert!(html.contains(heading), "{heading}");
    }
    assert!(
        html.contains("Loser of M"),
        "the losers' bracket waits for losers"
    );
}

#[actix_web::test]
async fn small_and_odd_brackets_draw() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    for (slug, teams, body, heading) in [
        ("two", 2, json!({"format": "single_elimination"}), "Final"),
        (
            "three",
            3,
            json!({"format": "single_elimination", "third_place": true}),
            "Semi-finals",
        ),
        (
            "dtwo",
            2,
            json!({"format": "double_elimination"}),
            "Grand final reset",
        ),
        (
            "dthree",
            3,
            json!({"format": "double_elimination", "grand_final": "simple"}),
            "Losers final",
        ),
        (
            "dfive",
            5,
            json!({"format": "double_elimination", "grand_final": "none"}),
            "Winners final",
        ),
    ] {
        league(&admin, slug, teams).await;
        playoffs(&admin, slug, body).await;
        for path in [
            format!("/leagues/{slug}/bracket"),
            format!("/leagues/{slug}/bracket/print"),
        ] {
            let (status, _, html) = page(&app, &path).await;
            assert_eq!(status, 200, "{path}");
            assert!(html.contains(heading), "{path}: {heading}");
            for i in 1..=teams {
                assert!(html.contains(&format!(">Team {i}<")), "{path}: Team {i}");
            }
            // A bye has no loser: no slot waits for one ("Loser of M1" where M1 is a bye).
            const BYE_BOX: &str = "class=\"mbox status-bye\" id=\"box-M";
            let mut rest = html.as_str();
            while let Some(at) = rest.find(BYE_BOX) {
                rest = &rest[at + BYE_BOX.len()..];
                let number: String = rest.chars().take_while(char::is_ascii_digit).collect();
                assert!(
                    !html.contains(&format!("Loser of M{number}<")),
                    "{path}: a slot waits for the loser of bye M{number}"
                );
            }
        }
    }
}
