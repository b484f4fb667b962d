//! Helpers shared by the engine tests: rules from JSON, hands from JSON, games played through
//! the engine and requests scored through the calculator.

use serde_json::{Value, json};

use crate::FieldError;
use crate::calculator::{ScoreResponse, score_json};
use crate::game::{Game, ScoredHand};
use crate::hand::{Hand, HandError, HandInput};
use crate::params::{Rules, RulesSpec};
use crate::state::{Stage, TeamTotal};

/// The presets' names, as the tests of every rule under each preset go through them.
pub const PRESETS: [&str; 5] = [
    "chicago-im",
    "unc-im-300",
    "unc-im-500",
    "classic",
    "partnership",
];

/// Rules from their JSON spec (a preset name or an object with overrides); panics if invalid.
pub fn rules(spec: Value) -> Rules {
    let spec: RulesSpec = serde_json::from_value(spec.clone()).expect("rules spec shape");
    spec.resolve()
        .unwrap_or_else(|e| panic!("rules {spec:?} should resolve: {}", e.message))
}

/// A preset's rules.
pub fn preset(name: &str) -> Rules {
    rules(json!(name))
}

/// A played hand in the API's JSON shape: bids and tricks of team a, then of team b.
pub fn hj(a_bids: Value, a_tricks: [i64; 2], b_bids: Value, b_tricks: [i64; 2]) -> Value {
    json!({"a": {"bids": a_bids, "tricks": a_tricks},
           "b": {"bids": b_bids, "tricks": b_tricks}})
}

/// `hj` with extra top-level fields (revokes, time_called) or team fields merged in.
pub fn with(mut hand: Value, extra: Value) -> Value {
    merge(&mut hand, &extra);
    hand
}

fn merge(target: &mut Value, extra: &Value) {
    match (target, extra) {
        (Value::Object(t), Value::Object(e)) => {
            for (k, v) in e {
                match t.get_mut(k) {
                    Some(slot) if slot.is_object() && v.is_object() => merge(slot, v),
                    _ => {
                        t.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (t, e) => *t = e.clone(),
    }
}

/// A hand parsed from JSON; panics if its shape is invalid.
pub fn hand(value: Value) -> Hand {
    parse(value, 1).unwrap_or_else(|e| panic!("hand should parse: {}", e.message))
}

pub fn parse(value: Value, number: usize) -> Result<Hand, HandError> {
    let input: HandInput = serde_json::from_value(value).expect("hand JSON shape");
    input.parse(number)
}

/// Plays `hands` in order from `start` (0–0 when `None`); panics on the first invalid hand.
pub fn play_all(
    rules: &Rules,
    stage: Stage,
    start: Option<(i32, u32, i32, u32)>,
    hands: &[Value],
) -> (Game, Vec<ScoredHand>) {
    let mut game = new_game(rules, stage, start);
    let scored = hands
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let parsed = parse(h.clone(), i + 1)
                .unwrap_or_else(|e| panic!("hand {} should parse: {}", i + 1, e.message));
            game.play(&parsed)
                .unwrap_or_else(|e| panic!("hand {} should be accepted: {}", i + 1, e.message))
        })
        .collect();
    (game, scored)
}

pub fn new_game(rules: &Rules, stage: Stage, start: Option<(i32, u32, i32, u32)>) -> Game {
    match start {
        None => Game::new(rules.clone(), stage),
        Some((sa, ba, sb, bb)) => Game::resume(
            rules.clone(),
            stage,
            TeamTotal {
                score: sa,
                bags: ba,
            },
            TeamTotal {
                score: sb,
                bags: bb,
            },
        )
        .unwrap_or_else(|e| panic!("start should be accepted: {}", e.message)),
    }
}

/// One hand under `rules` from 0–0.
pub fn one(rules: &Rules, hand: Value) -> ScoredHand {
    play_all(rules, Stage::Regular, None, &[hand]).1.remove(0)
}

/// One hand under `rules` from a start, for deficits and bag counters.
pub fn one_from(rules: &Rules, start: (i32, u32, i32, u32), hand: Value) -> ScoredHand {
    play_all(rules, Stage::Regular, Some(start), &[hand])
        .1
        .remove(0)
}

/// The error of the hand that `game` refuses (the last of `hands`, after the others).
pub fn refused(rules: &Rules, start: Option<(i32, u32, i32, u32)>, hands: &[Value]) -> HandError {
    let (mut game, _) = play_all(rules, Stage::Regular, start, &hands[..hands.len() - 1]);
    let last = hands.len();
    let before = game.clone();
    let parsed = parse(hands[last - 1].clone(), last)
        .unwrap_or_else(|e| panic!("hand {last} should parse: {}", e.message));
    let err = game.play(&parsed).expect_err("the hand should be refused");
    assert_eq!(game, before, "a refused hand must change nothing");
    err
}

/// A request through the calculator (the API's and the CLI's path); panics on an error.
pub fn calc(request: Value) -> ScoreResponse {
    score_json(request.clone())
        .unwrap_or_else(|e| panic!("request should score: {} ({e:?})", e.message))
}

pub fn calc_err(request: Value) -> FieldError {
    match score_json(request) {
        Ok(r) => panic!("request should fail, scored to {:?}", (r.a, r.b, r.status)),
        Err(e) => e,
    }
}

/// A hand where both teams bid exactly what they take, for filling a game with known points:
/// team a bids and takes `a` tricks (split over both players), team b the other `13 − a`.
pub fn exact(a: i64) -> Value {
    let b = 13 - a;
    hj(
        json!([a - a / 2, a / 2]),
        [a - a / 2, a / 2],
        json!([b - b / 2, b / 2]),
        [b - b / 2, b / 2],
    )
}

/// Running scores of team a and team b after the hand.
pub fn scores(s: &ScoredHand) -> (i32, i32) {
    (s.a.score, s.b.score)
}
