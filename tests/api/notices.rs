//! Notices by email against a real SMTP server (tests/smtp/sink.py, aiosmtpd): a postponed
//! match mails both teams' players and the league's supervisors once, no one else; a relay
//! that refuses for a while gets the notice later, once; nothing is sent without a relay.

use std::time::Duration;

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{
    Api, TestApp, json_with_status, manual_clock, spawn_app, spawn_app_with_mail,
};
use crate::smtp_sink::{Mail, Sink};

/// League `fall` with four teams, each with two players with emails (`p{team}{seat}@…`),
/// a supervisor with an email (`Sue@Staff.test`), and a match of teams 1 and 2; the admin and the match.
pub(crate) async fn league(app: &TestApp) -> (Api, Value, Vec<i64>) {
    league_with(app, json!("unc-im-300")).await
}

/// As [`league`], under `rules`.
pub(crate) async fn league_with(app: &TestApp, rules: Value) -> (Api, Value, Vec<i64>) {
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "fall", rules, 4).await;
    for (i, team) in teams.iter().enumerate() {
        for seat in 1..=2 {
            let r = admin
                .post(
                    &format!("/api/v1/teams/{team}/players"),
                    &json!({"name": format!("Player {i}{seat}"),
                            "email": format!("p{}{seat}@students.test", i + 1)}),
                )
                .await;
            json_with_status(r, 201, "a player").await;
        }
    }
    app.user("sue", Role::Supervisor).await;
    let r = admin
        .client
        .patch(app.url("/api/v1/users/sue"))
        .bearer_auth(&admin.token)
        .json(&json!({"email": "Sue@Staff.test"}))
        .send()
        .await
        .expect("patch sue");
    json_with_status(r, 200, "sue's email").await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "sue"}),
        )
        .await;
    assert_eq!(r.status(), 204, "sue supervises fall");
    let m = admin.add_match("fall", teams[0], teams[1], "Table 1").await;
    (admin, m, teams)
}

/// Waits until the sink holds `n` messages (at most 20 s), and a second more for any extra.
pub(crate) async fn wait_for(sink: &Sink, n: usize) -> Vec<Mail> {
    let until = std::time::Instant::now() + Duration::from_secs(20);
    while sink.messages().len() < n && std::time::Instant::now() < until {
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    actix_web::rt::time::sleep(Duration::from_secs(1)).await;
    sink.messages()
}

/// Waits (at most 20 s) until `n` notices have had their first try refused by the relay:
/// each pending with `attempts` 1 and the relay's 451 in `last_error`. Panics with the list
/// otherwise.
pub(crate) async fn refused_once(admin: &Api, n: usize) {
    let until = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let r = admin.get("/api/v1/notices?status=pending").await;
        let list = json_with_status(r, 200, "pending notices").await;
        let notices = list["notices"].as_array().cloned().unwrap_or_default();
        let refused = notices.iter().all(|n| {
            n["attempts"] == 1 && n["last_error"].as_str().is_some_and(|e| e.contains("451"))
        });
        if notices.len() == n && refused {
            return;
        }
        assert!(
            std::time::Instant::now() < until,
            "{n} notices tried once and refused, by now: {list}"
        );
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The `Message-ID` of each message in `mails`, by its recipients.
fn message_ids(mails: &[Mail]) -> std::collections::BTreeMap<String, String> {
    mails
        .iter()
        .map(|m| (m.to.join(","), m.header("Message-ID").unwrap_or_default()))
        .collect()
}

async fn postpone(admin: &Api, m: &Value, reason: &str) {
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/postpone", m["id"]),
            &json!({"reason": reason, "expected_version": m["version"]}),
        )
        .await;
    json_with_status(r, 200, "postpone").await;
}

#[actix_web::test]
async fn a_postponement_mails_both_teams_once_and_no_one_else() {
    let sink = Sink::start();
    let (clock, _time) = manual_clock("2026-11-27T15:00:00Z", chrono_tz::America::Chicago);
    let app = spawn_app_with_mail(&sink.url(), clock).await;
    let (admin, m, _) = league(&app).await;
    postpone(&admin, &m, "the rec center is closed for the storm").await;

    let mails = wait_for(&sink, 5).await;
    let mut to: Vec<String> = mails.iter().flat_map(|m| m.to.clone()).collect();
    to.sort();
    assert_eq!(
        to,
        [
            "p11@students.test",
            "p12@students.test",
            "p21@students.test",
            "p22@students.test",
            "sue@staff.test"
        ],
        "both teams' players and the league's supervisor, once each, no one of teams 3 and 4"
    );
    for mail in &mails {
        let subject = mail.header("Subject").unwrap_or_default();
        assert!(subject.contains("postponed"), "{subject}");
        assert!(
            mail.raw.contains("the rec center is closed for the storm"),
            "the reason"
        );
        assert!(
            mail.raw.contains("http://spades.test/matches/"),
            "the match linked"
        );
        let unsubscribe = mail.header("List-Unsubscribe").unwrap_or_default();
        assert!(
            unsubscribe.starts_with("<http://spades.test/unsubscribe/"),
            "{unsubscribe}"
        );
        assert_eq!(
            mail.header("List-Unsubscribe-Post").as_deref(),
            Some("List-Unsubscribe=One-Click")
        );
        assert!(
            mail.header("Message-ID")
                .is_some_and(|id| id.ends_with("@spades.test>"))
        );
        assert!(mail.raw.contains("text/plain") && mail.raw.contains("text/html"));
    }
}

#[actix_web::test]
async fn a_relay_that_refuses_for_a_while_gets_each_notice_later_once() {
    let sink = Sink::start();
    let (clock, time) = manual_clock("2026-11-27T15:00:00Z", chrono_tz::America::Chicago);
    let app = spawn_app_with_mail(&sink.url(), clock).await;
    let (admin, m, _) = league(&app).await;
    sink.refuse(Some("451 4.3.0 the relay is busy"));
    postpone(&admin, &m, "storm").await;
    // The first tries are made and refused (each notice says so); none is tried again
    // before its backoff, since the service's clock stands still.
    refused_once(&admin, 5).await;
    assert_eq!(sink.refused().len(), 5, "each notice tried once");
    assert!(sink.messages().is_empty());
    sink.refuse(None);
    // The retries are due within 30 s of the refusal (the service's clock).
    time.advance(chrono::Duration::seconds(31));
    let mails = wait_for(&sink, 5).await;
    assert_eq!(
        mails.len(),
        5,
        "each notice once: {:?}",
        mails.iter().map(|m| &m.to).collect::<Vec<_>>()
    );
    let ids: std::collections::BTreeSet<_> = mails
        .iter()
        .filter_map(|m| m.header("Message-ID"))
        .collect();
    assert_eq!(ids.len(), 5, "one Message-ID per notice");
}

/// A notice tried again after a refusal is the same message: its `Message-ID` is the one the
/// refused try carried (so a relay or mail program that saw the first can tell a repeat).
#[actix_web::test]
async fn a_retried_notice_keeps_its_message_id() {
    let sink = Sink::start();
    let (clock, time) = manual_clock("2026-11-27T15:00:00Z", chrono_tz::America::Chicago);
    let app = spawn_app_with_mail(&sink.url(), clock).await;
    let (admin, m, _) = league(&app).await;
    sink.refuse(Some("451 4.3.0 the relay is busy"));
    postpone(&admin, &m, "storm").await;
    refused_once(&admin, 5).await;
    let first = message_ids(&sink.refused());
    assert_eq!(first.len(), 5, "{first:?}");
    sink.refuse(None);
    time.advance(chrono::Duration::seconds(31));
    let mails = wait_for(&sink, 5).await;
    assert_eq!(mails.len(), 5);
    assert_eq!(
        message_ids(&mails),
        first,
        "each retry keeps its Message-ID"
    );
}

#[actix_web::test]
async fn nothing_is_written_or_sent_without_a_relay() {
    let app = spawn_app().await;
    let (admin, m, _) = league(&app).await;
    postpone(&admin, &m, "storm").await;
    let mut conn = app.db.read().await.expect("a connection");
    let all = spades_im::db::notices::list(&mut conn, None, None, 100)
        .await
        .expect("notices");
    assert!(all.is_empty(), "{all:?}");
}

/// The token of the unsubscribe link in `mail`.
fn unsubscribe_token(mail: &Mail) -> String {
    let link = mail.header("List-Unsubscribe").unwrap_or_default();
    link.trim_matches(['<', '>'])
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string()
}

#[actix_web::test]
async fn one_click_unsubscribe_stops_that_address_until_it_subscribes_again() {
    let sink = Sink::start();
    let (clock, _time) = manual_clock("2026-11-27T15:00:00Z", chrono_tz::America::Chicago);
    let app = spawn_app_with_mail(&sink.url(), clock).await;
    let (admin, m, _) = league(&app).await;
    postpone(&admin, &m, "storm").await;
    let first = wait_for(&sink, 5).await;
    let p11 = first
        .iter()
        .find(|m| m.to == ["p11@students.test"])
        .expect("p11's notice");
    let token = unsubscribe_token(p11);

    // RFC 8058: the mail program posts `List-Unsubscribe=One-Click`, no cookie, no token.
    let r = reqwest::Client::new()
        .post(app.url(&format!("/unsubscribe/{token}")))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body("List-Unsubscribe=One-Click")
        .send()
        .await
        .expect("one click");
    assert_eq!(r.status(), 200);
    let page = r.text().await.expect("page");
    assert!(page.contains("no longer gets"), "{page}");
    assert!(!page.contains("p11@"), "the address is never shown");

    // A new time for the postponed match: everyone but p11 hears of it.
    let now: Value = app
        .get(&format!("/api/v1/matches/{}", m["id"]))
        .await
        .json()
        .await
        .expect("match");
    let r = admin
        .client
        .patch(app.url(&format!("/api/v1/matches/{}", m["id"])))
        .bearer_auth(&admin.token)
        .json(&json!({"scheduled_at": "2026-12-03T19:00", "expected_version": now["version"]}))
        .send()
        .await
        .expect("patch");
    let moved = json_with_status(r, 200, "a new time").await;
    let mails = wait_for(&sink, 9).await;
    let later: Vec<&Mail> = mails[5..].iter().collect();
    assert_eq!(later.len(), 4, "{later:?}");
    assert!(later.iter().all(|m| m.to != ["p11@students.test"]));
    assert!(
        later.iter().all(|m| m.raw.contains("Thu 3 Dec, 19:00")),
        "the new time"
    );

    // Subscribed again: p11 hears of the cancellation.
    let r = reqwest::Client::new()
        .post(app.url(&format!("/unsubscribe/{token}/resubscribe")))
        .send()
        .await
        .expect("again");
    assert_eq!(r.status(), 200);
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/cancel", m["id"]),
            &json!({"reason": "the season ran out of nights", "expected_version": moved["version"]}),
        )
        .await;
    json_with_status(r, 200, "cancel").await;
    let mails = wait_for(&sink, 14).await;
    assert!(mails[9..].iter().any(|m| m.to == ["p11@students.test"]));
    assert_eq!(mails.len(), 14);
    // A token no notice gave is a 404.
    let r = reqwest::Client::new()
        .post(app.url("/unsubscribe/0000"))
        .send()
        .await
        .expect("unknown");
    assert_eq!(r.status(), 404);
}

#[actix_web::test]
async fn the_admin_reads_the_notices_by_league_and_status() {
    let sink = Sink::start();
    let (clock, _time) = manual_clock("2026-11-27T15:00:00Z", chrono_tz::America::Chicago);
    let app = spawn_app_with_mail(&sink.url(), clock).await;
    let (admin, m, _) = league(&app).await;
    sink.refuse(Some("550 5.1.1 no such user"));
    postpone(&admin, &m, "storm").await;
    let until = std::time::Instant::now() + Duration::from_secs(20);
    let failed = loop {
        let r = admin.get("/api/v1/notices?league=fall&status=failed").await;
        let list = json_with_status(r, 200, "failed notices").await;
        if list["notices"].as_array().map(Vec::len) == Some(5) || std::time::Instant::now() > until
        {
            break list;
        }
        actix_web::rt::time::sleep(Duration::from_millis(200)).await;
    };
    let notices = failed["notices"].as_array().expect("notices");
    assert_eq!(notices.len(), 5, "a 5xx fails at once: {failed}");
    for n in notices {
        assert_eq!(n["event"], "match_postponed");
        assert_eq!(n["attempts"], 1);
        assert!(
            n["last_error"].as_str().is_some_and(|e| e.contains("550")),
            "{n}"
        );
        assert_eq!(n["sent_at"], Value::Null);
    }
    let r = admin.get("/api/v1/notices?status=sent").await;
    assert_eq!(json_with_status(r, 200, "sent").await["notices"], json!([]));
    let r = admin.get("/api/v1/notices?league=nope").await;
    json_with_status(r, 404, "an unknown league").await;
    let r = admin.get("/api/v1/notices?status=lost").await;
    json_with_status(r, 400, "an unknown status").await;
    let metrics = app.get("/metrics").await.text().await.expect("metrics");
    for line in [
        "notices{status=\"failed\"} 5",
        "notices{status=\"sent\"} 0",
        "notices{status=\"pending\"} 0",
        "notices{status=\"skipped\"} 0",
    ] {
        assert!(metrics.lines().any(|l| l == line), "{line} in:\n{metrics}");
    }
    assert!(
        !metrics.contains("@students.test"),
        "no address in the metrics"
    );

    // The admin's page lists them with a button each; one sent again reaches the relay.
    let browser = app.browser("coord").await;
    let dashboard = browser.get("/admin").await.text().await.expect("dashboard");
    assert!(dashboard.contains("id=\"mail-on\""), "{dashboard}");
    assert!(dashboard.contains("5 failed: send them again"));
    let r = browser.get("/admin/notices?status=failed").await;
    assert_eq!(r.status(), 200);
    let page = r.text().await.expect("page");
    assert_eq!(page.matches(">Send again</button>").count(), 5, "{page}");
    assert!(
        page.contains("p11@students.test"),
        "the admin sees the addresses"
    );
    let id = notices[0]["id"].as_i64().expect("id");
    sink.refuse(None);
    let r = browser
        .post_form(&format!("/admin/notices/{id}/resend"), &[])
        .await;
    assert_eq!(r.status(), 303);
    let mails = wait_for(&sink, 1).await;
    assert_eq!(mails.len(), 1, "only the notice sent again");
    assert_eq!(mails[0].to, [notices[0]["to"].as_str().expect("to")]);
    let r = browser
        .post_form(&format!("/admin/notices/{id}/resend"), &[])
        .await;
    let again = r.headers()["location"]
        .to_str()
        .expect("location")
        .to_string();
    assert_eq!(
        again,
        format!("/admin/notices?unchanged={id}"),
        "a second click changes nothing"
    );
    let r = browser.get("/admin/notices?status=lost").await;
    assert_eq!(r.status(), 422);
    let page = r.text().await.expect("page");
    assert!(
        page.contains("id=\"form-error\"")
            && page.contains("choose pending, sent, failed or skipped")
    );
    let r = admin.get("/api/v1/notices?status=failed").await;
    assert_eq!(
        json_with_status(r, 200, "failed").await["notices"]
            .as_array()
            .map(Vec::len),
        Some(4)
    );

    // The other four at once, from the league's failed list.
    let page = browser
        .get("/admin/notices?league=fall&status=failed")
        .await
        .text()
        .await
        .expect("page");
    assert!(page.contains("id=\"resend-failed\""), "{page}");
    assert!(page.contains("Send every failed notice of this league again"));
    let r = browser
        .post_form("/admin/notices/resend-failed", &[("league", "fall")])
        .await;
    assert_eq!(r.status(), 303);
    assert_eq!(
        r.headers()["location"],
        "/admin/notices?league=fall&resent_all=4"
    );
    let page = browser
        .get("/admin/notices?league=fall&resent_all=4")
        .await
        .text()
        .await
        .expect("page");
    assert!(
        page.contains("4 failed notices are waiting again"),
        "{page}"
    );
    let mails = wait_for(&sink, 5).await;
    assert_eq!(mails.len(), 5, "each failed notice sent once");
    let r = browser
        .post_form("/admin/notices/resend-failed", &[("league", "")])
        .await;
    assert_eq!(
        r.headers()["location"],
        "/admin/notices?league=&resent_all=0",
        "none failed any more"
    );
}

#[actix_web::test]
async fn the_dashboard_says_when_no_mail_is_sent() {
    let app = spawn_app().await;
    app.user("coord", Role::Admin).await;
    let browser = app.browser("coord").await;
    let dashboard = browser.get("/admin").await.text().await.expect("dashboard");
    assert!(dashboard.contains("id=\"mail-off\""), "{dashboard}");
    let page = browser
        .get("/admin/notices")
        .await
        .text()
        .await
        .expect("page");
    assert!(page.contains("id=\"notices-off\""), "{page}");
}

/// `spades-im mail-test ADDRESS` sends one message through the relay, says so, and exits 1
/// with the relay's answer when it refuses.
#[test]
fn mail_test_checks_the_relay() {
    let sink = Sink::start();
    let run = |address: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_spades-im"))
            .args(["mail-test", address, "--mail-from", "IM <im@spades.test>"])
            .env("SPADES_SMTP_URL", sink.url())
            .output()
            .expect("spades-im runs")
    };
    let out = run("me@staff.test");
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("the relay took the test message"), "{said}");
    let mails = sink.messages();
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].to, ["me@staff.test"]);
    assert!(mails[0].text.contains("It arrived"));
    sink.refuse(Some("550 5.7.1 relaying denied"));
    let out = run("me@staff.test");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("550"),
        "{out:?}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_spades-im"))
        .args(["mail-test", "me@staff.test"])
        .env_remove("SPADES_SMTP_URL")
        .env_remove("SPADES_MAIL_FROM")
        .output()
        .expect("spades-im runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs --smtp-url"));
}

#[actix_web::test]
async fn a_forfeit_and_a_moved_night_are_told_to_the_teams_they_touch() {
    let sink = Sink::start();
    let (clock, _time) = manual_clock("2026-11-27T15:00:00Z", chrono_tz::America::Chicago);
    let app = spawn_app_with_mail(&sink.url(), clock).await;
    let (admin, m, ids) = league(&app).await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/forfeit", m["id"]),
            &json!({"team": "a"}),
        )
        .await;
    json_with_status(r, 200, "forfeit").await;
    let mails = wait_for(&sink, 5).await;
    assert_eq!(mails.len(), 5);
    assert!(
        mails
            .iter()
            .all(|m| m.header("Subject").is_some_and(|s| s.contains("forfeited")))
    );

    // A night of teams 3 and 4 moved: only they (and the supervisor) hear of it.
    let r = admin
        .post(
            "/api/v1/leagues/fall/matches",
            &json!({"team_a": ids[2], "team_b": ids[3], "table": "Table 2",
                    "scheduled_at": "2026-12-01T19:00"}),
        )
        .await;
    json_with_status(r, 201, "a match on Dec 1").await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/nights/move",
            &json!({"from": "2026-12-01", "to": "2026-12-03"}),
        )
        .await;
    json_with_status(r, 200, "the night moved").await;
    let mails = wait_for(&sink, 10).await;
    let mut to: Vec<String> = mails[5..].iter().flat_map(|m| m.to.clone()).collect();
    to.sort();
    assert_eq!(
        to,
        [
            "p31@students.test",
            "p32@students.test",
            "p41@students.test",
            "p42@students.test",
            "sue@staff.test"
        ]
    );
    assert!(mails[5..].iter().all(|m| {
        m.text
            .contains("The league night of Tue 1 Dec moved to Thu 3 Dec (fall).")
    }));
}

#[actix_web::test]
async fn a_moved_night_is_one_message_a_person_listing_their_matches_and_why() {
    let sink = Sink::start();
    let (clock, _time) = manual_clock("2026-11-27T15:00:00Z", chrono_tz::America::Chicago);
    let app = spawn_app_with_mail(&sink.url(), clock).await;
    let (admin, _, ids) = league(&app).await;
    for (a, b, table, at) in [
        (0, 1, "Table 1", "2026-12-01T19:00"),
        (2, 3, "Table 2", "2026-12-01T19:00"),
        (0, 2, "Table 1", "2026-12-01T20:30"),
    ] {
        let r = admin
            .post(
                "/api/v1/leagues/fall/matches",
                &json!({"team_a": ids[a], "team_b": ids[b], "table": table, "scheduled_at": at}),
            )
            .await;
        json_with_status(r, 201, "a match on Dec 1").await;
    }
    let r = admin
        .post(
            "/api/v1/leagues/fall/nights/move",
            &json!({"from": "2026-12-01", "to": "2026-12-03",
                    "reason": "The rec center is closed for the storm"}),
        )
        .await;
    let moved = json_with_status(r, 200, "the night moved").await;
    assert_eq!(moved["moved"], 3);
    // Eight players and the supervisor: one message each.
    let mails = wait_for(&sink, 9).await;
    assert_eq!(mails.len(), 9, "one message a person");
    let of = |address: &str| -> &Mail {
        let mut found = mails.iter().filter(|m| m.to == [address]);
        let mail = found
            .next()
            .unwrap_or_else(|| panic!("no message to {address}"));
        assert!(found.next().is_none(), "two messages to {address}");
        mail
    };
    for mail in &mails {
        assert!(
            mail.text
                .contains("Why: \u{201c}The rec center is closed for the storm\u{201d}"),
            "{}",
            mail.text
        );
        let subject = mail.header("Subject").unwrap_or_default();
        assert!(
            subject.contains("night") && subject.contains("moved"),
            "{subject}"
        );
    }
    let sue = &of("sue@staff.test").text;
    assert!(sue.contains("Your 3 matches:"), "{sue}");
    let team_one = &of("p11@students.test").text;
    assert!(team_one.contains("Your 2 matches:"), "{team_one}");
    assert!(
        team_one.contains("now Thu 3 Dec, 20:30, Table 1. Was Tue 1 Dec, 20:30."),
        "{team_one}"
    );
    let team_two = &of("p21@students.test").text;
    assert!(team_two.contains("Your match:"), "{team_two}");
    assert!(
        !team_two.contains("Team 3 v"),
        "only their own match: {team_two}"
    );
}

/// `spades-im serve` (the real binary) on `db`, sending through `smtp_url`; killed on drop.
struct Served {
    child: std::process::Child,
    base: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn serve(db: &std::path::Path, smtp_url: &str) -> Served {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_spades-im"))
        .args(["serve", "--bind", &format!("127.0.0.1:{port}"), "--db"])
        .arg(db)
        .args([
            "--public-url",
            "http://spades.test",
            "--mail-from",
            "im@spades.test",
        ])
        .env("SPADES_SMTP_URL", smtp_url)
        .env("SPADES_INSECURE_COOKIES", "true")
        .env("SPADES_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start spades-im");
    let served = Served {
        child,
        base: format!("http://127.0.0.1:{port}"),
    };
    let until = std::time::Instant::now() + Duration::from_secs(30);
    while reqwest::get(format!("{}/healthz", served.base))
        .await
        .is_err()
    {
        assert!(std::time::Instant::now() < until, "spades-im did not start");
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    served
}

/// A league `fall` of two teams, each with two players with emails (`p{team}{seat}@…`), and
/// a match of them, on the SQLite file `file` served by `spades-im serve` sending through
/// `sink`: the server, the admin and the match.
async fn served_league(file: &std::path::Path, sink: &Sink) -> (Served, Api, Value) {
    let token = {
        let clock = spades_im::domain::Clock::new(
            std::sync::Arc::new(spades_im::domain::SystemTime),
            chrono_tz::UTC,
        );
        let db = spades_im::db::Db::open_file(file, clock)
            .await
            .expect("the file");
        spades_im::service::people::accounts::create_user(
            &db,
            None,
            "coord",
            Role::Admin,
            "a long password 1",
        )
        .await
        .expect("an admin");
        spades_im::service::people::accounts::create_token(&db, "coord", "test")
            .await
            .expect("a token")
    };
    let server = serve(file, &sink.url()).await;
    let admin = Api {
        base: server.base.clone(),
        token,
        client: reqwest::Client::new(),
    };
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Fall", "slug": "fall", "rules": {"regular": "unc-im-300"}}),
        )
        .await;
    json_with_status(r, 201, "a league").await;
    let mut teams = Vec::new();
    for t in 1..=2 {
        let r = admin
            .post(
                "/api/v1/leagues/fall/teams",
                &json!({"name": format!("Team {t}"), "players": [format!("X{t}a"), format!("X{t}b")]}),
            )
            .await;
        let team = json_with_status(r, 201, "a team").await["id"]
            .as_i64()
            .expect("id");
        for seat in 1..=2 {
            let r = admin
                .post(
                    &format!("/api/v1/teams/{team}/players"),
                    &json!({"name": format!("P{t}{seat}"), "email": format!("p{t}{seat}@students.test")}),
                )
                .await;
            json_with_status(r, 201, "a player").await;
        }
        teams.push(team);
    }
    let m = admin.add_match("fall", teams[0], teams[1], "Table 1").await;
    (server, admin, m)
}

/// The notices waiting when the server is killed (`kill -9`, after their first try failed)
/// are sent after the restart, each once, within the first retry's 30 s.
#[actix_web::test]
async fn notices_waiting_at_a_kill_9_are_sent_after_the_restart_once() {
    let sink = Sink::start();
    sink.refuse(Some("451 4.3.0 the relay is busy"));
    let dir = tempfile::tempdir().expect("a folder");
    let file = dir.path().join("spades.sqlite3");
    let (server, admin, m) = served_league(&file, &sink).await;
    postpone(&admin, &m, "storm").await;
    // The first tries are refused (each notice says so); then the server dies mid-wait.
    refused_once(&admin, 4).await;
    drop(server);
    assert_eq!(sink.refused().len(), 4, "each notice tried once");
    assert!(sink.messages().is_empty());
    sink.refuse(None);
    let _again = serve(&file, &sink.url()).await;
    let until = std::time::Instant::now() + Duration::from_secs(40);
    while sink.messages().len() < 4 && std::time::Instant::now() < until {
        actix_web::rt::time::sleep(Duration::from_millis(200)).await;
    }
    actix_web::rt::time::sleep(Duration::from_secs(2)).await;
    let mut to: Vec<String> = sink.messages().iter().flat_map(|m| m.to.clone()).collect();
    to.sort();
    assert_eq!(
        to,
        [
            "p11@students.test",
            "p12@students.test",
            "p21@students.test",
            "p22@students.test"
        ],
        "each waiting notice once after the restart"
    );
}

/// A sender killed (`kill -9`) in the middle of a send leaves its notice held: after the
/// restart that notice waits until its hold passes (no other sender takes a notice that may
/// still be on its way), then goes, once; the notices it never took go at once.
#[actix_web::test]
async fn a_notice_held_by_a_sender_killed_mid_send_goes_once_its_hold_passes() {
    let sink = Sink::start();
    let dir = tempfile::tempdir().expect("a folder");
    let file = dir.path().join("spades.sqlite3");
    let (server, admin, m) = served_league(&file, &sink).await;
    // The relay hangs on the first message's DATA: the sender is mid-send.
    sink.stall(true);
    postpone(&admin, &m, "storm").await;
    let until = std::time::Instant::now() + Duration::from_secs(20);
    while !sink.stalled() {
        assert!(
            std::time::Instant::now() < until,
            "no message reached the relay"
        );
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
    let held = {
        let clock = spades_im::domain::Clock::new(
            std::sync::Arc::new(spades_im::domain::SystemTime),
            chrono_tz::UTC,
        );
        let db = spades_im::db::Db::open_file(&file, clock)
            .await
            .expect("the file");
        let mut conn = db.read().await.expect("a connection");
        let all = spades_im::db::notices::list(&mut conn, None, None, 100)
            .await
            .expect("notices");
        assert_eq!(all.len(), 4, "{all:?}");
        let mut held: Vec<_> = all.iter().filter(|n| n.claimed_until.is_some()).collect();
        assert_eq!(held.len(), 1, "one notice held, mid-send: {all:?}");
        let n = held.remove(0);
        assert_eq!((n.status.as_str(), n.attempts), ("pending", 0), "{n:?}");
        (n.address.clone(), n.claimed_until.expect("held"))
    };
    let (address, hold) = held;
    drop(server);
    // The relay lets the hung DATA go: its client is dead, so that message is dropped.
    sink.stall(false);
    let _again = serve(&file, &sink.url()).await;
    let until = std::time::Instant::now() + Duration::from_secs(60);
    let mut early = None;
    loop {
        let mails = sink.messages();
        let to: Vec<String> = mails.iter().flat_map(|m| m.to.clone()).collect();
        let now = chrono::Utc::now();
        if to.contains(&address) {
            // Seen only now: it went at or after its hold's end.
            assert!(
                now >= hold.0,
                "the held notice went at {now}, before its hold ended at {}",
                hold.0
            );
            break;
        }
        if to.len() >= 3 && early.is_none() {
            early = Some(now);
        }
        assert!(
            std::time::Instant::now() < until,
            "the held notice never went: {to:?}"
        );
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    // The other three went first, before the hold ended.
    assert!(
        early.is_some_and(|t| t < hold.0),
        "the notices never held went at once: {early:?}"
    );
    // A second more for any repeat.
    actix_web::rt::time::sleep(Duration::from_secs(1)).await;
    let mut to: Vec<String> = sink.messages().iter().flat_map(|m| m.to.clone()).collect();
    to.sort();
    assert_eq!(
        to,
        [
            "p11@students.test",
            "p12@students.test",
            "p21@students.test",
            "p22@students.test"
        ],
        "each notice once"
    );
}

/// The one-time password of `mail` ("One-time password: …").
fn password_in(mail: &Mail) -> String {
    let line = mail
        .raw
        .lines()
        .find_map(|l| l.strip_prefix("One-time password: "))
        .unwrap_or_else(|| panic!("no password in {}", mail.raw));
    line.trim().to_string()
}

/// `"deliver": "email"`: the one-time password goes only to the account's address (the
/// answer has none), and it works there; an account without an email is refused before
/// anything changes; a relay that refuses leaves the password shown instead, with why; a
/// server without a relay answers 409 `mail_not_configured`. The page's buttons do the same.
#[actix_web::test]
async fn a_one_time_password_is_emailed_only_to_its_person() {
    let sink = Sink::start();
    let (clock, _time) = manual_clock("2026-11-27T15:00:00Z", chrono_tz::America::Chicago);
    let app = spawn_app_with_mail(&sink.url(), clock).await;
    let admin = app.api_user("coord", Role::Admin).await;

    let body = json!({"username": "kim", "role": "supervisor", "email": "kim@staff.test",
                      "deliver": "email"});
    let made = json_with_status(admin.post("/api/v1/users", &body).await, 201, "kim").await;
    assert_eq!(made["password"], Value::Null, "{made}");
    assert_eq!(made["emailed"], true);
    assert_eq!(made["user"]["username"], "kim");
    let mails = wait_for(&sink, 1).await;
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].to, ["kim@staff.test"]);
    assert!(
        mails[0].raw.contains("http://spades.test/login"),
        "the link"
    );
    let first = password_in(&mails[0]);
    assert!(
        app.log_in("kim", &first).await.is_some(),
        "the emailed password is the account's"
    );

    // No email: refused, nothing reset. Shown as before without `deliver`.
    app.user("lee", Role::Supervisor).await;
    let before = app.tables().await;
    let r = admin
        .post(
            "/api/v1/users/lee/reset-password",
            &json!({"deliver": "email"}),
        )
        .await;
    let error = crate::helpers::expect_error(r, 422, "invalid_email").await;
    assert_eq!(error["field"], "email", "{error}");
    app.assert_nothing_written(&before, "no address").await;
    let shown = json_with_status(
        admin
            .post("/api/v1/users/lee/reset-password", &json!({}))
            .await,
        200,
        "shown",
    )
    .await;
    assert!(
        shown["password"].as_str().is_some_and(|p| p.len() == 16),
        "{shown}"
    );
    assert_eq!(shown["emailed"], false);

    // A relay that refuses: the password is reset and shown, with why; nothing is lost.
    sink.refuse(Some("550 5.1.1 no such mailbox"));
    let r = admin
        .post(
            "/api/v1/users/kim/reset-password",
            &json!({"deliver": "email"}),
        )
        .await;
    let out = json_with_status(r, 200, "refused").await;
    assert_eq!(out["emailed"], false, "{out}");
    assert!(out["password"].as_str().is_some(), "{out}");
    assert!(out["unsent"].as_str().unwrap().contains("550"), "{out}");
    sink.refuse(None);

    // The pages: the reset is asked about first, with "email it" where it can be.
    let coord = app.browser("coord").await;
    let page = coord.get("/admin/users").await.text().await.unwrap();
    assert!(
        page.contains("href=\"/admin/users/kim/reset-password\""),
        "{page}"
    );
    let ask = |name: &'static str| {
        let coord = &coord;
        async move {
            let r = coord
                .get(&format!("/admin/users/{name}/reset-password"))
                .await;
            assert_eq!(r.status(), 200);
            r.text().await.unwrap()
        }
    };
    let kim = ask("kim").await;
    assert!(kim.contains("id=\"reset-show\"") && kim.contains("id=\"reset-email\""));
    let lee = ask("lee").await;
    assert!(!lee.contains("id=\"reset-email\"") && lee.contains("id=\"reset-no-email\""));
    let r = coord
        .post_form("/admin/users/kim/reset-password", &[("deliver", "email")])
        .await;
    let html = crate::helpers::unescape(&r.text().await.unwrap());
    assert!(html.contains("The password was emailed to them"), "{html}");
    assert!(!html.contains("id=\"new-password\""), "not shown");
    let mails = wait_for(&sink, 2).await;
    assert_ne!(password_in(&mails[1]), first, "a new one");
}

#[actix_web::test]
async fn without_a_relay_a_password_cannot_be_emailed() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let before = app.tables().await;
    let body = json!({"username": "kim", "role": "supervisor", "email": "kim@staff.test",
                      "deliver": "email"});
    let r = admin.post("/api/v1/users", &body).await;
    crate::helpers::expect_error(r, 409, "mail_not_configured").await;
    app.assert_nothing_written(&before, "no relay").await;
    let page = app
        .browser("coord")
        .await
        .get("/admin/users")
        .await
        .text()
        .await
        .unwrap();
    assert!(!page.contains("name=\"deliver\""), "no choice to email");
}
