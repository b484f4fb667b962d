//! The room around the table, in headless Chromium: the TV scoreboard with 24 tables on a
//! 1920×1080 screen (each table named once, "Table 1", in counting order; team names at least
//! 28 px and never broken inside a word; the table and clock lines at least 24 px; every
//! latest result shown by the strip's pages; nothing to press; the leader's score the only
//! colour, a tie said in words; a game that ends shown as final in its cell for a minute,
//! then in the results), and the public pages on a 390×844 phone (the phone's
//! scoreboard in counting order too, a match's hands as cards with both teams, a team's
//! matches as cards each with a link, its dates on one line, the standings' main columns
//! without a sideways swipe, times in one format).

use std::time::Duration;

use anyhow::{Context, bail, ensure};
use serde_json::{Value, json};
use spades_im::service::Role;

use crate::browser::with_browser;
use crate::helpers::{Api, TestApp, hand_of, json_with_status, manual_clock, spawn_app_with_clock};
use crate::webdriver::Browser;

const WAIT: Duration = Duration::from_secs(30);
const WHOLE_TEST: Duration = Duration::from_secs(240);

/// Team names as leagues have them: one word long enough to be broken ("Whisperers"), and
/// names of several words.
const NAMES: [&str; 6] = [
    "Whisperers",
    "Nil Rebels",
    "Book Club",
    "Trump Cards",
    "Blind Ambition",
    "Late Bloomers",
];

/// The tables of the night, created in this order (not the counting order).
fn table_order() -> Vec<usize> {
    (0..24).map(|i| (i * 7) % 24 + 1).collect()
}

struct Night {
    app: TestApp,
    admin: Api,
    /// The service's clock, standing still unless a test moves it.
    time: std::sync::Arc<spades_im::domain::ManualTime>,
    /// The matches in play, by table number (1–24).
    by_table: Vec<(usize, i64)>,
    /// The table whose score is tied (121–121 after two hands).
    tied: usize,
    /// A match played to the end, and one of its teams.
    done: i64,
    team: i64,
}

async fn add_team(admin: &Api, name: &str) -> i64 {
    let r = admin
        .post(
            "/api/v1/leagues/fall/teams",
            &json!({"name": name, "players": [format!("{name} A"), format!("{name} B")]}),
        )
        .await;
    json_with_status(r, 201, "a team").await["id"]
        .as_i64()
        .expect("team id")
}

/// League `fall` (unc-im-300, rating sportsmanship) on a manual clock at 19:20 UTC, its zone
/// New York: 24 matches in play at tables "Table 1" to "Table 24" (created out of order), each
/// with hands (table 5 tied), and 7 matches played to the end that night, over a minute ago
/// (gone from the board to the strip of results).
async fn night() -> Night {
    let (clock, time) = manual_clock("2026-11-24T00:20:00Z", chrono_tz::America::New_York);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Fall League", "slug": "fall", "rules": {"regular": "unc-im-300"}}),
        )
        .await;
    json_with_status(r, 201, "the league").await;
    let r = admin
        .client
        .patch(app.url("/api/v1/leagues/fall"))
        .bearer_auth(&admin.token)
        .json(&json!({"settings": {"sportsmanship": {"min": 1, "max": 5, "required": false}}}))
        .send()
        .await
        .expect("patch");
    json_with_status(r, 200, "the league rates sportsmanship").await;
    let mut teams = Vec::new();
    for i in 0..62 {
        let name = format!("{} {}", NAMES[i % NAMES.len()], i / NAMES.len() + 1);
        teams.push(add_team(&admin, &name).await);
    }
    let tied = 5;
    let mut by_table = Vec::new();
    for (i, table) in table_order().into_iter().enumerate() {
        let m = admin
            .add_match(
                "fall",
                teams[2 * i],
                teams[2 * i + 1],
                &format!("Table {table}"),
            )
            .await;
        let id = m["id"].as_i64().expect("match id");
        // a 61–60, then (on the tied table) 60–61: 121 all.
        let mut hands = vec![hand_of([3, 3], [3, 4], [3, 3], [3, 3])];
        if table == tied {
            hands.push(hand_of([3, 3], [3, 3], [3, 3], [3, 4]));
        } else if table % 2 == 0 {
            hands.push(hand_of([2, 2], [2, 2], [4, 5], [4, 5]));
        }
        admin.play_hands(id, &hands).await;
        by_table.push((table, id));
    }
    by_table.sort();
    // Seven finished matches: more results than the strip shows at once.
    let big = big_hand();
    let mut done = 0;
    for i in 0..7 {
        let (a, b) = (teams[48 + 2 * i], teams[49 + 2 * i]);
        let m = admin
            .add_match("fall", a, b, &format!("Table {}", 25 + i))
            .await;
        let id = m["id"].as_i64().expect("match id");
        let m = admin
            .play_hands(id, &[big.clone(), big.clone(), big.clone()])
            .await;
        assert_eq!(m["status"], "complete", "{m}");
        done = id;
    }
    time.advance(chrono::Duration::minutes(2));
    Night {
        app,
        admin,
        time,
        by_table,
        tied,
        done,
        team: teams[48 + 12],
    }
}

/// Team a bids 12 and takes 12: 120 points a hand.
fn big_hand() -> Value {
    hand_of([6, 6], [6, 6], [2, 2], [1, 0])
}

/// Sizes the window so that the page's viewport is `width`×`height` (the window's frame
/// added, read once the window has its new size).
pub(crate) async fn viewport(browser: &Browser, width: u32, height: u32) -> anyhow::Result<()> {
    let want = [i64::from(width), i64::from(height)];
    let mut window = want;
    for _ in 0..5 {
        let [w, h] = window.map(|x| u32::try_from(x).unwrap_or(width));
        browser.set_window_size(w, h).await?;
        actix_web::rt::time::sleep(Duration::from_millis(300)).await;
        let inner = browser
            .execute("return [window.innerWidth, window.innerHeight];", json!([]))
            .await?;
        let got = [0, 1].map(|i| inner[i].as_i64().unwrap_or(0));
        if got == want {
            return Ok(());
        }
        window = [0, 1].map(|i| window[i] + want[i] - got[i]);
    }
    bail!("could not size the viewport to {width}×{height}")
}

/// Everything the TV test measures, in one reading of the page.
const TV_FIGURES: &str = r#"
const px = el => parseFloat(getComputedStyle(el).fontSize);
const cards = [...document.querySelectorAll('.tv-table')];
// A word is broken when its letters sit on more than one line.
const broken = [];
for (const name of document.querySelectorAll('.tv-side .name')) {
  const text = name.firstChild;
  if (!text) continue;
  let at = 0;
  for (const word of text.textContent.split(' ')) {
    const range = document.createRange();
    range.setStart(text, at); range.setEnd(text, at + word.length);
    const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
    if (lines.size > 1) broken.push(word + ' in ' + text.textContent);
    at += word.length + 1;
  }
  if (name.scrollWidth > name.clientWidth + 1) broken.push('cut: ' + text.textContent);
  const card = name.closest('.tv-table').getBoundingClientRect(), r = name.getBoundingClientRect();
  if (r.bottom > card.bottom || r.right > card.right) broken.push('outside its card: ' + text.textContent);
}
const yellow = el => getComputedStyle(el).color === 'rgb(255, 210, 74)';
return {
  tables: cards.map(c => c.querySelector('.tv-where .table').textContent),
  names: Math.min(...[...document.querySelectorAll('.tv-side .name')].map(px)),
  clock: Math.min(...[...document.querySelectorAll('.tv-clock')].map(px)),
  where: Math.min(...[...document.querySelectorAll('.tv-where')].map(px)),
  broken,
  buttons: document.querySelectorAll('button, input, select, [role=button]').length,
  // Per card: [a yellow, b yellow, a > b, b > a, "Tied" shown].
  colours: cards.map(c => {
    const [a, b] = [...c.querySelectorAll('.tv-side .score')];
    const [x, y] = [Number(a.textContent), Number(b.textContent)];
    const box = c.getBoundingClientRect();
    for (const s of [a, b]) { const r = s.getBoundingClientRect();
      if (r.right > box.right || r.bottom > box.bottom) broken.push('a score outside its card: ' + s.id); }
    return [yellow(a), yellow(b), x > y, y > x, !!c.querySelector('.tie')];
  }),
  scroll: document.scrollingElement.scrollHeight - window.innerHeight,
};
"#;

/// The strip's state: its pages, the page shown, and the shown items that do not fit it.
const STRIP: &str = r#"
const strip = document.getElementById('latest');
const list = strip.querySelector('ul').getBoundingClientRect();
const items = [...strip.querySelectorAll('li')];
return {
  pages: Number(strip.getAttribute('data-pages')),
  showing: strip.getAttribute('data-showing'),
  of: items.map(li => li.getAttribute('data-page')),
  shown: items.filter(li => li.checkVisibility()).map(li => li.id),
  outside: items.filter(li => li.checkVisibility()).filter(li => {
    const r = li.getBoundingClientRect();
    return r.left < list.left - 1 || r.right > list.right + 1 || r.top < list.top - 1 || r.bottom > list.bottom + 1;
  }).map(li => li.id),
};
"#;

const TV_TEST: &str = "browser_table::the_tv_shows_24_tables_readably_and_every_result";

#[actix_web::test]
async fn the_tv_shows_24_tables_readably_and_every_result() {
    let n = night().await;
    // The API's scoreboard in counting order too.
    let board: Value = n
        .app
        .get("/api/v1/scoreboard")
        .await
        .json()
        .await
        .expect("json");
    let tables: Vec<String> = board["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .map(|m| m["table"].as_str().unwrap_or_default().to_string())
        .collect();
    let counted: Vec<String> = (1..=24).map(|t| format!("Table {t}")).collect();
    assert_eq!(tables, counted, "the API's order");
    with_browser(TV_TEST, "table-tv", WHOLE_TEST, async |browser| {
        browser.goto(&n.app.url("/scoreboard?tv=1")).await?;
        browser.wait_for(".tv-grid", WAIT).await?;
        viewport(browser, 1920, 1080).await?;
        let tv = browser.execute(TV_FIGURES, json!([])).await?;
        eprintln!("TV with 24 tables: {tv}");
        browser
            .screenshot(&std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("table-tv-24.png"))
            .await?;
        ensure!(
            tv["tables"] == json!(counted),
            "each table once, counted: {tv}"
        );
        ensure!(
            tv["names"].as_f64().context("names")? >= 28.0,
            "names of 28 px: {tv}"
        );
        ensure!(
            tv["clock"].as_f64().context("clock")? >= 24.0,
            "a 24 px clock: {tv}"
        );
        ensure!(
            tv["where"].as_f64().context("where")? >= 24.0,
            "24 px tables: {tv}"
        );
        ensure!(tv["broken"] == json!([]), "no name broken in a word: {tv}");
        ensure!(tv["buttons"] == 0, "nothing to press: {tv}");
        ensure!(
            tv["scroll"].as_f64().context("scroll")? <= 0.0,
            "no scrolling: {tv}"
        );
        let colours = tv["colours"].as_array().context("colours")?;
        for (i, c) in colours.iter().enumerate() {
            let table = i + 1;
            ensure!(
                c[0] == c[2] && c[1] == c[3],
                "table {table}: only the leader's score is yellow: {c}"
            );
            ensure!(
                (c[4] == true) == (table == n.tied),
                "table {table}: a tie, and only a tie, is said: {c}"
            );
        }
        let tie = browser.text_of(".tv-table:nth-child(5) .tie").await?;
        ensure!(tie == "Tied", "the tie in words: {tie}");

        // The strip of latest results: every one of the 6 shown, page by page, each page
        // inside the strip.
        let strip = browser.execute(STRIP, json!([])).await?;
        eprintln!("the strip: {strip}");
        let pages = strip["pages"].as_u64().context("pages")?;
        ensure!(
            pages >= 2,
            "6 results do not fit one line at 1920 px: {strip}"
        );
        let mut seen = std::collections::BTreeSet::new();
        for page in 0..pages {
            let deadline = std::time::Instant::now() + WAIT;
            let shown = loop {
                let s = browser.execute(STRIP, json!([])).await?;
                if s["showing"].as_str() == Some(page.to_string().as_str()) {
                    break s;
                }
                ensure!(
                    std::time::Instant::now() < deadline,
                    "page {page} never shown: {s}"
                );
                actix_web::rt::time::sleep(Duration::from_millis(250)).await;
            };
            ensure!(
                shown["outside"] == json!([]),
                "page {page} fits the strip: {shown}"
            );
            for id in shown["shown"].as_array().into_iter().flatten() {
                seen.insert(id.as_str().unwrap_or_default().to_string());
            }
        }
        ensure!(seen.len() == 6, "every latest result was shown: {seen:?}");
        let found = browser.axe_violations().await?;
        ensure!(found.is_empty(), "axe on the TV: {found:#?}");
        finished_stays_a_minute(browser, &n).await?;

        // The phone's scoreboard: the same order, each table named once (table 3's game
        // is over).
        viewport(browser, 390, 844).await?;
        browser.goto(&n.app.url("/scoreboard")).await?;
        browser.wait_for("#board", WAIT).await?;
        let shown = browser
            .execute(
                "return [...document.querySelectorAll('#board .table')].map(t => t.textContent);",
                json!([]),
            )
            .await?;
        let in_play: Vec<&String> = counted.iter().filter(|t| *t != "Table 3").collect();
        ensure!(shown == json!(in_play), "the phone's scoreboard: {shown}");
        Ok(())
    })
    .await;
}

/// Table 3's game ends: the TV shows it as final in its cell (the third) without a reload;
/// a minute later it leaves the grid for the strip of results.
async fn finished_stays_a_minute(browser: &Browser, n: &Night) -> anyhow::Result<()> {
    let (table, id) = n.by_table[2];
    ensure!(table == 3, "table 3 is the third: {:?}", n.by_table);
    let mut m: Value = n
        .app
        .get(&format!("/api/v1/matches/{id}"))
        .await
        .json()
        .await?;
    while m["status"] == "in_progress" {
        m = n.admin.enter_hand(&m, &big_hand()).await;
    }
    ensure!(m["status"] == "complete", "table 3's game is over: {m}");
    let card = format!("document.getElementById('board-{id}')");
    wait_for_script(
        browser,
        &format!(
            "const c = {card}; return !!c && [...document.querySelectorAll('.tv-table')].indexOf(c) === 2 \
             && c.querySelector('.final')?.textContent === 'Final' && c.classList.contains('finished')"
        ),
        "table 3 shown as final in its place",
    )
    .await?;
    let shown = browser.text_of(&format!("#board-{id} .tv-clock")).await?;
    ensure!(
        shown.starts_with("Final"),
        "the clock line says final: {shown}"
    );
    // A minute, and the page cache's copy (at most 5 s old).
    n.time.advance(chrono::Duration::seconds(66));
    wait_for_script(
        browser,
        &format!("return !{card} && !!document.getElementById('latest-{id}')"),
        "table 3 gone from the grid to the results, a minute on",
    )
    .await
}

/// Polls `script` (returns true when done) for [`WAIT`] (the TV polls every 5 s).
async fn wait_for_script(browser: &Browser, script: &str, what: &str) -> anyhow::Result<()> {
    let until = std::time::Instant::now() + WAIT;
    while browser.execute(script, json!([])).await? != Value::Bool(true) {
        ensure!(
            std::time::Instant::now() < until,
            "waited {WAIT:?} for {what}"
        );
        actix_web::rt::time::sleep(Duration::from_millis(250)).await;
    }
    Ok(())
}

/// What does not fit a phone on the page: a sideways scroll of the page or of `scroller`.
const FITS: &str = r#"
const out = [];
const w = window.innerWidth;
if (document.documentElement.scrollWidth > w) out.push('the page: ' + document.documentElement.scrollWidth + ' > ' + w);
for (const el of document.querySelectorAll(arguments[0])) {
  if (el.checkVisibility() && el.scrollWidth > el.clientWidth + 1)
    out.push((el.id || el.className) + ': ' + el.scrollWidth + ' > ' + el.clientWidth);
}
return out;
"#;

/// Each element matching `css` shown and inside the screen's width; what is not.
const INSIDE: &str = r#"
const w = window.innerWidth;
return [...document.querySelectorAll(arguments[0])].filter(el => {
  const r = el.getBoundingClientRect();
  return !el.checkVisibility() || r.width === 0 || r.left < 0 || r.right > w + 0.5;
}).map(el => el.outerHTML.slice(0, 80));
"#;

async fn ensure_fits(browser: &Browser, scrollers: &str, what: &str) -> anyhow::Result<()> {
    let problems = browser.execute(FITS, json!([scrollers])).await?;
    ensure!(problems == json!([]), "{what} on a phone: {problems}");
    Ok(())
}

async fn ensure_inside(browser: &Browser, css: &str, what: &str) -> anyhow::Result<()> {
    let outside = browser.execute(INSIDE, json!([css])).await?;
    ensure!(
        outside == json!([]),
        "{what}: not shown within the phone: {outside}"
    );
    Ok(())
}

/// "Tue 24 Nov 2026, 19:05" (the schedule's format), or an "HH:MM" alone.
fn one_format(text: &str) -> bool {
    let time = |t: &str| {
        t.len() == 5
            && t.as_bytes()[2] == b':'
            && t.chars().filter(char::is_ascii_digit).count() == 4
    };
    match text.rsplit_once(", ") {
        Some((day, t)) => time(t) && day.split(' ').count() == 4,
        None => time(text),
    }
}

const PHONE_TEST: &str = "browser_table::public_pages_fit_a_phone";

#[actix_web::test]
async fn public_pages_fit_a_phone() {
    let n = night().await;
    let live = n.by_table[0].1;
    with_browser(PHONE_TEST, "table-phone", WHOLE_TEST, async |browser| {
        browser.goto(&n.app.url("/")).await?;
        viewport(browser, 390, 844).await?;

        // A match's hands: cards, both teams side by side, the points in words; the table hidden.
        browser
            .goto(&n.app.url(&format!("/matches/{}", n.done)))
            .await?;
        browser.wait_for("#scoresheet-cards", WAIT).await?;
        ensure_fits(browser, "main .scroll", "the match page").await?;
        let table_shown = browser
            .execute(
                "return document.getElementById('scoresheet').checkVisibility();",
                json!([]),
            )
            .await?;
        ensure!(table_shown == false, "the 20-column table is folded away");
        ensure_inside(
            browser,
            "#scoresheet-cards .card-sheet th.team-a, #scoresheet-cards .card-sheet th.team-b",
            "both teams",
        )
        .await?;
        let points = browser.text_of("#card-1 .breakdown").await?;
        ensure!(
            points.starts_with("+120: made 12 (10-for-120) +120"),
            "the points in words: {points}"
        );
        let found = browser.axe_violations().await?;
        ensure!(found.is_empty(), "axe on the match page: {found:#?}");

        // Times: one format, in the league's zone (New York: 00:20 UTC is 19:20 the evening
        // before), never "AM"/"PM" nor "UTC".
        browser
            .goto(&n.app.url(&format!("/matches/{live}")))
            .await?;
        browser.wait_for("#started-at", WAIT).await?;
        let started = browser.text_of("#started-at").await?;
        ensure!(started == "Mon 23 Nov 2026, 19:20", "the start: {started}");
        browser.goto(&n.app.url("/scoreboard")).await?;
        browser.wait_for("#board", WAIT).await?;
        let times = browser
            .execute(
                "return [...document.querySelectorAll('main time')].map(t => t.textContent);",
                json!([]),
            )
            .await?;
        for t in times.as_array().into_iter().flatten() {
            let t = t.as_str().unwrap_or_default();
            ensure!(
                one_format(t),
                "the scoreboard's time {t:?} in the one format: {times}"
            );
        }

        // A team's matches: cards, each a link to its match, the date on one line.
        browser
            .goto(&n.app.url(&format!("/leagues/fall/teams/{}", n.team)))
            .await?;
        browser.wait_for("#team-match-cards", WAIT).await?;
        ensure_fits(browser, "#team-match-cards", "the team page").await?;
        let links = browser
            .execute(
                "return [...document.querySelectorAll('#team-match-cards .when a')].map(a => {
                   const r = a.getBoundingClientRect();
                   return {href: a.getAttribute('href'), text: a.textContent,
                           lines: new Set([...a.getClientRects()].map(x => Math.round(x.top))).size,
                           right: r.right}; });",
                json!([]),
            )
            .await?;
        let links = links.as_array().context("links")?;
        ensure!(!links.is_empty(), "the team's matches as cards");
        for l in links {
            ensure!(
                l["href"]
                    .as_str()
                    .is_some_and(|h| h.starts_with("/matches/"))
                    && l["text"] != "—"
                    && l["lines"] == 1
                    && l["right"].as_f64().unwrap_or(f64::MAX) <= 390.0,
                "a link to the match, on one line: {l}"
            );
        }
        ensure!(
            browser
                .execute(
                    "return document.getElementById('team-matches').checkVisibility();",
                    json!([])
                )
                .await?
                == false,
            "the table is folded away"
        );
        let found = browser.axe_violations().await?;
        ensure!(found.is_empty(), "axe on the team page: {found:#?}");

        // The standings: rank, team, won, lost, differential and sportsmanship in the screen.
        browser.goto(&n.app.url("/leagues/fall/standings")).await?;
        browser.wait_for("#standings", WAIT).await?;
        ensure_fits(browser, "main .scroll", "the standings").await?;
        ensure_inside(
            browser,
            "#standings thead :is(.c-rank, .c-team, .c-won, .c-lost, .c-diff, .c-sportsmanship)",
            "the standings' columns",
        )
        .await?;
        let found = browser.axe_violations().await?;
        ensure!(found.is_empty(), "axe on the standings: {found:#?}");
        Ok(())
    })
    .await;
}
