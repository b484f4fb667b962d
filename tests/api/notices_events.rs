//! The notices of the bracket created, a corrected result and a team withdrawn, and two
//! instances sharing one store sending each notice once (tests/smtp/sink.py, aiosmtpd).

use serde_json::{Value, json};

use crate::helpers::{hand_of, json_with_status, manual_clock, spawn_app_with_mail};
use crate::notices::{league, league_with, refused_once, wait_for};
use crate::smtp_sink::{Mail, Sink};

fn subjects(mails: &[Mail]) -> Vec<String> {
    mails
        .iter()
        .map(|m| m.header("Subject").unwrap_or_default())
        .collect()
}

fn addresses(mails: &[Mail]) -> Vec<String> {
    let mut to: Vec<String> = mails.iter().flat_map(|m| m.to.clone()).collect();
    to.sort();
    to
}

/// Each seeded team's players hear their seed and first opponent (not the supervisor, not
/// once per team); a time set later for a playoff match is told as scheduled.
#[actix_web::test]
async fn the_bracket_tells_each_team_its_seed_and_first_opponent() {
    let sink = Sink::start();
    let (clock, _time) = manual_clock("2026-11-27T15:00:00Z", chrono_tz::America::Chicago);
    let app = spawn_app_with_mail(&sink.url(), clock).await;
    let (admin, _m, teams) = league(&app).await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/playoffs",
            &json!({"format": "single_elimination", "force": true}),
        )
        .await;
    let bracket = json_with_status(r, 201, "the bracket").await;
    let mails = wait_for(&sink, 8).await;
    assert_eq!(
        addresses(&mails),
        [
            "p11@students.test",
            "p12@students.test",
            "p21@students.test",
            "p22@students.test",
            "p31@students.test",
            "p32@students.test",
            "p41@students.test",
            "p42@students.test"
        ],
        "every seeded team's players, once; no supervisor: {:?}",
        subjects(&mails)
    );
    let first_round: Vec<&Value> = bracket["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .filter(|m| m["round"] == 1)
        .collect();
    for (i, team) in teams.iter().enumerate() {
        let bm = first_round
            .iter()
            .find(|m| m["team_a"]["id"] == *team || m["team_b"]["id"] == *team)
            .expect("every team plays round 1 of four");
        let (seed, opponent) = if bm["team_a"]["id"] == *team {
            (&bm["seed_a"], &bm["team_b"]["name"])
        } else {
            (&bm["seed_b"], &bm["team_a"]["name"])
        };
        let opponent = opponent.as_str().expect("a name");
        for mail in mails
            .iter()
            .filter(|m| m.to[0].starts_with(&format!("p{}", i + 1)))
        {
            let subject = mail.header("Subject").unwrap_or_default();
            assert!(subject.contains(&format!("is seed {seed}")), "{subject}");
            assert!(
                mail.text
                    .contains(&format!("against {opponent}: no time set")),
                "{}",
                mail.text
            );
            assert!(
                mail.text
                    .contains("http://spades.test/leagues/fall/bracket")
            );
        }
    }

    // The first semi-final gets its time: its teams and the supervisor hear of it.
    let semi = first_round[0];
    let r = admin
        .post(
            "/api/v1/leagues/fall/bracket/schedule",
            &json!({"matches": [{"id": semi["match_id"], "scheduled_at": "2026-12-10T19:00",
                                 "table": "Table 1"}]}),
        )
        .await;
    json_with_status(r, 200, "the round placed").await;
    let mails = wait_for(&sink, 13).await;
    let later = &mails[8..];
    assert_eq!(later.len(), 5, "{:?}", subjects(later));
    assert!(later.iter().any(|m| m.to == ["sue@staff.test"]));
    for mail in later {
        assert!(
            mail.header("Subject")
                .is_some_and(|s| s.contains("is scheduled"))
        );
        assert!(
            mail.text.contains("Now: Thu 10 Dec, 19:00, Table 1."),
            "{}",
            mail.text
        );
    }
}

/// Team a 71, team b 41.
fn a_hand() -> Value {
    hand_of([4, 3], [5, 3], [2, 2], [3, 2])
}

/// Team a −40, team b 47.
fn undecided() -> Value {
    hand_of([2, 2], [1, 1], [2, 2], [6, 5])
}

/// Team a 83, team b 20: after an `a_hand`, team a reaches 100.
fn a_big() -> Value {
    hand_of([4, 4], [6, 5], [1, 1], [1, 1])
}

/// After an `a_hand`: team a 11, team b 115: team b reaches 100.
fn b_big() -> Value {
    hand_of([3, 3], [1, 1], [4, 3], [6, 5])
}

/// Only a correction that changes a finished match's result is told: not one of a match in
/// play, not one that leaves the result as it was.
#[actix_web::test]
async fn a_correction_that_changes_a_result_is_told_once() {
    let sink = Sink::start();
    let (clock, _time) = manual_clock("2026-11-27T15:00:00Z", chrono_tz::America::Chicago);
    let app = spawn_app_with_mail(&sink.url(), clock).await;
    let rules = json!({"preset": "partnership", "target": 100});
    let (admin, m, _) = league_with(&app, rules).await;
    let id = m["id"].as_i64().expect("id");
    let m = admin.play_hands(id, &[undecided()]).await;
    let r = admin
        .correct_hand(&m, 1, &a_hand(), "a recount", false)
        .await;
    let m = json_with_status(r, 200, "a correction in play").await;
    let m = admin.enter_hand(&m, &a_big()).await;
    assert_eq!(m["status"], "complete");

    let r = admin
        .correct_hand(&m, 2, &b_big(), "the scorer swapped the teams", false)
        .await;
    let m = json_with_status(r, 200, "the winner flips").await;
    assert_eq!(m["winner"], "b");
    let r = admin
        .correct_hand(&m, 2, &b_big(), "the same again", false)
        .await;
    json_with_status(r, 200, "a correction that changes nothing").await;

    let mails = wait_for(&sink, 5).await;
    assert_eq!(mails.len(), 5, "{:?}", subjects(&mails));
    for mail in &mails {
        assert!(
            mail.header("Subject")
                .is_some_and(|s| s.contains("the result is corrected"))
        );
        assert!(
            mail.text.contains(
                "Now: Team 1 11, Team 2 115: Team 2 won. Was: Team 1 154, Team 2 61: Team 1 won."
            ),
            "{}",
            mail.text
        );
        assert!(mail.text.contains("Why: the scorer swapped the teams"));
    }
}

/// A team the coordinator withdraws: its players and its opponents of the matches cancelled
/// hear of it; a team it was not to play does not.
#[actix_web::test]
async fn a_team_withdrawn_by_hand_is_told_to_it_and_its_opponents() {
    let sink = Sink::start();
    let (clock, _time) = manual_clock("2026-11-27T15:00:00Z", chrono_tz::America::Chicago);
    let app = spawn_app_with_mail(&sink.url(), clock).await;
    let (_admin, _m, teams) = league(&app).await;
    let browser = app.browser("coord").await;
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/teams/{}/withdraw", teams[1]),
            &[("withdrawn", "1")],
        )
        .await;
    assert_eq!(r.status(), 303);
    let mails = wait_for(&sink, 5).await;
    assert_eq!(
        addresses(&mails),
        [
            "p11@students.test",
            "p12@students.test",
            "p21@students.test",
            "p22@students.test",
            "sue@staff.test"
        ],
        "{:?}",
        subjects(&mails)
    );
    for mail in &mails {
        assert!(
            mail.text
                .contains("Team 2 is dropped from fall (withdrawn by the coordinator).")
        );
        assert!(
            mail.text
                .contains("Its matches not played yet are cancelled (1).")
        );
    }
}

/// Two instances of the service on one store (PostgreSQL in CI's second run), both sending:
/// twelve matches postponed make 60 notices, and each reaches its address once.
/// Each instance sends through a relay of its own, so each relay shows what its instance
/// sent: both must have sent some.
#[actix_web::test]
async fn two_instances_on_one_store_send_each_notice_once() {
    let sink = Sink::start();
    let other = Sink::start();
    // Slow relays (50 ms a message): one instance cannot drain all 60 between the other's
    // looks at the table (once a second).
    sink.delay(0.05);
    other.delay(0.05);
    let (clock, _time) = manual_clock("2026-11-27T15:00:00Z", chrono_tz::America::Chicago);
    let app = spawn_app_with_mail(&sink.url(), clock).await;
    let _second = app.another_mailing_instance(&other.url()).await;
    let (admin, _m, t) = league(&app).await;
    let pairs = [(0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2)];
    let mut ids = Vec::new();
    for (k, (a, b)) in pairs.iter().chain(pairs.iter()).enumerate() {
        let r = admin
            .post(
                "/api/v1/leagues/fall/matches",
                &json!({"team_a": t[*a], "team_b": t[*b], "table": format!("Table {}", k + 2),
                        "scheduled_at": "2026-12-01T19:00"}),
            )
            .await;
        ids.push(json_with_status(r, 201, "a match of Dec 1").await["id"].clone());
    }
    for id in ids {
        let r = admin
            .post(
                &format!("/api/v1/matches/{id}/postpone"),
                &json!({"reason": "the gym floods"}),
            )
            .await;
        json_with_status(r, 200, "postponed").await;
    }
    let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while sink.messages().len() + other.messages().len() < 60 && std::time::Instant::now() < until {
        actix_web::rt::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    // Two seconds more for any notice sent twice.
    actix_web::rt::time::sleep(std::time::Duration::from_secs(2)).await;
    let (first, second) = (sink.messages(), other.messages());
    assert!(
        !first.is_empty() && !second.is_empty(),
        "both instances sent: {} and {}",
        first.len(),
        second.len()
    );
    let mails: Vec<Mail> = first.into_iter().chain(second).collect();
    let mut sent: Vec<(String, String)> = mails
        .iter()
        .map(|m| (m.to.join(","), m.header("Message-ID").unwrap_or_default()))
        .collect();
    assert_eq!(sent.len(), 60, "12 matches × (4 players + the supervisor)");
    sent.sort();
    sent.dedup();
    assert_eq!(sent.len(), 60, "no notice sent twice");
    let r = admin.get("/api/v1/notices?status=sent").await;
    let listed = json_with_status(r, 200, "sent").await;
    assert_eq!(listed["notices"].as_array().map(Vec::len), Some(60));
    for n in listed["notices"].as_array().expect("notices") {
        assert_eq!(n["attempts"], 1, "{n}");
    }
}

/// A match given another team: the team that left it and the team that joined both hear.
#[actix_web::test]
async fn a_team_put_into_a_match_and_the_team_taken_out_both_hear() {
    let sink = Sink::start();
    let (clock, _time) = manual_clock("2026-11-27T15:00:00Z", chrono_tz::America::Chicago);
    let app = spawn_app_with_mail(&sink.url(), clock).await;
    let (admin, m, teams) = league(&app).await;
    let r = admin
        .patch(
            &format!("/api/v1/matches/{}", m["id"]),
            &json!({"team_b": teams[2], "expected_version": m["version"]}),
        )
        .await;
    json_with_status(r, 200, "team 3 in for team 2").await;
    let mails = wait_for(&sink, 7).await;
    assert_eq!(
        addresses(&mails),
        [
            "p11@students.test",
            "p12@students.test",
            "p21@students.test",
            "p22@students.test",
            "p31@students.test",
            "p32@students.test",
            "sue@staff.test"
        ],
        "{:?}",
        subjects(&mails)
    );
    for mail in &mails {
        assert!(
            mail.text
                .contains("The match is now Team 1 v Team 3. It was Team 1 v Team 2."),
            "{}",
            mail.text
        );
    }
}

/// An address that unsubscribes while its notice waits for the relay gets nothing: the
/// notice ends `skipped`; the others go.
#[actix_web::test]
async fn a_notice_waiting_when_its_address_unsubscribes_is_skipped() {
    let sink = Sink::start();
    let (clock, time) = manual_clock("2026-11-27T15:00:00Z", chrono_tz::America::Chicago);
    let app = spawn_app_with_mail(&sink.url(), clock).await;
    let (admin, m, _) = league(&app).await;
    sink.refuse(Some("451 4.3.0 the relay is busy"));
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/postpone", m["id"]),
            &json!({"reason": "storm", "expected_version": m["version"]}),
        )
        .await;
    json_with_status(r, 200, "postpone").await;
    // Every first try made and refused (so each address has its link by now).
    refused_once(&admin, 5).await;
    // The first try made p11's link (the token is the one its message carried).
    let token = {
        let mut tx = app.db.write().await.expect("a write");
        let league = spades_im::db::leagues::by_slug(&mut tx, &"fall".parse().expect("slug"))
            .await
            .expect("read")
            .expect("fall")
            .id;
        let (token, _) =
            spades_im::db::notices::subscription(&mut tx, league, "p11@students.test", "unused")
                .await
                .expect("the subscription");
        tx.commit().await.expect("commit");
        token
    };
    assert_ne!(token, "unused", "made at the first try");
    let r = reqwest::Client::new()
        .post(app.url(&format!("/unsubscribe/{token}")))
        .form(&[("List-Unsubscribe", "One-Click")])
        .send()
        .await
        .expect("one click");
    assert_eq!(r.status(), 200);
    sink.refuse(None);
    time.advance(chrono::Duration::seconds(31));
    let mails = wait_for(&sink, 4).await;
    assert_eq!(mails.len(), 4, "{:?}", addresses(&mails));
    assert!(!addresses(&mails).contains(&"p11@students.test".to_string()));
    let r = admin.get("/api/v1/notices?status=skipped").await;
    let skipped = json_with_status(r, 200, "skipped").await;
    assert_eq!(
        skipped["notices"].as_array().map(Vec::len),
        Some(1),
        "{skipped}"
    );
    assert_eq!(skipped["notices"][0]["to"], "p11@students.test");
}
