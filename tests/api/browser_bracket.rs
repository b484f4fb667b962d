//! The bracket page in headless Chromium: a 16-team bracket with a match played shows the
//! teams in their boxes and the score, its box links to the match page; on a 375 px phone
//! the bracket scrolls inside its own box while the page does not; once every match is
//! decided the champion banner shows. The printable report prints (WebDriver's print, in
//! landscape) on exactly one page for 16 teams, for 64, and for a 32-team double
//! elimination.

use std::time::Duration;

use anyhow::{Context, ensure};
use serde_json::{Value, json};
use spades_im::service::Role;

use crate::bracket_page::{bracket, first_scheduled, league, play_a_wins, playoffs};
use crate::browser::with_browser;
use crate::helpers::{Api, TestApp, spawn_app};
use crate::webdriver::Browser;

const WAIT: Duration = Duration::from_secs(30);
const WHOLE_TEST: Duration = Duration::from_secs(240);

/// The pages of a PDF: its `/Type /Page` objects (not `/Pages`), spaces optional, as
/// Chromium (Skia) writes them uncompressed.
pub fn pdf_pages(pdf: &[u8]) -> usize {
    let mut count = 0;
    let mut i = 0;
    while let Some(at) = find(&pdf[i..], b"/Type") {
        let mut j = i + at + b"/Type".len();
        while pdf.get(j).is_some_and(|c| c.is_ascii_whitespace()) {
            j += 1;
        }
        if pdf[j..].starts_with(b"/Page") && !pdf[j..].starts_with(b"/Pages") {
            count += 1;
        }
        i = j;
    }
    count
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[test]
fn pdf_pages_counts_page_objects_only() {
    let pdf = b"<< /Type /Pages /Count 2 >> << /Type /Page >> <</Type/Page/Parent 1 0 R>>";
    assert_eq!(pdf_pages(pdf), 2);
}

/// Saves a screenshot of what the browser shows under `target/tmp` (evidence for a reader).
async fn keep_screenshot(browser: &Browser, name: &str) -> anyhow::Result<()> {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.png"));
    browser.screenshot(&path).await?;
    eprintln!("screenshot: {}", path.display());
    Ok(())
}

/// Decides every remaining match of the bracket: team B of each forfeits.
async fn finish_by_forfeits(app: &TestApp, admin: &Api, slug: &str) -> Value {
    loop {
        let b = bracket(app, slug).await;
        let Some(m) = first_scheduled(&b) else {
            return b;
        };
        let id = m["match_id"].as_i64().expect("match id");
        let r = admin
            .post(
                &format!("/api/v1/matches/{id}/forfeit"),
                &json!({"team": "b"}),
            )
            .await;
        assert_eq!(r.status(), 200, "forfeit {id}");
    }
}

/// This test's name, for [`binaries_or_skip`].
const BRACKET_TEST: &str = "browser_bracket::the_bracket_page_in_a_browser";

#[actix_web::test]
async fn the_bracket_page_in_a_browser() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    league(&admin, "b16", 16).await;
    let created = playoffs(&admin, "b16", json!({"format": "single_elimination"})).await;
    // One match played with hands (scores), and the next one forfeited.
    let first = first_scheduled(&created).expect("a first-round match");
    let played_id = first["match_id"].as_i64().expect("match id");
    let played = play_a_wins(&admin, played_id).await;
    let number = first["id"].as_i64().expect("bracket id") + 1;
    let next = first_scheduled(&bracket(&app, "b16").await).expect("another match");
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/forfeit", next["match_id"]),
            &json!({"team": "b"}),
        )
        .await;
    assert_eq!(r.status(), 200);

    // The 64-team bracket for the print check (nothing played).
    league(&admin, "b64", 64).await;
    playoffs(
        &admin,
        "b64",
        json!({"format": "single_elimination", "third_place": true}),
    )
    .await;

    // And a 32-team double elimination: its losers' bracket goes under the winners'.
    league(&admin, "d32", 32).await;
    playoffs(&admin, "d32", json!({"format": "double_elimination"})).await;

    with_browser(BRACKET_TEST, "bracket", WHOLE_TEST, async |browser| {
        let url = app.url("/leagues/b16/bracket");
        browser.goto(&url).await?;
        browser.wait_for("#bracket", WAIT).await?;

        // Every first-round box holds the teams the JSON says, with their seeds.
        let b = bracket(&app, "b16").await;
        for m in b["matches"].as_array().context("matches")? {
            if m["round"] != 1 || m["bracket"] != "winners" {
                continue;
            }
            let text = browser
                .text_of(&format!("#box-M{}", m["id"].as_i64().context("id")? + 1))
                .await?;
            for (team, seed) in [("team_a", "seed_a"), ("team_b", "seed_b")] {
                let name = m[team]["name"].as_str().context("a first-round team")?;
                ensure!(text.contains(name), "box of match {}: {text}", m["id"]);
                ensure!(
                    text.contains(&m[seed].to_string()),
                    "the seed in {text}"
                );
            }
        }
        // The played match: its score, its winner marked.
        let css = format!("#box-M{number}");
        let text = browser.text_of(&css).await?;
        let (a, bs) = (played["a"]["score"].to_string(), played["b"]["score"].to_string());
        ensure!(text.contains(&a) && text.contains(&bs), "scores in {text}");
        let winner = browser.text_of(&format!("{css} .side.winner .name")).await?;
        ensure!(
            winner == played["team_a"]["name"].as_str().unwrap_or_default(),
            "the winner marked: {winner}"
        );
        ensure!(
            browser.text_of(&format!("{css} .side.winner .mark")).await?.contains('✓'),
            "a check mark, not colour alone"
        );
        // A later box waits for a winner.
        let source = browser.source().await?;
        ensure!(source.contains("Winner of M"), "a waiting slot");
        ensure!(!browser.exists("#champion").await?, "no champion yet");
        keep_screenshot(browser, "browser-bracket-desktop").await?;

        // Its box links to the match page.
        let link = browser.find(&css).await?;
        browser.click_and_wait_for_page(&link, WAIT).await?;
        let at = browser.current_url().await?;
        ensure!(
            at.ends_with(&format!("/matches/{played_id}")),
            "the box opened {at}"
        );

        // A phone: the bracket scrolls inside its box, the page does not.
        browser.set_window_size(390, 844).await?;
        browser.goto(&url).await?;
        browser.wait_for("#bracket", WAIT).await?;
        let sizes = browser
            .execute(
                "const s = document.getElementById('bracket-scroll');
                 const d = document.documentElement;
                 return {inner: window.innerWidth, scroll: s.scrollWidth, client: s.clientWidth,
                         page: d.scrollWidth, view: d.clientWidth, body: document.body.scrollWidth};",
                json!([]),
            )
            .await?;
        let n = |k: &str| sizes[k].as_i64().unwrap_or(0);
        ensure!(n("inner") <= 400, "the window is phone-sized: {sizes}");
        ensure!(n("scroll") > n("client"), "the bracket scrolls: {sizes}");
        ensure!(
            n("page") <= n("view") && n("body") <= n("view"),
            "the page does not overflow: {sizes}"
        );
        keep_screenshot(browser, "browser-bracket-phone").await?;
        // Scrolled to its end, the last column (the final; the grand final of a double
        // elimination) shows whole: nothing reaches past the scroller's edge.
        for slug in ["d32", "b16"] {
            browser.goto(&app.url(&format!("/leagues/{slug}/bracket"))).await?;
            browser.wait_for("#bracket", WAIT).await?;
            let end = browser
                .execute(
                    "const s = document.getElementById('bracket-scroll');
                     s.scrollLeft = s.scrollWidth; s.scrollIntoView();
                     const box = s.getBoundingClientRect();
                     const right = Math.max(...[...s.querySelectorAll('.round, .slot, li')]
                       .map((e) => e.getBoundingClientRect().right));
                     return {right: right, box_right: box.right};",
                    json!([]),
                )
                .await?;
            let f = |k: &str| end[k].as_f64().unwrap_or(f64::NAN);
            ensure!(
                f("right") <= f("box_right") + 1.0,
                "{slug}: the last column shows whole at the end of the scroll: {end}"
            );
        }
        keep_screenshot(browser, "browser-bracket-phone-final").await?;
        browser.set_window_size(1280, 1024).await?;

        // Every match decided: the champion banner.
        let done = finish_by_forfeits(&app, &admin, "b16").await;
        let champion = done["champion"]["name"].as_str().context("a champion")?;
        browser.goto(&url).await?;
        let banner = browser.wait_for("#champion", WAIT).await?;
        let banner = browser.text(&banner).await?;
        ensure!(banner.contains(champion), "the banner: {banner}");

        // The double elimination on screen (evidence of its losers' columns).
        browser.goto(&app.url("/leagues/d32/bracket")).await?;
        browser.wait_for("#section-losers", WAIT).await?;
        browser
            .execute(
                "document.getElementById('section-losers').scrollIntoView();",
                json!([]),
            )
            .await?;
        keep_screenshot(browser, "browser-bracket-double-losers").await?;

        // The report prints on one landscape page, for 16 teams and for 64.
        for slug in ["b16", "b64", "d32"] {
            browser
                .goto(&app.url(&format!("/leagues/{slug}/bracket/print")))
                .await?;
            browser.wait_for("#bracket", WAIT).await?;
            // Laid out for print on a landscape Letter sheet less 8 mm margins (263 × 200 mm,
            // 994 × 755 CSS px), the report is no bigger than the sheet.
            browser.set_window_size(994, 800).await?;
            browser.emulate_print(true).await?;
            let size = browser
                .execute(
                    "const boxes = [...document.querySelectorAll('.rounds')]
                         .map(e => e.getBoundingClientRect());
                     return {w: Math.max(...boxes.map(b => b.right)),
                             h: Math.max(...boxes.map(b => b.bottom)) + window.scrollY,
                             inner: window.innerWidth};",
                    json!([]),
                )
                .await?;
            // Evidence: the report as printed.
            keep_screenshot(browser, &format!("browser-bracket-print-{slug}")).await?;
            browser.emulate_print(false).await?;
            eprintln!("{slug}: the printed bracket's extent in CSS px: {size}");
            ensure!(
                size["w"].as_f64().unwrap_or(f64::MAX) <= 994.0
                    && size["h"].as_f64().unwrap_or(f64::MAX) <= 755.0,
                "{slug}: printed size {size}"
            );
            // As asked, and without Chromium shrinking a too-wide page to fit: the report
            // must fit by its own print sizes.
            for options in [
                json!({"orientation": "landscape"}),
                json!({"orientation": "landscape", "shrinkToFit": false}),
            ] {
            let pdf = browser.print_pdf(options.clone()).await?;
            ensure!(pdf.starts_with(b"%PDF"), "a PDF");
            let pages = pdf_pages(&pdf);
            if pages != 1 {
                let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
                    .join(format!("browser-bracket-{slug}.pdf"));
                let _ = std::fs::write(&path, &pdf);
                anyhow::bail!("{slug} {options}: {pages} pages, not 1 ({})", path.display());
            }
            }
        }
        // The count sees more than one page: the 64-team bracket's JSON (the report's own
        // `@page` size would be scaled onto any paper) is several pages of text.
        browser
            .goto(&app.url("/api/v1/leagues/b64/bracket"))
            .await?;
        let pdf = browser.print_pdf(json!({})).await?;
        let pages = pdf_pages(&pdf);
        ensure!(pages > 1, "a multi-page PDF is counted as such: {pages}");
        Ok(())
    })
    .await;
}
