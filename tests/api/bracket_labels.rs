//! Bracket match labels ("M5 · Winners semi-final", docs/api.md §18.5) wherever a match is
//! named: the match JSON, the public match page, the bracket page and CSV, the schedule
//! (public and admin), the supervisor's list and console, the calendar feed and the TV
//! scoreboard, for a single and a double elimination, before and after each match is played.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::bracket_page::{bracket, first_scheduled, hand, league, playoffs, start};
use crate::helpers::{Api, Browser, TestApp, spawn_app};

async fn text(app: &TestApp, path: &str) -> String {
    let r = app.get(path).await;
    assert_eq!(r.status(), 200, "GET {path}");
    r.text().await.expect("body")
}

async fn admin_text(browser: &Browser, path: &str) -> String {
    let r = browser.get(path).await;
    assert_eq!(r.status(), 200, "GET {path}");
    r.text().await.expect("body")
}

/// The bracket CSV's `label` of bracket match `number` (1-based).
fn csv_label(csv: &str, number: usize) -> String {
    let rows = crate::helpers::csv_rows(csv);
    let at = rows[0]
        .iter()
        .position(|c| c == "label")
        .expect("a label column");
    rows[number][at].clone()
}

/// Every place names real match `id` by `label`; `played` says whether it is over (its box
/// then reads "Played", never "Final").
async fn named_everywhere(
    app: &TestApp,
    browser: &Browser,
    slug: &str,
    id: i64,
    number: usize,
    label: &str,
) {
    let m: Value = app
        .get(&format!("/api/v1/matches/{id}"))
        .await
        .json()
        .await
        .expect("match JSON");
    assert_eq!(m["label"], label, "the match JSON of {id}");
    let page = text(app, &format!("/matches/{id}")).await;
    assert!(
        page.contains(&format!("<span id=\"match-label\">{label}</span>")),
        "match page of {id}: {label}"
    );
    let schedule = text(app, &format!("/leagues/{slug}/schedule?week=all")).await;
    let line = crate::helpers::html_element(&schedule, &format!("match-{id}"), "</li>")
        .expect("the match on the schedule");
    assert!(line.contains(label), "public schedule: {label} in {line}");
    let admin = admin_text(browser, &format!("/admin/leagues/{slug}/schedule")).await;
    assert!(
        admin.contains(&format!("<small>{label}</small>")),
        "admin schedule: {label}"
    );
    let console = admin_text(browser, &format!("/supervise/matches/{id}")).await;
    assert!(
        console.contains(&format!("<span id=\"match-label\">{label}</span>")),
        "console: {label}"
    );
    let csv = text(app, &format!("/leagues/{slug}/bracket.csv")).await;
    assert_eq!(csv_label(&csv, number), label, "bracket CSV");
    let drawing = text(app, &format!("/leagues/{slug}/bracket")).await;
    let list = crate::helpers::html_element(&drawing, &format!("list-M{number}"), "</li>")
        .expect("the match in the bracket's list");
    assert!(list.contains(&format!("{label}: ")), "bracket list: {list}");
    let calendar = text(app, &format!("/leagues/{slug}/calendar.ics"))
        .await
        .replace("\r\n ", "");
    assert!(
        calendar.contains(&format!(
            "SUMMARY:{label}: {} vs {}",
            m["team_a"]["name"].as_str().unwrap(),
            m["team_b"]["name"].as_str().unwrap()
        )),
        "calendar: {label} in {calendar}"
    );
}

/// Plays the whole bracket of `slug`, one match at a time, checking each match's label
/// before, during (the TV scoreboard) and after it is played; the labels seen, by bracket
/// match number.
async fn play_all(app: &TestApp, admin: &Api, slug: &str) -> Vec<(usize, String)> {
    let browser = app.browser("coord").await;
    let mut seen = Vec::new();
    let mut night = 1;
    while let Some(bm) = first_scheduled(&bracket(app, slug).await) {
        let id = bm["match_id"].as_i64().expect("a real match");
        let number = bm["id"].as_u64().expect("bracket id") as usize + 1;
        let label = bm["label"].as_str().expect("a label").to_string();
        assert!(label.starts_with(&format!("M{number} · ")), "{label}");
        // Dated (the calendar lists dated matches), no table (the TV then names it by label).
        let m: Value = app
            .get(&format!("/api/v1/matches/{id}"))
            .await
            .json()
            .await
            .expect("match");
        let r = admin
            .patch(
                &format!("/api/v1/matches/{id}"),
                &json!({"scheduled_at": format!("2026-12-{:02}T19:00", night % 28 + 1),
                        "expected_version": m["version"]}),
            )
            .await;
        assert_eq!(r.status(), 200, "schedule {id}");
        night += 1;
        named_everywhere(app, &browser, slug, id, number, &label).await;

        let m = start(admin, id).await;
        let tv = text(app, "/scoreboard?tv=1").await;
        let cell = crate::helpers::html_element(&tv, &format!("board-{id}"), "</li>")
            .expect("the match on the TV");
        assert!(
            cell.contains(&format!("<span class=\"table\">{label}</span>")),
            "TV: {label} in {cell}"
        );
        assert!(!cell.contains(&format!("Match {id}")), "TV: {cell}");
        let tonight = admin_text(&browser, "/supervise").await;
        assert!(tonight.contains(&label), "supervisor's list: {label}");
        let m = hand(admin, id, m["version"].as_i64().expect("version")).await;
        let m = hand(admin, id, m["version"].as_i64().expect("version")).await;
        assert_eq!(m["status"], "complete");
        assert_eq!(m["label"], label.as_str(), "the hand's answer");

        named_everywhere(app, &browser, slug, id, number, &label).await;
        let drawing = text(app, &format!("/leagues/{slug}/bracket")).await;
        let the_box = crate::helpers::html_element(&drawing, &format!("box-M{number}"), "</li>")
            .expect("the box");
        assert!(
            the_box.contains("<span class=\"state\">Played</span>"),
            "played, not \"Final\": {the_box}"
        );
        seen.push((number, label));
    }
    seen
}

fn names(seen: &[(usize, String)]) -> Vec<&str> {
    seen.iter()
        .map(|(_, l)| l.split(" · ").nth(1).expect("a round name"))
        .collect()
}

#[actix_web::test]
async fn a_single_elimination_names_quarter_finals_semi_finals_and_the_final() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    league(&admin, "se", 8).await;
    playoffs(&admin, "se", json!({"format": "single_elimination"})).await;
    let mut seen = play_all(&app, &admin, "se").await;
    seen.sort();
    let labels: Vec<&str> = seen.iter().map(|(_, l)| l.as_str()).collect();
    assert_eq!(
        labels,
        [
            "M1 · Quarter-final",
            "M2 · Quarter-final",
            "M3 · Quarter-final",
            "M4 · Quarter-final",
            "M5 · Semi-final",
            "M6 · Semi-final",
            "M7 · Final",
        ]
    );
}

#[actix_web::test]
async fn a_double_elimination_names_both_brackets_and_the_grand_final() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    league(&admin, "de", 8).await;
    playoffs(
        &admin,
        "de",
        json!({"format": "double_elimination", "grand_final": "simple"}),
    )
    .await;
    let seen = play_all(&app, &admin, "de").await;
    let names = names(&seen);
    let count = |n: &str| names.iter().filter(|x| **x == n).count();
    assert_eq!(count("Winners quarter-final"), 4, "{names:?}");
    assert_eq!(count("Winners semi-final"), 2, "{names:?}");
    assert_eq!(count("Winners final"), 1, "{names:?}");
    assert_eq!(count("Losers final"), 1, "{names:?}");
    assert_eq!(count("Grand final"), 1, "{names:?}");
    assert_eq!(names.last(), Some(&"Grand final"), "{names:?}");
    assert_eq!(names.len(), 14, "every match played once: {names:?}");
}
