//! Conduct at the table in headless Chromium on a phone-sized window (390×844): the
//! supervisor checks team 1 in at 18:50 for a 19:00 match; at 19:12, past the league's
//! 10-minute grace period, the console offers the forfeit against team 2, absent, and the
//! supervisor confirms it; the match is a forfeit with team 2 rated 1 (the league's forfeit
//! rating) and the supervisor rates team 1. A second match is played to the end by API
//! hands; the console then asks for both ratings, a first try with one team left unrated
//! comes back with the focused error summary, then both are saved. Finally the public
//! standings show each team's sportsmanship average with one decimal.

use std::time::Duration;

use anyhow::{Context, ensure};
use serde_json::{Value, json};
use spades_im::service::Role;

use crate::browser::evidence;
use crate::helpers::{
    PASSWORD, TestApp, hand_of, json_with_status, manual_clock, spawn_app_with_clock,
};
use crate::webdriver::{Browser, binaries_or_skip};

const WAIT: Duration = Duration::from_secs(30);
const WHOLE_TEST: Duration = Duration::from_secs(240);

/// This test's name, for [`binaries_or_skip`].
const TEST: &str = "browser_conduct::a_supervisor_checks_in_forfeits_and_rates_on_a_phone";

const SETTINGS: &str = r#"{"forfeit": {"grace_minutes": 10},
    "sportsmanship": {"min": 1, "max": 5, "forfeit_rating": 1, "required": true},
    "eligibility": {"min_sportsmanship": 3.0}}"#;

async fn tap(browser: &Browser, css: &str) -> anyhow::Result<()> {
    let element = browser.find(css).await.with_context(|| css.to_string())?;
    browser.click_and_wait_for_page(&element, WAIT).await?;
    Ok(())
}

async fn match_json(app: &TestApp, id: i64) -> Value {
    app.get(&format!("/api/v1/matches/{id}"))
        .await
        .json()
        .await
        .expect("match json")
}

/// The rendered size of the first element matching `css`: (width, height) in CSS pixels.
async fn size_of(browser: &Browser, css: &str) -> anyhow::Result<(f64, f64)> {
    let rect = browser
        .execute(
            "const r = document.querySelector(arguments[0]).getBoundingClientRect(); \
             return [r.width, r.height];",
            json!([css]),
        )
        .await?;
    Ok((
        rect[0].as_f64().unwrap_or(0.0),
        rect[1].as_f64().unwrap_or(0.0),
    ))
}

/// A thumb's target: at least 44×44 CSS pixels.
async fn ensure_touch_target(browser: &Browser, css: &str) -> anyhow::Result<()> {
    let (w, h) = size_of(browser, css).await?;
    ensure!(w >= 44.0 && h >= 44.0, "{css} is {w}×{h}, under 44×44");
    Ok(())
}

async fn checked(browser: &Browser, css: &str) -> anyhow::Result<bool> {
    let element = browser.find(css).await?;
    Ok(browser.property_json(&element, "checked").await? == json!(true))
}

#[actix_web::test]
async fn a_supervisor_checks_in_forfeits_and_rates_on_a_phone() {
    // Monday 23 November 2026, 18:50 in the league's zone (UTC).
    let (clock, time) = manual_clock("2026-11-23T18:50:00Z", chrono_tz::UTC);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.user("sue", Role::Supervisor).await;
    let teams = app
        .league(
            &admin,
            "fall",
            json!({"preset": "unc-im-300", "target": 100}),
            4,
        )
        .await;
    let settings: Value = serde_json::from_str(SETTINGS).unwrap();
    let r = admin
        .client
        .patch(app.url("/api/v1/leagues/fall"))
        .bearer_auth(&admin.token)
        .json(&json!({ "settings": settings }))
        .send()
        .await
        .unwrap();
    json_with_status(r, 200, "the league's settings").await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "sue"}),
        )
        .await;
    assert_eq!(r.status(), 204, "sue supervises fall");
    let add = |a: usize, b: usize, at: &str| {
        json!({"team_a": teams[a], "team_b": teams[b], "table": "3",
               "scheduled_at": at})
    };
    let r = admin
        .post(
            "/api/v1/leagues/fall/matches",
            &add(0, 1, "2026-11-23T19:00"),
        )
        .await;
    let first = json_with_status(r, 201, "the 19:00 match").await["id"]
        .as_i64()
        .unwrap();
    let r = admin
        .post(
            "/api/v1/leagues/fall/matches",
            &add(0, 2, "2026-11-23T20:00"),
        )
        .await;
    let second = json_with_status(r, 201, "the 20:00 match").await["id"]
        .as_i64()
        .unwrap();
    let console = format!("/supervise/matches/{first}");
    let second_console = format!("/supervise/matches/{second}");

    let Some((driver, chrome)) = binaries_or_skip(TEST) else {
        return;
    };
    let browser = Browser::start(&driver, &chrome)
        .await
        .expect("chromium starts");
    let outcome = actix_web::rt::time::timeout(WHOLE_TEST, async {
        browser.set_window_size(390, 844).await?;
        // Log in, straight to the first match's console.
        browser
            .goto(&app.url(&format!("/login?next={console}")))
            .await?;
        let user = browser.wait_for("#username", WAIT).await?;
        browser.send_keys(&user, "sue").await?;
        let password = browser.find("#password").await?;
        browser.send_keys(&password, PASSWORD).await?;
        tap(&browser, "#login-button").await?;
        let url = browser.current_url().await?;
        ensure!(url.ends_with(&console), "after login: {url}");

        // 18:50: both teams to check in, the grace period ends at 19:10.
        ensure!(
            browser.text_of("#grace").await? == "Grace period ends at Mon 23 Nov, 19:10",
            "the grace period"
        );
        ensure!(browser.text_of("#check-in-a").await? == "Team 1 is here");
        ensure!(browser.text_of("#check-in-b").await? == "Team 2 is here");
        ensure_touch_target(&browser, "#check-in-a").await?;
        let (width, _) = size_of(&browser, "#check-in-a").await?;
        ensure!(
            width >= 300.0,
            "the check-in button spans the phone: {width}"
        );
        tap(&browser, "#check-in-a").await?;
        let done = browser.text_of("#checked-in-a-text").await?;
        ensure!(
            done == "✓ Team 1 checked in Mon 23 Nov, 18:50",
            "after the check-in: {done}"
        );
        ensure_touch_target(&browser, "#undo-check-in-a").await?;
        ensure!(browser.exists("#check-in-b").await?, "team 2 still to come");
        let m = match_json(&app, first).await;
        ensure!(
            m["checked_in"] == json!({"a": "2026-11-23T18:50:00Z", "b": null}),
            "the API: {}",
            m["checked_in"]
        );

        // 19:12: past the grace period with team 2 absent; the console offers the forfeit.
        time.advance(chrono::Duration::minutes(22));
        browser.goto(&app.url(&console)).await?;
        let alert = browser.text_of("#absent-b-text").await?;
        ensure!(
            alert == "Team 2 has not checked in, 12 minutes after the match time.",
            "the alert: {alert}"
        );
        ensure!(!browser.exists("#absent-a").await?, "team 1 is here");
        ensure!(!browser.exists("#grace").await?, "the grace period is over");
        ensure!(browser.text_of("#offer-forfeit-b").await? == "Forfeit Team 2…");
        ensure_touch_target(&browser, "#offer-forfeit-b").await?;
        ensure!(
            match_json(&app, first).await["status"] == "scheduled",
            "nothing forfeits by itself"
        );
        // One tap, then the confirmation.
        tap(&browser, "#offer-forfeit-b").await?;
        let effect = browser.text_of("#forfeit-effect").await?;
        ensure!(
            effect == "Team 2 forfeits: Team 1 wins; the match ends.",
            "the confirmation: {effect}"
        );
        ensure!(browser.exists("#forfeit-back").await?, "a way back");
        ensure!(
            match_json(&app, first).await["status"] == "scheduled",
            "the confirmation page records nothing"
        );
        tap(&browser, "#record-forfeit").await?;
        let url = browser.current_url().await?;
        ensure!(url.ends_with(&console), "back on the console: {url}");
        let status = browser.text_of("#game-status").await?;
        ensure!(status.contains("Team 2 forfeited"), "the result: {status}");
        let fixed = browser.text_of("#rating-b-fixed").await?;
        ensure!(
            fixed == "Team 2: rated 1 (forfeit)",
            "team 2's rating: {fixed}"
        );
        ensure!(
            browser
                .text_of("#rating-missing")
                .await?
                .contains("Rating missing"),
            "team 1 is not rated yet"
        );
        let m = match_json(&app, first).await;
        ensure!(
            m["status"] == "forfeit" && m["forfeit"] == "b" && m["winner"] == "a",
            "the API: {m}"
        );
        ensure!(
            m["sportsmanship"] == json!({"a": null, "b": 1, "note": null, "missing": true}),
            "the API's ratings: {}",
            m["sportsmanship"]
        );

        // The supervisor rates team 1: a big radio button per value of the scale.
        ensure!(
            browser.text_of("#rating-a legend").await? == "Sportsmanship of Team 1",
            "the legend names the team"
        );
        for v in 1..=5 {
            ensure_touch_target(&browser, &format!("label[for=rating-a-{v}]")).await?;
        }
        let five = browser.find("label[for=rating-a-5]").await?;
        browser.click(&five).await?;
        ensure!(checked(&browser, "#rating-a-5").await?, "5 is chosen");
        tap(&browser, "#save-ratings").await?;
        ensure!(browser.text_of("#rated-a").await? == "5", "team 1 rated 5");
        ensure!(browser.text_of("#rated-b").await? == "1", "team 2 rated 1");
        ensure!(
            !browser.exists("#rating-missing").await?,
            "no rating missing any more"
        );
        let m = match_json(&app, first).await;
        ensure!(
            m["sportsmanship"] == json!({"a": 5, "b": 1, "note": null, "missing": false}),
            "the API's ratings: {}",
            m["sportsmanship"]
        );

        // The second match, played by API hands with its console open.
        let started = admin.start_match(second).await;
        let one = admin
            .enter_hand(&started, &hand_of([4, 3], [4, 4], [3, 3], [2, 3]))
            .await;
        browser.goto(&app.url(&second_console)).await?;
        browser.wait_for("#hand-form", WAIT).await?;
        ensure!(!browser.exists("#ratings").await?, "no ratings mid-match");
        let over = admin
            .enter_hand(&one, &hand_of([4, 3], [4, 4], [3, 3], [2, 3]))
            .await;
        ensure!(over["status"] == "complete", "the second match: {over}");
        browser.goto(&app.url(&second_console)).await?;
        ensure!(!browser.exists("#hand-form").await?, "the match is over");
        ensure!(
            browser
                .text_of("#rating-missing")
                .await?
                .contains("Rating missing"),
            "the console asks for the ratings"
        );
        ensure!(
            browser.text_of("#rating-b legend").await? == "Sportsmanship of Team 3",
            "the second legend"
        );
        // Team 3 only, with a note: the error summary comes back focused, what was chosen
        // and typed kept, the message at team 1's buttons.
        browser
            .click(&browser.find("label[for=rating-b-3]").await?)
            .await?;
        let note = browser.find("#rating-note").await?;
        browser.send_keys(&note, "Friendly game").await?;
        tap(&browser, "#save-ratings").await?;
        let focused = browser
            .execute(
                "return document.activeElement && document.activeElement.id",
                json!([]),
            )
            .await?;
        ensure!(
            focused == "rating-error",
            "the error summary has the focus, not {focused}"
        );
        let summary = browser.text_of("#rating-error").await?;
        ensure!(
            summary.contains("choose a rating for Team 1"),
            "the summary: {summary}"
        );
        ensure!(
            browser.text_of("#rating-a-error").await? == "choose a rating for Team 1",
            "the message at the field"
        );
        let radio = browser.find("#rating-a-1").await?;
        ensure!(
            browser.attribute(&radio, "aria-invalid").await?.as_deref() == Some("true"),
            "team 1's buttons are marked"
        );
        ensure!(
            checked(&browser, "#rating-b-3").await?,
            "team 3's 3 is kept"
        );
        ensure!(
            browser.value_of("#rating-note").await? == "Friendly game",
            "the note is kept"
        );
        ensure!(
            match_json(&app, second).await["sportsmanship"]["a"] == Value::Null,
            "nothing saved"
        );
        browser
            .click(&browser.find("label[for=rating-a-4]").await?)
            .await?;
        tap(&browser, "#save-ratings").await?;
        ensure!(browser.text_of("#rated-a").await? == "4", "team 1 rated 4");
        ensure!(browser.text_of("#rated-b").await? == "3", "team 3 rated 3");
        let m = match_json(&app, second).await;
        ensure!(
            m["sportsmanship"]
                // The note is the coordinator's: the public read leaves it out.
                == json!({"a": 4, "b": 3, "note": null, "missing": false}),
            "the API's ratings: {}",
            m["sportsmanship"]
        );
        // Tonight's list: nothing missing.
        browser.goto(&app.url("/supervise")).await?;
        for id in [first, second] {
            let card = browser.text_of(&format!("#match-{id}")).await?;
            ensure!(!card.contains("rating missing"), "match {id}: {card}");
        }

        // The public standings: each team's average, one decimal; "–" for no rating.
        browser.goto(&app.url("/leagues/fall/standings")).await?;
        browser.wait_for("#standings", WAIT).await?;
        let table = browser
            .execute(
                "const t = document.querySelector('#standings'); \
                 const text = c => c.textContent.replace(/\\s+/g, ' ').trim(); \
                 return { head: [...t.querySelectorAll('thead th')].map(text), \
                   rows: [...t.querySelectorAll('tbody tr')] \
                     .map(r => [...r.querySelectorAll('th, td')].map(text)) };",
                json!([]),
            )
            .await?;
        let head: Vec<String> = serde_json::from_value(table["head"].clone())?;
        let rows: Vec<Vec<String>> = serde_json::from_value(table["rows"].clone())?;
        let column = head
            .iter()
            .position(|h| h == "Sportsmanship")
            .with_context(|| format!("a Sportsmanship column in {head:?}"))?;
        for (team, average) in [
            ("Team 1", "4.5"),
            ("Team 2", "1.0"),
            ("Team 3", "3.0"),
            ("Team 4", "–"),
        ] {
            let row = rows
                .iter()
                .find(|r| r.get(1).is_some_and(|t| t == team))
                .with_context(|| format!("{team} in {rows:?}"))?;
            ensure!(
                row.get(column).map(String::as_str) == Some(average),
                "{team}'s sportsmanship: {row:?}"
            );
        }
        anyhow::Ok(())
    })
    .await;
    let failure = match outcome {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(format!("{e:#}")),
        Err(_) => Some(format!("the browser test took over {WHOLE_TEST:?}")),
    };
    if let Some(failure) = failure {
        let saved = evidence(&browser, "conduct").await;
        let _ = browser.quit().await;
        panic!("{failure}\n{saved}");
    }
    browser.quit().await.expect("the browser quits");
}
