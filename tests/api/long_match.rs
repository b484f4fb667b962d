//! A match of 150 hands: every page and export shows it whole, and its idempotency keys cost
//! the same at hand 150 as at hand 1.
//!
//! - The API's match read, the supervisor's console (hand 150 on the sheet and its card, the
//!   form for hand 151), the public match page with its chart, the scoresheet CSV (150 hand
//!   rows), the scoreboard and its TV mode: each answers 200 with hand 150 and the totals the
//!   API gives.
//! - (In a phone-sized Chromium, the console of this match loads and takes hand 151:
//!   `browser_phone::a_150_hand_console_loads_on_a_phone_and_takes_the_next_hand`.)
//! - Each hand was sent with an idempotency key; what a key stores does not grow with the
//!   hands before it (docs/api.md §7.3: the answer is rebuilt from the hands, not kept).

use serde_json::{Value, json};
use spades_im::domain::words::points;
use spades_im::service::Role;

use crate::helpers::{TestApp, html_text, manual_clock, spawn_app_with_clock};

/// Hands in the match.
pub(crate) const HANDS: usize = 150;

/// Hand `k`: every bid 0 (a number under "partnership", not nil), so every trick is a bag
/// and every tenth bag costs 100: the scores sink and never reach the target, so the game
/// goes on. The tricks vary with `k`, so each hand's row differs.
fn bag_hand(k: usize) -> Value {
    let t = (k as i64 * 5) % 14;
    let r = 13 - t;
    json!({"a": {"bids": [0, 0], "tricks": [t / 2, t - t / 2]},
           "b": {"bids": [0, 0], "tricks": [r / 2, r - r / 2]}})
}

fn key(k: usize) -> String {
    format!("long-{k}")
}

/// A league "long" under "partnership", supervisor "sue", and a match at table "9" played to
/// [`HANDS`] hands, each with its idempotency key, on a clock that stands still (no time
/// limit runs out). The app and the API's answer to the last hand.
pub(crate) async fn long_match() -> (TestApp, Value) {
    let (clock, _) = manual_clock("2026-11-23T19:00:00Z", chrono_tz::UTC);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.user("sue", Role::Supervisor).await;
    let teams = app.league(&admin, "long", json!("partnership"), 2).await;
    let r = admin
        .post(
            "/api/v1/leagues/long/supervisors",
            &json!({"username": "sue"}),
        )
        .await;
    assert_eq!(r.status(), 204, "sue supervises long");
    let m = admin.add_match("long", teams[0], teams[1], "9").await;
    let id = m["id"].as_i64().unwrap();
    let mut m = admin.start_match(id).await;
    for k in 1..=HANDS {
        let r = admin
            .post(
                &format!("/api/v1/matches/{id}/hands"),
                &json!({"hand": bag_hand(k), "expected_version": m["version"],
                        "idempotency_key": key(k)}),
            )
            .await;
        m = crate::helpers::json_with_status(r, 201, &format!("hand {k}")).await;
        assert_eq!(m["status"], "in_progress", "hand {k} does not end the game");
    }
    (app, m)
}

#[actix_web::test]
async fn a_150_hand_match_reads_whole_on_every_page_and_export() {
    let (app, last) = long_match().await;
    let id = last["id"].as_i64().unwrap();

    // The API: 150 hands, the last numbered 150, its running score the match's totals.
    let r = app.get(&format!("/api/v1/matches/{id}")).await;
    let m = crate::helpers::json_with_status(r, 200, "the match").await;
    let hands = m["hands"].as_array().unwrap();
    assert_eq!(hands.len(), HANDS);
    assert_eq!(hands[HANDS - 1]["number"], HANDS);
    let (a, b) = (
        m["a"]["score"].as_i64().unwrap(),
        m["b"]["score"].as_i64().unwrap(),
    );
    assert_eq!(hands[HANDS - 1]["a"]["score"], a, "{}", hands[HANDS - 1]);
    assert_eq!(hands[HANDS - 1]["b"]["score"], b, "{}", hands[HANDS - 1]);
    assert!(a < 0 && b < 0, "the scores sank: {a}, {b}");
    assert_eq!(
        m["version"], last["version"],
        "the last answer is the match"
    );
    let (name_a, name_b) = (
        m["team_a"]["name"].as_str().unwrap(),
        m["team_b"]["name"].as_str().unwrap(),
    );

    // The console: hand 150's row and card, the totals, and the form for hand 151.
    let sue = app.browser("sue").await;
    let r = sue.get(&format!("/supervise/matches/{id}")).await;
    assert_eq!(r.status(), 200, "the console");
    let console = r.text().await.unwrap();
    for part in [
        format!("id=\"hand-{HANDS}\""),
        format!("id=\"card-{HANDS}\""),
        // A negative score with its minus sign (U+2212), as every page writes it.
        format!("<strong id=\"score-a\">{}</strong>", points(a)),
        format!("<strong id=\"score-b\">{}</strong>", points(b)),
        format!("<h2 id=\"hand-title\">Hand {}</h2>", HANDS + 1),
        "id=\"hand-form\"".to_string(),
    ] {
        assert!(console.contains(&part), "the console shows {part}");
    }

    // The public match page: hand 150's row, and the chart's last points and its title.
    let r = app.get(&format!("/matches/{id}")).await;
    assert_eq!(r.status(), 200, "the match page");
    let page = r.text().await.unwrap();
    for part in [
        format!("id=\"hand-{HANDS}\""),
        format!("class=\"pt-a\" data-hand=\"{HANDS}\""),
        format!("class=\"pt-b\" data-hand=\"{HANDS}\""),
        format!("<title>Hand {HANDS}: {name_a} {a}</title>"),
        format!("<title>Hand {HANDS}: {name_b} {b}</title>"),
    ] {
        assert!(page.contains(&part), "the match page shows {part}");
    }
    let at = page.find("<title id=\"chart-title\">").expect("the chart");
    let chart_title = html_text(&page[at..at + page[at..].find("</title>").unwrap()]);
    assert!(
        chart_title.contains(&format!("{name_a} {}, {name_b} {}", points(a), points(b))),
        "the chart's title: {chart_title}"
    );

    // The scoresheet CSV: a header and 150 hand rows, the last with the totals.
    let r = app.get(&format!("/matches/{id}/scoresheet.csv")).await;
    assert_eq!(r.status(), 200, "the CSV");
    let text = r.text().await.unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().unwrap().clone();
    let column = |name: &str| header.iter().position(|h| h == name).expect(name);
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), HANDS, "one row per hand");
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row[column("number")], (i + 1).to_string());
    }
    let row = &rows[HANDS - 1];
    assert_eq!(row[column("a_score")], a.to_string());
    assert_eq!(row[column("b_score")], b.to_string());

    // The scoreboard and the TV: the totals, and hand 151 in play on the TV.
    let r = app.get("/scoreboard").await;
    assert_eq!(r.status(), 200, "the scoreboard");
    let board = r.text().await.unwrap();
    let r = app.get("/scoreboard?tv=1").await;
    assert_eq!(r.status(), 200, "the TV");
    let tv = r.text().await.unwrap();
    for (what, html) in [("the scoreboard", &board), ("the TV", &tv)] {
        for part in [
            format!("id=\"board-{id}-score-a\">{}</strong>", points(a)),
            format!("id=\"board-{id}-score-b\">{}</strong>", points(b)),
        ] {
            assert!(html.contains(&part), "{what} shows {part}");
        }
    }
    assert!(
        tv.contains(&format!("<span>Hand {}</span>", HANDS + 1)),
        "the TV shows hand 151 in play"
    );
}

/// The bytes each idempotency key of the match stores (every column: text by its length, a
/// number as 8), by hand.
async fn key_sizes(app: &TestApp) -> Vec<(usize, usize)> {
    use sqlx::Row;
    let mut sizes: Vec<(usize, usize)> = spades_im::on_store!(app.db.read().await.unwrap(), |c| {
        let rows = sqlx::query("SELECT * FROM idempotency_keys")
            .fetch_all(c)
            .await
            .unwrap();
        rows.iter()
            .map(|row| {
                let mut bytes = 0;
                let mut hand = 0;
                for i in 0..row.len() {
                    if let Ok(text) = row.try_get::<Option<String>, _>(i) {
                        let text = text.unwrap_or_default();
                        if let Some(k) = text.strip_prefix("long-") {
                            hand = k.parse().unwrap();
                        }
                        bytes += text.len();
                    } else if let Ok(number) = row.try_get::<Option<i64>, _>(i) {
                        bytes += number.map_or(0, |_| 8);
                    }
                }
                (hand, bytes)
            })
            .collect()
    });
    sizes.sort_unstable();
    sizes
}

#[actix_web::test]
async fn an_idempotency_key_stores_as_much_at_hand_150_as_at_hand_1() {
    let (app, _) = long_match().await;
    let sizes = key_sizes(&app).await;
    assert_eq!(
        sizes.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
        (1..=HANDS).collect::<Vec<_>>(),
        "one key per hand"
    );
    let (first, last) = (sizes[0].1, sizes[HANDS - 1].1);
    let (least, most) = (
        sizes.iter().map(|(_, b)| *b).min().unwrap(),
        sizes.iter().map(|(_, b)| *b).max().unwrap(),
    );
    println!("idempotency key bytes: hand 1 {first}, hand {HANDS} {last}, {least}–{most}");
    // The keys differ only in their digits (key, version, the hand's tricks): a few bytes.
    assert!(
        last <= first + 16,
        "hand {HANDS}'s key stores {last} bytes, hand 1's {first}: it grows with the match"
    );
    assert!(
        most - least <= 16,
        "the keys store {least} to {most} bytes: they grow with the match"
    );
}
