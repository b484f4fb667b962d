//! Hostile and Unicode names end to end, and names that only look different (docs/api.md
//! §1.1, §10.1).
//!
//! A league whose name, teams, players, tables and reasons are CJK, emoji (zero-width-joiner
//! sequences, skin tones, a flag), right to left (Arabic, Hebrew), the longest name allowed
//! (80 characters, some of them beyond ASCII), `<script>`, spreadsheet formulas
//! (`=cmd|' /C calc'!A0`, `@…`, `+…`, `-…`), quotes, commas and semicolons; some are sent
//! with what normalization takes out (an ideographic space, a byte order mark, a zero-width
//! space, full-width digits). Read back through:
//!
//! - the JSON API: each name exactly as stored (normalized);
//! - every public page and the admin pages: 200, each name shown as stored and HTML-escaped,
//!   a name's `<script>` never raw;
//! - the CSV exports (standings, bracket, scoresheet), parsed with the `csv` crate: each name
//!   one whole cell, and a cell that starts like a formula (`=`, `+`, `-`, `@`) neutralized
//!   with a leading `'` (OWASP);
//! - the calendar feeds, parsed with the `icalendar` crate: names, tables and reasons whole;
//! - the printed bracket, printed to PDF by Chromium and read with `pdftotext` (the browser
//!   test below).
//!
//! Then look-alikes: a name with a zero-width space inside, a no-break space for a space, a
//! Cyrillic "а" for a Latin "a", or in capitals is the same team as the original, refused as
//! a duplicate through the API, the admin form, a rename and a roster import; and
//! bidirectional controls are refused, naming the field, wherever text is stored.

use std::collections::BTreeSet;
use std::time::Duration;

use anyhow::ensure;
use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{
    Api, Browser as HttpBrowser, TestApp, csv_rows, hand_of, html_text, json_with_status,
    manual_clock, spawn_app_with_clock,
};
use crate::webdriver::{Browser as WebBrowser, binaries_or_skip};

const SLUG: &str = "hostile";
/// 80 characters (Unicode code points), 87 bytes in UTF-8.
const LONGEST: &str =
    "The Longest Team Name Allowed: Ünïcödé Ωmega Spades of the Rec Center West Wing!";
const CJK: &str = "東京エース 北京之星";
const SCRIPT: &str = "<script>alert(1)</script>";
const FORMULA: &str = "=cmd|' /C calc'!A0";
const QUOTES: &str = "\"quotes\", commas; and semicolons";
const FAMILY: &str = "👨\u{200D}👩\u{200D}👧 Family 👍🏽 🏳\u{FE0F}\u{200D}🌈 🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}";

/// The league's name as sent and as stored.
const LEAGUE: (&str, &str) = (
    "<script>alert('league')</script> 東京\u{00A0}Spades 🂡",
    "<script>alert('league')</script> 東京 Spades 🂡",
);

/// The teams as sent and as stored, with their players (stored as sent).
const TEAMS: [(&str, &str, [&str; 2]); 10] = [
    ("東京エース\u{3000}北京之星", CJK, ["山田 太郎", "李小龍"]),
    (FAMILY, FAMILY, ["Zoë 🙂", "Ana-María"]),
    ("الآس العالي", "الآس العالي", ["محمد", "فاطمة"]),
    ("האסים של תל אביב", "האסים של תל אביב", ["נועה", "דוד"]),
    (LONGEST, LONGEST, ["P5a", "P5b"]),
    (
        SCRIPT,
        SCRIPT,
        ["<img src=x onerror=alert(2)>", "O'Brien & Sons"],
    ),
    (FORMULA, FORMULA, ["=1+1", "@SUM(A1)"]),
    (QUOTES, QUOTES, ["\"Q\"", "a;b,c"]),
    ("\u{FEFF}@everyone\u{200B}", "@everyone", ["P9a", "P9b"]),
    ("+1 Club", "+1 Club", ["P10a", "P10b"]),
];

/// The tables as sent and as stored.
const TABLES: [(&str, &str); 4] = [
    ("卓 ３", "卓 3"),
    ("🃏 Joker Table", "🃏 Joker Table"),
    ("طاولة ٣", "طاولة ٣"),
    ("<b>T</b>&amp;", "<b>T</b>&amp;"),
];

/// Why hand 1 of the match in play was corrected (two lines, a formula start).
const CORRECTION: &str = "-2+3 tricks miscounted\n\"second\" line; <b>done</b>";
/// Why the fourth match was cancelled (a formula start, markup, CJK).
const CANCELLED: &str = "=HYPERLINK(\"x\") <i>rain</i>, 雨; sorry";
/// An API token's name, made on the account page.
const TOKEN: &str = "<script>alert('token')</script> 🔑";

/// The hostile league through the API: its teams' ids (in [`TEAMS`] order) and its matches:
/// `[0]` complete, `[1]` in play with a corrected hand, `[2]` scheduled, `[3]` cancelled,
/// `[4]` scheduled without a table; and a single-elimination bracket of 8, forced.
struct League {
    app: TestApp,
    admin: Api,
    teams: Vec<i64>,
    matches: Vec<i64>,
}

impl League {
    fn team_name(&self, id: i64) -> &'static str {
        let i = self.teams.iter().position(|t| *t == id).expect("a team");
        TEAMS[i].1
    }
}

async fn hostile_league() -> League {
    let (clock, _) = manual_clock("2026-11-24T18:00:00Z", chrono_tz::UTC);
    let app = spawn_app_with_clock(clock).await;
    app.user("coord", Role::Admin).await;
    let admin = app.api_user("coord-api", Role::Admin).await;
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": LEAGUE.0, "slug": SLUG,
                    "rules": {"regular": {"preset": "unc-im-300", "target": 100}}}),
        )
        .await;
    let league = json_with_status(r, 201, "the league").await;
    assert_eq!(league["name"], LEAGUE.1, "the league's name as stored");
    let mut teams = Vec::new();
    for (sent, stored, players) in TEAMS {
        let r = admin
            .post(
                &format!("/api/v1/leagues/{SLUG}/teams"),
                &json!({"name": sent, "players": players}),
            )
            .await;
        let team = json_with_status(r, 201, stored).await;
        assert_eq!(team["name"], stored, "{sent:?} is stored as {stored:?}");
        assert_eq!(team["players"], json!(players));
        teams.push(team["id"].as_i64().unwrap());
    }
    let plan: [(usize, usize, Option<usize>, &str); 5] = [
        (0, 1, Some(0), "2026-11-24T19:00"),
        (2, 3, Some(2), "2026-11-24T19:00"),
        (4, 5, Some(1), "2026-11-24T20:30"),
        (6, 7, Some(3), "2026-11-25T19:00"),
        (8, 9, None, "2026-11-26T19:00"),
    ];
    let mut matches = Vec::new();
    for (a, b, table, at) in plan {
        let r = admin
            .post(
                &format!("/api/v1/leagues/{SLUG}/matches"),
                &json!({"team_a": teams[a], "team_b": teams[b],
                        "table": table.map(|t| TABLES[t].0), "scheduled_at": at}),
            )
            .await;
        let m = json_with_status(r, 201, "a match").await;
        assert_eq!(m["table"], json!(table.map(|t| TABLES[t].1)));
        matches.push(m["id"].as_i64().unwrap());
    }
    let win = hand_of([4, 3], [4, 4], [3, 3], [2, 3]);
    let done = admin
        .play_hands(matches[0], &[win.clone(), win.clone()])
        .await;
    assert_eq!(done["status"], "complete");
    let in_play = admin.play_hands(matches[1], &[win]).await;
    let r = admin
        .correct_hand(
            &in_play,
            1,
            &hand_of([4, 3], [4, 3], [3, 3], [3, 3]),
            CORRECTION,
            false,
        )
        .await;
    json_with_status(r, 200, "the correction").await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/cancel", matches[3]),
            &json!({"reason": CANCELLED}),
        )
        .await;
    let cancelled = json_with_status(r, 200, "the cancellation").await;
    assert_eq!(cancelled["status_note"], CANCELLED);
    let r = admin
        .post(
            &format!("/api/v1/leagues/{SLUG}/playoffs"),
            &json!({"format": "single_elimination", "teams": 8, "force": true}),
        )
        .await;
    json_with_status(r, 201, "the playoffs").await;
    League {
        app,
        admin,
        teams,
        matches,
    }
}

/// `text` as the pages' templates (askama) escape it.
fn escaped(text: &str) -> String {
    text.replace('&', "&#38;")
        .replace('<', "&#60;")
        .replace('>', "&#62;")
        .replace('"', "&#34;")
        .replace('\'', "&#39;")
}

/// The text of a page, with the entities askama writes decoded too.
fn page_text(html: &str) -> String {
    html_text(html)
        .replace("&#34;", "\"")
        .replace("&#60;", "<")
        .replace("&#62;", ">")
        .replace("&#38;", "&")
}

/// The raw markup of a stored name, which no page may hold: it would run or render.
const NEVER_RAW: [&str; 6] = [
    SCRIPT,
    "<script>alert('league')</script>",
    "<script>alert('token')</script>",
    "<img src=x onerror",
    "<b>T</b>",
    "<i>rain</i>",
];

/// What a page got wrong: not a 200, a name's markup raw, or a name not shown as stored
/// (escaped); every page is checked before the test fails, so that it says all of them.
fn check_page(problems: &mut Vec<String>, path: &str, status: u16, html: &str, shown: &[&str]) {
    if status != 200 {
        problems.push(format!("{path}: {status} {}", html_text(html)));
        return;
    }
    for raw in NEVER_RAW {
        if html.contains(raw) {
            problems.push(format!("{path} holds {raw:?} unescaped"));
        }
    }
    let missing: Vec<&&str> = shown
        .iter()
        .filter(|s| !html.contains(&escaped(s)))
        .collect();
    if !missing.is_empty() {
        problems.push(format!(
            "{path} does not show {missing:?} as stored; its text: {}",
            html_text(html)
        ));
    }
}

async fn public_page(problems: &mut Vec<String>, app: &TestApp, path: &str, shown: &[&str]) {
    let r = reqwest::Client::new()
        .get(app.url(path))
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    check_page(problems, path, status, &r.text().await.unwrap(), shown);
}

async fn admin_page(problems: &mut Vec<String>, browser: &HttpBrowser, path: &str, shown: &[&str]) {
    let r = browser.get(path).await;
    let status = r.status().as_u16();
    check_page(problems, path, status, &r.text().await.unwrap(), shown);
}

/// A CSV cell as the exports write `text`: a leading `'` before a formula start (§10.1).
fn cell(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@']) {
        format!("'{text}")
    } else {
        text.to_string()
    }
}

/// A CSV export: 200, parsed back with the csv crate, no cell a spreadsheet would run.
async fn csv_export(app: &TestApp, path: &str) -> Vec<Vec<String>> {
    let r = reqwest::Client::new()
        .get(app.url(path))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{path}");
    let rows = csv_rows(&r.text().await.unwrap());
    for c in rows.iter().flatten() {
        let number = c
            .strip_prefix('-')
            .is_some_and(|n| !n.is_empty() && n.chars().all(|d| d.is_ascii_digit() || d == '.'));
        assert!(
            !c.starts_with(['=', '+', '-', '@', '\t', '\r']) || number,
            "{path}: the cell {c:?} would run as a formula"
        );
    }
    rows
}

/// The column `name` of CSV `rows` (header first).
fn column<'a>(rows: &'a [Vec<String>], name: &str) -> Vec<&'a str> {
    let at = rows[0].iter().position(|h| h == name).expect(name);
    rows[1..].iter().map(|r| r[at].as_str()).collect()
}

/// A calendar feed, parsed with the icalendar crate.
async fn calendar(app: &TestApp, path: &str) -> icalendar::Calendar {
    let r = reqwest::Client::new()
        .get(app.url(path))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{path}");
    let text = r.text().await.unwrap();
    for line in text.trim_end_matches("\r\n").split("\r\n") {
        assert!(line.len() <= 75, "{path}: a line of {} octets", line.len());
    }
    text.parse()
        .unwrap_or_else(|e| panic!("{path} does not parse: {e}\n{text}"))
}

#[actix_web::test]
async fn hostile_names_come_back_as_stored_everywhere() {
    use icalendar::{Component, EventLike, EventStatus};

    let league = hostile_league().await;
    let (app, admin, m) = (&league.app, &league.admin, &league.matches);
    let stored: Vec<&str> = TEAMS.iter().map(|t| t.1).collect();
    let tables: Vec<&str> = TABLES.iter().map(|t| t.1).collect();

    // The JSON API.
    let teams = json_with_status(
        admin.get(&format!("/api/v1/leagues/{SLUG}/teams")).await,
        200,
        "teams",
    )
    .await;
    let names: BTreeSet<&str> = teams["teams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, stored.iter().copied().collect());
    let bracket = json_with_status(
        admin.get(&format!("/api/v1/leagues/{SLUG}/bracket")).await,
        200,
        "bracket",
    )
    .await;
    let seeded: BTreeSet<&str> = bracket["matches"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|bm| [&bm["team_a"], &bm["team_b"]])
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(seeded.len(), 8, "{bracket}");
    let seeded: Vec<&str> = seeded.into_iter().collect();

    // Every public page.
    let mut problems = Vec::new();
    let league_name = LEAGUE.1;
    let mut all_names = stored.clone();
    all_names.push(league_name);
    public_page(&mut problems, app, "/", &[]).await;
    public_page(&mut problems, app, "/leagues", &[league_name]).await;
    public_page(
        &mut problems,
        app,
        &format!("/leagues/{SLUG}"),
        &[league_name],
    )
    .await;
    public_page(
        &mut problems,
        app,
        &format!("/leagues/{SLUG}/standings"),
        &all_names,
    )
    .await;
    public_page(
        &mut problems,
        app,
        &format!("/leagues/{SLUG}/teams"),
        &all_names,
    )
    .await;
    let mut schedule = all_names.clone();
    schedule.extend(&tables);
    schedule.push(CANCELLED);
    public_page(
        &mut problems,
        app,
        &format!("/leagues/{SLUG}/schedule"),
        &schedule,
    )
    .await;
    public_page(
        &mut problems,
        app,
        &format!("/leagues/{SLUG}/rules"),
        &[league_name],
    )
    .await;
    let mut bracket_names = seeded.clone();
    bracket_names.push(league_name);
    public_page(
        &mut problems,
        app,
        &format!("/leagues/{SLUG}/bracket"),
        &bracket_names,
    )
    .await;
    public_page(
        &mut problems,
        app,
        &format!("/leagues/{SLUG}/bracket/print"),
        &bracket_names,
    )
    .await;
    for (i, (_, name, players)) in TEAMS.iter().enumerate() {
        let path = format!("/leagues/{SLUG}/teams/{}", league.teams[i]);
        public_page(
            &mut problems,
            app,
            &path,
            &[name, players[0], players[1], league_name],
        )
        .await;
    }
    let shown_with: [Vec<&str>; 5] = [
        vec![TEAMS[0].1, TEAMS[1].1, TABLES[0].1],
        vec![TEAMS[2].1, TEAMS[3].1, TABLES[2].1, CORRECTION],
        vec![TEAMS[4].1, TEAMS[5].1, TABLES[1].1],
        vec![TEAMS[6].1, TEAMS[7].1, TABLES[3].1],
        vec![TEAMS[8].1, TEAMS[9].1],
    ];
    for (id, shown) in m.iter().zip(&shown_with) {
        let mut shown = shown.clone();
        shown.push(league_name);
        public_page(&mut problems, app, &format!("/matches/{id}"), &shown).await;
    }
    for board in ["/scoreboard", "/scoreboard?tv=1"] {
        public_page(
            &mut problems,
            app,
            board,
            &[TEAMS[2].1, TEAMS[3].1, TABLES[2].1],
        )
        .await;
    }

    // The admin pages, and a token named on the account page.
    let browser = app.browser("coord").await;
    let r = browser
        .post_form("/account/tokens", &[("name", TOKEN)])
        .await;
    check_page(
        &mut problems,
        "POST /account/tokens",
        r.status().as_u16(),
        &r.text().await.unwrap(),
        &[TOKEN],
    );
    admin_page(&mut problems, &browser, "/account", &[TOKEN]).await;
    admin_page(&mut problems, &browser, "/admin", &[league_name]).await;
    let mut roster = all_names.clone();
    roster.extend(TEAMS.iter().flat_map(|t| t.2));
    admin_page(
        &mut problems,
        &browser,
        &format!("/admin/leagues/{SLUG}"),
        &roster,
    )
    .await;
    admin_page(
        &mut problems,
        &browser,
        &format!("/admin/leagues/{SLUG}/edit"),
        &[league_name],
    )
    .await;
    admin_page(
        &mut problems,
        &browser,
        &format!("/admin/leagues/{SLUG}/schedule"),
        &schedule,
    )
    .await;
    admin_page(
        &mut problems,
        &browser,
        &format!("/admin/leagues/{SLUG}/playoffs"),
        &[league_name],
    )
    .await;
    admin_page(
        &mut problems,
        &browser,
        &format!("/admin/leagues/{SLUG}/import"),
        &[league_name],
    )
    .await;
    admin_page(
        &mut problems,
        &browser,
        "/supervise",
        &[TEAMS[2].1, TEAMS[3].1, TABLES[2].1],
    )
    .await;
    admin_page(
        &mut problems,
        &browser,
        &format!("/supervise/matches/{}", m[1]),
        &[TEAMS[2].1, TEAMS[3].1, TABLES[2].1, CORRECTION],
    )
    .await;
    admin_page(
        &mut problems,
        &browser,
        &format!("/supervise/matches/{}/hands/1/edit", m[1]),
        &[TEAMS[2].1, TEAMS[3].1],
    )
    .await;
    // A roster whose rows are the names again: each one the league's team, unchanged.
    let csv: String = TEAMS
        .iter()
        .map(|(sent, _, players)| {
            let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
            format!(
                "{},{},{}\n",
                quote(sent),
                quote(players[0]),
                quote(players[1])
            )
        })
        .collect();
    let r = browser
        .post_form(
            &format!("/admin/leagues/{SLUG}/import"),
            &[("csv", &csv), ("confirm", "0")],
        )
        .await;
    let html = r.text().await.unwrap();
    check_page(&mut problems, "the roster preview", 200, &html, &stored);
    assert_eq!(
        html_text(&html).matches("OK: no change").count(),
        TEAMS.len(),
        "{}",
        html_text(&html)
    );

    assert!(problems.is_empty(), "{}", problems.join("\n\n"));

    // The CSV exports: each name one whole cell, formula starts neutralized.
    let rows = csv_export(app, &format!("/leagues/{SLUG}/standings.csv")).await;
    let teams_cells: BTreeSet<&str> = column(&rows, "team").into_iter().collect();
    let expected: BTreeSet<String> = stored.iter().map(|n| cell(n)).collect();
    assert_eq!(
        teams_cells,
        expected.iter().map(String::as_str).collect(),
        "standings.csv"
    );
    assert!(expected.contains(&format!("'{FORMULA}")) && expected.contains("'@everyone"));
    let rows = csv_export(app, &format!("/leagues/{SLUG}/bracket.csv")).await;
    let mut in_bracket: BTreeSet<&str> = column(&rows, "team_a").into_iter().collect();
    in_bracket.extend(column(&rows, "team_b"));
    in_bracket.remove("");
    let expected: BTreeSet<String> = seeded.iter().map(|n| cell(n)).collect();
    assert_eq!(
        in_bracket,
        expected.iter().map(String::as_str).collect(),
        "bracket.csv"
    );
    let rows = csv_export(app, &format!("/matches/{}/scoresheet.csv", m[1])).await;
    assert_eq!(
        column(&rows, "correction_reason"),
        [cell(CORRECTION)],
        "the reason, two lines, one cell"
    );

    // The calendar feeds.
    let cal = calendar(app, &format!("/leagues/{SLUG}/calendar.ics")).await;
    assert_eq!(cal.property_value("X-WR-CALNAME"), Some(league_name));
    let events: Vec<&icalendar::Event> = cal.events().collect();
    assert_eq!(events.len(), 5);
    for ((event, (a, b, table)), id) in events
        .iter()
        .zip([
            (0, 1, Some(0)),
            (2, 3, Some(2)),
            (4, 5, Some(1)),
            (6, 7, Some(3)),
            (8, 9, None),
        ])
        .zip(m)
    {
        assert_eq!(
            event.get_uid(),
            Some(format!("match-{id}@spades-im").as_str())
        );
        assert_eq!(
            event.get_summary(),
            Some(format!("{} vs {}", TEAMS[a].1, TEAMS[b].1).as_str())
        );
        assert_eq!(event.get_location(), table.map(|t| TABLES[t].1));
        assert!(event.get_description().unwrap().contains(league_name));
    }
    assert_eq!(events[3].get_status(), Some(EventStatus::Cancelled));
    assert!(
        events[3].get_description().unwrap().contains(CANCELLED),
        "{:?}",
        events[3].get_description()
    );
    for (i, id) in league.teams.iter().enumerate() {
        let cal = calendar(app, &format!("/teams/{id}/calendar.ics")).await;
        let summary = cal
            .events()
            .next()
            .unwrap()
            .get_summary()
            .unwrap()
            .to_string();
        assert!(summary.contains(league.team_name(*id)), "{i}: {summary}");
    }
}

/// A league "fall" (scale 1 to 5 for sportsmanship) with the teams Cardsharks, Aces High and
/// Team 1; the admin's API client and a logged-in admin's browser.
async fn plain_league() -> (TestApp, Api, HttpBrowser, Vec<i64>) {
    let (clock, _) = manual_clock("2026-11-24T18:00:00Z", chrono_tz::UTC);
    let app = spawn_app_with_clock(clock).await;
    app.user("coord", Role::Admin).await;
    let admin = app.api_user("coord-api", Role::Admin).await;
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Fall", "slug": "fall",
                    "rules": {"regular": {"preset": "unc-im-300", "target": 100}},
                    "settings": {"sportsmanship": {"min": 1, "max": 5}}}),
        )
        .await;
    json_with_status(r, 201, "the league").await;
    let mut teams = Vec::new();
    for name in ["Cardsharks", "Aces High", "Team 1"] {
        let r = admin
            .post(
                "/api/v1/leagues/fall/teams",
                &json!({"name": name, "players": ["Ann", "Al"]}),
            )
            .await;
        teams.push(json_with_status(r, 201, name).await["id"].as_i64().unwrap());
    }
    let browser = app.browser("coord").await;
    (app, admin, browser, teams)
}

/// Names that read as a team of the league are that team: a zero-width space inside, a
/// no-break space for a space, a Cyrillic "а" or "С" for the Latin letter, full-width
/// letters, capitals, "l" for "1". Each is a 422 `invalid_team` on `name` that names the
/// team it reads as, through the API, the admin's form, a rename and a roster import; a
/// right-to-left override is refused as such. Nothing is written; a name that differs is
/// still a new team.
#[actix_web::test]
async fn look_alike_team_names_are_the_same_team() {
    let (app, admin, browser, teams) = plain_league().await;
    let before = app.tables().await;
    let look_alikes = [
        (
            "Card\u{200B}sharks",
            "the league already has a team named \"Cardsharks\"",
        ),
        (
            "Aces\u{00A0}High",
            "the league already has a team named \"Aces High\"",
        ),
        (
            "C\u{0430}rdsharks",
            "\"C\u{0430}rdsharks\" reads the same as the league's team \"Cardsharks\"",
        ),
        (
            "\u{0421}ARDSHARKS",
            "\"\u{0421}ARDSHARKS\" reads the same as the league's team \"Cardsharks\"",
        ),
        (
            "CARDSHARKS",
            "the league already has a team named \"CARDSHARKS\"",
        ),
        (
            "Ａｃｅｓ　Ｈｉｇｈ",
            "the league already has a team named \"Aces High\"",
        ),
        (
            "Team l",
            "\"Team l\" reads the same as the league's team \"Team 1\"",
        ),
    ];
    for (name, says) in look_alikes {
        let r = admin
            .post(
                "/api/v1/leagues/fall/teams",
                &json!({"name": name, "players": ["Bo", "Bea"]}),
            )
            .await;
        let body = json_with_status(r, 422, name).await;
        assert_eq!(body["error"]["code"], "invalid_team", "{name:?}: {body}");
        assert_eq!(body["error"]["field"], "name", "{name:?}: {body}");
        assert!(
            body["error"]["message"].as_str().unwrap().starts_with(says),
            "{name:?}: {body}"
        );
    }
    let r = admin
        .post(
            "/api/v1/leagues/fall/teams",
            &json!({"name": "Cardsharks\u{202E}", "players": ["Bo", "Bea"]}),
        )
        .await;
    let body = json_with_status(r, 422, "a right-to-left override").await;
    assert_eq!(body["error"]["field"], "name", "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("invisible direction control (U+202E)"),
        "{body}"
    );
    // The admin's forms: a new team, a rename, a roster import.
    let r = browser
        .post_form(
            "/admin/leagues/fall/teams",
            &[
                ("name", "C\u{0430}rdsharks"),
                ("player1", "Bo"),
                ("player2", "Bea"),
            ],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    assert!(
        page_text(&html).contains("reads the same as the league's team \"Cardsharks\""),
        "{}",
        page_text(&html)
    );
    assert!(
        html.contains("value=\"C\u{0430}rdsharks\""),
        "the typed name is kept"
    );
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/teams/{}", teams[1]),
            &[
                ("name", "Card\u{00AD}sharks"),
                ("player1", "Ann"),
                ("player2", "Al"),
            ],
        )
        .await;
    assert_eq!(r.status(), 422, "a rename to a look-alike");
    assert!(
        page_text(&r.text().await.unwrap())
            .contains("the league already has a team named \"Cardsharks\""),
        "a soft hyphen shows nothing"
    );
    let r = browser
        .post_form(
            "/admin/leagues/fall/import",
            &[
                ("csv", "C\u{0430}rdsharks,Bo,Bea\nTeam\u{2009}1,Cy,Cal\n"),
                ("confirm", "1"),
            ],
        )
        .await;
    assert_eq!(r.status(), 422, "a roster with a look-alike");
    let text = page_text(&r.text().await.unwrap());
    assert!(
        text.contains("reads the same as the league's team \"Cardsharks\"")
            && text.contains("1 row has an error: nothing was imported"),
        "{text}"
    );
    app.assert_nothing_written(&before, "look-alike team names")
        .await;
    // A name that differs is a new team, and a team keeps its own name when edited.
    let r = admin
        .post(
            "/api/v1/leagues/fall/teams",
            &json!({"name": "Cardsharks II", "players": ["Bo", "Bea"]}),
        )
        .await;
    json_with_status(r, 201, "a name that differs").await;
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/teams/{}", teams[0]),
            &[
                ("name", "CARDSHARKS"),
                ("player1", "Ann"),
                ("player2", "Al"),
            ],
        )
        .await;
    assert_eq!(
        r.status(),
        303,
        "a team renamed in capitals is still itself"
    );
}

/// The invisible bidirectional controls are refused wherever text is stored, each a 422
/// naming its field, and nothing is written: a league's name, a team's, a player's, a
/// table's (new match, changed match), a correction's reason, a postponement's, an
/// eligibility decision's, a rating's note, a token's name (on the account page).
#[actix_web::test]
async fn bidirectional_controls_are_refused_naming_the_field() {
    let (app, admin, browser, teams) = plain_league().await;
    let m = admin.add_match("fall", teams[0], teams[1], "Table 1").await;
    let id = m["id"].as_i64().unwrap();
    let win = hand_of([4, 3], [4, 4], [3, 3], [2, 3]);
    let done = admin.play_hands(id, &[win.clone(), win.clone()]).await;
    let other = admin.add_match("fall", teams[1], teams[2], "Table 2").await;
    let other_id = other["id"].as_i64().unwrap();
    let before = app.tables().await;
    let refusals: Vec<(&str, String, Value, &str, &str)> = vec![
        (
            "POST",
            "/api/v1/leagues".into(),
            json!({"name": "Fall\u{202E}llaF", "slug": "fall-2", "rules": {"regular": "classic"}}),
            "name",
            "U+202E",
        ),
        (
            "POST",
            "/api/v1/leagues/fall/teams".into(),
            json!({"name": "\u{2067}Aces\u{2069}", "players": ["Bo", "Bea"]}),
            "name",
            "U+2067",
        ),
        (
            "POST",
            "/api/v1/leagues/fall/teams".into(),
            json!({"name": "Kings", "players": ["Bo\u{200F}", "Bea"]}),
            "players",
            "U+200F",
        ),
        (
            "POST",
            "/api/v1/leagues/fall/matches".into(),
            json!({"team_a": teams[0], "team_b": teams[2], "table": "Table\u{202D} 3"}),
            "table",
            "U+202D",
        ),
        (
            "PATCH",
            format!("/api/v1/matches/{other_id}"),
            json!({"table": "\u{2066}Lounge", "expected_version": other["version"]}),
            "table",
            "U+2066",
        ),
        (
            "PUT",
            format!("/api/v1/matches/{id}/hands/1"),
            json!({"hand": win, "reason": "typo\u{200E}", "expected_version": done["version"]}),
            "reason",
            "U+200E",
        ),
        (
            "POST",
            format!("/api/v1/matches/{other_id}/postpone"),
            json!({"reason": "gym \u{202B}closed"}),
            "reason",
            "U+202B",
        ),
        (
            "POST",
            format!("/api/v1/leagues/fall/eligibility/{}", teams[0]),
            json!({"eligible": false, "reason": "\u{061C}late"}),
            "reason",
            "U+061C",
        ),
        (
            "POST",
            format!("/api/v1/matches/{id}/sportsmanship"),
            json!({"a": 4, "b": 5, "note": "calm\u{202A}"}),
            "note",
            "U+202A",
        ),
    ];
    for (method, path, body, field, char) in &refusals {
        let r = admin
            .client
            .request(method.parse().unwrap(), app.url(path))
            .bearer_auth(&admin.token)
            .json(body)
            .send()
            .await
            .unwrap();
        let what = format!("{method} {path} {body}");
        let answer = json_with_status(r, 422, &what).await;
        assert_eq!(answer["error"]["field"], *field, "{what}: {answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains(&format!("invisible direction control ({char})")),
            "{what}: {answer}"
        );
    }
    let r = browser
        .post_form("/account/tokens", &[("name", "scoreboard\u{202E}")])
        .await;
    assert_eq!(r.status(), 422, "a token's name");
    assert!(page_text(&r.text().await.unwrap()).contains("invisible direction control (U+202E)"));
    app.assert_nothing_written(&before, "bidirectional controls")
        .await;
}

const PRINT_TEST: &str = "hostile_names::the_printed_bracket_keeps_hostile_names_whole";

/// The printed bracket of the hostile league, printed to PDF by Chromium as a coordinator
/// would (landscape): `pdftotext` reads every seeded name whole, the CJK and the longest
/// name among them, and the league's name with its `<script>` as text.
#[actix_web::test]
async fn the_printed_bracket_keeps_hostile_names_whole() {
    let league = hostile_league().await;
    let Some((driver, chrome)) = binaries_or_skip(PRINT_TEST) else {
        return;
    };
    if std::process::Command::new("pdftotext")
        .arg("-v")
        .output()
        .is_err()
    {
        crate::webdriver::skip(PRINT_TEST, "no pdftotext: apt-get install poppler-utils");
        return;
    }
    // Without a font for them, Chromium prints CJK as empty boxes, which no PDF reader can
    // read back (a deployment's printing browsers have one).
    let cjk_font = std::process::Command::new("fc-list")
        .arg(":lang=ja")
        .output()
        .is_ok_and(|out| !out.stdout.is_empty());
    if !cjk_font {
        crate::webdriver::skip(
            PRINT_TEST,
            "no font for Japanese and Chinese: apt-get install fonts-droid-fallback",
        );
        return;
    }
    let browser = WebBrowser::start(&driver, &chrome)
        .await
        .expect("chromium starts");
    let outcome = actix_web::rt::time::timeout(Duration::from_secs(120), async {
        browser
            .goto(&league.app.url(&format!("/leagues/{SLUG}/bracket/print")))
            .await?;
        browser
            .wait_for("#bracket", Duration::from_secs(30))
            .await?;
        let pdf = browser
            .print_pdf(json!({"orientation": "landscape", "background": true}))
            .await?;
        let text = crate::browser_print::pdf_text(&pdf, SLUG)?;
        for name in [
            CJK,
            LONGEST,
            SCRIPT,
            FORMULA,
            QUOTES,
            "@everyone",
            "+1 Club",
            "<script>alert('league')</script> 東京 Spades",
        ] {
            ensure!(
                text.contains(name),
                "{name:?} is not whole in the printed bracket; its text: {text}"
            );
        }
        anyhow::Ok(())
    })
    .await;
    let failure = match outcome {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(format!("{e:#}")),
        Err(_) => Some("printing took over 120 s".to_string()),
    };
    if let Some(failure) = failure {
        let saved = crate::browser::evidence(&browser, "hostile-print").await;
        let _ = browser.quit().await;
        panic!("{failure}\n{saved}");
    }
    browser.quit().await.expect("the browser quits");
}
