//! The coordinator changes the schedule in headless Chromium: the rec center is closed on
//! Tuesday 24 November, so that night moves to Thursday 26 (through the preview), and one
//! match of 1 December is postponed (a first try without a reason comes back with the
//! focused error summary). Then the public schedule shows the match under its new night and
//! the other as postponed, and the team's calendar feed has the moved time.

use std::time::Duration;

use anyhow::{Context, ensure};
use serde_json::{Value, json};
use spades_im::domain::Clock;
use spades_im::service::Role;

use crate::browser::evidence;
use crate::helpers::{PASSWORD, json_with_status, spawn_app_with_clock};
use crate::webdriver::{Browser, binaries_or_skip};

const WAIT: Duration = Duration::from_secs(30);
const WHOLE_TEST: Duration = Duration::from_secs(240);

/// This test's name, for [`binaries_or_skip`].
const TEST: &str = "browser_schedule::the_coordinator_moves_a_night_and_postpones_a_match";

pub(crate) async fn submit(browser: &Browser, css: &str) -> anyhow::Result<()> {
    let button = browser.find(css).await?;
    browser.click_and_wait_for_page(&button, WAIT).await?;
    Ok(())
}

/// Sets an input's value as a picker would (a date input's typing depends on the locale).
pub(crate) async fn set_value(browser: &Browser, css: &str, value: &str) -> anyhow::Result<()> {
    browser
        .execute(
            "const e = document.querySelector(arguments[0]); e.value = arguments[1]; \
             e.dispatchEvent(new Event('input', {bubbles: true})); return e.value;",
            json!([css, value]),
        )
        .await?;
    Ok(())
}

/// The team ids and the match of a night, as the API lists it.
fn on(matches: &[Value], at: &str) -> Vec<Value> {
    matches
        .iter()
        .filter(|m| m["scheduled_at"] == at)
        .cloned()
        .collect()
}

/// The event of match `id` in an iCalendar feed, its lines unfolded.
fn event_of(ics: &str, id: i64) -> Option<String> {
    let unfolded = ics.replace("\r\n ", "");
    unfolded
        .split("BEGIN:VEVENT")
        .skip(1)
        .find(|e| e.contains(&format!("UID:match-{id}@spades-im")))
        .map(str::to_string)
}

#[actix_web::test]
async fn the_coordinator_moves_a_night_and_postpones_a_match() {
    // The league's time zone: New York (19:00 on 26 November is 00:00 UTC on the 27th).
    let app = spawn_app_with_clock(Clock::system(chrono_tz::America::New_York)).await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(&admin, "fall", json!("unc-im-300"), 4).await;
    let generated = admin
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin", "start_date": "2026-11-24"}),
        )
        .await;
    let generated = json_with_status(generated, 201, "a round robin").await;
    let matches = generated["matches"].as_array().expect("matches").clone();
    let tuesday = on(&matches, "2026-11-24T19:00");
    let december = on(&matches, "2026-12-01T19:00");
    assert_eq!((tuesday.len(), december.len()), (2, 2));
    let moved = tuesday[0]["id"].as_i64().unwrap();
    let moved_team = tuesday[0]["team_a"]["id"].as_i64().unwrap();
    let postponed = december[0]["id"].as_i64().unwrap();
    let other = december[1]["id"].as_i64().unwrap();

    let Some((driver, chrome)) = binaries_or_skip(TEST) else {
        return;
    };
    let browser = Browser::start(&driver, &chrome)
        .await
        .expect("chromium starts");
    let outcome = actix_web::rt::time::timeout(WHOLE_TEST, async {
        // Log in, straight back to the league's admin page, then its schedule.
        browser
            .goto(&app.url("/login?next=/admin/leagues/fall"))
            .await?;
        let user = browser.wait_for("#username", WAIT).await?;
        browser.send_keys(&user, "coord").await?;
        let password = browser.find("#password").await?;
        browser.send_keys(&password, PASSWORD).await?;
        submit(&browser, "#login-button").await?;
        let url = browser.current_url().await?;
        ensure!(url.ends_with("/admin/leagues/fall"), "after login: {url}");
        submit(&browser, "#schedule-link").await?;
        browser.wait_for("#night-2026-11-24", WAIT).await?;

        // Move Tuesday's night: the preview first.
        let summary = browser
            .find("#night-2026-11-24 details.night-move summary")
            .await?;
        browser.click(&summary).await?;
        set_value(&browser, "#move-night-2026-11-24-to", "2026-11-26").await?;
        submit(&browser, "#move-night-2026-11-24 button[type=submit]").await?;
        let preview = browser.text_of("#moving").await?;
        ensure!(
            preview.contains("Thu 26 Nov 2026, 19:00"),
            "the preview: {preview}"
        );
        ensure!(
            browser.text_of("#confirm-move").await? == "Move 2 matches to Thu 26 Nov",
            "the confirmation button"
        );
        submit(&browser, "#confirm-move").await?;
        let notice = browser.text_of("#notice").await?;
        ensure!(
            notice == "Moved 2 matches from Tue 24 Nov to Thu 26 Nov.",
            "after the move: {notice}"
        );
        browser
            .find(&format!("#night-2026-11-26 #match-{moved}"))
            .await
            .context("the match under its new night")?;

        // Postpone a match of 1 December: without a reason first.
        let open = format!("#match-{other} details.call-off summary");
        browser.click(&browser.find(&open).await?).await?;
        submit(&browser, &format!("#m{other}-off-postpone")).await?;
        let focused = browser
            .execute(
                "return document.activeElement && document.activeElement.id",
                json!([]),
            )
            .await?;
        ensure!(
            focused == "form-error",
            "the error summary has the focus, not {focused}"
        );
        let summary = browser.text_of("#form-error").await?;
        ensure!(summary.contains("say why"), "the summary: {summary}");
        ensure!(
            browser
                .text_of(&format!("#m{other}-off-reason-error"))
                .await?
                .contains("say why"),
            "the message at the field"
        );
        // Then the right match, with a reason.
        let open = format!("#match-{postponed} details.call-off summary");
        browser.click(&browser.find(&open).await?).await?;
        let reason = browser.find(&format!("#m{postponed}-off-reason")).await?;
        browser.send_keys(&reason, "Rec center closed").await?;
        submit(&browser, &format!("#m{postponed}-off-postpone")).await?;
        let status = browser
            .text_of(&format!("#postponed #match-{postponed}-status"))
            .await?;
        ensure!(
            status == "Postponed: Rec center closed",
            "the postponed match: {status}"
        );
        let when = browser
            .value_of(&format!("#m{postponed}-scheduled_at"))
            .await?;
        ensure!(when.is_empty(), "its date is empty for a new time: {when}");

        // The public schedule: the match under its new night, the other postponed.
        // The whole season: the nights of late November 2026 are no longer "this week" once
        // the real clock passes them.
        browser
            .goto(&app.url("/leagues/fall/schedule?week=all"))
            .await?;
        browser
            .wait_for(&format!("#night-2026-11-26 #match-{moved}"), WAIT)
            .await
            .context("the public schedule shows the match under its new night")?;
        ensure!(
            !browser.exists("#night-2026-11-24").await?,
            "nothing left on the old night"
        );
        let line = browser.text_of(&format!("#match-{postponed}")).await?;
        ensure!(
            line.contains("Postponed"),
            "the public schedule says postponed: {line}"
        );
        ensure!(line.contains("Rec center closed"), "and why: {line}");
        anyhow::Ok(())
    })
    .await;
    let failure = match outcome {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(format!("{e:#}")),
        Err(_) => Some(format!("the browser test took over {WHOLE_TEST:?}")),
    };
    if let Some(failure) = failure {
        let saved = evidence(&browser, "schedule").await;
        let _ = browser.quit().await;
        panic!("{failure}\n{saved}");
    }
    browser.quit().await.expect("the browser quits");

    // The team's calendar feed has the moved time (19:00 in New York, in UTC).
    let r = app.get(&format!("/teams/{moved_team}/calendar.ics")).await;
    assert_eq!(r.status(), 200, "the team calendar");
    let ics = r.text().await.unwrap();
    let event = event_of(&ics, moved).unwrap_or_else(|| panic!("match {moved} in {ics}"));
    assert!(
        event.contains("\r\nDTSTART:20261127T000000Z\r\n"),
        "the moved time: {event}"
    );
}
