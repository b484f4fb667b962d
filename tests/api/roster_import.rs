//! `POST /api/v1/leagues/{slug}/roster` and its page: a roster CSV with divisions, checked
//! by the file's own line numbers, written all at once or not at all, updating the teams a
//! league has, and reading `roster.csv` back as it was written.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, TestApp, expect_error, json_with_status, spawn_app, unescape};

async fn league(admin: &Api, slug: &str) {
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": slug, "slug": slug, "rules": {"regular": "classic"}}),
        )
        .await;
    json_with_status(r, 201, "league").await;
}

/// Each team's name, division's name and players' names, in the league's order.
async fn teams(app: &TestApp, slug: &str) -> Vec<(String, String, Vec<String>)> {
    let divisions = app.get(&format!("/api/v1/leagues/{slug}/divisions")).await;
    let divisions = json_with_status(divisions, 200, "divisions").await;
    let division_name = |id: &Value| {
        divisions["divisions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["id"] == *id)
            .map(|d| d["name"].as_str().unwrap().to_string())
            .unwrap_or_default()
    };
    let r = app.get(&format!("/api/v1/leagues/{slug}/teams")).await;
    let list = json_with_status(r, 200, "teams").await;
    list["teams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let players = t["players"].as_array().unwrap();
            (
                t["name"].as_str().unwrap().to_string(),
                division_name(&t["division"]),
                players
                    .iter()
                    .map(|p| p.as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect()
}

/// Ten teams in two divisions, one player a row, with student ids and emails: the file a
/// coordinator brings in the first week.
fn ten_teams() -> String {
    let mut csv = String::from("team,division,player,student id,email,captain\n");
    for t in 0..10 {
        let division = if t < 5 { "Competitive" } else { "Recreational" };
        for p in 0..2 {
            let n = t * 2 + p;
            let captain = if p == 0 { "yes" } else { "" };
            csv.push_str(&format!(
                "Team {t},{division},Player {n},S{:04},p{n}@example.edu,{captain}\n",
                1000 + n
            ));
        }
    }
    csv
}

#[actix_web::test]
async fn divisions_are_made_as_named_and_a_dry_run_writes_nothing() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    league(&admin, "fall").await;
    let before = app.tables().await;
    let r = admin
        .post_csv("/api/v1/leagues/fall/roster?dry_run=true", &ten_teams())
        .await;
    let report = json_with_status(r, 200, "dry run").await;
    assert_eq!(report["written"], false);
    assert_eq!(report["teams"], json!({"new": 10, "updated": 0}));
    assert_eq!(report["players"], json!({"new": 20, "updated": 0}));
    assert_eq!(report["divisions"], json!({"new": 2}));
    assert_eq!(report["rows"].as_array().unwrap().len(), 20);
    assert_eq!(
        report["rows"][0],
        json!({"line": 2, "team": "Team 0", "players": ["Player 0"], "division": "Competitive",
               "status": "ok", "message": "new team"})
    );
    app.assert_nothing_written(&before, "a dry run").await;

    let r = admin
        .post_csv("/api/v1/leagues/fall/roster", &ten_teams())
        .await;
    let report = json_with_status(r, 200, "import").await;
    assert_eq!(report["written"], true);
    let teams = teams(&app, "fall").await;
    assert_eq!(teams.len(), 10);
    assert_eq!(
        teams[0],
        (
            "Team 0".into(),
            "Competitive".into(),
            vec!["Player 0".into(), "Player 1".into()]
        )
    );
    assert_eq!(teams[9].1, "Recreational");
    let audited = app.audit_rows("create_division", &["reason"]).await;
    assert_eq!(audited, [["roster import"], ["roster import"]]);
    // The schedule pairs within the divisions the import made.
    let r = admin
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin", "start_date": "2026-12-01"}),
        )
        .await;
    let made = json_with_status(r, 201, "schedule").await;
    assert_eq!(made["matches"].as_array().unwrap().len(), 20, "2 × C(5,2)");
}

#[actix_web::test]
async fn a_row_in_error_writes_nothing_and_each_error_is_on_its_own_line() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    league(&admin, "fall").await;
    let csv = "team,division,player,student id,email,captain\n\
               Aces,East,Ann,S1,ann@example.edu,yes\n\
               \n\
               Aces,East,Al,S2,,\n\
               Kings,West,Kim,S1,,\n\
               Kings,West,Ken,,,\n\
               Queens,West,Quin,,not an email,\n\
               Queens,West,Quo,,,\n\
               Jacks,West,Jo,,,\n";
    let before = app.tables().await;
    let r = admin.post_csv("/api/v1/leagues/fall/roster", csv).await;
    let body = json_with_status(r, 422, "a roster with errors").await;
    assert_eq!(body["error"]["code"], "invalid_roster");
    assert_eq!(body["error"]["field"], "csv");
    assert_eq!(body["written"], false);
    let errors: Vec<(u64, String)> = body["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "error")
        .map(|r| {
            let message = r["message"].as_str().unwrap().to_string();
            (r["line"].as_u64().unwrap(), message)
        })
        .collect();
    let lines: Vec<u64> = errors.iter().map(|(l, _)| *l).collect();
    assert_eq!(
        lines,
        [5, 6, 7, 8, 9],
        "the file's lines, past the blank one: {errors:?}"
    );
    assert_eq!(errors[0].1, "this student id is also on line 2 of the file");
    assert_eq!(errors[1].1, "the team on line 5 is not imported");
    assert!(errors[2].1.contains("email"), "the bad email on its line 7");
    assert_eq!(errors[3].1, "the team on line 7 is not imported");
    assert_eq!(errors[4].1, "a team has 2 to 8 active players, not 1");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("5 rows have an error"), "{message}");
    for words in ["invalid type", "expected", "missing field"] {
        assert!(!body.to_string().contains(words), "{body}");
    }
    app.assert_nothing_written(&before, "a roster with errors")
        .await;
}

#[actix_web::test]
async fn roster_csv_reads_back_into_an_empty_league_and_again_changes_nothing() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    league(&admin, "fall").await;
    let csv = format!("{}Solo,,Sam,,,\nSolo,,Sid,,,\n", ten_teams());
    let r = admin.post_csv("/api/v1/leagues/fall/roster", &csv).await;
    json_with_status(r, 200, "import").await;
    // A deactivated player and a captain moved: both go through the export.
    let r = admin.get("/api/v1/leagues/fall/teams").await;
    let solo = json_with_status(r, 200, "teams").await["teams"][10]["id"].clone();
    let r = admin
        .post(
            &format!("/api/v1/teams/{solo}/players"),
            &json!({"name": "Sue", "student_id": "S9999"}),
        )
        .await;
    let sue = json_with_status(r, 201, "Sue").await["id"].clone();
    let r = admin
        .patch(&format!("/api/v1/players/{sue}"), &json!({"active": false}))
        .await;
    json_with_status(r, 200, "deactivate").await;
    let boss = app.browser("coord").await;
    let exported = boss
        .get("/admin/leagues/fall/roster.csv")
        .await
        .text()
        .await
        .unwrap();

    league(&admin, "spring").await;
    let r = admin
        .post_csv("/api/v1/leagues/spring/roster", &exported)
        .await;
    let report = json_with_status(r, 200, "round trip").await;
    assert_eq!(report["teams"], json!({"new": 11, "updated": 0}));
    assert_eq!(report["divisions"], json!({"new": 2}));
    assert_eq!(teams(&app, "spring").await, teams(&app, "fall").await);
    let again = boss
        .get("/admin/leagues/spring/roster.csv")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(again, exported, "the same file, student ids and emails too");

    let before = app.tables().await;
    let r = admin
        .post_csv("/api/v1/leagues/spring/roster", &exported)
        .await;
    let report = json_with_status(r, 200, "the same file again").await;
    assert_eq!(report["teams"], json!({"new": 0, "updated": 0}));
    assert_eq!(report["players"], json!({"new": 0, "updated": 0}));
    assert!(
        report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["message"] == "no change"),
        "{report}"
    );
    app.assert_nothing_written(&before, "the same roster again")
        .await;
}

#[actix_web::test]
async fn a_team_the_league_has_gains_players_and_changes_by_student_id() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    league(&admin, "fall").await;
    let r = admin
        .post_csv("/api/v1/leagues/fall/roster", &ten_teams())
        .await;
    json_with_status(r, 200, "import").await;
    let update = "student id,player,team,email\n\
                  S1000,Player Zero,team 0,zero@example.edu\n\
                  ,Newcomer,Team 0,\n";
    let r = admin.post_csv("/api/v1/leagues/fall/roster", update).await;
    let report = json_with_status(r, 200, "update").await;
    assert_eq!(report["teams"], json!({"new": 0, "updated": 1}));
    assert_eq!(report["players"], json!({"new": 1, "updated": 1}));
    assert_eq!(
        teams(&app, "fall").await[0].2,
        ["Player Zero", "Player 1", "Newcomer"]
    );
    let r = admin.get("/api/v1/leagues/fall/teams").await;
    let team = json_with_status(r, 200, "teams").await["teams"][0]["id"].clone();
    let r = admin.get(&format!("/api/v1/teams/{team}/roster")).await;
    let roster = json_with_status(r, 200, "roster").await;
    let zero = &roster["players"][0];
    assert_eq!(zero["email"], "zero@example.edu", "the email the file gave");
    assert_eq!(
        zero["student_id"], "S1000",
        "the student id it was found by"
    );
    assert_eq!(
        zero["captain"], true,
        "kept: the file has no captain column"
    );
}

#[actix_web::test]
async fn the_roster_route_takes_csv_from_admins_only() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    league(&admin, "fall").await;
    let r = admin
        .post("/api/v1/leagues/fall/roster", &json!({"csv": "x"}))
        .await;
    expect_error(r, 415, "unsupported_media_type").await;
    let r = admin
        .client
        .post(app.url("/api/v1/leagues/fall/roster"))
        .bearer_auth(&admin.token)
        .header("content-type", "text/csv")
        .body(vec![0xff, 0xfe, b'a'])
        .send()
        .await
        .unwrap();
    let error = expect_error(r, 422, "invalid_roster").await;
    assert!(error["message"].as_str().unwrap().contains("UTF-8"));
    let r = admin.post_csv("/api/v1/leagues/fall/roster", "\n\n").await;
    expect_error(r, 422, "invalid_roster").await;
    let r = admin
        .post_csv("/api/v1/leagues/fall/roster?dry_run=maybe", "a,b,c\n")
        .await;
    expect_error(r, 400, "malformed").await;
    let r = admin
        .post_csv("/api/v1/leagues/none/roster", "a,b,c\n")
        .await;
    expect_error(r, 404, "not_found").await;
    let sue = app.api_user("sue", Role::Supervisor).await;
    let r = sue.post_csv("/api/v1/leagues/fall/roster", "a,b,c\n").await;
    expect_error(r, 403, "forbidden").await;
}

#[actix_web::test]
async fn the_page_previews_every_row_and_imports_only_a_clean_file() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    league(&admin, "fall").await;
    let boss = app.browser("coord").await;
    let bad = "team,division,player\nAces,East,Ann\nAces,East,Al\nLonely,West,Lou\n";
    let before = app.tables().await;
    for confirm in ["0", "1"] {
        let r = boss
            .post_form(
                "/admin/leagues/fall/import",
                &[("csv", bad), ("confirm", confirm)],
            )
            .await;
        assert_eq!(r.status(), 422);
        let html = unescape(&r.text().await.unwrap());
        assert!(
            html.contains("1 row has an error: nothing was imported"),
            "{html}"
        );
        assert!(
            html.contains("class=\"error-summary\""),
            "a summary at the top"
        );
        assert!(html.contains("a team has 2 to 8 active players, not 1"));
        assert!(html.contains(">East<"), "the division as read");
        assert!(html.contains(bad.trim_end()), "what was typed is kept");
        assert!(
            !html.contains("name=\"confirm\" value=\"1\""),
            "no import button"
        );
    }
    app.assert_nothing_written(&before, "a file with an error")
        .await;

    let good = "team,division,player\nAces,East,Ann\nAces,East,Al\n";
    let r = boss
        .post_form(
            "/admin/leagues/fall/import",
            &[("csv", good), ("confirm", "0")],
        )
        .await;
    let html = unescape(&r.text().await.unwrap());
    assert!(html.contains("2 rows: 2 good."), "{html}");
    assert!(html.contains("Importing adds 1 team"), "{html}");
    assert!(html.contains("makes 1 division"), "{html}");
    assert!(html.contains("data-fills=\"csv\""), "a file can be chosen");
    let r = boss
        .post_form(
            "/admin/leagues/fall/import",
            &[("csv", good), ("confirm", "1")],
        )
        .await;
    assert_eq!(r.status(), 303);
    assert_eq!(
        teams(&app, "fall").await,
        [(
            "Aces".to_string(),
            "East".to_string(),
            vec!["Ann".to_string(), "Al".to_string()]
        )]
    );
}
