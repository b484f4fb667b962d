//! A coordinator's first week, the mistakes it must not let stand: two current leagues of
//! one name (409 `league_name_taken`, on create, rename, clone and unarchive).

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, expect_error, json_with_status, spawn_app};

async fn create(admin: &Api, name: &str, slug: &str) -> reqwest::Response {
    let body = json!({"name": name, "slug": slug, "rules": {"regular": "classic"}});
    admin.post("/api/v1/leagues", &body).await
}

fn on_name(error: &Value) -> &str {
    assert_eq!(error["field"], "name", "{error}");
    error["message"].as_str().unwrap()
}

#[actix_web::test]
async fn a_current_league_name_is_taken_once() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    json_with_status(
        create(&admin, "Spring 2027 Spades", "spring").await,
        201,
        "first",
    )
    .await;
    let before = app.tables().await;
    for name in [
        "spring 2027 spades",
        "Spring 2027 Sp\u{0430}des",
        " Spring  2027 Spades ",
    ] {
        let r = create(&admin, name, "again").await;
        let error = expect_error(r, 409, "league_name_taken").await;
        assert!(
            on_name(&error).contains("\"Spring 2027 Spades\" (spring)"),
            "{error}"
        );
    }
    let r = admin
        .post(
            "/api/v1/leagues/spring/clone",
            &json!({"name": "Spring 2027 Spades", "slug": "copy"}),
        )
        .await;
    expect_error(r, 409, "league_name_taken").await;
    app.assert_nothing_written(&before, "a name taken").await;

    // A rename onto it (the league's edit form) is refused by the name; keeping one's own
    // name is no clash.
    json_with_status(create(&admin, "Fall", "fall").await, 201, "fall").await;
    let browser = app.browser("coord").await;
    let rename = |name: &'static str| {
        [
            ("name", name),
            ("regular_preset", "classic"),
            ("confirm", "1"),
        ]
    };
    let r = browser
        .post_form("/admin/leagues/fall/edit", &rename("SPRING 2027 SPADES"))
        .await;
    assert_eq!(r.status(), 422, "the form's refusal");
    let html = crate::helpers::unescape(&r.text().await.unwrap());
    assert!(
        html.contains("\"Spring 2027 Spades\" (spring) has that name"),
        "{html}"
    );
    assert!(
        html.contains("value=\"SPRING 2027 SPADES\""),
        "what was typed is kept"
    );
    let r = browser
        .post_form("/admin/leagues/spring/edit", &rename("Spring 2027 Spades"))
        .await;
    assert_eq!(r.status(), 303, "its own name");

    // A past season may share it; bringing it back while the name is taken may not.
    let r = admin
        .post("/api/v1/leagues/spring/archive", &json!({}))
        .await;
    json_with_status(r, 200, "archive").await;
    json_with_status(
        create(&admin, "Spring 2027 Spades", "spring-2").await,
        201,
        "next",
    )
    .await;
    let r = admin
        .post("/api/v1/leagues/spring/unarchive", &json!({}))
        .await;
    expect_error(r, 409, "league_name_taken").await;
}

/// The ids of the matches a scoreboard answer shows.
fn board_ids(board: &Value) -> Vec<i64> {
    let matches = board["matches"].as_array().unwrap();
    matches.iter().map(|m| m["id"].as_i64().unwrap()).collect()
}

#[actix_web::test]
async fn the_scoreboard_and_the_tv_show_the_leagues_asked_for() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let mut live = Vec::new();
    for slug in ["east", "west"] {
        let teams = app.league(&admin, slug, json!("classic"), 2).await;
        let m = admin.add_match(slug, teams[0], teams[1], "Table 3").await;
        let id = m["id"].as_i64().unwrap();
        admin.start_match(id).await;
        live.push(id);
    }
    let board = |query: &'static str| {
        let app = &app;
        async move {
            let r = app.get(&format!("/api/v1/scoreboard{query}")).await;
            json_with_status(r, 200, query).await
        }
    };
    assert_eq!(board_ids(&board("").await), live, "every league");
    assert_eq!(board_ids(&board("?league=east").await), [live[0]]);
    assert_eq!(board_ids(&board("?league=west").await), [live[1]]);
    assert_eq!(board_ids(&board("?league=east&league=west").await), live);
    let r = app.get("/api/v1/scoreboard?league=nowhere").await;
    expect_error(r, 404, "not_found").await;

    // The TV of one league: its table only, polling its own board; a copy per league.
    for (slug, mine, other) in [("east", live[0], live[1]), ("west", live[1], live[0])] {
        let path = format!("/scoreboard?tv=1&league={slug}");
        for _ in 0..2 {
            let (status, _, html) = crate::helpers::anonymous_get(&app, &path).await;
            assert_eq!(status, 200);
            assert!(html.contains(&format!("id=\"board-{mine}\"")), "{slug}");
            assert!(!html.contains(&format!("id=\"board-{other}\"")), "{slug}");
            assert!(
                html.contains(&format!("data-poll=\"/api/v1/scoreboard?league={slug}\"")),
                "{slug}"
            );
        }
    }
    let (status, _, _) = crate::helpers::anonymous_get(&app, "/scoreboard?league=nowhere").await;
    assert_eq!(status, 404);
    let browser = app.browser("coord").await;
    let page = browser
        .get("/admin/leagues/east")
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("href=\"/scoreboard?tv=1&amp;league=east\""));
}

#[actix_web::test]
async fn closing_a_season_says_what_is_unplayed_and_may_cancel_it() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "fall", json!("classic"), 4).await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin", "start_date": "2026-12-01"}),
        )
        .await;
    let made = json_with_status(r, 201, "schedule").await;
    let mut ids: Vec<i64> = made["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    ids.sort_unstable();
    assert_eq!(ids.len(), 6);
    let _ = teams;

    // Refused, listing them; nothing written.
    let browser = app.browser("coord").await;
    let before = app.tables().await;
    let r = admin.post("/api/v1/leagues/fall/archive", &json!({})).await;
    let body = json_with_status(r, 409, "unplayed").await;
    assert_eq!(body["error"]["code"], "unplayed_matches");
    assert_eq!(body["matches"], json!(ids));
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("6 matches are still to play")
    );
    app.assert_nothing_written(&before, "a refused close").await;

    // The page lists them by label and teams, and closes only with the box ticked.
    let html = browser
        .get("/admin/leagues/fall/archive")
        .await
        .text()
        .await
        .unwrap();
    let list = crate::helpers::html_element(&html, "unplayed-list", "</ul>").unwrap();
    assert_eq!(list.matches("<li>").count(), 6, "{list}");
    assert!(list.contains(&format!("M{} · Team ", ids[0])), "{list}");
    let r = browser
        .post_form("/admin/leagues/fall/archive", &[("confirm", "1")])
        .await;
    assert_eq!(r.status(), 409);
    let html = r.text().await.unwrap();
    assert!(html.contains("id=\"form-error\""), "a focused refusal");
    app.assert_nothing_written(&before, "a refused close from the page")
        .await;
    let r = browser
        .post_form(
            "/admin/leagues/fall/archive",
            &[("confirm", "1"), ("cancel_unplayed", "1")],
        )
        .await;
    assert_eq!(r.status(), 303);
    let league = json_with_status(app.get("/api/v1/leagues/fall").await, 200, "fall").await;
    assert_eq!(league["archived"], true);
    for id in &ids {
        let m = json_with_status(app.get(&format!("/api/v1/matches/{id}")).await, 200, "m").await;
        assert_eq!(m["status"], "cancelled");
        assert_eq!(m["status_note"], "season closed");
    }
    let feed = app
        .get("/leagues/fall/calendar.ics")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(feed.matches("STATUS:CANCELLED").count(), 6, "{feed}");
}

/// A league with two divisions of teams and players (the roster import), a supervisor and a
/// schedule, one match postponed and one cancelled: everything a league owns but results.
async fn a_league_with_everything_but_results(app: &crate::helpers::TestApp, admin: &Api) {
    json_with_status(
        create(admin, "Spring 2027 Spades", "spring").await,
        201,
        "league",
    )
    .await;
    let mut csv = String::from("team,division,player,student id,email,captain\n");
    for t in 0..4 {
        let division = if t < 2 { "East" } else { "West" };
        for p in 0..2 {
            csv.push_str(&format!(
                "Team {t},{division},Player {t}{p},S{t}{p},p{t}{p}@example.edu,{}\n",
                if p == 0 { "yes" } else { "" }
            ));
        }
    }
    let r = admin.post_csv("/api/v1/leagues/spring/roster", &csv).await;
    json_with_status(r, 200, "roster").await;
    app.user("sup", Role::Supervisor).await;
    let r = admin
        .post(
            "/api/v1/leagues/spring/supervisors",
            &json!({"username": "sup"}),
        )
        .await;
    assert_eq!(r.status(), 204, "supervisor");
    let r = admin
        .post(
            "/api/v1/leagues/spring/schedule",
            &json!({"format": "round_robin", "start_date": "2027-01-12", "time": "19:00",
                    "blackouts": ["2027-01-19"]}),
        )
        .await;
    let made = json_with_status(r, 201, "schedule").await;
    let ids: Vec<i64> = made["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    assert!(ids.len() >= 2, "{made}");
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/postpone", ids[0]),
            &json!({"reason": "storm"}),
        )
        .await;
    json_with_status(r, 200, "postpone").await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/cancel", ids[1]),
            &json!({"reason": "gym closed"}),
        )
        .await;
    json_with_status(r, 200, "cancel").await;
}

#[actix_web::test]
async fn a_league_where_nothing_was_played_is_deleted_with_all_it_owns() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let before = app.tables().await;
    a_league_with_everything_but_results(&app, &admin).await;
    let grown = before.changed(&app.tables().await);
    for owned in [
        "leagues",
        "teams",
        "players",
        "divisions",
        "matches",
        "league_supervisors",
    ] {
        assert!(
            grown.contains(&owned.to_string()),
            "{owned} got rows: {grown:?}"
        );
    }

    let r = admin.delete("/api/v1/leagues/spring").await;
    assert_eq!(r.status(), 204, "{}", r.text().await.unwrap());
    // Every table is as it was before the league, but the audit log (which grew), the
    // counter of changes (which the page cache reads) and the accounts (the supervisor's
    // stays).
    let changed = before.changed(&app.tables().await);
    assert_eq!(
        changed,
        ["audit_log", "data_version", "users"],
        "{}",
        before.diff(&app.tables().await)
    );
    let r = admin.get("/api/v1/leagues/spring").await;
    expect_error(r, 404, "not_found").await;
    let deleted = app.audit_rows("delete", &["entity", "before"]).await;
    assert_eq!(deleted.len(), 1, "{deleted:?}");
    assert_eq!(deleted[0][0], "league");
    assert!(
        deleted[0][1].contains("\"name\":\"Spring 2027 Spades\""),
        "{deleted:?}"
    );
    assert!(deleted[0][1].contains("\"teams\":4"), "{deleted:?}");

    // The name and slug are free again, and the new league starts with an audit of its own
    // (on SQLite it may be given the deleted league's id).
    json_with_status(
        create(&admin, "Spring 2027 Spades", "spring").await,
        201,
        "again",
    )
    .await;
    let r = admin.get("/api/v1/audit?league=spring").await;
    let audit = json_with_status(r, 200, "the new league's audit").await;
    let actions: Vec<&str> = audit["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["create"], "{audit}");
}

#[actix_web::test]
async fn a_league_with_results_or_archived_is_kept() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "fall", json!("classic"), 2).await;
    let m = admin.add_match("fall", teams[0], teams[1], "T1").await;
    let before = app.tables().await;
    admin.start_match(m["id"].as_i64().unwrap()).await;
    let started = app.tables().await;
    let r = admin.delete("/api/v1/leagues/fall").await;
    let error = expect_error(r, 409, "league_has_results").await;
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("close its season"),
        "{error}"
    );
    app.assert_nothing_written(&started, "a league with a match started")
        .await;
    let _ = before;
    json_with_status(create(&admin, "Past", "past").await, 201, "past").await;
    let r = admin.post("/api/v1/leagues/past/archive", &json!({})).await;
    json_with_status(r, 200, "archive").await;
    let r = admin.delete("/api/v1/leagues/past").await;
    let error = expect_error(r, 409, "league_archived").await;
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("reopen it first"),
        "{error}"
    );

    let supervisor = app.api_user("sup", Role::Supervisor).await;
    let r = supervisor.delete("/api/v1/leagues/past").await;
    assert_eq!(r.status(), 403, "only an admin deletes");
    let r = admin.delete("/api/v1/leagues/no-such").await;
    expect_error(r, 404, "not_found").await;
}

#[actix_web::test]
async fn the_delete_page_says_what_goes_and_deletes_only_when_confirmed() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    a_league_with_everything_but_results(&app, &admin).await;
    let browser = app.browser("coord").await;
    let page = browser
        .get("/admin/leagues/spring")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("id=\"delete-league-link\""),
        "offered while nothing was played"
    );
    let page = browser
        .get("/admin/leagues/spring/delete")
        .await
        .text()
        .await
        .unwrap();
    let facts = crate::helpers::html_text(
        crate::helpers::html_element(&page, "delete-facts", "</p>").unwrap(),
    );
    assert!(facts.contains("4 teams, 8 players and"), "{facts}");
    assert!(facts.contains("none played"), "{facts}");

    let before = app.tables().await;
    let r = browser.post_form("/admin/leagues/spring/delete", &[]).await;
    assert_eq!(r.status(), 200, "without confirm=1 it asks");
    app.assert_nothing_written(&before, "not confirmed").await;
    let r = browser
        .post_form("/admin/leagues/spring/delete", &[("confirm", "1")])
        .await;
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], "/admin?deleted=league");
    let page = browser
        .get("/admin?deleted=league")
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("The league was deleted."), "{page}");
    let r = browser.get("/admin/leagues/spring").await;
    assert_eq!(r.status(), 404);

    // A league with a result: no link, and the page's own form is refused in words.
    let teams = app.league(&admin, "fall", json!("classic"), 2).await;
    let m = admin.add_match("fall", teams[0], teams[1], "T1").await;
    admin.start_match(m["id"].as_i64().unwrap()).await;
    let page = browser
        .get("/admin/leagues/fall")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        !page.contains("id=\"delete-league-link\""),
        "not offered once played"
    );
    let r = browser
        .post_form("/admin/leagues/fall/delete", &[("confirm", "1")])
        .await;
    assert_eq!(r.status(), 409);
    let page = r.text().await.unwrap();
    assert!(
        page.contains("Not deleted: matches were played in this league"),
        "{page}"
    );
}

/// The position of `needle` in `html`, which must hold it.
fn at(html: &str, needle: &str) -> usize {
    html.find(needle)
        .unwrap_or_else(|| panic!("{needle} not on the page"))
}

/// A match given to one of its league's supervisors: its JSON names them, their
/// `/supervise` shows it first ("Yours tonight"), an account that does not supervise the
/// league is refused (nothing written), the schedule page's form sets it too, and taking
/// the supervisor off the league takes their matches back.
#[actix_web::test]
async fn a_match_is_given_to_one_of_its_leagues_supervisors() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.api_user("kim", Role::Supervisor).await;
    app.api_user("lee", Role::Supervisor).await;
    app.api_user("out", Role::Supervisor).await;
    let teams = app.league(&admin, "fall", json!("classic"), 4).await;
    for username in ["kim", "lee"] {
        let r = admin
            .post(
                "/api/v1/leagues/fall/supervisors",
                &json!({"username": username}),
            )
            .await;
        assert_eq!(r.status(), 204, "{username}");
    }
    let mut ids = Vec::new();
    for (i, table) in [(0, "Table 1"), (2, "Table 2")] {
        let m = admin.add_match("fall", teams[i], teams[i + 1], table).await;
        let id = m["id"].as_i64().unwrap();
        admin.start_match(id).await;
        ids.push(id);
    }
    let (mine, other) = (ids[0], ids[1]);
    let give = |id: i64, supervisor: Value| {
        let admin = &admin;
        async move {
            let now =
                json_with_status(admin.get(&format!("/api/v1/matches/{id}")).await, 200, "m").await;
            let body = json!({"supervisor": supervisor, "expected_version": now["version"]});
            admin.patch(&format!("/api/v1/matches/{id}"), &body).await
        }
    };
    let given = json_with_status(give(mine, json!("KIM")).await, 200, "kim").await;
    assert_eq!(given["supervisor"], "kim", "the account's own spelling");
    let read = json_with_status(app.get(&format!("/api/v1/matches/{mine}")).await, 200, "m").await;
    assert_eq!(read["supervisor"], "kim");
    assert_eq!(read["table"], "Table 1", "nothing else changed");

    let before = app.tables().await;
    for refused in ["nobody", "out", "coord"] {
        let error =
            expect_error(give(other, json!(refused)).await, 422, "invalid_supervisor").await;
        assert_eq!(error["field"], "supervisor", "{refused}: {error}");
    }
    app.assert_nothing_written(&before, "a supervisor refused")
        .await;

    // Kim sees the match first; Lee, who has none, sees today's as before.
    let kim = app.browser("kim").await;
    let html = kim.get("/supervise").await.text().await.unwrap();
    assert!(
        at(&html, "id=\"yours\"") < at(&html, &format!("id=\"match-{mine}\""))
            && at(&html, &format!("id=\"match-{mine}\"")) < at(&html, "id=\"today\"")
            && at(&html, "id=\"today\"") < at(&html, &format!("id=\"match-{other}\"")),
        "Kim's match first: {html}"
    );
    let html = app
        .browser("lee")
        .await
        .get("/supervise")
        .await
        .text()
        .await
        .unwrap();
    assert!(!html.contains("id=\"yours\""), "{html}");
    assert!(
        html.contains(&format!("id=\"match-{mine}\"")),
        "any may still run it"
    );

    // The schedule page's form, a name refused by its field with the choice kept.
    let coord = app.browser("coord").await;
    let version = |id: i64| {
        let app = &app;
        async move {
            let m =
                json_with_status(app.get(&format!("/api/v1/matches/{id}")).await, 200, "m").await;
            m["version"].to_string()
        }
    };
    let path = format!("/admin/leagues/fall/matches/{other}");
    let v = version(other).await;
    let r = coord
        .post_form(&path, &[("expected_version", &v), ("supervisor", "nobody")])
        .await;
    assert_eq!(r.status(), 422);
    let html = crate::helpers::unescape(&r.text().await.unwrap());
    assert!(
        html.contains(&format!("id=\"m{other}-supervisor-error\"")),
        "{html}"
    );
    assert!(html.contains("<option value=\"nobody\" selected>"), "kept");
    let r = coord
        .post_form(&path, &[("expected_version", &v), ("supervisor", "lee")])
        .await;
    assert_eq!(r.status(), 303);
    let m = json_with_status(app.get(&format!("/api/v1/matches/{other}")).await, 200, "m").await;
    assert_eq!(m["supervisor"], "lee");

    // None again; then Kim's, and Kim taken off the league: nobody's.
    let none = json_with_status(give(mine, Value::Null).await, 200, "none").await;
    assert_eq!(none["supervisor"], Value::Null);
    json_with_status(give(mine, json!("kim")).await, 200, "kim again").await;
    let kim_id = {
        let mut conn = app.db.read().await.unwrap();
        spades_im::db::users::by_name(&mut conn, "kim")
            .await
            .unwrap()
            .unwrap()
            .id
    };
    let r = coord
        .post_form(
            &format!("/admin/leagues/fall/supervisors/{kim_id}/remove"),
            &[],
        )
        .await;
    assert_eq!(r.status(), 303);
    let m = json_with_status(app.get(&format!("/api/v1/matches/{mine}")).await, 200, "m").await;
    assert_eq!(
        m["supervisor"],
        Value::Null,
        "Kim no longer supervises the league"
    );
    let m = json_with_status(app.get(&format!("/api/v1/matches/{other}")).await, 200, "m").await;
    assert_eq!(m["supervisor"], "lee", "Lee's stays");

    // A hand's first answer, sent again after the match changed hands, names Lee still.
    let hand = json!({
        "hand": {"a": {"bids": [4, 3], "tricks": [4, 3]}, "b": {"bids": [3, 3], "tricks": [3, 3]}},
        "expected_version": m["version"],
        "idempotency_key": "lee-1",
    });
    let hands = format!("/api/v1/matches/{other}/hands");
    let post = || admin.post(&hands, &hand);
    let first = json_with_status(post().await, 201, "a hand").await;
    json_with_status(give(other, Value::Null).await, 200, "nobody's").await;
    let again = json_with_status(post().await, 201, "the hand again").await;
    assert_eq!(first, again, "the first answer, as it was");
    assert_eq!(again["supervisor"], "lee");
}

/// "Supervisors for this night" on the schedule page: the ticked supervisors get the
/// night's tables in blocks, in table order (Table 2 before Table 10); an account that does
/// not supervise the league is refused by the form, nothing given.
#[actix_web::test]
async fn a_nights_tables_are_spread_over_its_supervisors_in_one_go() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.api_user("kim", Role::Supervisor).await;
    app.api_user("lee", Role::Supervisor).await;
    let teams = app.league(&admin, "fall", json!("classic"), 8).await;
    for username in ["kim", "lee"] {
        let r = admin
            .post(
                "/api/v1/leagues/fall/supervisors",
                &json!({"username": username}),
            )
            .await;
        assert_eq!(r.status(), 204);
    }
    let mut by_table = Vec::new();
    for (i, table) in ["Table 10", "Table 2", "Table 1", "Table 3"]
        .iter()
        .enumerate()
    {
        let body = json!({"team_a": teams[2 * i], "team_b": teams[2 * i + 1], "table": table,
                          "scheduled_at": "2026-12-01T19:00"});
        let m = json_with_status(
            admin.post("/api/v1/leagues/fall/matches", &body).await,
            201,
            "m",
        )
        .await;
        by_table.push((table.to_string(), m["id"].as_i64().unwrap()));
    }
    let coord = app.browser("coord").await;
    let page = coord
        .get("/admin/leagues/fall/schedule?week=all")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("action=\"/admin/leagues/fall/nights/supervisors\""),
        "{page}"
    );

    let path = "/admin/leagues/fall/nights/supervisors";
    let before = app.tables().await;
    let night = [("night", "2026-12-01"), ("group", "night-2026-12-01")];
    let r = coord
        .post_form(
            path,
            &[
                night[0],
                night[1],
                ("supervisors", "kim"),
                ("supervisors", "coord"),
            ],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    assert!(
        html.contains("id=\"supervisors-night-2026-12-01-supervisors-error\""),
        "{html}"
    );
    app.assert_nothing_written(&before, "a supervisor refused")
        .await;

    let r = coord
        .post_form(
            path,
            &[
                night[0],
                night[1],
                ("supervisors", "kim"),
                ("supervisors", "lee"),
            ],
        )
        .await;
    assert_eq!(r.status(), 303);
    let to = r.headers()["location"].to_str().unwrap().to_string();
    assert!(to.contains("done=supervisors&n=4"), "{to}");
    for (table, id) in &by_table {
        let m = json_with_status(app.get(&format!("/api/v1/matches/{id}")).await, 200, "m").await;
        let expected = if ["Table 1", "Table 2"].contains(&table.as_str()) {
            "kim"
        } else {
            "lee"
        };
        assert_eq!(m["supervisor"], expected, "{table}");
    }
    let page = coord.get(&to).await.text().await.unwrap();
    assert!(page.contains("Gave 4 matches of"), "{page}");
}
