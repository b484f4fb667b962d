//! A lineup entered on a phone (headless Chromium, a 390×844 window) the way it is at the
//! table: a card reader types a student ID with the magnetic stripe's sentinels and Enter
//! into the first seat's field, the console takes the sentinels off and moves on to the
//! second seat's field; the second card's Enter sends the lineup; the match starts and the
//! hand form names the seats after the lineup's players, hand after hand.

use std::time::Duration;

use anyhow::{Context, ensure};
use serde_json::{Value, json};
use spades_im::service::Role;

use crate::browser::evidence;
use crate::helpers::{PASSWORD, TestApp, json_with_status, spawn_app};
use crate::webdriver::{Browser, binaries_or_skip};

const WAIT: Duration = Duration::from_secs(30);
const WHOLE_TEST: Duration = Duration::from_secs(240);
const PHONE: (u32, u32) = (390, 844);
/// WebDriver's Enter key.
const ENTER: &str = "\u{E007}";

/// League `fall` with two teams, supervisor `sue`, one match not started; Kim (S100) and Lee
/// (S200) join Team 1. The match's id.
async fn evening(app: &TestApp) -> i64 {
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
    for (name, sid) in [("Kim", "S100"), ("Lee", "S200")] {
        let r = admin
            .post(
                &format!("/api/v1/teams/{}/players", teams[0]),
                &json!({"name": name, "student_id": sid}),
            )
            .await;
        json_with_status(r, 201, "a player").await;
    }
    let r = admin
        .post(
            "/api/v1/leagues/fall/matches",
            &json!({"team_a": teams[0], "team_b": teams[1], "table": "4"}),
        )
        .await;
    let m: Value = json_with_status(r, 201, "the match").await;
    m["id"].as_i64().expect("match id")
}

async fn on_a_phone<F>(test: &str, name: &str, app: &TestApp, body: F)
where
    F: AsyncFnOnce(&Browser) -> anyhow::Result<()>,
{
    let Some((driver, chrome)) = binaries_or_skip(test) else {
        return;
    };
    let browser = Browser::start(&driver, &chrome)
        .await
        .expect("chromium starts");
    let outcome = actix_web::rt::time::timeout(WHOLE_TEST, async {
        browser.set_window_size(PHONE.0, PHONE.1).await?;
        browser.goto(&app.url("/login")).await?;
        let user = browser.wait_for("#username", WAIT).await?;
        browser.send_keys(&user, "sue").await?;
        let password = browser.find("#password").await?;
        browser.send_keys(&password, PASSWORD).await?;
        let button = browser.find("#login-button").await?;
        browser.click_and_wait_for_page(&button, WAIT).await?;
        body(&browser).await
    })
    .await;
    let failure = match outcome {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(format!("{e:#}")),
        Err(_) => Some(format!("the browser test took over {WHOLE_TEST:?}")),
    };
    if let Some(failure) = failure {
        let saved = evidence(&browser, name).await;
        let _ = browser.quit().await;
        panic!("{failure}\n{saved}");
    }
    browser.quit().await.expect("the browser quits");
}

/// The legends of the hand form's four seats, in order.
async fn seat_legends(browser: &Browser) -> anyhow::Result<Vec<String>> {
    let read = browser
        .execute(
            "return Array.from(document.querySelectorAll('#hand-form .seat-box legend')) \
               .map(l => l.textContent.replace(/\\s+/g, ' ').trim());",
            json!([]),
        )
        .await?;
    Ok(read
        .as_array()
        .map(|all| {
            all.iter()
                .map(|v| v.as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default())
}

const BY_CARD: &str =
    "browser_lineups::a_lineup_swiped_on_a_phone_names_the_seats_of_the_hand_form";

#[actix_web::test]
async fn a_lineup_swiped_on_a_phone_names_the_seats_of_the_hand_form() {
    let app = spawn_app().await;
    let id = evening(&app).await;
    on_a_phone(BY_CARD, "lineup-by-card", &app, async |browser| {
        browser
            .goto(&app.url(&format!("/supervise/matches/{id}")))
            .await?;
        let first = browser.wait_for("#lineup-a-student-id1", WAIT).await?;
        browser.click(&first).await?;
        // The card reader: the stripe's start sentinel, the digits, the end sentinel, Enter.
        browser.press_keys(&format!(";S100?{ENTER}")).await?;
        ensure!(
            browser.active_id().await? == "lineup-a-student-id2",
            "Enter in the first seat's field moves to the second's, not sending the form"
        );
        let typed = browser.value_of("#lineup-a-student-id1").await?;
        ensure!(typed == "S100", "the sentinels are taken off: {typed:?}");
        browser.press_keys(&format!("S200{ENTER}")).await?;
        let set = browser
            .wait_for("#lineup-a-set", WAIT)
            .await
            .context("the lineup is set")?;
        let said = browser.text(&set).await?;
        ensure!(said.contains("Kim and Lee"), "{said}");
        ensure!(
            !browser.source().await?.contains("S100"),
            "the console shows no student ID"
        );

        let start = browser.find("#start").await?;
        browser.click(&start).await?;
        browser.wait_for("#hand-form", WAIT).await?;
        let seats = seat_legends(browser).await?;
        ensure!(
            seats.len() == 4
                && seats[0].contains("Seat 1 · Kim")
                && seats[2].contains("Seat 3 · Lee"),
            "the lineup names seats 1 and 3: {seats:?}"
        );

        // A hand, then the form for the next: the same players at the table.
        for (name, value) in [
            ("a_bid0", "4"),
            ("a_bid1", "3"),
            ("b_bid0", "3"),
            ("b_bid1", "2"),
        ] {
            browser
                .select_by_value(&format!("select[name=\"{name}\"]"), value)
                .await?;
        }
        for (name, took) in [
            ("a_tricks0", "4"),
            ("a_tricks1", "4"),
            ("b_tricks0", "2"),
            ("b_tricks1", "3"),
        ] {
            let input = browser.find(&format!("input[name=\"{name}\"]")).await?;
            browser.send_keys(&input, took).await?;
        }
        let record = browser.find("#record").await?;
        browser.click(&record).await?;
        browser.wait_for("#hand-1", WAIT).await?;
        let title = browser.wait_for("#hand-title", WAIT).await?;
        let heading = browser.text(&title).await?;
        ensure!(heading.starts_with("Hand 2"), "{heading}");
        let seats = seat_legends(browser).await?;
        ensure!(
            seats[0].contains("Kim") && seats[2].contains("Lee"),
            "hand 2 has the same players: {seats:?}"
        );
        let m: Value = app
            .get(&format!("/api/v1/matches/{id}"))
            .await
            .json()
            .await?;
        ensure!(m["lineup"]["a"][0]["name"] == "Kim", "{}", m["lineup"]);
        ensure!(m["hands"].as_array().map(Vec::len) == Some(1), "one hand");
        Ok(())
    })
    .await;
}
