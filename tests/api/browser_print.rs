//! The printed bracket report keeps every name whole and fills the sheet: brackets of 6, 16,
//! 32 and 64 teams with long names (and a 16-team double elimination), printed to PDF by
//! Chromium (WebDriver's print, landscape Letter, 8 mm margins, as the page's `@page` asks).
//!
//! - Every team name is in the PDF's text in full: `pdftotext -raw` (poppler-utils), its
//!   whitespace folded to single spaces, contains each name (a name that wraps inside its box
//!   still reads whole; a cut one, "Late Night Ren…", does not).
//! - The drawing uses at least 70% of the printable width: laid out for print (print media
//!   emulated, the window as wide as the printable width, 994 CSS px = 263 mm), the boxes span
//!   from the leftmost box's left edge to the rightmost box's right edge.
//! - The whole report is one page.

use std::process::Command;
use std::time::Duration;

use anyhow::{Context, ensure};
use serde_json::{Value, json};
use spades_im::service::Role;

use crate::browser::evidence;
use crate::helpers::{Api, TestApp, json_with_status, spawn_app};
use crate::webdriver::{Browser, binaries_or_skip};

const TEST: &str = "browser_print::printed_brackets_keep_every_name_and_fill_the_sheet";
const WAIT: Duration = Duration::from_secs(30);
const WHOLE_TEST: Duration = Duration::from_secs(240);
/// Landscape Letter less 8 mm margins, in CSS px (96 per inch).
const PRINTABLE_WIDTH: f64 = 994.0;

/// 64 names of 17 to 24 characters, as long as real IM team names get.
fn names(n: usize) -> Vec<String> {
    const FIRST: [&str; 8] = [
        "Late Night",
        "Trump Tower",
        "Midnight Spade",
        "Blind Nil",
        "Bag Limit",
        "Big Joker",
        "Ten For Two",
        "Reneging",
    ];
    const SECOND: [&str; 8] = [
        "Renegades",
        "Hustlers",
        "Syndicate",
        "Collective",
        "Associates",
        "Brigade",
        "Dynasty",
        "Irregulars",
    ];
    (0..n)
        .map(|i| format!("{} {}", FIRST[i % 8], SECOND[(i / 8 + i) % 8]))
        .collect()
}

/// A league `slug` with `teams` long-named teams and its playoffs drawn (`format`).
async fn bracket_of(admin: &Api, slug: &str, teams: usize, format: &str) -> Vec<String> {
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": format!("Spring {slug}"), "slug": slug, "rules": {
                "regular": "partnership",
                "playoff": {"preset": "unc-im-300", "target": 100},
                "final": {"preset": "unc-im-300", "target": 100}}}),
        )
        .await;
    json_with_status(r, 201, "the league").await;
    let names = names(teams);
    for (i, name) in names.iter().enumerate() {
        let r = admin
            .post(
                &format!("/api/v1/leagues/{slug}/teams"),
                &json!({"name": name, "players": [format!("P{i}a"), format!("P{i}b")]}),
            )
            .await;
        json_with_status(r, 201, name).await;
    }
    let body: Value = if format == "double_elimination" {
        json!({"format": format, "grand_final": "double"})
    } else {
        json!({"format": format, "third_place": true})
    };
    let r = admin
        .post(&format!("/api/v1/leagues/{slug}/playoffs"), &body)
        .await;
    json_with_status(r, 201, "the playoffs").await;
    names
}

/// The PDF's text as `pdftotext -raw` reads it, whitespace folded to single spaces.
pub(crate) fn pdf_text(pdf: &[u8], slug: &str) -> anyhow::Result<String> {
    let dir = tempfile::tempdir()?;
    let file = dir.path().join(format!("{slug}.pdf"));
    std::fs::write(&file, pdf)?;
    let out = Command::new("pdftotext")
        .arg("-raw")
        .arg(&file)
        .arg("-")
        .output()
        .context("run pdftotext (apt-get install poppler-utils)")?;
    ensure!(out.status.success(), "pdftotext failed: {out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text.split_whitespace().collect::<Vec<_>>().join(" "))
}

async fn check(
    browser: &Browser,
    app: &TestApp,
    slug: &str,
    names: &[String],
) -> anyhow::Result<()> {
    browser
        .goto(&app.url(&format!("/leagues/{slug}/bracket/print")))
        .await?;
    browser.wait_for("#bracket", WAIT).await?;
    let pdf = browser
        .print_pdf(json!({"orientation": "landscape", "background": true}))
        .await?;
    let pages = crate::browser_bracket::pdf_pages(&pdf);
    if pages != 1 || std::env::var_os("SPADES_KEEP_PDF").is_some() {
        let path =
            std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("print-{slug}.pdf"));
        let _ = std::fs::write(&path, &pdf);
        ensure!(
            pages == 1,
            "{slug}: {pages} pages, not 1 ({})",
            path.display()
        );
    }
    let text = pdf_text(&pdf, slug)?;
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !text.contains(n.as_str()))
        .collect();
    ensure!(
        missing.is_empty(),
        "{slug}: names not whole in the PDF: {missing:?}\nthe PDF's text: {text}"
    );

    browser.set_window_size(PRINTABLE_WIDTH as u32, 800).await?;
    browser.emulate_print(true).await?;
    let span = browser
        .execute(
            "const boxes = [...document.querySelectorAll('.mbox')].map(e => e.getBoundingClientRect());
             return Math.max(...boxes.map(b => b.right)) - Math.min(...boxes.map(b => b.left));",
            json!([]),
        )
        .await?
        .as_f64()
        .context("a width")?;
    let inner = browser
        .execute("return document.documentElement.clientWidth;", json!([]))
        .await?
        .as_f64()
        .context("the page width")?;
    browser.emulate_print(false).await?;
    let used = span / inner;
    eprintln!(
        "{slug}: {} names whole in the PDF; the drawing spans {span:.0} of {inner:.0} px ({:.0}%)",
        names.len(),
        used * 100.0
    );
    ensure!(
        used >= 0.70,
        "{slug}: the drawing uses {:.0}% of the printable width",
        used * 100.0
    );
    Ok(())
}

#[actix_web::test]
async fn printed_brackets_keep_every_name_and_fill_the_sheet() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let mut leagues = Vec::new();
    for (slug, teams, format) in [
        ("p6", 6, "single_elimination"),
        ("p16", 16, "single_elimination"),
        ("p32", 32, "single_elimination"),
        ("p64", 64, "single_elimination"),
        ("d16", 16, "double_elimination"),
    ] {
        leagues.push((slug, bracket_of(&admin, slug, teams, format).await));
    }
    let Some((driver, chrome)) = binaries_or_skip(TEST) else {
        return;
    };
    if Command::new("pdftotext").arg("-v").output().is_err() {
        // Outside CI only: in CI `skip` fails the test.
        crate::webdriver::skip(TEST, "no pdftotext: apt-get install poppler-utils");
        return;
    }
    let browser = Browser::start(&driver, &chrome)
        .await
        .expect("chromium starts");
    let outcome = actix_web::rt::time::timeout(WHOLE_TEST, async {
        for (slug, names) in &leagues {
            check(&browser, &app, slug, names).await?;
        }
        anyhow::Ok(())
    })
    .await;
    let failure = match outcome {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(format!("{e:#}")),
        Err(_) => Some(format!("the print test took over {WHOLE_TEST:?}")),
    };
    if let Some(failure) = failure {
        let saved = evidence(&browser, "print").await;
        let _ = browser.quit().await;
        panic!("{failure}\n{saved}");
    }
    browser.quit().await.expect("the browser quits");
}
