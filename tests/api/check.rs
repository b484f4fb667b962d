//! `check`: the totals cached on every match against a replay of its hands, and each team's
//! standings record against the finished matches, through the command line on the server's
//! database; `check --rebuild` puts the records right.

use crate::concurrency::{cli_async, db_path, stderr, stdout};
use crate::generate::small_season;
use crate::helpers::spawn_app;
use spades_im::domain::MatchStatus;

#[actix_web::test]
async fn check_finds_every_cached_total_that_differs_from_the_hands() {
    let app = spawn_app().await;
    let g = small_season(&app, 11).await;
    let db = db_path(&app).await;

    // As written by the service: everything agrees, while the server runs.
    let out = cli_async(&db, &["check"]).await;
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("checked 40 matches (400 hands): every cached total agrees"),
        "{}",
        stdout(&out)
    );

    // Two matches whose cache no longer says what their hands do.
    let mut conn = app.db.read().await.unwrap();
    let summaries = spades_im::service::views::summaries::summaries(&mut conn, g.league_id)
        .await
        .unwrap();
    drop(conn);
    let complete: Vec<_> = summaries
        .iter()
        .filter(|s| s.status == MatchStatus::Complete)
        .collect();
    let (shifted, reopened) = (complete[0], complete[1]);
    spades_im::on_store!(app.db.read_latest().await.unwrap(), |c| sqlx::query(
        "UPDATE matches SET score_a = score_a + 10 WHERE id = $1"
    )
    .bind(shifted.id)
    .execute(c)
    .await
    .map(|r| r.rows_affected()))
    .unwrap();
    spades_im::on_store!(app.db.read_latest().await.unwrap(), |c| sqlx::query(
        "UPDATE matches SET status = 'in_progress', hands_played = 1 WHERE id = $1"
    )
    .bind(reopened.id)
    .execute(c)
    .await
    .map(|r| r.rows_affected()))
    .unwrap();

    let out = cli_async(&db, &["check"]).await;
    assert!(!out.status.success(), "a difference fails the check");
    let listed = stdout(&out);
    assert!(
        listed.contains(&format!(
            "match {}: score_a is {}, the hands give {}",
            shifted.id,
            i64::from(shifted.a.score) + 10,
            shifted.a.score
        )),
        "{listed}"
    );
    assert!(
        listed.contains(&format!(
            "match {}: hands_played is 1, the hands give {}",
            reopened.id, reopened.hands
        )),
        "{listed}"
    );
    assert!(
        listed.contains(&format!(
            "match {}: status is InProgress, the hands give Complete",
            reopened.id
        )),
        "{listed}"
    );
    assert_eq!(listed.lines().count(), 3, "only those: {listed}");
    assert!(
        stderr(&out).contains("3 cached values differ from the hands or the matches"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("check --rebuild"), "{}", stderr(&out));
}

#[actix_web::test]
async fn check_finds_a_team_record_that_differs_from_the_matches_and_rebuild_fixes_it() {
    let app = spawn_app().await;
    let g = small_season(&app, 12).await;
    let db = db_path(&app).await;
    let (team, name, won, played): (i64, String, i64, i64) =
        spades_im::on_store!(app.db.read().await.unwrap(), |c| {
            sqlx::query_as(
        "SELECT t.id, t.name, r.won, r.played FROM team_records r JOIN teams t ON t.id = r.team_id
         WHERE t.league_id = $1 AND r.won > 0 ORDER BY t.id LIMIT 1",
    )
    .bind(g.league_id)
    .fetch_one(c)
    .await
        })
        .unwrap();
    spades_im::on_store!(app.db.read_latest().await.unwrap(), |c| sqlx::query(
        "UPDATE team_records SET won = won + 2, level_won = level_won + 1 WHERE team_id = $1"
    )
    .bind(team)
    .execute(c)
    .await
    .map(|r| r.rows_affected()))
    .unwrap();
    spades_im::on_store!(app.db.read_latest().await.unwrap(), |c| sqlx::query(
        "DELETE FROM head_to_head WHERE team_id = $1"
    )
    .bind(team)
    .execute(c)
    .await
    .map(|r| r.rows_affected()))
    .unwrap();
    let complete: i64 = spades_im::on_store!(app.db.read().await.unwrap(), |c| sqlx::query_scalar(
        "SELECT count(*) FROM matches WHERE league_id = $1 AND status = 'complete'",
    )
    .bind(g.league_id)
    .fetch_one(c)
    .await)
    .unwrap();
    spades_im::on_store!(app.db.read_latest().await.unwrap(), |c| sqlx::query(
        "UPDATE match_counts SET n = n + 5 WHERE league_id = $1 AND status = 'complete'"
    )
    .bind(g.league_id)
    .execute(c)
    .await
    .map(|r| r.rows_affected()))
    .unwrap();

    let out = cli_async(&db, &["check"]).await;
    assert!(!out.status.success(), "a difference fails the check");
    let listed = stdout(&out);
    assert!(
        listed.contains(&format!(
            "team {team} ({name}): won is {}, the matches give {won}",
            won + 2
        )),
        "{listed}"
    );
    assert!(
        listed.contains(&format!(
            "league {}: the count of complete matches is {}, the matches give {complete}",
            g.league_id,
            complete + 5
        )),
        "{listed}"
    );
    // Its record against the teams level with it, which the tiebreak reads.
    assert!(
        listed.lines().any(|l| l.starts_with(&format!(
            "team {team} ({name}): the record against the teams level with it is "
        ))),
        "{listed}"
    );
    // Every opponent's record went with the delete: one line each, adding up to `played`.
    let against: Vec<&str> = listed
        .lines()
        .filter(|l| l.contains("the record against team") && l.contains("is 0 played"))
        .collect();
    assert!(!against.is_empty(), "{listed}");
    let games: i64 = against
        .iter()
        .map(|l| {
            let given = l.split("the matches give ").nth(1).unwrap();
            given.split(' ').next().unwrap().parse::<i64>().unwrap()
        })
        .sum();
    assert_eq!(games, played, "{listed}");
    // The standings show the damaged record until it is rebuilt.
    let rows: serde_json::Value = app
        .get("/api/v1/leagues/gen/standings")
        .await
        .json()
        .await
        .unwrap();
    let shown = |rows: &serde_json::Value| {
        rows["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["team_id"] == team)
            .map(|r| r["won"].as_i64().unwrap())
    };
    assert_eq!(shown(&rows), Some(won + 2), "{rows}");

    let out = cli_async(&db, &["check", "--rebuild"]).await;
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("rebuilt the standings records of 9 teams and the counts"),
        "{}",
        stdout(&out)
    );
    let rows: serde_json::Value = app
        .get("/api/v1/leagues/gen/standings")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(shown(&rows), Some(won), "{rows}");
    let report = spades_im::service::check::check(&app.db).await.unwrap();
    assert!(report.differences.is_empty(), "{:?}", report.differences);
}
