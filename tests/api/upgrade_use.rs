//! Upgrade, then use: the database written by v0.1 (`tests/fixtures/v0.1.sqlite3`, see
//! `upgrade.rs`), migrated by the current code, takes a league night's writes and then shows
//! every page. On a copy, with the service's clock a few minutes after the fixture was made:
//! a hand in every regular-season match in play, a correction of an old hand of a finished
//! match, a correction of a finished quarter-final that changes its winner (409
//! `bracket_reset_needed`, nothing written, then confirmed: the semi-final in play is
//! cancelled and replayed with the right team, docs/api.md §8.4), both brackets played to
//! their champion; then `spades-im check` finds nothing, and every page reachable as an admin
//! — each league's, team's, match's and bracket's, the admin pages, the consoles and their
//! correction forms, the calendar feeds and CSV exports, found from the data and by following
//! the pages' own links — answers 200, and so do the public ones to an anonymous reader
//! (through the page cache).
//!
//! Planted bugs that fail it: a regular-season correction that keeps the winner leaving the
//! match's cached totals as they were (fails at `check`: "match 8: score_a is 303, the hands
//! give 302"); the bracket's kept results not saved after a result (fails playing the
//! bracket: the final never gets its match); the correction form answering 500 for a hand
//! already corrected (fails at the crawl, on the fixture's v0.1 corrections and match 8's).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::concurrency::{cli_async, db_path, stderr, stdout};
use crate::helpers::{
    Api, Browser, TestApp, anonymous_get, hand_of, json_with_status, manual_clock,
    spawn_app_on_copy_with_clock,
};
use crate::upgrade::{FIXTURE, root};

/// A few minutes after the fixture was made (its matches started at 14:13 UTC on 23 November
/// 2026): the league night goes on, no time limit has run out.
const NOW: &str = "2026-11-23T14:20:00Z";

/// The most URLs the crawl asks; reaching it fails the test (a link that multiplies).
const MAX_PAGES: usize = 5000;

/// 70 for team a, 60 for team b, no bags: a wins any game to 300 or 500.
fn a_ahead() -> Value {
    hand_of([3, 4], [3, 4], [3, 3], [3, 3])
}

async fn get_match(app: &TestApp, id: i64) -> Value {
    json_with_status(
        app.get(&format!("/api/v1/matches/{id}")).await,
        200,
        &format!("match {id}"),
    )
    .await
}

async fn league_matches(app: &TestApp, slug: &str) -> Vec<Value> {
    let body = json_with_status(
        app.get(&format!("/api/v1/leagues/{slug}/matches")).await,
        200,
        "matches",
    )
    .await;
    body["matches"].as_array().unwrap().clone()
}

async fn bracket(app: &TestApp, slug: &str) -> Value {
    json_with_status(
        app.get(&format!("/api/v1/leagues/{slug}/bracket")).await,
        200,
        "bracket",
    )
    .await
}

/// Enters `a_ahead` until the match is over.
async fn play_out(admin: &Api, mut m: Value) -> Value {
    for _ in 0..12 {
        if m["status"] != "in_progress" {
            return m;
        }
        m = admin.enter_hand(&m, &a_ahead()).await;
    }
    panic!("match {} did not end: {m}", m["id"]);
}

/// Plays the bracket of `slug` to its champion, match by match as they become known.
async fn play_bracket(app: &TestApp, admin: &Api, slug: &str) -> Value {
    for _ in 0..20 {
        let b = bracket(app, slug).await;
        if !b["champion"].is_null() {
            return b;
        }
        let next = b["matches"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| {
                m["match_id"].is_i64()
                    && matches!(m["status"].as_str(), Some("scheduled" | "in_progress"))
            })
            .unwrap_or_else(|| panic!("{slug}: no champion and nothing to play: {b}"));
        let id = next["match_id"].as_i64().unwrap();
        let mut m = get_match(app, id).await;
        if m["status"] == "scheduled" {
            m = admin.start_match(id).await;
        }
        let done = play_out(admin, m).await;
        assert_eq!(done["status"], "complete", "{done}");
    }
    panic!("{slug}: the bracket did not finish");
}

#[actix_web::test]
async fn the_v0_1_database_takes_a_league_night_after_migrating() {
    let (clock, _) = manual_clock(NOW, chrono_tz::America::New_York);
    let app = spawn_app_on_copy_with_clock(&root().join(FIXTURE), clock).await;
    let admin = app.api_user("after-upgrade", Role::Admin).await;

    // A hand in every regular-season match in play.
    let leagues = json_with_status(app.get("/api/v1/leagues").await, 200, "leagues").await;
    let slugs: Vec<String> = leagues["leagues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["slug"].as_str().unwrap().to_string())
        .collect();
    let mut in_play = 0;
    for slug in &slugs {
        for m in league_matches(&app, slug).await {
            if m["status"] == "in_progress" && m["stage"] == "regular" {
                let hands = m["hands"].as_array().unwrap().len();
                let after = admin.enter_hand(&m, &a_ahead()).await;
                assert_eq!(after["hands"].as_array().unwrap().len(), hands + 1);
                assert_eq!(after["version"], m["version"].as_i64().unwrap() + 1);
                in_play += 1;
            }
        }
    }
    assert_eq!(in_play, 3, "the fixture's regular-season matches in play");

    // An old hand of a finished regular-season match, corrected (demo-fall's match 8, three
    // hands, won by team a: its first hand with one trick moved from team a to team b). The
    // standings follow; `check` below compares them with the matches.
    let old = get_match(&app, 8).await;
    assert_eq!(
        (old["status"].as_str(), old["winner"].as_str()),
        (Some("complete"), Some("a"))
    );
    let mut first = old["hands"][0]["hand"].clone();
    assert_eq!(
        first,
        json!({"a": {"bids": [4, 6], "tricks": [5, 6]}, "b": {"bids": [2, 2], "tricks": [2, 0]}})
    );
    first["a"]["tricks"] = json!([5, 5]);
    first["b"]["tricks"] = json!([2, 1]);
    let r = admin
        .correct_hand(&old, 1, &first, "seat 4 took a trick", false)
        .await;
    let corrected = json_with_status(r, 200, "a correction of an old hand").await;
    assert_eq!(corrected["hands"][0]["revision"], 2, "{corrected}");
    assert_eq!(corrected["status"], "complete");
    assert_eq!(corrected["winner"], "a");

    // demo-fall's quarter-final (match 69, won by team a 330–320 on its corrected fifth hand)
    // corrected back: team b wins it, which changes the semi-final in play (match 71). The
    // contract: 409 naming it, nothing written; then an admin confirms.
    let qf = get_match(&app, 69).await;
    assert_eq!(qf["winner"], "a");
    let loser = qf["team_b"]["id"].as_i64().unwrap();
    let last = qf["hands"].as_array().unwrap().len() as i64;
    let fifth = &qf["hands"][last as usize - 1]["hand"];
    let swapped = json!({"a": fifth["b"], "b": fifth["a"]});
    let before = app.tables().await;
    let r = admin
        .correct_hand(&qf, last, &swapped, "the scores were swapped", false)
        .await;
    let refused = json_with_status(r, 409, "a correction that changes a semi-final").await;
    assert_eq!(
        refused["error"]["code"], "bracket_reset_needed",
        "{refused}"
    );
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("#71"),
        "{refused}"
    );
    app.assert_nothing_written(&before, "a correction waiting for the reset")
        .await;
    let r = admin
        .correct_hand(&qf, last, &swapped, "the scores were swapped", true)
        .await;
    let flipped = json_with_status(r, 200, "the correction, reset confirmed").await;
    assert_eq!(flipped["winner"], "b", "{flipped}");
    let reset = get_match(&app, 71).await;
    assert_eq!(reset["status"], "cancelled", "{reset}");
    assert_eq!(
        reset["hands"].as_array().unwrap().len(),
        1,
        "its hands kept"
    );
    let b = bracket(&app, "demo-fall").await;
    let semi = b["matches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["bracket"] == "winners" && m["round"] == 2 && m["position"] == 0)
        .unwrap();
    assert_ne!(semi["match_id"], 71, "{semi}");
    assert!(
        semi["team_a"]["id"] == loser || semi["team_b"]["id"] == loser,
        "the quarter-final's new winner plays the semi-final: {semi}"
    );

    // Both brackets played to the end.
    for slug in ["demo-fall", "gen"] {
        let done = play_bracket(&app, &admin, slug).await;
        assert!(done["champion"]["id"].is_i64(), "{slug}: {done}");
    }

    // `check`: every cached total, record, count and bracket agrees with the matches.
    let db = db_path(&app).await;
    let out = cli_async(&db, &["check"]).await;
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("every cached total agrees"),
        "{}",
        stdout(&out)
    );

    // Every page, as an admin, from the data and the pages' links.
    app.user("pages", Role::Admin).await;
    let browser = app.browser("pages").await;
    let seeds = seeds(&app, &slugs).await;
    let visited = crawl(&browser, seeds.clone()).await;
    let failures: Vec<String> = visited
        .iter()
        .filter(|(_, status)| **status != 200)
        .map(|(path, status)| format!("GET {path}: {status}"))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} pages failed:\n{}",
        failures.len(),
        visited.len(),
        failures.join("\n")
    );
    for seed in &seeds {
        assert!(visited.contains_key(seed), "{seed} was asked");
    }
    // The crawl reached what only links lead to: a correction form of every hand of a
    // finished match, a forfeit confirmation, the printable bracket.
    let reached = |prefix: &str, suffix: &str| {
        visited
            .keys()
            .any(|p| p.starts_with(prefix) && p.ends_with(suffix))
    };
    assert!(
        reached("/supervise/matches/8/hands/", "/edit"),
        "a correction form"
    );
    assert!(
        reached("/supervise/matches/", "/forfeit?team=both"),
        "a forfeit confirmation"
    );
    assert!(
        reached("/leagues/demo-fall/bracket/print", ""),
        "the printable bracket"
    );
    eprintln!("{} pages answered 200 as an admin", visited.len());

    // The public ones again, anonymous (the page cache answers these).
    let mut public = 0;
    for path in visited.keys().filter(|p| is_public(p)) {
        let (status, _, _) = anonymous_get(&app, path).await;
        assert_eq!(status, 200, "anonymous GET {path}");
        public += 1;
    }
    eprintln!("{public} public pages answered 200 anonymously");
}

/// Whether `path` is a page for everyone (not an admin's, a supervisor's or an account's).
fn is_public(path: &str) -> bool {
    // The whole-league export (linked from the league's admin page) holds personal data.
    !["/admin", "/supervise", "/account", "/login"]
        .iter()
        .any(|p| path.starts_with(p))
        && !path.ends_with("/export")
}

/// The pages the data says exist: the fixed ones, then per league (from the API) its pages,
/// feeds and exports and its admin pages, per team its page and feed, per match its page,
/// scoresheet and console.
async fn seeds(app: &TestApp, slugs: &[String]) -> Vec<String> {
    let mut out: Vec<String> = [
        "/",
        "/leagues",
        "/scoreboard",
        "/scoreboard?tv=1",
        "/rules",
        "/calculator",
        "/admin",
        "/supervise",
        "/account",
    ]
    .map(String::from)
    .to_vec();
    for slug in slugs {
        for tail in [
            "",
            "/standings",
            "/schedule",
            "/schedule?week=all",
            "/teams",
            "/rules",
            "/calendar.ics",
            "/standings.csv",
        ] {
            out.push(format!("/leagues/{slug}{tail}"));
        }
        for tail in ["", "/edit", "/schedule", "/import", "/playoffs"] {
            out.push(format!("/admin/leagues/{slug}{tail}"));
        }
        if app
            .get(&format!("/api/v1/leagues/{slug}/bracket"))
            .await
            .status()
            == 200
        {
            out.push(format!("/leagues/{slug}/bracket"));
            out.push(format!("/leagues/{slug}/bracket/print"));
            out.push(format!("/leagues/{slug}/bracket.csv"));
        }
        let teams = json_with_status(
            app.get(&format!("/api/v1/leagues/{slug}/teams")).await,
            200,
            "teams",
        )
        .await;
        for t in teams["teams"].as_array().unwrap() {
            let id = t["id"].as_i64().unwrap();
            out.push(format!("/leagues/{slug}/teams/{id}"));
            out.push(format!("/teams/{id}/calendar.ics"));
        }
        for m in league_matches(app, slug).await {
            let id = m["id"].as_i64().unwrap();
            out.push(format!("/matches/{id}"));
            out.push(format!("/matches/{id}/scoresheet.csv"));
            out.push(format!("/supervise/matches/{id}"));
        }
    }
    out
}

/// Asks every path of `seeds` and every same-site link of every HTML page reached (`href`
/// and `src`), once each; the status of each. Log-out is never asked (it is a form's
/// action, not a link, but it ends the crawl's session).
async fn crawl(browser: &Browser, seeds: Vec<String>) -> BTreeMap<String, u16> {
    let mut visited: BTreeMap<String, u16> = BTreeMap::new();
    let mut queued: BTreeSet<String> = seeds.iter().cloned().collect();
    let mut queue: VecDeque<String> = seeds.into();
    while let Some(path) = queue.pop_front() {
        assert!(
            visited.len() < MAX_PAGES,
            "over {MAX_PAGES} pages: a link multiplies? {path}"
        );
        let r = browser.get(&path).await;
        let status = r.status().as_u16();
        let html = r
            .headers()
            .get("content-type")
            .is_some_and(|t| t.to_str().unwrap_or("").starts_with("text/html"));
        let body = r.text().await.unwrap_or_default();
        visited.insert(path.clone(), status);
        if !html || status != 200 {
            continue;
        }
        for link in links(&body) {
            if link.starts_with("/logout") || !queued.insert(link.clone()) {
                continue;
            }
            queue.push_back(link);
        }
    }
    visited
}

/// The same-site links of a page: `href="/…"` and `src="/…"` (not `//host`), entities
/// decoded, the fragment dropped; and each submit button of a `method="get"` form (the
/// console's forfeit: one page per team) as the URL it asks.
fn links(html: &str) -> Vec<String> {
    let mut out = get_forms(html);
    for attribute in [" href=\"", " src=\""] {
        let mut rest = html;
        while let Some(at) = rest.find(attribute) {
            rest = &rest[at + attribute.len()..];
            let Some(end) = rest.find('"') else { break };
            let raw = decoded(&rest[..end]);
            let path = raw.split('#').next().unwrap_or_default();
            if path.starts_with('/') && !path.starts_with("//") {
                out.push(path.to_string());
            }
        }
    }
    out
}

fn decoded(value: &str) -> String {
    value
        .replace("&amp;", "&")
        .replace("&#x2f;", "/")
        .replace("&#x2F;", "/")
        .replace("&#47;", "/")
        .replace("&#x27;", "'")
        .replace("&quot;", "\"")
}

/// The value of attribute `name` in the opening tag `tag`.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let end = tag[at..].find('"')?;
    Some(decoded(&tag[at..at + end]))
}

/// The opening tags `<{name} …>` in `html`.
fn tags<'a>(html: &'a str, name: &str) -> Vec<&'a str> {
    let open = format!("<{name} ");
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find(&open) {
        let Some(end) = rest[at..].find('>') else {
            break;
        };
        out.push(&rest[at..at + end + 1]);
        rest = &rest[at + end + 1..];
    }
    out
}

/// The URL each submit button of each `method="get"` form asks: the form's hidden fields and
/// the button's name and value.
fn get_forms(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in html.split("<form ").skip(1) {
        let form = &part[..part.find("</form>").unwrap_or(part.len())];
        let tag = format!("<form {}", &form[..form.find('>').unwrap_or(form.len())]);
        if attribute(&tag, "method").as_deref() != Some("get") {
            continue;
        }
        let Some(action) = attribute(&tag, "action") else {
            continue;
        };
        let hidden: Vec<(String, String)> = tags(form, "input")
            .into_iter()
            .filter(|t| attribute(t, "type").as_deref() == Some("hidden"))
            .filter_map(|t| {
                Some((
                    attribute(t, "name")?,
                    attribute(t, "value").unwrap_or_default(),
                ))
            })
            .collect();
        for button in tags(form, "button") {
            let mut url = reqwest::Url::parse(&format!("http://site{action}")).expect("an action");
            {
                let mut query = url.query_pairs_mut();
                for (name, value) in &hidden {
                    query.append_pair(name, value);
                }
                if let Some(name) = attribute(button, "name") {
                    query.append_pair(&name, &attribute(button, "value").unwrap_or_default());
                }
            }
            out.push(format!(
                "{}?{}",
                url.path(),
                url.query().unwrap_or_default()
            ));
        }
    }
    out
}
