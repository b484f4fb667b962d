//! `/calculator` in headless Chromium: a user picks the rules, types three hands (one wrong),
//! gets the error next to that hand with everything typed kept, adds a row with the page's
//! script, fixes the hand and reads the same scores as the JSON API gives.
//!
//! Needs Debian's `chromium` and `chromium-driver`. Without them the test prints `SKIPPED:`
//! and passes, unless `CI` is set: in CI a missing browser is a failure, never a skip (see
//! [`crate::webdriver::skip`]).

use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app};
use crate::webdriver::{Browser, binaries_or_skip};

/// How long one page or element may take to show up.
const WAIT: Duration = Duration::from_secs(15);
/// The whole browser part, so a hung browser fails the test instead of hanging it.
const WHOLE_TEST: Duration = Duration::from_secs(180);

/// One hand as typed: per team, (bid, tricks) for its two seats in seat order.
#[derive(Clone, Copy)]
struct TypedHand {
    a: [(&'static str, &'static str); 2],
    b: [(&'static str, &'static str); 2],
    time_called: bool,
}

/// The game under unc-im-300 (nil ±60, minimum team bid 4, every 6th bag costs 60, failed
/// nils' tricks count for nothing, 30-minute time limit).
const HANDS: [TypedHand; 3] = [
    TypedHand {
        a: [("4", "5"), ("nil", "0")],
        b: [("3", "4"), ("4", "4")],
        time_called: false,
    },
    TypedHand {
        a: [("5", "4"), ("4", "3")],
        b: [("nil", "1"), ("5", "5")],
        time_called: false,
    },
    TypedHand {
        a: [("2", "2"), ("2", "2")],
        b: [("2", "5"), ("2", "4")],
        time_called: true,
    },
];

/// What is typed first for hand 3, seat 3 (team A's second player): 1 trick instead of 2,
/// so hand 3's tricks sum to 12.
const WRONG_TRICKS: &str = "1";

/// The scoresheet worked by hand: per hand, `#`, then for A and B: bids, took, nil,
/// contract, bags, bag penalty, revoke, hand, score (bags); then the game column.
///
/// Hand 1. A: 4 + nil, took 5 + 0 → nil made +60, contract 4 made +40, 1 bag +1 = 101;
///         score 101, 1 bag. B: 3 + 4 = 7, took 8 → +70, 1 bag +1 = 71; score 71, 1 bag.
/// Hand 2. A: 5 + 4 = 9, took 7 → set −90; score 11, still 1 bag.
///         B: nil + 5, took 1 + 5 → nil failed −60; its trick does not count (counted 5),
///         so contract 5 made +50 with no bag = −10; score 61, 1 bag.
/// Hand 3 (time called). A: 2 + 2 = 4, took 4 → +40; score 51, 1 bag.
///         B: 2 + 2 = 4, took 9 → +40, 5 bags +5; bag counter 1 + 5 = 6 reaches the limit:
///         −60, counter 0 → hand −15; score 46, 0 bags.
///         Time is called with A ahead 51 to 46: Team A wins.
#[rustfmt::skip]
const EXPECTED_SHEET: [[&str; 20]; 3] = [
    ["1",
     "4 + nil", "5 + 0", "60", "40 made", "1", "0", "0", "101", "101 (1)",
     "3 + 4", "4 + 4", "0", "70 made", "1", "0", "0", "71", "71 (1)",
     "In progress"],
    ["2",
     "5 + 4", "4 + 3", "0", "-90 set", "0", "0", "0", "-90", "11 (1)",
     "nil + 5", "1 + 5\ncounted 5", "-60", "50 made", "0", "0", "0", "-10", "61 (1)",
     "In progress"],
    ["3\ntime called",
     "2 + 2", "2 + 2", "0", "40 made", "0", "0", "0", "40", "51 (1)",
     "2 + 2", "5 + 4", "0", "40 made", "5", "-60", "0", "-15", "46 (0)",
     "Team A wins (time called)"],
];

#[actix_web::test]
async fn calculator_works_in_a_browser() {
    let Some((driver, chrome)) = binaries_or_skip("browser::calculator_works_in_a_browser") else {
        return;
    };
    let app = spawn_app().await;
    let started = Instant::now();
    let browser = Browser::start(&driver, &chrome).await.unwrap_or_else(|e| {
        panic!(
            "cannot start {} with {}: {e}",
            driver.display(),
            chrome.display()
        )
    });
    let launched = started.elapsed();
    let outcome = actix_web::rt::time::timeout(WHOLE_TEST, drive(&app, &browser)).await;
    let failure = match outcome {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(format!("{e:#}")),
        Err(_) => Some(format!("the browser test took over {WHOLE_TEST:?}")),
    };
    if let Some(failure) = failure {
        let evidence = evidence(&browser, "calculator").await;
        let _ = browser.quit().await;
        panic!("{failure}\n{evidence}");
    }
    browser.quit().await.expect("the browser quits");
    eprintln!(
        "browser test: chromium up in {launched:?}, whole test {:?}",
        started.elapsed()
    );
}

/// Runs `body` with a fresh browser for the browser test `test` (skips without one, see
/// [`binaries_or_skip`]), failing it after `whole`; on failure keeps a screenshot and the
/// page ([`evidence`]), named after `name`.
pub(crate) async fn with_browser<F>(test: &str, name: &str, whole: Duration, body: F)
where
    F: AsyncFnOnce(&Browser) -> anyhow::Result<()>,
{
    let Some((driver, chrome)) = binaries_or_skip(test) else {
        return;
    };
    let browser = Browser::start(&driver, &chrome)
        .await
        .expect("chromium starts");
    let outcome = actix_web::rt::time::timeout(whole, body(&browser)).await;
    let failure = match outcome {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(format!("{e:#}")),
        Err(_) => Some(format!("the browser test took over {whole:?}")),
    };
    if let Some(failure) = failure {
        let saved = evidence(&browser, name).await;
        let _ = browser.quit().await;
        panic!("{failure}\n{saved}");
    }
    browser.quit().await.expect("the browser quits");
}

/// A screenshot and the markup of the page as the failure left it, under `target/tmp`.
/// A screenshot and the markup of the page as a failure left it, under `target/tmp`, named
/// after the test.
pub(crate) async fn evidence(browser: &Browser, name: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let png = dir.join(format!("browser-{name}-failure.png"));
    let html = dir.join(format!("browser-{name}-failure.html"));
    let mut notes = Vec::new();
    match browser.screenshot(&png).await {
        Ok(()) => notes.push(format!("screenshot: {}", png.display())),
        Err(e) => notes.push(format!("no screenshot: {e}")),
    }
    match browser.source().await {
        Ok(source) if std::fs::write(&html, &source).is_ok() => {
            notes.push(format!("page source: {}", html.display()));
        }
        Ok(_) => notes.push("page source not saved".into()),
        Err(e) => notes.push(format!("no page source: {e}")),
    }
    notes.join("\n")
}

/// The name of a hand's field: `h{index}_{rest}` with index 0-based.
fn field(index: usize, rest: &str) -> String {
    format!("h{index}_{rest}")
}

/// (field name, typed value) of every bid and trick cell of the hands, in form order.
fn typed_cells(hands: &[TypedHand]) -> Vec<(String, String)> {
    let mut cells = Vec::new();
    for (i, hand) in hands.iter().enumerate() {
        for (team, seats) in [("a", hand.a), ("b", hand.b)] {
            for (p, (bid, took)) in seats.iter().enumerate() {
                cells.push((field(i, &format!("{team}_bid{p}")), bid.to_string()));
                cells.push((field(i, &format!("{team}_tricks{p}")), took.to_string()));
            }
        }
    }
    cells
}

/// The JSON API's request for the same hands.
fn api_request(hands: &[TypedHand]) -> Value {
    let bid = |b: &str| b.parse::<i64>().map_or_else(|_| json!(b), |n| json!(n));
    let took = |t: &str| t.parse::<i64>().expect("tricks are numbers");
    let team = |seats: [(&str, &str); 2]| {
        json!({
            "bids": seats.iter().map(|s| bid(s.0)).collect::<Vec<_>>(),
            "tricks": seats.iter().map(|s| took(s.1)).collect::<Vec<_>>(),
        })
    };
    let hands: Vec<Value> = hands
        .iter()
        .map(|h| json!({"a": team(h.a), "b": team(h.b), "time_called": h.time_called}))
        .collect();
    json!({"rules": "unc-im-300", "hands": hands})
}

/// The game state in the page's words, from the API's `status`, `winner` and `reason`.
fn status_words(out: &Value) -> anyhow::Result<String> {
    let winner = out["winner"].as_str().unwrap_or_default().to_uppercase();
    Ok(match (out["status"].as_str(), out["reason"].as_str()) {
        (Some("in_progress"), _) => "In progress".into(),
        (Some("won"), Some("time")) => format!("Team {winner} wins (time called)"),
        (Some("won"), Some("target")) => format!("Team {winner} wins (reached the target)"),
        (Some("tied"), _) => "Draw".into(),
        (Some("tiebreak"), _) => "Tied: the next hand breaks the tie".into(),
        _ => bail!("no words for the state {out}"),
    })
}

/// The scoresheet row the page should show for a hand, built from the API's answer.
fn api_sheet_row(hand: &TypedHand, out: &Value) -> anyhow::Result<Vec<String>> {
    let mut notes = Vec::new();
    if out["tiebreak"] == true {
        notes.push("tie-break hand");
    }
    if out["time_called"] == true {
        notes.push("time called");
    }
    let mut number = out["number"].to_string();
    if !notes.is_empty() {
        number = format!("{number}\n{}", notes.join(", "));
    }
    let mut row = vec![number];
    for (seats, r) in [(hand.a, &out["a"]), (hand.b, &out["b"])] {
        let bids: Vec<&str> = seats.iter().map(|s| s.0).collect();
        let took: Vec<&str> = seats.iter().map(|s| s.1).collect();
        let taken: i64 = took.iter().map(|t| t.parse::<i64>().unwrap()).sum();
        let counted = r["tricks_counted"].as_i64().context("tricks_counted")?;
        let mut tricks = took.join(" + ");
        if counted != taken {
            tricks = format!("{tricks}\ncounted {counted}");
        }
        let made = match r["made"].as_bool() {
            Some(true) => " made",
            Some(false) => " set",
            None => "",
        };
        row.extend([
            bids.join(" + "),
            tricks,
            r["nil_points"].to_string(),
            format!("{}{made}", r["contract_points"]),
            r["bag_points"].to_string(),
            r["bag_penalty"].to_string(),
            r["revoke_award"].to_string(),
            r["points"].to_string(),
            format!("{} ({})", r["score"], r["bags"]),
        ]);
    }
    row.push(status_words(out)?);
    Ok(row)
}

async fn fill_hands(browser: &Browser, hands: &[TypedHand]) -> anyhow::Result<()> {
    for (name, value) in typed_cells(hands) {
        if name.contains("_bid") {
            browser
                .select_by_value(&format!("select[name=\"{name}\"]"), &value)
                .await
                .with_context(|| format!("selecting {value} in {name}"))?;
        } else {
            let input = browser.find(&format!("input[name=\"{name}\"]")).await?;
            browser.clear(&input).await?;
            browser
                .send_keys(&input, &value)
                .await
                .with_context(|| format!("typing {value} in {name}"))?;
        }
    }
    for (i, hand) in hands.iter().enumerate() {
        if hand.time_called {
            let checkbox = browser
                .find(&format!("input[name=\"{}\"]", field(i, "time")))
                .await?;
            browser.click(&checkbox).await?;
        }
    }
    Ok(())
}

/// Everything typed is in the form: preset, every bid and trick, the time-called boxes.
async fn assert_form_keeps(
    browser: &Browser,
    hands: &[TypedHand],
    when: &str,
) -> anyhow::Result<()> {
    let preset = browser.value_of("#preset").await?;
    ensure!(preset == "unc-im-300", "{when}: the preset is {preset:?}");
    for (name, typed) in typed_cells(hands) {
        let shown = browser.value_of(&format!("[name=\"{name}\"]")).await?;
        ensure!(
            shown == typed,
            "{when}: {name} shows {shown:?}, typed {typed:?}"
        );
    }
    for (i, hand) in hands.iter().enumerate() {
        let name = field(i, "time");
        let checkbox = browser.find(&format!("input[name=\"{name}\"]")).await?;
        let checked = browser.property_json(&checkbox, "checked").await?;
        ensure!(
            checked == hand.time_called,
            "{when}: {name} is checked={checked}, should be {}",
            hand.time_called
        );
    }
    Ok(())
}

async fn drive(app: &TestApp, browser: &Browser) -> anyhow::Result<()> {
    let mut wrong = HANDS;
    wrong[2].a[1].1 = WRONG_TRICKS;

    // The API's verdict on the wrong hands, and its numbers for the right ones.
    let response = app.post_json("/api/v1/score", &api_request(&wrong)).await;
    ensure!(
        response.status() == 422,
        "the API takes the wrong hands: {}",
        response.status()
    );
    let api_error: Value = response.json().await?;
    let api_message = api_error["error"]["message"]
        .as_str()
        .context("the API's error has a message")?
        .to_string();
    ensure!(
        api_error["error"]["hand"] == 3,
        "the API blames hand 3: {api_error}"
    );
    let response = app.post_json("/api/v1/score", &api_request(&HANDS)).await;
    ensure!(
        response.status() == 200,
        "the API scores the hands: {}",
        response.status()
    );
    let api: Value = response.json().await?;

    // 1. A fresh page: pick the rules, type the hands with the wrong trick count, score.
    browser.goto(&app.url("/calculator")).await?;
    browser.wait_for("#score-button", WAIT).await?;
    let fieldsets = browser.find_all("fieldset.hand").await?;
    ensure!(
        fieldsets.len() == 3,
        "a fresh page has 3 hands, not {}",
        fieldsets.len()
    );
    browser.select_by_value("#preset", "unc-im-300").await?;
    fill_hands(browser, &wrong).await?;
    let score = browser.find("#score-button").await?;
    browser.click_and_wait_for_page(&score, WAIT).await?;

    // 2. The error sits inside hand 3's fieldset and says what the API says.
    let error = browser
        .wait_for("fieldset.hand[data-hand=\"3\"] #hand-3-error", WAIT)
        .await
        .context("the error is shown in hand 3")?;
    let message = browser.text(&error).await?;
    ensure!(
        message.contains("tricks sum to 12, not 13"),
        "hand 3's error reads {message:?}"
    );
    ensure!(
        message == api_message,
        "page says {message:?}, API says {api_message:?}"
    );
    let summary = browser.text_of("#form-error").await?;
    ensure!(summary == api_message, "the summary reads {summary:?}");
    for other in ["#hand-1-error", "#hand-2-error", "#score-a", "#sheet"] {
        ensure!(
            !browser.exists(other).await?,
            "{other} is shown with an invalid hand"
        );
    }
    let fieldsets = browser.find_all("fieldset.hand").await?;
    ensure!(
        fieldsets.len() == 3,
        "the error page has 3 hands, not {}",
        fieldsets.len()
    );
    for (i, fieldset) in fieldsets.iter().enumerate() {
        let class = browser
            .attribute(fieldset, "class")
            .await?
            .unwrap_or_default();
        let marked = class.split_whitespace().any(|c| c == "has-error");
        ensure!(marked == (i == 2), "hand {} has class {class:?}", i + 1);
    }
    for team in ["a", "b"] {
        for p in 0..2 {
            let name = field(2, &format!("{team}_tricks{p}"));
            let input = browser.find(&format!("input[name=\"{name}\"]")).await?;
            let invalid = browser.attribute(&input, "aria-invalid").await?;
            ensure!(
                invalid.as_deref() == Some("true"),
                "{name} is not marked invalid"
            );
        }
    }
    assert_form_keeps(browser, &wrong, "after the error").await?;

    // 3. "Add a hand" adds a blank 4th hand in the page, without a round trip.
    let root = browser.find("html").await?;
    let add = browser.find("#add-hand").await?;
    browser.click(&add).await?;
    let fourth = browser
        .wait_for("fieldset.hand[data-hand=\"4\"]", WAIT)
        .await
        .context("a 4th hand appears")?;
    browser
        .property(&root, "nodeName")
        .await
        .context("\"Add a hand\" reloaded the page instead of adding a row in it")?;
    ensure!(
        browser.find_all("fieldset.hand").await?.len() == 4,
        "not 4 hands"
    );
    let number = browser
        .text(&browser.find_all_in(&fourth, ".hand-number").await?[0])
        .await?;
    ensure!(number == "4", "the 4th hand is numbered {number:?}");
    let mut names = Vec::new();
    for control in browser.find_all_in(&fourth, "input, select").await? {
        let name = browser
            .attribute(&control, "name")
            .await?
            .unwrap_or_default();
        let kind = browser.property(&control, "type").await?;
        if kind == "checkbox" {
            let checked = browser.property_json(&control, "checked").await?;
            ensure!(checked == false, "{name} is checked in the new hand");
        } else {
            let value = browser.property(&control, "value").await?;
            ensure!(value.is_empty(), "{name} is {value:?} in the new hand");
        }
        let invalid = browser.attribute(&control, "aria-invalid").await?;
        ensure!(
            invalid.is_none(),
            "{name} is marked invalid in the new hand"
        );
        names.push(name);
    }
    names.sort();
    let mut expected: Vec<String> = ["time", "misdeal"].iter().map(|f| field(3, f)).collect();
    for team in ["a", "b"] {
        for cell in ["bid0", "bid1", "tricks0", "tricks1", "blind", "revokes"] {
            expected.push(field(3, &format!("{team}_{cell}")));
        }
    }
    expected.sort();
    ensure!(names == expected, "the new hand's fields are {names:?}");
    ensure!(
        browser
            .find_all_in(&fourth, ".field-error, .invalid")
            .await?
            .is_empty(),
        "the new hand carries hand 3's error"
    );
    let class = browser
        .attribute(&fourth, "class")
        .await?
        .unwrap_or_default();
    ensure!(
        !class.contains("has-error"),
        "the new hand has class {class:?}"
    );
    let focused = browser
        .execute(
            "return document.activeElement && document.activeElement.name",
            json!([]),
        )
        .await?;
    ensure!(focused == "h3_a_bid0", "the focus is on {focused}");
    assert_form_keeps(browser, &wrong, "after adding a hand").await?;

    // 4. Fix seat 3's tricks in hand 3 and score again; the blank 4th hand is ignored.
    let name = field(2, "a_tricks1");
    let input = browser.find(&format!("input[name=\"{name}\"]")).await?;
    browser.clear(&input).await?;
    browser.send_keys(&input, HANDS[2].a[1].1).await?;
    let score = browser.find("#score-button").await?;
    browser.click_and_wait_for_page(&score, WAIT).await?;
    browser
        .wait_for("#score-a", WAIT)
        .await
        .context("the scores are shown")?;
    ensure!(
        !browser.exists("#form-error, .field-error").await?,
        "an error is still shown: {}",
        browser.text_of("#form-error, .field-error").await?
    );
    assert_form_keeps(browser, &HANDS, "after scoring").await?;
    // The game is over (time called), so no blank hand is added for the next one.
    let count = browser.find_all("fieldset.hand").await?.len();
    ensure!(count == 3, "the decided game shows {count} hands");

    // 5. The totals: the page, the API and the hand-worked numbers agree.
    let page_a = browser.text_of("#score-a").await?;
    let page_b = browser.text_of("#score-b").await?;
    let page_status = browser.text_of("#game-status").await?;
    ensure!(
        page_a.parse::<i64>().ok() == api["a"]["score"].as_i64(),
        "A: page {page_a}, API {}",
        api["a"]
    );
    ensure!(
        page_b.parse::<i64>().ok() == api["b"]["score"].as_i64(),
        "B: page {page_b}, API {}",
        api["b"]
    );
    ensure!(
        page_status == status_words(&api)?,
        "page {page_status:?}, API {api}"
    );
    ensure!(
        (page_a.as_str(), page_b.as_str(), page_status.as_str())
            == ("51", "46", "Team A wins (time called)"),
        "the totals are {page_a}, {page_b}, {page_status:?}"
    );
    let bags: Vec<String> = {
        let mut texts = Vec::new();
        for element in browser.find_all(".summary .bags").await? {
            texts.push(browser.text(&element).await?);
        }
        texts
    };
    let in_words = |n: &Value| match n.as_i64() {
        Some(1) => "1 bag".to_string(),
        _ => format!("{n} bags"),
    };
    let api_bags = vec![in_words(&api["a"]["bags"]), in_words(&api["b"]["bags"])];
    ensure!(bags == api_bags, "bags: page {bags:?}, API {api_bags:?}");
    ensure!(bags == ["1 bag", "0 bags"], "bags are {bags:?}");

    // 6. The scoresheet, row by row and cell by cell.
    let rows = browser.find_all("#sheet tbody tr").await?;
    let api_hands = api["hands"].as_array().context("the API lists hands")?;
    ensure!(
        rows.len() == 3 && api_hands.len() == 3,
        "{} rows, {} API hands",
        rows.len(),
        api_hands.len()
    );
    for (i, row) in rows.iter().enumerate() {
        let mut cells = Vec::new();
        for cell in browser.find_all_in(row, "th, td").await? {
            cells.push(browser.text(&cell).await?);
        }
        let from_api = api_sheet_row(&HANDS[i], &api_hands[i])?;
        ensure!(
            cells == from_api,
            "hand {}: page {cells:?}\n API {from_api:?}",
            i + 1
        );
        ensure!(
            cells == EXPECTED_SHEET[i],
            "hand {}: page {cells:?}\n by hand {:?}",
            i + 1,
            EXPECTED_SHEET[i]
        );
    }
    Ok(())
}

/// Shows each of `values` (a score's text, and whether the server marks it `wide`) in every
/// element that `cells` names (triples of a score's selector, the selector of the box it
/// must stay within, and its text with `#` for the value) and says which do not fit: the text cut (wider than the element), out of its box
/// or of the window, or over its team's name. The page's own markup is put back after.
const SCORES_FIT: &str = r#"
const cells = arguments[0], values = arguments[1], out = [];
const w = window.innerWidth;
for (const [css, boxCss, pattern] of cells) {
  for (const el of document.querySelectorAll(css)) {
    const kept = el.innerHTML, keptClass = el.className;
    for (const [v, wide] of values) {
      el.textContent = pattern.split('#').join(v);
      el.className = keptClass.replace(/\bwide\b/g, '').trim() + (wide ? ' wide' : '');
      const r = el.getBoundingClientRect(), box = el.closest(boxCss);
      const b = box ? box.getBoundingClientRect() : null;
      const what = css + ' showing ' + el.textContent;
      if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0) {
        out.push(what + ': cut (' + el.scrollWidth + ' px of text in ' + el.clientWidth + ')');
      }
      if (!b) { out.push(what + ': not inside ' + boxCss); continue; }
      if (r.left < b.left - 1 || r.right > b.right + 1) {
        out.push(what + ': out of its box (' + r.left + '..' + r.right + ' in ' + b.left + '..' + b.right + ')');
      }
      if (r.left < 0 || r.right > w + 1) { out.push(what + ': out of the window'); }
      const name = el.parentElement && el.parentElement.querySelector('.name, .label');
      if (name && name !== el) {
        const n = name.getBoundingClientRect();
        const sameLine = n.bottom > r.top + 1 && n.top < r.bottom - 1;
        if (sameLine && n.right > r.left + 1 && n.left < r.right - 1) {
          out.push(what + ': over the name');
        }
      }
    }
    el.innerHTML = kept;
    el.className = keptClass;
  }
}
return out;
"#;

/// Scores from −999 to 9999, widest first: what a league's games can reach, each with the
/// class `wide` where the server gives it (`domain::words::points_wide`).
pub const EXTREME_SCORES: &[(&str, bool)] = &[
    ("\u{2212}999", true),
    ("9999", true),
    ("\u{2212}10", true),
    ("999", false),
    ("\u{2212}9", false),
    ("0", false),
];

/// Fails, listing each, when a score of [`EXTREME_SCORES`] does not fit (see [`SCORES_FIT`]).
pub async fn ensure_scores_fit(
    browser: &Browser,
    what: &str,
    cells: &[(&str, &str, &str)],
) -> anyhow::Result<()> {
    let problems = browser
        .execute(SCORES_FIT, json!([cells, EXTREME_SCORES]))
        .await?;
    let problems: Vec<String> = serde_json::from_value(problems)?;
    ensure!(problems.is_empty(), "{what}:\n{}", problems.join("\n"));
    Ok(())
}
