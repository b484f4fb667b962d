//! Lineups on the console over real HTTP with a logged-in browser (cookies, CSRF, no
//! redirects followed): a team's two players picked from its roster or found by a typed
//! student ID (a card reader's sentinels stripped), the refusal of a player not on the
//! team's roster (422, nothing written, the typed value kept, the message by the field in
//! words and never the student ID), the CSRF token, the seat names of the hand form, and
//! the league that sets lineups before the first hand.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{
    Api, Browser, TestApp, anonymous_get, csv_rows, hand_of, html_cells, html_element, html_text,
    json_with_status, spawn_app,
};

struct Setup {
    app: TestApp,
    admin: Api,
    sue: Browser,
    id: i64,
    /// Kim and Lee, on Team 1 (student IDs S100, S200).
    kim: i64,
    lee: i64,
    /// Ola, on Team 2 (S900; Pat is S901).
    ola: i64,
}

async fn add_player(admin: &Api, team: i64, name: &str, student_id: &str) -> i64 {
    let r = admin
        .post(
            &format!("/api/v1/teams/{team}/players"),
            &json!({"name": name, "student_id": student_id}),
        )
        .await;
    json_with_status(r, 201, "player").await["id"]
        .as_i64()
        .expect("player id")
}

async fn setup() -> Setup {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.user("sue", Role::Supervisor).await;
    let teams = app.league(&admin, "fall", json!("unc-im-300"), 2).await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "sue"}),
        )
        .await;
    assert_eq!(r.status(), 204);
    let kim = add_player(&admin, teams[0], "Kim", "S100").await;
    let lee = add_player(&admin, teams[0], "Lee", "S200").await;
    let ola = add_player(&admin, teams[1], "Ola", "S900").await;
    add_player(&admin, teams[1], "Pat", "S901").await;
    let m: Value = admin
        .post(
            "/api/v1/leagues/fall/matches",
            &json!({"team_a": teams[0], "team_b": teams[1], "table": "7"}),
        )
        .await
        .json()
        .await
        .expect("match");
    let sue = app.browser("sue").await;
    Setup {
        id: m["id"].as_i64().expect("match id"),
        app,
        admin,
        sue,
        kim,
        lee,
        ola,
    }
}

async fn page(b: &Browser, path: &str) -> (u16, String) {
    let r = b.get(path).await;
    (r.status().as_u16(), r.text().await.expect("body"))
}

async fn lineup_of(s: &Setup, team: &str) -> Vec<String> {
    let m: Value = s
        .admin
        .get(&format!("/api/v1/matches/{}", s.id))
        .await
        .json()
        .await
        .expect("match");
    m["lineup"][team]
        .as_array()
        .map(|seats| {
            seats
                .iter()
                .map(|p| p["name"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The text of the element `id` of `html` (to the first `close` after it).
fn text_of(html: &str, id: &str, close: &str) -> String {
    html_text(html_element(html, id, close).unwrap_or_else(|| panic!("no #{id} in page")))
}

#[actix_web::test]
async fn a_lineup_is_picked_from_the_roster_and_names_the_hand_forms_seats() {
    let s = setup().await;
    let console = format!("/supervise/matches/{}", s.id);
    let (status, html) = page(&s.sue, &console).await;
    assert_eq!(status, 200);
    let choices = text_of(&html, "lineup-a-player1", "</select>");
    assert!(
        choices.contains("Kim") && choices.contains("Lee"),
        "{choices}"
    );
    assert!(!choices.contains("Ola"), "only Team 1's players: {choices}");
    // Names only: no student ID anywhere on the console.
    assert!(!html.contains("S100") && !html.contains("S900"));

    let (kim, lee) = (s.kim.to_string(), s.lee.to_string());
    let r = s
        .sue
        .post_form(
            &format!("{console}/lineup"),
            &[("team", "a"), ("player1", &kim), ("player2", &lee)],
        )
        .await;
    assert_eq!(r.status(), 303, "{}", r.text().await.unwrap_or_default());
    assert_eq!(lineup_of(&s, "a").await, ["Kim", "Lee"]);
    let (_, html) = page(&s.sue, &console).await;
    assert_eq!(
        text_of(&html, "lineup-a-set", "</p>"),
        "✓ Team 1: Kim and Lee"
    );

    let r = s.sue.post_form(&format!("{console}/start"), &[]).await;
    assert_eq!(r.status(), 303);
    let (_, html) = page(&s.sue, &console).await;
    let form = html_element(&html, "hand-form", "</form>").expect("the hand form");
    let seats = html_text(form);
    assert!(seats.contains("Seat 1 · Kim"), "{seats}");
    assert!(seats.contains("Seat 3 · Lee"), "{seats}");
    // Team 2 has no lineup: its first two players, as before lineups.
    assert!(seats.contains("Seat 2 · P2a"), "{seats}");
}

#[actix_web::test]
async fn a_lineup_by_typed_student_id_without_the_card_readers_sentinels() {
    let s = setup().await;
    let console = format!("/supervise/matches/{}", s.id);
    let r = s
        .sue
        .post_form(
            &format!("{console}/lineup"),
            &[
                ("team", "b"),
                ("player1", ""),
                ("player2", ""),
                ("student_id1", ";S901?"),
                ("student_id2", " S900\n"),
            ],
        )
        .await;
    assert_eq!(r.status(), 303, "{}", r.text().await.unwrap_or_default());
    assert_eq!(lineup_of(&s, "b").await, ["Pat", "Ola"]);
}

#[actix_web::test]
async fn a_player_not_on_the_roster_is_refused_in_words_and_nothing_is_written() {
    let s = setup().await;
    let console = format!("/supervise/matches/{}", s.id);
    let before = s.app.tables().await;
    // Ola plays for Team 2: her card swiped for Team 1.
    let r = s
        .sue
        .post_form(
            &format!("{console}/lineup"),
            &[
                ("team", "a"),
                ("student_id1", "S100"),
                ("student_id2", "S900"),
            ],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.expect("body");
    s.app
        .assert_nothing_written(&before, "a lineup with a player of the other team")
        .await;
    let summary = html_element(&html, "error-summary", "</div>").expect("an error summary");
    assert!(
        summary.contains("href=\"#lineup-a-student-id2\""),
        "{summary}"
    );
    let said = html_text(summary);
    assert!(
        said.contains("The second student ID is not on Team 1's roster"),
        "{said}"
    );
    let at_field = text_of(&html, "lineup-a-seat2-error", "</p>");
    assert!(at_field.contains("not on Team 1's roster"), "{at_field}");
    assert!(!said.contains("S900") && !at_field.contains("S900"));
    assert!(html.contains("<title>Error: "), "the title says it");
    // The typed values are kept, the form open.
    let typed = html_element(&html, "lineup-a-student-id2", ">").expect("the field");
    assert!(typed.contains("value=\"S900\""), "{typed}");
    assert!(typed.contains("aria-invalid=\"true\""), "{typed}");
    let first = html_element(&html, "lineup-a-student-id1", ">").expect("the field");
    assert!(first.contains("value=\"S100\""), "{first}");

    // Picked by id: Ola is not on Team 1's roster either.
    let (ola, lee) = (s.ola.to_string(), s.lee.to_string());
    let r = s
        .sue
        .post_form(
            &format!("{console}/lineup"),
            &[("team", "a"), ("player1", &ola), ("player2", &lee)],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.expect("body");
    let said = text_of(&html, "lineup-a-seat1-error", "</p>");
    assert_eq!(
        said,
        "The first player is not on Team 1's roster (any more)"
    );
    let kept = html_element(&html, "lineup-a-player2", "</select>").expect("the select");
    assert!(
        kept.contains(&format!("value=\"{lee}\" selected")),
        "{kept}"
    );
    s.app
        .assert_nothing_written(&before, "a picked player of the other team")
        .await;
    assert!(lineup_of(&s, "a").await.is_empty());
}

#[actix_web::test]
async fn a_lineup_without_the_sessions_csrf_token_is_refused() {
    let s = setup().await;
    let before = s.app.tables().await;
    let (kim, lee) = (s.kim.to_string(), s.lee.to_string());
    let r = s
        .sue
        .post_form(
            &format!("/supervise/matches/{}/lineup", s.id),
            &[
                ("csrf", "not-the-token"),
                ("team", "a"),
                ("player1", &kim),
                ("player2", &lee),
            ],
        )
        .await;
    assert_eq!(r.status(), 403);
    s.app
        .assert_nothing_written(&before, "a forged lineup")
        .await;
}

#[actix_web::test]
async fn where_lineups_are_required_the_hand_form_waits_for_them() {
    let s = setup().await;
    let r = s
        .admin
        .patch(
            "/api/v1/leagues/fall",
            &json!({"settings": {"lineups": {"required": true}}}),
        )
        .await;
    json_with_status(r, 200, "settings").await;
    let console = format!("/supervise/matches/{}", s.id);
    let r = s.sue.post_form(&format!("{console}/start"), &[]).await;
    assert_eq!(r.status(), 303);
    let (_, html) = page(&s.sue, &console).await;
    assert!(
        !html.contains("id=\"hand-form\""),
        "no hand form to be refused"
    );
    let said = text_of(&html, "lineup-missing", "</div>");
    assert!(
        said.contains("Set Team 1's lineup before the first hand."),
        "{said}"
    );
    assert!(said.contains("Set Team 2's lineup before the first hand."));

    let (kim, lee) = (s.kim.to_string(), s.lee.to_string());
    let r = s
        .sue
        .post_form(
            &format!("{console}/lineup"),
            &[("team", "a"), ("player1", &kim), ("player2", &lee)],
        )
        .await;
    assert_eq!(r.status(), 303);
    let (_, html) = page(&s.sue, &console).await;
    let said = text_of(&html, "lineup-missing", "</div>");
    assert!(!said.contains("Team 1"), "{said}");
    assert!(said.contains("Set Team 2's lineup before the first hand."));
    let r = s
        .sue
        .post_form(
            &format!("{console}/lineup"),
            &[
                ("team", "b"),
                ("student_id1", "S900"),
                ("student_id2", "S901"),
            ],
        )
        .await;
    assert_eq!(r.status(), 303);
    let (_, html) = page(&s.sue, &console).await;
    assert!(html.contains("id=\"hand-form\""));
    assert!(!html.contains("id=\"lineup-missing\""));
}

#[actix_web::test]
async fn the_match_page_and_its_csv_say_who_bid_what_per_hand() {
    let s = setup().await;
    let max = add_player(&s.admin, team_of(&s, "a").await, "Max", "S300").await;
    let console = format!("/supervise/matches/{}", s.id);
    let set = |p1: i64, p2: i64| {
        let (p1, p2) = (p1.to_string(), p2.to_string());
        let sue = &s.sue;
        let path = format!("{console}/lineup");
        async move {
            let r = sue
                .post_form(&path, &[("team", "a"), ("player1", &p1), ("player2", &p2)])
                .await;
            assert_eq!(r.status(), 303);
        }
    };
    set(s.kim, s.lee).await;
    let m = s
        .admin
        .play_hands(s.id, &[hand_of([4, 3], [5, 3], [3, 2], [3, 2])])
        .await;
    // Lee leaves after hand 1: Max sits in from hand 2.
    set(s.kim, max).await;
    let m = s.admin.get(&format!("/api/v1/matches/{}", m["id"])).await;
    let m: Value = m.json().await.expect("match");
    s.admin
        .enter_hand(&m, &hand_of([2, 2], [2, 3], [4, 4], [4, 4]))
        .await;

    let (status, _, html) = anonymous_get(&s.app, &format!("/matches/{}", s.id)).await;
    assert_eq!(status, 200);
    let row = |n: usize| html_cells(html_element(&html, &format!("hand-{n}"), "</tr>").unwrap());
    let first = row(1);
    assert_eq!(first[1], "Kim 4 + Lee 3", "{first:?}");
    assert_eq!(first[2], "Kim 5 + Lee 3", "{first:?}");
    // Team 2 had no lineup: its bids stay bare numbers.
    assert_eq!(first[10], "3 + 2", "{first:?}");
    let second = row(2);
    assert_eq!(second[1], "Kim 2 + Max 2", "{second:?}");
    assert!(
        !html.contains("S100") && !html.contains("S300"),
        "names only"
    );

    let (status, _, csv) =
        anonymous_get(&s.app, &format!("/matches/{}/scoresheet.csv", s.id)).await;
    assert_eq!(status, 200);
    let rows = csv_rows(&csv);
    let tail = |r: &Vec<String>| r[r.len() - 4..].to_vec();
    assert_eq!(
        tail(&rows[0]),
        ["a_player1", "a_player2", "b_player1", "b_player2"]
    );
    assert_eq!(tail(&rows[1]), ["Kim", "Lee", "", ""]);
    assert_eq!(tail(&rows[2]), ["Kim", "Max", "", ""]);
}

/// The id of the team on side `team` of the match.
async fn team_of(s: &Setup, team: &str) -> i64 {
    let m: Value = s
        .admin
        .get(&format!("/api/v1/matches/{}", s.id))
        .await
        .json()
        .await
        .expect("match");
    m[format!("team_{team}")]["id"].as_i64().expect("team id")
}
