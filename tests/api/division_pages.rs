//! Divisions on the coordinator's league page (docs/api.md §18.1): the "Divisions" section
//! and its "Add a division" form, the team forms' division select, and a team's division
//! fixed once it has played. Each refusal is shown on the form, focused, with what was typed
//! kept and nothing written.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, Browser, TestApp, html_element, html_text, json_with_status, spawn_app};

async fn setup() -> (TestApp, Api, Browser) {
    let app = spawn_app().await;
    let api = app.api_user("boss", Role::Admin).await;
    let browser = app.browser("boss").await;
    (app, api, browser)
}

/// The text of the element `id` up to `close` (askama's `&#34;` read as `"`), or "" when
/// the page has none.
fn text(html: &str, id: &str, close: &str) -> String {
    html_element(html, id, close)
        .map(html_text)
        .unwrap_or_default()
        .replace("&#34;", "\"")
}

/// The page's focused error summary, as text ("" when there is none).
fn summary(html: &str) -> String {
    let tag = html_element(html, "form-error", ">").unwrap_or_default();
    assert!(
        tag.is_empty() || (tag.contains("autofocus") && tag.contains("role=\"alert\"")),
        "the summary is focused and announced: {tag}"
    );
    text(html, "form-error", "</p>")
}

async fn division(api: &Api, slug: &str, name: &str) -> i64 {
    let r = api
        .post(
            &format!("/api/v1/leagues/{slug}/divisions"),
            &json!({"name": name}),
        )
        .await;
    json_with_status(r, 201, "a division").await["id"]
        .as_i64()
        .unwrap()
}

/// The division of team `id`, as the API answers it.
async fn division_of(api: &Api, slug: &str, id: i64) -> Value {
    let r = api.get(&format!("/api/v1/leagues/{slug}/teams")).await;
    let teams = json_with_status(r, 200, "the teams").await;
    let list = teams
        .get("teams")
        .unwrap_or(&teams)
        .as_array()
        .unwrap()
        .clone();
    list.into_iter()
        .find(|t| t["id"] == id)
        .map(|t| t["division"].clone())
        .unwrap_or_else(|| panic!("no team {id}"))
}

async fn page(browser: &Browser, path: &str) -> String {
    let r = browser.get(path).await;
    assert_eq!(r.status(), 200, "{path}");
    r.text().await.unwrap()
}

#[actix_web::test]
async fn a_division_is_added_on_the_league_page_and_a_taken_name_is_refused_by_its_field() {
    let (app, api, browser) = setup().await;
    app.league(&api, "fall", json!("unc-im-300"), 2).await;
    let html = page(&browser, "/admin/leagues/fall").await;
    assert!(text(&html, "divisions", "</section>").contains("No division"));
    assert!(
        !html.contains("id=\"team-division\""),
        "no select without divisions"
    );

    let r = browser
        .post_form("/admin/leagues/fall/divisions", &[("name", "Competitive")])
        .await;
    assert_eq!(r.status(), 303);
    let to = r.headers()["location"].to_str().unwrap().to_string();
    let listed =
        json_with_status(api.get("/api/v1/leagues/fall/divisions").await, 200, "list").await;
    assert_eq!(listed["divisions"][0]["name"], "Competitive", "{listed}");
    let id = listed["divisions"][0]["id"].as_i64().unwrap();
    assert_eq!(
        to,
        format!("/admin/leagues/fall?done=division&division={id}")
    );
    let html = page(&browser, &to).await;
    assert_eq!(text(&html, "notice", "</p>"), "Division Competitive added.");
    assert_eq!(
        text(&html, &format!("division-{id}"), "</li>"),
        "Competitive : 0 teams"
    );

    // A name the league has (another case) and an empty one: shown by the field, kept.
    let before = app.tables().await;
    for (typed, message) in [
        (
            "competitive",
            "the league already has a division named \"Competitive\"",
        ),
        ("   ", "the division's name"),
    ] {
        let r = browser
            .post_form("/admin/leagues/fall/divisions", &[("name", typed)])
            .await;
        assert_eq!(r.status(), 422, "{typed:?}");
        let html = r.text().await.unwrap();
        assert!(
            summary(&html).contains(message),
            "{typed:?}: {}",
            summary(&html)
        );
        let by_field = text(&html, "division-name-error", "</p>");
        assert!(by_field.contains(message), "{typed:?}: {by_field}");
        let input = html_element(&html, "division-name", ">").unwrap();
        assert!(input.contains(&format!("value=\"{typed}\"")), "{input}");
        assert!(input.contains("aria-invalid=\"true\""), "{input}");
    }
    app.assert_nothing_written(&before, "a refused division")
        .await;
}

#[actix_web::test]
async fn a_team_is_added_into_a_division_and_moved_before_it_plays() {
    let (app, api, browser) = setup().await;
    let ids = app.league(&api, "fall", json!("unc-im-300"), 2).await;
    let competitive = division(&api, "fall", "Competitive").await;
    let recreational = division(&api, "fall", "Recreational").await;
    let html = page(&browser, "/admin/leagues/fall").await;
    let select = text(&html, "team-division", "</select>");
    assert_eq!(select, "— none — Competitive Recreational");

    // A refusal keeps the division picked.
    let before = app.tables().await;
    let r = browser
        .post_form(
            "/admin/leagues/fall/teams",
            &[
                ("name", ""),
                ("player1", "Ann"),
                ("player2", "Al"),
                ("division", &recreational.to_string()),
            ],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    let select = html_element(&html, "team-division", "</select>").unwrap();
    assert!(
        select.contains(&format!("<option value=\"{recreational}\" selected>")),
        "{select}"
    );
    app.assert_nothing_written(&before, "a refused team").await;

    let r = browser
        .post_form(
            "/admin/leagues/fall/teams",
            &[
                ("name", "Aces"),
                ("player1", "Ann"),
                ("player2", "Al"),
                ("division", &competitive.to_string()),
            ],
        )
        .await;
    assert_eq!(r.status(), 303);
    let teams = json_with_status(api.get("/api/v1/leagues/fall/teams").await, 200, "teams").await;
    let list = teams
        .get("teams")
        .unwrap_or(&teams)
        .as_array()
        .unwrap()
        .clone();
    let aces = list.iter().find(|t| t["name"] == "Aces").unwrap();
    assert_eq!(aces["division"], competitive, "{aces}");
    let html = page(&browser, "/admin/leagues/fall").await;
    let aces_id = aces["id"].as_i64().unwrap();
    assert_eq!(
        text(&html, &format!("t{aces_id}-division-name"), "</span>"),
        "(Competitive)"
    );
    assert_eq!(
        text(&html, &format!("division-{competitive}"), "</li>"),
        "Competitive : 1 team"
    );

    // Team 1 joins Recreational, then leaves it, from its edit form.
    let edit = format!("/admin/leagues/fall/teams/{}", ids[0]);
    let r = browser
        .post_form(
            &edit,
            &[("name", "Team 1"), ("division", &recreational.to_string())],
        )
        .await;
    assert_eq!(r.status(), 303);
    assert_eq!(division_of(&api, "fall", ids[0]).await, recreational);
    let html = page(&browser, "/admin/leagues/fall").await;
    let select = html_element(&html, &format!("t{}-division", ids[0]), "</select>").unwrap();
    assert!(
        select.contains(&format!("<option value=\"{recreational}\" selected>")),
        "{select}"
    );
    let r = browser
        .post_form(&edit, &[("name", "Team One"), ("division", "")])
        .await;
    assert_eq!(r.status(), 303);
    assert_eq!(division_of(&api, "fall", ids[0]).await, Value::Null);
    // The form without a select (a league without divisions) changes no division.
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/teams/{aces_id}"),
            &[("name", "Aces")],
        )
        .await;
    assert_eq!(r.status(), 303);
    assert_eq!(division_of(&api, "fall", aces_id).await, competitive);
}

#[actix_web::test]
async fn a_team_that_has_played_keeps_its_division_and_a_stale_form_is_told_why() {
    let (app, api, browser) = setup().await;
    let ids = app.league(&api, "fall", json!("unc-im-300"), 2).await;
    let competitive = division(&api, "fall", "Competitive").await;
    let r = api
        .patch(
            &format!("/api/v1/teams/{}", ids[0]),
            &json!({"division": competitive}),
        )
        .await;
    json_with_status(r, 200, "team 1 in Competitive").await;
    // The coordinator opens the page before the match starts.
    let html = page(&browser, "/admin/leagues/fall").await;
    assert!(html.contains(&format!("id=\"t{}-division\"", ids[0])));
    let m = api.add_match("fall", ids[0], ids[1], "Table 1").await;
    api.start_match(m["id"].as_i64().unwrap()).await;

    let html = page(&browser, "/admin/leagues/fall").await;
    assert!(
        !html.contains(&format!("id=\"t{}-division\"", ids[0])),
        "no control once played"
    );
    assert_eq!(
        text(&html, &format!("t{}-division-fixed", ids[0]), "</p>"),
        "Division: Competitive (fixed once the team has played)"
    );

    // The form sent from the page seen before the start.
    let before = app.tables().await;
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/teams/{}", ids[0]),
            &[("name", "Team 1"), ("division", "")],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    let said = summary(&html);
    assert!(
        said.contains("Team 1 has already played a match: its division can no longer change"),
        "{said}"
    );
    let by_form = text(&html, &format!("team-{}-error", ids[0]), "</p>");
    assert!(by_form.contains("already played"), "{by_form}");
    app.assert_nothing_written(&before, "a division change refused")
        .await;
    assert_eq!(division_of(&api, "fall", ids[0]).await, competitive);
}
