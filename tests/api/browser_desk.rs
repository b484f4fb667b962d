//! The check-in desk on a tablet at the door, with the keyboard alone (docs/api.md §21.4):
//! a team typed in with a student id that is no student id comes back with the summary
//! focused and everything kept; corrected, it is added and checked in; a known team is
//! checked in with its button. axe-core at 390 and at 820 px wide on every state.

use std::time::Duration;

use anyhow::ensure;
use serde_json::json;
use spades_im::service::Role;

use crate::browser::with_browser;
use crate::browser_schedule::{set_value, submit};
use crate::helpers::{PASSWORD, spawn_app};
use crate::webdriver::Browser;

const TEST: &str = "browser_desk::the_desk_checks_teams_in_with_the_keyboard_on_a_tablet";
const WAIT: Duration = Duration::from_secs(30);
const TAB: &str = "\u{E004}";
const ENTER: &str = "\u{E007}";

async fn axe(browser: &Browser, what: &str, failures: &mut Vec<String>) -> anyhow::Result<()> {
    browser.wait_for("body", WAIT).await?;
    for v in browser.axe_violations().await? {
        failures.push(format!("{what}: {v}"));
    }
    Ok(())
}

/// Presses Enter where the focus is (a field of a form, or its button) and waits for the
/// next page to have loaded: the page marked first, until a page without the mark is
/// complete.
async fn enter(browser: &Browser) -> anyhow::Result<()> {
    browser.execute("window.deskOld = true;", json!([])).await?;
    browser.press_keys(ENTER).await?;
    for _ in 0..300 {
        let loaded = browser
            .execute(
                "return !window.deskOld && document.readyState === 'complete';",
                json!([]),
            )
            .await
            .unwrap_or_default();
        if loaded == json!(true) {
            return Ok(());
        }
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    anyhow::bail!("no page came after Enter")
}

/// The text of `css` on the page shown.
async fn after_submit(browser: &Browser, css: &str) -> anyhow::Result<String> {
    let element = browser.wait_for(css, WAIT).await?;
    Ok(browser.text(&element).await?)
}

#[actix_web::test]
async fn the_desk_checks_teams_in_with_the_keyboard_on_a_tablet() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let known = app.league(&admin, "open", json!("classic"), 3).await;
    with_browser(TEST, "desk", Duration::from_secs(180), async |browser| {
        let mut failures = Vec::new();
        browser.set_window_size(390, 844).await?;
        browser
            .goto(&app.url("/login?next=/admin/leagues/open/desk"))
            .await?;
        let user = browser.wait_for("#username", WAIT).await?;
        browser.send_keys(&user, "coord").await?;
        let password = browser.find("#password").await?;
        browser.send_keys(&password, PASSWORD).await?;
        submit(browser, "#login-button").await?;
        ensure!(
            browser
                .current_url()
                .await?
                .ends_with("/admin/leagues/open/desk")
        );
        axe(browser, "the desk at 390 px", &mut failures).await?;

        // The whole form typed, field to field with Tab, sent with Enter.
        browser
            .execute("document.getElementById('arrive-name').focus();", json!([]))
            .await?;
        let typed = ["Night Owls", "Ada Obi", "12 34 ??", "Ben Ruiz", "B2002"];
        browser.press_keys(&typed.join(TAB)).await?;
        enter(browser).await?;
        let summary = after_submit(browser, "#form-error").await?;
        ensure!(summary.contains("Not checked in"), "{summary}");
        ensure!(
            browser.active_id().await? == "form-error",
            "the summary has the focus"
        );
        let id1 = "[id='arrive-players[0].student_id']";
        ensure!(
            browser.value_of(id1).await? == "12 34 ??",
            "the typing is kept"
        );
        ensure!(browser.value_of("#arrive-name").await? == "Night Owls");
        axe(browser, "the refusal at 390 px", &mut failures).await?;

        // Corrected: added and checked in.
        set_value(browser, id1, "").await?;
        browser
            .execute(
                "document.querySelector(arguments[0]).focus();",
                json!([id1]),
            )
            .await?;
        browser.press_keys("A1001").await?;
        enter(browser).await?;
        let notice = after_submit(browser, "#notice").await?;
        ensure!(notice.contains("Night Owls is checked in"), "{notice}");
        let arrived = after_submit(browser, "#arrived").await?;
        ensure!(arrived.contains("Night Owls"), "{arrived}");

        // A known team, by its button, from the keyboard.
        browser.set_window_size(820, 1180).await?;
        let button = format!("check-in-{}", known[0]);
        browser
            .execute(
                "document.getElementById(arguments[0]).focus();",
                json!([button]),
            )
            .await?;
        enter(browser).await?;
        let count = after_submit(browser, "#desk-count").await?;
        ensure!(count.contains("2 of 4 teams checked in"), "{count}");
        axe(browser, "the desk at 820 px", &mut failures).await?;
        ensure!(failures.is_empty(), "axe: {failures:#?}");
        Ok(())
    })
    .await;
}
