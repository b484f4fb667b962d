//! The audit log read back (docs/api.md §18.3): `GET /api/v1/audit` with its filters (a
//! league's entries include its teams', players' and matches'), paging by `before`/`next`,
//! its refusals; the `/admin/audit` page and its CSV.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, TestApp, csv_rows, expect_error, hand_of, json_with_status, spawn_app};

/// A page of the audit log as `api` reads it with `query`.
async fn audit(api: &Api, query: &str) -> Value {
    let r = api.get(&format!("/api/v1/audit?{query}")).await;
    json_with_status(r, 200, query).await
}

/// The `field` of every entry of a page.
fn each(page: &Value, field: &str) -> Vec<Value> {
    page["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e[field].clone())
        .collect()
}

/// Leagues `fall` and `spring` (2 teams each) by `boss`; in `fall` a match started with one
/// hand recorded, by the supervisor `sue`. The match's id.
async fn two_leagues(app: &TestApp, boss: &Api) -> i64 {
    let fall = app.league(boss, "fall", json!("classic"), 2).await;
    app.league(boss, "spring", json!("classic"), 2).await;
    let m = boss.add_match("fall", fall[0], fall[1], "Table 1").await;
    let id = m["id"].as_i64().expect("match id");
    let sue = app.api_user("sue", Role::Supervisor).await;
    let r = boss
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "sue"}),
        )
        .await;
    assert_eq!(r.status(), 204);
    sue.play_hands(id, &[hand_of([3, 3], [4, 3], [3, 3], [3, 3])])
        .await;
    id
}

#[actix_web::test]
async fn a_league_filter_finds_its_teams_and_matches_and_nothing_else() {
    let app = spawn_app().await;
    let boss = app.api_user("boss", Role::Admin).await;
    let id = two_leagues(&app, &boss).await;
    let page = audit(&boss, "league=fall").await;
    let actions = each(&page, "action");
    // Newest first: the hand, the start, the supervisor, the match, then each team after
    // its two players, the league.
    assert_eq!(
        actions,
        [
            "record_hand",
            "start",
            "assign_supervisor",
            "create",
            "create",
            "create",
            "create",
            "create",
            "create",
            "create",
            "create"
        ],
        "{page}"
    );
    let players = page["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter(|e| {
            e["after"]
                .as_str()
                .is_some_and(|a| a.contains("\"captain\""))
        })
        .count();
    assert_eq!(players, 4, "the players' entries: {page}");
    assert!(each(&page, "league").iter().all(|l| l == "fall"), "{page}");
    let matches = each(&page, "match");
    assert_eq!(
        &matches[..4],
        [json!(id), json!(id), Value::Null, json!(id)],
        "{page}"
    );
    assert!(matches[4..].iter().all(Value::is_null), "{page}");
    let users = each(&page, "user");
    assert_eq!(&users[..3], ["sue", "sue", "boss"], "{page}");
    assert_eq!(page["next"], Value::Null);
    // The entry's whole shape.
    let entry = &page["entries"][0];
    let keys: Vec<&str> = entry
        .as_object()
        .expect("entry")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys.len(),
        11,
        "id, at, user, action, league, match, reason, before, after, imported, summary: {entry}"
    );
    assert_eq!(entry["imported"], false, "made here, not imported: {entry}");
    for key in [
        "id", "at", "user", "action", "league", "match", "reason", "before", "after", "imported",
        "summary",
    ] {
        assert!(entry.get(key).is_some(), "{key} in {entry}");
    }
    // Spring's own: the league, its two teams and four players, nothing of fall's.
    let spring = audit(&boss, "league=spring").await;
    assert_eq!(each(&spring, "action").len(), 7, "{spring}");
    assert!(each(&spring, "league").iter().all(|l| l == "spring"));
}

#[actix_web::test]
async fn match_user_and_action_filters_narrow_and_combine() {
    let app = spawn_app().await;
    let boss = app.api_user("boss", Role::Admin).await;
    let id = two_leagues(&app, &boss).await;
    let by_match = audit(&boss, &format!("match={id}")).await;
    assert_eq!(
        each(&by_match, "action"),
        ["record_hand", "start", "create"]
    );
    assert!(each(&by_match, "match").iter().all(|m| *m == json!(id)));

    // Any case of the username.
    let by_sue = audit(&boss, "user=SUE").await;
    assert_eq!(
        each(&by_sue, "action"),
        ["record_hand", "start", "create_token"]
    );
    assert!(each(&by_sue, "user").iter().all(|u| u == "sue"));

    let starts = audit(&boss, "action=start").await;
    assert_eq!(each(&starts, "match"), [json!(id)]);

    let none = audit(&boss, "action=start&league=spring").await;
    assert_eq!(none, json!({"entries": [], "next": null}));
    // An empty value is no filter.
    let all = audit(&boss, "league=&user=&action=").await;
    assert_eq!(all, audit(&boss, "").await);
    assert!(each(&all, "action").len() > 10, "{all}");

    // A filter naming nobody is not found, as notices' (one rule for the API's filters).
    expect_error(
        boss.get("/api/v1/audit?user=nobody").await,
        404,
        "not_found",
    )
    .await;
    expect_error(
        boss.get("/api/v1/audit?league=winter").await,
        404,
        "not_found",
    )
    .await;
    // A control character (a NUL, which PostgreSQL refuses in text) names nothing: a 422 on
    // its field, never a 500.
    for field in ["action", "user", "league"] {
        let e = expect_error(
            boss.get(&format!("/api/v1/audit?{field}=a%00b")).await,
            422,
            "invalid_request",
        )
        .await;
        assert_eq!(e["field"], field);
    }
}

#[actix_web::test]
async fn pages_walk_every_entry_once_by_before_and_next() {
    let app = spawn_app().await;
    let boss = app.api_user("boss", Role::Admin).await;
    two_leagues(&app, &boss).await;
    let all: Vec<i64> = each(&audit(&boss, "limit=200").await, "id")
        .iter()
        .map(|v| v.as_i64().expect("id"))
        .collect();
    // The leagues' 18, and the accounts' and tokens' of boss and sue.
    assert_eq!(all.len(), 22, "{all:?}");
    assert!(all.windows(2).all(|w| w[0] > w[1]), "newest first: {all:?}");

    let mut walked = Vec::new();
    let mut query = "limit=3".to_string();
    let mut pages = 0;
    loop {
        let page = audit(&boss, &query).await;
        pages += 1;
        let ids = each(&page, "id");
        assert!(ids.len() <= 3);
        walked.extend(ids.iter().map(|v| v.as_i64().expect("id")));
        match page["next"].as_i64() {
            Some(next) => {
                assert_eq!(
                    Some(next),
                    walked.last().copied(),
                    "next is the last id shown"
                );
                query = format!("limit=3&before={next}");
            }
            None => break,
        }
        assert!(pages < 10, "paging does not end");
    }
    assert_eq!(walked, all);
    assert_eq!(pages, 8);
    // A page that ends exactly at the last entry says so: no empty page after it.
    let rest = audit(&boss, &format!("limit=21&before={}", all[0])).await;
    assert_eq!(each(&rest, "id").len(), 21);
    assert_eq!(rest["next"], Value::Null);
    // The default is 50: with 40 entries more (tokens made), 62 in all, a page without a
    // limit is the newest 50 and says where the next begins.
    for _ in 0..40 {
        app.token("boss").await;
    }
    let all: Vec<i64> = each(&audit(&boss, "limit=200").await, "id")
        .iter()
        .map(|v| v.as_i64().expect("id"))
        .collect();
    assert_eq!(all.len(), 62);
    let page = audit(&boss, "").await;
    let ids: Vec<i64> = each(&page, "id")
        .iter()
        .map(|v| v.as_i64().expect("id"))
        .collect();
    assert_eq!(ids, all[..50], "the newest 50");
    assert_eq!(page["next"].as_i64(), Some(all[49]));
}

#[actix_web::test]
async fn a_limit_out_of_range_or_a_bad_query_is_refused() {
    let app = spawn_app().await;
    let boss = app.api_user("boss", Role::Admin).await;
    for limit in ["201", "0", "-1"] {
        let r = boss.get(&format!("/api/v1/audit?limit={limit}")).await;
        let e = expect_error(r, 422, "invalid_request").await;
        assert_eq!(e["field"], "limit", "{limit}");
    }
    assert_eq!(each(&audit(&boss, "limit=1").await, "id").len(), 1);
    assert_eq!(each(&audit(&boss, "limit=200").await, "id").len(), 2);
    for query in [
        "limit=ten",
        "match=x",
        "before=1.5",
        "limit=1&limit=2",
        "colour=red",
    ] {
        let r = boss.get(&format!("/api/v1/audit?{query}")).await;
        expect_error(r, 400, "malformed").await;
    }
    let sue = app.api_user("sue", Role::Supervisor).await;
    expect_error(sue.get("/api/v1/audit").await, 403, "forbidden").await;
    expect_error(app.get("/api/v1/audit").await, 401, "unauthorized").await;
}

#[actix_web::test]
async fn the_page_filters_shows_errors_with_typed_values_and_downloads_csv() {
    let app = spawn_app().await;
    let boss = app.api_user("boss", Role::Admin).await;
    let id = two_leagues(&app, &boss).await;
    let browser = app.browser("boss").await;

    let r = browser.get(&format!("/admin/audit?match={id}")).await;
    assert_eq!(r.status(), 200);
    let html = r.text().await.expect("page");
    assert_eq!(html.matches("<tr id=\"entry-").count(), 3, "{html}");
    assert!(html.contains("record_hand") && html.contains(&format!("value=\"{id}\"")));
    assert!(html.contains(&format!("href=\"/admin/audit.csv?match={id}\"")));
    assert!(!html.contains("id=\"audit-older\""), "one page");

    // A filter that does not read: the form again with what was typed, and the error.
    let r = browser.get("/admin/audit?match=twelve&user=boss").await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.expect("page");
    assert!(html.contains("id=\"form-error\"") && html.contains("value=\"twelve\""));
    assert!(html.contains("value=\"boss\"") && html.contains("aria-invalid=\"true\""));
    let r = browser.get("/admin/audit?user=nobody").await;
    assert_eq!(r.status(), 422);
    assert!(
        r.text()
            .await
            .expect("page")
            .contains("id=\"audit-user-error\"")
    );

    let r = browser.get("/admin/audit?action=no_such_action").await;
    assert_eq!(r.status(), 200);
    assert!(r.text().await.expect("page").contains("id=\"audit-empty\""));

    // Paged: the page before the newest two entries, with a way back.
    let newest = each(&audit(&boss, "limit=2").await, "id");
    let r = browser
        .get(&format!("/admin/audit?league=fall&before={}", newest[1]))
        .await;
    let html = r.text().await.expect("page");
    assert!(html.contains("id=\"audit-newest\""), "{html}");
    assert!(!html.contains(&format!("id=\"entry-{}\"", newest[0])));

    let r = browser.get("/admin/audit.csv?league=fall").await;
    assert_eq!(r.status(), 200);
    let bytes = r.bytes().await.expect("csv");
    assert_eq!(&bytes[..3], [0xEF, 0xBB, 0xBF], "a byte order mark");
    let rows = csv_rows(std::str::from_utf8(&bytes).expect("UTF-8"));
    assert_eq!(
        rows[0],
        [
            "id", "at", "user", "action", "league", "match", "reason", "before", "after",
            "imported", "summary"
        ]
    );
    assert_eq!(rows.len(), 12, "the header and fall's 11 entries");
    assert_eq!(rows[1][3], "record_hand");
    assert!(rows[1..].iter().all(|r| r[4] == "fall"));

    // Linked from the dashboard and the league's page.
    let dashboard = browser.get("/admin").await.text().await.expect("page");
    assert!(dashboard.contains("href=\"/admin/audit\""));
    let league = browser
        .get("/admin/leagues/fall")
        .await
        .text()
        .await
        .expect("page");
    assert!(league.contains("href=\"/admin/audit?league=fall\""));
}

#[actix_web::test]
async fn the_schedule_csv_lists_every_match_in_local_time_with_scores_and_winner() {
    let app = spawn_app().await;
    let boss = app.api_user("boss", Role::Admin).await;
    json_with_status(
        boss.post(
            "/api/v1/leagues",
            &json!({"name": "Fall", "slug": "fall", "rules": {"regular": "classic"}}),
        )
        .await,
        201,
        "league",
    )
    .await;
    let mut teams = Vec::new();
    for name in ["Équipe Señor", "Aces", "Kings", "Jacks"] {
        let t = json_with_status(
            boss.post(
                "/api/v1/leagues/fall/teams",
                &json!({"name": name, "players": ["A", "B"]}),
            )
            .await,
            201,
            name,
        )
        .await;
        teams.push(t["id"].as_i64().expect("team id"));
    }
    let add = |a: i64, b: i64, at: &'static str| {
        let boss = &boss;
        async move {
            let r = boss
                .post(
                    "/api/v1/leagues/fall/matches",
                    &json!({"team_a": a, "team_b": b, "table": "Table 1", "scheduled_at": at}),
                )
                .await;
            json_with_status(r, 201, "match").await["id"]
                .as_i64()
                .expect("id")
        }
    };
    let played = add(teams[0], teams[1], "2026-11-23T19:00").await;
    let forfeited = add(teams[2], teams[3], "2026-11-23T20:30").await;
    let unplayed = add(teams[0], teams[2], "2026-11-30T19:00").await;
    boss.play_hands(played, &[hand_of([4, 3], [5, 3], [3, 2], [3, 2])])
        .await;
    let r = boss
        .post(
            &format!("/api/v1/matches/{forfeited}/forfeit"),
            &json!({"team": "b"}),
        )
        .await;
    json_with_status(r, 200, "forfeit").await;

    let r = app.get("/leagues/fall/schedule.csv").await;
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.headers()["content-disposition"],
        "attachment; filename=\"fall-schedule.csv\""
    );
    let bytes = r.bytes().await.expect("csv");
    assert_eq!(&bytes[..3], [0xEF, 0xBB, 0xBF], "a byte order mark");
    let rows = csv_rows(std::str::from_utf8(&bytes).expect("UTF-8"));
    let (played, forfeited, unplayed) = (
        played.to_string(),
        forfeited.to_string(),
        unplayed.to_string(),
    );
    let want = [
        vec![
            "match_id", "stage", "round", "time", "table", "team_a", "team_b", "status", "score_a",
            "score_b", "winner",
        ],
        vec![
            &played,
            "regular",
            "",
            "2026-11-23 19:00",
            "Table 1",
            "Équipe Señor",
            "Aces",
            "in_progress",
            "71",
            "50",
            "",
        ],
        vec![
            &forfeited,
            "regular",
            "",
            "2026-11-23 20:30",
            "Table 1",
            "Kings",
            "Jacks",
            "forfeit",
            "",
            "",
            "Kings",
        ],
        vec![
            &unplayed,
            "regular",
            "",
            "2026-11-30 19:00",
            "Table 1",
            "Équipe Señor",
            "Kings",
            "scheduled",
            "",
            "",
            "",
        ],
    ];
    assert_eq!(rows, want);
    let page = app
        .get("/leagues/fall/schedule")
        .await
        .text()
        .await
        .expect("page");
    assert!(page.contains("href=\"/leagues/fall/schedule.csv\""));
    let r = app.get("/leagues/winter/schedule.csv").await;
    assert_eq!(r.status(), 404);
}

#[actix_web::test]
async fn each_entry_says_what_happened_in_words_naming_rows_by_name() {
    let app = spawn_app().await;
    let boss = app.api_user("boss", Role::Admin).await;
    let id = two_leagues(&app, &boss).await;
    let page = audit(&boss, "league=fall").await;
    let summaries: Vec<String> = each(&page, "summary")
        .iter()
        .map(|s| s.as_str().expect("a summary").to_string())
        .collect();
    assert_eq!(
        &summaries[..3],
        [
            format!("sue recorded a hand of M{id} · Team 1 v Team 2 (fall)"),
            format!("sue started M{id} · Team 1 v Team 2 (fall)"),
            "boss assigned a supervisor to fall".to_string(),
        ]
    );
    assert!(
        summaries.contains(&"boss created fall".to_string()),
        "{summaries:?}"
    );
    assert!(
        summaries.contains(&"boss created Team 1 (fall)".to_string()),
        "{summaries:?}"
    );
    // Every entry of the whole log reads as words: no action's own name with its
    // underscores, no row by its bare number.
    let everything = audit(&boss, "limit=200").await;
    for entry in everything["entries"].as_array().unwrap() {
        let summary = entry["summary"].as_str().unwrap();
        assert!(!summary.contains('_'), "an action not in words: {summary}");
        assert!(!summary.contains('#'), "a bare id: {summary}");
    }

    // A league deleted is named by the name it had.
    let r = boss.delete("/api/v1/leagues/spring").await;
    assert_eq!(r.status(), 204);
    let page = audit(&boss, "action=delete").await;
    assert_eq!(each(&page, "summary")[0], "boss deleted spring");
}
