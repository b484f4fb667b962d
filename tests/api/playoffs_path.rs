//! A playoff result moves the bracket along its path only (its winner's and loser's next
//! matches), from the results kept on the bracket (migration 0014); a correction, a reset or
//! a forfeit replays the whole bracket. Both must leave the same bracket: after every result
//! of random play-outs of every format, with byes, corrections and forfeits mixed in, `check`
//! finds the stored seeds, real matches and results equal to a whole replay of the real
//! matches.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Value, json};
use spades_im::service::{Role, check};

use crate::helpers::{Api, TestApp, json_with_status, spawn_app};

/// The hand that decides a match to 100 at once: the winner bids and takes 10.
fn deciding_hand(a_wins: bool) -> Value {
    let (w, l) = (
        json!({"bids": [5, 5], "tricks": [5, 5]}),
        json!({"bids": [2, 2], "tricks": [2, 1]}),
    );
    if a_wins {
        json!({"a": w, "b": l})
    } else {
        json!({"a": l, "b": w})
    }
}

/// A bracket to play: its size and format, and a choice per step (who wins, and whether
/// the step is a forfeit or a correction of an earlier result instead).
#[derive(Debug, Clone)]
struct Case {
    teams: usize,
    format: Value,
    steps: Vec<(bool, u8)>,
}

fn case() -> impl Strategy<Value = Case> {
    let format = prop_oneof![
        Just(json!({"format": "single_elimination"})),
        Just(json!({"format": "single_elimination", "third_place": true})),
        Just(json!({"format": "double_elimination", "grand_final": "none"})),
        Just(json!({"format": "double_elimination", "grand_final": "simple"})),
        Just(json!({"format": "double_elimination", "grand_final": "double"})),
    ];
    (
        4usize..=12,
        format,
        proptest::collection::vec((any::<bool>(), 0u8..20), 40),
    )
        .prop_map(|(teams, format, steps)| Case {
            teams,
            format,
            steps,
        })
}

#[actix_web::test]
async fn a_result_on_its_path_leaves_the_bracket_a_whole_replay_gives() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let mut runner = TestRunner::new(Config {
        cases: 10,
        ..Config::default()
    });
    for n in 0..10 {
        let c = case().new_tree(&mut runner).expect("a case").current();
        let slug = format!("b{n}");
        let r = admin
            .post(
                "/api/v1/leagues",
                &json!({"name": slug, "slug": slug,
                        "rules": {"regular": "unc-im-500",
                                  "playoff": {"preset": "partnership", "target": 100},
                                  "final": {"preset": "partnership", "target": 100}}}),
            )
            .await;
        json_with_status(r, 201, "league").await;
        for i in 1..=c.teams {
            let r = admin
                .post(
                    &format!("/api/v1/leagues/{slug}/teams"),
                    &json!({"name": format!("Team {i}"), "players": ["P1", "P2"]}),
                )
                .await;
            json_with_status(r, 201, "team").await;
        }
        let mut body = c.format.clone();
        body["force"] = json!(true);
        let r = admin
            .post(&format!("/api/v1/leagues/{slug}/playoffs"), &body)
            .await;
        json_with_status(r, 201, "playoffs").await;
        agree(&app, &format!("{c:?}, created")).await;
        for (k, (a_wins, kind)) in c.steps.iter().enumerate() {
            let when = format!("{c:?}, step {k}");
            if !step(&admin, &slug, *a_wins, *kind).await {
                break;
            }
            agree(&app, &when).await;
        }
        let bracket = bracket(&admin, &slug).await;
        assert!(
            bracket["champion"].is_object(),
            "{c:?}: every match played: {bracket}"
        );
    }
}

async fn bracket(admin: &Api, slug: &str) -> Value {
    json_with_status(
        admin.get(&format!("/api/v1/leagues/{slug}/bracket")).await,
        200,
        "bracket",
    )
    .await
}

/// One step: the first match waiting to be played is decided by a hand (or forfeited by
/// the loser when `kind` is 0), and when `kind` is 1 the latest decided match is corrected
/// to the other winner first (refused once its next matches started: no reset). `false`
/// once no match is left to play.
async fn step(admin: &Api, slug: &str, a_wins: bool, kind: u8) -> bool {
    let b = bracket(admin, slug).await;
    let matches = b["matches"].as_array().expect("matches");
    if kind == 1
        && let Some(done) = matches
            .iter()
            .filter(|m| m["status"] == "complete")
            .max_by_key(|m| m["match_id"].as_i64())
    {
        let id = done["match_id"].as_i64().expect("id");
        let m: Value = admin
            .get(&format!("/api/v1/matches/{id}"))
            .await
            .json()
            .await
            .expect("match");
        let flipped = deciding_hand(done["winner"] != "a");
        let r = admin
            .correct_hand(&m, 1, &flipped, "the other team won", false)
            .await;
        let status = r.status().as_u16();
        assert!(matches!(status, 200 | 409), "correction: {status}");
    }
    // Read again: a correction may have reset the path and removed its next matches.
    let b = bracket(admin, slug).await;
    let matches = b["matches"].as_array().expect("matches");
    let Some(next) = matches
        .iter()
        .find(|m| m["status"] == "scheduled" && m["match_id"].is_i64())
    else {
        return false;
    };
    let id = next["match_id"].as_i64().expect("id");
    let started = admin.start_match(id).await;
    if kind == 0 {
        let r = admin
            .post(
                &format!("/api/v1/matches/{id}/forfeit"),
                &json!({"team": if a_wins { "b" } else { "a" },
                        "expected_version": started["version"]}),
            )
            .await;
        json_with_status(r, 200, "forfeit").await;
    } else {
        let m = admin.enter_hand(&started, &deciding_hand(a_wins)).await;
        assert_eq!(m["game_status"], "won", "{m}");
    }
    true
}

async fn agree(app: &TestApp, when: &str) {
    let report = check::check(&app.db).await.expect("check");
    let listed: Vec<String> = report.differences.iter().map(|d| d.to_string()).collect();
    assert!(listed.is_empty(), "{when}: {listed:#?}");
    let results: Vec<Option<String>> =
        spades_im::on_store!(app.db.read().await.unwrap(), |c| sqlx::query_scalar(
            "SELECT results FROM brackets"
        )
        .fetch_all(c)
        .await)
        .unwrap();
    assert!(results.iter().all(Option::is_some), "{when}: {results:?}");
}
