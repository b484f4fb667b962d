//! An 8-team double elimination played by entering hands, and corrected through the API
//! (docs/scoring.md §9.4, §9.5, §9.9; docs/api.md §8.4): a flipped winners'-bracket result
//! before the next matches start moves the winner on and re-routes the loser into its
//! losers'-bracket slot; once they have started the correction is refused with
//! `bracket_reset_needed`, naming the whole chain, and writes nothing; the admin's
//! confirmation cancels the chain and re-creates it with the right teams. A grand final won
//! by the losers'-bracket team creates the reset match; corrected so the winners'-bracket
//! team wins, the reset is `not_needed` (removed, or cancelled once played) and the champion
//! changes.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, TestApp, hand_of, json_with_status, spawn_app};

const SLUG: &str = "cup";

/// Team a 71, team b 41.
fn a_hand() -> Value {
    hand_of([4, 3], [5, 3], [2, 2], [3, 2])
}

/// Team a 41, team b 71.
fn b_hand() -> Value {
    hand_of([2, 2], [3, 2], [4, 3], [5, 3])
}

/// After an `a_hand`: team a 11 (set), team b 115: b wins.
fn b_over_a() -> Value {
    hand_of([3, 3], [1, 1], [4, 3], [6, 5])
}

/// After a `b_hand`: team a 41 + 83 = 124, team b 71 + 20 = 91: a wins.
fn a_over_b() -> Value {
    hand_of([4, 4], [6, 5], [1, 1], [1, 1])
}

/// A match of the bracket JSON by section, round and position.
fn at(b: &Value, section: &str, round: i64, position: i64) -> Value {
    b["matches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["bracket"] == section && m["round"] == round && m["position"] == position)
        .unwrap_or_else(|| panic!("no {section} round {round} position {position}"))
        .clone()
}

async fn bracket(app: &TestApp) -> Value {
    json_with_status(
        app.get(&format!("/api/v1/leagues/{SLUG}/bracket")).await,
        200,
        "bracket",
    )
    .await
}

async fn real(app: &TestApp, id: &Value) -> Value {
    let id = id.as_i64().expect("a real match");
    json_with_status(
        app.get(&format!("/api/v1/matches/{id}")).await,
        200,
        "match",
    )
    .await
}

fn seeds(m: &Value) -> (Value, Value) {
    (m["seed_a"].clone(), m["seed_b"].clone())
}

/// Plays the real match of bracket match `m` to 100 with two hands won by `side`.
async fn play(admin: &Api, m: &Value, side: char) -> Value {
    let id = m["match_id"].as_i64().expect("a real match to play");
    let hand = if side == 'a' { a_hand() } else { b_hand() };
    let done = admin.play_hands(id, &[hand.clone(), hand]).await;
    assert_eq!(done["status"], "complete");
    assert_eq!(done["winner"], side.to_string());
    done
}

/// Starts the real match of `m` and records one hand: it is under way.
async fn under_way(admin: &Api, m: &Value) -> Value {
    let id = m["match_id"].as_i64().expect("a real match");
    let started = admin.start_match(id).await;
    admin.enter_hand(&started, &a_hand()).await
}

/// What a refused request must leave as it was: the counter every write to leagues, teams,
/// matches, hands and brackets bumps, and the rows of hands, matches and the audit log.
async fn written(app: &TestApp) -> (i64, i64, i64, i64) {
    let mut conn = app.db.read().await.expect("reader");
    let mut count = async |sql: &str| -> i64 {
        spades_im::on_store!(conn, |c| sqlx::query_scalar(sqlx::AssertSqlSafe(
            sql.to_string()
        ))
        .fetch_one(c)
        .await)
        .expect(sql)
    };
    (
        count("SELECT n FROM data_version").await,
        count("SELECT count(*) FROM hands").await,
        count("SELECT count(*) FROM matches").await,
        count("SELECT count(*) FROM audit_log").await,
    )
}

/// The real match ids a `bracket_reset_needed` message names (`#57, #61`), sorted.
fn named(message: &str) -> Vec<i64> {
    let mut ids: Vec<i64> = message
        .split('#')
        .skip(1)
        .map(|s| {
            s.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse()
                .expect("a match id after #")
        })
        .collect();
    ids.sort();
    ids
}

fn sorted(ids: &[&Value]) -> Vec<i64> {
    let mut ids: Vec<i64> = ids.iter().map(|v| v.as_i64().unwrap()).collect();
    ids.sort();
    ids
}

#[actix_web::test]
async fn double_elimination_by_hands_with_corrections_resets_and_a_grand_final_flip() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Cup", "slug": SLUG, "rules": {
                "regular": "partnership",
                "playoff": {"preset": "partnership", "target": 100},
                "final": {"preset": "partnership", "target": 100}}}),
        )
        .await;
    assert_eq!(r.status(), 201);
    // No regular season played: the standings are in name order, so seed n is "Team n".
    let mut team = vec![Value::Null];
    for i in 1..=8 {
        let t = json_with_status(
            admin
                .post(
                    &format!("/api/v1/leagues/{SLUG}/teams"),
                    &json!({"name": format!("Team {i}"), "players": [format!("P{i}a"), format!("P{i}b")]}),
                )
                .await,
            201,
            "team",
        )
        .await;
        team.push(json!({"id": t["id"], "name": t["name"]}));
    }
    let sup = app.api_user("sup", Role::Supervisor).await;
    let r = admin
        .post(
            &format!("/api/v1/leagues/{SLUG}/supervisors"),
            &json!({"username": "sup"}),
        )
        .await;
    assert_eq!(r.status(), 204);
    let b = json_with_status(
        admin
            .post(
                &format!("/api/v1/leagues/{SLUG}/playoffs"),
                &json!({"format": "double_elimination", "grand_final": "double"}),
            )
            .await,
        201,
        "playoffs",
    )
    .await;
    assert_eq!(b["matches"].as_array().unwrap().len(), 15);
    for (p, pair) in [(1, 8), (4, 5), (2, 7), (3, 6)].iter().enumerate() {
        let m = at(&b, "winners", 1, p as i64);
        assert_eq!(seeds(&m), (json!(pair.0), json!(pair.1)));
        assert_eq!((&m["team_a"], &m["team_b"]), (&team[pair.0], &team[pair.1]));
        assert_eq!(m["status"], "scheduled");
    }

    // Winners' round 1: seeds 1, 4, 2 and 3 win; 8 v 5 and 7 v 6 in losers' round 1.
    for p in 0..4 {
        play(&admin, &at(&b, "winners", 1, p), 'a').await;
    }
    let b = bracket(&app).await;
    assert_eq!(seeds(&at(&b, "winners", 2, 0)), (json!(1), json!(4)));
    assert_eq!(seeds(&at(&b, "winners", 2, 1)), (json!(2), json!(3)));
    assert_eq!(seeds(&at(&b, "losers", 1, 0)), (json!(8), json!(5)));
    assert_eq!(seeds(&at(&b, "losers", 1, 1)), (json!(7), json!(6)));

    // Winners' round 2 (1 beats 4, 2 beats 3) and losers' round 1, second match (7 beats 6).
    let w2 = play(&admin, &at(&b, "winners", 2, 0), 'a').await;
    play(&admin, &at(&b, "winners", 2, 1), 'a').await;
    play(&admin, &at(&b, "losers", 1, 1), 'a').await;
    let b = bracket(&app).await;
    let wr2 = at(&b, "winners", 2, 0);
    let wb_final = at(&b, "winners", 3, 0);
    let drop0 = at(&b, "losers", 2, 0);
    let drop1 = at(&b, "losers", 2, 1);
    // The winner goes to the winners' final, slot 0; the loser drops to losers' round 2,
    // position 1 (the crossed slot: the losers of winners' match q go to position q ^ 1, so
    // seed 4 meets the survivor of the other half, 7, not a team of its own quarter).
    assert_eq!(
        (&wr2["next_match"], &wr2["next_slot"]),
        (&wb_final["id"], &json!(0))
    );
    assert_eq!(
        (&wr2["loser_next_match"], &wr2["loser_next_slot"]),
        (&drop1["id"], &json!(1))
    );
    assert_eq!(seeds(&wb_final), (json!(1), json!(2)));
    assert_eq!(wb_final["status"], "scheduled");
    assert_eq!(seeds(&drop1), (json!(7), json!(4)));
    assert_eq!(drop1["status"], "scheduled");
    assert_eq!(seeds(&drop0), (Value::Null, json!(3)));
    assert_eq!(drop0["status"], "waiting");
    let wb_final_before = real(&app, &wb_final["match_id"]).await;
    let drop1_before = real(&app, &drop1["match_id"]).await;

    // 1. Winners' round 2 corrected before the next matches started: seed 4 wins. The
    // winners' final and the drop match keep their real matches, with the teams moved.
    let r = admin
        .correct_hand(&w2, 2, &b_over_a(), "seat 2 took 6", false)
        .await;
    let w2 = json_with_status(r, 200, "correction before the next matches").await;
    assert_eq!(
        (&w2["winner"], &w2["b"]["score"]),
        (&json!("b"), &json!(115))
    );
    let b = bracket(&app).await;
    let wb_final = at(&b, "winners", 3, 0);
    let drop1 = at(&b, "losers", 2, 1);
    assert_eq!(at(&b, "winners", 2, 0)["winner"], "b");
    assert_eq!(seeds(&wb_final), (json!(4), json!(2)));
    assert_eq!(
        (&wb_final["team_a"], &wb_final["team_b"]),
        (&team[4], &team[2])
    );
    assert_eq!(
        wb_final["match_id"], wb_final_before["id"],
        "the same real match"
    );
    assert_eq!(seeds(&drop1), (json!(7), json!(1)));
    assert_eq!((&drop1["team_a"], &drop1["team_b"]), (&team[7], &team[1]));
    assert_eq!(drop1["match_id"], drop1_before["id"], "the same real match");
    assert_eq!(
        seeds(&at(&b, "losers", 2, 0)),
        (Value::Null, json!(3)),
        "untouched"
    );
    for (now, before, a, b_) in [
        (&wb_final, &wb_final_before, 4, 2),
        (&drop1, &drop1_before, 7, 1),
    ] {
        // The real match itself, not only the bracket drawn from the results: its teams
        // moved and its version went up.
        let m = real(&app, &now["match_id"]).await;
        assert_eq!(
            (&m["team_a"], &m["team_b"]),
            (&team[a], &team[b_]),
            "real match {} has the moved teams",
            m["id"]
        );
        assert_eq!(m["status"], "scheduled");
        assert_eq!(m["version"], before["version"].as_i64().unwrap() + 1);
    }

    // The chain gets under way: losers' round 1 (8 beats 5), the drop matches (8 beats 3,
    // 7 beats 1), losers' round 3 (8 v 7) and the winners' final (4 v 2) started.
    play(&admin, &at(&b, "losers", 1, 0), 'a').await;
    let b = bracket(&app).await;
    play(&admin, &at(&b, "losers", 2, 0), 'a').await;
    play(&admin, &at(&b, "losers", 2, 1), 'a').await;
    let b = bracket(&app).await;
    let lr3 = at(&b, "losers", 3, 0);
    assert_eq!(seeds(&lr3), (json!(8), json!(7)));
    under_way(&admin, &lr3).await;
    under_way(&admin, &wb_final).await;

    // 2. Seed 1's win restored now: the winners' final (started), the drop match (played)
    // and losers' round 3 (started, fed by it) would change. Refused, naming all three;
    // nothing written.
    let b = bracket(&app).await;
    let chain = [
        at(&b, "winners", 3, 0)["match_id"].clone(),
        at(&b, "losers", 2, 1)["match_id"].clone(),
        at(&b, "losers", 3, 0)["match_id"].clone(),
    ];
    let mut reals = Vec::new();
    for id in chain
        .iter()
        .chain([&w2["id"], &at(&b, "losers", 2, 0)["match_id"]])
    {
        reals.push(real(&app, id).await);
    }
    let counts = written(&app).await;
    let r = admin
        .correct_hand(&w2, 2, &a_hand(), "it was right the first time", false)
        .await;
    let e = json_with_status(r, 409, "correction after the next matches started").await;
    assert_eq!(e["error"]["code"], "bracket_reset_needed");
    let message = e["error"]["message"].as_str().unwrap();
    assert_eq!(
        named(message),
        sorted(&chain.iter().collect::<Vec<_>>()),
        "{message}"
    );
    assert!(message.contains("reset_bracket_path"), "{message}");
    // A supervisor may not confirm.
    let r = sup
        .correct_hand(&w2, 2, &a_hand(), "it was right the first time", true)
        .await;
    assert_eq!(r.status(), 403);
    assert_eq!(written(&app).await, counts, "nothing written");
    assert_eq!(bracket(&app).await, b, "the bracket is as it was");
    for (i, id) in chain
        .iter()
        .chain([&w2["id"], &at(&b, "losers", 2, 0)["match_id"]])
        .enumerate()
    {
        assert_eq!(real(&app, id).await, reals[i], "match {id} is as it was");
    }

    // 3. The admin confirms (the same expected version still holds): the three are
    // cancelled with their hands kept, and re-created with the right teams where both are
    // known.
    let r = admin
        .correct_hand(&w2, 2, &a_hand(), "it was right the first time", true)
        .await;
    let w2 = json_with_status(r, 200, "the confirmed reset").await;
    assert_eq!(w2["winner"], "a");
    for (i, id) in chain.iter().enumerate() {
        let m = real(&app, id).await;
        assert_eq!(m["status"], "cancelled", "match {id}");
        assert_eq!(m["hands"], reals[i]["hands"], "match {id} keeps its hands");
    }
    let b = bracket(&app).await;
    let wb_final = at(&b, "winners", 3, 0);
    let drop1 = at(&b, "losers", 2, 1);
    let lr3 = at(&b, "losers", 3, 0);
    assert_eq!(seeds(&wb_final), (json!(1), json!(2)));
    assert_eq!(wb_final["status"], "scheduled");
    assert_ne!(wb_final["match_id"], chain[0]);
    assert_eq!(seeds(&drop1), (json!(7), json!(4)));
    assert_eq!(drop1["status"], "scheduled");
    assert_ne!(drop1["match_id"], chain[1]);
    assert_eq!(seeds(&lr3), (json!(8), Value::Null));
    assert_eq!(
        (&lr3["status"], &lr3["match_id"]),
        (&json!("waiting"), &Value::Null)
    );
    assert_eq!(
        at(&b, "losers", 2, 0)["status"],
        "complete",
        "not on the path"
    );
    for (m, a, b_) in [(&wb_final, 1, 2), (&drop1, 7, 4)] {
        let m = real(&app, &m["match_id"]).await;
        assert_eq!((&m["team_a"], &m["team_b"]), (&team[a], &team[b_]));
        assert_eq!(
            (&m["status"], &m["hands"]),
            (&json!("scheduled"), &json!([]))
        );
    }
    let mut conn = app.db.read().await.unwrap();
    let resets: Vec<i64> = spades_im::on_store!(conn, |c| {
        sqlx::query_scalar(
        "SELECT entity_id FROM audit_log WHERE action = 'reset_bracket_path' ORDER BY entity_id",
    )
    .fetch_all(c)
    .await
    })
    .unwrap();
    drop(conn);
    assert_eq!(resets, sorted(&chain.iter().collect::<Vec<_>>()));

    // Played on to the grand final: 1 wins the winners' bracket, 8 the losers' (7 beats 4,
    // 8 beats 7, 8 beats 2); the grand final 1 v 8 is won by 8, so the reset is played.
    loop {
        let b = bracket(&app).await;
        let ready: Vec<Value> = b["matches"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["status"] == "scheduled" && !(m["bracket"] == "final" && m["round"] == 2))
            .cloned()
            .collect();
        if ready.is_empty() {
            break;
        }
        for m in ready {
            let grand_final = m["bracket"] == "final";
            play(&admin, &m, if grand_final { 'b' } else { 'a' }).await;
        }
    }
    let b = bracket(&app).await;
    let gf = at(&b, "final", 1, 0);
    assert_eq!(seeds(&at(&b, "losers", 4, 0)), (json!(8), json!(2)));
    assert_eq!(seeds(&gf), (json!(1), json!(8)));
    assert_eq!(
        (&gf["status"], &gf["winner"]),
        (&json!("complete"), &json!("b"))
    );
    let reset = at(&b, "final", 2, 0);
    assert_eq!(seeds(&reset), (json!(8), json!(1)));
    assert_eq!(reset["status"], "scheduled");
    assert!(b["champion"].is_null(), "the reset decides");
    let reset_id = reset["match_id"].clone();
    let gf_match = real(&app, &gf["match_id"]).await;
    assert_eq!(gf_match["stage"], "final");

    // 4. The grand final corrected so the winners'-bracket team wins (124–91): the reset,
    // not started, is not needed and its match removed; 1 is the champion.
    let r = admin
        .correct_hand(&gf_match, 2, &a_over_b(), "seat 1 took 6", false)
        .await;
    let gf_match = json_with_status(r, 200, "grand final corrected").await;
    assert_eq!(
        (&gf_match["winner"], &gf_match["a"]["score"]),
        (&json!("a"), &json!(124))
    );
    let b = bracket(&app).await;
    let reset = at(&b, "final", 2, 0);
    assert_eq!(reset["status"], "not_needed");
    assert!(reset["match_id"].is_null());
    assert_eq!(b["champion"], team[1]);
    let id = reset_id.as_i64().unwrap();
    assert_eq!(
        app.get(&format!("/api/v1/matches/{id}")).await.status(),
        404
    );

    // Corrected back: 8 wins the grand final, the reset is created again and 8 wins it.
    let r = admin
        .correct_hand(&gf_match, 2, &b_hand(), "no, seat 2 took 5", false)
        .await;
    let gf_match = json_with_status(r, 200, "grand final corrected back").await;
    assert_eq!(gf_match["winner"], "b");
    let b = bracket(&app).await;
    let reset = at(&b, "final", 2, 0);
    assert_eq!(seeds(&reset), (json!(8), json!(1)));
    assert_eq!(reset["status"], "scheduled");
    assert!(b["champion"].is_null());
    play(&admin, &reset, 'a').await;
    let b = bracket(&app).await;
    let reset = at(&b, "final", 2, 0);
    assert_eq!(
        (&reset["status"], &reset["winner"]),
        (&json!("complete"), &json!("a"))
    );
    assert_eq!(b["champion"], team[8]);

    // 5. The grand final flipped once more, the reset already played: refused, naming the
    // reset; confirmed, the reset is cancelled and not needed, and 1 is the champion.
    let counts = written(&app).await;
    let r = admin
        .correct_hand(&gf_match, 2, &a_over_b(), "seat 1 took 6 after all", false)
        .await;
    let e = json_with_status(r, 409, "grand final after the reset").await;
    assert_eq!(e["error"]["code"], "bracket_reset_needed");
    assert_eq!(
        named(e["error"]["message"].as_str().unwrap()),
        [reset["match_id"].as_i64().unwrap()]
    );
    assert_eq!(written(&app).await, counts, "nothing written");
    assert_eq!(bracket(&app).await, b);
    let r = admin
        .correct_hand(&gf_match, 2, &a_over_b(), "seat 1 took 6 after all", true)
        .await;
    json_with_status(r, 200, "grand final after the reset, confirmed").await;
    let played_reset = real(&app, &reset["match_id"]).await;
    assert_eq!(played_reset["status"], "cancelled");
    assert_eq!(played_reset["hands"].as_array().unwrap().len(), 2);
    let b = bracket(&app).await;
    let reset = at(&b, "final", 2, 0);
    assert_eq!(
        (&reset["status"], &reset["match_id"]),
        (&json!("not_needed"), &Value::Null)
    );
    assert_eq!(b["champion"], team[1]);
}
