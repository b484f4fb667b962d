//! A coordinator's first week in headless Chromium, the steps where new coordinators gave
//! up: a roster pasted with a division column (every team arrives in its division, a bad
//! email reported on the file's own line), a match moved onto a taken table (the warning
//! stays at the top of the schedule page after a reload), the season closed with its
//! unplayed matches listed and cancelled, and the TV of one league only.

use std::time::Duration;

use anyhow::ensure;
use serde_json::{Value, json};
use spades_im::service::Role;

use crate::browser::evidence;
use crate::browser_schedule::{set_value, submit};
use crate::helpers::{PASSWORD, json_with_status, spawn_app};
use crate::webdriver::{Browser, binaries_or_skip};

const WAIT: Duration = Duration::from_secs(30);
const WHOLE_TEST: Duration = Duration::from_secs(240);
const TEST: &str = "browser_first_week::a_coordinators_first_week_in_a_browser";

/// Ten teams of two in two divisions, with student ids and emails; `bad` adds a player with
/// a bad email as the file's line 22.
fn roster(bad: bool) -> String {
    let mut lines = vec!["team,division,player,student id,email,captain".to_string()];
    for t in 1..=10 {
        let division = if t <= 5 {
            "Competitive"
        } else {
            "Recreational"
        };
        for p in 1..=2 {
            lines.push(format!(
                "Team {t:02},{division},Player {t}-{p},9{t:03}{p:03},p{t}{p}@campus.edu,{}",
                if p == 1 { "yes" } else { "no" }
            ));
        }
    }
    if bad {
        lines.push("Team 11,Competitive,Bad Email,9999001,not-an-email,no".into());
    }
    lines.join("\n")
}

#[actix_web::test]
async fn a_coordinators_first_week_in_a_browser() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(&admin, "spring", json!("unc-im-300"), 0).await;
    app.league(&admin, "other", json!("classic"), 2).await;
    for name in ["Competitive", "Recreational"] {
        let r = admin
            .post("/api/v1/leagues/spring/divisions", &json!({"name": name}))
            .await;
        json_with_status(r, 201, "a division").await;
    }
    let Some((driver, chrome)) = binaries_or_skip(TEST) else {
        return;
    };
    let browser = Browser::start(&driver, &chrome)
        .await
        .expect("chromium starts");
    let outcome = actix_web::rt::time::timeout(WHOLE_TEST, async {
        browser
            .goto(&app.url("/login?next=/admin/leagues/spring/import"))
            .await?;
        let user = browser.wait_for("#username", WAIT).await?;
        browser.send_keys(&user, "coord").await?;
        let password = browser.find("#password").await?;
        browser.send_keys(&password, PASSWORD).await?;
        submit(&browser, "#login-button").await?;

        // 1. The roster, pasted with a bad line: nothing imported, the line is the file's.
        set_value(&browser, "#csv", &roster(true)).await?;
        submit(&browser, "button[name=confirm][value=\"0\"]").await?;
        let summary = browser.text_of("#roster-summary").await?;
        ensure!(
            summary.contains("21 rows: 20 good, 1 with an error"),
            "{summary}"
        );
        let bad = browser.text_of("#roster-preview tr.row-bad").await?;
        ensure!(
            bad.starts_with("22 ") && bad.contains("Team 11"),
            "the bad email on the file's line 22: {bad}"
        );
        ensure!(
            !browser.exists("button[name=confirm][value=\"1\"]").await?,
            "no import while a row is wrong"
        );
        // Fixed: checked, then imported.
        set_value(&browser, "#csv", &roster(false)).await?;
        submit(&browser, "button[name=confirm][value=\"0\"]").await?;
        submit(&browser, "button[name=confirm][value=\"1\"]").await?;
        let teams: Value = admin
            .get("/api/v1/leagues/spring/teams")
            .await
            .json()
            .await?;
        let division_of = |name: &str| {
            teams["teams"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|t| t["name"] == name)
                .map(|t| t["division"].clone())
                .unwrap_or(Value::Null)
        };
        let competitive = division_of("Team 01");
        let recreational = division_of("Team 06");
        ensure!(
            teams["teams"].as_array().map(Vec::len) == Some(10)
                && competitive.is_number()
                && recreational.is_number()
                && competitive != recreational
                && (2..=5).all(|t| division_of(&format!("Team {t:02}")) == competitive)
                && (7..=10).all(|t| division_of(&format!("Team {t:02}")) == recreational),
            "ten teams, five in each division: {teams}"
        );

        // 2. A round robin, then a match moved onto a table taken that night.
        let r = admin
            .post(
                "/api/v1/leagues/spring/schedule",
                &json!({"format": "round_robin", "start_date": "2027-02-01"}),
            )
            .await;
        let made = json_with_status(r, 201, "the round robin").await;
        let first_night: Vec<&Value> = made["matches"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["scheduled_at"] == made["matches"][0]["scheduled_at"])
            .collect();
        ensure!(first_night.len() >= 2, "two matches on the first night");
        let (taken, moved) = (&first_night[0], first_night[1]["id"].as_i64().unwrap_or(0));
        let table = taken["table"].as_str().unwrap_or_default().to_string();
        browser
            .goto(&app.url("/admin/leagues/spring/schedule"))
            .await?;
        let form = format!("#match-{moved} form.change-form");
        set_value(&browser, &format!("{form} input[name=table]"), &table).await?;
        submit(&browser, &format!("{form} button[type=submit]")).await?;
        browser
            .goto(&app.url("/admin/leagues/spring/schedule"))
            .await?;
        let warnings = browser.text_of("#schedule-warnings").await?;
        ensure!(
            warnings.contains(&format!("{table} is booked twice")),
            "the clash listed after a reload: {warnings}"
        );

        // 3. The season closed: its unplayed matches listed by label and teams, cancelled.
        browser
            .goto(&app.url("/admin/leagues/spring/archive"))
            .await?;
        let unplayed = browser.text_of("#unplayed-list").await?;
        ensure!(
            unplayed.contains("M1 · Team") && unplayed.lines().count() >= 20,
            "the unplayed matches: {unplayed}"
        );
        let tick = browser.find("#cancel-unplayed").await?;
        browser.click(&tick).await?;
        submit(&browser, "#season-yes").await?;
        let one: Value = admin
            .get(&format!("/api/v1/matches/{moved}"))
            .await
            .json()
            .await?;
        ensure!(
            one["status"] == "cancelled",
            "cancelled with the season: {one}"
        );

        // 4. The TV of one league: the other league's live match is not on it.
        let other: Value = admin
            .get("/api/v1/leagues/other/teams")
            .await
            .json()
            .await?;
        let ids: Vec<i64> = other["teams"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["id"].as_i64())
            .collect();
        let live = admin.add_match("other", ids[0], ids[1], "Table 9").await;
        let live = live["id"].as_i64().unwrap_or(0);
        admin.start_match(live).await;
        browser.goto(&app.url("/admin/leagues/other")).await?;
        submit(&browser, "a[href=\"/scoreboard?tv=1&league=other\"]").await?;
        browser.wait_for(&format!("#board-{live}"), WAIT).await?;
        browser
            .goto(&app.url("/scoreboard?tv=1&league=spring"))
            .await?;
        ensure!(
            !browser.exists(&format!("#board-{live}")).await?,
            "the spring TV shows no match of the other league"
        );
        anyhow::Ok(())
    })
    .await;
    let failure = match outcome {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(format!("{e:#}")),
        Err(_) => Some(format!("the browser test took over {WHOLE_TEST:?}")),
    };
    if let Some(failure) = failure {
        let saved = evidence(&browser, "first-week").await;
        let _ = browser.quit().await;
        panic!("{failure}\n{saved}");
    }
    browser.quit().await.expect("the browser quits");
}
