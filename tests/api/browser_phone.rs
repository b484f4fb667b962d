//! The supervisor console on a phone (headless Chromium, a 390×844 window): a refused post
//! opens at its error summary, in view, focused, never under the sticky "Record the hand" bar,
//! with "Error:" in the title, and each of its links takes the focus to the field, in view too
//! (a hand whose tricks do not sum to 13, a correction without a reason, a check-in once the
//! match has started); and the console fits the phone: no horizontal scrolling, one card per
//! hand with its "Correct" button inside the screen, every button, field, link and radio
//! label at least 44 px, calling time and a forfeit each a second tap on another button;
//! and a console of 150 hands loads, fits, and takes the next hand from its form.

use std::time::Duration;

use anyhow::{Context, ensure};
use serde_json::{Value, json};
use spades_im::service::Role;

use crate::browser::evidence;
use crate::helpers::{PASSWORD, TestApp, hand_of, manual_clock, spawn_app_with_clock};
use crate::webdriver::{Browser, binaries_or_skip};

const WAIT: Duration = Duration::from_secs(30);
const WHOLE_TEST: Duration = Duration::from_secs(240);

/// A phone: 390×844 CSS pixels.
const PHONE: (u32, u32) = (390, 844);

/// The night: a match in play with three hands (the first corrected), one at 20:00 not
/// started yet, and one played to the end whose sportsmanship is still to rate.
struct Night {
    app: TestApp,
    admin: crate::helpers::Api,
    live: i64,
    later: i64,
    done: i64,
}

/// League `fall` (unc-im-300) with four teams and supervisor `sue`, on a manual clock at
/// 19:20 UTC on Monday 23 November 2026 (the league's zone is UTC).
async fn night() -> Night {
    let (clock, _time) = manual_clock("2026-11-23T19:20:00Z", chrono_tz::UTC);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.user("sue", Role::Supervisor).await;
    let teams = app.league(&admin, "fall", json!("unc-im-300"), 4).await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "sue"}),
        )
        .await;
    assert_eq!(r.status(), 204, "sue supervises fall");
    let r = admin
        .client
        .patch(app.url("/api/v1/leagues/fall"))
        .bearer_auth(&admin.token)
        .json(&json!({"settings": {"sportsmanship": {"min": 1, "max": 5, "required": true}}}))
        .send()
        .await
        .expect("patch");
    crate::helpers::json_with_status(r, 200, "the league's settings").await;
    let add = |a: usize, b: usize, at: &str| json!({"team_a": teams[a], "team_b": teams[b], "table": "3", "scheduled_at": at});
    let mut ids = Vec::new();
    for (a, b, at) in [
        (0, 1, "2026-11-23T19:00"),
        (2, 3, "2026-11-23T20:00"),
        (0, 2, "2026-11-23T18:00"),
    ] {
        let r = admin
            .post("/api/v1/leagues/fall/matches", &add(a, b, at))
            .await;
        let m = crate::helpers::json_with_status(r, 201, "a match").await;
        ids.push(m["id"].as_i64().expect("match id"));
    }
    // Three hands of 71 to -60 (not the end of a game to 300), then hand 1 corrected.
    let hand = hand_of([4, 3], [4, 4], [3, 3], [2, 3]);
    let m = admin
        .play_hands(ids[0], &[hand.clone(), hand.clone(), hand])
        .await;
    assert_eq!(m["status"], "in_progress", "{m}");
    let r = admin
        .correct_hand(
            &m,
            1,
            &hand_of([4, 3], [5, 3], [3, 3], [2, 3]),
            "seat 1 took one more",
            false,
        )
        .await;
    assert_eq!(r.status(), 200, "the correction");
    // 120 a hand for team a: over 300 after three.
    let big = hand_of([6, 6], [6, 6], [2, 2], [1, 0]);
    let m = admin
        .play_hands(ids[2], &[big.clone(), big.clone(), big])
        .await;
    assert_eq!(m["status"], "complete", "{m}");
    Night {
        app,
        admin,
        live: ids[0],
        later: ids[1],
        done: ids[2],
    }
}

/// Runs `body` with a phone-sized browser logged in as `sue` (skips without a browser, see
/// [`binaries_or_skip`]); on failure keeps a screenshot and the page, named after `name`.
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
        tap(&browser, "#login-button").await?;
        let width = browser
            .execute("return window.innerWidth", json!([]))
            .await?;
        ensure!(
            width.as_f64().is_some_and(|w| w <= f64::from(PHONE.0)),
            "the window is a phone's: {width}"
        );
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

/// Taps `css` and waits for the page it loads.
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

/// Where the element matching `css` is, and whether it can be seen: its rectangle inside the
/// viewport, and the element at its centre is itself or inside it (no sticky bar over it).
/// An error names what is wrong.
const IN_VIEW: &str = r#"
const el = document.querySelector(arguments[0]);
if (!el) return "no " + arguments[0];
const r = el.getBoundingClientRect();
const w = window.innerWidth, h = window.innerHeight;
if (r.width === 0 || r.height === 0) return arguments[0] + " is not shown";
if (r.top < 0 || r.bottom > h || r.left < 0 || r.right > w)
  return arguments[0] + " is outside the viewport: " + JSON.stringify(r) + " in " + w + "x" + h;
const x = r.left + r.width / 2, y = r.top + Math.min(r.height / 2, 20);
const at = document.elementFromPoint(x, y);
if (!at || !(el === at || el.contains(at)))
  return arguments[0] + " is covered at its centre by " + (at ? at.outerHTML.slice(0, 120) : "nothing");
for (const bar of document.querySelectorAll(".actions")) {
  const b = bar.getBoundingClientRect();
  if (b.height > 0 && b.top < r.bottom && b.bottom > r.top)
    return arguments[0] + " and the sticky bar overlap: " + JSON.stringify(r) + " / " + JSON.stringify(b);
}
return "";
"#;

async fn ensure_in_view(browser: &Browser, css: &str) -> anyhow::Result<()> {
    let problem = browser.execute(IN_VIEW, json!([css])).await?;
    ensure!(problem == "", "{}", problem.as_str().unwrap_or_default());
    Ok(())
}

/// The id of the focused element.
async fn focused(browser: &Browser) -> anyhow::Result<String> {
    let id = browser
        .execute(
            "return document.activeElement ? document.activeElement.id : ''",
            json!([]),
        )
        .await?;
    Ok(id.as_str().unwrap_or_default().to_string())
}

async fn title(browser: &Browser) -> anyhow::Result<String> {
    let title = browser.execute("return document.title", json!([])).await?;
    Ok(title.as_str().unwrap_or_default().to_string())
}

/// A refused post's page as it opens: "Error:" in the title, the summary `css` focused and in
/// view, not covered.
async fn ensure_opens_at_the_summary(
    browser: &Browser,
    css: &str,
    what: &str,
) -> anyhow::Result<()> {
    let title = title(browser).await?;
    ensure!(
        title.starts_with("Error: "),
        "{what}: the title is {title:?}"
    );
    let id = css.trim_start_matches('#');
    let focus = focused(browser).await?;
    ensure!(focus == id, "{what}: the focus is on {focus:?}, not {id}");
    ensure_in_view(browser, css)
        .await
        .with_context(|| what.to_string())?;
    let role = browser.attribute(&browser.find(css).await?, "role").await?;
    ensure!(role.as_deref() == Some("alert"), "{what}: role {role:?}");
    Ok(())
}

/// Taps the summary's link to `field` (an id): the field gets the focus, in view, not covered.
async fn follow_the_link_to(browser: &Browser, field: &str, what: &str) -> anyhow::Result<()> {
    let link = browser
        .find(&format!("#error-summary a[href=\"#{field}\"]"))
        .await
        .with_context(|| format!("{what}: the summary links to #{field}"))?;
    browser.click(&link).await?;
    let focus = focused(browser).await?;
    ensure!(
        focus == field,
        "{what}: after the link the focus is on {focus:?}"
    );
    ensure_in_view(browser, &format!("#{field}"))
        .await
        .with_context(|| format!("{what}: the field after the link"))?;
    let element = browser.find(&format!("#{field}")).await?;
    ensure!(
        browser
            .attribute(&element, "aria-invalid")
            .await?
            .as_deref()
            == Some("true"),
        "{what}: #{field} is marked invalid"
    );
    ensure!(
        browser
            .attribute(&element, "aria-describedby")
            .await?
            .as_deref()
            == Some("hand-error"),
        "{what}: #{field} is described by its message"
    );
    Ok(())
}

/// Taps "Record the hand" on a hand the engine refuses: the console refuses it on the phone
/// (static/console/form.js), nothing is sent; waits for its error summary to take the focus.
async fn refused_on_the_phone(browser: &Browser) -> anyhow::Result<()> {
    let record = browser.find("#record").await?;
    browser.click(&record).await?;
    for _ in 0..300 {
        let focus = focused(browser).await?;
        if focus == "error-summary" {
            return Ok(());
        }
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    anyhow::bail!("no error summary took the focus after a refused hand")
}

const REFUSED_TEST: &str = "browser_phone::errors_are_in_view_on_a_phone";

#[actix_web::test]
async fn errors_are_in_view_on_a_phone() {
    let n = night().await;
    let console = format!("/supervise/matches/{}", n.live);
    on_a_phone(REFUSED_TEST, "phone-errors", &n.app, async |browser| {
        // A hand whose tricks sum to 12: refused.
        browser.goto(&n.app.url(&console)).await?;
        browser.wait_for("#hand-form", WAIT).await?;
        type_hand(browser, [("5", "6"), ("2", "2")], [("4", "3"), ("1", "1")]).await?;
        refused_on_the_phone(browser).await?;
        ensure_opens_at_the_summary(browser, "#error-summary", "a refused hand").await?;
        let summary = browser.text_of("#error-summary").await?;
        ensure!(
            summary.contains("The hand was not recorded") && summary.contains("tricks sum to 12"),
            "the summary: {summary}"
        );
        let message = browser.text_of("#hand-error").await?;
        ensure!(
            message.contains("tricks sum to 12, not 13"),
            "the message at the fields: {message}"
        );
        ensure!(
            browser.value_of("#b_tricks1").await? == "1",
            "what was typed is kept"
        );
        follow_the_link_to(browser, "a_tricks0", "a refused hand").await?;
        ensure_in_view(browser, "#hand-error")
            .await
            .context("the message with the field")?;
        ensure_eq_hands(&n.app, n.live, 3).await?;

        // A correction without a reason: refused, the summary at the top (not 600 px below).
        browser
            .goto(&n.app.url(&format!("{console}/hands/2/edit")))
            .await?;
        browser.wait_for("#reason", WAIT).await?;
        let took = browser.find("#a_tricks0").await?;
        browser.clear(&took).await?;
        browser.send_keys(&took, "5").await?;
        let took = browser.find("#a_tricks1").await?;
        browser.clear(&took).await?;
        browser.send_keys(&took, "3").await?;
        tap(browser, "#record").await?;
        ensure_opens_at_the_summary(browser, "#error-summary", "a correction without a reason")
            .await?;
        let summary = browser.text_of("#error-summary").await?;
        ensure!(
            summary.contains("The correction was not saved")
                && summary.contains("say why the hand is corrected"),
            "the summary: {summary}"
        );
        ensure!(
            browser.value_of("#a_tricks0").await? == "5",
            "the correction typed is kept"
        );
        follow_the_link_to(browser, "reason", "a correction without a reason").await?;
        ensure_in_view(browser, "#hand-error")
            .await
            .context("the message with the reason")?;
        let m = match_json(&n.app, n.live).await;
        ensure!(m["hands"][1]["revision"] == 1, "nothing corrected: {m}");

        // A check-in from a page loaded before the match started: the conflict, on top.
        let later = format!("/supervise/matches/{}", n.later);
        browser.goto(&n.app.url(&later)).await?;
        browser.wait_for("#check-in-a", WAIT).await?;
        n.admin.start_match(n.later).await;
        tap(browser, "#check-in-a").await?;
        ensure_opens_at_the_summary(browser, "#console-conflict", "a check-in once started")
            .await?;
        let summary = browser.text_of("#console-conflict").await?;
        ensure!(summary.contains("in progress"), "the summary: {summary}");
        ensure!(
            match_json(&n.app, n.later).await["checked_in"]["a"] == Value::Null,
            "nobody checked in"
        );
        Ok(())
    })
    .await;
}

async fn ensure_eq_hands(app: &TestApp, id: i64, hands: usize) -> anyhow::Result<()> {
    let m = match_json(app, id).await;
    ensure!(
        m["hands"].as_array().map(Vec::len) == Some(hands),
        "{hands} hands: {m}"
    );
    Ok(())
}

/// What does not fit the phone on the current page: a horizontal scroll, and each shown
/// control or link of the main content smaller than a thumb (44 px tall; buttons, links and
/// radio labels 44 px wide too). A radio or checkbox counts by its label. One line each.
const TOO_SMALL: &str = r##"
const out = [];
const w = window.innerWidth;
if (document.documentElement.scrollWidth > w)
  out.push("the page scrolls sideways: " + document.documentElement.scrollWidth + " > " + w);
const shown = el => el.checkVisibility() && el.getBoundingClientRect().width > 0;
const name = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
  (el.className && typeof el.className === "string" ? "." + el.className.split(" ").join(".") : "") +
  " \"" + (el.textContent || el.value || "").trim().slice(0, 30) + "\"";
const main = document.querySelector("main");
const targets = new Set();
for (const el of main.querySelectorAll("button, input, select, textarea, summary, a[href], label")) {
  if (el.type === "hidden") continue;
  if (el.tagName === "INPUT" && (el.type === "radio" || el.type === "checkbox")) {
    const label = el.closest("label") || (el.id && main.querySelector("label[for='" + el.id + "']"));
    if (!label) { out.push(name(el) + " has no label to tap"); continue; }
    targets.add(label);
    continue;
  }
  if (el.tagName === "LABEL") {
    // A label wrapping a field only names it; a label for a radio or checkbox is the target.
    const input = el.control;
    if (!input || (input.type !== "radio" && input.type !== "checkbox")) continue;
  }
  targets.add(el);
}
for (const el of targets) {
  if (!shown(el)) continue;
  const r = el.getBoundingClientRect();
  const wide = ["BUTTON", "A", "SUMMARY", "LABEL"].includes(el.tagName);
  if (r.height < 44 || (wide && r.width < 44))
    out.push(name(el) + " is " + Math.round(r.width) + "x" + Math.round(r.height));
  if (r.left < 0 || r.right > w + 0.5)
    out.push(name(el) + " is outside the screen: " + Math.round(r.left) + ".." + Math.round(r.right));
}
return out;
"##;

async fn ensure_fits(browser: &Browser, what: &str) -> anyhow::Result<()> {
    let problems = browser.execute(TOO_SMALL, json!([])).await?;
    let problems: Vec<String> = serde_json::from_value(problems)?;
    ensure!(
        problems.is_empty(),
        "{what} on a phone:\n{}",
        problems.join("\n")
    );
    Ok(())
}

/// Whether the element matching `css` is shown (in the layout).
async fn shown(browser: &Browser, css: &str) -> anyhow::Result<bool> {
    let shown = browser
        .execute(
            "const el = document.querySelector(arguments[0]); \
             return !!el && el.checkVisibility();",
            json!([css]),
        )
        .await?;
    Ok(shown == json!(true))
}

const FITS_TEST: &str = "browser_phone::the_console_fits_a_phone";

#[actix_web::test]
async fn the_console_fits_a_phone() {
    let n = night().await;
    let console = format!("/supervise/matches/{}", n.live);
    on_a_phone(FITS_TEST, "phone-fits", &n.app, async |browser| {
        browser.goto(&n.app.url(&console)).await?;
        browser.wait_for("#hand-form", WAIT).await?;
        ensure_fits(browser, "the console in play").await?;
        // Every score a game can reach, −999 to 9999, whole in the score box and the bar.
        crate::browser::ensure_scores_fit(
            browser,
            "the console's scores at 390 px",
            &[
                ("#score-a", ".total", "#"),
                ("#score-b", ".total", "#"),
                ("#bar-score", "#console-bar", "#\u{2013}#"),
            ],
        )
        .await?;

        // The scoresheet: one card per hand, the table not shown (nor read out).
        ensure!(
            !shown(browser, ".sheet-wide").await?,
            "the wide table is hidden"
        );
        let cards = browser.find_all(".hand-card").await?;
        ensure!(cards.len() == 3, "{} cards", cards.len());
        let card = browser.text_of("#card-1").await?;
        for part in ["Hand 1", "Team 1", "Team 2", "Bid", "Took", "Points", "Score"] {
            ensure!(card.contains(part), "card 1 shows {part}: {card}");
        }
        ensure!(
            browser
                .text_of("#card-1 .correction")
                .await?
                .contains("seat 1 took one more"),
            "the correction is marked on its card"
        );
        let buttons = browser
            .execute(
                "return [...document.querySelectorAll('main a[href$=\"/edit\"]')] \
                   .filter(a => a.checkVisibility()) \
                   .map(a => { const r = a.getBoundingClientRect(); \
                     return {id: a.id, left: r.left, right: r.right, card: !!a.closest('.hand-card')}; });",
                json!([]),
            )
            .await?;
        let buttons = buttons.as_array().cloned().unwrap_or_default();
        ensure!(
            buttons.len() == 3,
            "a Correct button per hand shown: {buttons:?}"
        );
        let width = browser
            .execute("return window.innerWidth", json!([]))
            .await?
            .as_f64()
            .unwrap_or(0.0);
        for b in &buttons {
            let (left, right) = (
                b["left"].as_f64().unwrap_or(-1.0),
                b["right"].as_f64().unwrap_or(f64::MAX),
            );
            ensure!(
                left >= 0.0 && right <= width && b["card"] == true,
                "{b} within 0..{width}, on its card"
            );
        }
        ensure!(
            browser.text_of("#correct-2").await? == "Correct hand 2",
            "the card's button"
        );

        // Call time: the first tap only opens the confirmation, which can be cancelled.
        ensure!(
            !shown(browser, "#call-time-confirm").await?,
            "no confirmation yet"
        );
        let call = browser.find("#call-time").await?;
        browser.click(&call).await?;
        ensure!(
            shown(browser, "#call-time-confirm").await?,
            "the confirmation is open"
        );
        let yes = browser.text_of("#call-time-confirm").await?;
        ensure!(
            yes.contains("Yes, call time now") && yes.contains("the next hand is the last"),
            "the second button: {yes}"
        );
        ensure!(
            browser.text_of("#call-time").await?.contains("Cancel"),
            "the first button now cancels"
        );
        ensure!(
            match_json(&n.app, n.live).await["time_called_at"] == Value::Null,
            "one tap calls nothing"
        );
        ensure_fits(browser, "the call-time confirmation").await?;
        browser.click(&call).await?;
        ensure!(
            !shown(browser, "#call-time-confirm").await?,
            "cancelled: the confirmation is closed"
        );
        browser.click(&call).await?;
        tap(browser, "#call-time-confirm").await?;
        ensure!(
            match_json(&n.app, n.live).await["time_called_at"].is_string(),
            "the second tap calls time"
        );
        ensure!(
            browser.text_of("#time-called").await?.contains("Time called"),
            "the console says so"
        );

        // A forfeit: the team's button opens the confirmation page, with another button.
        let summary = browser.find("#forfeit-box summary").await?;
        browser.click(&summary).await?;
        ensure_fits(browser, "the forfeit box").await?;
        tap(browser, "#forfeit-a").await?;
        let url = browser.current_url().await?;
        ensure!(
            url.contains(&format!("{console}/forfeit?team=a")),
            "the confirmation: {url}"
        );
        ensure!(
            match_json(&n.app, n.live).await["status"] == "in_progress",
            "one tap forfeits nothing"
        );
        let yes = browser.text_of("#record-forfeit").await?;
        ensure!(
            yes.starts_with("Yes, record the forfeit"),
            "the second button: {yes}"
        );
        ensure_fits(browser, "the forfeit's confirmation").await?;
        tap(browser, "#forfeit-back").await?;
        ensure!(
            match_json(&n.app, n.live).await["status"] == "in_progress",
            "Back forfeits nothing"
        );

        // The correction form, and a match before its start (check-in).
        browser
            .goto(&n.app.url(&format!("{console}/hands/1/edit")))
            .await?;
        browser.wait_for("#reason", WAIT).await?;
        ensure_fits(browser, "the correction form").await?;
        browser
            .goto(&n.app.url(&format!("/supervise/matches/{}", n.later)))
            .await?;
        browser.wait_for("#check-in-a", WAIT).await?;
        ensure_fits(browser, "the console before the start").await?;
        // After the end: the sportsmanship ratings, a radio button per value of the scale.
        browser
            .goto(&n.app.url(&format!("/supervise/matches/{}", n.done)))
            .await?;
        browser.wait_for("#ratings-form", WAIT).await?;
        ensure!(
            browser.exists("label[for=rating-a-5]").await?,
            "the ratings' buttons"
        );
        ensure_fits(browser, "the ratings after the match").await?;
        Ok(())
    })
    .await;
}

const LONG_TEST: &str =
    "browser_phone::a_150_hand_console_loads_on_a_phone_and_takes_the_next_hand";

#[actix_web::test]
async fn a_150_hand_console_loads_on_a_phone_and_takes_the_next_hand() {
    use crate::long_match::{HANDS, long_match};
    let (app, last) = long_match().await;
    let id = last["id"].as_i64().expect("match id");
    let console = format!("/supervise/matches/{id}");
    on_a_phone(LONG_TEST, "phone-long", &app, async |browser| {
        browser.goto(&app.url(&console)).await?;
        browser.wait_for("#hand-form", WAIT).await?;
        let cards = browser.find_all(".hand-card").await?;
        ensure!(cards.len() == HANDS, "{} cards", cards.len());
        ensure!(
            browser.text_of("#card-150").await?.contains("Hand 150"),
            "the last card"
        );
        let title = browser.text_of("#hand-title").await?;
        ensure!(title == format!("Hand {}", HANDS + 1), "the form: {title}");
        ensure_fits(browser, "the console with 150 hands").await?;
        // The form opens in view (its title, and the sticky Record button), before the
        // 150 hands; its first field scrolls clear of the bar.
        ensure_in_view(browser, "#hand-title").await?;
        ensure!(shown(browser, "#record").await?, "the Record button");
        browser
            .execute(
                "document.querySelector(arguments[0]).scrollIntoView({block: 'center'})",
                json!(["#a_bid0"]),
            )
            .await?;
        ensure_in_view(browser, "#a_bid0").await?;
        type_hand(browser, [("0", "3"), ("0", "3")], [("0", "4"), ("0", "3")]).await?;
        tap(browser, "#record").await?;
        ensure_eq_hands(&app, id, HANDS + 1).await?;
        browser.wait_for("#card-151", WAIT).await?;
        let title = browser.text_of("#hand-title").await?;
        ensure!(
            title == format!("Hand {}", HANDS + 2),
            "the next form: {title}"
        );
        Ok(())
    })
    .await;
}

/// Waits until the page has loaded and run its scripts.
async fn loaded(browser: &Browser) -> anyhow::Result<()> {
    let deadline = std::time::Instant::now() + WAIT;
    while browser
        .execute("return document.readyState", json!([]))
        .await?
        != "complete"
    {
        ensure!(
            std::time::Instant::now() < deadline,
            "the page never finished loading"
        );
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

const NEXT_HAND_TEST: &str = "browser_phone::after_a_hand_the_console_opens_at_the_next_form";

/// What a supervisor meets when the console opens after a recorded hand: how far the next
/// hand's form is from where the page opened (px to scroll: the distance of its title from
/// the top of the window), and the focused field's id and whether it is the first bidder's
/// bid; and the header's height and whether its parts sit in one row. The distance counts from
/// where the form would be after scrolling to it (its title 16 px below the top: the
/// console's scroll padding).
const OPENED_AT: &str = r#"
const title = document.getElementById('hand-title');
const first = document.getElementById('first-tag');
const bid = first ? first.closest('fieldset').querySelector('select') : null;
const header = document.querySelector('header.site');
const parts = [...header.children].filter(el => el.checkVisibility());
const middles = parts.map(el => { const r = el.getBoundingClientRect(); return (r.top + r.bottom) / 2; });
return {
  scroll: title ? Math.round(title.getBoundingClientRect().top - 16) : null,
  focus: document.activeElement ? document.activeElement.id : '',
  first_bid: !!bid && document.activeElement === bid,
  hash: location.hash,
  header: Math.round(header.getBoundingClientRect().height),
  one_row: middles.length > 0 && Math.max(...middles) - Math.min(...middles) <= 4,
};
"#;

/// Five hands entered on a phone, one after the other, as a supervisor does at the table:
/// after each, the console opens at the next hand's form (in view, the first bidder's bid
/// focused) under a one-row header. Prints the taps and the scrolling each hand takes
/// (BENCHMARKS.md, "The console on a phone").
#[actix_web::test]
async fn after_a_hand_the_console_opens_at_the_next_form() {
    let n = night().await;
    n.admin.start_match(n.later).await;
    let console = format!("/supervise/matches/{}", n.later);
    on_a_phone(NEXT_HAND_TEST, "phone-next-hand", &n.app, async |browser| {
        browser.goto(&n.app.url(&console)).await?;
        browser.wait_for("#hand-form", WAIT).await?;
        let opened = browser.execute(OPENED_AT, json!([])).await?;
        eprintln!("the console as it opens: {opened}");
        let mut after = Vec::new();
        for hand in 1..=5 {
            // 4 bids, 4 tricks, Record: 9 taps.
            type_hand(browser, [("2", "2"), ("2", "2")], [("3", "4"), ("3", "5")]).await?;
            tap(browser, "#record").await?;
            ensure_eq_hands(&n.app, n.later, hand).await?;
            browser.wait_for("#hand-form", WAIT).await?;
            loaded(browser).await?;
            let seen = browser.execute(OPENED_AT, json!([])).await?;
            eprintln!("after hand {hand}: {seen}");
            after.push(seen);
        }
        let scrolls: Vec<i64> = after.iter().map(|s| s["scroll"].as_i64().unwrap_or(-1)).collect();
        let height = browser.execute("return window.innerHeight", json!([])).await?;
        let swipes: i64 = scrolls
            .iter()
            .map(|px| (px.max(&0) + height.as_i64().unwrap_or(844) * 4 / 5 - 1) / (height.as_i64().unwrap_or(844) * 4 / 5))
            .sum();
        eprintln!(
            "console, 5 hands on a 390x844 phone: 9 taps a hand, scroll to the next form (px) {scrolls:?}, \
             {swipes} swipes in all; the header {} px",
            opened["header"]
        );
        ensure!(
            opened["one_row"] == true && opened["header"].as_i64().unwrap_or(999) <= 64,
            "the header is one row: {opened}"
        );
        for (i, seen) in after.iter().enumerate() {
            let px = seen["scroll"].as_i64().unwrap_or(-1);
            ensure!(
                (-4..=16).contains(&px) && seen["hash"] == "#next-hand",
                "after hand {}: the page opens at the next form: {seen}",
                i + 1
            );
            ensure!(
                seen["first_bid"] == true,
                "after hand {}: the first bidder's bid has the focus: {seen}",
                i + 1
            );
        }
        ensure_in_view(browser, "#hand-title").await?;
        ensure_fits(browser, "the console after five hands").await?;
        // The menu holds the site's links.
        let menu = browser.find("#bar-menu summary").await?;
        browser.click(&menu).await?;
        ensure!(
            shown(browser, "#bar-menu a[href=\"/supervise\"]").await?,
            "the menu opens with the site's links"
        );
        Ok(())
    })
    .await;
}
