//! The coordinator's schedule page, `/admin/leagues/{slug}/schedule`, over real HTTP: the
//! matches grouped by night with a form each; changing a time, a table and the teams;
//! postponing and cancelling with a reason; moving a night through a preview; adding a
//! night match by match; generating the rest of the round robin or all of it again. Every
//! refused form comes back 422 or 409 with what was typed and the message, and writes
//! nothing.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, Browser, TestApp, html_element, html_text, json_with_status, spawn_app};

const PAGE: &str = "/admin/leagues/fall/schedule";

/// A league "fall" of `teams` teams, the coordinator's API client and logged-in browser.
async fn setup(teams: usize) -> (TestApp, Api, Browser, Vec<i64>) {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let ids = app.league(&admin, "fall", json!("unc-im-300"), teams).await;
    let browser = app.browser("coord").await;
    (app, admin, browser, ids)
}

/// A round robin from `start` (weekly, 19:00; no dates for `None`): its matches.
async fn generate(admin: &Api, start: Option<&str>) -> Vec<Value> {
    let mut body = json!({"format": "round_robin"});
    if let Some(start) = start {
        body["start_date"] = json!(start);
    }
    let r = admin.post("/api/v1/leagues/fall/schedule", &body).await;
    let v = json_with_status(r, 201, "generate").await;
    v["matches"].as_array().expect("matches").clone()
}

/// Every match of the league, as the API shows it.
async fn matches(admin: &Api) -> Vec<Value> {
    let v = json_with_status(
        admin.get("/api/v1/leagues/fall/matches").await,
        200,
        "matches",
    )
    .await;
    v["matches"].as_array().expect("matches").clone()
}

async fn one(admin: &Api, id: i64) -> Value {
    json_with_status(
        admin.get(&format!("/api/v1/matches/{id}")).await,
        200,
        "a match",
    )
    .await
}

async fn page(browser: &Browser) -> String {
    let r = browser.get(PAGE).await;
    assert_eq!(r.status(), 200, "the schedule page");
    r.text().await.expect("page")
}

/// The text of the element with id `id` (up to the first `close` after it).
fn text(html: &str, id: &str, close: &str) -> String {
    html_text(html_element(html, id, close).unwrap_or_else(|| panic!("no #{id} in the page")))
}

/// The `value` attribute of the element with id `id`.
fn value(html: &str, id: &str) -> String {
    let tag = html_element(html, id, ">").unwrap_or_else(|| panic!("no #{id} in the page"));
    tag.split(" value=\"")
        .nth(1)
        .and_then(|v| v.split('"').next())
        .map(|v| {
            v.replace("&#x27;", "'")
                .replace("&quot;", "\"")
                .replace("&amp;", "&")
        })
        .unwrap_or_default()
}

/// The value of the selected option of the select with id `id`.
fn selected(html: &str, id: &str) -> String {
    let select = html_element(html, id, "</select>").unwrap_or_else(|| panic!("no #{id}"));
    select
        .split("<option ")
        .find(|o| o.contains(" selected"))
        .and_then(|o| o.split("value=\"").nth(1))
        .and_then(|v| v.split('"').next())
        .unwrap_or_default()
        .to_string()
}

/// The `name`/`value` pairs of a page's hidden inputs inside the element `id`.
fn hidden_fields(html: &str, id: &str) -> Vec<(String, String)> {
    let form = html_element(html, id, "</form>").unwrap_or_else(|| panic!("no #{id}"));
    form.split("<input type=\"hidden\" name=\"")
        .skip(1)
        .map(|rest| {
            let name = rest.split('"').next().unwrap_or_default().to_string();
            let value = rest
                .split("value=\"")
                .nth(1)
                .and_then(|v| v.split('"').next())
                .unwrap_or_default()
                .to_string();
            (name, value)
        })
        .collect()
}

/// Where a 303 goes.
fn location(r: &reqwest::Response) -> String {
    assert_eq!(r.status(), 303, "a redirect");
    r.headers()["location"]
        .to_str()
        .expect("location")
        .to_string()
}

/// Follows the redirect of a form post to the schedule page and returns it.
async fn follow(browser: &Browser, r: reqwest::Response) -> String {
    let to = location(&r);
    assert!(to.starts_with(PAGE), "back to the schedule: {to}");
    let r = browser.get(&to).await;
    assert_eq!(r.status(), 200);
    r.text().await.expect("page")
}

fn id_of(m: &Value) -> i64 {
    m["id"].as_i64().expect("match id")
}

#[actix_web::test]
async fn the_schedule_page_groups_matches_by_night_with_a_form_each() {
    let (app, admin, browser, teams) = setup(4).await;
    // Anonymous: to the login page; a supervisor: 403; an unknown league: 404.
    let r = app.get(PAGE).await;
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], format!("/login?next={PAGE}"));
    app.user("sue", Role::Supervisor).await;
    assert_eq!(app.browser("sue").await.get(PAGE).await.status(), 403);
    assert_eq!(
        browser.get("/admin/leagues/nope/schedule").await.status(),
        404
    );

    let generated = generate(&admin, Some("2026-11-24")).await;
    assert_eq!(generated.len(), 6);
    // An undated regular match and a playoff match.
    let extra = admin.add_match("fall", teams[0], teams[1], "Table 9").await;
    let playoff = json_with_status(
        admin
            .post(
                "/api/v1/leagues/fall/matches",
                &json!({"team_a": teams[2], "team_b": teams[3], "stage": "playoff",
                        "scheduled_at": "2026-12-15T20:00", "table": "Final table"}),
            )
            .await,
        201,
        "a playoff match",
    )
    .await;
    let r = browser.get(PAGE).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["cache-control"], "no-store");
    let html = r.text().await.unwrap();
    assert!(html.contains("/static/admin.css"));
    // Nights in date order, "Not yet scheduled" last, then the playoffs.
    let order: Vec<usize> = [
        "id=\"night-2026-11-24\"",
        "id=\"night-2026-12-01\"",
        "id=\"night-2026-12-08\"",
        "id=\"unscheduled\"",
        "id=\"playoffs\"",
        "id=\"playoff-night-2026-12-15\"",
    ]
    .iter()
    .map(|id| html.find(id).unwrap_or_else(|| panic!("{id} in the page")))
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "in order: {order:?}");
    assert_eq!(
        text(&html, "night-2026-11-24-title", "</h3>"),
        "Tue 24 Nov 2026"
    );
    assert_eq!(
        text(&html, "unscheduled-title", "</h3>"),
        "Not yet scheduled"
    );
    assert!(
        text(&html, "schedule-facts", "</p>")
            .starts_with("8 matches: 7 to play over 4 nights, 1 not yet scheduled")
    );
    assert!(
        text(&html, "undated-callout", "</p>").contains("1 regular-season match has no date yet")
    );

    // Each match of a night: its time, teams, table, status in words, and its forms.
    let first = &generated[0];
    let id = id_of(first);
    let line = text(&html, &format!("match-{id}"), "</li>");
    assert!(
        line.starts_with(&format!(
            "19:00 {} v {} Table 1 Scheduled",
            first["team_a"]["name"].as_str().unwrap(),
            first["team_b"]["name"].as_str().unwrap()
        )),
        "{line}"
    );
    assert_eq!(
        value(&html, &format!("m{id}-scheduled_at")),
        "2026-11-24T19:00"
    );
    assert_eq!(value(&html, &format!("m{id}-table")), "Table 1");
    assert_eq!(
        selected(&html, &format!("m{id}-team_a")),
        first["team_a"]["id"].to_string()
    );
    assert_eq!(
        selected(&html, &format!("m{id}-team_b")),
        first["team_b"]["id"].to_string()
    );
    let form = html_element(&html, &format!("m{id}"), "</form>").unwrap();
    assert!(form.contains(&format!("action=\"/admin/leagues/fall/matches/{id}\"")));
    assert!(form.contains("type=\"datetime-local\""));
    assert!(form.contains("name=\"expected_version\" value=\"1\""));
    let off = html_element(&html, &format!("m{id}-off"), "</form>").unwrap();
    assert!(off.contains("name=\"reason\""));
    assert!(off.contains(&format!("/admin/leagues/fall/matches/{id}/postpone")));
    assert!(off.contains(&format!("/admin/leagues/fall/matches/{id}/cancel")));
    // The undated match: an empty date to fill in.
    let extra_id = id_of(&extra);
    assert_eq!(value(&html, &format!("m{extra_id}-scheduled_at")), "");
    assert!(text(&html, &format!("match-{extra_id}"), "</li>").contains("Not yet scheduled"));
    // The playoff match: time and table, no teams to pick, postponed but not cancelled.
    let p = id_of(&playoff);
    assert_eq!(
        value(&html, &format!("m{p}-scheduled_at")),
        "2026-12-15T20:00"
    );
    assert!(!html.contains(&format!("id=\"m{p}-team_a\"")));
    let off = html_element(&html, &format!("m{p}-off"), "</form>").unwrap();
    assert!(!off.contains("/cancel\""), "no cancel for a playoff match");
    // Per night: move it, add a match to it.
    let night = html_element(&html, "night-2026-11-24", "</ol>").unwrap();
    assert!(night.contains("Move this night to…"));
    assert!(night.contains("name=\"from\" value=\"2026-11-24\""));
    assert!(night.contains("href=\"/admin/leagues/fall/schedule?add=2026-11-24T19:00#add-match\""));
    // The league page links here.
    let league = browser
        .get("/admin/leagues/fall")
        .await
        .text()
        .await
        .unwrap();
    assert!(league.contains("href=\"/admin/leagues/fall/schedule\" id=\"schedule-link\""));
    assert!(
        text(&league, "undated-callout", "</p>").contains("1 regular-season match has no date yet")
    );
}

#[actix_web::test]
async fn a_match_gets_a_new_time_table_and_teams_from_the_page() {
    let (app, admin, browser, teams) = setup(4).await;
    let generated = generate(&admin, Some("2026-11-24")).await;
    let m = &generated[0];
    let id = id_of(m);
    let path = format!("/admin/leagues/fall/matches/{id}");
    let r = browser
        .post_form(
            &path,
            &[
                ("expected_version", "1"),
                ("scheduled_at", "2026-11-26T20:30"),
                ("table", "Table 7"),
                ("team_a", &m["team_a"]["id"].to_string()),
                ("team_b", &m["team_b"]["id"].to_string()),
            ],
        )
        .await;
    assert_eq!(
        location(&r),
        format!("{PAGE}?done=changed&id={id}#match-{id}")
    );
    let html = follow(&browser, r).await;
    let changed = one(&admin, id).await;
    assert_eq!(changed["scheduled_at"], "2026-11-26T20:30");
    assert_eq!(changed["table"], "Table 7");
    assert_eq!(changed["version"], 2);
    assert!(text(&html, "notice", "</p>").contains("Saved "), "{html}");
    assert!(text(&html, "notice", "</p>").contains("Thu 26 Nov 2026, 20:30, Table 7"));
    // Now under its new night, highlighted, with its new version.
    let night = html_element(&html, "night-2026-11-26", "</section>").unwrap();
    assert!(night.contains(&format!("id=\"match-{id}\"")));
    assert!(html.contains(&format!(
        "class=\"match-line status-scheduled changed\" id=\"match-{id}\""
    )));
    assert_eq!(value(&html, &format!("m{id}-table")), "Table 7");
    assert!(
        html_element(&html, &format!("m{id}"), "</form>")
            .unwrap()
            .contains("name=\"expected_version\" value=\"2\"")
    );

    // The teams: a team that does not play this match in its place.
    let other = teams
        .iter()
        .find(|t| {
            **t != m["team_a"]["id"].as_i64().unwrap() && **t != m["team_b"]["id"].as_i64().unwrap()
        })
        .unwrap()
        .to_string();
    let r = browser
        .post_form(
            &path,
            &[
                ("expected_version", "2"),
                ("scheduled_at", "2026-11-26T20:30"),
                ("table", "Table 7"),
                ("team_a", &m["team_a"]["id"].to_string()),
                ("team_b", &other),
            ],
        )
        .await;
    assert_eq!(r.status(), 303);
    let changed = one(&admin, id).await;
    assert_eq!(changed["team_b"]["id"].to_string(), other);
    assert_eq!(changed["scheduled_at"], "2026-11-26T20:30", "the time kept");

    // The same values again: nothing written, and it says so.
    let before = app.tables().await;
    let r = browser
        .post_form(
            &path,
            &[
                ("expected_version", "3"),
                ("scheduled_at", "2026-11-26T20:30"),
                ("table", " Table 7 "),
                ("team_a", &m["team_a"]["id"].to_string()),
                ("team_b", &other),
            ],
        )
        .await;
    let html = follow(&browser, r).await;
    app.assert_nothing_written(&before, "the same values").await;
    assert!(text(&html, "notice", "</p>").starts_with("Nothing to save for"));

    // Another league's match through this league's address: 404.
    admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "spring", "slug": "spring", "rules": {"regular": "unc-im-300"}}),
        )
        .await;
    let before = app.tables().await;
    let r = browser
        .post_form(
            &format!("/admin/leagues/spring/matches/{id}"),
            &[("expected_version", "3"), ("table", "Table 1")],
        )
        .await;
    assert_eq!(r.status(), 404);
    app.assert_nothing_written(&before, "another league's match")
        .await;
}

#[actix_web::test]
async fn a_postponed_match_shows_why_and_gets_a_new_time() {
    let (_app, admin, browser, _) = setup(4).await;
    let generated = generate(&admin, Some("2026-11-24")).await;
    let id = id_of(&generated[1]);
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/matches/{id}/postpone"),
            &[("expected_version", "1"), ("reason", "Rec center closed")],
        )
        .await;
    assert_eq!(
        location(&r),
        format!("{PAGE}?done=postponed&id={id}#postponed")
    );
    let html = follow(&browser, r).await;
    let m = one(&admin, id).await;
    assert_eq!(m["status"], "postponed");
    assert_eq!(m["status_note"], "Rec center closed");
    assert_eq!(m["scheduled_at"], Value::Null);
    assert!(text(&html, "notice", "</p>").contains("Postponed "));
    // Under "Postponed", in words, its date empty for a new time; no second postpone.
    let group = html_element(&html, "postponed", "</ol>").unwrap();
    assert!(group.contains(&format!("id=\"match-{id}\"")));
    assert_eq!(
        text(&html, &format!("match-{id}-status"), "</span>"),
        "Postponed: Rec center closed"
    );
    assert_eq!(value(&html, &format!("m{id}-scheduled_at")), "");
    assert!(!html.contains(&format!("id=\"m{id}-off-postpone\"")));
    assert!(
        html.contains(&format!("id=\"m{id}-off-cancel\"")),
        "it may still be cancelled"
    );
    assert!(
        text(&html, "postponed-callout", "</p>").contains("1 postponed match needs a new time")
    );
    let league = browser
        .get("/admin/leagues/fall")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        text(&league, "postponed-callout", "</p>").contains("1 postponed match needs a new time")
    );

    // A new time: scheduled again, the reason gone.
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/matches/{id}"),
            &[
                ("expected_version", "2"),
                ("scheduled_at", "2026-12-15T18:00"),
                ("table", "Table 2"),
            ],
        )
        .await;
    let html = follow(&browser, r).await;
    let m = one(&admin, id).await;
    assert_eq!(m["status"], "scheduled");
    assert_eq!(m["scheduled_at"], "2026-12-15T18:00");
    assert!(m.get("status_note").is_none());
    assert!(
        !html.contains("id=\"postponed\""),
        "nothing postponed any more"
    );
    let night = html_element(&html, "night-2026-12-15", "</ol>").unwrap();
    assert!(night.contains(&format!("id=\"match-{id}\"")));
}

#[actix_web::test]
async fn a_regular_match_is_cancelled_with_a_reason_a_playoff_match_is_not() {
    let (app, admin, browser, teams) = setup(4).await;
    let generated = generate(&admin, Some("2026-11-24")).await;
    let id = id_of(&generated[2]);
    let teams_of = format!(
        "{} v {}",
        generated[2]["team_a"]["name"].as_str().unwrap(),
        generated[2]["team_b"]["name"].as_str().unwrap()
    );
    // The schedule's "Cancel the match" only asks first: nothing is written, the reason is
    // kept, and an explicit button names the match.
    let before = app.tables().await;
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/matches/{id}/cancel"),
            &[("expected_version", "1"), ("reason", "Team 3 folded")],
        )
        .await;
    assert_eq!(r.status(), 200, "a confirmation step");
    let asked = r.text().await.unwrap();
    app.assert_nothing_written(&before, "a cancel not yet confirmed")
        .await;
    assert_eq!(one(&admin, id).await["status"], "scheduled");
    assert!(
        asked.contains(&format!("<h1>Cancel M{id} ({teams_of})?</h1>")),
        "{asked}"
    );
    assert_eq!(value(&asked, "cancel-reason"), "Team 3 folded");
    assert_eq!(
        text(&asked, "cancel-yes", "</button>"),
        format!("Yes, cancel M{id} ({teams_of})")
    );
    let confirm = hidden_fields(&asked, "cancel-confirm");
    assert!(
        confirm.contains(&("confirm".to_string(), "1".to_string())),
        "{confirm:?}"
    );
    assert!(confirm.contains(&("expected_version".to_string(), "1".to_string())));
    assert!(
        html_element(&asked, "cancel-no", "</a>")
            .unwrap()
            .contains(&format!("href=\"/admin/leagues/fall/schedule#match-{id}\""))
    );
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/matches/{id}/cancel"),
            &[
                ("expected_version", "1"),
                ("reason", "Team 3 folded"),
                ("confirm", "1"),
            ],
        )
        .await;
    let html = follow(&browser, r).await;
    let m = one(&admin, id).await;
    assert_eq!(m["status"], "cancelled");
    assert_eq!(
        m["scheduled_at"], "2026-12-01T19:00",
        "a cancelled match keeps its time"
    );
    assert!(text(&html, "notice", "</p>").starts_with("Cancelled "));
    assert_eq!(
        text(&html, &format!("match-{id}-status"), "</span>"),
        "Cancelled: Team 3 folded"
    );
    let line = html_element(&html, &format!("match-{id}"), "</li>").unwrap();
    // Nothing left to change; a match never begun can still be deleted (docs/api.md §18.2).
    assert_eq!(line.matches("<form").count(), 1, "only Delete: {line}");
    assert!(
        line.contains(&format!(
            "action=\"/admin/leagues/fall/matches/{id}/delete\""
        )),
        "{line}"
    );
    assert!(text(&html, "night-2026-12-01", "</div>").contains("2 matches: 1 cancelled"));

    // A playoff match cannot be cancelled (its winner goes on): 422, nothing written.
    let p = json_with_status(
        admin
            .post(
                "/api/v1/leagues/fall/matches",
                &json!({"team_a": teams[0], "team_b": teams[1], "stage": "playoff"}),
            )
            .await,
        201,
        "a playoff match",
    )
    .await;
    let p = id_of(&p);
    let before = app.tables().await;
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/matches/{p}/cancel"),
            &[("expected_version", "1"), ("reason", "no room")],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    app.assert_nothing_written(&before, "cancelling a playoff match")
        .await;
    assert!(
        text(&html, &format!("m{p}-off-reason-error"), "</p>")
            .contains("a playoff match cannot be cancelled")
    );
    assert_eq!(value(&html, &format!("m{p}-off-reason")), "no room");
}

#[actix_web::test]
async fn refused_changes_come_back_with_what_was_typed_and_write_nothing() {
    let (app, admin, browser, _) = setup(4).await;
    let generated = generate(&admin, Some("2026-11-24")).await;
    let m = &generated[0];
    let id = id_of(m);
    let (a, b) = (m["team_a"]["id"].to_string(), m["team_b"]["id"].to_string());
    let path = format!("/admin/leagues/fall/matches/{id}");
    let before = app.tables().await;

    // A bad date: 422, the message at the field, every typed value back.
    let r = browser
        .post_form(
            &path,
            &[
                ("expected_version", "1"),
                ("scheduled_at", "next tuesday"),
                ("table", "Table 5"),
                ("team_a", &a),
                ("team_b", &b),
            ],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    let summary = html_element(&html, "form-error", "</p>").unwrap();
    assert!(summary.contains("role=\"alert\"") && summary.contains("autofocus"));
    assert!(html_text(summary).contains("the time is YYYY-MM-DDTHH:MM"));
    assert!(summary.contains(&format!("href=\"#m{id}-scheduled_at\"")));
    assert!(
        text(&html, &format!("m{id}-scheduled_at-error"), "</p>")
            .contains("the time is YYYY-MM-DDTHH:MM")
    );
    assert!(html.contains(&format!("id=\"m{id}-scheduled_at\" type=\"datetime-local\" name=\"scheduled_at\" value=\"next tuesday\" aria-invalid=\"true\"")));
    assert_eq!(value(&html, &format!("m{id}-table")), "Table 5");

    // A team playing itself.
    let r = browser
        .post_form(
            &path,
            &[
                ("expected_version", "1"),
                ("scheduled_at", "2026-11-24T19:00"),
                ("table", "Table 1"),
                ("team_a", &b),
                ("team_b", &b),
            ],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    assert!(
        text(&html, &format!("m{id}-team_b-error"), "</p>").contains("a team cannot play itself")
    );
    assert_eq!(
        selected(&html, &format!("m{id}-team_a")),
        b,
        "the typed team kept"
    );

    // A table name too long.
    let long = "T".repeat(41);
    let r = browser
        .post_form(&path, &[("expected_version", "1"), ("table", &long)])
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    assert!(text(&html, &format!("m{id}-table-error"), "</p>").contains("a table name"));

    // Postponing without a reason (or with blanks only).
    for reason in ["", "   "] {
        let r = browser
            .post_form(
                &format!("{path}/postpone"),
                &[("expected_version", "1"), ("reason", reason)],
            )
            .await;
        assert_eq!(r.status(), 422);
        let html = r.text().await.unwrap();
        assert!(text(&html, &format!("m{id}-off-reason-error"), "</p>").contains("say why"));
        assert!(
            html.contains("<details class=\"call-off\" open>"),
            "the form shown open"
        );
    }
    // Cancelling without one.
    let r = browser
        .post_form(
            &format!("{path}/cancel"),
            &[("expected_version", "1"), ("reason", "")],
        )
        .await;
    assert_eq!(r.status(), 422);
    app.assert_nothing_written(&before, "refused changes").await;

    // A stale version: someone else changed the match meanwhile. 409, their values shown,
    // what was typed quoted.
    let r = admin
        .client
        .patch(format!("{}/api/v1/matches/{id}", admin.base))
        .bearer_auth(&admin.token)
        .json(&json!({"table": "Table 4", "expected_version": 1}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "someone else's change");
    let before = app.tables().await;
    let r = browser
        .post_form(
            &path,
            &[
                ("expected_version", "1"),
                ("scheduled_at", "2026-11-25T19:00"),
                ("table", "Table 1"),
                ("team_a", &a),
                ("team_b", &b),
            ],
        )
        .await;
    assert_eq!(r.status(), 409);
    let html = r.text().await.unwrap();
    app.assert_nothing_written(&before, "a stale version").await;
    assert!(text(&html, "form-error", "</p>").contains("someone else changed"));
    assert!(text(&html, &format!("m{id}-error"), "</p>").contains("someone else changed"));
    assert_eq!(
        value(&html, &format!("m{id}-table")),
        "Table 4",
        "the current table"
    );
    assert_eq!(
        value(&html, &format!("m{id}-scheduled_at")),
        "2026-11-24T19:00"
    );
    assert!(
        html_element(&html, &format!("m{id}"), "</form>")
            .unwrap()
            .contains("name=\"expected_version\" value=\"2\"")
    );
    assert!(
        text(&html, &format!("m{id}-typed"), "</p>")
            .contains("You had typed: Wed 25 Nov 2026, 19:00, Table 1")
    );
    // The same for a postponement.
    let r = browser
        .post_form(
            &format!("{path}/postpone"),
            &[("expected_version", "1"), ("reason", "rain")],
        )
        .await;
    assert_eq!(r.status(), 409);
    let html = r.text().await.unwrap();
    assert_eq!(value(&html, &format!("m{id}-off-reason")), "rain");
    app.assert_nothing_written(&before, "a stale postponement")
        .await;

    // A started match keeps its time and teams: only its table changes.
    admin.start_match(id).await;
    let html = page(&browser).await;
    assert!(!html.contains(&format!("id=\"m{id}-scheduled_at\"")));
    assert!(!html.contains(&format!("id=\"m{id}-team_a\"")));
    assert!(!html.contains(&format!("id=\"m{id}-off\"")));
    assert!(html.contains(&format!("id=\"m{id}-table\"")));
    let version = one(&admin, id).await["version"].to_string();
    let before = app.tables().await;
    let r = browser
        .post_form(
            &path,
            &[
                ("expected_version", &version),
                ("scheduled_at", "2026-11-25T19:00"),
                ("table", "Table 4"),
            ],
        )
        .await;
    assert_eq!(r.status(), 409);
    let html = r.text().await.unwrap();
    assert!(text(&html, "form-error", "</p>").contains("the match has started"));
    let r = browser
        .post_form(
            &format!("{path}/postpone"),
            &[("expected_version", &version), ("reason", "x")],
        )
        .await;
    assert_eq!(r.status(), 409);
    app.assert_nothing_written(&before, "changing a started match")
        .await;
    let r = browser
        .post_form(
            &path,
            &[("expected_version", &version), ("table", "Table 8")],
        )
        .await;
    assert_eq!(r.status(), 303, "its table still changes");
    assert_eq!(one(&admin, id).await["table"], "Table 8");
}

#[actix_web::test]
async fn a_night_is_previewed_then_moved_and_started_matches_stay() {
    let (app, admin, browser, teams) = setup(4).await;
    let generated = generate(&admin, Some("2026-11-24")).await;
    let night: Vec<&Value> = generated
        .iter()
        .filter(|m| m["scheduled_at"] == "2026-11-24T19:00")
        .collect();
    assert_eq!(night.len(), 2);
    // A third match that night, at 20:30; the first match has started.
    let late = json_with_status(
        admin
            .post(
                "/api/v1/leagues/fall/matches",
                &json!({"team_a": teams[0], "team_b": teams[3], "table": "Table 3",
                        "scheduled_at": "2026-11-24T20:30"}),
            )
            .await,
        201,
        "a late match",
    )
    .await;
    let started = id_of(night[0]);
    admin.start_match(started).await;

    // The preview lists what moves (from → to, with times) and what stays; nothing written.
    let before = app.tables().await;
    let r = browser
        .post_form(
            "/admin/leagues/fall/nights/move",
            &[
                ("from", "2026-11-24"),
                ("to", "2026-11-26"),
                ("group", "night-2026-11-24"),
            ],
        )
        .await;
    assert_eq!(r.status(), 200);
    let html = r.text().await.unwrap();
    app.assert_nothing_written(&before, "the preview").await;
    assert!(html_text(&html).contains("Move Tue 24 Nov 2026 to Thu 26 Nov 2026?"));
    let moving = text(&html, "moving", "</table>");
    let second = night[1];
    assert!(
        moving.contains(&format!(
            "{} v {} Table 2 Tue 24 Nov 2026, 19:00 Thu 26 Nov 2026, 19:00",
            second["team_a"]["name"].as_str().unwrap(),
            second["team_b"]["name"].as_str().unwrap()
        )),
        "{moving}"
    );
    assert!(
        moving.contains("Team 1 v Team 4 Table 3 Tue 24 Nov 2026, 20:30 Thu 26 Nov 2026, 20:30"),
        "{moving}"
    );
    let staying = text(&html, "staying", "</ul>");
    assert!(staying.contains("In progress"), "{staying}");
    assert!(staying.contains(night[0]["team_a"]["name"].as_str().unwrap()));
    assert_eq!(
        text(&html, "confirm-move", "</button>"),
        "Move 2 matches to Thu 26 Nov"
    );
    let fields = hidden_fields(&html, "confirm-form");
    assert!(fields.contains(&("confirm".into(), "1".into())));

    // Confirmed: moved, back to the schedule with the message.
    let form: Vec<(&str, &str)> = fields
        .iter()
        .filter(|(k, _)| k != "csrf")
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let r = browser
        .post_form("/admin/leagues/fall/nights/move", &form)
        .await;
    assert_eq!(
        location(&r),
        format!("{PAGE}?done=moved&n=2&from=2026-11-24&to=2026-11-26#night-2026-11-26")
    );
    let page = follow(&browser, r).await;
    assert_eq!(
        text(&page, "notice", "</p>"),
        "Moved 2 matches from Tue 24 Nov to Thu 26 Nov."
    );
    assert_eq!(
        one(&admin, id_of(second)).await["scheduled_at"],
        "2026-11-26T19:00"
    );
    assert_eq!(
        one(&admin, id_of(&late)).await["scheduled_at"],
        "2026-11-26T20:30"
    );
    assert_eq!(
        one(&admin, started).await["scheduled_at"],
        "2026-11-24T19:00",
        "the started match stays"
    );
    let moved = html_element(&page, "night-2026-11-26", "</section>").unwrap();
    assert!(moved.contains(&format!("id=\"match-{}\"", id_of(&late))));

    // A preview that went stale (a match changed after it): 409, the new list, nothing moved.
    let r = browser
        .post_form(
            "/admin/leagues/fall/nights/move",
            &[
                ("from", "2026-12-01"),
                ("to", "2026-12-03"),
                ("group", "night-2026-12-01"),
            ],
        )
        .await;
    let html = r.text().await.unwrap();
    let fields = hidden_fields(&html, "confirm-form");
    let december = matches(&admin)
        .await
        .into_iter()
        .find(|m| m["scheduled_at"] == "2026-12-01T19:00")
        .unwrap();
    let r = admin
        .client
        .patch(format!(
            "{}/api/v1/matches/{}",
            admin.base,
            id_of(&december)
        ))
        .bearer_auth(&admin.token)
        .json(&json!({"table": "Table 6", "expected_version": december["version"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let before = app.tables().await;
    let form: Vec<(&str, &str)> = fields
        .iter()
        .filter(|(k, _)| k != "csrf")
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let r = browser
        .post_form("/admin/leagues/fall/nights/move", &form)
        .await;
    assert_eq!(r.status(), 409);
    let html = r.text().await.unwrap();
    app.assert_nothing_written(&before, "a stale preview").await;
    assert!(text(&html, "form-error", "</p>").contains("the night changed since the preview"));
    assert!(text(&html, "moving", "</table>").contains("Table 6"));

    // Bad dates: the schedule page again, 422, the message at the night's field.
    for (to, message) in [
        ("", "a date is YYYY-MM-DD"),
        ("26/11/2026", "a date is YYYY-MM-DD"),
        ("2026-12-01", "the same as the night's date"),
    ] {
        let r = browser
            .post_form(
                "/admin/leagues/fall/nights/move",
                &[
                    ("from", "2026-12-01"),
                    ("to", to),
                    ("group", "night-2026-12-01"),
                ],
            )
            .await;
        assert_eq!(r.status(), 422, "{to:?}");
        let html = r.text().await.unwrap();
        let error = text(&html, "move-night-2026-12-01-to-error", "</p>");
        assert!(error.contains(message), "{to:?}: {error}");
        assert_eq!(value(&html, "move-night-2026-12-01-to"), to);
        assert!(html.contains("<details class=\"night-move\" open>"));
    }
    app.assert_nothing_written(&before, "bad night moves").await;
}

#[actix_web::test]
async fn a_night_is_added_match_by_match() {
    let (app, admin, browser, teams) = setup(4).await;
    generate(&admin, Some("2026-11-24")).await;
    let html = browser
        .get(&format!("{PAGE}?add=2026-12-15T19:00"))
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(value(&html, "match-scheduled_at"), "2026-12-15T19:00");
    let (a, b, c, d) = (
        teams[0].to_string(),
        teams[1].to_string(),
        teams[2].to_string(),
        teams[3].to_string(),
    );
    let r = browser
        .post_form(
            "/admin/leagues/fall/matches",
            &[
                ("from", "schedule"),
                ("team_a", &a),
                ("team_b", &b),
                ("stage", "regular"),
                ("table", "Table 1"),
                ("scheduled_at", "2026-12-15T19:00"),
            ],
        )
        .await;
    let html = follow(&browser, r).await;
    assert!(
        text(&html, "notice", "</p>").contains("Added Team 1 v Team 2 (Tue 15 Dec 2026, 19:00)")
    );
    assert_eq!(
        value(&html, "match-scheduled_at"),
        "2026-12-15T19:00",
        "the same night"
    );
    assert_eq!(value(&html, "match-table"), "Table 2", "the next table");
    // A refused one comes back on this page with what was typed.
    let before = app.tables().await;
    let r = browser
        .post_form(
            "/admin/leagues/fall/matches",
            &[
                ("from", "schedule"),
                ("team_a", &c),
                ("team_b", &c),
                ("stage", "regular"),
                ("table", "Table 2"),
                ("scheduled_at", "2026-12-15T19:00"),
            ],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    app.assert_nothing_written(&before, "a team playing itself")
        .await;
    assert!(html.contains("<h1>Schedule: fall</h1>"));
    assert!(text(&html, "match-team_b-error", "</p>").contains("a team cannot play itself"));
    assert_eq!(selected(&html, "match-team_a"), c);
    assert_eq!(value(&html, "match-scheduled_at"), "2026-12-15T19:00");
    let r = browser
        .post_form(
            "/admin/leagues/fall/matches",
            &[
                ("from", "schedule"),
                ("team_a", &c),
                ("team_b", &d),
                ("stage", "regular"),
                ("table", "Table 2"),
                ("scheduled_at", "2026-12-15T19:00"),
            ],
        )
        .await;
    let html = follow(&browser, r).await;
    let night = text(&html, "night-2026-12-15", "</ol>");
    assert!(night.contains("Team 1 v Team 2 Table 1"), "{night}");
    assert!(night.contains("Team 3 v Team 4 Table 2"), "{night}");
}

/// The pairs of teams of the regular-season matches that count (not cancelled), each sorted.
fn pairings(all: &[Value]) -> Vec<(i64, i64)> {
    let mut pairs: Vec<(i64, i64)> = all
        .iter()
        .filter(|m| m["stage"] == "regular" && m["status"] != "cancelled")
        .map(|m| {
            let (a, b) = (
                m["team_a"]["id"].as_i64().unwrap(),
                m["team_b"]["id"].as_i64().unwrap(),
            );
            (a.min(b), a.max(b))
        })
        .collect();
    pairs.sort_unstable();
    pairs
}

#[actix_web::test]
async fn the_rest_of_the_round_robin_is_generated_after_a_cancel_and_a_played_match() {
    let (app, admin, browser, _) = setup(4).await;
    let generated = generate(&admin, Some("2026-11-24")).await;
    let html = page(&browser).await;
    assert!(text(&html, "rest-none", "</p>").contains("nothing to generate"));
    assert!(!html.contains("id=\"rest\""));
    // One match forfeited (played), one cancelled; a fifth team joins.
    let played = id_of(&generated[0]);
    let r = admin
        .post(
            &format!("/api/v1/matches/{played}/forfeit"),
            &json!({"team": "b"}),
        )
        .await;
    json_with_status(r, 200, "a forfeit").await;
    let cancelled = id_of(&generated[5]);
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/matches/{cancelled}/cancel"),
            &[
                ("expected_version", "1"),
                ("reason", "double-booked"),
                ("confirm", "1"),
            ],
        )
        .await;
    assert_eq!(r.status(), 303);
    let r = admin
        .post(
            "/api/v1/leagues/fall/teams",
            &json!({"name": "Team 5", "players": ["P5a", "P5b"]}),
        )
        .await;
    assert_eq!(r.status(), 201);
    let html = page(&browser).await;
    assert!(
        text(&html, "rest-count", "</p>")
            .starts_with("5 pairings of active teams have no match yet")
    );
    assert!(
        !html.contains("id=\"replace\""),
        "a match was played: no regenerating"
    );
    assert_eq!(value(&html, "rest-time"), "19:00");

    // A bad date keeps what was typed.
    let before = app.tables().await;
    let r = browser
        .post_form(
            "/admin/leagues/fall/schedule",
            &[
                ("mode", "rest"),
                ("from", "schedule"),
                ("start_date", "soon"),
                ("time", "18:00"),
                ("days_between", "7"),
            ],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    app.assert_nothing_written(&before, "a bad first date")
        .await;
    assert!(text(&html, "rest-start_date-error", "</p>").contains("the first date is YYYY-MM-DD"));
    assert_eq!(value(&html, "rest-start_date"), "soon");
    assert_eq!(value(&html, "rest-time"), "18:00");

    // Empty date: one gap after the last night (8 Dec → 15 Dec).
    let r = browser
        .post_form(
            "/admin/leagues/fall/schedule",
            &[
                ("mode", "rest"),
                ("from", "schedule"),
                ("start_date", ""),
                ("time", "18:00"),
                ("days_between", "7"),
            ],
        )
        .await;
    assert_eq!(location(&r), format!("{PAGE}?done=rest&n=5"));
    let html = follow(&browser, r).await;
    assert_eq!(
        text(&html, "notice", "</p>"),
        "Added 5 matches: the rest of the round robin."
    );
    let all = matches(&admin).await;
    let pairs = pairings(&all);
    let mut unique = pairs.clone();
    unique.dedup();
    assert_eq!(pairs, unique, "no pairing twice");
    assert_eq!(pairs.len(), 10, "5 teams: every pair once");
    assert!(
        all.iter()
            .filter(|m| m["status"] == "scheduled")
            .all(|m| m["scheduled_at"].as_str().unwrap() < "2026-12-15"
                || m["scheduled_at"].as_str().unwrap().ends_with("T18:00"))
    );
    assert!(all.iter().any(|m| m["scheduled_at"] == "2026-12-15T18:00"));
    assert!(text(&html, "rest-none", "</p>").contains("nothing to generate"));

    // Again: nothing to add, refused, nothing written.
    let before = app.tables().await;
    let r = browser
        .post_form(
            "/admin/leagues/fall/schedule",
            &[
                ("mode", "rest"),
                ("from", "schedule"),
                ("start_date", ""),
                ("time", ""),
                ("days_between", ""),
            ],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    app.assert_nothing_written(&before, "nothing left to generate")
        .await;
    assert!(text(&html, "rest-error", "</p>").contains("nothing to add"));
}

#[actix_web::test]
async fn an_undated_schedule_is_dated_or_regenerated_until_a_match_starts() {
    let (app, admin, browser, _) = setup(4).await;
    // Generated from the league page with the date left empty: the schedule page says the
    // matches have no date and offers both ways to date them.
    let r = browser
        .post_form(
            "/admin/leagues/fall/schedule",
            &[
                ("mode", "new"),
                ("start_date", ""),
                ("time", "19:00"),
                ("days_between", "7"),
            ],
        )
        .await;
    assert_eq!(location(&r), format!("{PAGE}?done=generated&n=6"));
    let html = follow(&browser, r).await;
    assert!(text(&html, "notice", "</p>").contains("with no date yet"));
    assert!(
        text(&html, "undated-callout", "</p>")
            .contains("6 regular-season matches have no date yet")
    );
    let group = html_element(&html, "unscheduled", "</ol>").unwrap();
    assert_eq!(group.matches("type=\"datetime-local\"").count(), 6);
    assert!(html.contains("id=\"replace\""));

    // Regenerating needs the box ticked.
    let before = app.tables().await;
    let form = [
        ("mode", "replace"),
        ("from", "schedule"),
        ("start_date", "2026-11-24"),
        ("time", "18:30"),
        ("days_between", "7"),
    ];
    let r = browser
        .post_form("/admin/leagues/fall/schedule", &form)
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    app.assert_nothing_written(&before, "regenerating unticked")
        .await;
    assert!(
        text(&html, "replace-understand-error", "</p>")
            .contains("I understand every scheduled match is replaced")
    );
    assert_eq!(value(&html, "replace-start_date"), "2026-11-24");
    assert_eq!(value(&html, "replace-time"), "18:30");

    let mut ticked = form.to_vec();
    ticked.push(("understand", "1"));
    let r = browser
        .post_form("/admin/leagues/fall/schedule", &ticked)
        .await;
    assert_eq!(location(&r), format!("{PAGE}?done=replaced&n=6"));
    let html = follow(&browser, r).await;
    assert_eq!(
        text(&html, "notice", "</p>"),
        "Schedule regenerated: 6 matches."
    );
    assert!(!html.contains("id=\"undated-callout\""));
    let all = matches(&admin).await;
    assert_eq!(all.len(), 6);
    assert!(all.iter().all(|m| {
        m["scheduled_at"]
            .as_str()
            .is_some_and(|t| t.ends_with("T18:30"))
    }));

    // Once a match started: no regenerating (the form gone, a post refused).
    admin.start_match(id_of(&all[0])).await;
    let html = page(&browser).await;
    assert!(!html.contains("id=\"replace\""));
    let before = app.tables().await;
    let r = browser
        .post_form("/admin/leagues/fall/schedule", &ticked)
        .await;
    assert_eq!(r.status(), 409);
    let html = r.text().await.unwrap();
    app.assert_nothing_written(&before, "regenerating after a start")
        .await;
    assert!(text(&html, "replace-error", "</p>").contains("have been played"));
    assert!(text(&html, "form-error", "</p>").contains("have been played"));
    // And "new" from the league page: the message there.
    let r = browser
        .post_form(
            "/admin/leagues/fall/schedule",
            &[("start_date", ""), ("time", ""), ("days_between", "")],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    app.assert_nothing_written(&before, "a second round robin")
        .await;
    assert!(text(&html, "schedule-error", "</p>").contains("already has regular-season matches"));
}

#[actix_web::test]
async fn a_forty_team_league_shows_the_next_nights_in_full_and_the_others_folded() {
    let (_app, admin, browser, _) = setup(40).await;
    let generated = generate(&admin, Some("2026-09-01")).await;
    assert_eq!(generated.len(), 780);
    // The first night played: the next three nights with matches to play in full (60).
    for m in generated
        .iter()
        .filter(|m| m["scheduled_at"] == "2026-09-01T19:00")
    {
        let r = admin
            .post(
                &format!("/api/v1/matches/{}/forfeit", id_of(m)),
                &json!({"team": "a"}),
            )
            .await;
        assert_eq!(r.status(), 200);
    }
    let html = page(&browser).await;
    assert_eq!(
        html.matches("<section class=\"night\"").count(),
        39,
        "every night's heading"
    );
    assert_eq!(
        html.matches("class=\"match-line ").count(),
        60,
        "three nights of 20"
    );
    assert!(
        html_element(&html, "night-2026-09-29", "</section>")
            .unwrap()
            .contains("-folded")
    );
    for night in ["2026-09-08", "2026-09-15", "2026-09-22"] {
        assert!(
            html_element(&html, &format!("night-{night}"), "</section>")
                .unwrap()
                .contains("class=\"match-line ")
        );
    }
    let folded = text(&html, "night-2026-09-01-folded", "</p>");
    assert_eq!(folded, "Show its 20 matches");
    assert!(
        html.contains("href=\"/admin/leagues/fall/schedule?show=2026-09-01#night-2026-09-01\"")
    );
    // Every night can still be moved from its heading.
    assert!(
        html_element(&html, "night-2026-12-29", "</section>")
            .unwrap()
            .contains("Move this night to…")
    );
    assert!(html.len() < 500_000, "{} bytes", html.len());
    assert!(text(&html, "windowed", "</p>").contains("show all 780 matches"));

    // A folded night on request; every match on request.
    let html = browser
        .get(&format!("{PAGE}?show=2026-12-29"))
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(html.matches("class=\"match-line ").count(), 80);
    let html = browser
        .get(&format!("{PAGE}?show=all"))
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(html.matches("class=\"match-line ").count(), 780);

    // A change to a match of a folded night comes back with that night in full.
    let late = generated
        .iter()
        .find(|m| m["scheduled_at"] == "2027-01-05T19:00")
        .unwrap();
    let id = id_of(late);
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/matches/{id}"),
            &[("expected_version", "1"), ("table", "Table 40")],
        )
        .await;
    let html = follow(&browser, r).await;
    assert!(html.contains(&format!("id=\"match-{id}\"")));
    assert_eq!(value(&html, &format!("m{id}-table")), "Table 40");
    // And so does a refused one.
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/matches/{id}"),
            &[("expected_version", "2"), ("scheduled_at", "soon")],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    assert!(text(&html, &format!("m{id}-scheduled_at-error"), "</p>").contains("YYYY-MM-DD"));
}

#[actix_web::test]
async fn the_schedule_forms_need_the_admin_and_the_csrf_token() {
    let (app, admin, browser, _) = setup(4).await;
    let generated = generate(&admin, Some("2026-11-24")).await;
    let id = id_of(&generated[0]);
    app.user("sue", Role::Supervisor).await;
    let sue = app.browser("sue").await;
    let change = format!("/admin/leagues/fall/matches/{id}");
    let postpone = format!("{change}/postpone");
    let cancel = format!("{change}/cancel");
    let posts: Vec<(&str, Vec<(&str, &str)>)> = vec![
        (
            change.as_str(),
            vec![("expected_version", "1"), ("table", "Table 9")],
        ),
        (
            postpone.as_str(),
            vec![("expected_version", "1"), ("reason", "rain")],
        ),
        (
            cancel.as_str(),
            vec![("expected_version", "1"), ("reason", "rain")],
        ),
        (
            "/admin/leagues/fall/nights/move",
            vec![
                ("from", "2026-11-24"),
                ("to", "2026-11-26"),
                ("confirm", "1"),
            ],
        ),
        (
            "/admin/leagues/fall/schedule",
            vec![("mode", "replace"), ("understand", "1"), ("start_date", "")],
        ),
    ];
    let before = app.tables().await;
    for (path, form) in &posts {
        let r = app
            .client
            .post(app.url(path))
            .form(form)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 303, "anonymous POST {path}");
        assert!(
            r.headers()["location"]
                .to_str()
                .unwrap()
                .starts_with("/login")
        );
        assert_eq!(
            sue.post_form(path, form).await.status(),
            403,
            "supervisor {path}"
        );
        let r = browser
            .client
            .post(format!("{}{}", browser.base, path))
            .form(form)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403, "no CSRF token: {path}");
        let mut wrong = form.clone();
        wrong.push(("csrf", "0123456789abcdef"));
        assert_eq!(
            browser.post_form(path, &wrong).await.status(),
            403,
            "{path}"
        );
    }
    app.assert_nothing_written(&before, "refused posts").await;
    // Unknown league or match: 404.
    for (path, form) in [
        (
            "/admin/leagues/nope/nights/move",
            vec![("from", "2026-11-24"), ("to", "2026-11-26")],
        ),
        (
            "/admin/leagues/fall/matches/99999",
            vec![("expected_version", "1"), ("table", "x")],
        ),
        (
            "/admin/leagues/fall/matches/99999/postpone",
            vec![("expected_version", "1"), ("reason", "x")],
        ),
    ] {
        assert_eq!(browser.post_form(path, &form).await.status(), 404, "{path}");
    }
    app.assert_nothing_written(&before, "unknown league or match")
        .await;
}

#[actix_web::test]
async fn a_move_preview_warns_of_a_taken_night_and_a_played_night_has_nothing_to_move() {
    let (app, admin, browser, _) = setup(4).await;
    let generated = generate(&admin, Some("2026-11-24")).await;
    // 24 November onto 1 December: the same tables at the same time, every team twice.
    let r = browser
        .post_form(
            "/admin/leagues/fall/nights/move",
            &[("from", "2026-11-24"), ("to", "2026-12-01")],
        )
        .await;
    assert_eq!(r.status(), 200);
    let html = r.text().await.unwrap();
    let clashes = text(&html, "clashes", "</div>");
    assert!(
        clashes.contains("Table 1 is taken at 19:00 by"),
        "{clashes}"
    );
    assert!(
        clashes.contains("Team 1 already plays on the new date"),
        "{clashes}"
    );
    assert_eq!(
        text(&html, "already", "</ul>").matches("Scheduled").count(),
        2
    );

    // A night whose matches are all over: nothing to move, no confirmation.
    for m in generated
        .iter()
        .filter(|m| m["scheduled_at"] == "2026-12-08T19:00")
    {
        let r = admin
            .post(
                &format!("/api/v1/matches/{}/forfeit", id_of(m)),
                &json!({"team": "a"}),
            )
            .await;
        assert_eq!(r.status(), 200);
    }
    let html = page(&browser).await;
    let night = html_element(&html, "night-2026-12-08", "</section>").unwrap();
    assert!(
        !night.contains("Move this night to"),
        "nothing to move there"
    );
    assert!(html_text(night).contains("2 matches: 2 played"));
    let before = app.tables().await;
    let r = browser
        .post_form(
            "/admin/leagues/fall/nights/move",
            &[("from", "2026-12-08"), ("to", "2026-12-10")],
        )
        .await;
    assert_eq!(r.status(), 200);
    let html = r.text().await.unwrap();
    assert!(text(&html, "nothing-to-move", "</p>").starts_with("Nothing to move"));
    assert!(!html.contains("id=\"confirm-move\""));
    assert_eq!(
        text(&html, "staying", "</ul>").matches("Forfeit").count(),
        2
    );
    // Confirmed anyway: nothing moved, and it says so.
    let r = browser
        .post_form(
            "/admin/leagues/fall/nights/move",
            &[
                ("from", "2026-12-08"),
                ("to", "2026-12-10"),
                ("confirm", "1"),
            ],
        )
        .await;
    let html = follow(&browser, r).await;
    app.assert_nothing_written(&before, "a night with nothing to move")
        .await;
    assert_eq!(
        text(&html, "notice", "</p>"),
        "Nothing moved: no match of Tue 8 Dec was still waiting to be played."
    );
}

/// The dates (`YYYY-MM-DD`) of the league's regular-season nights, in order.
async fn nights(admin: &Api) -> Vec<String> {
    let mut dates: Vec<String> = matches(admin)
        .await
        .iter()
        .filter(|m| m["stage"] == "regular")
        .filter_map(|m| m["scheduled_at"].as_str().map(|t| t[..10].to_string()))
        .collect();
    dates.sort_unstable();
    dates.dedup();
    dates
}

/// The page's focused error summary, as text.
fn summary(html: &str) -> String {
    let tag = html_element(html, "form-error", ">").expect("an error summary");
    assert!(
        tag.contains("autofocus") && tag.contains("role=\"alert\""),
        "the summary is focused and announced: {tag}"
    );
    text(html, "form-error", "</p>").replace("&#34;", "\"")
}

/// A refused blackout night: 422, the typed text kept in `{key}-blackouts`, the message by
/// the field (which points at it) and in the summary.
fn assert_blackout_refused(html: &str, key: &str, typed: &str, bad: &str) {
    assert_eq!(value(html, &format!("{key}-blackouts")), typed);
    let input = html_element(html, &format!("{key}-blackouts"), ">").unwrap();
    assert!(input.contains("aria-invalid=\"true\""), "{input}");
    assert!(
        input.contains(&format!(
            "aria-describedby=\"{key}-blackouts-hint {key}-blackouts-error\""
        )),
        "{input}"
    );
    let by_field = text(html, &format!("{key}-blackouts-error"), "</p>");
    assert!(by_field.contains(bad), "{by_field}");
    assert!(summary(html).contains(bad), "{}", summary(html));
}

#[actix_web::test]
async fn blackout_nights_typed_on_the_pages_skip_their_round_and_a_bad_date_keeps_the_text() {
    let (app, admin, browser, _) = setup(4).await;
    // The fields are on the league page's form and the schedule page's, with the hint.
    let league = browser
        .get("/admin/leagues/fall")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(value(&league, "schedule-blackouts"), "");
    let html = page(&browser).await;
    assert!(text(&html, "schedule-blackouts-hint", "</p>").contains("2026-12-24, 2026-12-31"));

    // A night that is not a date, from the league page: it comes back there, typed text kept.
    let before = app.tables().await;
    let typed = "2026-11-10, 2026-11-31";
    let form = [
        ("mode", "new"),
        ("start_date", "2026-11-03"),
        ("time", "19:00"),
        ("days_between", "7"),
        ("blackouts", typed),
    ];
    let r = browser
        .post_form("/admin/leagues/fall/schedule", &form)
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    assert!(html.contains("id=\"add-division\""), "the league page");
    assert_blackout_refused(&html, "schedule", typed, "2026-11-31");
    // From the schedule page: the same, on its form.
    let mut from_page = form.to_vec();
    from_page.push(("from", "schedule"));
    let r = browser
        .post_form("/admin/leagues/fall/schedule", &from_page)
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    assert_blackout_refused(&html, "schedule", typed, "2026-11-31");
    assert_eq!(value(&html, "schedule-start_date"), "2026-11-03");
    app.assert_nothing_written(&before, "a bad blackout night")
        .await;

    // Two blackouts, by comma and space: rounds on 11-03, (11-10 skipped) 11-17, 11-24.
    from_page[4] = ("blackouts", "2026-11-10 2026-12-01");
    let r = browser
        .post_form("/admin/leagues/fall/schedule", &from_page)
        .await;
    assert_eq!(location(&r), format!("{PAGE}?done=generated&n=6"));
    assert_eq!(
        nights(&admin).await,
        ["2026-11-03", "2026-11-17", "2026-11-24"]
    );

    // The replace form: a bad night is kept there; a good one moves the later rounds.
    let html = page(&browser).await;
    assert_eq!(value(&html, "replace-blackouts"), "");
    let mut replace = vec![
        ("mode", "replace"),
        ("from", "schedule"),
        ("start_date", "2026-11-03"),
        ("time", "19:00"),
        ("days_between", "7"),
        ("understand", "1"),
        ("blackouts", "soon"),
    ];
    let before = app.tables().await;
    let r = browser
        .post_form("/admin/leagues/fall/schedule", &replace)
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    assert_blackout_refused(&html, "replace", "soon", "soon");
    assert!(
        html.contains("href=\"#replace-blackouts\""),
        "the summary links the field"
    );
    app.assert_nothing_written(&before, "a bad blackout night on replace")
        .await;
    // The league kept the first generation's blackouts (11-10, 12-01): with these two,
    // the rounds are on 11-03, then 12-08 and 12-15.
    replace[6] = ("blackouts", "2026-11-17,2026-11-24");
    let r = browser
        .post_form("/admin/leagues/fall/schedule", &replace)
        .await;
    assert_eq!(location(&r), format!("{PAGE}?done=replaced&n=6"));
    assert_eq!(
        nights(&admin).await,
        ["2026-11-03", "2026-12-08", "2026-12-15"]
    );
}

/// A division "name" of the league "fall" holding `teams`.
async fn division_of_teams(admin: &Api, name: &str, teams: &[i64]) -> i64 {
    let r = admin
        .post("/api/v1/leagues/fall/divisions", &json!({"name": name}))
        .await;
    let id = json_with_status(r, 201, "a division").await["id"]
        .as_i64()
        .unwrap();
    for team in teams {
        let r = admin
            .patch(&format!("/api/v1/teams/{team}"), &json!({"division": id}))
            .await;
        json_with_status(r, 200, "a team's division").await;
    }
    id
}

#[actix_web::test]
async fn a_league_with_divisions_generates_within_them_from_the_pages() {
    let (app, admin, browser, t) = setup(5).await;
    // Without divisions: no choice of pairing on either page.
    let league = browser
        .get("/admin/leagues/fall")
        .await
        .text()
        .await
        .unwrap();
    assert!(league.contains("id=\"schedule-blackouts\""));
    assert!(!league.contains("-within\""), "no pairing choice");
    assert!(
        !page(&browser).await.contains("-within\""),
        "no pairing choice"
    );

    let gold = division_of_teams(&admin, "Gold", &t[..2]).await;
    division_of_teams(&admin, "Silver", &t[2..4]).await;
    let league = browser
        .get("/admin/leagues/fall")
        .await
        .text()
        .await
        .unwrap();
    // Within divisions unless the coordinator says otherwise.
    assert_eq!(selected(&league, "schedule-within"), "division");
    assert!(
        text(&league, "schedule-within", "</select>").contains("within the league"),
        "the other choice is named"
    );
    assert_eq!(
        selected(&page(&browser).await, "schedule-within"),
        "division"
    );

    // Team 5 is in no division: refused by the field, the choice and the rest kept.
    let before = app.tables().await;
    let mut form = vec![
        ("mode", "new"),
        ("start_date", "2026-11-03"),
        ("time", "19:00"),
        ("days_between", "7"),
        ("blackouts", "2026-11-10"),
        ("within", "division"),
    ];
    let r = browser
        .post_form("/admin/leagues/fall/schedule", &form)
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    app.assert_nothing_written(&before, "a team in no division")
        .await;
    assert_eq!(selected(&html, "schedule-within"), "division");
    assert_eq!(value(&html, "schedule-blackouts"), "2026-11-10");
    let select = html_element(&html, "schedule-within", ">").unwrap();
    assert!(select.contains("aria-invalid=\"true\""), "{select}");
    assert!(text(&html, "schedule-within-error", "</p>").contains("Team 5"));
    assert!(summary(&html).contains("Team 5"));
    // The same from the schedule page.
    form.push(("from", "schedule"));
    let r = browser
        .post_form("/admin/leagues/fall/schedule", &form)
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    assert_eq!(selected(&html, "schedule-within"), "division");
    assert!(text(&html, "schedule-within-error", "</p>").contains("Team 5"));

    // In a division, Team 5 joins Gold: each division plays its own round robin (3 + 1
    // matches), no match crosses, the blackout skipped.
    let r = admin
        .patch(
            &format!("/api/v1/teams/{}", t[4]),
            &json!({"division": gold}),
        )
        .await;
    json_with_status(r, 200, "Team 5 into Gold").await;
    let r = browser
        .post_form("/admin/leagues/fall/schedule", &form)
        .await;
    assert_eq!(location(&r), format!("{PAGE}?done=generated&n=4"));
    let gold_teams = [t[0], t[1], t[4]];
    let pairs = pairings(&matches(&admin).await);
    assert_eq!(pairs.len(), 4, "{pairs:?}");
    for (a, b) in &pairs {
        assert_eq!(
            gold_teams.contains(a),
            gold_teams.contains(b),
            "{a} v {b} crosses divisions"
        );
    }
    assert_eq!(
        nights(&admin).await,
        ["2026-11-03", "2026-11-17", "2026-11-24"]
    );

    // Regenerated within the league from the replace form: every pair of the five.
    let html = page(&browser).await;
    assert_eq!(selected(&html, "replace-within"), "division", "the default");
    let r = browser
        .post_form(
            "/admin/leagues/fall/schedule",
            &[
                ("mode", "replace"),
                ("from", "schedule"),
                ("start_date", "2026-11-03"),
                ("time", "19:00"),
                ("days_between", "7"),
                ("understand", "1"),
                ("within", "league"),
            ],
        )
        .await;
    assert_eq!(location(&r), format!("{PAGE}?done=replaced&n=10"));
    assert_eq!(pairings(&matches(&admin).await).len(), 10);
}
