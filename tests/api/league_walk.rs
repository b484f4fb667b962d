//! A stateful property test of a whole league: random walks of starts, hands, corrections
//! (flips and un-finishing included), forfeits, time calls with the clock moving, and the
//! playoffs created and played. After every step, everything kept in a cache must equal a
//! computation from scratch:
//!
//! - each match's cached totals, state and hand count equal the replay of its stored hands;
//! - the league's standings (the API as a logged-in user sees it: the teams' records kept by
//!   triggers, never the page cache) equal standings computed afresh from the results;
//! - every public page and API read an anonymous visitor gets (the page cache, warmed by the
//!   previous step's reads) equals the same page rendered by a twin server without the page
//!   cache, on the same database and clock.
//!
//! Replay a failure with `LEAGUE_WALK_SEED=<n>` (printed on failure); `LEAGUE_WALK_CASES`
//! and `LEAGUE_WALK_STEPS` set the size (default 6 walks of 40 steps).
//! Planted bugs that fail it: the page cache ignoring `data_version` (a copy outlives a
//! change), and a correction not saving the match's totals.

use chrono::Duration;
use serde_json::{Value, json};
use spades_im::domain::LeagueId;
use spades_im::service::Role;

use crate::helpers::{Api, TestApp, manual_clock, spawn_app_with_clock};

/// splitmix64, for walks that replay from their seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<T: Clone>(&mut self, xs: &[T]) -> Option<T> {
        (!xs.is_empty()).then(|| xs[self.below(xs.len())].clone())
    }
}

/// A hand under unc-im-300 (team bids of 4 or more): numbers only, tricks adding to 13.
fn random_hand(rng: &mut Rng) -> Value {
    let a_taken = rng.below(14) as i64;
    let split = |rng: &mut Rng, total: i64| -> [i64; 2] {
        let first = rng.below(total as usize + 1) as i64;
        [first, total - first]
    };
    let bids = |rng: &mut Rng| -> [i64; 2] { [2 + rng.below(4) as i64, 2 + rng.below(4) as i64] };
    json!({
        "a": {"bids": bids(rng), "tricks": split(rng, a_taken)},
        "b": {"bids": bids(rng), "tricks": split(rng, 13 - a_taken)},
    })
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

#[actix_web::test]
async fn caches_equal_a_recomputation_after_every_step() {
    let cases = env_or("LEAGUE_WALK_CASES", 4);
    let steps = env_or("LEAGUE_WALK_STEPS", 30);
    let first = env_or("LEAGUE_WALK_SEED", 2026);
    let only_one = std::env::var("LEAGUE_WALK_SEED").is_ok();
    let mut done = std::collections::BTreeMap::new();
    for seed in first..first + if only_one { 1 } else { cases } {
        for what in walk(seed, steps).await {
            // "hand in 12: 201 Created" → "hand 201"
            let kind = what.split_whitespace().next().unwrap_or("").to_string();
            let ok = what.contains(": 20");
            *done.entry((kind, ok)).or_insert(0) += 1;
        }
    }
    println!("steps by kind and success: {done:?}");
    // Not a vacuous walk: every kind of change happened, and succeeded, somewhere.
    for kind in ["start", "hand", "correct", "forfeit", "playoffs"] {
        assert!(
            done.get(&(kind.to_string(), true)).copied().unwrap_or(0) > 0,
            "no successful {kind} in the walks: {done:?}"
        );
    }
}

/// One walk; returns what each step did.
async fn walk(seed: u64, steps: u64) -> Vec<String> {
    let mut log = Vec::new();
    let (clock, time) = manual_clock("2026-11-24T00:00:00Z", chrono_tz::America::Chicago);
    let app = spawn_app_with_clock(clock.clone()).await;
    let twin = app.uncached_twin(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    let mut rng = Rng(seed);
    let teams = app.league(&admin, "walk", json!("unc-im-300"), 5).await;
    let r = admin
        .post(
            "/api/v1/leagues/walk/schedule",
            &json!({"format": "round_robin"}),
        )
        .await;
    assert_eq!(r.status(), 201, "seed {seed}: schedule");
    assert_eq!(teams.len(), 5);
    let mut playoffs = false;
    for step in 0..steps {
        let matches: Vec<Value> = admin
            .get("/api/v1/leagues/walk/matches")
            .await
            .json::<Value>()
            .await
            .unwrap()["matches"]
            .as_array()
            .unwrap()
            .clone();
        let with = |status: &[&str]| -> Vec<Value> {
            matches
                .iter()
                .filter(|m| status.contains(&m["status"].as_str().unwrap_or("")))
                .cloned()
                .collect()
        };
        let what = match rng.below(10) {
            0 | 1 => start(&admin, &mut rng, &with(&["scheduled"])).await,
            2..=4 => hand(&admin, &mut rng, &with(&["in_progress"])).await,
            5 | 6 => correct(&admin, &mut rng, &with(&["in_progress", "complete"])).await,
            7 => forfeit(&admin, &mut rng, &with(&["scheduled", "in_progress"])).await,
            8 => {
                time.advance(Duration::minutes(rng.below(25) as i64));
                call_time(&admin, &mut rng, &with(&["in_progress"])).await
            }
            _ if !playoffs && step > steps / 2 => {
                playoffs = true;
                let format = ["single_elimination", "double_elimination"][rng.below(2)];
                let r = admin
                    // Mid-season on purpose (forced): the caches must follow both stages.
                    .post(
                        "/api/v1/leagues/walk/playoffs",
                        &json!({"format": format, "force": true}),
                    )
                    .await;
                format!("playoffs {format}: {}", r.status())
            }
            _ => hand(&admin, &mut rng, &with(&["in_progress"])).await,
        };
        check(&app, &admin, &twin, seed, step, &what).await;
        log.push(what);
    }
    log
}

async fn start(admin: &Api, rng: &mut Rng, scheduled: &[Value]) -> String {
    let Some(m) = rng.pick(scheduled) else {
        return "no match to start".into();
    };
    let r = admin
        .post(&format!("/api/v1/matches/{}/start", m["id"]), &json!({}))
        .await;
    format!("start {}: {}", m["id"], r.status())
}

async fn hand(admin: &Api, rng: &mut Rng, playing: &[Value]) -> String {
    let Some(m) = rng.pick(playing) else {
        return "no match in play".into();
    };
    let body = json!({"hand": random_hand(rng), "expected_version": m["version"]});
    let r = admin
        .post(&format!("/api/v1/matches/{}/hands", m["id"]), &body)
        .await;
    format!("hand in {}: {}", m["id"], r.status())
}

async fn correct(admin: &Api, rng: &mut Rng, played: &[Value]) -> String {
    let played: Vec<Value> = played
        .iter()
        .filter(|m| m["hands"].as_array().is_some_and(|h| !h.is_empty()))
        .cloned()
        .collect();
    let Some(m) = rng.pick(&played) else {
        return "no hand to correct".into();
    };
    let count = m["hands"].as_array().map_or(0, Vec::len);
    let number = 1 + rng.below(count);
    let body = json!({"hand": random_hand(rng), "reason": "walk", "expected_version": m["version"],
                      "reset_bracket_path": true});
    let r = admin
        .put(
            &format!("/api/v1/matches/{}/hands/{number}", m["id"]),
            &body,
        )
        .await;
    format!("correct hand {number} of {}: {}", m["id"], r.status())
}

async fn forfeit(admin: &Api, rng: &mut Rng, open: &[Value]) -> String {
    let Some(m) = rng.pick(open) else {
        return "no match to forfeit".into();
    };
    let team = ["a", "b", "both"][rng.below(3)];
    let mut body = json!({"team": team});
    if team == "both" && m["stage"] != "regular" {
        body["advance"] = json!(["a", "b"][rng.below(2)]);
    }
    let r = admin
        .post(&format!("/api/v1/matches/{}/forfeit", m["id"]), &body)
        .await;
    format!("forfeit {team} in {}: {}", m["id"], r.status())
}

async fn call_time(admin: &Api, rng: &mut Rng, playing: &[Value]) -> String {
    let Some(m) = rng.pick(playing) else {
        return "clock moved".into();
    };
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/time", m["id"]),
            &json!({"expected_version": m["version"]}),
        )
        .await;
    format!("call time in {}: {}", m["id"], r.status())
}

/// Everything cached equals a recomputation.
async fn check(app: &TestApp, admin: &Api, twin: &str, seed: u64, step: u64, what: &str) {
    let context = format!("LEAGUE_WALK_SEED={seed}, step {step} ({what})");
    let league: Value = admin
        .get("/api/v1/leagues/walk")
        .await
        .json()
        .await
        .unwrap();
    let matches: Vec<Value> = admin
        .get("/api/v1/leagues/walk/matches")
        .await
        .json::<Value>()
        .await
        .unwrap()["matches"]
        .as_array()
        .unwrap()
        .clone();
    // 1. Cached totals = the replay of the stored hands (the API replays them for the
    //    breakdown; the totals, state and count come from the cached columns).
    for m in &matches {
        let hands = m["hands"].as_array().unwrap();
        if let Some(last) = hands.last()
            && m["status"] != "forfeit"
        {
            assert_eq!(
                m["a"]["score"], last["a"]["score"],
                "{context}: match {} a",
                m["id"]
            );
            assert_eq!(
                m["b"]["score"], last["b"]["score"],
                "{context}: match {} b",
                m["id"]
            );
            assert_eq!(
                m["a"]["bags"], last["a"]["bags"],
                "{context}: match {} bags",
                m["id"]
            );
            assert_eq!(
                m["game_status"], last["status"],
                "{context}: match {} state",
                m["id"]
            );
            assert_eq!(
                m["winner"], last["winner"],
                "{context}: match {} winner",
                m["id"]
            );
        }
        let mut conn = app.db.read().await.unwrap();
        let counted: i64 = spades_im::on_store!(conn, |c| sqlx::query_scalar(
            "SELECT hands_played FROM matches WHERE id = $1"
        )
        .bind(m["id"].as_i64())
        .fetch_one(c)
        .await)
        .unwrap();
        assert_eq!(
            counted as usize,
            hands.len(),
            "{context}: match {} count",
            m["id"]
        );
    }
    // 2. The standings from the kept records = standings computed afresh.
    let cached: Value = admin
        .get("/api/v1/leagues/walk/standings")
        .await
        .json()
        .await
        .unwrap();
    let fresh = {
        let mut conn = app.db.read().await.unwrap();
        let row =
            spades_im::db::leagues::by_id(&mut conn, LeagueId(league["id"].as_i64().unwrap()))
                .await
                .unwrap()
                .unwrap();
        let league = spades_im::service::term::leagues::League::from_row(row).unwrap();
        let (rows, versus) = spades_im::service::views::standings::recomputed(&mut conn, &league)
            .await
            .unwrap();
        let level = spades_im::league::standings::level_records(&rows, &versus);
        spades_im::league::standings::ranked(rows, &level, &league.tiebreak_or_default())
    };
    let rows = cached["rows"].as_array().unwrap();
    assert_eq!(rows.len(), fresh.len(), "{context}: standings rows");
    for (got, want) in rows.iter().zip(&fresh) {
        let got = (
            got["team_id"].as_i64(),
            got["won"].as_u64(),
            got["lost"].as_u64(),
            got["tied"].as_u64(),
            got["forfeits"].as_u64(),
            got["points_for"].as_i64(),
            got["points_against"].as_i64(),
        );
        let want = (
            Some(want.team_id.0),
            Some(u64::from(want.won)),
            Some(u64::from(want.lost)),
            Some(u64::from(want.tied)),
            Some(u64::from(want.forfeits)),
            Some(want.points_for),
            Some(want.points_against),
        );
        assert_eq!(got, want, "{context}: standings");
    }
    // 3. Every page an anonymous visitor gets = the page rendered afresh.
    let mut paths: Vec<String> = [
        "/leagues",
        "/leagues/walk",
        "/leagues/walk/standings",
        "/leagues/walk/standings.csv",
        "/leagues/walk/schedule",
        "/leagues/walk/schedule?week=all",
        "/leagues/walk/bracket",
        "/scoreboard",
        "/api/v1/scoreboard",
        "/api/v1/leagues/walk/standings",
        "/api/v1/leagues/walk/matches",
        "/api/v1/leagues/walk/bracket",
    ]
    .map(String::from)
    .to_vec();
    for m in &matches {
        paths.push(format!("/matches/{}", m["id"]));
        paths.push(format!("/api/v1/matches/{}", m["id"]));
    }
    let anonymous = reqwest::Client::new();
    for path in &paths {
        let cached = anonymous.get(app.url(path)).send().await.unwrap();
        let cached_status = cached.status();
        let cached = cached.text().await.unwrap();
        let fresh = anonymous.get(format!("{twin}{path}")).send().await.unwrap();
        let fresh_status = fresh.status();
        let fresh = fresh.text().await.unwrap();
        assert_eq!(cached_status, fresh_status, "{context}: {path} status");
        if cached != fresh {
            let at = cached
                .chars()
                .zip(fresh.chars())
                .take_while(|(a, b)| a == b)
                .count();
            let around = |s: &str| {
                s.chars()
                    .skip(at.saturating_sub(80))
                    .take(200)
                    .collect::<String>()
            };
            panic!(
                "{context}: {path} differs from a fresh render at char {at}:\n cached: {}\n fresh:  {}",
                around(&cached),
                around(&fresh)
            );
        }
    }
}
