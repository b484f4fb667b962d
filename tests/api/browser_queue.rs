//! The TV's "Now calling" (docs/api.md §21.1) in Chromium at 1920×1080: the matches called
//! to their tables shown above the board in type at least 7 % of the screen's height, larger
//! than every name, table label, clock and result line of the board (only a score's digits
//! are larger), however few tables it has; a result that frees a table brings
//! the next call onto the screen by itself, and a screen reader hears it; a call older than
//! the league's minutes says "no show?". axe-core finds nothing on it.

use std::time::Duration;

use anyhow::ensure;
use serde_json::{Value, json};
use spades_im::service::Role;

use crate::browser::with_browser;
use crate::browser_table::viewport;
use crate::helpers::{hand_of, json_with_status, manual_clock, spawn_app_with_clock};
use crate::webdriver::Browser;

const TEST: &str = "browser_queue::the_tv_calls_the_next_match_when_a_table_frees";
const WAIT: Duration = Duration::from_secs(30);

/// The calls on the screen, each "Table 1 Team 1 v Team 6"; and the largest font of the
/// board's names, table labels, clocks and result lines against the calls' smallest.
const CALLS: &str = r#"
const px = el => parseFloat(getComputedStyle(el).fontSize);
const calls = [...document.querySelectorAll('#calling li')];
const words = [...document.querySelectorAll('.tv-where, .tv-side .name, .tv-clock, .tv-latest li, .tv-updated')];
return {
  calls: calls.map(li => li.textContent.replace(/\s+/g, ' ').trim()),
  call_px: Math.min(...calls.map(li => px(li))),
  other_px: Math.max(0, ...words.map(px)),
  inside: calls.every(li => { const r = li.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; }),
  said: document.getElementById('live-announce').textContent,
};
"#;

async fn calls(browser: &Browser) -> anyhow::Result<Value> {
    Ok(browser.execute(CALLS, json!([])).await?)
}

/// Polls the TV (it reads the server every 5 s) until `done` holds of its calls.
async fn wait_until(
    browser: &Browser,
    what: &str,
    done: impl Fn(&Value) -> bool,
) -> anyhow::Result<Value> {
    let until = std::time::Instant::now() + WAIT;
    loop {
        let now = calls(browser).await?;
        if done(&now) {
            return Ok(now);
        }
        ensure!(
            std::time::Instant::now() < until,
            "waited for {what}: {now}"
        );
        actix_web::rt::time::sleep(Duration::from_millis(250)).await;
    }
}

#[actix_web::test]
async fn the_tv_calls_the_next_match_when_a_table_frees() {
    let (clock, time) = manual_clock("2026-11-30T18:00:00Z", chrono_tz::UTC);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.league(
        &admin,
        "cup",
        json!({"preset": "unc-im-300", "target": 100}),
        6,
    )
    .await;
    let r = admin
        .patch(
            "/api/v1/leagues/cup",
            &json!({"settings": {"tables": ["1", "2"], "queue": {"auto": true, "call_minutes": 5}}}),
        )
        .await;
    json_with_status(r, 200, "the room").await;
    let r = admin
        .post(
            "/api/v1/leagues/cup/schedule",
            &json!({"mode": "swiss_round"}),
        )
        .await;
    let round = json_with_status(r, 201, "round 1").await;
    let m: Vec<(i64, String, String)> = round["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let name = |side: &str| m[side]["name"].as_str().unwrap_or("").to_string();
            (m["id"].as_i64().unwrap(), name("team_a"), name("team_b"))
        })
        .collect();
    let line = |table: &str, (_, a, b): &(i64, String, String)| format!("Table {table} {a} v {b}");
    with_browser(TEST, "queue-tv", Duration::from_secs(150), async |browser| {
        viewport(browser, 1920, 1080).await?;
        browser.goto(&app.url("/scoreboard?tv=1")).await?;
        browser.wait_for("#calling", WAIT).await?;
        let shown = calls(browser).await?;
        ensure!(
            shown["calls"] == json!([line("2", &m[1]), line("1", &m[0])]),
            "the two calls, the latest first: {shown}"
        );
        ensure!(shown["inside"] == json!(true), "on the screen: {shown}");
        let (call_px, other_px) = (
            shown["call_px"].as_f64().unwrap_or(0.0),
            shown["other_px"].as_f64().unwrap_or(f64::MAX),
        );
        ensure!(
            call_px > other_px && call_px >= 75.6,
            "the calls' type ({call_px} px) is at least 7 % of 1080 px and above the board's labels ({other_px} px)"
        );
        let violations = browser.axe_violations().await?;
        ensure!(violations.is_empty(), "axe on the TV: {violations:?}");

        // Table 1 plays its match out: the waiting match is called to it, on screen by
        // itself, and said.
        let win = hand_of([4, 3], [4, 4], [3, 3], [2, 3]);
        admin.play_hands(m[0].0, &[win.clone(), win]).await;
        let next = line("1", &m[2]);
        let shown = wait_until(browser, "the next call", |v| {
            v["calls"].as_array().is_some_and(|c| c.first() == Some(&json!(next)))
        })
        .await?;
        // Measured again with a match on the board (the one just finished, for its minute).
        let (call_px, other_px) = (
            shown["call_px"].as_f64().unwrap_or(0.0),
            shown["other_px"].as_f64().unwrap_or(f64::MAX),
        );
        ensure!(
            call_px > other_px && other_px > 0.0,
            "with a match on the board: the calls {call_px} px, its labels {other_px} px"
        );
        let said = format!("Now calling Table 1: {} v {}", m[2].1, m[2].2);
        ensure!(
            shown["said"].as_str().unwrap_or("").contains(&said),
            "said to a screen reader: {shown}"
        );

        // Five minutes on, the call of table 2 is a "no show?".
        time.advance(chrono::Duration::minutes(5));
        let no_show = format!("{} no show?", line("2", &m[1]));
        wait_until(browser, "no show?", |v| {
            v["calls"].as_array().is_some_and(|c| c.contains(&json!(no_show)))
        })
        .await?;
        Ok(())
    })
    .await;
}
