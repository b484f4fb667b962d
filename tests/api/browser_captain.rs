//! A captain's week on a phone (390×844) in headless Chromium, with the sign-in link from a
//! real SMTP server: ask for the link, follow it, set the lineup, ask to move a match (a
//! time already past first: the error by the form, the typing kept), dispute a forfeit; then
//! the coordinator's queue approves the move and resolves the dispute. axe-core checks every page state on the way, and each step leaves a
//! screenshot under `target/tmp` (`captain-walk-*.png`; the note's are copies).

use std::time::Duration;

use anyhow::{Context, ensure};
use serde_json::{Value, json};
use spades_im::service::Role;

use crate::browser::with_browser;
use crate::browser_schedule::{set_value, submit};
use crate::helpers::{PASSWORD, TestApp, json_with_status, manual_clock};
use crate::smtp_sink::Sink;
use crate::webdriver::Browser;

const TEST: &str = "browser_captain::a_captains_week_on_a_phone";
const WAIT: Duration = Duration::from_secs(30);
const WHOLE_TEST: Duration = Duration::from_secs(240);

/// Checks the page shown with axe-core (and the 24 px target size), as `what`, and keeps
/// a screenshot of it.
async fn check(browser: &Browser, what: &str, failures: &mut Vec<String>) -> anyhow::Result<()> {
    browser.wait_for("body", WAIT).await?;
    for v in browser.axe_violations().await? {
        failures.push(format!("{what}: {v}"));
    }
    let name = what.replace([' ', ',', '\''], "-");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    browser
        .screenshot(&dir.join(format!("captain-walk-{name}.png")))
        .await?;
    Ok(())
}

/// League `fall`: Kim captains team 1 (with Pat), Ada team 2; a match of them on Wednesday
/// 4 November, and one they forfeited on Monday. The admin and the two match ids.
async fn season(app: &TestApp) -> (crate::helpers::Api, i64, i64) {
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "fall", json!("unc-im-300"), 4).await;
    for (team, player) in [
        (
            teams[0],
            json!({"name": "Kim Lee", "email": "kim@students.test", "captain": true}),
        ),
        (
            teams[0],
            json!({"name": "Pat Diaz", "email": "pat@students.test"}),
        ),
        (
            teams[1],
            json!({"name": "Ada Park", "email": "ada@students.test", "captain": true}),
        ),
    ] {
        let r = admin
            .post(&format!("/api/v1/teams/{team}/players"), &player)
            .await;
        json_with_status(r, 201, "a player").await;
    }
    let mut ids = Vec::new();
    for at in ["2026-11-04T19:00", "2026-11-02T11:00"] {
        let r = admin
            .post(
                "/api/v1/leagues/fall/matches",
                &json!({"team_a": teams[0], "team_b": teams[1], "table": "Table 1", "scheduled_at": at}),
            )
            .await;
        ids.push(
            json_with_status(r, 201, "a match").await["id"]
                .as_i64()
                .unwrap(),
        );
    }
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/forfeit", ids[1]),
            &json!({"team": "a"}),
        )
        .await;
    json_with_status(r, 200, "a forfeit").await;
    (admin, ids[0], ids[1])
}

/// The path of the sign-in link the sink received (waiting up to 20 s for it).
async fn link_in(sink: &Sink) -> anyhow::Result<String> {
    for _ in 0..200 {
        let found = sink.messages().into_iter().find_map(|m| {
            let start = m.text.find("/captain/auth/")?;
            Some(
                m.text[start..]
                    .chars()
                    .take_while(|c| !c.is_whitespace())
                    .collect(),
            )
        });
        if let Some(link) = found {
            return Ok(link);
        }
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    anyhow::bail!("no sign-in link came")
}

/// The text of `css`, once it is there.
async fn text(browser: &Browser, css: &str) -> anyhow::Result<String> {
    let element = browser.wait_for(css, WAIT).await?;
    Ok(browser.text(&element).await?)
}

#[actix_web::test]
async fn a_captains_week_on_a_phone() {
    let sink = Sink::start();
    // Monday 2 November 2026, noon in New York.
    let (clock, _time) = manual_clock("2026-11-02T17:00:00Z", chrono_tz::America::New_York);
    let app = crate::helpers::spawn_app_with_mail(&sink.url(), clock).await;
    let (admin, coming, forfeited) = season(&app).await;
    with_browser(TEST, "captain", WHOLE_TEST, async |browser| {
        let mut failures = Vec::new();
        browser.set_window_size(390, 844).await?;

        // 1. The link, by email.
        browser.goto(&app.url("/captain")).await?;
        check(browser, "1 sign-in", &mut failures).await?;
        set_value(browser, "#captain-email", "kim@students.test").await?;
        submit(browser, "#captain-ask").await?;
        ensure!(
            text(browser, "#link-sent")
                .await?
                .contains("a link is on its way")
        );
        check(browser, "2 link sent", &mut failures).await?;
        let link = link_in(&sink).await?;
        browser.goto(&app.url(&link)).await?;
        ensure!(
            browser.current_url().await?.ends_with("/captain"),
            "signed in"
        );
        ensure!(text(browser, "main h1").await? == "Your teams");
        check(browser, "3 your teams", &mut failures).await?;

        // 2. The lineup for Wednesday.
        let seats = format!("#lineup-{coming}-seat");
        browser
            .select_by_value(
                &format!("{seats}1"),
                &player_id(&app, &admin, "Kim Lee").await?,
            )
            .await?;
        browser
            .select_by_value(
                &format!("{seats}2"),
                &player_id(&app, &admin, "Pat Diaz").await?,
            )
            .await?;
        submit(browser, &format!("#lineup-{coming}-save")).await?;
        ensure!(text(browser, "#saved").await?.contains("Lineup saved"));
        check(browser, "4 lineup saved", &mut failures).await?;

        // 3. Ask to move it: a time already past is refused by the form, the typing kept.
        let form = format!("#move-{coming}");
        browser
            .execute(
                &format!("document.querySelector('{form}').closest('details').open = true;"),
                json!([]),
            )
            .await?;
        set_value(
            browser,
            &format!("{form}-reason"),
            "Midterm exam that evening",
        )
        .await?;
        set_value(browser, &format!("{form}-time1"), "2026-10-30T19:00").await?;
        submit(browser, &format!("{form}-send")).await?;
        ensure!(text(browser, "#form-error").await?.contains("has passed"));
        ensure!(browser.value_of(&format!("{form}-reason")).await? == "Midterm exam that evening");
        check(browser, "5 request refused", &mut failures).await?;
        set_value(browser, &format!("{form}-time1"), "2026-11-10T19:00").await?;
        submit(browser, &format!("{form}-send")).await?;
        ensure!(
            text(browser, "#saved")
                .await?
                .contains("with the coordinator")
        );

        // 4. Dispute Monday's forfeit.
        let form = format!("#dispute-{forfeited}");
        browser
            .execute(
                &format!("document.querySelector('{form}').closest('details').open = true;"),
                json!([]),
            )
            .await?;
        browser
            .select_by_value(&format!("{form}-category"), "result")
            .await?;
        set_value(
            browser,
            &format!("{form}-reason"),
            "We were at the table at 11:05",
        )
        .await?;
        submit(browser, &format!("{form}-send")).await?;
        ensure!(text(browser, "#saved").await?.contains("Your dispute"));
        check(browser, "6 requests listed", &mut failures).await?;

        // 5. The coordinator's queue: approve the move, resolve the dispute.
        browser.delete_cookies().await?;
        browser
            .goto(&app.url("/login?next=/admin/requests"))
            .await?;
        set_value(browser, "#username", "coord").await?;
        set_value(browser, "#password", PASSWORD).await?;
        submit(browser, "#login-button").await?;
        ensure!(text(browser, "#moves-title").await?.contains("1 waiting"));
        check(browser, "7 coordinators queue", &mut failures).await?;
        let request = first_id(&admin, "/api/v1/reschedule-requests", "requests").await?;
        browser
            .execute(
                &format!(
                    "document.querySelector('#approve-{request} input[type=radio]').checked = true;"
                ),
                json!([]),
            )
            .await?;
        submit(browser, &format!("#approve-{request}-button")).await?;
        ensure!(text(browser, "#notice").await?.contains("approved"));
        let dispute = first_id(&admin, "/api/v1/disputes", "disputes").await?;
        set_value(
            browser,
            &format!("#resolve-{dispute}-note"),
            "The forfeit stands.",
        )
        .await?;
        submit(browser, &format!("#resolve-{dispute}-button")).await?;
        ensure!(text(browser, "#no-disputes").await?.contains("No dispute"));
        check(browser, "8 queue done", &mut failures).await?;
        let moved = admin.get(&format!("/api/v1/matches/{coming}")).await;
        let moved = json_with_status(moved, 200, "the match").await;
        ensure!(
            moved["scheduled_at"] == "2026-11-10T19:00",
            "moved: {}",
            moved["scheduled_at"]
        );

        // 6. The link again: used.
        browser.goto(&app.url(&link)).await?;
        ensure!(
            text(browser, "#link-stale")
                .await?
                .contains("no longer works")
        );
        check(browser, "9 link used", &mut failures).await?;
        ensure!(failures.is_empty(), "axe-core: {}", failures.join("\n"));
        Ok(())
    })
    .await;
}

/// The id of the player named `name` in `fall`, as text.
async fn player_id(
    app: &TestApp,
    admin: &crate::helpers::Api,
    name: &str,
) -> anyhow::Result<String> {
    let teams: Value = app.get("/api/v1/leagues/fall/teams").await.json().await?;
    let team = teams["teams"][0]["id"].as_i64().context("team 1")?;
    let roster = admin.get(&format!("/api/v1/teams/{team}/roster")).await;
    let roster = json_with_status(roster, 200, "the roster").await;
    roster["players"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["name"] == name))
        .map(|p| p["id"].to_string())
        .context("the player")
}

/// The id of the first item of `list` in the answer of `path`.
async fn first_id(admin: &crate::helpers::Api, path: &str, list: &str) -> anyhow::Result<i64> {
    let r = admin.get(path).await;
    json_with_status(r, 200, path).await[list][0]["id"]
        .as_i64()
        .context("an id")
}
