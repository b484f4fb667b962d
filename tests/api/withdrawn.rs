//! A team withdrawn mid-season (docs/api.md §4.6): its matches not yet started are cancelled,
//! so nobody starts them, tonight's list and the calendars show them called off, "generate the
//! rest" leaves the team out and the playoffs neither wait for those matches nor seed the
//! team; the matches it finished stay in the standings, and the one it has in play can be
//! finished.
//!
//! Planted bug that fails both tests: `roster::set_withdrawn` without its
//! `cancel_unstarted_of` (the team's matches stay scheduled; each test stops at the first of
//! them, where it expects "cancelled").

use std::collections::{BTreeMap, BTreeSet};

use icalendar::{Component, EventStatus};
use serde_json::{Value, json};
use spades_im::service::Role;

use crate::calendar::{feed, uid};
use crate::helpers::{
    Api, TestApp, hand_of, html_element, html_standings, json_with_status, manual_clock,
    spawn_app_with_clock,
};

/// A win for team a in two hands of a game to 100 (83 and −40 a hand).
fn a_wins() -> Value {
    hand_of([4, 4], [6, 5], [2, 2], [1, 1])
}

fn b_wins() -> Value {
    hand_of([2, 2], [1, 1], [4, 4], [6, 5])
}

/// Enters `hand` until the match is no longer in play; the match as it ends.
async fn play_out(admin: &Api, mut m: Value, hand: &Value) -> Value {
    for _ in 0..5 {
        if m["status"] != "in_progress" {
            return m;
        }
        m = admin.enter_hand(&m, hand).await;
    }
    panic!("match {} did not end: {m}", m["id"]);
}

async fn get_match(app: &TestApp, id: i64) -> Value {
    json_with_status(
        app.get(&format!("/api/v1/matches/{id}")).await,
        200,
        "a match",
    )
    .await
}

fn team_ids(m: &Value) -> [i64; 2] {
    [
        m["team_a"]["id"].as_i64().unwrap(),
        m["team_b"]["id"].as_i64().unwrap(),
    ]
}

fn involves(m: &Value, team: i64) -> bool {
    team_ids(m).contains(&team)
}

/// A league of `teams` teams, to 100 points, with its round robin from 7 October 2026 (a
/// Wednesday) every week at 19:00; the schedule's matches by round.
async fn season(app: &TestApp, admin: &Api, teams: usize) -> (Vec<i64>, BTreeMap<i64, Vec<Value>>) {
    let t = app
        .league(
            admin,
            "fall",
            json!({"preset": "unc-im-300", "target": 100}),
            teams,
        )
        .await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin", "start_date": "2026-10-07", "time": "19:00"}),
        )
        .await;
    let made = json_with_status(r, 201, "the round robin").await;
    let mut rounds: BTreeMap<i64, Vec<Value>> = BTreeMap::new();
    for m in made["matches"].as_array().unwrap() {
        rounds
            .entry(m["round"].as_i64().unwrap())
            .or_default()
            .push(m.clone());
    }
    (t, rounds)
}

/// Withdraws (`"1"`) or reinstates (`"0"`) `team` on the admin's team form.
async fn withdraw(app: &TestApp, team: i64, withdrawn: &str) {
    let browser = app.browser("coord-page").await;
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/teams/{team}/withdraw"),
            &[("withdrawn", withdrawn)],
        )
        .await;
    assert_eq!(r.status(), 303, "withdraw {team}: {withdrawn}");
}

#[actix_web::test]
async fn a_team_withdrawn_mid_season_plays_no_more_and_keeps_its_results() {
    // Wednesday 21 October 2026, 18:00 in Chicago: rounds 1 and 2 are played, round 3 is
    // tonight at 19:00, rounds 4 and 5 are the next two Wednesdays.
    let (clock, _) = manual_clock("2026-10-21T23:00:00Z", chrono_tz::America::Chicago);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.user("coord-page", Role::Admin).await;
    let (t, rounds) = season(&app, &admin, 6).await;
    assert_eq!(rounds.len(), 5, "6 teams: 5 rounds");
    for round in [1, 2] {
        for m in &rounds[&round] {
            let started = admin.start_match(m["id"].as_i64().unwrap()).await;
            play_out(&admin, started, &a_wins()).await;
        }
    }
    // Tonight: the withdrawing team's match is under way (one hand in), the others not yet.
    let gone = t[5];
    let tonight = &rounds[&3];
    let in_play = tonight.iter().find(|m| involves(m, gone)).unwrap();
    let in_play_id = in_play["id"].as_i64().unwrap();
    let started = admin.start_match(in_play_id).await;
    admin.enter_hand(&started, &a_wins()).await;
    // Its record so far: the standings before it withdraws.
    let before = json_with_status(
        app.get("/api/v1/leagues/fall/standings").await,
        200,
        "standings",
    )
    .await;

    withdraw(&app, gone, "1").await;

    let teams = json_with_status(app.get("/api/v1/leagues/fall/teams").await, 200, "teams").await;
    let row = teams["teams"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == gone)
        .unwrap();
    assert_eq!(row["withdrawn"], true, "{row}");
    // Its two matches not started are cancelled, saying why; the one in play is not.
    let mut unplayed = Vec::new();
    for round in [4, 5] {
        for m in &rounds[&round] {
            let id = m["id"].as_i64().unwrap();
            let now = get_match(&app, id).await;
            if involves(m, gone) {
                assert_eq!(now["status"], "cancelled", "round {round}: {now}");
                assert_eq!(now["status_note"], "Team 6 withdrew from the league");
                unplayed.push(id);
            } else {
                assert_eq!(now["status"], "scheduled", "round {round}: {now}");
            }
        }
    }
    assert_eq!(unplayed.len(), 2);
    assert_eq!(get_match(&app, in_play_id).await["status"], "in_progress");

    // Starting one of them is refused, and writes nothing.
    let written = app.tables().await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/start", unplayed[0]),
            &json!({}),
        )
        .await;
    let refused = json_with_status(r, 409, "start a withdrawn team's match").await;
    assert_eq!(refused["error"]["code"], "not_scheduled", "{refused}");
    app.assert_nothing_written(&written, "a withdrawn team's match started")
        .await;
    // So is a new match with it (docs/api.md §6.6).
    let r = admin
        .post(
            "/api/v1/leagues/fall/matches",
            &json!({"team_a": gone, "team_b": t[0]}),
        )
        .await;
    let refused = json_with_status(r, 422, "a new match with a withdrawn team").await;
    assert_eq!(refused["error"]["code"], "invalid_match", "{refused}");

    // Tonight's list: nothing of the team's is offered to start; the others' matches are.
    let boss = app.browser("coord-page").await;
    let html = boss.get("/supervise").await.text().await.unwrap();
    for id in &unplayed {
        if let Some(card) = html_element(&html, &format!("match-{id}"), "</a>") {
            assert!(
                card.contains("match-card done"),
                "a cancelled match is not offered: {card}"
            );
        }
    }
    let later: Vec<&Value> = rounds[&4].iter().filter(|m| !involves(m, gone)).collect();
    for m in &later {
        let card = html_element(&html, &format!("match-{}", m["id"]), "</a>")
            .unwrap_or_else(|| panic!("next week's match {} is listed", m["id"]));
        assert!(card.contains("match-card upcoming"), "{card}");
    }

    // Hands go on: the withdrawn team's match in play is finished (team 6 loses it), and the
    // rest of tonight's matches are played.
    play_out(
        &admin,
        get_match(&app, in_play_id).await,
        &hand_for(in_play, gone, false),
    )
    .await;
    for m in tonight.iter().filter(|m| !involves(m, gone)) {
        let started = admin.start_match(m["id"].as_i64().unwrap()).await;
        play_out(&admin, started, &b_wins()).await;
    }

    // The standings list it with every match it finished: its two rounds and tonight's.
    let after = json_with_status(
        app.get("/api/v1/leagues/fall/standings").await,
        200,
        "standings",
    )
    .await;
    let standing = |rows: &Value, team: i64| -> Value {
        rows["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["team_id"] == team)
            .cloned()
            .unwrap_or_else(|| panic!("team {team} is in the standings: {rows}"))
    };
    assert_eq!(after["rows"].as_array().unwrap().len(), 6, "{after}");
    let was = standing(&before, gone);
    let is = standing(&after, gone);
    assert_eq!(was["played"], 2, "{was}");
    assert_eq!(is["played"], 3, "{is}");
    assert_eq!(
        is["lost"].as_i64(),
        was["lost"].as_i64().map(|l| l + 1),
        "{is}"
    );
    assert_eq!(is["won"], was["won"], "{is}");
    let page = app
        .get("/leagues/fall/standings")
        .await
        .text()
        .await
        .unwrap();
    let row = html_standings(&page)
        .into_iter()
        .find(|cells| cells[1].starts_with("Team 6"))
        .expect("team 6's row");
    assert!(row[1].contains("(withdrawn)"), "{row:?}");

    // The calendars: the team's feed has its five matches, the two it will not play
    // cancelled; the league's feed cancels those two and nothing else.
    let (_, team_feed) = feed(&app, &format!("/teams/{gone}/calendar.ics")).await;
    let statuses: BTreeMap<String, Option<EventStatus>> = team_feed
        .events()
        .map(|e| (e.get_uid().unwrap().to_string(), e.get_status()))
        .collect();
    assert_eq!(statuses.len(), 5, "{statuses:?}");
    for (event, status) in &statuses {
        let cancelled = unplayed.iter().any(|id| &uid(*id) == event);
        let expected = if cancelled {
            EventStatus::Cancelled
        } else {
            EventStatus::Confirmed
        };
        assert_eq!(status, &Some(expected), "{event}");
    }
    let (_, league_feed) = feed(&app, "/leagues/fall/calendar.ics").await;
    let cancelled: BTreeSet<String> = league_feed
        .events()
        .filter(|e| e.get_status() == Some(EventStatus::Cancelled))
        .map(|e| e.get_uid().unwrap().to_string())
        .collect();
    assert_eq!(cancelled, unplayed.iter().map(|id| uid(*id)).collect());
    for id in &unplayed {
        let e = league_feed
            .events()
            .find(|e| e.get_uid() == Some(uid(*id).as_str()))
            .unwrap();
        assert!(
            e.get_description()
                .is_some_and(|d| d.contains("Team 6 withdrew from the league")),
            "{:?}",
            e.get_description()
        );
    }

    // "Generate the rest" after a match between two active teams is cancelled: that pair
    // again, and none of team 6's.
    let off = rounds[&5].iter().find(|m| !involves(m, gone)).unwrap();
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/cancel", off["id"]),
            &json!({"reason": "room booked"}),
        )
        .await;
    json_with_status(r, 200, "cancel a match").await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin", "mode": "rest"}),
        )
        .await;
    let rest = json_with_status(r, 201, "the rest").await;
    let added: Vec<[i64; 2]> = rest["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let mut pair = team_ids(m);
            pair.sort();
            pair
        })
        .collect();
    let mut expected = team_ids(off);
    expected.sort();
    assert_eq!(added, [expected], "{rest}");

    // The rest of the season, then the playoffs: they do not wait for team 6's cancelled
    // matches, and do not seed it.
    let all = json_with_status(
        app.get("/api/v1/leagues/fall/matches").await,
        200,
        "matches",
    )
    .await;
    for m in all["matches"].as_array().unwrap() {
        if m["status"] == "scheduled" {
            assert!(!involves(m, gone), "team 6 has nothing left to play: {m}");
            let started = admin.start_match(m["id"].as_i64().unwrap()).await;
            play_out(&admin, started, &a_wins()).await;
        }
    }
    let r = admin
        .post(
            "/api/v1/leagues/fall/playoffs",
            &json!({"format": "single_elimination"}),
        )
        .await;
    let bracket = json_with_status(r, 201, "the playoffs, the season over").await;
    let seeded: BTreeSet<i64> = bracket["matches"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| [m["team_a"]["id"].as_i64(), m["team_b"]["id"].as_i64()])
        .flatten()
        .collect();
    assert_eq!(
        seeded,
        t[..5].iter().copied().collect(),
        "every team but team 6: {bracket}"
    );
    assert_eq!(bracket["teams"], 5, "{bracket}");
}

/// The hand that makes `team` win (`true`) or lose `m`.
fn hand_for(m: &Value, team: i64, wins: bool) -> Value {
    let team_is_a = m["team_a"]["id"] == team;
    if team_is_a == wins {
        a_wins()
    } else {
        b_wins()
    }
}

/// Reinstating a withdrawn team leaves its cancelled matches cancelled, and "generate the
/// rest" pairs it again with every team it has not met. The withdrawal is audited with the
/// matches it cancelled.
#[actix_web::test]
async fn a_reinstated_team_gets_its_matches_back_from_the_rest_of_the_schedule() {
    let (clock, _) = manual_clock("2026-10-01T17:00:00Z", chrono_tz::America::Chicago);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.user("coord-page", Role::Admin).await;
    let (t, rounds) = season(&app, &admin, 4).await;
    let back = t[3];
    let first = rounds[&1].iter().find(|m| involves(m, back)).unwrap();
    let started = admin.start_match(first["id"].as_i64().unwrap()).await;
    play_out(&admin, started, &hand_for(first, back, true)).await;

    withdraw(&app, back, "1").await;
    let theirs = |all: &Value| -> Vec<Value> {
        all["matches"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| involves(m, back))
            .cloned()
            .collect()
    };
    let all = json_with_status(
        app.get("/api/v1/leagues/fall/matches").await,
        200,
        "matches",
    )
    .await;
    let statuses: Vec<String> = theirs(&all)
        .iter()
        .map(|m| m["status"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(statuses, ["complete", "cancelled", "cancelled"], "{all}");
    let mut conn = app.db.read().await.unwrap();
    let audited: Vec<(String, Option<String>)> = spades_im::on_store!(conn, |c| sqlx::query_as(
        "SELECT after, reason FROM audit_log WHERE action = 'withdraw_team'"
    )
    .fetch_all(c)
    .await)
    .unwrap();
    drop(conn);
    assert_eq!(
        audited,
        [(
            "2 matches cancelled".to_string(),
            Some("Team 4 withdrew from the league".to_string())
        )]
    );

    withdraw(&app, back, "0").await;
    let all = json_with_status(
        app.get("/api/v1/leagues/fall/matches").await,
        200,
        "matches",
    )
    .await;
    assert_eq!(
        theirs(&all)
            .iter()
            .filter(|m| m["status"] == "cancelled")
            .count(),
        2,
        "reinstating brings nothing back by itself"
    );
    let r = admin
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin", "mode": "rest"}),
        )
        .await;
    let rest = json_with_status(r, 201, "the rest").await;
    let opponents: BTreeSet<i64> = rest["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            assert!(involves(m, back), "only team 4's pairs come back: {m}");
            team_ids(m).into_iter().find(|id| *id != back).unwrap()
        })
        .collect();
    let met = team_ids(first).into_iter().find(|id| *id != back).unwrap();
    let expected: BTreeSet<i64> = t[..3].iter().copied().filter(|id| *id != met).collect();
    assert_eq!(opponents, expected, "{rest}");
}
