//! The coordinator's pages under /admin over real HTTP: every page's happy path, the
//! refusals (anonymous, supervisor, CSRF, cross-site), and bad inputs, each answered with its
//! message next to the field and nothing written.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, Browser, TestApp, spawn_app, unescape};

/// The text of the element with `id` (up to its closing tag), unescaped.
fn text_of(html: &str, id: &str) -> Option<String> {
    let marker = format!("id=\"{id}\"");
    let at = html.find(&marker)?;
    let start = at + html[at..].find('>')? + 1;
    let end = start + html[start..].find("</")?;
    Some(unescape(&html[start..end]))
}

/// The `name`/`value` pairs of a page's hidden inputs (the preview's re-post).
fn hidden_fields(html: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find("<input type=\"hidden\" name=\"") {
        rest = &rest[at + "<input type=\"hidden\" name=\"".len()..];
        let name_end = rest.find('"').unwrap();
        let name = rest[..name_end].to_string();
        let value_at = rest.find("value=\"").unwrap() + "value=\"".len();
        let value_end = value_at + rest[value_at..].find('"').unwrap();
        if !out.iter().any(|(n, _)| *n == name) {
            out.push((name, unescape(&rest[value_at..value_end])));
        }
        rest = &rest[value_end..];
    }
    out
}

async fn count(app: &TestApp, table: &str) -> i64 {
    let mut conn = app.db.read().await.unwrap();
    spades_im::on_store!(conn, |c| sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT COUNT(*) FROM {table}"
    )))
    .fetch_one(c)
    .await)
    .unwrap()
}

/// Every table an admin page writes, counted.
async fn snapshot(app: &TestApp) -> Vec<i64> {
    let mut all = Vec::new();
    for table in [
        "users",
        "leagues",
        "teams",
        "league_supervisors",
        "matches",
        "audit_log",
    ] {
        all.push(count(app, table).await);
    }
    all
}

async fn setup() -> (TestApp, Api, Browser) {
    let app = spawn_app().await;
    let api = app.api_user("boss", Role::Admin).await;
    let browser = app.browser("boss").await;
    (app, api, browser)
}

fn fields<'a>(
    base: &[(&'a str, &'a str)],
    changes: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    let mut out: Vec<(&str, &str)> = base
        .iter()
        .filter(|(k, _)| !changes.iter().any(|(c, _)| c == k))
        .copied()
        .collect();
    out.extend_from_slice(changes);
    out
}

/// Form fields: name and value.
type Fields<'a> = &'a [(&'a str, &'a str)];

const LEAGUE: Fields = &[
    ("name", "Fall 2026"),
    ("slug", "fall-2026"),
    ("regular_preset", "unc-im-300"),
    ("playoff_preset", ""),
    ("final_preset", "unc-im-500"),
    ("tiebreak1", "differential"),
    ("tiebreak2", "head_to_head"),
    ("tiebreak3", ""),
];

#[actix_web::test]
async fn anonymous_is_sent_to_login_and_supervisor_gets_403() {
    let (app, api, _) = setup().await;
    app.league(&api, "l1", json!("unc-im-300"), 2).await;
    app.user("sue", Role::Supervisor).await;
    let sue = app.browser("sue").await;
    let gets = [
        "/admin",
        "/admin/leagues/new",
        "/admin/leagues/l1",
        "/admin/leagues/l1/edit",
        "/admin/leagues/l1/import",
        "/admin/backup",
    ];
    for path in gets {
        let response = app.get(path).await;
        assert_eq!(response.status(), 303, "anonymous GET {path}");
        let to = response.headers()["location"].to_str().unwrap().to_string();
        assert_eq!(
            to,
            format!("/login?next={path}"),
            "back to {path} after login"
        );
        assert_eq!(sue.get(path).await.status(), 403, "supervisor GET {path}");
    }
    let css = app.get("/static/admin.css").await;
    assert_eq!(css.status(), 200);
    assert!(css.text().await.unwrap().contains(".admin-list"));
    // The admin gets every page, never cached.
    let boss = app.browser("boss").await;
    for path in gets {
        let response = boss.get(path).await;
        assert_eq!(response.status(), 200, "admin GET {path}");
        assert_eq!(response.headers()["cache-control"], "no-store", "{path}");
        let html = response.text().await.unwrap();
        assert!(html.contains("/static/admin.css"), "{path} links admin.css");
    }
    for path in [
        "/admin/leagues/nope",
        "/admin/leagues/nope/edit",
        "/admin/leagues/nope/import",
    ] {
        assert_eq!(boss.get(path).await.status(), 404, "{path}");
    }
    let before = snapshot(&app).await;
    let posts: Vec<(&str, Vec<(&str, &str)>)> = vec![
        (
            "/admin/users",
            vec![("username", "mallory"), ("password", "")],
        ),
        ("/admin/leagues/new", fields(LEAGUE, &[("confirm", "1")])),
        (
            "/admin/leagues/l1/edit",
            fields(LEAGUE, &[("confirm", "1")]),
        ),
        (
            "/admin/leagues/l1/teams",
            vec![("name", "X"), ("player1", "a"), ("player2", "b")],
        ),
        ("/admin/leagues/l1/supervisors", vec![("username", "sue")]),
        (
            "/admin/leagues/l1/schedule",
            vec![("start_date", ""), ("time", ""), ("days_between", "")],
        ),
        (
            "/admin/leagues/l1/import",
            vec![("csv", "Y,a,b"), ("confirm", "1")],
        ),
        ("/admin/backup", vec![]),
    ];
    for (path, form) in &posts {
        let response = app
            .client
            .post(app.url(path))
            .form(form)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 303, "anonymous POST {path}");
        assert_eq!(
            sue.post_form(path, form).await.status(),
            403,
            "supervisor POST {path}"
        );
    }
    assert_eq!(snapshot(&app).await, before, "nothing written");
}

#[actix_web::test]
async fn posts_without_the_csrf_token_or_from_another_site_are_refused() {
    let (app, api, browser) = setup().await;
    let teams = app.league(&api, "l1", json!("unc-im-300"), 3).await;
    app.user("sue", Role::Supervisor).await;
    let sue_id: i64 = {
        let mut conn = app.db.read().await.unwrap();
        spades_im::on_store!(conn, |c| sqlx::query_scalar(
            "SELECT id FROM users WHERE username = 'sue'"
        )
        .fetch_one(c)
        .await)
        .unwrap()
    };
    assert_eq!(
        browser
            .post_form("/admin/leagues/l1/supervisors", &[("username", "sue")])
            .await
            .status(),
        303
    );
    let (a, b) = (teams[0].to_string(), teams[1].to_string());
    let (a, b) = (a.as_str(), b.as_str());
    let edit = format!("/admin/leagues/l1/teams/{}", teams[0]);
    let withdraw = format!("/admin/leagues/l1/teams/{}/withdraw", teams[0]);
    let unassign = format!("/admin/leagues/l1/supervisors/{sue_id}/remove");
    let add_player = format!("/admin/leagues/l1/teams/{}/players", teams[0]);
    let posts: Vec<(&str, Vec<(&str, &str)>)> = vec![
        (
            "/admin/users",
            vec![("username", "mallory"), ("password", "")],
        ),
        ("/admin/leagues/new", fields(LEAGUE, &[("confirm", "1")])),
        (
            "/admin/leagues/l1/edit",
            fields(LEAGUE, &[("name", "Renamed"), ("confirm", "1")]),
        ),
        (
            "/admin/leagues/l1/teams",
            vec![("name", "X"), ("player1", "a"), ("player2", "b")],
        ),
        (
            edit.as_str(),
            vec![("name", "Renamed"), ("player1", "a"), ("player2", "b")],
        ),
        (withdraw.as_str(), vec![("withdrawn", "1")]),
        (unassign.as_str(), vec![]),
        (add_player.as_str(), vec![("name", "Stray")]),
        (
            "/admin/leagues/l1/schedule",
            vec![("start_date", ""), ("time", ""), ("days_between", "")],
        ),
        (
            "/admin/leagues/l1/matches",
            vec![
                ("team_a", a),
                ("team_b", b),
                ("stage", "regular"),
                ("table", ""),
                ("scheduled_at", ""),
            ],
        ),
        (
            "/admin/leagues/l1/import",
            vec![("csv", "Y,a,b"), ("confirm", "1")],
        ),
        ("/admin/backup", vec![]),
    ];
    let before = snapshot(&app).await;
    for (path, form) in &posts {
        // No token at all.
        let response = browser
            .client
            .post(format!("{}{}", browser.base, path))
            .form(form)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403, "no CSRF token: {path}");
        // A wrong token.
        let mut wrong = form.clone();
        wrong.push(("csrf", "0123456789abcdef"));
        assert_eq!(
            browser.post_form(path, &wrong).await.status(),
            403,
            "wrong CSRF token: {path}"
        );
        // The right token from another site.
        let mut right = form.clone();
        right.push(("csrf", browser.csrf.as_str()));
        let response = browser
            .client
            .post(format!("{}{}", browser.base, path))
            .header("Origin", "https://evil.example")
            .form(&right)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403, "cross-site Origin: {path}");
        let response = browser
            .client
            .post(format!("{}{}", browser.base, path))
            .header("Sec-Fetch-Site", "cross-site")
            .form(&right)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403, "Sec-Fetch-Site cross-site: {path}");
    }
    assert_eq!(snapshot(&app).await, before, "nothing written");
    let league: Value = api.get("/api/v1/leagues/l1").await.json().await.unwrap();
    assert_eq!(league["name"], "l1");
}

#[actix_web::test]
async fn the_dashboard_lists_leagues_and_users() {
    let (app, api, browser) = setup().await;
    app.league(&api, "spring-league", json!("classic"), 0).await;
    let response = browser.get("/admin").await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let html = response.text().await.unwrap();
    assert!(html.contains("href=\"/admin/leagues/spring-league\""));
    assert!(html.contains("href=\"/admin/leagues/new\""));
    assert!(html.contains("<td>boss</td><td>admin</td>"));
    assert!(html.contains("/static/admin.css"));
    // Accounts are added and changed on their own page (tests/api/accounts.rs).
    assert!(html.contains("id=\"manage-accounts\""), "{html}");
    assert!(html.contains("href=\"/admin/users\""));
}

#[actix_web::test]
async fn a_league_is_previewed_in_words_then_saved_then_edited() {
    let (_app, api, browser) = setup().await;
    let response = browser.get("/admin/leagues/new").await;
    assert_eq!(response.status(), 200);
    let html = response.text().await.unwrap();
    assert!(html.contains("name=\"regular_preset\""));
    assert!(html.contains("<option value=\"unc-im-300\" selected>"));

    // The form has a labelled control for every rule; none needs JSON.
    for control in spades_im::rules::rules_form::CONTROLS {
        let id = format!("regular_{}", control.name);
        assert!(
            html.contains(&format!("<label for=\"{id}\">"))
                && html.contains(&format!("id=\"{id}\"")),
            "a labelled control {id}"
        );
    }
    assert!(!html.contains("_overrides"), "no JSON box");
    let form = fields(LEAGUE, &[("regular_bags_limit", "7")]);
    let response = browser.post_form("/admin/leagues/new", &form).await;
    assert_eq!(response.status(), 200);
    let html = response.text().await.unwrap();
    let text = unescape(&html);
    assert!(text.contains("Check before saving: Fall 2026"));
    assert!(
        text.contains("Every 7th bag costs 60 points"),
        "the regular rules in words"
    );
    assert!(
        text.contains("Every 10th bag costs 100 points"),
        "the final's (unc-im-500)"
    );
    assert!(text.contains("same as the regular season"));
    assert!(text.contains(
        "<li>point differential</li><li>record in the games between the tied teams</li>"
    ));
    assert_eq!(
        api.get("/api/v1/leagues/fall-2026").await.status(),
        404,
        "not saved yet"
    );

    // "Change" goes back to the form with every value.
    let mut back = hidden_fields(&html);
    back.push(("back".into(), "1".into()));
    let back: Vec<(&str, &str)> = back.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let html = browser
        .post_form("/admin/leagues/new", &back)
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("value=\"Fall 2026\""));
    assert!(html.contains(
        "name=\"regular_bags_limit\" inputmode=\"numeric\" autocomplete=\"off\" value=\"7\""
    ));
    assert_eq!(api.get("/api/v1/leagues/fall-2026").await.status(), 404);

    // "Save" re-posts the preview's hidden fields.
    let mut save = hidden_fields(&html_preview(&browser, &form).await);
    save.push(("confirm".into(), "1".into()));
    let save: Vec<(&str, &str)> = save.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let response = browser.post_form("/admin/leagues/new", &save).await;
    assert_eq!(response.status(), 303);
    assert_eq!(
        response.headers()["location"],
        "/admin/leagues/fall-2026?done=saved"
    );
    let league: Value = api
        .get("/api/v1/leagues/fall-2026")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(league["name"], "Fall 2026");
    assert_eq!(league["rules"]["regular"]["bags"]["limit"], 7);
    assert_eq!(league["rules"]["playoff"]["bags"]["limit"], 7);
    assert_eq!(league["rules"]["final"]["target"], 500);
    assert_eq!(
        league["tiebreak_order"],
        json!(["differential", "head_to_head"])
    );
    let html = browser
        .get("/admin/leagues/fall-2026?done=saved")
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("League saved."));

    // Edit: the form shows the league as saved; the slug cannot change.
    let html = browser
        .get("/admin/leagues/fall-2026/edit")
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("value=\"Fall 2026\""));
    assert!(html.contains("<option value=\"unc-im-500\" selected>"));
    // The stored change comes back in its control, the group open, counted.
    assert!(html.contains(
        "name=\"regular_bags_limit\" inputmode=\"numeric\" autocomplete=\"off\" value=\"7\""
    ));
    assert!(html.contains("Change the preset's rules (1 changed)"));
    let league_page = browser
        .get("/admin/leagues/fall-2026")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        unescape(&league_page).contains("unc-im-300, changed: Bags that cost the penalty 7"),
        "the league page says the change in words"
    );
    assert!(!html.contains("name=\"slug\""));
    let edit = fields(LEAGUE, &[("name", "Fall 2026 Spades"), ("confirm", "1")]);
    let response = browser
        .post_form("/admin/leagues/fall-2026/edit", &edit)
        .await;
    assert_eq!(response.status(), 303);
    let league: Value = api
        .get("/api/v1/leagues/fall-2026")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(league["name"], "Fall 2026 Spades");
    assert_eq!(league["rules"]["regular"]["bags"]["limit"], 6);
}

async fn html_preview(browser: &Browser, form: &[(&str, &str)]) -> String {
    let response = browser.post_form("/admin/leagues/new", form).await;
    assert_eq!(response.status(), 200);
    response.text().await.unwrap()
}

#[actix_web::test]
async fn bad_league_forms_show_the_message_at_the_field_and_write_nothing() {
    let (app, api, browser) = setup().await;
    app.league(&api, "taken", json!("classic"), 0).await;
    let cases: &[(Fields, &str, &str)] = &[
        (
            &[("name", "  ")],
            "name-error",
            "the league's name must be 1 to 80 characters",
        ),
        (
            &[("slug", "Fall 2026")],
            "slug-error",
            "a slug is lowercase letters",
        ),
        (
            &[("slug", "taken")],
            "slug-error",
            "a league with the slug \"taken\" exists",
        ),
        (
            &[("slug", "new")],
            "slug-error",
            "\"new\" is an address of the service itself",
        ),
        (
            &[("regular_preset", "backyard")],
            "regular_preset-error",
            "unknown preset \"backyard\"",
        ),
        (
            &[("regular_target", "300,")],
            "regular_target-error",
            "is a whole number, not",
        ),
        (
            &[("regular_set_penalty", "sometimes")],
            "regular_set_penalty-error",
            "is not one of the choices",
        ),
        (
            &[
                ("playoff_preset", "classic"),
                ("playoff_moon", "on"),
                ("playoff_moon_value", "-5"),
            ],
            "playoff_moon_value-error",
            "moon",
        ),
        (
            &[("final_target", "lots")],
            "final_target-error",
            "whole number",
        ),
        (
            &[("final_loss_floor", "on")],
            "final_loss_floor_value-error",
            "type a value",
        ),
        (
            &[("playoff_target", "250")],
            "playoff_preset-error",
            "pick a preset for these changes",
        ),
        (
            &[("tiebreak2", "coin_flip")],
            "tiebreak-error",
            "unknown tiebreak \"coin_flip\"",
        ),
    ];
    let before = snapshot(&app).await;
    for (changes, id, message) in cases {
        for confirm in ["", "1"] {
            let mut changes = changes.to_vec();
            changes.push(("confirm", confirm));
            let form = fields(LEAGUE, &changes);
            let response = browser.post_form("/admin/leagues/new", &form).await;
            assert_eq!(response.status(), 422, "{changes:?}");
            let html = response.text().await.unwrap();
            let shown = text_of(&html, id).unwrap_or_default();
            assert!(shown.contains(message), "{changes:?}: at {id}: {shown:?}");
            assert!(html.contains("aria-invalid=\"true\""));
            // Every typed value is kept.
            for (name, value) in &form {
                if ["_target", "_value"].iter().any(|s| name.ends_with(s)) {
                    assert!(
                        html.contains(&format!("value=\"{value}\"")),
                        "kept {name}: {value}"
                    );
                }
                if *name == "name" && !value.trim().is_empty() {
                    assert!(
                        html.contains(&format!("value=\"{value}\"")),
                        "kept the name"
                    );
                }
            }
        }
    }
    // The same on the edit form.
    let response = browser
        .post_form(
            "/admin/leagues/taken/edit",
            &fields(LEAGUE, &[("regular_nil_value", "x"), ("confirm", "1")]),
        )
        .await;
    assert_eq!(response.status(), 422);
    let html = response.text().await.unwrap();
    assert!(
        text_of(&html, "regular_nil_value-error")
            .unwrap()
            .contains("whole number")
    );
    assert_eq!(snapshot(&app).await, before, "nothing written");
    let league: Value = api.get("/api/v1/leagues/taken").await.json().await.unwrap();
    assert_eq!(league["name"], "taken");
}

#[actix_web::test]
async fn teams_are_added_edited_withdrawn_and_reinstated() {
    let (app, api, browser) = setup().await;
    let ids = app.league(&api, "l1", json!("unc-im-300"), 2).await;
    let html = browser.get("/admin/leagues/l1").await.text().await.unwrap();
    assert!(html.contains("Team 1"));
    let response = browser
        .post_form(
            "/admin/leagues/l1/teams",
            &[("name", "Aces"), ("player1", "Ann"), ("player2", "Al")],
        )
        .await;
    assert_eq!(response.status(), 303);
    assert_eq!(
        response.headers()["location"],
        "/admin/leagues/l1?done=team"
    );
    let teams: Value = api
        .get("/api/v1/leagues/l1/teams")
        .await
        .json()
        .await
        .unwrap();
    let teams = teams["teams"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| teams.as_array().cloned().unwrap());
    assert!(
        teams
            .iter()
            .any(|t| t["name"] == "Aces" && t["players"] == json!(["Ann", "Al"]))
    );

    // The edit form renames the team only and points to the players page; player names
    // posted to it anyway (as the form once had them) change nobody.
    let edit = format!("/admin/leagues/l1/teams/{}", ids[0]);
    let html = browser.get("/admin/leagues/l1").await.text().await.unwrap();
    let form = html
        .split(&format!("action=\"{edit}\""))
        .nth(1)
        .and_then(|rest| rest.split("</form>").next())
        .unwrap();
    assert!(
        !form.contains("player1") && !form.contains("player2"),
        "{form}"
    );
    assert!(form.contains(&format!("href=\"{edit}/players\"")), "{form}");
    let response = browser
        .post_form(
            &edit,
            &[
                ("name", "Spades Kings"),
                ("player1", "P1a"),
                ("player2", "Pat"),
            ],
        )
        .await;
    assert_eq!(response.status(), 303);
    let withdraw = format!("/admin/leagues/l1/teams/{}/withdraw", ids[0]);
    assert_eq!(
        browser
            .post_form(&withdraw, &[("withdrawn", "1")])
            .await
            .status(),
        303
    );
    let row = team_row(&app, ids[0]).await;
    assert_eq!(row, ("Spades Kings".into(), "P1b".into(), true));
    let html = browser
        .get("/admin/leagues/l1?done=withdrawn")
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("(withdrawn)") && html.contains("Reinstate"));
    assert_eq!(
        browser
            .post_form(&withdraw, &[("withdrawn", "0")])
            .await
            .status(),
        303
    );
    assert!(!team_row(&app, ids[0]).await.2);

    // Bad inputs.
    let before = snapshot(&app).await;
    let e_name = format!("team-{}-name-error", ids[0]);
    let cases: &[(&str, [&str; 3], &str, &str)] = &[
        (
            "/admin/leagues/l1/teams",
            ["", "Ann", "Al"],
            "team-name-error",
            "the team's name must be 1 to 80 characters",
        ),
        (
            "/admin/leagues/l1/teams",
            ["Solo", "Sam", ""],
            "team-players-error",
            "each player's name must be 1 to 80 characters",
        ),
        (
            "/admin/leagues/l1/teams",
            ["aces", "X", "Y"],
            "team-name-error",
            "the league already has a team named \"aces\"",
        ),
        (
            edit.as_str(),
            ["Team 2", "A", "B"],
            e_name.as_str(),
            "the league already has a team named \"Team 2\"",
        ),
    ];
    for (path, [name, p1, p2], id, message) in cases {
        let response = browser
            .post_form(path, &[("name", name), ("player1", p1), ("player2", p2)])
            .await;
        assert_eq!(response.status(), 422, "{path} {name}");
        let html = response.text().await.unwrap();
        let shown = text_of(&html, id).unwrap_or_default();
        assert!(shown.contains(message), "{id}: {shown:?}");
        // The edit form has the name only.
        let typed = if *path == edit {
            vec![name]
        } else {
            vec![name, p1, p2]
        };
        for v in typed {
            if !v.trim().is_empty() {
                assert!(html.contains(&format!("value=\"{v}\"")), "kept {v}");
            }
        }
    }
    assert_eq!(snapshot(&app).await, before, "nothing written");
    assert_eq!(team_row(&app, ids[0]).await.0, "Spades Kings");
    // A team of another league is not found.
    app.league(&api, "l2", json!("classic"), 1).await;
    let other = app.league(&api, "l3", json!("classic"), 1).await;
    let response = browser
        .post_form(
            &format!("/admin/leagues/l1/teams/{}", other[0]),
            &[("name", "X"), ("player1", "a"), ("player2", "b")],
        )
        .await;
    assert_eq!(response.status(), 404);
}

async fn team_row(app: &TestApp, id: i64) -> (String, String, bool) {
    let mut conn = app.db.read().await.unwrap();
    spades_im::on_store!(conn, |c| sqlx::query_as(
        "SELECT name, player2, withdrawn FROM teams WHERE id = $1"
    )
    .bind(id)
    .fetch_one(c)
    .await)
    .unwrap()
}

#[actix_web::test]
async fn supervisors_are_assigned_and_unassigned() {
    let (app, api, browser) = setup().await;
    app.league(&api, "l1", json!("unc-im-300"), 2).await;
    app.user("sue", Role::Supervisor).await;
    let html = browser.get("/admin/leagues/l1").await.text().await.unwrap();
    assert!(html.contains("<option value=\"sue\">sue</option>"));
    assert!(
        !html.contains("<option value=\"boss\""),
        "only supervisor accounts are offered"
    );

    let before = snapshot(&app).await;
    for (username, message) in [
        ("", "pick a supervisor account"),
        ("ghost", "no user named \"ghost\""),
    ] {
        let response = browser
            .post_form("/admin/leagues/l1/supervisors", &[("username", username)])
            .await;
        assert_eq!(response.status(), 422);
        let html = response.text().await.unwrap();
        let shown = text_of(&html, "supervisor-username-error").unwrap_or_default();
        assert!(shown.contains(message), "{shown:?}");
    }
    assert_eq!(snapshot(&app).await, before, "nothing written");

    let response = browser
        .post_form("/admin/leagues/l1/supervisors", &[("username", "sue")])
        .await;
    assert_eq!(response.status(), 303);
    assert_eq!(count(&app, "league_supervisors").await, 1);
    let html = browser.get("/admin/leagues/l1").await.text().await.unwrap();
    let at = html.find("/supervisors/").expect("an unassign form");
    let id: String = html[at + "/supervisors/".len()..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    assert!(
        !html.contains("<option value=\"sue\">"),
        "no longer offered"
    );
    let response = browser
        .post_form(&format!("/admin/leagues/l1/supervisors/{id}/remove"), &[])
        .await;
    assert_eq!(response.status(), 303);
    assert_eq!(count(&app, "league_supervisors").await, 0);
    // Twice: not assigned any more.
    let response = browser
        .post_form(&format!("/admin/leagues/l1/supervisors/{id}/remove"), &[])
        .await;
    assert_eq!(response.status(), 404);
}

#[actix_web::test]
async fn the_schedule_is_generated_and_single_matches_added() {
    let (app, api, browser) = setup().await;
    let ids = app.league(&api, "l1", json!("unc-im-300"), 5).await;
    let before = snapshot(&app).await;
    // Bad schedule inputs first: nothing written.
    for (form, id, message) in [
        (
            ["12/01/2026", "19:00", "7"],
            "schedule-start_date-error",
            "the first date is YYYY-MM-DD",
        ),
        (
            ["2026-12-01", "7pm", "7"],
            "schedule-time-error",
            "the time is HH:MM",
        ),
        (
            ["2026-12-01", "19:00", "0"],
            "schedule-days_between-error",
            "a whole number from 1 to 60",
        ),
        (
            ["2026-12-01", "19:00", "weekly"],
            "schedule-days_between-error",
            "a whole number from 1 to 60",
        ),
    ] {
        let response = browser
            .post_form(
                "/admin/leagues/l1/schedule",
                &[
                    ("start_date", form[0]),
                    ("time", form[1]),
                    ("days_between", form[2]),
                ],
            )
            .await;
        assert_eq!(response.status(), 422, "{form:?}");
        let html = response.text().await.unwrap();
        let shown = text_of(&html, id).unwrap_or_default();
        assert!(shown.contains(message), "{id}: {shown:?}");
        assert!(
            html.contains(&format!("value=\"{}\"", form[0])),
            "kept the date"
        );
    }
    assert_eq!(snapshot(&app).await, before, "nothing written");

    let response = browser
        .post_form(
            "/admin/leagues/l1/schedule",
            &[
                ("start_date", "2026-12-01"),
                ("time", "18:30"),
                ("days_between", "7"),
            ],
        )
        .await;
    assert_eq!(response.status(), 303);
    assert_eq!(
        count(&app, "matches").await,
        10,
        "5 teams: 10 matches over 5 nights"
    );
    let matches: Value = api
        .get("/api/v1/leagues/l1/matches")
        .await
        .json()
        .await
        .unwrap();
    let list = matches["matches"].as_array().cloned().unwrap_or_default();
    assert!(list.iter().any(|m| m["scheduled_at"] == "2026-12-01T18:30"));
    assert!(list.iter().any(|m| m["scheduled_at"] == "2026-12-29T18:30"));
    let html = browser.get("/admin/leagues/l1").await.text().await.unwrap();
    let first = list[0]["id"].as_i64().unwrap();
    assert!(html.contains(&format!("href=\"/matches/{first}\"")));
    assert!(html.contains(&format!("href=\"/supervise/matches/{first}\"")));
    assert!(
        !html.contains("action=\"/admin/leagues/l1/schedule\""),
        "generated once"
    );

    // A second round robin is refused.
    let response = browser
        .post_form(
            "/admin/leagues/l1/schedule",
            &[("start_date", ""), ("time", ""), ("days_between", "")],
        )
        .await;
    assert_eq!(response.status(), 422);
    let html = response.text().await.unwrap();
    assert!(
        text_of(&html, "schedule-error")
            .unwrap_or_default()
            .contains("already has regular-season matches")
    );

    // A single match.
    let (a, b, c) = (ids[0].to_string(), ids[1].to_string(), ids[2].to_string());
    let (a, b, c) = (a.as_str(), b.as_str(), c.as_str());
    let response = browser
        .post_form(
            "/admin/leagues/l1/matches",
            &[
                ("team_a", a),
                ("team_b", b),
                ("stage", "playoff"),
                ("table", "Table 9"),
                ("scheduled_at", "2027-01-05T20:00"),
            ],
        )
        .await;
    assert_eq!(response.status(), 303);
    assert_eq!(count(&app, "matches").await, 11);
    let matches: Value = api
        .get("/api/v1/leagues/l1/matches")
        .await
        .json()
        .await
        .unwrap();
    assert!(
        matches["matches"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["stage"] == "playoff"
                && m["table"] == "Table 9"
                && m["scheduled_at"] == "2027-01-05T20:00")
    );

    // Bad match inputs.
    let withdraw = format!("/admin/leagues/l1/teams/{}/withdraw", ids[2]);
    assert_eq!(
        browser
            .post_form(&withdraw, &[("withdrawn", "1")])
            .await
            .status(),
        303
    );
    let long = "T".repeat(41);
    let long = long.as_str();
    let before = snapshot(&app).await;
    let cases: Vec<([&str; 5], &str, &str)> = vec![
        (
            [a, a, "regular", "", ""],
            "match-team_b-error",
            "a team cannot play itself",
        ),
        (
            ["", b, "regular", "", ""],
            "match-team_a-error",
            "pick team A",
        ),
        (
            [a, b, "semis", "", ""],
            "match-stage-error",
            "unknown stage \"semis\"",
        ),
        (
            [a, b, "regular", long, ""],
            "match-table-error",
            "a table name must be 1 to 40 characters",
        ),
        (
            [a, b, "regular", "", "tomorrow"],
            "match-scheduled_at-error",
            "the time is YYYY-MM-DDTHH:MM",
        ),
        (
            [a, c, "regular", "", ""],
            "match-team_b-error",
            "has withdrawn",
        ),
        (
            [a, "99999", "regular", "", ""],
            "match-team_b-error",
            "is not in this league",
        ),
    ];
    for (f, id, message) in cases {
        let response = browser
            .post_form(
                "/admin/leagues/l1/matches",
                &[
                    ("team_a", f[0]),
                    ("team_b", f[1]),
                    ("stage", f[2]),
                    ("table", f[3]),
                    ("scheduled_at", f[4]),
                ],
            )
            .await;
        assert_eq!(response.status(), 422, "{f:?}");
        let html = response.text().await.unwrap();
        let shown = text_of(&html, id).unwrap_or_default();
        assert!(shown.contains(message), "{id}: {shown:?}");
        if !f[4].is_empty() {
            assert!(
                html.contains(&format!("value=\"{}\"", f[4])),
                "kept the time"
            );
        }
    }
    assert_eq!(snapshot(&app).await, before, "nothing written");
}

#[actix_web::test]
async fn a_roster_is_previewed_row_by_row_then_imported_once_every_row_is_good() {
    let (app, api, browser) = setup().await;
    app.league(&api, "l1", json!("unc-im-300"), 1).await;
    assert_eq!(browser.get("/admin/leagues/l1/import").await.status(), 200);
    let good = "team,player1,player2\n\
                Aces,Ann,Al\n\
                \"Kings, The\",Kim,Ken\n\
                aces,Ava,Abe\n\
                Team 1,Tom,Tim\n";
    let csv = format!("{good}Lonely,Lou\n,Nia,Ned\nDuo,Dee,\n");
    let before = snapshot(&app).await;
    let response = browser
        .post_form(
            "/admin/leagues/l1/import",
            &[("csv", csv.as_str()), ("confirm", "0")],
        )
        .await;
    assert_eq!(response.status(), 422);
    let html = unescape(&response.text().await.unwrap());
    assert!(html.contains("Kings, The"));
    for message in [
        "expected 3 columns, as in the header row, found 2",
        "the row names no team",
        "the player's name must be 1 to 80 characters",
        "3 rows have an error: nothing was imported",
    ] {
        assert!(html.contains(message), "{message}: {html}");
    }
    assert!(html.contains("OK: new team"));
    assert!(
        html.contains("OK: new player"),
        "aces is gathered into Aces"
    );
    assert!(html.contains("7 rows: 4 good, "));
    assert!(
        !html.contains("name=\"confirm\" value=\"1\""),
        "no import while a row has an error"
    );
    assert!(html.contains("Aces,Ann,Al"), "the text is kept");
    assert_eq!(snapshot(&app).await, before, "a preview writes nothing");
    let response = browser
        .post_form(
            "/admin/leagues/l1/import",
            &[("csv", csv.as_str()), ("confirm", "1")],
        )
        .await;
    assert_eq!(response.status(), 422);
    assert_eq!(
        snapshot(&app).await,
        before,
        "nor does an import with an error"
    );

    let response = browser
        .post_form(
            "/admin/leagues/l1/import",
            &[("csv", good), ("confirm", "0")],
        )
        .await;
    let html = unescape(&response.text().await.unwrap());
    assert!(
        html.contains("Importing adds 2 teams and updates 1"),
        "{html}"
    );
    assert!(html.contains("Import 4 rows"), "{html}");
    let response = browser
        .post_form(
            "/admin/leagues/l1/import",
            &[("csv", good), ("confirm", "1")],
        )
        .await;
    assert_eq!(response.status(), 303);
    assert_eq!(
        response.headers()["location"],
        "/admin/leagues/l1?done=import"
    );
    assert_eq!(count(&app, "teams").await, 3);
    let mut conn = app.db.read().await.unwrap();
    let kings: (String, String) = spades_im::on_store!(conn, |c| sqlx::query_as(
        "SELECT player1, player2 FROM teams WHERE name = 'Kings, The'"
    )
    .fetch_one(c)
    .await)
    .unwrap();
    let players: i64 =
        spades_im::on_store!(conn, |c| sqlx::query_scalar("SELECT COUNT(*) FROM players")
            .fetch_one(c)
            .await)
        .unwrap();
    drop(conn);
    assert_eq!(kings, ("Kim".into(), "Ken".into()));
    assert_eq!(
        players, 10,
        "Aces has 4, Kings 2, Team 1 its 2 and Tom and Tim"
    );

    // Nothing at all.
    let before = snapshot(&app).await;
    for csv in ["", "\n\n"] {
        let response = browser
            .post_form(
                "/admin/leagues/l1/import",
                &[("csv", csv), ("confirm", "1")],
            )
            .await;
        assert_eq!(response.status(), 422);
        let html = response.text().await.unwrap();
        let shown = text_of(&html, "csv-error").unwrap_or_default();
        assert!(shown.contains("the roster is empty"), "{shown:?}");
    }
    assert_eq!(snapshot(&app).await, before, "nothing written");
}

#[actix_web::test]
async fn the_backup_is_a_fresh_sqlite_copy() {
    let (app, api, browser) = setup().await;
    app.league(&api, "l1", json!("unc-im-300"), 2).await;
    let html = browser.get("/admin/backup").await.text().await.unwrap();
    if crate::helpers::on_postgres() {
        // No file to copy: the page says how PostgreSQL is backed up and offers no download.
        assert!(html.contains("pg_dump"), "{html}");
        assert!(!html.contains("action=\"/admin/backup\""), "{html}");
        let response = browser.post_form("/admin/backup", &[]).await;
        assert_eq!(response.status(), 404);
        return;
    }
    assert!(html.contains("action=\"/admin/backup\""));
    let response = browser.post_form("/admin/backup", &[]).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "application/octet-stream"
    );
    assert_eq!(response.headers()["cache-control"], "no-store");
    let disposition = response.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_string();
    let name = disposition
        .strip_prefix("attachment; filename=\"spades-im-")
        .and_then(|n| n.strip_suffix(".sqlite3\""))
        .unwrap_or_else(|| panic!("{disposition}"));
    assert_eq!(name.len(), "YYYYMMDD-HHMM".len());
    assert!(name.chars().enumerate().all(|(i, c)| if i == 8 {
        c == '-'
    } else {
        c.is_ascii_digit()
    }));
    let bytes = response.bytes().await.unwrap();
    assert!(bytes.starts_with(b"SQLite format 3\0"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("copy.sqlite3");
    std::fs::write(&path, &bytes).unwrap();
    let copy = sqlx::SqlitePool::connect_with(
        sqlx::sqlite::SqliteConnectOptions::new()
            .filename(&path)
            .read_only(true),
    )
    .await
    .unwrap();
    let teams: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM teams")
        .fetch_one(&copy)
        .await
        .unwrap();
    assert_eq!(teams, 2);
    copy.close().await;
}

#[actix_web::test]
async fn a_roster_with_quoted_commas_is_imported_as_written_and_a_name_on_two_lines_is_refused() {
    let (app, api, browser) = setup().await;
    app.league(&api, "l1", json!("unc-im-300"), 0).await;
    let with_break = "team,player1,player2\r\n\
                      \"Kings, The\",Kim,Ken\r\n\
                      \"Night\nOwls\",Ned,Nia\r\n";
    let response = browser
        .post_form(
            "/admin/leagues/l1/import",
            &[("csv", with_break), ("confirm", "0")],
        )
        .await;
    assert_eq!(response.status(), 422);
    let html = unescape(&response.text().await.unwrap());
    assert!(html.contains("2 rows: 1 good, "), "{html}");
    assert!(
        html.contains("the team's name contains a control character (U+000A)"),
        "{html}"
    );
    let csv = "team,player1,player2\r\n\
               \"Kings, The\",Kim,Ken\r\n\
               Night Owls,\"Ned \"\"Nat\"\" Noe\",Nia\r\n";
    let response = browser
        .post_form(
            "/admin/leagues/l1/import",
            &[("csv", csv), ("confirm", "1")],
        )
        .await;
    assert_eq!(response.status(), 303);
    let mut conn = app.db.read().await.unwrap();
    let teams: Vec<(String, String, String)> = spades_im::on_store!(conn, |c| sqlx::query_as(
        "SELECT name, player1, player2 FROM teams ORDER BY name"
    )
    .fetch_all(c)
    .await)
    .unwrap();
    assert_eq!(
        teams,
        vec![
            ("Kings, The".into(), "Kim".into(), "Ken".into()),
            ("Night Owls".into(), "Ned \"Nat\" Noe".into(), "Nia".into()),
        ]
    );
}
