//! The supervisor console over real HTTP with a logged-in browser (cookies, CSRF, no
//! redirects followed): `/supervise`, the match console, start, hand entry, corrections with
//! a reason and their history, time calls and forfeits.
//!
//! Happy paths: every route. Refusals: anonymous (303 to /login), a supervisor of another
//! league (404), a missing CSRF token (403), a stale version (the 409 conflict page), the
//! same form posted twice (one hand). Bad inputs (`bad_hands_come_back_with_the_message`):
//! each is a 422 with the message next to the field, the typed values kept, and nothing
//! written — checked on the database (every row of every table, [`crate::helpers::Tables`]).

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, Browser, TestApp, spawn_app};

async fn match_json(app: &TestApp, id: i64) -> Value {
    app.get(&format!("/api/v1/matches/{id}"))
        .await
        .json()
        .await
        .expect("match json")
}

/// A league `slug` under `rules` with two teams, supervisor `sue` assigned, one match.
async fn league_match(app: &TestApp, admin: &Api, slug: &str, rules: Value) -> i64 {
    let teams = app.league(admin, slug, rules, 2).await;
    let r = admin
        .post(
            &format!("/api/v1/leagues/{slug}/supervisors"),
            &json!({"username": "sue"}),
        )
        .await;
    assert_eq!(r.status(), 204);
    let m: Value = admin
        .post(
            &format!("/api/v1/leagues/{slug}/matches"),
            &json!({"team_a": teams[0], "team_b": teams[1], "table": "7"}),
        )
        .await
        .json()
        .await
        .expect("match");
    m["id"].as_i64().expect("match id")
}

struct Setup {
    app: TestApp,
    admin: Api,
    sue: Browser,
    /// A match of `unc-im-300` (nil 60, blind nil 100 behind, min bid 4, revokes, 30 min).
    id: i64,
}

async fn setup() -> Setup {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.user("sue", Role::Supervisor).await;
    let id = league_match(&app, &admin, "fall", json!("unc-im-300")).await;
    let sue = app.browser("sue").await;
    Setup {
        app,
        admin,
        sue,
        id,
    }
}

async fn text(r: reqwest::Response) -> (u16, String) {
    let status = r.status().as_u16();
    (status, r.text().await.expect("body"))
}

/// The value of a hidden field of the hand form.
fn hidden(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let at = html
        .find(&marker)
        .unwrap_or_else(|| panic!("no {name} in page"))
        + marker.len();
    let end = html[at..].find('"').expect("end of value");
    html[at..at + end].to_string()
}

/// A hand in seat order: bids and tricks of seats 1, 2, 3, 4.
fn hand(version: &str, key: &str, bids: [&str; 4], tricks: [&str; 4]) -> Vec<(String, String)> {
    let names = [
        ("a_bid0", "a_tricks0"),
        ("b_bid0", "b_tricks0"),
        ("a_bid1", "a_tricks1"),
        ("b_bid1", "b_tricks1"),
    ];
    let mut fields = vec![
        ("expected_version".to_string(), version.to_string()),
        ("idempotency_key".to_string(), key.to_string()),
    ];
    for (i, (bid, took)) in names.iter().enumerate() {
        fields.push((bid.to_string(), bids[i].to_string()));
        fields.push((took.to_string(), tricks[i].to_string()));
    }
    fields
}

async fn post(b: &Browser, path: &str, fields: &[(String, String)]) -> reqwest::Response {
    let pairs: Vec<(&str, &str)> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    b.post_form(path, &pairs).await
}

fn location(r: &reqwest::Response) -> String {
    r.headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string()
}

/// Starts the match from the console and returns the console page.
async fn start(s: &Setup, id: i64) -> String {
    let r = s
        .sue
        .post_form(&format!("/supervise/matches/{id}/start"), &[])
        .await;
    assert_eq!(r.status(), 303, "start");
    assert_eq!(location(&r), format!("/supervise/matches/{id}"));
    let (status, page) = text(s.sue.get(&format!("/supervise/matches/{id}")).await).await;
    assert_eq!(status, 200);
    page
}

/// The part of `html` from `from` to the next `to` (for "the message is next to the field").
fn section<'a>(html: &'a str, from: &str, to: &str) -> &'a str {
    let at = html
        .find(from)
        .unwrap_or_else(|| panic!("no {from} in page"));
    let rest = &html[at..];
    &rest[..rest.find(to).unwrap_or(rest.len())]
}

#[actix_web::test]
async fn a_league_night_from_the_console() {
    let s = setup().await;
    let id = s.id;
    let console = format!("/supervise/matches/{id}");

    // Tonight's list links to the console; the console offers Start.
    let (status, list) = text(s.sue.get("/supervise").await).await;
    assert_eq!(status, 200);
    assert!(list.contains(&format!("id=\"match-{id}\"")), "{list}");
    assert!(list.contains(&format!("href=\"{console}\"")));
    let (status, page) = text(s.sue.get(&console).await).await;
    assert_eq!(status, 200);
    assert!(page.contains("id=\"start\""));
    assert!(
        !page.contains("id=\"hand-form\""),
        "no hands before the start"
    );
    assert!(
        page.contains("seat 1 P1a") && page.contains("seat 4 P2b"),
        "{page}"
    );

    // Start: the clock runs, the form shows dealer and first bidder, only legal bids.
    let page = start(&s, id).await;
    assert!(page.contains("id=\"hand-form\""));
    assert!(
        page.contains("id=\"time-left\" data-ends-at=\"20"),
        "{page}"
    );
    assert!(page.contains("id=\"call-time\""));
    assert!(page.contains("<strong id=\"dealer\">1</strong>"));
    assert!(page.contains("<strong id=\"first-bidder\">2</strong>"));
    assert!(page.contains("value=\"nil\""), "unc-im-300 has nil");
    assert!(
        !page.contains("value=\"blind_nil\""),
        "no blind nil at 0-0 (needs 100 behind)"
    );
    assert!(
        page.contains("name=\"a_revokes\""),
        "unc-im-300 has revokes"
    );
    assert!(!page.contains("name=\"a_blind\""), "no blind bids");
    assert_eq!(match_json(&s.app, id).await["status"], "in_progress");

    // Record a hand: 303 back to the console (POST/redirect/GET).
    let version = hidden(&page, "expected_version");
    let key = hidden(&page, "idempotency_key");
    assert!(key.len() >= 16);
    let first = hand(&version, &key, ["4", "3", "nil", "2"], ["5", "4", "0", "4"]);
    let r = post(&s.sue, &format!("{console}/hands"), &first).await;
    assert_eq!(r.status(), 303);
    // Back at the next hand's form, not at the top of the page.
    assert_eq!(location(&r), format!("{console}#next-hand"));
    let m = match_json(&s.app, id).await;
    assert_eq!(m["hands"].as_array().map(Vec::len), Some(1));
    // a: 4 bid, 5 took → 41, nil made +60 = 101; b: 5 bid, 8 took → 53.
    assert_eq!(m["a"]["score"], 101);
    assert_eq!(m["b"]["score"], 53);

    // The same form again (a double tap, a retry): recorded once, back to the console.
    let before = s.app.tables().await;
    let r = post(&s.sue, &format!("{console}/hands"), &first).await;
    assert_eq!(r.status(), 303);
    s.app
        .assert_nothing_written(&before, "a repeat writes nothing")
        .await;
    assert_eq!(
        match_json(&s.app, id).await["hands"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );

    // The console: score, bags, breakdown, the deal moved on, a Correct link.
    let (_, page) = text(s.sue.get(&console).await).await;
    assert!(page.contains("<strong id=\"score-a\">101</strong>"));
    assert!(page.contains("<strong id=\"score-b\">53</strong>"));
    assert!(page.contains("id=\"bags-b\">bags 3"));
    assert!(page.contains("<strong id=\"dealer\">2</strong>"));
    assert!(page.contains("<strong id=\"first-bidder\">3</strong>"));
    let row = section(&page, "data-hand=\"1\"", "</tr>");
    assert!(
        row.contains("<td>60</td>"),
        "nil points in the breakdown: {row}"
    );
    assert!(row.contains("<strong>101</strong> (1)"), "{row}");
    let card = section(&page, "id=\"card-1\"", "</li>");
    assert!(
        card.contains(
            "<td class=\"breakdown\">+101: nil made +60, made 4 +40, 1 bag +1</td>\
             <td class=\"breakdown\">+53: made 5 +50, 3 bags +3</td>"
        ),
        "the points in words: {card}"
    );
    assert!(page.contains("<section id=\"next-hand\""), "the anchor");
    assert!(page.contains(&format!("href=\"{console}/hands/1/edit\"")));
    assert!(page.contains("id=\"correct-1\""));
    assert_ne!(
        hidden(&page, "idempotency_key"),
        key,
        "a new form, a new key"
    );

    // Correct hand 1: the form prefilled, a reason, the history.
    let (status, edit) = text(s.sue.get(&format!("{console}/hands/1/edit")).await).await;
    assert_eq!(status, 200);
    assert!(edit.contains("id=\"a_tricks0\" value=\"5\""), "{edit}");
    assert!(section(&edit, "name=\"a_bid1\"", "</select>").contains("value=\"nil\" selected"));
    assert!(edit.contains("name=\"reason\""));
    let mut fix = hand(
        &hidden(&edit, "expected_version"),
        "",
        ["4", "3", "nil", "2"],
        ["6", "3", "0", "4"],
    );
    fix.push(("reason".into(), "seat 1 took 6, not 5".into()));
    let r = post(&s.sue, &format!("{console}/hands/1"), &fix).await;
    assert_eq!(r.status(), 303);
    assert_eq!(location(&r), console);
    let m = match_json(&s.app, id).await;
    assert_eq!(m["hands"][0]["revision"], 2);
    assert_eq!(m["a"]["score"], 102);
    let (_, edit) = text(s.sue.get(&format!("{console}/hands/1/edit")).await).await;
    let history = section(&edit, "id=\"history\"", "</table>");
    assert!(history.contains("data-revision=\"1\""));
    assert!(history.contains("data-revision=\"2\""));
    assert!(history.contains("seat 1 took 6, not 5"), "{history}");

    // Call time: the next hand is the last; the higher score wins on time.
    let (_, page) = text(s.sue.get(&console).await).await;
    let r = s
        .sue
        .post_form(
            &format!("{console}/time"),
            &[
                ("expected_version", &hidden(&page, "expected_version")),
                ("confirm", "1"),
            ],
        )
        .await;
    assert_eq!(r.status(), 303);
    assert!(match_json(&s.app, id).await["time_called_at"].is_string());
    let (_, page) = text(s.sue.get(&console).await).await;
    assert!(page.contains("id=\"time-called\""));
    assert!(!page.contains("id=\"call-time\""));
    let last = hand(
        &hidden(&page, "expected_version"),
        &hidden(&page, "idempotency_key"),
        ["4", "4", "3", "2"],
        ["4", "4", "3", "2"],
    );
    let r = post(&s.sue, &format!("{console}/hands"), &last).await;
    assert_eq!(r.status(), 303);
    let m = match_json(&s.app, id).await;
    assert_eq!(m["status"], "complete");
    assert_eq!(m["winner"], "a");
    assert_eq!(m["reason"], "time");
    assert_eq!(m["hands"][1]["time_called"], true);

    // The result, prominently; no hand form once the match is over.
    let (_, page) = text(s.sue.get(&console).await).await;
    let status = section(&page, "id=\"game-status\"", "</div>");
    assert!(status.contains("Team 1 won (time called)"), "{status}");
    assert!(status.contains("result"));
    assert!(!page.contains("id=\"hand-form\""));
    assert!(!page.contains("id=\"forfeit\""));

    // A hand after the game is over: refused with the message, nothing written.
    let before = s.app.tables().await;
    let late = hand(
        &m["version"].to_string(),
        "late-key",
        ["4", "4", "3", "2"],
        ["4", "4", "3", "2"],
    );
    let (status, page) = text(post(&s.sue, &format!("{console}/hands"), &late).await).await;
    assert_eq!(status, 422);
    assert!(section(&page, "id=\"hand-error\"", "</p>").contains("no more hands"));
    s.app
        .assert_nothing_written(&before, "nothing written")
        .await;

    // Correcting the time-called hand keeps it the time-called one: still won on time.
    let (status, edit) = text(s.sue.get(&format!("{console}/hands/2/edit")).await).await;
    assert_eq!(status, 200);
    let mut fix = hand(
        &hidden(&edit, "expected_version"),
        "",
        ["4", "4", "3", "2"],
        ["5", "3", "3", "2"],
    );
    fix.push(("reason".into(), "seat 2 was set".into()));
    let r = post(&s.sue, &format!("{console}/hands/2"), &fix).await;
    assert_eq!(r.status(), 303);
    let m = match_json(&s.app, id).await;
    assert_eq!(m["hands"][1]["revision"], 2);
    assert_eq!(m["hands"][1]["time_called"], true);
    assert_eq!(m["status"], "complete");
    assert_eq!(m["reason"], "time");

    // Admins supervise every league.
    let admin_browser = s.app.browser("coord").await;
    assert_eq!(admin_browser.get(&console).await.status(), 200);
    let _ = &s.admin;
}

#[actix_web::test]
async fn forfeits_need_a_confirmation() {
    let s = setup().await;
    let console = format!("/supervise/matches/{}", s.id);
    let page = start(&s, s.id).await;
    assert!(page.contains("id=\"forfeit-a\""));
    assert!(page.contains("id=\"forfeit-both\""));
    let version = hidden(&page, "expected_version");

    // Without the confirmation: 422, the message, nothing written.
    let before = s.app.tables().await;
    let r = s
        .sue
        .post_form(
            &format!("{console}/forfeit"),
            &[("expected_version", &version), ("team", "a")],
        )
        .await;
    let (status, page) = text(r).await;
    assert_eq!(status, 422);
    assert!(section(&page, "id=\"forfeit-error\"", "</p>").contains("confirm"));
    s.app
        .assert_nothing_written(&before, "nothing written")
        .await;

    // Confirmed: team a forfeits, team b wins.
    let r = s
        .sue
        .post_form(
            &format!("{console}/forfeit"),
            &[
                ("expected_version", &version),
                ("team", "a"),
                ("confirm", "1"),
            ],
        )
        .await;
    assert_eq!(r.status(), 303);
    let m = match_json(&s.app, s.id).await;
    assert_eq!(m["status"], "forfeit");
    assert_eq!(m["forfeit"], "a");
    assert_eq!(m["winner"], "b");
    let (_, page) = text(s.sue.get(&console).await).await;
    assert!(section(&page, "id=\"game-status\"", "</div>").contains("Team 1 forfeited"));
    assert!(!page.contains("id=\"hand-form\""));

    // A double forfeit on another match.
    let other = league_match(&s.app, &s.admin, "spring", json!("unc-im-300")).await;
    let r = s
        .sue
        .post_form(
            &format!("/supervise/matches/{other}/forfeit"),
            &[("team", "both"), ("confirm", "1")],
        )
        .await;
    assert_eq!(r.status(), 303);
    let m = match_json(&s.app, other).await;
    assert_eq!(m["forfeit"], "both");
    assert_eq!(m["winner"], Value::Null);
}

#[actix_web::test]
async fn refusals_write_nothing() {
    let s = setup().await;
    let id = s.id;
    let console = format!("/supervise/matches/{id}");

    // Anonymous: every page and post goes to the login form.
    let anon = &s.app.client;
    for path in [
        "/supervise".to_string(),
        console.clone(),
        format!("{console}/hands/1/edit"),
    ] {
        let r = anon.get(s.app.url(&path)).send().await.expect("get");
        assert_eq!(r.status(), 303, "{path}");
        assert!(location(&r).starts_with("/login"), "{path}");
    }
    // A supervisor of another league (set up before counting what is written).
    s.app.user("olga", Role::Supervisor).await;
    let other = league_match(&s.app, &s.admin, "other", json!("classic")).await;
    let r = s
        .admin
        .post(
            "/api/v1/leagues/other/supervisors",
            &json!({"username": "olga"}),
        )
        .await;
    assert_eq!(r.status(), 204);
    // Logged in now: a login writes its session row, which is no refusal's doing.
    let olga = s.app.browser("olga").await;
    let before = s.app.tables().await;
    for path in ["start", "hands", "time", "forfeit", "hands/1"] {
        let r = anon
            .post(s.app.url(&format!("{console}/{path}")))
            .form(&[("expected_version", "1"), ("team", "a"), ("confirm", "1")])
            .send()
            .await
            .expect("post");
        assert_eq!(r.status(), 303, "{path}");
        assert!(location(&r).starts_with("/login"), "{path}");
    }
    s.app
        .assert_nothing_written(&before, "nothing written")
        .await;

    // A supervisor of another league: the match does not exist for them.
    let (_, list) = text(olga.get("/supervise").await).await;
    assert!(!list.contains(&format!("id=\"match-{id}\"")));
    assert!(list.contains(&format!("id=\"match-{other}\"")), "{list}");
    assert_eq!(olga.get(&console).await.status(), 404);
    assert_eq!(
        olga.get(&format!("{console}/hands/1/edit")).await.status(),
        404
    );
    for path in ["start", "hands", "time", "forfeit"] {
        let r = olga
            .post_form(
                &format!("{console}/{path}"),
                &[("expected_version", "1"), ("team", "a"), ("confirm", "1")],
            )
            .await;
        assert_eq!(r.status(), 404, "{path}");
    }
    s.app
        .assert_nothing_written(&before, "nothing written")
        .await;
    assert_eq!(
        olga.get(&format!("/supervise/matches/{other}"))
            .await
            .status(),
        200
    );

    // Missing or wrong CSRF token: 403, nothing written.
    for path in ["start", "hands", "time", "forfeit", "hands/1"] {
        for csrf in ["", "forged"] {
            let r = s
                .sue
                .post_form(
                    &format!("{console}/{path}"),
                    &[
                        ("csrf", csrf),
                        ("expected_version", "1"),
                        ("team", "a"),
                        ("confirm", "1"),
                    ],
                )
                .await;
            assert_eq!(r.status(), 403, "{path} csrf={csrf:?}");
        }
    }
    s.app
        .assert_nothing_written(&before, "nothing written")
        .await;

    // Cross-site posts (by Origin or Sec-Fetch-Site) are refused before anything runs.
    for (name, value) in [
        ("origin", "http://evil.example"),
        ("sec-fetch-site", "cross-site"),
    ] {
        let r = s
            .sue
            .client
            .post(s.app.url(&format!("{console}/start")))
            .header(name, value)
            .form(&[("csrf", s.sue.csrf.as_str())])
            .send()
            .await
            .expect("post");
        assert_eq!(r.status(), 403, "{name}");
    }
    s.app
        .assert_nothing_written(&before, "nothing written")
        .await;

    // Stale version: two supervisors on one match; the second gets the conflict page.
    let page = start(&s, id).await;
    let stale = hidden(&page, "expected_version");
    let r = post(
        &s.sue,
        &format!("{console}/hands"),
        &hand(&stale, "k1", ["4", "4", "3", "2"], ["4", "4", "3", "2"]),
    )
    .await;
    assert_eq!(r.status(), 303);
    let before = s.app.tables().await;
    let (status, page) = text(
        post(
            &s.sue,
            &format!("{console}/hands"),
            &hand(&stale, "k2", ["4", "4", "3", "2"], ["4", "4", "3", "2"]),
        )
        .await,
    )
    .await;
    assert_eq!(status, 409);
    assert!(page.contains("id=\"conflict\""));
    assert!(page.contains(&format!("id=\"reload\" href=\"{console}\"")));
    assert!(page.contains("<strong id=\"hand-count\">1</strong>"));
    assert!(
        page.contains("<strong id=\"score-a\">70</strong>"),
        "{page}"
    );
    s.app
        .assert_nothing_written(&before, "nothing written")
        .await;
    // ... on a correction, a time call and a forfeit too.
    let mut fix = hand(&stale, "", ["4", "4", "3", "2"], ["5", "3", "3", "2"]);
    fix.push(("reason".into(), "typo".into()));
    let (status, page) = text(post(&s.sue, &format!("{console}/hands/1"), &fix).await).await;
    assert_eq!(status, 409);
    assert!(page.contains("id=\"conflict\""));
    let (status, _) = text(
        s.sue
            .post_form(
                &format!("{console}/time"),
                &[("expected_version", &stale), ("confirm", "1")],
            )
            .await,
    )
    .await;
    assert_eq!(status, 409);
    let (status, _) = text(
        s.sue
            .post_form(
                &format!("{console}/forfeit"),
                &[
                    ("expected_version", &stale),
                    ("team", "b"),
                    ("confirm", "1"),
                ],
            )
            .await,
    )
    .await;
    assert_eq!(status, 409);
    s.app
        .assert_nothing_written(&before, "nothing written")
        .await;
    // A second Start (a double tap) just shows the console.
    let r = s.sue.post_form(&format!("{console}/start"), &[]).await;
    assert_eq!(r.status(), 303);
    s.app
        .assert_nothing_written(&before, "nothing written")
        .await;
}

/// One bad input: the fields, the message expected, where it must show, and a marked field.
struct Bad {
    what: &'static str,
    fields: Vec<(String, String)>,
    message: &'static str,
    /// The message must be inside the part of the page from this marker to the next `to`.
    near: &'static str,
    to: &'static str,
    /// A substring showing the field marked (and its typed value kept).
    marked: &'static str,
}

#[actix_web::test]
async fn bad_hands_come_back_with_the_message() {
    let s = setup().await;
    let id = s.id;
    let console = format!("/supervise/matches/{id}");
    let page = start(&s, id).await;
    let v = hidden(&page, "expected_version");
    // A second league whose rules have no nil, no revokes and no blind bids (classic, nil off).
    let plain = league_match(
        &s.app,
        &s.admin,
        "plain",
        json!({"preset": "classic", "nil": null}),
    )
    .await;
    let plain_page = start(&s, plain).await;
    assert!(!plain_page.contains("value=\"nil\""), "no nil offered");
    assert!(
        !plain_page.contains("name=\"a_revokes\""),
        "no revokes offered"
    );
    let pv = hidden(&plain_page, "expected_version");

    let with = |mut fields: Vec<(String, String)>, extra: &[(&str, &str)]| {
        for (k, val) in extra {
            fields.push((k.to_string(), val.to_string()));
        }
        fields
    };
    let h = |bids: [&str; 4], tricks: [&str; 4]| hand(&v, "", bids, tricks);
    let cases = vec![
        Bad {
            what: "tricks sum to 12",
            fields: h(["4", "4", "3", "2"], ["4", "4", "3", "1"]),
            message: "tricks sum to 12, not 13",
            near: "data-field=\"tricks\"",
            to: "</p>",
            marked: "id=\"b_tricks1\" value=\"1\" aria-invalid=\"true\"",
        },
        Bad {
            what: "missing bid",
            fields: h(["4", "4", "", "2"], ["4", "4", "3", "2"]),
            message: "seat 3 has no bid",
            near: "data-seat=\"3\"",
            to: "</fieldset>",
            marked: "id=\"a_bid1\" aria-invalid=\"true\"",
        },
        Bad {
            what: "bid 14",
            fields: h(["14", "4", "3", "2"], ["4", "4", "3", "2"]),
            message: "seat 1 bid 14; a bid is 0 to 13",
            near: "data-seat=\"1\"",
            to: "</fieldset>",
            marked: "<option value=\"14\" selected>",
        },
        Bad {
            what: "blind nil at 0-0",
            fields: h(["4", "blind_nil", "3", "4"], ["4", "0", "3", "6"]),
            message: "blind nil needs the team at least 100 behind",
            near: "data-seat=\"2\"",
            to: "</fieldset>",
            marked: "id=\"b_bid0\" aria-invalid=\"true\"",
        },
        Bad {
            what: "below the minimum bid",
            fields: h(["1", "4", "2", "2"], ["4", "4", "3", "2"]),
            message: "the minimum team bid is 4",
            near: "data-team=\"a\"",
            to: "</div>",
            marked: "id=\"a_bid0\" aria-invalid=\"true\"",
        },
        Bad {
            what: "a team bids 14",
            fields: h(["7", "4", "7", "2"], ["4", "4", "3", "2"]),
            message: "a team cannot bid more than 13",
            near: "data-team=\"a\"",
            to: "</div>",
            marked: "id=\"a_bid1\" aria-invalid=\"true\"",
        },
        Bad {
            what: "non-numeric tricks",
            fields: h(["4", "4", "3", "2"], ["4", "abc", "3", "2"]),
            message: "tricks are 0 to 13",
            near: "data-seat=\"2\"",
            to: "</fieldset>",
            marked: "id=\"b_tricks0\" value=\"abc\" aria-invalid=\"true\"",
        },
        Bad {
            what: "missing tricks",
            fields: h(["4", "4", "3", "2"], ["4", "4", "", "2"]),
            message: "seat 3 has no trick count",
            near: "data-seat=\"3\"",
            to: "</fieldset>",
            marked: "id=\"a_tricks1\" value=\"\" aria-invalid=\"true\"",
        },
        Bad {
            what: "tricks 14 for one player",
            fields: h(["4", "4", "3", "2"], ["14", "0", "0", "0"]),
            message: "seat 1 took 14 tricks",
            near: "data-seat=\"1\"",
            to: "</fieldset>",
            marked: "id=\"a_tricks0\" value=\"14\" aria-invalid=\"true\"",
        },
        Bad {
            what: "revokes not a number",
            fields: with(
                h(["4", "4", "3", "2"], ["4", "4", "3", "2"]),
                &[("b_revokes", "two")],
            ),
            message: "revokes must be a number",
            near: "data-team=\"b\"",
            to: "</div>",
            marked: "id=\"b_revokes\" value=\"two\" placeholder=\"0\" aria-invalid=\"true\"",
        },
        Bad {
            what: "blind contract where the rules have no blind bids",
            fields: with(
                h(["4", "4", "3", "2"], ["4", "4", "3", "2"]),
                &[("a_blind", "1")],
            ),
            message: "these rules have no blind bids",
            near: "data-team=\"a\"",
            to: "</div>",
            marked: "",
        },
        Bad {
            what: "no version",
            fields: h(["4", "4", "3", "2"], ["4", "4", "3", "2"])
                .into_iter()
                .filter(|(k, _)| k != "expected_version")
                .collect(),
            message: "the form has no match version",
            near: "data-field=\"form\"",
            to: "</p>",
            marked: "",
        },
    ];
    let mut checked = 0;
    for bad in cases {
        if bad.message.is_empty() {
            continue;
        }
        let before = s.app.tables().await;
        let (status, page) =
            text(post(&s.sue, &format!("{console}/hands"), &bad.fields).await).await;
        assert_eq!(status, 422, "{}: {page}", bad.what);
        let near = section(&page, bad.near, bad.to);
        assert!(near.contains("id=\"hand-error\""), "{}: {near}", bad.what);
        assert!(near.contains(bad.message), "{}: {near}", bad.what);
        if !bad.marked.is_empty() {
            assert!(page.contains(bad.marked), "{}: {page}", bad.what);
        }
        s.app.assert_nothing_written(&before, bad.what).await;
        checked += 1;
    }

    // On the rules without nil, revokes: refused even when sent anyway.
    let plain_cases = [
        (
            "nil where the rules have none",
            hand(&pv, "", ["4", "nil", "3", "4"], ["4", "0", "3", "6"]),
            "these rules have no nil",
            "data-seat=\"2\"",
            "</fieldset>",
        ),
        (
            "revokes where the rules have none",
            with(
                hand(&pv, "", ["4", "4", "3", "2"], ["4", "4", "3", "2"]),
                &[("a_revokes", "1")],
            ),
            "these rules have no revoke penalty",
            "data-team=\"a\"",
            "</div>",
        ),
    ];
    for (what, fields, message, near, to) in plain_cases {
        let before = s.app.tables().await;
        let (status, page) = text(
            post(
                &s.sue,
                &format!("/supervise/matches/{plain}/hands"),
                &fields,
            )
            .await,
        )
        .await;
        assert_eq!(status, 422, "{what}: {page}");
        let near = section(&page, near, to);
        assert!(near.contains(message), "{what}: {near}");
        assert!(near.contains("id=\"hand-error\""), "{what}");
        s.app.assert_nothing_written(&before, what).await;
        checked += 1;
    }
    // The nil sent anyway is kept (and shown) so the message makes sense.
    assert!(checked >= 14);

    // A correction without a reason; with a bad hand.
    let r = post(
        &s.sue,
        &format!("{console}/hands"),
        &hand(&v, "ok", ["4", "4", "3", "2"], ["4", "4", "3", "2"]),
    )
    .await;
    assert_eq!(r.status(), 303);
    let version = match_json(&s.app, id).await["version"].to_string();
    let before = s.app.tables().await;
    let mut fix = hand(&version, "", ["4", "4", "3", "2"], ["5", "3", "3", "2"]);
    fix.push(("reason".into(), "   ".into()));
    let (status, page) = text(post(&s.sue, &format!("{console}/hands/1"), &fix).await).await;
    assert_eq!(status, 422);
    let near = section(&page, "name=\"reason\"", "</p>");
    assert!(near.contains("say why the hand is corrected"), "{near}");
    assert!(
        page.contains("id=\"reason\" rows=\"2\" maxlength=\"500\" required aria-invalid=\"true\"")
    );
    assert!(
        page.contains("id=\"a_tricks0\" value=\"5\""),
        "typed values kept"
    );
    let mut fix = hand(&version, "", ["4", "4", "3", "2"], ["5", "3", "3", "1"]);
    fix.push(("reason".into(), "recount".into()));
    let (status, page) = text(post(&s.sue, &format!("{console}/hands/1"), &fix).await).await;
    assert_eq!(status, 422);
    assert!(section(&page, "data-field=\"tricks\"", "</p>").contains("tricks sum to 12"));
    assert!(page.contains(">recount</textarea>"), "the reason is kept");
    s.app
        .assert_nothing_written(&before, "nothing written")
        .await;
    // Correcting a hand that does not exist: 404.
    assert_eq!(
        s.sue.get(&format!("{console}/hands/9/edit")).await.status(),
        404
    );
}

#[actix_web::test]
async fn blind_nil_is_offered_only_when_behind_enough() {
    let s = setup().await;
    let id = s.id;
    let console = format!("/supervise/matches/{id}");
    let page = start(&s, id).await;
    // a bids 5+4 and takes 10 (91); b bids 2+2 and takes 3 (set: -40).
    let r = post(
        &s.sue,
        &format!("{console}/hands"),
        &hand(
            &hidden(&page, "expected_version"),
            "h1",
            ["5", "2", "4", "2"],
            ["6", "1", "4", "2"],
        ),
    )
    .await;
    assert_eq!(r.status(), 303);
    let m = match_json(&s.app, id).await;
    assert_eq!(m["a"]["score"], 91);
    assert_eq!(m["b"]["score"], -40);
    let (_, page) = text(s.sue.get(&console).await).await;
    // Team b (seats 2 and 4) is 131 behind: blind nil offered to them only.
    assert!(section(&page, "name=\"b_bid0\"", "</select>").contains("value=\"blind_nil\""));
    assert!(section(&page, "name=\"b_bid1\"", "</select>").contains("value=\"blind_nil\""));
    assert!(!section(&page, "name=\"a_bid0\"", "</select>").contains("value=\"blind_nil\""));
    // And accepted.
    let r = post(
        &s.sue,
        &format!("{console}/hands"),
        &hand(
            &hidden(&page, "expected_version"),
            &hidden(&page, "idempotency_key"),
            ["4", "blind_nil", "4", "5"],
            ["4", "0", "4", "5"],
        ),
    )
    .await;
    assert_eq!(r.status(), 303);
    let m = match_json(&s.app, id).await;
    assert_eq!(m["hands"].as_array().map(Vec::len), Some(2));
}

#[actix_web::test]
async fn console_assets_are_served() {
    let app = spawn_app().await;
    for (name, kind) in [
        ("console.css", "text/css"),
        ("console.js", "text/javascript"),
    ] {
        let r = app.get(&format!("/static/{name}")).await;
        assert_eq!(r.status(), 200, "{name}");
        let ct = r
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        assert!(ct.starts_with(kind), "{name}: {ct}");
    }
    assert_eq!(app.get("/static/nope.js").await.status(), 404);
}

/// Plays the two hands that tie the match 130–130, with time called before the second.
async fn tie_on_time(s: &Setup, id: i64) -> String {
    let console = format!("/supervise/matches/{id}");
    let page = start(s, id).await;
    let r = post(
        &s.sue,
        &format!("{console}/hands"),
        &hand(
            &hidden(&page, "expected_version"),
            &hidden(&page, "idempotency_key"),
            ["4", "3", "3", "3"],
            ["4", "3", "3", "3"],
        ),
    )
    .await;
    assert_eq!(r.status(), 303);
    let (_, page) = text(s.sue.get(&console).await).await;
    let r = s
        .sue
        .post_form(
            &format!("{console}/time"),
            &[
                ("expected_version", &hidden(&page, "expected_version")),
                ("confirm", "1"),
            ],
        )
        .await;
    assert_eq!(r.status(), 303);
    let (_, page) = text(s.sue.get(&console).await).await;
    let r = post(
        &s.sue,
        &format!("{console}/hands"),
        &hand(
            &hidden(&page, "expected_version"),
            &hidden(&page, "idempotency_key"),
            ["3", "4", "3", "3"],
            ["3", "4", "3", "3"],
        ),
    )
    .await;
    assert_eq!(r.status(), 303);
    let (_, page) = text(s.sue.get(&console).await).await;
    page
}

#[actix_web::test]
async fn the_result_as_the_rules_decide_tiebreak_and_draw() {
    let s = setup().await;
    let id = s.id;
    let console = format!("/supervise/matches/{id}");

    // unc-im-300: tied when time runs out → one more hand decides.
    let page = tie_on_time(&s, id).await;
    let m = match_json(&s.app, id).await;
    assert_eq!(m["game_status"], "tiebreak");
    assert!(
        section(&page, "id=\"game-status\"", "</div>").contains("Tied: the next hand decides"),
        "{page}"
    );
    assert!(page.contains("(tie-break hand)"));
    assert!(page.contains("id=\"hand-form\""));
    let r = post(
        &s.sue,
        &format!("{console}/hands"),
        &hand(
            &hidden(&page, "expected_version"),
            &hidden(&page, "idempotency_key"),
            ["4", "3", "3", "3"],
            ["4", "3", "3", "3"],
        ),
    )
    .await;
    assert_eq!(r.status(), 303);
    let m = match_json(&s.app, id).await;
    assert_eq!(m["winner"], "a");
    assert_eq!(m["reason"], "tiebreak");
    let (_, page) = text(s.sue.get(&console).await).await;
    assert!(section(&page, "id=\"game-status\"", "</div>").contains("Team 1 won (tie-break hand)"));
    assert!(!page.contains("id=\"hand-form\""));

    // chicago-im with a clock: a regular-season tie is a draw.
    let draw = league_match(
        &s.app,
        &s.admin,
        "chicago",
        json!({"preset": "chicago-im", "time_limit_minutes": 30}),
    )
    .await;
    let page = tie_on_time(&s, draw).await;
    let m = match_json(&s.app, draw).await;
    assert_eq!(m["game_status"], "tied");
    assert_eq!(m["status"], "complete");
    assert!(section(&page, "id=\"game-status\"", "</div>").contains("Draw"));
    assert!(!page.contains("id=\"hand-form\""));
}

#[actix_web::test]
async fn tonight_lists_matches_in_play_first_and_misdeals_pass_the_deal() {
    let s = setup().await;
    // A second match in the same league, left scheduled.
    let teams: Vec<i64> = {
        let m = match_json(&s.app, s.id).await;
        vec![
            m["team_a"]["id"].as_i64().expect("a"),
            m["team_b"]["id"].as_i64().expect("b"),
        ]
    };
    let later: Value = s
        .admin
        .post(
            "/api/v1/leagues/fall/matches",
            &json!({"team_a": teams[1], "team_b": teams[0], "table": "2"}),
        )
        .await
        .json()
        .await
        .expect("match");
    let later = later["id"].as_i64().expect("id");
    let page = start(&s, s.id).await;
    let (_, list) = text(s.sue.get("/supervise").await).await;
    let live = list.find(&format!("id=\"match-{}\"", s.id)).expect("live");
    let scheduled = list
        .find(&format!("id=\"match-{later}\""))
        .expect("scheduled");
    assert!(live < scheduled, "in play first");
    // Both tonight's (the second has no time: listed under "No time set").
    assert!(section(&list, "id=\"today\"", "</ul>").contains(&format!("match-{}", s.id)));
    assert!(section(&list, "id=\"untimed\"", "</ul>").contains(&format!("match-{later}")));

    // A misdeal: recorded, nothing scored, the deal moves on.
    let console = format!("/supervise/matches/{}", s.id);
    let r = s
        .sue
        .post_form(
            &format!("{console}/hands"),
            &[
                ("expected_version", &hidden(&page, "expected_version")),
                ("idempotency_key", &hidden(&page, "idempotency_key")),
                ("misdeal", "1"),
            ],
        )
        .await;
    assert_eq!(r.status(), 303);
    let m = match_json(&s.app, s.id).await;
    assert_eq!(m["hands"][0]["misdeal"], true);
    assert_eq!(m["a"]["score"], 0);
    let (_, page) = text(s.sue.get(&console).await).await;
    assert!(page.contains("<strong id=\"dealer\">2</strong>"));
    assert!(section(&page, "data-hand=\"1\"", "</tr>").contains("misdeal"));
}

// ---------------------------------------------------------------------------------------
// Conduct at the table from the console: check-in, the forfeit offered after the grace
// period, sportsmanship ratings.

const CONDUCT_SETTINGS: &str = r#"{"forfeit": {"grace_minutes": 10},
    "sportsmanship": {"min": 1, "max": 5, "forfeit_rating": 1, "required": true},
    "eligibility": {"min_sportsmanship": 3.0}}"#;

struct ConductSetup {
    app: TestApp,
    admin: Api,
    sue: Browser,
    clock: std::sync::Arc<spades_im::domain::ManualTime>,
    teams: Vec<i64>,
}

/// League `fall` (games to 100, the settings above, four teams) supervised by `sue`, on a
/// manual clock at 18:50 UTC on Monday 23 November 2026 (the league's zone is UTC).
async fn conduct_setup() -> ConductSetup {
    let (clock, time) = crate::helpers::manual_clock("2026-11-23T18:50:00Z", chrono_tz::UTC);
    let app = crate::helpers::spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.user("sue", Role::Supervisor).await;
    let teams = app
        .league(
            &admin,
            "fall",
            json!({"preset": "unc-im-300", "target": 100}),
            4,
        )
        .await;
    let settings: Value = serde_json::from_str(CONDUCT_SETTINGS).unwrap();
    let r = admin
        .client
        .patch(app.url("/api/v1/leagues/fall"))
        .bearer_auth(&admin.token)
        .json(&json!({ "settings": settings }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "settings");
    let r = admin
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "sue"}),
        )
        .await;
    assert_eq!(r.status(), 204);
    let sue = app.browser("sue").await;
    ConductSetup {
        app,
        admin,
        sue,
        clock: time,
        teams,
    }
}

/// A match of `fall` between teams `a` and `b` (indexes) at 19:00 that evening.
async fn match_at_seven(s: &ConductSetup, a: usize, b: usize) -> i64 {
    let r = s
        .admin
        .post(
            "/api/v1/leagues/fall/matches",
            &json!({"team_a": s.teams[a], "team_b": s.teams[b], "table": "3",
                    "scheduled_at": "2026-11-23T19:00"}),
        )
        .await;
    let m = crate::helpers::json_with_status(r, 201, "a match at 19:00").await;
    m["id"].as_i64().unwrap()
}

#[actix_web::test]
async fn teams_check_in_on_the_console_and_the_absent_one_is_offered_a_forfeit() {
    let s = conduct_setup().await;
    let id = match_at_seven(&s, 0, 1).await;
    let console = format!("/supervise/matches/{id}");

    // Before the match: a check-in button per team, and when the grace period ends.
    let (status, page) = text(s.sue.get(&console).await).await;
    assert_eq!(status, 200);
    assert!(
        section(&page, "id=\"check-in-a\"", "</button>").contains("Team 1 is here"),
        "{page}"
    );
    assert!(section(&page, "id=\"check-in-b\"", "</button>").contains("Team 2 is here"));
    assert!(
        section(&page, "id=\"grace\"", "</p>")
            .contains("Grace period ends at <strong id=\"grace-ends\">Mon 23 Nov, 19:10</strong>"),
        "{page}"
    );
    assert!(!page.contains("id=\"absent-"), "nobody is late yet");

    // Without or with a wrong CSRF token: 403, nothing written.
    let before = s.app.tables().await;
    for csrf in ["", "forged"] {
        let r = s
            .sue
            .post_form(
                &format!("{console}/check-in"),
                &[("csrf", csrf), ("team", "a"), ("present", "1")],
            )
            .await;
        assert_eq!(r.status(), 403, "csrf={csrf:?}");
    }
    s.app
        .assert_nothing_written(&before, "a check-in without the CSRF token")
        .await;
    // Anonymous: to the login form, nothing written.
    let r = s
        .app
        .client
        .post(s.app.url(&format!("{console}/check-in")))
        .form(&[("team", "a"), ("present", "1")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    assert!(location(&r).starts_with("/login"));
    s.app
        .assert_nothing_written(&before, "an anonymous check-in")
        .await;

    // Team 1 is here: back to the console (POST/redirect/GET), which says since when.
    let r = s
        .sue
        .post_form(
            &format!("{console}/check-in"),
            &[("team", "a"), ("present", "1")],
        )
        .await;
    assert_eq!(r.status(), 303);
    assert_eq!(location(&r), console);
    assert_eq!(
        match_json(&s.app, id).await["checked_in"],
        json!({"a": "2026-11-23T18:50:00Z", "b": null})
    );
    let (_, page) = text(s.sue.get(&console).await).await;
    assert!(
        section(&page, "id=\"checked-in-a-text\"", "</span>")
            .contains("Team 1 checked in Mon 23 Nov, 18:50"),
        "{page}"
    );
    assert!(page.contains("id=\"undo-check-in-a\""));
    assert!(!page.contains("id=\"check-in-a\""));
    assert!(page.contains("id=\"check-in-b\""));

    // 19:12: the grace period has passed with team 2 absent; the console offers the
    // forfeit, through a confirmation. Nothing forfeits by itself.
    s.clock.advance(chrono::Duration::minutes(22));
    let (_, page) = text(s.sue.get(&console).await).await;
    assert!(!page.contains("id=\"grace\""));
    let alert = section(&page, "id=\"absent-b\"", "</div>");
    assert!(
        alert.contains("Team 2 has not checked in, 12 minutes after the match time."),
        "{alert}"
    );
    assert!(alert.contains("role=\"alert\""));
    assert!(
        alert.contains(&format!("href=\"{console}/forfeit?team=b\"")),
        "{alert}"
    );
    assert!(section(&page, "id=\"offer-forfeit-b\"", "</a>").contains("Forfeit Team 2…"));
    assert!(!page.contains("id=\"absent-a\""), "team 1 is here");
    assert_eq!(match_json(&s.app, id).await["status"], "scheduled");

    // The confirmation page says what will happen and writes nothing.
    let before = s.app.tables().await;
    let (status, confirm) = text(s.sue.get(&format!("{console}/forfeit?team=b")).await).await;
    assert_eq!(status, 200);
    assert!(
        section(&confirm, "id=\"forfeit-effect\"", "</p>")
            .contains("Team 2 forfeits: Team 1 wins; the match ends."),
        "{confirm}"
    );
    assert!(section(&confirm, "id=\"forfeit-rating\"", "</p>").contains("rated 1"));
    assert!(confirm.contains("id=\"record-forfeit\""));
    assert!(confirm.contains(&format!("id=\"forfeit-back\" href=\"{console}\"")));
    assert!(confirm.contains("name=\"confirm\" value=\"1\""));
    // No team, or a team that does not exist: back to the console.
    for query in ["", "?team=c"] {
        let r = s.sue.get(&format!("{console}/forfeit{query}")).await;
        assert_eq!(r.status(), 303, "{query}");
        assert_eq!(location(&r), console);
    }
    s.app
        .assert_nothing_written(&before, "the confirmation page")
        .await;

    // A wrong tap taken back: Undo.
    let r = s
        .sue
        .post_form(
            &format!("{console}/check-in"),
            &[("team", "a"), ("present", "0")],
        )
        .await;
    assert_eq!(r.status(), 303);
    assert_eq!(match_json(&s.app, id).await["checked_in"]["a"], Value::Null);
    let (_, page) = text(s.sue.get(&console).await).await;
    // Now both are absent: one offer, the double forfeit (not a win for an absent team).
    assert!(
        !page.contains("id=\"offer-forfeit-a\""),
        "no single forfeit offered"
    );
    assert!(
        !page.contains("id=\"offer-forfeit-b\""),
        "no single forfeit offered"
    );
    assert!(
        section(&page, "id=\"absent-both\"", "</div>").contains("Neither team has checked in"),
        "both absent"
    );
    assert!(page.contains(&format!("/supervise/matches/{id}/forfeit?team=both")));

    // Once started, a check-in is refused: the console again (409) with the message.
    s.admin.start_match(id).await;
    let before = s.app.tables().await;
    let (status, page) = text(
        s.sue
            .post_form(
                &format!("{console}/check-in"),
                &[("team", "b"), ("present", "1")],
            )
            .await,
    )
    .await;
    assert_eq!(status, 409);
    let message = section(&page, "id=\"console-conflict\"", "</section>");
    assert!(message.contains("role=\"alert\""), "{message}");
    assert!(message.contains("Not saved"), "{message}");
    assert!(message.contains("this one is in progress"), "{message}");
    assert!(page.contains("id=\"hand-form\""), "the console itself");
    assert!(!page.contains("id=\"check-in-b\""));
    s.app
        .assert_nothing_written(&before, "a check-in after the start")
        .await;
    // And a started match offers no forfeit confirmation any more once over.
    let r = s
        .sue
        .post_form(
            &format!("{console}/forfeit"),
            &[("team", "b"), ("confirm", "1")],
        )
        .await;
    assert_eq!(r.status(), 303);
    let r = s.sue.get(&format!("{console}/forfeit?team=a")).await;
    assert_eq!(r.status(), 303, "the match is over");
}

#[actix_web::test]
async fn ratings_on_the_console_come_back_with_the_values_kept() {
    let s = conduct_setup().await;
    let id = match_at_seven(&s, 0, 1).await;
    let console = format!("/supervise/matches/{id}");
    let (_, page) = text(s.sue.get(&console).await).await;
    assert!(
        !page.contains("id=\"ratings\""),
        "no ratings before the end"
    );
    // Before the end, a rating posted anyway: the console with the message.
    let before = s.app.tables().await;
    let (status, page) = text(
        s.sue
            .post_form(
                &format!("{console}/sportsmanship"),
                &[("a", "4"), ("b", "4")],
            )
            .await,
    )
    .await;
    assert_eq!(status, 409);
    assert!(
        section(&page, "id=\"console-conflict\"", "</section>")
            .contains("once the match is complete"),
        "{page}"
    );
    s.app
        .assert_nothing_written(&before, "a rating before the end")
        .await;

    // Played to the end (two hands of 71): the console asks for both ratings.
    let hands = [
        crate::helpers::hand_of([4, 3], [4, 4], [3, 3], [2, 3]),
        crate::helpers::hand_of([4, 3], [4, 4], [3, 3], [2, 3]),
    ];
    let done = s.admin.play_hands(id, &hands).await;
    assert_eq!(done["status"], "complete");
    let (_, page) = text(s.sue.get(&console).await).await;
    assert!(
        section(&page, "id=\"rating-missing\"", "</p>").contains("Rating missing"),
        "{page}"
    );
    let a = section(&page, "id=\"rating-a\"", "</fieldset>");
    assert!(
        a.contains("<legend>Sportsmanship of Team 1</legend>"),
        "{a}"
    );
    for v in 1..=5 {
        assert!(
            a.contains(&format!("type=\"radio\" name=\"a\" value=\"{v}\"")),
            "{v}: {a}"
        );
    }
    assert!(!a.contains("value=\"6\"") && !a.contains("value=\"0\""));
    assert!(page.contains("id=\"rating-note\""));
    assert!(section(&page, "id=\"save-ratings\"", "</button>").contains("Save ratings"));
    // Tonight's list says so too.
    let (_, list) = text(s.sue.get("/supervise").await).await;
    assert!(
        section(&list, &format!("id=\"match-{id}\""), "</a>").contains("rating missing"),
        "{list}"
    );

    // Off the scale: 422, the console with the summary at the top and the message at the
    // field, everything chosen kept; nothing written.
    let before = s.app.tables().await;
    let (status, page) = text(
        s.sue
            .post_form(
                &format!("{console}/sportsmanship"),
                &[("a", "6"), ("b", "4"), ("note", "Team 2 argued every call")],
            )
            .await,
    )
    .await;
    assert_eq!(status, 422);
    let summary = section(&page, "id=\"rating-error\"", "</p>");
    assert!(summary.contains("role=\"alert\""), "{summary}");
    assert!(summary.contains("autofocus"), "{summary}");
    assert!(
        summary.contains("a rating is 1 to 5 in this league, not 6"),
        "{summary}"
    );
    assert!(
        page.find("id=\"rating-error\"") < page.find("id=\"score-a\""),
        "the summary is at the top"
    );
    let a = section(&page, "id=\"rating-a\"", "</fieldset>");
    assert!(a.contains("aria-describedby=\"rating-a-error\""), "{a}");
    assert!(
        a.contains("value=\"6\" id=\"rating-a-6\" checked aria-invalid=\"true\""),
        "the value sent is kept and marked: {a}"
    );
    assert!(
        section(a, "id=\"rating-a-error\"", "</p>").contains("1 to 5"),
        "the message at the field: {a}"
    );
    let b = section(&page, "id=\"rating-b\"", "</fieldset>");
    assert!(b.contains("value=\"4\" id=\"rating-b-4\" checked"), "{b}");
    assert!(!b.contains("aria-invalid"), "{b}");
    assert!(
        section(&page, "id=\"rating-note\"", "</textarea>").contains("Team 2 argued every call"),
        "the note is kept"
    );
    // A team not rated at all.
    let (status, page) = text(
        s.sue
            .post_form(&format!("{console}/sportsmanship"), &[("b", "2")])
            .await,
    )
    .await;
    assert_eq!(status, 422);
    assert!(
        section(&page, "id=\"rating-a-error\"", "</p>").contains("choose a rating for Team 1"),
        "{page}"
    );
    assert!(
        section(&page, "id=\"rating-b\"", "</fieldset>")
            .contains("value=\"2\" id=\"rating-b-2\" checked")
    );
    s.app
        .assert_nothing_written(&before, "refused ratings")
        .await;

    // Saved: back to the console, which shows them and offers a change, pre-filled.
    let r = s
        .sue
        .post_form(
            &format!("{console}/sportsmanship"),
            &[("a", "4"), ("b", "2"), ("note", "Team 2 argued every call")],
        )
        .await;
    assert_eq!(r.status(), 303);
    assert_eq!(location(&r), console);
    let m = match_json(&s.app, id).await;
    // The public read leaves the note out; the console keeps it in the form.
    assert_eq!(
        m["sportsmanship"],
        json!({"a": 4, "b": 2, "note": null, "missing": false})
    );
    let (_, page) = text(s.sue.get(&console).await).await;
    assert!(
        page.contains("Team 2 argued every call"),
        "the note on the console"
    );
    assert!(!page.contains("id=\"rating-missing\""));
    assert!(section(&page, "id=\"rated-a\"", "</strong>").contains('4'));
    assert!(section(&page, "id=\"rated-b\"", "</strong>").contains('2'));
    assert!(page.contains("id=\"change-ratings\""));
    assert!(page.contains("value=\"4\" id=\"rating-a-4\" checked"));
    assert!(page.contains("value=\"2\" id=\"rating-b-2\" checked"));
    let (_, list) = text(s.sue.get("/supervise").await).await;
    assert!(!section(&list, &format!("id=\"match-{id}\""), "</a>").contains("rating missing"));

    // A forfeited match: the forfeiting team's rating is fixed, shown and not asked.
    let other = match_at_seven(&s, 2, 3).await;
    let r = s
        .sue
        .post_form(
            &format!("/supervise/matches/{other}/forfeit"),
            &[("team", "b"), ("confirm", "1")],
        )
        .await;
    assert_eq!(r.status(), 303);
    let (_, page) = text(s.sue.get(&format!("/supervise/matches/{other}")).await).await;
    assert!(
        page.contains("id=\"rating-missing\""),
        "team 3 is not rated yet"
    );
    assert!(
        section(&page, "id=\"rating-b-fixed\"", "</p>").contains("rated 1 (forfeit)"),
        "{page}"
    );
    assert!(page.contains("<input type=\"hidden\" name=\"b\" value=\"1\">"));
    assert!(
        !page.contains("name=\"b\" value=\"3\""),
        "no buttons for team 4"
    );
    let r = s
        .sue
        .post_form(
            &format!("/supervise/matches/{other}/sportsmanship"),
            &[("a", "5"), ("b", "1")],
        )
        .await;
    assert_eq!(r.status(), 303);
    let m = match_json(&s.app, other).await;
    assert_eq!(m["sportsmanship"]["a"], 5);
    assert_eq!(m["sportsmanship"]["b"], 1);
    assert_eq!(m["sportsmanship"]["missing"], false);
}

// ---------------------------------------------------------------------------------------
// The console on a phone, without JavaScript: a refused post opens at one error summary
// (focused, "Error:" in the title, a link to each bad field, the teams named); calling time
// and a forfeit take a second, different button; bids grouped; one time format.

/// The page's `<title>`.
fn title(html: &str) -> &str {
    section(html, "<title>", "</title>")
        .trim_start_matches("<title>")
        .trim()
}

/// The error summary `id` of a page: focused on load, an alert, before the match's heading.
fn error_summary<'a>(page: &'a str, id: &str) -> &'a str {
    let at = page
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no summary {id}: {page}"));
    let open = page[..at].rfind('<').unwrap_or(at);
    let tag = &page[open..at + page[at..].find('>').unwrap_or(0)];
    for part in [
        "<div class=\"error-summary\"",
        "role=\"alert\"",
        "tabindex=\"-1\"",
        "autofocus",
    ] {
        assert!(tag.contains(part), "{id}: {part} in {tag}");
    }
    assert!(
        page.find("<h1").is_some_and(|h1| at < h1),
        "the summary is at the top: {page}"
    );
    section(page, &format!("id=\"{id}\""), "</div>")
}

/// Whether `html` says "team a" or "team b" (a side as the API names it) as words.
fn names_a_side(html: &str) -> bool {
    let lower = html.to_lowercase();
    ["team a", "team b"].iter().any(|side| {
        lower.match_indices(side).any(|(at, _)| {
            let before = lower[..at].chars().next_back();
            let after = lower[at + side.len()..].chars().next();
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
        })
    })
}

/// A link of the summary to field `target`, which is in the page and marked.
fn links_to(page: &str, summary: &str, target: &str) {
    assert!(
        summary.contains(&format!("href=\"#{target}\"")),
        "a link to #{target}: {summary}"
    );
    assert!(
        page.contains(&format!("id=\"{target}\"")),
        "#{target} exists"
    );
}

#[actix_web::test]
async fn refused_posts_open_at_an_error_summary_linking_to_the_fields() {
    let s = setup().await;
    let id = s.id;
    let console = format!("/supervise/matches/{id}");
    let page = start(&s, id).await;
    assert!(!title(&page).starts_with("Error"), "{}", title(&page));
    let v = hidden(&page, "expected_version");
    let h = |bids: [&str; 4], tricks: [&str; 4]| hand(&v, "", bids, tricks);
    // (what, fields, the field linked, the message in the summary)
    let cases = [
        (
            "tricks sum to 12",
            h(["4", "4", "3", "2"], ["4", "4", "3", "1"]),
            "a_tricks0",
            "tricks sum to 12, not 13",
        ),
        (
            "missing bid",
            h(["4", "4", "", "2"], ["4", "4", "3", "2"]),
            "a_bid1",
            "seat 3 has no bid",
        ),
        (
            "missing tricks",
            h(["4", "4", "3", "2"], ["4", "4", "3", ""]),
            "b_tricks1",
            "seat 4 has no trick count",
        ),
        (
            "below the minimum bid",
            h(["1", "4", "2", "2"], ["4", "4", "3", "2"]),
            "a_bid0",
            "Team 1 bid 3; the minimum team bid is 4",
        ),
        (
            "revokes not a number",
            {
                let mut f = h(["4", "4", "3", "2"], ["4", "4", "3", "2"]);
                f.push(("b_revokes".into(), "two".into()));
                f
            },
            "b_revokes",
            "revokes must be a number",
        ),
        (
            "no version",
            h(["4", "4", "3", "2"], ["4", "4", "3", "2"])
                .into_iter()
                .filter(|(k, _)| k != "expected_version")
                .collect(),
            "hand-form",
            "the form has no match version",
        ),
    ];
    for (what, fields, target, message) in cases {
        let before = s.app.tables().await;
        let (status, page) = text(post(&s.sue, &format!("{console}/hands"), &fields).await).await;
        assert_eq!(status, 422, "{what}");
        assert!(
            title(&page).starts_with("Error: "),
            "{what}: {}",
            title(&page)
        );
        let summary = error_summary(&page, "error-summary");
        assert!(
            summary.contains("The hand was not recorded"),
            "{what}: {summary}"
        );
        assert!(summary.contains(message), "{what}: {summary}");
        links_to(&page, summary, target);
        if target != "hand-form" {
            assert!(
                section(&page, &format!("id=\"{target}\""), ">")
                    .contains("aria-invalid=\"true\" aria-describedby=\"hand-error\""),
                "{what}: the field is marked and described by its message"
            );
        }
        // One message at the field, and the sides named as the teams.
        assert_eq!(page.matches("id=\"hand-error\"").count(), 1, "{what}");
        assert!(!names_a_side(&page), "{what}: {page}");
        s.app.assert_nothing_written(&before, what).await;
    }

    // A correction without a reason: the summary links to the reason.
    let r = post(
        &s.sue,
        &format!("{console}/hands"),
        &hand(&v, "ok", ["4", "4", "3", "2"], ["4", "4", "3", "2"]),
    )
    .await;
    assert_eq!(r.status(), 303);
    let version = match_json(&s.app, id).await["version"].to_string();
    let before = s.app.tables().await;
    let mut fix = hand(&version, "", ["4", "4", "3", "2"], ["5", "3", "3", "2"]);
    fix.push(("reason".into(), " ".into()));
    let (status, page) = text(post(&s.sue, &format!("{console}/hands/1"), &fix).await).await;
    assert_eq!(status, 422);
    assert!(
        title(&page).starts_with("Error: Correct hand 1"),
        "{}",
        title(&page)
    );
    let summary = error_summary(&page, "error-summary");
    assert!(
        summary.contains("The correction was not saved"),
        "{summary}"
    );
    assert!(
        summary.contains("say why the hand is corrected"),
        "{summary}"
    );
    links_to(&page, summary, "reason");
    assert!(page.contains("aria-invalid=\"true\" aria-describedby=\"hand-error\""));
    s.app
        .assert_nothing_written(&before, "a correction without a reason")
        .await;

    // A forfeit without the confirmation: the box open, the summary links to the team's
    // button, whose group is described by the message.
    let (status, page) = text(
        s.sue
            .post_form(
                &format!("{console}/forfeit"),
                &[("expected_version", &version), ("team", "b")],
            )
            .await,
    )
    .await;
    assert_eq!(status, 422);
    assert!(title(&page).starts_with("Error: "), "{}", title(&page));
    let summary = error_summary(&page, "error-summary");
    assert!(
        summary.contains("The forfeit was not recorded"),
        "{summary}"
    );
    links_to(&page, summary, "forfeit-b");
    assert!(page.contains("id=\"forfeit-box\" open"));
    assert!(page.contains("aria-describedby=\"forfeit-error\""));
    s.app
        .assert_nothing_written(&before, "a forfeit without confirmation")
        .await;
}

#[actix_web::test]
async fn calling_time_and_forfeiting_take_a_second_different_button() {
    let s = setup().await;
    let id = s.id;
    let console = format!("/supervise/matches/{id}");
    let page = start(&s, id).await;
    // The first tap opens the confirmation (no script needed): a <details> whose form holds
    // the second button, with its own words.
    let clock = section(&page, "id=\"clock\"", "</section>");
    assert!(clock.contains("<details class=\"confirm-step\" id=\"call-time-box\">"));
    assert!(clock.contains("id=\"call-time\""), "{clock}");
    let yes = section(clock, "id=\"call-time-confirm\"", "</button>");
    assert!(
        yes.contains("Yes, call time now — the next hand is the last"),
        "{yes}"
    );
    assert!(clock.contains("name=\"confirm\" value=\"1\""));
    assert!(!page.contains("confirm("), "no browser dialog");

    // Posted without the confirmation: nothing called, nothing written; the console shows
    // the confirmation open.
    let version = hidden(&page, "expected_version");
    let before = s.app.tables().await;
    let (status, page) = text(
        s.sue
            .post_form(
                &format!("{console}/time"),
                &[("expected_version", &version)],
            )
            .await,
    )
    .await;
    assert_eq!(status, 200);
    assert!(page.contains("id=\"call-time-box\" open"), "{page}");
    assert!(page.contains("id=\"call-time-confirm\""));
    assert_eq!(match_json(&s.app, id).await["time_called_at"], Value::Null);
    s.app
        .assert_nothing_written(&before, "a time call without the confirmation")
        .await;
    // With it: called.
    let r = s
        .sue
        .post_form(
            &format!("{console}/time"),
            &[("expected_version", &version), ("confirm", "1")],
        )
        .await;
    assert_eq!(r.status(), 303);
    assert!(match_json(&s.app, id).await["time_called_at"].is_string());

    // A forfeit: the team's button is a GET of the confirmation page (nothing written),
    // whose button says what happens.
    let (_, page) = text(s.sue.get(&console).await).await;
    assert!(page.contains(&format!(
        "<form method=\"get\" action=\"{console}/forfeit\" id=\"forfeit\">"
    )));
    let form = section(&page, "id=\"forfeit\"", "</form>");
    assert!(
        !form.contains("name=\"confirm\""),
        "the first tap confirms nothing"
    );
    assert!(section(form, "id=\"forfeit-a\"", "</button>").contains("Team 1 forfeits…"));
    let before = s.app.tables().await;
    for (team, effect, button) in [
        (
            "a",
            "Team 1 forfeits: Team 2 wins; the match ends.",
            "Yes, record the forfeit: Team 2 wins",
        ),
        (
            "both",
            "Both teams forfeit: nobody wins, it is a loss for both; the match ends.",
            "Yes, record the double forfeit",
        ),
    ] {
        let (status, confirm) =
            text(s.sue.get(&format!("{console}/forfeit?team={team}")).await).await;
        assert_eq!(status, 200, "{team}");
        assert!(
            section(&confirm, "id=\"forfeit-effect\"", "</p>").contains(effect),
            "{confirm}"
        );
        assert!(section(&confirm, "id=\"record-forfeit\"", "</button>").contains(button));
        assert!(confirm.contains(&format!("name=\"team\" value=\"{team}\"")));
        assert!(confirm.contains("name=\"confirm\" value=\"1\""));
    }
    s.app
        .assert_nothing_written(&before, "the forfeit's confirmation pages")
        .await;
}

#[actix_web::test]
async fn bids_are_grouped_and_the_scoresheet_has_a_card_per_hand() {
    let s = setup().await;
    let id = s.id;
    let console = format!("/supervise/matches/{id}");
    let page = start(&s, id).await;
    let select = section(&page, "name=\"a_bid0\"", "</select>");
    let numbers = section(select, "<optgroup label=\"Number bids\">", "</optgroup>");
    let nils = section(select, "<optgroup label=\"Nil bids\">", "</optgroup>");
    assert!(
        numbers.contains("<option value=\"0\">0</option>"),
        "{select}"
    );
    assert!(
        numbers.contains("<option value=\"13\">13</option>"),
        "{select}"
    );
    assert!(!numbers.contains("nil"), "{select}");
    assert!(
        nils.contains("<option value=\"nil\">Nil</option>"),
        "{select}"
    );
    // "0" is never next to "Nil": 13 ends the numbers, the nil bids come apart.
    let options: Vec<&str> = select
        .split("<option value=\"")
        .skip(1)
        .map(|o| &o[..o.find('"').unwrap_or(0)])
        .collect();
    for pair in options.windows(2) {
        assert!(
            !(pair.contains(&"0") && pair.contains(&"nil")),
            "{options:?}"
        );
    }

    // Two hands, the first corrected: a card each, with its Correct button inside it.
    for key in ["k1", "k2"] {
        let (_, page) = text(s.sue.get(&console).await).await;
        let r = post(
            &s.sue,
            &format!("{console}/hands"),
            &hand(
                &hidden(&page, "expected_version"),
                key,
                ["4", "4", "3", "2"],
                ["4", "4", "3", "2"],
            ),
        )
        .await;
        assert_eq!(r.status(), 303);
    }
    let (_, edit) = text(s.sue.get(&format!("{console}/hands/1/edit")).await).await;
    let mut fix = hand(
        &hidden(&edit, "expected_version"),
        "",
        ["4", "4", "3", "2"],
        ["5", "3", "3", "2"],
    );
    fix.push(("reason".into(), "seat 1 took 5".into()));
    assert_eq!(
        post(&s.sue, &format!("{console}/hands/1"), &fix)
            .await
            .status(),
        303
    );
    let (_, page) = text(s.sue.get(&console).await).await;
    let card = section(&page, "id=\"card-1\"", "</li>");
    for part in [
        "Hand 1",
        "Team 1",
        "Team 2",
        ">Bid<",
        ">Took<",
        ">Points<",
        "Score",
        "Corrected (revision 2): seat 1 took 5",
        "id=\"correct-1\"",
        &format!("href=\"{console}/hands/1/edit\""),
    ] {
        assert!(card.contains(part), "{part}: {card}");
    }
    assert!(section(&page, "id=\"card-2\"", "</li>").contains("id=\"correct-2\""));
    // The wide table keeps its links under other ids (one element per id).
    assert!(page.contains("id=\"correct-1-wide\""));
    assert_eq!(page.matches("id=\"correct-1\"").count(), 1);
    assert!(page.contains("class=\"scroll sheet-wide\""));
}

/// The breakdown on a hand's card, in words, from the scored hand: a bag penalty, a failed
/// nil, a set 10-for-200 (here 10-for-120) and a misdeal.
#[actix_web::test]
async fn hand_cards_say_the_points_in_words() {
    let s = setup().await;
    let console = format!("/supervise/matches/{}", s.id);
    let hands = [
        // a bids 7 and takes 13: made 7 +70, 6 bags +6, and the 6th bag costs 60.
        json!({"a": {"bids": [4, 3], "tricks": [7, 6]}, "b": {"bids": [2, 2], "tricks": [0, 0]}}),
        // a: a failed nil; b: 10 bid, 9 taken: a set 10-for-120 loses 100.
        json!({"a": {"bids": ["nil", 4], "tricks": [1, 3]}, "b": {"bids": [5, 5], "tricks": [5, 4]}}),
        json!({"misdeal": true}),
    ];
    let m = s.admin.play_hands(s.id, &hands).await;
    assert_eq!(m["hands"].as_array().map(Vec::len), Some(3), "{m}");
    let (status, page) = text(s.sue.get(&console).await).await;
    assert_eq!(status, 200);
    let points = |card: &str| -> Vec<String> {
        section(&page, &format!("id=\"card-{card}\""), "</li>")
            .split("<td class=\"breakdown\">")
            .skip(1)
            .map(|cell| cell[..cell.find("</td>").unwrap_or(0)].to_string())
            .collect()
    };
    assert_eq!(
        points("1"),
        [
            "+16: made 7 +70, 6 bags +6, bag penalty \u{2212}60",
            "\u{2212}40: set 4 \u{2212}40"
        ]
    );
    let second = points("2");
    assert!(second[0].contains("nil failed \u{2212}60"), "{second:?}");
    assert_eq!(second[1], "\u{2212}100: set 10 (10-for-120) \u{2212}100");
    assert_eq!(points("3"), ["0", "0"], "a misdeal scores nothing");
}

#[actix_web::test]
async fn the_console_shows_times_one_way_in_the_leagues_zone() {
    let s = conduct_setup().await;
    let id = match_at_seven(&s, 0, 1).await;
    let console = format!("/supervise/matches/{id}");
    let r = s
        .sue
        .post_form(
            &format!("{console}/check-in"),
            &[("team", "a"), ("present", "1")],
        )
        .await;
    assert_eq!(r.status(), 303);
    let (_, page) = text(s.sue.get(&console).await).await;
    assert!(
        section(&page, "id=\"scheduled-at\"", "</span>").contains("Mon 23 Nov, 19:00"),
        "{page}"
    );
    assert!(section(&page, "id=\"checked-in-a-text\"", "</span>").contains("Mon 23 Nov, 18:50"));
    assert!(section(&page, "id=\"grace-ends\"", "</strong>").contains("Mon 23 Nov, 19:10"));
    // 19:05: started; the clock ends at 19:35 (games of unc-im-300 last 30 minutes).
    s.clock.advance(chrono::Duration::minutes(15));
    let m = s.admin.start_match(id).await;
    let (_, page) = text(s.sue.get(&console).await).await;
    assert!(
        section(&page, "id=\"clock-ends\"", "</span>").contains("ends Mon 23 Nov, 19:35"),
        "{page}"
    );
    // A hand at 19:07, corrected at 19:09: the history in the same format.
    s.clock.advance(chrono::Duration::minutes(2));
    let m = s
        .admin
        .enter_hand(&m, &crate::helpers::hand_of([4, 3], [4, 4], [3, 3], [2, 3]))
        .await;
    s.clock.advance(chrono::Duration::minutes(2));
    let r = s
        .admin
        .correct_hand(
            &m,
            1,
            &crate::helpers::hand_of([4, 3], [5, 3], [3, 3], [2, 3]),
            "recount",
            false,
        )
        .await;
    assert_eq!(r.status(), 200);
    let (_, edit) = text(s.sue.get(&format!("{console}/hands/1/edit")).await).await;
    let history = section(&edit, "id=\"history\"", "</ol>");
    assert!(history.contains("Mon 23 Nov, 19:07"), "{history}");
    assert!(history.contains("Mon 23 Nov, 19:09"), "{history}");
    assert!(!history.contains("UTC"), "{history}");
    assert!(
        history.contains("Team 1: bid 4 + 3"),
        "the teams named: {history}"
    );
    // Time called at 19:10.
    s.clock.advance(chrono::Duration::minutes(1));
    let version = match_json(&s.app, id).await["version"].to_string();
    let r = s
        .sue
        .post_form(
            &format!("{console}/time"),
            &[("expected_version", &version), ("confirm", "1")],
        )
        .await;
    assert_eq!(r.status(), 303);
    let (_, page) = text(s.sue.get(&console).await).await;
    assert!(
        section(&page, "id=\"time-called\"", "</p>").contains("Time called Mon 23 Nov, 19:10"),
        "{page}"
    );
}

#[actix_web::test]
async fn conduct_refusals_open_at_the_summary_too() {
    let s = conduct_setup().await;
    let id = match_at_seven(&s, 0, 1).await;
    let console = format!("/supervise/matches/{id}");
    // A check-in once started: 409, the summary on top, "Error:" in the title.
    s.admin.start_match(id).await;
    let (status, page) = text(
        s.sue
            .post_form(
                &format!("{console}/check-in"),
                &[("team", "a"), ("present", "1")],
            )
            .await,
    )
    .await;
    assert_eq!(status, 409);
    assert!(title(&page).starts_with("Error: "), "{}", title(&page));
    let summary = error_summary(&page, "console-conflict");
    links_to(&page, summary, "game-status");
    // A rating off the scale: the summary links to the team's first button.
    let other = match_at_seven(&s, 2, 3).await;
    let hands = [
        crate::helpers::hand_of([4, 3], [4, 4], [3, 3], [2, 3]),
        crate::helpers::hand_of([4, 3], [4, 4], [3, 3], [2, 3]),
    ];
    assert_eq!(
        s.admin.play_hands(other, &hands).await["status"],
        "complete"
    );
    let (status, page) = text(
        s.sue
            .post_form(
                &format!("/supervise/matches/{other}/sportsmanship"),
                &[("a", "9"), ("b", "4")],
            )
            .await,
    )
    .await;
    assert_eq!(status, 422);
    assert!(title(&page).starts_with("Error: "), "{}", title(&page));
    let summary = error_summary(&page, "rating-error");
    assert!(
        summary.contains("a rating is 1 to 5 in this league, not 9"),
        "{summary}"
    );
    links_to(&page, summary, "rating-a-1");
}

/// The console's scoring engine (static/rules.wasm, built from rules-wasm/) is served as
/// WebAssembly, the very bytes of the file, so browsers compile it as it streams in.
#[actix_web::test]
async fn the_engine_is_served_as_webassembly() {
    let app = spawn_app().await;
    let response = app.get("/static/rules.wasm").await;
    assert_eq!(response.status(), 200);
    let kind = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(kind, "application/wasm");
    let body = response.bytes().await.unwrap();
    assert!(body.starts_with(b"\0asm"), "a WebAssembly module");
    let file = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/static/rules.wasm")).unwrap();
    assert_eq!(&body[..], &file[..]);
}
