//! Captains (docs/api.md §20) against a real SMTP server: the sign-in link (one message,
//! valid 15 minutes, used once, at most 5 an hour for one address, the same answer for an
//! address no captain has), the captain's own teams without a student id, and their rights:
//! their own team's lineup before the match starts, nothing of the other team's or the
//! supervisor's.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, TestApp, csrf_in, expect_error, json_with_status, manual_clock};
use crate::notices::wait_for;
use crate::smtp_sink::{Mail, Sink};

/// The captain's student id: it must never reach a captain's answer.
const KIM_STUDENT_ID: &str = "S90817263";

/// League `fall` of 4 teams; team 1's captain Kim (`Kim.Lee@Students.test`, a student
/// id), team 2's captain Ada; a match of teams 1 and 2. The admin, the teams and the match.
async fn league(app: &TestApp) -> (Api, Vec<i64>, Value) {
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "fall", json!("unc-im-300"), 4).await;
    for (team, player) in [
        (
            teams[0],
            json!({"name": "Kim Lee", "email": "Kim.Lee@Students.test",
                   "student_id": KIM_STUDENT_ID, "captain": true}),
        ),
        (
            teams[1],
            json!({"name": "Ada Park", "email": "ada@students.test", "captain": true}),
        ),
    ] {
        let r = admin
            .post(&format!("/api/v1/teams/{team}/players"), &player)
            .await;
        json_with_status(r, 201, "a captain").await;
    }
    let m = admin.add_match("fall", teams[0], teams[1], "Table 1").await;
    (admin, teams, m)
}

/// A browser: cookies kept, redirects not followed.
fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

async fn ask_link(app: &TestApp, email: &str) -> String {
    let r = app
        .client
        .post(app.url("/captain/login"))
        .form(&[("email", email)])
        .send()
        .await
        .expect("ask for a link");
    assert_eq!(r.status(), 200);
    r.text().await.expect("the page")
}

/// The link of a sign-in message, as a path.
fn link_of(mail: &Mail) -> String {
    let start = mail
        .text
        .find("http://spades.test/captain/auth/")
        .unwrap_or_else(|| panic!("a link in {}", mail.text));
    let url: String = mail.text[start..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    url.trim_start_matches("http://spades.test").to_string()
}

/// Follows `path` in `client`: the status and the `Location`.
async fn follow(app: &TestApp, client: &reqwest::Client, path: &str) -> (u16, String) {
    let r = client.get(app.url(path)).send().await.expect("follow");
    let location = r
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap_or_default().to_string())
        .unwrap_or_default();
    (r.status().as_u16(), location)
}

#[actix_web::test]
async fn a_captain_signs_in_by_a_link_used_once_within_15_minutes_at_most_5_an_hour() {
    let sink = Sink::start();
    let (clock, time) = manual_clock("2026-11-02T17:00:00Z", chrono_tz::America::New_York);
    let app = crate::helpers::spawn_app_with_mail(&sink.url(), clock).await;
    league(&app).await;

    // The same answer for a captain's address (in any case) and for anyone else's.
    let known = ask_link(&app, " kim.lee@students.TEST").await;
    let unknown = ask_link(&app, "nobody@students.test").await;
    let strip = |page: &str, email: &str| page.replace(email, "");
    assert_eq!(
        strip(&known, "kim.lee@students.TEST"),
        strip(&unknown, "nobody@students.test")
    );
    assert!(known.contains("If that address belongs to a"), "{known}");
    let mails = wait_for(&sink, 1).await;
    assert_eq!(mails.len(), 1, "one message, to the captain only");
    assert_eq!(mails[0].to, vec!["Kim.Lee@Students.test".to_string()]);
    let link = link_of(&mails[0]);

    // Followed: a captain session, and the captain's page.
    let kim = browser();
    assert_eq!(follow(&app, &kim, &link).await, (303, "/captain".into()));
    let page = kim.get(app.url("/captain")).send().await.expect("page");
    let page = page.text().await.expect("page");
    assert!(
        page.contains("Kim Lee") && page.contains("Team 1"),
        "{page}"
    );
    assert!(!page.contains(KIM_STUDENT_ID), "no student id on the page");

    // Used once.
    let again = browser();
    assert_eq!(follow(&app, &again, &link).await.0, 400);

    // Valid 15 minutes.
    ask_link(&app, "kim.lee@students.test").await;
    let late = link_of(&wait_for(&sink, 2).await[1]);
    time.advance(chrono::Duration::minutes(16));
    assert_eq!(follow(&app, &browser(), &late).await.0, 400, "expired");

    // At most 5 an hour for one address: 2 sent, 3 more, then nothing.
    for _ in 0..4 {
        ask_link(&app, "kim.lee@students.test").await;
    }
    // The fifth came; a second later (wait_for's) still no sixth.
    let sent = wait_for(&sink, 5).await;
    assert_eq!(sent.len(), 5, "five links in the hour, not six");
    time.advance(chrono::Duration::minutes(45));
    ask_link(&app, "kim.lee@students.test").await;
    assert_eq!(wait_for(&sink, 6).await.len(), 6, "an hour on, one more");
}

/// Signs Kim in through a link: the browser and the session's CSRF token.
async fn kim(app: &TestApp, sink: &Sink) -> (reqwest::Client, String) {
    let before = sink.messages().len();
    ask_link(app, "kim.lee@students.test").await;
    let mails = wait_for(sink, before + 1).await;
    let link = link_of(mails.last().expect("the link"));
    let client = browser();
    assert_eq!(follow(app, &client, &link).await.0, 303);
    let page = client.get(app.url("/captain")).send().await.expect("page");
    let csrf = csrf_in(&page.text().await.expect("page")).expect("a CSRF token");
    (client, csrf)
}

#[actix_web::test]
async fn a_captain_sees_their_own_team_and_sets_its_lineup_before_the_match_only() {
    let sink = Sink::start();
    let (clock, _time) = manual_clock("2026-11-02T17:00:00Z", chrono_tz::America::New_York);
    let app = crate::helpers::spawn_app_with_mail(&sink.url(), clock).await;
    let (admin, teams, m) = league(&app).await;
    let id = m["id"].as_i64().expect("match id");
    let (client, csrf) = kim(&app, &sink).await;

    // Their teams: names and emails, never a student id.
    let r = client
        .get(app.url("/api/v1/captain"))
        .send()
        .await
        .expect("teams");
    let raw = r.text().await.expect("body");
    assert!(
        !raw.contains(KIM_STUDENT_ID) && !raw.contains("student_id"),
        "{raw}"
    );
    let own: Value = serde_json::from_str(&raw).expect("JSON");
    let own = own["teams"].as_array().expect("teams").clone();
    assert_eq!(own.len(), 1, "{own:?}");
    assert_eq!(own[0]["id"], teams[0]);
    assert_eq!(own[0]["league"], "fall");
    let players = own[0]["players"].as_array().expect("players");
    let kim = players
        .iter()
        .find(|p| p["name"] == "Kim Lee")
        .expect("Kim");
    assert_eq!(kim["email"], "Kim.Lee@Students.test");
    assert_eq!(kim["captain"], true);
    assert_eq!(own[0]["matches"][0]["id"], id);
    let roster: Vec<i64> = players.iter().map(|p| p["id"].as_i64().unwrap()).collect();

    let post = |path: &str, body: Value, with_csrf: bool| {
        let mut r = client.post(app.url(path)).json(&body);
        if with_csrf {
            r = r.header("X-CSRF-Token", &csrf);
        }
        r.send()
    };
    let lineup = format!("/api/v1/matches/{id}/lineup");
    let ours = json!({"team": "a", "players": [roster[0], roster[1]]});
    // Without the session's CSRF token: refused.
    let r = post(&lineup, ours.clone(), false).await.expect("send");
    assert_eq!(r.status(), 403);
    // The other team's lineup does not exist for them.
    let r = post(&lineup, json!({"team": "b", "players": [1, 2]}), true)
        .await
        .expect("send");
    expect_error(r, 404, "not_found").await;
    // Their own: set, and audited by name and team.
    let r = post(&lineup, ours.clone(), true).await.expect("send");
    let set = json_with_status(r, 200, "the captain's lineup").await;
    assert_eq!(set["lineup"]["a"][0]["id"], roster[0]);
    let audit = json_with_status(
        admin.get(&format!("/api/v1/audit?match={id}")).await,
        200,
        "audit",
    )
    .await;
    let entry = &audit["entries"][0];
    assert_eq!(entry["action"], "lineup");
    assert_eq!(entry["captain"], "Kim Lee, captain of Team 1");
    assert_eq!(entry["user"], Value::Null);

    // Nothing of the supervisor's: a captain is no account.
    let r = post(&format!("/api/v1/matches/{id}/start"), json!({}), true)
        .await
        .expect("send");
    assert_eq!(r.status(), 401);

    // Once the match is under way, the lineup is the supervisor's.
    let r = admin
        .post(&format!("/api/v1/matches/{id}/start"), &json!({}))
        .await;
    json_with_status(r, 200, "started").await;
    let swap = json!({"team": "a", "players": [roster[1], roster[0]]});
    let r = post(&lineup, swap, true).await.expect("send");
    expect_error(r, 409, "match_started").await;
}

#[actix_web::test]
async fn a_lineup_refused_on_the_captains_page_keeps_the_choice_and_says_why() {
    let sink = Sink::start();
    let (clock, _time) = manual_clock("2026-11-02T17:00:00Z", chrono_tz::America::New_York);
    let app = crate::helpers::spawn_app_with_mail(&sink.url(), clock).await;
    let (_admin, _teams, m) = league(&app).await;
    let id = m["id"].as_i64().expect("match id").to_string();
    let (client, csrf) = kim(&app, &sink).await;
    let r = client
        .get(app.url("/api/v1/captain"))
        .send()
        .await
        .expect("teams");
    let own: Value = r.json().await.expect("JSON");
    let first = own["teams"][0]["players"][0]["id"].to_string();

    // The same player in both seats: the page again, the choice kept, the error by the form.
    let form = [
        ("csrf", csrf.as_str()),
        ("match", id.as_str()),
        ("team", "a"),
        ("seat1", first.as_str()),
        ("seat2", first.as_str()),
    ];
    let r = client
        .post(app.url("/captain/lineup"))
        .form(&form)
        .send()
        .await
        .expect("post");
    assert_eq!(r.status(), 422);
    let page = r.text().await.expect("page");
    assert!(page.contains("id=\"form-error\""), "{page}");
    assert!(
        page.contains(&format!("id=\"lineup-{id}-error\"")),
        "{page}"
    );
    assert!(
        page.contains(&format!("<option value=\"{first}\" selected>")),
        "the choice kept: {page}"
    );

    // "We can't play" without a reason: the form again, its error by it; with one, done.
    let default = |reason: &'static str| {
        let form = [
            ("csrf", csrf.clone()),
            ("match", id.clone()),
            ("team", "a".to_string()),
            ("reason", reason.to_string()),
        ];
        client.post(app.url("/captain/default")).form(&form).send()
    };
    let r = default(" ").await.expect("post");
    assert_eq!(r.status(), 422);
    let page = r.text().await.expect("page");
    assert!(
        page.contains(&format!("id=\"default-{id}-error\"")),
        "{page}"
    );
    let r = default("Our players are away").await.expect("post");
    assert_eq!(r.status(), 303);
    let page = client
        .get(app.url("/captain?saved=default"))
        .send()
        .await
        .expect("page");
    let page = page.text().await.expect("page");
    assert!(page.contains("Lost by default v Team 2"), "{page}");

    // Signed out: the session is gone.
    let r = client
        .post(app.url("/captain/logout"))
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .expect("sign out");
    assert_eq!(r.status(), 303);
    let r = client
        .get(app.url("/api/v1/captain"))
        .send()
        .await
        .expect("teams");
    assert_eq!(r.status(), 401);
}

/// A match of teams 1 and 2 of `fall` at `at` (the league's time).
async fn match_at(admin: &Api, teams: &[i64], at: &str) -> i64 {
    let r = admin
        .post(
            "/api/v1/leagues/fall/matches",
            &json!({"team_a": teams[0], "team_b": teams[1], "table": "Table 2", "scheduled_at": at}),
        )
        .await;
    json_with_status(r, 201, "a match").await["id"]
        .as_i64()
        .expect("its id")
}

/// Posts `body` to `path` as the captain's browser session.
async fn as_captain(
    app: &TestApp,
    (client, csrf): &(reqwest::Client, String),
    path: &str,
    body: Value,
) -> reqwest::Response {
    client
        .post(app.url(path))
        .header("X-CSRF-Token", csrf)
        .json(&body)
        .send()
        .await
        .expect("send")
}

/// The standing of `team` in `fall`.
async fn standing(app: &TestApp, team: i64) -> Value {
    let table = app.get("/api/v1/leagues/fall/standings").await;
    let table: Value = table.json().await.expect("standings");
    table["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["team_id"] == team)
        .cloned()
        .expect("the team's row")
}

#[actix_web::test]
async fn a_default_in_time_is_a_loss_never_a_forfeit_and_a_late_one_is_refused() {
    let sink = Sink::start();
    // Monday 2 November 2026, noon in New York.
    let (clock, _time) = manual_clock("2026-11-02T17:00:00Z", chrono_tz::America::New_York);
    let app = crate::helpers::spawn_app_with_mail(&sink.url(), clock).await;
    let (admin, teams, _) = league(&app).await;
    // One forfeit drops a team and bars it from the playoffs: a default must do neither.
    let r = admin
        .patch(
            "/api/v1/leagues/fall",
            &json!({"settings": {"forfeit": {"drop_after": 1}, "eligibility": {"max_forfeits": 0}}}),
        )
        .await;
    json_with_status(r, 200, "the forfeit policy").await;
    let wednesday = match_at(&admin, &teams, "2026-11-04T19:00").await;
    let tomorrow_morning = match_at(&admin, &teams, "2026-11-03T10:00").await;
    let kim = kim(&app, &sink).await;
    let mails_before = sink.messages().len();

    // Not for the other team, and with a reason.
    let path = format!("/api/v1/matches/{wednesday}/default");
    let r = as_captain(&app, &kim, &path, json!({"team": "b", "reason": "x"})).await;
    expect_error(r, 404, "not_found").await;
    let r = as_captain(&app, &kim, &path, json!({"team": "a", "reason": " "})).await;
    expect_error(r, 422, "invalid_input").await;

    let r = as_captain(
        &app,
        &kim,
        &path,
        json!({"team": "a", "reason": "Two of us have an exam"}),
    )
    .await;
    let m = json_with_status(r, 200, "the default").await;
    assert_eq!(m["result"], "default");
    assert_eq!(m["winner"], "b");
    let own = standing(&app, teams[0]).await;
    assert_eq!(
        (own["lost"].clone(), own["forfeits"].clone()),
        (json!(1), json!(0)),
        "{own}"
    );
    assert_eq!(standing(&app, teams[1]).await["won"], 1);
    let listed: Value = app
        .get("/api/v1/leagues/fall/teams")
        .await
        .json()
        .await
        .expect("teams");
    let team1 = listed["teams"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["id"] == teams[0]).cloned())
        .expect("team 1");
    assert_eq!(
        team1["withdrawn"], false,
        "a default is no forfeit: {team1}"
    );
    let gate = admin.get("/api/v1/leagues/fall/eligibility").await;
    let gate = json_with_status(gate, 200, "eligibility").await;
    let row = gate["rows"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["team_id"] == teams[0]).cloned())
        .expect("team 1's row");
    assert_eq!(
        (row["eligible"].clone(), row["reasons"].clone()),
        (json!(true), json!([])),
        "{row}"
    );

    // Both teams are told (Ada of team 2 among them).
    let mails = wait_for(&sink, mails_before + 2).await;
    let told = mails[mails_before..]
        .iter()
        .any(|m| m.to.contains(&"ada@students.test".to_string()) && m.text.contains("cannot play"));
    assert!(told, "{:?}", &mails[mails_before..]);

    // 22 hours ahead is too late; a match already over cannot default.
    let late = format!("/api/v1/matches/{tomorrow_morning}/default");
    let r = as_captain(&app, &kim, &late, json!({"team": "a", "reason": "sick"})).await;
    expect_error(r, 409, "too_late_to_default").await;
    let r = as_captain(&app, &kim, &path, json!({"team": "a", "reason": "again"})).await;
    expect_error(r, 409, "match_closed").await;
    // A supervisor does not default (an admin or the captain does).
    let sue = app.api_user("sue", Role::Supervisor).await;
    let r = sue.post(&late, &json!({"team": "a", "reason": "x"})).await;
    assert_eq!(r.status(), 403);
}

#[actix_web::test]
async fn a_reschedule_request_is_approved_or_declined_and_both_teams_hear() {
    let sink = Sink::start();
    let (clock, _time) = manual_clock("2026-11-02T17:00:00Z", chrono_tz::America::New_York);
    let app = crate::helpers::spawn_app_with_mail(&sink.url(), clock).await;
    let (admin, teams, _) = league(&app).await;
    let first = match_at(&admin, &teams, "2026-11-04T19:00").await;
    let second = match_at(&admin, &teams, "2026-11-05T19:00").await;
    let kim = kim(&app, &sink).await;
    let path = |id: i64| format!("/api/v1/matches/{id}/reschedule-requests");

    for (proposals, field) in [
        (json!([]), "proposals"),
        (json!(["2020-01-01T19:00"]), "proposals[0]"),
        (json!(["2026-11-10T19:00", "someday"]), "proposals[1]"),
        (
            json!([
                "2026-11-10T19:00",
                "2026-11-10T20:00",
                "2026-11-11T19:00",
                "2026-11-12T19:00"
            ]),
            "proposals",
        ),
    ] {
        let r = as_captain(
            &app,
            &kim,
            &path(first),
            json!({"reason": "exam", "proposals": proposals}),
        )
        .await;
        let e = expect_error(r, 422, "invalid_input").await;
        assert_eq!(e["field"], field, "{e}");
    }
    let body =
        json!({"reason": "Midterm exam", "proposals": ["2026-11-10T19:00", "2026-11-11T19:00"]});
    let r = as_captain(&app, &kim, &path(first), body.clone()).await;
    let asked = json_with_status(r, 201, "a request").await;
    assert_eq!(asked["status"], "pending");
    assert_eq!(asked["captain"], "Kim Lee, captain of Team 1");
    let r = as_captain(&app, &kim, &path(second), body).await;
    let other = json_with_status(r, 201, "another request").await;

    let queue = admin
        .get("/api/v1/reschedule-requests?status=pending")
        .await;
    let queue = json_with_status(queue, 200, "the queue").await;
    assert_eq!(
        queue["requests"].as_array().map(Vec::len),
        Some(2),
        "{queue}"
    );

    let approve = format!("/api/v1/reschedule-requests/{}/approve", asked["id"]);
    let r = admin
        .post(&approve, &json!({"scheduled_at": "2026-11-11T19:00"}))
        .await;
    let done = json_with_status(r, 200, "approved").await;
    assert_eq!(done["request"]["status"], "approved");
    assert_eq!(done["match"]["scheduled_at"], "2026-11-11T19:00");
    assert!(done["match"]["warnings"].is_array(), "{done}");
    let r = admin
        .post(&approve, &json!({"scheduled_at": "2026-11-12T19:00"}))
        .await;
    expect_error(r, 409, "already_decided").await;

    let decline = format!("/api/v1/reschedule-requests/{}/decline", other["id"]);
    let r = admin
        .post(&decline, &json!({"reason": "No tables free that week"}))
        .await;
    assert_eq!(
        json_with_status(r, 200, "declined").await["status"],
        "declined"
    );
    let mails = wait_for(&sink, 4).await;
    let ada: Vec<&Mail> = mails
        .iter()
        .filter(|m| m.to.contains(&"ada@students.test".to_string()))
        .collect();
    assert!(
        ada.iter()
            .any(|m| m.text.contains("No tables free that week")),
        "{ada:?}"
    );
    assert!(
        ada.iter()
            .any(|m| m.text.contains("Now: Wed 11 Nov, 19:00")),
        "the move: {ada:?}"
    );
    let pending = admin
        .get("/api/v1/reschedule-requests?status=pending")
        .await;
    let pending = json_with_status(pending, 200, "the queue").await;
    assert_eq!(pending["requests"], json!([]));
}

#[actix_web::test]
async fn a_dispute_within_the_window_is_queued_and_resolved_for_both_captains() {
    let sink = Sink::start();
    let (clock, time) = manual_clock("2026-11-02T17:00:00Z", chrono_tz::America::New_York);
    let app = crate::helpers::spawn_app_with_mail(&sink.url(), clock).await;
    let (admin, teams, m) = league(&app).await;
    let id = m["id"].as_i64().expect("match id");
    let kim = kim(&app, &sink).await;
    let path = format!("/api/v1/matches/{id}/disputes");
    let body = json!({"category": "result", "reason": "We were there on time"});

    // Not before the match is over.
    let r = as_captain(&app, &kim, &path, body.clone()).await;
    expect_error(r, 409, "match_not_over").await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{id}/forfeit"),
            &json!({"team": "a"}),
        )
        .await;
    json_with_status(r, 200, "a forfeit").await;
    let r = as_captain(
        &app,
        &kim,
        &path,
        json!({"category": "weather", "reason": "x"}),
    )
    .await;
    assert_eq!(
        expect_error(r, 422, "invalid_input").await["field"],
        "category"
    );
    let r = as_captain(&app, &kim, &path, body.clone()).await;
    let filed = json_with_status(r, 201, "a dispute").await;
    assert_eq!(
        (filed["status"].clone(), filed["team"]["id"].clone()),
        (json!("open"), json!(teams[0]))
    );

    // 25 hours after the forfeit, too late.
    time.advance(chrono::Duration::hours(25));
    let r = as_captain(&app, &kim, &path, body).await;
    expect_error(r, 409, "too_late_to_dispute").await;

    let queue = admin.get("/api/v1/disputes?status=open").await;
    let queue = json_with_status(queue, 200, "the queue").await;
    assert_eq!(queue["disputes"].as_array().map(Vec::len), Some(1));
    let resolve = format!("/api/v1/disputes/{}/resolve", filed["id"]);
    let r = admin
        .post(
            &resolve,
            &json!({"note": "The forfeit stands: you checked in at 19:20"}),
        )
        .await;
    assert_eq!(
        json_with_status(r, 200, "resolved").await["status"],
        "resolved"
    );
    let r = admin.post(&resolve, &json!({"note": "again"})).await;
    expect_error(r, 409, "already_decided").await;
    // The link, the forfeit to Kim and Ada, then the answer to both captains.
    let mails = wait_for(&sink, 5).await;
    let told: Vec<Vec<String>> = mails
        .iter()
        .filter(|m| m.text.contains("The forfeit stands"))
        .map(|m| m.to.clone())
        .collect();
    assert_eq!(told.len(), 2, "both captains, once each: {told:?}");
}
