//! A row that does not read (left by an old import, a hand-edited file, a restore from
//! elsewhere) never breaks a page every league shares: the home page, the league lists, the
//! scoreboard and the TV, and the supervisors' list leave the row's league or match out, log
//! it, and answer 200; archiving that league still answers what it did; `check` names each
//! bad row and goes on past the first.

use serde_json::json;
use spades_im::service::Role;

use crate::concurrency::{cli_async, db_path, stdout};
use crate::helpers::{TestApp, json_with_status, spawn_app};
use crate::playoffs::{a_hand, season};

async fn plant(app: &TestApp, sql: &str, id: i64) {
    let done = spades_im::on_store!(app.db.read_latest().await.unwrap(), |c| sqlx::query(
        sqlx::AssertSqlSafe(sql.to_string())
    )
    .bind(id)
    .execute(c)
    .await
    .map(|r| r.rows_affected()))
    .unwrap();
    assert_eq!(done, 1, "{sql}");
}

const SHARED: &[&str] = &[
    "/",
    "/leagues",
    "/api/v1/leagues",
    "/api/v1/leagues?archived=true",
    "/scoreboard",
    "/scoreboard?tv=1",
    "/api/v1/scoreboard",
];

#[actix_web::test]
async fn one_leagues_bad_rows_leave_the_shared_pages_answering() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    // A good league in play, seen on every shared page.
    let good = app.league(&admin, "good", json!("unc-im-300"), 2).await;
    let m = admin.add_match("good", good[0], good[1], "T1").await;
    admin
        .play_hands(m["id"].as_i64().unwrap(), &[a_hand()])
        .await;
    // A league with a bracket, one with a match in play, one whose own row is bad.
    season(&app, &admin, "cup", 4).await;
    let r = admin
        .post(
            "/api/v1/leagues/cup/playoffs",
            &json!({"format": "single_elimination"}),
        )
        .await;
    json_with_status(r, 201, "playoffs").await;
    let live = app.league(&admin, "live", json!("unc-im-300"), 2).await;
    let lm = admin.add_match("live", live[0], live[1], "T2").await;
    let lm = lm["id"].as_i64().unwrap();
    admin.play_hands(lm, &[a_hand()]).await;
    app.league(&admin, "broken", json!("unc-im-300"), 2).await;
    let id_of = |slug: &'static str| {
        let admin = &admin;
        async move {
            let r = admin.get(&format!("/api/v1/leagues/{slug}")).await;
            json_with_status(r, 200, slug).await["id"].as_i64().unwrap()
        }
    };
    let (cup, broken) = (id_of("cup").await, id_of("broken").await);

    plant(
        &app,
        "UPDATE brackets SET teams = 3 WHERE league_id = $1",
        cup,
    )
    .await;
    plant(
        &app,
        "UPDATE matches SET started_at = 'soon' WHERE id = $1",
        lm,
    )
    .await;
    plant(
        &app,
        "UPDATE leagues SET created_at = 'then' WHERE id = $1",
        broken,
    )
    .await;

    for path in SHARED {
        let r = app.get(path).await;
        assert_eq!(r.status(), 200, "{path}");
        let body = r.text().await.unwrap();
        if !path.contains("archived") {
            assert!(body.contains("good"), "{path}: the good league is shown");
        }
    }
    let r = app.browser("coord").await.get("/supervise").await;
    assert_eq!(r.status(), 200, "/supervise");
    assert!(
        r.text().await.unwrap().contains("Team 1"),
        "the good match is listed"
    );
    let leagues = json_with_status(app.get("/api/v1/leagues").await, 200, "leagues").await;
    let slugs: Vec<&str> = leagues["leagues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["slug"].as_str().unwrap())
        .collect();
    assert!(
        slugs.contains(&"cup") && !slugs.contains(&"broken"),
        "{slugs:?}"
    );

    // Archiving the league of the bad bracket answers what it did, both ways.
    let r = admin
        .post(
            "/api/v1/leagues/cup/archive",
            &json!({"unplayed": "cancel"}),
        )
        .await;
    assert_eq!(json_with_status(r, 200, "archive").await["archived"], true);
    let r = admin
        .post("/api/v1/leagues/cup/unarchive", &json!({}))
        .await;
    assert_eq!(
        json_with_status(r, 200, "unarchive").await["archived"],
        false
    );

    // `check` names each bad row with its league, table and id, and fails.
    let out = cli_async(&db_path(&app).await, &["check"]).await;
    assert!(!out.status.success());
    let said = stdout(&out);
    for expected in [
        format!("league {broken} (broken): leagues {broken}: /league/created_at: "),
        format!(" (live): matches {lm}: /matches/0/started_at: "),
        format!("league {cup} (cup): brackets "),
    ] {
        assert!(said.contains(&expected), "{expected}:\n{said}");
    }
}
