//! The check-in desk of a tournament night (docs/api.md §21.4): one form adds a team of two
//! and checks it in; teams known before are checked in with a button; once anyone is checked
//! in, the Swiss rounds pair only the teams checked in; after the first round the desk adds
//! no team.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{html_element, html_text, json_with_status, spawn_app};

const DESK: &str = "/admin/leagues/open/desk";

fn arrival<'a>(name: &'a str, id1: &'a str, id2: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("name", name),
        ("p1_name", "Ada Obi"),
        ("p1_student_id", id1),
        ("p2_name", "Ben Ruiz"),
        ("p2_student_id", id2),
    ]
}

#[actix_web::test]
async fn the_desk_adds_and_checks_in_and_the_rounds_pair_only_who_came() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let known = app.league(&admin, "open", json!("classic"), 4).await;
    let browser = app.browser("coord").await;
    let html = browser.get(DESK).await.text().await.unwrap_or_default();
    assert!(
        html.contains("<strong>0</strong> of 4 teams checked in; 4 still missing"),
        "{html}"
    );

    // A student id that is no student id: the form comes back whole, the message by it.
    let r = browser
        .post_form(DESK, &arrival("Night Owls", "12 34 ??", ""))
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap_or_default();
    let field = html_element(&html, "arrive-players[0].student_id", ">").unwrap_or_default();
    assert!(
        field.contains("aria-invalid=\"true\"") && field.contains("12 34 ??"),
        "{field}"
    );
    assert!(html.contains("id=\"arrive-p1-student-error\""), "{html}");
    assert!(html.contains("value=\"Night Owls\"") && html.contains("value=\"Ben Ruiz\""));
    assert!(
        html.contains("class=\"error-summary\""),
        "the summary at the top"
    );
    // A name already taken, the same way.
    let r = browser.post_form(DESK, &arrival("team 1", "", "")).await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap_or_default();
    assert!(html.contains("id=\"arrive-name-error\""), "{html}");

    // A good team: added and checked in at once.
    let r = browser
        .post_form(DESK, &arrival("Night Owls", "A1001", "A1002"))
        .await;
    assert_eq!(r.status(), 303);
    let to = r.headers()["location"].to_str().unwrap_or("").to_string();
    let html = browser.get(&to).await.text().await.unwrap_or_default();
    let arrived = html_text(html_element(&html, "arrived", "</ul>").unwrap_or_default());
    assert!(
        arrived.contains("Night Owls") && arrived.contains("Ada Obi and Ben Ruiz"),
        "{arrived}"
    );
    assert!(!html.contains("A1001"), "no student id on the desk's lists");
    assert!(
        html_text(html_element(&html, "notice", "</p>").unwrap_or_default())
            .contains("Night Owls is checked in")
    );

    // Three of the four known teams check in; one is undone again.
    for id in &known[..3] {
        let path = format!("{DESK}/{id}/check-in");
        let r = browser.post_form(&path, &[("arrived", "1")]).await;
        assert_eq!(r.status(), 303);
    }
    let path = format!("{DESK}/{}/check-in", known[2]);
    assert_eq!(
        browser.post_form(&path, &[("arrived", "0")]).await.status(),
        303
    );
    let html = browser.get(DESK).await.text().await.unwrap_or_default();
    assert!(
        html.contains("<strong>3</strong> of 5 teams checked in; 2 still missing"),
        "{html}"
    );

    // Round 1 pairs the three checked in and gives one of them the bye.
    let r = admin
        .post(
            "/api/v1/leagues/open/schedule",
            &json!({"mode": "swiss_round"}),
        )
        .await;
    let paired = json_with_status(r, 201, "round 1").await;
    let matches = paired["matches"].as_array().cloned().unwrap_or_default();
    assert_eq!(matches.len(), 1, "{paired}");
    let playing: Vec<Value> = matches
        .iter()
        .flat_map(|m| [m["team_a"]["id"].clone(), m["team_b"]["id"].clone()])
        .chain([paired["bye"].clone()])
        .collect();
    for missing in [known[2], known[3]] {
        assert!(
            !playing.contains(&json!(missing)),
            "team {missing} did not come: {paired}"
        );
    }

    // Now the desk adds no one: the form is gone, a post says why.
    let html = browser.get(DESK).await.text().await.unwrap_or_default();
    assert!(
        html.contains("id=\"desk-closed\"") && !html.contains("id=\"arrive\""),
        "{html}"
    );
    let r = browser
        .post_form(DESK, &arrival("Latecomers", "", ""))
        .await;
    assert_eq!(r.status(), 409);
    let html = r.text().await.unwrap_or_default();
    assert!(html.contains("the first round is paired"), "{html}");
    // A team of another league is no team here.
    let other = app.league(&admin, "other", json!("classic"), 2).await;
    let path = format!("{DESK}/{}/check-in", other[0]);
    assert_eq!(
        browser.post_form(&path, &[("arrived", "1")]).await.status(),
        404
    );
}
