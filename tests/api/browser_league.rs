//! League night in headless Chromium: a supervisor logs in, starts a match, enters hands (one
//! invalid, corrected on the form), corrects an earlier hand with a reason, and the public
//! match page and the standings show the new numbers; then logs out. And two supervisors on
//! one match: the second, with a stale page, gets the conflict page.

use std::time::Duration;

use anyhow::{Context, ensure};
use serde_json::{Value, json};
use spades_im::service::Role;

use crate::browser::with_browser;
use crate::helpers::{PASSWORD, TestApp, spawn_app};
use crate::webdriver::Browser;

const WAIT: Duration = Duration::from_secs(30);
const WHOLE_TEST: Duration = Duration::from_secs(240);

/// A league under unc-im-300 with 4 teams, a round robin, and supervisor `sam` assigned;
/// returns the id of the first match (Team A of it is seats 1 and 3).
async fn league_night(app: &TestApp) -> (crate::helpers::Api, i64) {
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(&admin, "fall", json!("unc-im-300"), 4).await;
    app.user("sam", Role::Supervisor).await;
    let response = admin
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "sam"}),
        )
        .await;
    assert_eq!(response.status(), 204);
    let schedule: Value = admin
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin"}),
        )
        .await
        .json()
        .await
        .expect("schedule json");
    let id = schedule["matches"][0]["id"].as_i64().expect("a match");
    (admin, id)
}

async fn login(browser: &Browser, app: &TestApp, name: &str) -> anyhow::Result<()> {
    browser.goto(&app.url("/login")).await?;
    let user = browser.wait_for("#username", WAIT).await?;
    browser.send_keys(&user, name).await?;
    let password = browser.find("#password").await?;
    browser.send_keys(&password, PASSWORD).await?;
    let button = browser.find("#login-button").await?;
    browser.click_and_wait_for_page(&button, WAIT).await?;
    let url = browser.current_url().await?;
    ensure!(url.ends_with("/supervise"), "after login: {url}");
    Ok(())
}

/// Types one hand on the console form: bids and tricks of seats 1–4 in the form's names.
async fn type_hand(
    browser: &Browser,
    a: [(&str, &str); 2],
    b: [(&str, &str); 2],
) -> anyhow::Result<()> {
    for (team, seats) in [("a", a), ("b", b)] {
        for (i, (bid, took)) in seats.iter().enumerate() {
            browser
                .select_by_value(&format!("select[name=\"{team}_bid{i}\"]"), bid)
                .await?;
            let input = browser
                .find(&format!("input[name=\"{team}_tricks{i}\"]"))
                .await?;
            browser.clear(&input).await?;
            browser.send_keys(&input, took).await?;
        }
    }
    Ok(())
}

async fn submit(browser: &Browser, css: &str) -> anyhow::Result<()> {
    let button = browser.find(css).await?;
    browser.click_and_wait_for_page(&button, WAIT).await?;
    Ok(())
}

async fn scores(browser: &Browser) -> anyhow::Result<(String, String)> {
    Ok((
        browser.text_of("#score-a").await?,
        browser.text_of("#score-b").await?,
    ))
}

/// This test's name, for [`binaries_or_skip`].
const LEAGUE_NIGHT_TEST: &str = "browser_league::a_supervisor_runs_a_match_in_a_browser";

#[actix_web::test]
async fn a_supervisor_runs_a_match_in_a_browser() {
    let app = spawn_app().await;
    let (admin, id) = league_night(&app).await;
    with_browser(
        LEAGUE_NIGHT_TEST,
        "league-night",
        WHOLE_TEST,
        async |browser| {
            login(browser, &app, "sam").await?;
            browser
                .find(&format!("a#match-{id}"))
                .await
                .context("tonight lists the match")?;
            browser
                .goto(&app.url(&format!("/supervise/matches/{id}")))
                .await?;
            submit(browser, "#start").await?;
            browser.wait_for("#hand-form", WAIT).await?;

            // Hand 1. A: 4 + nil, took 5 + 0 → nil +60, 40, 1 bag = 101.
            //         B: 3 + 3 = 6, took 4 + 4 → 60 + 2 bags = 62.
            type_hand(
                browser,
                [("4", "5"), ("nil", "0")],
                [("3", "4"), ("3", "4")],
            )
            .await?;
            submit(browser, "#record").await?;
            ensure!(
                scores(browser).await? == ("101".into(), "62".into()),
                "after hand 1"
            );

            // Hand 2, typed wrong: the tricks sum to 12.
            // Refused on the phone by the engine (static/console/form.js): nothing is sent.
            type_hand(browser, [("5", "6"), ("2", "2")], [("4", "3"), ("1", "1")]).await?;
            let record = browser.find("#record").await?;
            browser.click(&record).await?;
            let error = browser.wait_for("#hand-error", WAIT).await?;
            let error = browser.text(&error).await?;
            ensure!(
                error.contains("tricks sum to 12, not 13"),
                "error shown: {error}"
            );
            ensure!(
                browser.value_of("input[name=\"b_tricks1\"]").await? == "1",
                "the typed tricks are kept"
            );
            ensure!(
                browser.value_of("select[name=\"a_bid0\"]").await? == "5",
                "the typed bid is kept"
            );
            // Fixed: B's seat 4 took 2. A: 7 bid, 8 taken → 71. B: 5 bid, 5 taken → 50.
            let input = browser.find("input[name=\"b_tricks1\"]").await?;
            browser.clear(&input).await?;
            browser.send_keys(&input, "2").await?;
            submit(browser, "#record").await?;
            ensure!(
                scores(browser).await? == ("172".into(), "112".into()),
                "after hand 2: {:?}",
                scores(browser).await?
            );

            // Correct hand 1: B really took 5 + 3 (A 5 + 0 unchanged) → B 62 → 62 (6 bid, 8
            // taken); make it A 6 + 0 and B 3 + 4: A 60 + 40 + 2 = 102, B 60 + 1 = 61.
            browser
                .find("a#correct-1")
                .await
                .context("a Correct link")?;
            browser
                .goto(&app.url(&format!("/supervise/matches/{id}/hands/1/edit")))
                .await?;
            browser.wait_for("#reason", WAIT).await?;
            type_hand(
                browser,
                [("4", "6"), ("nil", "0")],
                [("3", "3"), ("3", "4")],
            )
            .await?;
            let reason = browser.find("#reason").await?;
            browser
                .send_keys(&reason, "seat 1 took one more trick")
                .await?;
            submit(browser, "#record").await?;
            // 102 + 71 = 173; 61 + 50 = 111.
            ensure!(
                scores(browser).await? == ("173".into(), "111".into()),
                "after the correction: {:?}",
                scores(browser).await?
            );

            // The public match page shows the corrected numbers, each in its team's score box.
            browser.goto(&app.url(&format!("/matches/{id}"))).await?;
            ensure!(
                scores(browser).await? == ("173".into(), "111".into()),
                "public match page: {:?}",
                scores(browser).await?
            );
            let page = browser.source().await?;
            ensure!(
                page.contains("seat 1 took one more trick"),
                "the correction's reason"
            );

            // Finish the game through the API (A reaches 300) and read the standings page.
            let view: Value = admin
                .get(&format!("/api/v1/matches/{id}"))
                .await
                .json()
                .await?;
            let mut version = view["version"].as_i64().context("version")?;
            for _ in 0..3 {
                let answer: Value = admin
                    .post(
                        &format!("/api/v1/matches/{id}/hands"),
                        &json!({"hand": {"a": {"bids": [5, 4], "tricks": [5, 4]},
                                     "b": {"bids": [2, 2], "tricks": [2, 2]}},
                            "expected_version": version}),
                    )
                    .await
                    .json()
                    .await?;
                version = answer["version"].as_i64().unwrap_or(version);
                if answer["status"] == "complete" {
                    break;
                }
            }
            let done: Value = admin
                .get(&format!("/api/v1/matches/{id}"))
                .await
                .json()
                .await?;
            ensure!(
                done["status"] == "complete",
                "the match is over: {}",
                done["status"]
            );
            ensure!(done["winner"] == "a", "team A won: {}", done["winner"]);
            let (winner, loser) = (
                done["team_a"]["id"].as_i64().context("team a")?,
                done["team_b"]["id"].as_i64().context("team b")?,
            );
            let (winner_score, loser_score) = (
                done["a"]["score"].as_i64().context("score")?,
                done["b"]["score"].as_i64().context("score")?,
            );
            browser.goto(&app.url("/leagues/fall/standings")).await?;
            // The one match played: the winner ranks first, 1 won 0 lost, its points for and
            // against; the loser 0 won 1 lost; read cell by cell in each team's own row.
            let rows = browser.find_all("#standings tbody tr").await?;
            let first = rows.first().context("standings rows")?;
            ensure!(
                browser.attribute(first, "id").await?.as_deref()
                    == Some(format!("standing-{winner}").as_str()),
                "the winner's row comes first"
            );
            for (team, expected) in [
                (
                    winner,
                    vec![
                        ("c-rank", "1".to_string()),
                        ("c-played", "1".into()),
                        ("c-won", "1".into()),
                        ("c-lost", "0".into()),
                        ("c-pf", winner_score.to_string()),
                        ("c-pa", loser_score.to_string()),
                    ],
                ),
                (
                    loser,
                    vec![
                        ("c-played", "1".to_string()),
                        ("c-won", "0".into()),
                        ("c-lost", "1".into()),
                        ("c-pf", loser_score.to_string()),
                        ("c-pa", winner_score.to_string()),
                    ],
                ),
            ] {
                for (class, value) in expected {
                    let shown = browser
                        .text_of(&format!("#standing-{team} td.{class}"))
                        .await?;
                    ensure!(
                        shown == value,
                        "standings: team {team}'s {class} is {shown:?}, expected {value:?}"
                    );
                }
            }

            // Log out: the console is closed again.
            browser.goto(&app.url("/supervise")).await?;
            let logout = browser.find("form[action=\"/logout\"] button").await?;
            browser.click_and_wait_for_page(&logout, WAIT).await?;
            browser.goto(&app.url("/supervise")).await?;
            let url = browser.current_url().await?;
            ensure!(
                url.contains("/login"),
                "after logout /supervise goes to the login: {url}"
            );
            Ok(())
        },
    )
    .await;
}

/// The name of the conflict test, for its two browsers.
const CONFLICT_TEST: &str =
    "browser_league::the_second_supervisor_with_a_stale_page_gets_the_conflict_page";

#[actix_web::test]
async fn the_second_supervisor_with_a_stale_page_gets_the_conflict_page() {
    let app = spawn_app().await;
    let (admin, id) = league_night(&app).await;
    app.user("kim", Role::Supervisor).await;
    let response = admin
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "kim"}),
        )
        .await;
    assert_eq!(response.status(), 204);
    let started = admin
        .post(&format!("/api/v1/matches/{id}/start"), &json!({}))
        .await;
    assert_eq!(started.status(), 200);
    with_browser(CONFLICT_TEST, "conflict", WHOLE_TEST, async |first| {
        login(first, &app, "sam").await?;
        first
            .goto(&app.url(&format!("/supervise/matches/{id}")))
            .await?;
        first.wait_for("#hand-form", WAIT).await?;
        // The second supervisor, in a browser of their own, records the hand first.
        with_browser(
            CONFLICT_TEST,
            "conflict-second",
            WHOLE_TEST,
            async |second| {
                login(second, &app, "kim").await?;
                second
                    .goto(&app.url(&format!("/supervise/matches/{id}")))
                    .await?;
                second.wait_for("#hand-form", WAIT).await?;
                type_hand(second, [("4", "5"), ("nil", "0")], [("3", "4"), ("3", "4")]).await?;
                submit(second, "#record").await?;
                ensure!(
                    scores(second).await? == ("101".into(), "62".into()),
                    "kim's hand"
                );
                Ok(())
            },
        )
        .await;
        // Sam's page is stale now: the same hand typed again is refused with the conflict.
        type_hand(first, [("4", "5"), ("nil", "0")], [("3", "4"), ("3", "4")]).await?;
        submit(first, "#record").await?;
        first
            .find("section#conflict")
            .await
            .context("the conflict page")?;
        let message = first.text_of("#conflict-message").await?;
        ensure!(!message.is_empty(), "the conflict says what happened");
        ensure!(
            scores(first).await? == ("101".into(), "62".into()),
            "it shows the current score"
        );
        let view: Value = admin
            .get(&format!("/api/v1/matches/{id}"))
            .await
            .json()
            .await?;
        ensure!(
            view["hands"].as_array().map(Vec::len) == Some(1),
            "the stale hand was not recorded"
        );
        Ok(())
    })
    .await;
}
