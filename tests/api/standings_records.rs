//! The standings records kept by triggers (migration 0012) against the whole computation:
//! after any sequence of played matches, corrections (that flip a winner or un-finish a
//! match), forfeits, ratings and cancellations, through the API, every team's record and
//! head-to-head record equal the sums over the finished matches, and the ranked standings
//! the pages show equal the standings computed from the matches. The sequences are drawn by
//! proptest; each case is a league of its own on one server.
//!
//! A step may be refused (a forfeit of a finished match...), but only with the codes its
//! kind can answer, and across the cases enough steps of every kind are done for the records
//! to have been moved by each: a run where, say, every correction was refused would check
//! nothing about corrections. Half of the steps act on a match they fit (a cancellation on one
//! not started...), the other half on any. Planted bug that fails that count: every
//! correction refused with 422 `invalid_hand` (a refusal the steps may get, so only the count
//! sees it).

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Value, json};
use spades_im::league::standings as league_standings;
use spades_im::service::Role;
use spades_im::service::{check, term::leagues, views::standings};

use crate::helpers::{Api, TestApp, hand_of, spawn_app};

/// How many sequences are tried, and the longest.
const CASES: u32 = 12;
const MAX_STEPS: usize = 24;
const TEAMS: usize = 5;

/// Hands that end games to 100 in one to three hands, with wins for either side and sets.
fn hand(choice: usize) -> Value {
    match choice % 4 {
        // a 83 (bid 8, took 11), b set (bid 4, took 2): −40.
        0 => hand_of([4, 4], [6, 5], [2, 2], [1, 1]),
        // b 83, a −40.
        1 => hand_of([2, 2], [1, 1], [4, 4], [6, 5]),
        // a 60, b 70.
        2 => hand_of([3, 3], [3, 3], [3, 4], [3, 4]),
        // a set (bid 10, took 4): −100; b 45 (bid 4, took 9).
        _ => hand_of([5, 5], [2, 2], [2, 2], [4, 5]),
    }
}

#[derive(Debug, Clone)]
enum Step {
    /// A new match between two teams, started and given up to these hands (it may stay in
    /// play when they do not end the game); with no hands it is not started (so that it can
    /// be forfeited before its start, or cancelled).
    Play {
        a: usize,
        b: usize,
        hands: Vec<usize>,
    },
    /// A forfeit of a match made so far (refused once it is over: that too is a step).
    Forfeit { pick: usize, team: usize },
    /// A correction of one hand of a match made so far.
    Correct {
        pick: usize,
        number: usize,
        hand: usize,
    },
    /// Sportsmanship ratings of a match made so far.
    Rate { pick: usize, a: i64, b: i64 },
    /// A cancellation of a match made so far (or, when none is waiting to be played, of a new
    /// one).
    Cancel { pick: usize },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..TEAMS, 1..TEAMS, proptest::collection::vec(0usize..4, 0..4))
            .prop_map(|(a, d, hands)| Step::Play { a, b: (a + d) % TEAMS, hands }),
        1 => (any::<usize>(), 0usize..3).prop_map(|(pick, team)| Step::Forfeit { pick, team }),
        3 => (any::<usize>(), 1usize..4, 0usize..4)
            .prop_map(|(pick, number, hand)| Step::Correct { pick, number, hand }),
        1 => (any::<usize>(), 1i64..=5, 1i64..=5).prop_map(|(pick, a, b)| Step::Rate { pick, a, b }),
        1 => any::<usize>().prop_map(|pick| Step::Cancel { pick }),
    ]
}

#[actix_web::test]
async fn the_kept_records_equal_the_standings_computed_from_the_matches() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    // A fixed seed: the same sequences every run, so the check below that every kind of step
    // was done at least once cannot fail by the luck of the draw (it did once in 12 cases).
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases: CASES,
            ..Config::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let strategy = proptest::collection::vec(step(), 1..MAX_STEPS);
    // Per kind of step: how many were tried and how many were done (2xx).
    let mut tried: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for case in 0..CASES {
        let steps = strategy
            .new_tree(&mut runner)
            .expect("a sequence")
            .current();
        let slug = format!("p{case}");
        let teams = app
            .league(
                &admin,
                &slug,
                json!({"preset": "unc-im-300", "target": 100}),
                TEAMS,
            )
            .await;
        let r = admin
            .client
            .patch(app.url(&format!("/api/v1/leagues/{slug}")))
            .bearer_auth(&admin.token)
            .json(
                &json!({"settings": {"sportsmanship": {"min": 1, "max": 5, "forfeit_rating": 1}}}),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
        let mut made: Vec<i64> = Vec::new();
        for (n, s) in steps.iter().enumerate() {
            if let Some((kind, done)) = run(&admin, &slug, &teams, &mut made, s).await {
                let tally = tried.entry(kind).or_default();
                tally.0 += 1;
                tally.1 += usize::from(done);
            }
            agree(&app, &slug, &format!("case {case}, step {n} of {steps:?}")).await;
        }
    }
    eprintln!("steps tried and done: {tried:?}");
    for kind in ["play", "forfeit", "correction", "rating", "cancellation"] {
        let (tries, done) = tried.get(kind).copied().unwrap_or_default();
        assert!(done >= 1, "no {kind} was done ({tries} tried): {tried:?}");
    }
    // Every play is done (its requests are checked as they go), and most corrections are
    // (a correction is refused only on a match forfeited or cancelled, or when it would end
    // the game before a later hand).
    let (plays, played) = tried["play"];
    assert_eq!(played, plays, "plays");
    let (corrections, corrected) = tried["correction"];
    assert!(
        corrected * 2 >= corrections,
        "only {corrected} of {corrections} corrections were done"
    );
}

/// Runs one step; its kind and whether it was done, or `None` when there was nothing to do
/// it on (no match yet, no hand to correct).
async fn run(
    admin: &Api,
    slug: &str,
    teams: &[i64],
    made: &mut Vec<i64>,
    s: &Step,
) -> Option<(&'static str, bool)> {
    match s {
        Step::Play { a, b, hands } => {
            let m = admin.add_match(slug, teams[*a], teams[*b], "T1").await;
            let id = m["id"].as_i64().expect("id");
            made.push(id);
            if hands.is_empty() {
                return Some(("play", true));
            }
            let mut m = admin.start_match(id).await;
            for h in hands {
                if m["status"] != "in_progress" {
                    break;
                }
                m = admin.enter_hand(&m, &hand(*h)).await;
            }
            Some(("play", true))
        }
        Step::Forfeit { pick: p, team } => {
            let m = choose(admin, made, *p, &["scheduled", "in_progress"]).await?;
            let id = &m["id"];
            let who = ["a", "b", "both"][*team];
            let r = admin
                .post(
                    &format!("/api/v1/matches/{id}/forfeit"),
                    &json!({"team": who, "expected_version": m["version"]}),
                )
                .await;
            let done = refused_only_as_expected(r, "forfeit", &["match_closed"]).await;
            Some(("forfeit", done))
        }
        Step::Correct {
            pick: p,
            number,
            hand: h,
        } => {
            let m = choose(admin, made, *p, &["in_progress", "complete"]).await?;
            let played = m["hands"].as_array().map_or(0, Vec::len);
            if played == 0 {
                return None;
            }
            let number = (number - 1) % played + 1;
            let r = admin
                .correct_hand(&m, number as i64, &hand(*h), "entered wrong", false)
                .await;
            let done = refused_only_as_expected(
                r,
                "correction",
                &["match_closed", "invalid_hand", "game_over"],
            )
            .await;
            Some(("correction", done))
        }
        Step::Rate { pick: p, a, b } => {
            let m = choose(admin, made, *p, &["complete"]).await?;
            let id = &m["id"];
            let r = admin
                .post(
                    &format!("/api/v1/matches/{id}/sportsmanship"),
                    &json!({"a": a, "b": b}),
                )
                .await;
            let done =
                refused_only_as_expected(r, "rating", &["match_not_over", "invalid_rating"]).await;
            Some(("rating", done))
        }
        Step::Cancel { pick: p } => {
            let m = match choose(admin, made, *p, &["scheduled"]).await {
                Some(m) if !p.is_multiple_of(2) || m["status"] == "scheduled" => m,
                // Nothing waiting to be played: a new match, cancelled before it starts.
                _ => {
                    let m = admin.add_match(slug, teams[0], teams[1], "T2").await;
                    made.push(m["id"].as_i64().expect("id"));
                    m
                }
            };
            let id = &m["id"];
            let r = admin
                .post(
                    &format!("/api/v1/matches/{id}/cancel"),
                    &json!({"reason": "rec center closed", "expected_version": m["version"]}),
                )
                .await;
            let done =
                refused_only_as_expected(r, "cancellation", &["match_started", "match_closed"])
                    .await;
            Some(("cancellation", done))
        }
    }
}

/// The match a step acts on, as it is now (`None` before the first match): for an even `pick`,
/// one of the matches made so far whose status is one of `fit` (what the step can act on, so
/// that every kind of step is done often), if any; otherwise any of them (so that refusals
/// are tried too).
async fn choose(admin: &Api, made: &[i64], pick: usize, fit: &[&str]) -> Option<Value> {
    if made.is_empty() {
        return None;
    }
    if pick.is_multiple_of(2) {
        let mut fitting = Vec::new();
        for id in made {
            let m = current(admin, *id).await;
            if m["status"].as_str().is_some_and(|s| fit.contains(&s)) {
                fitting.push(m);
            }
        }
        if !fitting.is_empty() {
            let at = (pick / 2) % fitting.len();
            return Some(fitting.swap_remove(at));
        }
    }
    Some(current(admin, made[pick % made.len()]).await)
}

async fn current(admin: &Api, id: i64) -> Value {
    admin
        .get(&format!("/api/v1/matches/{id}"))
        .await
        .json()
        .await
        .expect("match")
}

/// Whether the step was done (200 or 201). It may be refused (a forfeit of a finished
/// match, a rating of one not over, a correction that would leave hands after the end), but
/// only with one of the error `codes` its kind can answer; never fail.
async fn refused_only_as_expected(r: reqwest::Response, what: &str, codes: &[&str]) -> bool {
    let status = r.status().as_u16();
    let body = r.text().await.unwrap_or_default();
    if matches!(status, 200 | 201) {
        return true;
    }
    let code = serde_json::from_str::<Value>(&body)
        .ok()
        .and_then(|v| v["error"]["code"].as_str().map(String::from));
    assert!(
        matches!(status, 409 | 422) && code.as_deref().is_some_and(|c| codes.contains(&c)),
        "{what}: {status} {body} (refusals expected: {codes:?})"
    );
    false
}

/// `check` finds nothing, and the standings from the kept records are the standings
/// computed from the matches, rank for rank.
async fn agree(app: &TestApp, slug: &str, when: &str) {
    let report = check::check(&app.db).await.expect("check");
    let listed: Vec<String> = report.differences.iter().map(|d| d.to_string()).collect();
    assert!(listed.is_empty(), "{when}: {listed:#?}");
    let mut conn = app.db.read().await.unwrap();
    let league = leagues::league_by_slug(&mut conn, &slug.parse().unwrap())
        .await
        .unwrap();
    let kept = standings::standings(&mut conn, &league).await.unwrap();
    let (rows, versus) = standings::recomputed(&mut conn, &league).await.unwrap();
    let level = league_standings::level_records(&rows, &versus);
    let computed = league_standings::ranked(rows, &level, &league.tiebreak_or_default());
    assert_eq!(kept, computed, "{when}");
}
