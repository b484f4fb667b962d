//! The hand form's live preview and checks on a phone (headless Chromium, 390×844):
//! `static/console/form.js` (with preview.js) asks the engine in `static/rules.wasm`. Typing a hand shows
//! what it scores, the same as `POST /api/v1/score` answers for the match's hands and this
//! one; a nil with a partner's bid of 2 gets the engine's message by the field as it is
//! picked; a wrong hand submitted posts nothing online (no POST reaches the server, the
//! match's version stays) and queues nothing offline (the outbox's storage stays empty); a
//! good hand still records. The correction form does the same for the hand it corrects.
//! axe passes with the preview and with the message shown.

use std::time::Duration;

use actix_web::rt::time::sleep;
use anyhow::{Context, ensure};
use serde_json::{Value, json};
use spades_im::service::Role;

use crate::browser::evidence;
use crate::helpers::{Api, PASSWORD, TestApp, hand_of, spawn_app};
use crate::webdriver::{Browser, binaries_or_skip};

const TEST: &str = "browser_preview::the_hand_form_previews_and_refuses_with_the_engine_on_a_phone";
const WAIT: Duration = Duration::from_secs(30);
const WHOLE_TEST: Duration = Duration::from_secs(240);
const PHONE: (u32, u32) = (390, 844);

/// The hand recorded before the browser comes: team a 4+3 takes 8, team b 3+2 takes 5.
fn first_hand() -> Value {
    hand_of([4, 3], [4, 4], [3, 2], [3, 2])
}

/// The console's route of a new hand, and of a correction.
const NEW_HAND: &str = "/supervise/matches/{id}/hands";
const CORRECTION: &str = "/supervise/matches/{id}/hands/{number}";

/// How many posts to the console's `route` reached the server (its `/metrics`, every status).
async fn posts_to(app: &TestApp, route: &str) -> anyhow::Result<u64> {
    let text = app.get("/metrics").await.text().await?;
    let route = format!("route=\"{route}\"");
    Ok(text
        .lines()
        .filter(|l| l.starts_with("http_requests_total{"))
        .filter(|l| l.contains("method=\"POST\"") && l.contains(&route))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum())
}

/// How many hand posts of the console reached the server.
async fn hand_posts(app: &TestApp) -> anyhow::Result<u64> {
    posts_to(app, NEW_HAND).await
}

async fn match_json(app: &TestApp, id: i64) -> anyhow::Result<Value> {
    Ok(app
        .get(&format!("/api/v1/matches/{id}"))
        .await
        .json()
        .await?)
}

/// Polls `script` (returns true when done) until it holds, or fails naming `what`.
async fn wait_until(browser: &Browser, script: &str, what: &str) -> anyhow::Result<()> {
    let until = std::time::Instant::now() + WAIT;
    loop {
        if browser.execute(script, json!([])).await? == Value::Bool(true) {
            return Ok(());
        }
        ensure!(
            std::time::Instant::now() < until,
            "waited {WAIT:?} for {what}"
        );
        sleep(Duration::from_millis(100)).await;
    }
}

/// Picks `bids` (seat 1, 2, 3, 4) and types `tricks`, each as a phone does (a change event).
async fn type_hand(browser: &Browser, bids: [&str; 4], tricks: [&str; 4]) -> anyhow::Result<()> {
    for (seat, (bid, took)) in bids.iter().zip(tricks).enumerate() {
        let name = format!("{}_%{}", if seat % 2 == 0 { "a" } else { "b" }, seat / 2);
        browser
            .select_by_value(&format!("#{}", name.replace('%', "bid")), bid)
            .await?;
        let input = browser
            .find(&format!("#{}", name.replace('%', "tricks")))
            .await?;
        browser.clear(&input).await?;
        browser.send_keys(&input, took).await?;
    }
    Ok(())
}

/// For two seconds (the outbox sends or queues within milliseconds of a submit): the page is
/// the same one (a hand sent live would have brought the server's page), no post to `route`
/// reached the server beyond the `posts` before, the outbox holds nothing.
async fn nothing_sent(
    browser: &Browser,
    app: &TestApp,
    route: &str,
    posts: u64,
) -> anyhow::Result<()> {
    let until = std::time::Instant::now() + Duration::from_secs(2);
    while std::time::Instant::now() < until {
        let same = browser
            .execute(
                "return document.documentElement.getAttribute('data-same-page')",
                json!([]),
            )
            .await?;
        ensure!(
            same == json!("1"),
            "the page was replaced: the hand was sent"
        );
        ensure!(
            posts_to(app, route).await? == posts,
            "a post to {route} reached the server"
        );
        let outbox = browser.execute(OUTBOX, json!([])).await?;
        // An entry may stay with no item in it (what the phone saw last, after a send).
        let waiting = outbox.as_array().into_iter().flatten().any(|entry| {
            let stored = entry
                .as_str()
                .and_then(|e| e.split_once('='))
                .map(|(_, v)| v);
            let items = stored.and_then(|v| serde_json::from_str::<Value>(v).ok());
            items.is_none_or(|v| v["items"] != json!([]))
        });
        ensure!(!waiting, "the outbox holds {outbox}");
        sleep(Duration::from_millis(100)).await;
    }
    Ok(())
}

async fn no_axe_violations(browser: &Browser, state: &str) -> anyhow::Result<()> {
    let found = browser.axe_violations().await?;
    ensure!(found.is_empty(), "axe, {state}:\n{}", found.join("\n"));
    Ok(())
}

/// `n` signed as the preview writes it: "+40", "−60" (a minus sign), "0".
fn signed(n: i64) -> String {
    match n {
        n if n > 0 => format!("+{n}"),
        n if n < 0 => format!("−{}", -n),
        _ => "0".into(),
    }
}

/// The outbox's entries on the phone (static/outbox/ keeps them in localStorage).
const OUTBOX: &str = "return Object.keys(localStorage).filter(function (k) { \
    return k.indexOf('spades-im.outbox.') === 0 && k !== 'spades-im.outbox.editing'; }) \
    .map(function (k) { return k + '=' + localStorage.getItem(k); });";

#[actix_web::test]
async fn the_hand_form_previews_and_refuses_with_the_engine_on_a_phone() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.user("sue", Role::Supervisor).await;
    let teams = app.league(&admin, "fall", json!("unc-im-300"), 2).await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "sue"}),
        )
        .await;
    assert_eq!(r.status(), 204, "sue supervises fall");
    let r = admin
        .post(
            "/api/v1/leagues/fall/matches",
            &json!({"team_a": teams[0], "team_b": teams[1], "table": "1"}),
        )
        .await;
    let m = crate::helpers::json_with_status(r, 201, "a match").await;
    let id = m["id"].as_i64().expect("match id");
    admin.play_hands(id, &[first_hand()]).await;

    let Some((driver, chrome)) = binaries_or_skip(TEST) else {
        return;
    };
    let browser = Browser::start(&driver, &chrome)
        .await
        .expect("chromium starts");
    let outcome = actix_web::rt::time::timeout(WHOLE_TEST, run(&browser, &app, &admin, id)).await;
    let failure = match outcome {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(format!("{e:#}")),
        Err(_) => Some(format!("the browser test took over {WHOLE_TEST:?}")),
    };
    if let Some(failure) = failure {
        let saved = evidence(&browser, "preview").await;
        let _ = browser.quit().await;
        panic!("{failure}\n{saved}");
    }
    browser.quit().await.expect("the browser quits");
}

async fn run(browser: &Browser, app: &TestApp, admin: &Api, id: i64) -> anyhow::Result<()> {
    browser.set_window_size(PHONE.0, PHONE.1).await?;
    browser.goto(&app.url("/login")).await?;
    let user = browser.wait_for("#username", WAIT).await?;
    browser.send_keys(&user, "sue").await?;
    let password = browser.find("#password").await?;
    browser.send_keys(&password, PASSWORD).await?;
    let login = browser.find("#login-button").await?;
    browser.click_and_wait_for_page(&login, WAIT).await?;
    let console = app.url(&format!("/supervise/matches/{id}"));
    let before = match_json(app, id).await?;
    let names = [
        before["team_a"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        before["team_b"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    ];

    // 1. Typing a hand shows what it scores: the API's answer for the match's hands and it.
    browser.goto(&console).await?;
    browser.wait_for("#hand-form", WAIT).await?;
    wait_until(
        browser,
        "return document.getElementById('hand-preview').textContent.trim() !== ''",
        "the engine to load and the preview to show its hint",
    )
    .await?;
    type_hand(browser, ["4", "3", "nil", "3"], ["5", "4", "0", "4"]).await?;
    let typed = json!({"a": {"bids": [4, "nil"], "tricks": [5, 0]}, "b": {"bids": [3, 3], "tricks": [4, 4]}});
    let api = admin
        .post(
            "/api/v1/score",
            &json!({"rules": "unc-im-300", "hands": [first_hand(), typed]}),
        )
        .await;
    let api = crate::helpers::json_with_status(api, 200, "the API's score").await;
    for (t, key) in ["a", "b"].into_iter().enumerate() {
        let r = &api["hands"][1][key];
        let (points, score, bags) = (
            r["points"].as_i64().unwrap_or_default(),
            r["score"].as_i64().unwrap_or_default(),
            r["bags"].as_i64().unwrap_or_default(),
        );
        let line = format!(
            "{}: {} this hand, score {score} (bags {bags})",
            names[t],
            signed(points)
        );
        let css = format!("#preview-{key}");
        wait_until(
            browser,
            &format!("var e = document.querySelector('{css}'); return !!e && e.textContent.indexOf({}) === 0", json!(line)),
            &format!("the preview of team {key} to read {line:?}"),
        )
        .await?;
    }
    let words = browser.text_of("#preview-a").await?;
    ensure!(
        words.contains("nil made +60") && words.contains("made 4 +40"),
        "the parts in words: {words}"
    );
    let live = browser.find("#hand-preview").await?;
    ensure!(
        browser.attribute(&live, "aria-live").await?.as_deref() == Some("polite"),
        "the preview is a polite live region"
    );
    no_axe_violations(browser, "the form with the preview").await?;

    // On a phone the preview is where the thumb is: on screen, right above "Record the
    // hand", with the first bid field in view (the supervisor reads it before recording).
    browser.set_window_size(390, 844).await?;
    browser
        .execute("document.getElementById('a_bid0').focus();", json!([]))
        .await?;
    let placed = browser
        .execute(
            "var p = document.getElementById('hand-preview').getBoundingClientRect(); \
             var b = document.getElementById('record').getBoundingClientRect(); \
             var h = window.innerHeight; \
             return [p.top >= 0, p.bottom <= b.top + 1, b.bottom <= h + 1, p.height > 0];",
            json!([]),
        )
        .await?;
    ensure!(
        placed == json!([true, true, true, true]),
        "at 390 px the preview is on screen above the button (in view, above, button on screen, shown): {placed}"
    );
    browser.set_window_size(1280, 1024).await?;

    // 2. A nil and a partner's bid of 2: the engine's message by the field, before submit.
    browser.goto(&console).await?;
    browser.wait_for("#hand-form", WAIT).await?;
    wait_until(
        browser,
        "return document.getElementById('hand-preview').textContent.trim() !== ''",
        "the engine to load",
    )
    .await?;
    let posts = hand_posts(app).await?;
    browser.select_by_value("#a_bid0", "nil").await?;
    browser.select_by_value("#a_bid1", "2").await?;
    wait_until(
        browser,
        "return !!document.querySelector('#team-box-a p.field-error')",
        "the bid's message by team a's box",
    )
    .await?;
    let said = browser.text_of("#team-box-a p.field-error").await?;
    let engine = admin
        .post(
            "/api/v1/score",
            &json!({"rules": "unc-im-300", "hands": [first_hand(),
                {"a": {"bids": ["nil", 2], "tricks": [0, 4]}, "b": {"bids": [4, 4], "tricks": [5, 4]}}]}),
        )
        .await;
    let engine = crate::helpers::json_with_status(engine, 422, "the API refuses the bids").await;
    let message = engine["error"]["message"].as_str().unwrap_or_default();
    // The API names "team a"; the console names the team.
    ensure!(
        said == message.replace("team a", &names[0]),
        "the message by the field is {said:?}, the engine's is {message:?}"
    );
    for field in ["#a_bid0", "#a_bid1"] {
        let el = browser.find(field).await?;
        ensure!(
            browser.attribute(&el, "aria-invalid").await?.as_deref() == Some("true")
                && browser.attribute(&el, "aria-describedby").await?.as_deref()
                    == Some("hand-error"),
            "{field} is marked invalid and described by the message"
        );
    }
    no_axe_violations(browser, "the form with the bid's message").await?;

    // 3. Submitted as it is (tricks summing to 13): refused on the phone, nothing posted.
    type_hand(browser, ["nil", "4", "2", "4"], ["0", "5", "4", "4"]).await?;
    browser
        .execute(
            "document.documentElement.setAttribute('data-same-page', '1')",
            json!([]),
        )
        .await?;
    let record = browser.find("#record").await?;
    browser.click(&record).await?;
    wait_until(
        browser,
        "return !!document.getElementById('error-summary') && document.activeElement && document.activeElement.id === 'error-summary'",
        "the error summary, focused",
    )
    .await?;
    let summary = browser.text_of("#error-summary").await?;
    ensure!(
        summary.contains("The hand was not recorded") && summary.contains(&said),
        "the summary: {summary}"
    );
    let title = browser.execute("return document.title", json!([])).await?;
    ensure!(
        title.as_str().is_some_and(|t| t.starts_with("Error: ")),
        "the title: {title}"
    );
    nothing_sent(browser, app, NEW_HAND, posts).await?;
    ensure!(
        match_json(app, id).await?["version"] == before["version"],
        "the match's version did not move"
    );
    no_axe_violations(browser, "the form refused on the phone").await?;

    // 4. Offline, the same: nothing is queued. (The summary is drawn again: the check ran.)
    browser.set_offline(true).await?;
    browser
        .execute(
            "document.getElementById('error-summary').setAttribute('data-old', '1')",
            json!([]),
        )
        .await?;
    browser.click(&record).await?;
    wait_until(
        browser,
        "var s = document.getElementById('error-summary'); return !!s && !s.hasAttribute('data-old')",
        "the summary of the refusal offline",
    )
    .await?;
    let stayed = nothing_sent(browser, app, NEW_HAND, posts).await;
    browser.clear_network_conditions().await?;
    stayed.context("offline")?;

    // 5. The partner's bid made 4: the hand records.
    browser.select_by_value("#a_bid1", "4").await?;
    let record = browser.find("#record").await?;
    browser.click_and_wait_for_page(&record, WAIT).await?;
    let after = async || -> anyhow::Result<bool> {
        let m = match_json(app, id).await?;
        Ok(m["hands"].as_array().map(Vec::len) == Some(2))
    };
    let until = std::time::Instant::now() + WAIT;
    while !after().await? {
        ensure!(
            std::time::Instant::now() < until,
            "the good hand was not recorded"
        );
        sleep(Duration::from_millis(100)).await;
    }
    ensure!(
        hand_posts(app).await? == posts + 1,
        "the good hand was posted once"
    );
    correction(browser, app, admin, id, &names).await
}

/// Step 6: the correction form of hand 1 previews and refuses with the engine too: what the
/// hand as corrected scores after the hands before it (none), and a wrong one posts nothing.
async fn correction(
    browser: &Browser,
    app: &TestApp,
    admin: &Api,
    id: i64,
    names: &[String; 2],
) -> anyhow::Result<()> {
    browser
        .goto(&app.url(&format!("/supervise/matches/{id}/hands/1/edit")))
        .await?;
    browser.wait_for("#hand-form", WAIT).await?;
    wait_until(
        browser,
        "return document.getElementById('hand-preview').textContent.indexOf('If hand 1 is corrected as typed:') === 0",
        "the preview of the hand as it was",
    )
    .await?;
    // Seat by seat (1 and 3 are team a): team a bids 4 + 3 and takes 9, team b 3 + 2 and 4.
    type_hand(browser, ["4", "3", "3", "2"], ["5", "2", "4", "2"]).await?;
    let typed = hand_of([4, 3], [5, 4], [3, 2], [2, 2]);
    let api = admin
        .post(
            "/api/v1/score",
            &json!({"rules": "unc-im-300", "hands": [typed]}),
        )
        .await;
    let api = crate::helpers::json_with_status(api, 200, "the API's score").await;
    let r = &api["hands"][0]["b"];
    let line = format!(
        "{}: {} this hand, score {} (bags {})",
        names[1],
        signed(r["points"].as_i64().unwrap_or_default()),
        r["score"],
        r["bags"]
    );
    wait_until(
        browser,
        &format!("var e = document.getElementById('preview-b'); return !!e && e.textContent.indexOf({}) === 0", json!(line)),
        &format!("the correction's preview of team b to read {line:?}"),
    )
    .await?;
    ensure!(
        browser.text_of("#preview-b").await?.contains("set on 5"),
        "team b's set in words"
    );
    no_axe_violations(browser, "the correction with the preview").await?;

    let before = match_json(app, id).await?;
    let posts = posts_to(app, CORRECTION).await?;
    // Team a: nil and 2 (refused: the minimum team bid is 4); team b: 4 and 4.
    type_hand(browser, ["nil", "4", "2", "4"], ["0", "5", "4", "4"]).await?;
    let reason = browser.find("#reason").await?;
    browser.send_keys(&reason, "seat 1 bid nil").await?;
    browser
        .execute(
            "document.documentElement.setAttribute('data-same-page', '1')",
            json!([]),
        )
        .await?;
    browser.click(&browser.find("#record").await?).await?;
    wait_until(
        browser,
        "return !!document.getElementById('error-summary') && document.activeElement && document.activeElement.id === 'error-summary'",
        "the correction's error summary, focused",
    )
    .await?;
    let summary = browser.text_of("#error-summary").await?;
    let engine = admin
        .post(
            "/api/v1/score",
            &json!({"rules": "unc-im-300", "hands": [
                {"a": {"bids": ["nil", 2], "tricks": [0, 4]}, "b": {"bids": [4, 4], "tricks": [5, 4]}}]}),
        )
        .await;
    let engine = crate::helpers::json_with_status(engine, 422, "the API refuses the bids").await;
    let message = engine["error"]["message"].as_str().unwrap_or_default();
    ensure!(
        summary.contains("The correction was not saved")
            && summary.contains(&message.replace("team a", &names[0])),
        "the summary: {summary}; the engine's message: {message}"
    );
    nothing_sent(browser, app, CORRECTION, posts).await?;
    ensure!(
        match_json(app, id).await?["version"] == before["version"],
        "the match's version did not move"
    );

    // The partner's bid made 4: the correction is saved, once.
    browser.select_by_value("#a_bid1", "4").await?;
    browser
        .click_and_wait_for_page(&browser.find("#record").await?, WAIT)
        .await?;
    let until = std::time::Instant::now() + WAIT;
    while match_json(app, id).await?["hands"][0]["hand"]["a"]["bids"] != json!(["nil", 4]) {
        ensure!(
            std::time::Instant::now() < until,
            "the good correction was not saved"
        );
        sleep(Duration::from_millis(100)).await;
    }
    ensure!(
        posts_to(app, CORRECTION).await? == posts + 1,
        "the good correction was posted once"
    );
    Ok(())
}
