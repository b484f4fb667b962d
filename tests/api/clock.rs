//! The service through time, on a clock the test moves (`helpers::manual_clock`): a time
//! limit run out by the clock, a session that expires, "tonight" across midnight and "this
//! week" across a daylight-saving change, with the server in a time zone of the league's
//! choosing (not the machine's).
//!
//! Each test was checked against a planted bug (named in its doc comment) that made it fail.

use chrono::Duration;
use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{manual_clock, spawn_app_with_clock};

fn hand(a_bids: [i64; 2], a_tricks: [i64; 2], b_bids: [i64; 2], b_tricks: [i64; 2]) -> Value {
    json!({"a": {"bids": a_bids, "tricks": a_tricks}, "b": {"bids": b_bids, "tricks": b_tricks}})
}

/// Under `unc-im-300` (30 minutes), the clock running past the limit makes the next hand
/// the last one: it is marked time-called and the game is won on time, with no supervisor
/// calling time. `ends_at` is the start plus the limit, exactly.
/// Planted bug that fails it: `time_expired` comparing with the machine's clock instead of
/// the service's (the hand is then not marked).
#[actix_web::test]
async fn the_time_limit_runs_out_by_the_clock() {
    let (clock, time) = manual_clock("2026-11-24T00:00:00Z", chrono_tz::America::New_York);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "fall", json!("unc-im-300"), 2).await;
    let m: Value = admin
        .post(
            "/api/v1/leagues/fall/matches",
            &json!({"team_a": teams[0], "team_b": teams[1]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let id = m["id"].as_i64().unwrap();
    let started: Value = admin
        .post(&format!("/api/v1/matches/{id}/start"), &json!({}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(started["started_at"], "2026-11-24T00:00:00Z");
    assert_eq!(started["ends_at"], "2026-11-24T00:30:00Z");
    // 29 minutes in: a hand like any other.
    time.advance(Duration::minutes(29));
    let r = admin
        .post(
            &format!("/api/v1/matches/{id}/hands"),
            &json!({"hand": hand([4, 3], [4, 4], [2, 2], [3, 2]), "expected_version": started["version"]}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let after_one: Value = r.json().await.unwrap();
    assert_eq!(after_one["hands"][0]["time_called"], false);
    assert_eq!(after_one["status"], "in_progress");
    // 31 minutes in: the clock ran out, so this hand is the time-called last one.
    time.advance(Duration::minutes(2));
    let r = admin
        .post(
            &format!("/api/v1/matches/{id}/hands"),
            &json!({"hand": hand([3, 3], [3, 3], [3, 4], [3, 4]), "expected_version": after_one["version"]}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let last: Value = r.json().await.unwrap();
    assert_eq!(last["hands"][1]["time_called"], true);
    assert_eq!(last["status"], "complete");
    assert_eq!(last["game_status"], "won");
    assert_eq!(last["reason"], "time");
    // A: 71 + 60 = 131, B: 41 + 70 = 111.
    assert_eq!(
        (last["a"]["score"].as_i64(), last["b"]["score"].as_i64()),
        (Some(131), Some(111))
    );
    assert_eq!(last["winner"], "a");
    // The audit log is stamped by the same clock.
    let mut conn = app.db.read().await.unwrap();
    let at: String = spades_im::on_store!(conn, |c| sqlx::query_scalar(
        "SELECT max(at) FROM audit_log"
    )
    .fetch_one(c)
    .await)
    .unwrap();
    assert_eq!(at, "2026-11-24T00:31:00Z");
}

/// A login lasts 12 hours on the service's clock: at 11:59 the account page is served, at
/// 12:00:01 the browser is sent to the login form.
/// Planted bug that fails it: the session query comparing `expires_at` with the machine's
/// time.
#[actix_web::test]
async fn a_session_expires_after_twelve_hours() {
    let (clock, time) = manual_clock("2030-01-01T08:00:00Z", chrono_tz::Europe::London);
    let app = spawn_app_with_clock(clock).await;
    app.user("sup", Role::Supervisor).await;
    let browser = app.browser("sup").await;
    time.advance(Duration::hours(11) + Duration::minutes(59));
    assert_eq!(browser.get("/account").await.status(), 200);
    time.advance(Duration::minutes(1) + Duration::seconds(1));
    let r = browser.get("/account").await;
    assert_eq!(r.status(), 303);
    assert!(
        r.headers()["location"]
            .to_str()
            .unwrap()
            .starts_with("/login")
    );
}

/// "Tonight" is the league's calendar day, not UTC's nor the machine's: in London in June
/// (BST, UTC+1), at 23:30 UTC it is already the next day, 00:30, so a match scheduled for
/// that day's evening is today's; half an hour earlier it is tomorrow's.
/// Planted bug that fails it: taking "today" from the UTC date (or the machine's zone, UTC
/// on CI).
#[actix_web::test]
async fn tonight_turns_at_the_leagues_midnight() {
    let (clock, time) = manual_clock("2026-06-10T22:30:00Z", chrono_tz::Europe::London);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "summer", json!("classic"), 2).await;
    app.user("sam", Role::Supervisor).await;
    let r = admin
        .post(
            "/api/v1/leagues/summer/supervisors",
            &json!({"username": "sam"}),
        )
        .await;
    assert!(r.status().is_success());
    let m: Value = admin
        .post(
            "/api/v1/leagues/summer/matches",
            &json!({"team_a": teams[0], "team_b": teams[1], "scheduled_at": "2026-06-11T19:00"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let id = m["id"].as_i64().unwrap();
    let sam = app.browser("sam").await;
    let card = |page: &str| -> String {
        let start = page
            .find(&format!("id=\"match-{id}\""))
            .expect("the match is on the list");
        page[start..start + page[start..].find("</a>").unwrap()].to_string()
    };
    // 23:30 BST on the 10th: the match is tomorrow's.
    let page = sam.get("/supervise").await.text().await.unwrap();
    assert!(!card(&page).contains("today"), "{}", card(&page));
    // 00:30 BST on the 11th (23:30 UTC on the 10th): it is today's.
    time.advance(Duration::hours(1));
    let page = sam.get("/supervise").await.text().await.unwrap();
    assert!(
        card(&page).contains("<strong>today</strong>"),
        "{}",
        card(&page)
    );
}

/// "This week" on a league's home is three days either side of the league's wall-clock
/// now: in New York when the clocks go forward (01:59 EST → 03:00 EDT, two real minutes),
/// the window's end moves an hour and a minute, so a match at 02:30 three days later comes
/// into the week.
/// Planted bug that fails it: computing the window in UTC (or in the machine's zone).
#[actix_web::test]
async fn this_week_follows_the_leagues_clock_across_daylight_saving() {
    let (clock, time) = manual_clock("2026-03-08T06:59:00Z", chrono_tz::America::New_York);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "spring", json!("classic"), 2).await;
    let r = admin
        .post(
            "/api/v1/leagues/spring/matches",
            &json!({"team_a": teams[0], "team_b": teams[1], "scheduled_at": "2026-03-11T02:30", "table": "Table 9"}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let week = |page: String| -> String {
        let start = page.find("<h2>This week</h2>").expect("this week");
        let end = page[start..].find("<h2>").map_or(page.len(), |e| {
            page[start + 4..]
                .find("<h2>")
                .map_or(page.len(), |f| start + 4 + f)
                .max(start + e)
        });
        page[start..end].to_string()
    };
    // 01:59 EST: the week ends 2026-03-11T01:59, before the match.
    let page = app.get("/leagues/spring").await.text().await.unwrap();
    assert!(!week(page.clone()).contains("Table 9"), "{}", week(page));
    // Two minutes later it is 03:01 EDT: the week ends 03:01 on the 11th, after it.
    time.advance(Duration::minutes(2));
    let page = app.get("/leagues/spring").await.text().await.unwrap();
    assert!(week(page.clone()).contains("Table 9"), "{}", week(page));
}

/// "Tonight's matches" is tonight's: on a Wednesday evening in Chicago the list opens with the
/// match in play, then tonight's scheduled match, then tonight's finished one; tomorrow's and
/// Saturday's are folded under "Later this week", Monday's unplayed match and last week's
/// result under "Earlier", an untimed match under "No time set"; a match two weeks out is
/// not listed at all.
/// Planted bug that fails it: bucketing a finished match by its UTC start date (the
/// evening's 21:00 Chicago start is the next day in UTC).
#[actix_web::test]
async fn tonight_opens_on_today_and_folds_the_rest_of_the_week() {
    // Wednesday 25 November 2026, 21:30 in Chicago (03:30 UTC on the 26th).
    let (clock, time) = manual_clock("2026-11-26T03:00:00Z", chrono_tz::America::Chicago);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    let t = app.league(&admin, "fall", json!("classic"), 8).await;
    let add = |a: usize, b: usize, at: Option<&str>| {
        let body = match at {
            Some(at) => json!({"team_a": t[a], "team_b": t[b], "scheduled_at": at}),
            None => json!({"team_a": t[a], "team_b": t[b]}),
        };
        let admin = &admin;
        async move {
            let m: Value = admin
                .post("/api/v1/leagues/fall/matches", &body)
                .await
                .json()
                .await
                .unwrap();
            m["id"].as_i64().unwrap()
        }
    };
    let finished_tonight = add(0, 1, Some("2026-11-25T21:00")).await;
    let in_play = add(2, 3, Some("2026-11-25T21:00")).await;
    let tonight_later = add(4, 5, Some("2026-11-25T22:30")).await;
    let tomorrow = add(6, 7, Some("2026-11-26T19:00")).await;
    let saturday = add(0, 2, Some("2026-11-28T19:00")).await;
    let monday_unplayed = add(1, 3, Some("2026-11-23T19:00")).await;
    let far = add(4, 6, Some("2026-12-09T19:00")).await;
    let untimed = add(5, 7, None).await;
    let last_week = add(1, 2, Some("2026-11-18T19:00")).await;
    // Last week's result, played then.
    time.set(
        chrono::DateTime::parse_from_rfc3339("2026-11-19T01:00:00Z")
            .unwrap()
            .to_utc(),
    );
    let r = admin
        .post(
            &format!("/api/v1/matches/{last_week}/forfeit"),
            &json!({"team": "a"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    // Tonight, 21:00 Chicago = 03:00 UTC the next day.
    time.set(
        chrono::DateTime::parse_from_rfc3339("2026-11-26T03:00:00Z")
            .unwrap()
            .to_utc(),
    );
    admin.start_match(finished_tonight).await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{finished_tonight}/forfeit"),
            &json!({"team": "b"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    admin.start_match(in_play).await;
    time.advance(Duration::minutes(30));

    app.user("boss", Role::Admin).await;
    let boss = app.browser("boss").await;
    let html = boss.get("/supervise").await.text().await.unwrap();
    let ids_in = |id: &str| -> Vec<i64> {
        let Some(start) = html.find(&format!("id=\"{id}\"")) else {
            return Vec::new();
        };
        let end = start + html[start..].find("</ul>").unwrap();
        html[start..end]
            .split("id=\"match-")
            .skip(1)
            .map(|s| s[..s.find('"').unwrap()].parse().unwrap())
            .collect()
    };
    assert!(html.contains("Today, Wed 25 Nov"), "{html}");
    assert_eq!(ids_in("today"), [in_play, tonight_later, finished_tonight]);
    assert_eq!(ids_in("later"), [tomorrow, saturday]);
    assert_eq!(ids_in("earlier"), [monday_unplayed, last_week]);
    assert_eq!(ids_in("untimed"), [untimed]);
    assert!(
        !html.contains(&format!("id=\"match-{far}\"")),
        "two weeks out"
    );
    // Only today's section is open.
    for folded in ["later-box", "earlier-box", "untimed-box"] {
        let tag_start = html.find(&format!("id=\"{folded}\"")).unwrap();
        let tag = &html[tag_start..tag_start + html[tag_start..].find('>').unwrap()];
        assert!(!tag.contains("open"), "{folded}: {tag}");
    }
}

/// The time left on the console of a match, in words.
async fn time_left(browser: &crate::helpers::Browser, id: i64) -> String {
    let html = browser
        .get(&format!("/supervise/matches/{id}"))
        .await
        .text()
        .await
        .unwrap();
    let clock = crate::helpers::html_element(&html, "time-left", "</strong>")
        .unwrap_or_else(|| panic!("the console shows a clock: {html}"));
    crate::helpers::html_text(clock)
}

/// The service's clock set back during a timed match (`unc-im-300`, 30 minutes): the time
/// left follows the clock but never shows more than the limit (a clock before the start reads
/// as the start) nor less than zero; a hand entered meanwhile is an ordinary one; after the
/// limit has passed and the clock goes back, time is no longer up (the service's clock is the
/// match's clock, docs/scoring.md §8.3); a time call made with the clock before the start is
/// recorded at the start, stays made whatever the clock does, and marks the next hand, which
/// ends the game on time.
/// Planted bugs that fail it: the console's time left computed from the clock unbounded
/// ("35:00 left" on a 30-minute clock), and the time call recorded at the clock's time (before
/// `started_at`).
#[actix_web::test]
async fn the_match_clock_going_backwards_never_shows_more_than_the_limit() {
    let start = "2026-11-24T00:00:00Z";
    let at = |minutes: i64| {
        chrono::DateTime::parse_from_rfc3339(start)
            .unwrap()
            .to_utc()
            + Duration::minutes(minutes)
    };
    let (clock, time) = manual_clock(start, chrono_tz::America::New_York);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.user("boss", Role::Admin).await;
    let boss = app.browser("boss").await;
    let teams = app.league(&admin, "fall", json!("unc-im-300"), 2).await;
    let id = admin.add_match("fall", teams[0], teams[1], "T1").await["id"]
        .as_i64()
        .unwrap();
    let started = admin.start_match(id).await;
    assert_eq!(started["ends_at"], "2026-11-24T00:30:00Z");
    assert_eq!(time_left(&boss, id).await, "30:00 left");
    time.set(at(10));
    assert_eq!(time_left(&boss, id).await, "20:00 left");
    // Back 15 minutes, before the start: the whole limit, no more.
    time.set(at(-5));
    assert_eq!(time_left(&boss, id).await, "30:00 left");
    let m = admin
        .enter_hand(&started, &hand([4, 3], [4, 4], [2, 2], [3, 2]))
        .await;
    assert_eq!(m["hands"][0]["time_called"], false, "{m}");
    assert_eq!(
        m["ends_at"], "2026-11-24T00:30:00Z",
        "the end does not move"
    );
    // Past the limit, then back within it: the clock decides.
    time.set(at(31));
    assert_eq!(time_left(&boss, id).await, "Time is up: finish this hand");
    time.set(at(25));
    assert_eq!(time_left(&boss, id).await, "5:00 left");
    // Time called with the clock ten minutes before the start: recorded at the start.
    time.set(at(-10));
    let r = admin
        .post(
            &format!("/api/v1/matches/{id}/time"),
            &json!({"expected_version": m["version"]}),
        )
        .await;
    let called = crate::helpers::json_with_status(r, 200, "call time").await;
    assert_eq!(called["time_called_at"], "2026-11-24T00:00:00Z", "{called}");
    assert_eq!(called["started_at"], "2026-11-24T00:00:00Z");
    assert_eq!(time_left(&boss, id).await, "Time is up: finish this hand");
    time.set(at(-20));
    assert_eq!(time_left(&boss, id).await, "Time is up: finish this hand");
    // The next hand is the last: A 71 + 60 = 131, B 41 + 70 = 111, won on time.
    let last = admin
        .enter_hand(&called, &hand([3, 3], [3, 3], [3, 4], [3, 4]))
        .await;
    assert_eq!(last["hands"][1]["time_called"], true, "{last}");
    assert_eq!(last["status"], "complete");
    assert_eq!(last["reason"], "time");
    assert_eq!(last["winner"], "a");
    for page in [format!("/matches/{id}"), format!("/supervise/matches/{id}")] {
        assert_eq!(boss.get(&page).await.status(), 200, "{page}");
    }
}

async fn sessions(app: &crate::helpers::TestApp) -> i64 {
    let mut conn = app.db.read().await.unwrap();
    spades_im::on_store!(conn, |c| sqlx::query_scalar(
        "SELECT count(*) FROM sessions"
    )
    .fetch_one(c)
    .await)
    .unwrap()
}

/// A session ends 12 hours after login on the service's clock, and stays ended: seen expired
/// once, it does not come back when the clock is set back. Setting the clock back while it
/// is live (even before the login) does not end it.
/// Planted bug that fails it: `session_user` leaving an expired session in place (the
/// stateless `expires_at > now` check alone lets the clock revive it).
#[actix_web::test]
async fn a_session_seen_expired_stays_expired_when_the_clock_goes_back() {
    let login = chrono::DateTime::parse_from_rfc3339("2030-01-01T08:00:00Z")
        .unwrap()
        .to_utc();
    let (clock, time) = manual_clock("2030-01-01T08:00:00Z", chrono_tz::Europe::London);
    let app = spawn_app_with_clock(clock).await;
    app.user("sup", Role::Supervisor).await;
    let browser = app.browser("sup").await;
    // Back two hours, before the login: still logged in.
    time.set(login - Duration::hours(2));
    assert_eq!(browser.get("/account").await.status(), 200);
    time.set(login + Duration::hours(11) + Duration::minutes(59));
    assert_eq!(browser.get("/account").await.status(), 200);
    assert_eq!(sessions(&app).await, 1);
    // Expired: sent to the login form, and the session is gone.
    time.set(login + Duration::hours(12) + Duration::seconds(1));
    let r = browser.get("/account").await;
    assert_eq!(r.status(), 303);
    assert!(
        r.headers()["location"]
            .to_str()
            .unwrap()
            .starts_with("/login")
    );
    assert_eq!(sessions(&app).await, 0);
    // The clock set back an hour: the session stays ended.
    time.set(login + Duration::hours(11));
    assert_eq!(browser.get("/account").await.status(), 303);
    // A new login works at that time.
    let again = app.browser("sup").await;
    assert_eq!(again.get("/account").await.status(), 200);
}
