//! `check`: the totals cached on every match against a replay of its hands, through the
//! command line on the server's database.

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
    let mut conn = app.db.reader().acquire().await.unwrap();
    let summaries = spades_im::service::summaries::summaries(&mut conn, g.league_id)
        .await
        .unwrap();
    drop(conn);
    let complete: Vec<_> = summaries
        .iter()
        .filter(|s| s.status == MatchStatus::Complete)
        .collect();
    let (shifted, reopened) = (complete[0], complete[1]);
    sqlx::query("UPDATE matches SET score_a = score_a + 10 WHERE id = ?")
        .bind(shifted.id)
        .execute(app.db.writer())
        .await
        .unwrap();
    sqlx::query("UPDATE matches SET status = 'in_progress', hands_played = 1 WHERE id = ?")
        .bind(reopened.id)
        .execute(app.db.writer())
        .await
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
        stderr(&out).contains("3 cached values of 40 matches differ"),
        "{}",
        stderr(&out)
    );
}
