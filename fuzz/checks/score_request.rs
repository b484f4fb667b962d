//! Fuzzes the stateless scoring calculator (`spades_im::rules`), the path behind
//! `POST /api/v1/score` and `spades-im score`.
//!
//! An input that parses as JSON is sent as it is to `score_json` (arbitrary requests). Any
//! other input is decoded with `arbitrary` into a structured request: a preset, rule overrides,
//! a start and a list of hands whose numbers are mostly valid (so most requests score and the
//! game runs deep), with the odd out-of-range or extreme value.
//!
//! Either way the answer must satisfy the invariants of `check`; a panic (arithmetic overflow
//! included: cargo fuzz builds with overflow checks) is a crash.

use arbitrary::{Arbitrary, Unstructured};
use serde_json::{Map, Value, json};
use spades_im::rules::calculator::{StartInput, parse_request};
use spades_im::rules::game::TeamResult;
use spades_im::rules::hand::{BidInput, HandInput, RevokesInput, TeamHandInput};
use spades_im::rules::params::RulesSpec;
use spades_im::rules::{
    FieldError, ScoreRequest, ScoreResponse, Stage, TeamTotal, score_json, score_request,
};

/// The most hands a structured request carries (a long game is ~30).
const MAX_HANDS: usize = 120;

const PRESETS: [&str; 5] = [
    "chicago-im",
    "unc-im-300",
    "unc-im-500",
    "classic",
    "partnership",
];

/// One input: JSON as it is, anything else as a structured request (see the module's
/// documentation). Panics where an answer breaks an invariant.
pub fn check_input(data: &[u8]) {
    if let Ok(value) = serde_json::from_slice::<Value>(data) {
        fuzz_json(value);
    } else if let Ok(request) = request(&mut Unstructured::new(data)) {
        let result = score_request(&request);
        if show_requests() {
            let outcome = match &result {
                Ok(r) => format!("ok {} hands, {}", r.hands.len(), r.status.as_str()),
                Err(e) => format!("error {} {:?}", e.code, e.field),
            };
            let json = serde_json::to_string(&request).unwrap_or_default();
            eprintln!("{json}\n=> {outcome}");
        }
        check(&request, &result);
        check_again(&request, &result);
    }
}

/// `FUZZ_SHOW_REQUEST=1` prints each structured request as JSON and how it scored (to turn an
/// input into a request for `spades-im score`, or to see what the corpus exercises).
fn show_requests() -> bool {
    static SHOW: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SHOW.get_or_init(|| std::env::var_os("FUZZ_SHOW_REQUEST").is_some())
}

/// (a) Arbitrary JSON straight into `score_json`.
fn fuzz_json(value: Value) {
    let result = score_json(value.clone());
    match parse_request(value) {
        Ok(request) => {
            check(&request, &result);
            check_again(&request, &result);
        }
        Err(parse_error) => {
            // A request that does not parse fails the same way through `score_json`.
            assert_eq!(result.as_ref().err(), Some(&parse_error));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// (b) Structured requests.

/// A number that is mostly in a realistic range and now and then anything at all.
#[derive(Debug, Clone, Copy, Arbitrary)]
struct Num {
    sel: u8,
    raw: i64,
}

impl Num {
    /// In `lo..=hi` most of the time; otherwise an edge value or the raw number.
    fn pick(self, lo: i64, hi: i64) -> i64 {
        if self.sel < 246 {
            lo + self.raw.rem_euclid(hi - lo + 1)
        } else {
            match self.sel % 10 {
                0 => i64::from(i32::MAX),
                1 => i64::from(i32::MIN),
                2 => -1,
                3 => hi + 1,
                4 => lo - 1,
                5 => i64::from(u32::MAX),
                6 => i64::from(i32::MAX) / 2,
                7 => i64::from(i32::MIN) / 2,
                8 => i64::from(self.raw as i32),
                _ => self.raw,
            }
        }
    }

    fn json(self, lo: i64, hi: i64) -> Value {
        json!(self.pick(lo, hi))
    }
}

/// One override of a rule field (docs/scoring.md §5.1), value shaped by `Num`.
#[derive(Debug, Arbitrary)]
enum Override {
    Target(Num),
    TimeLimit(Option<Num>),
    Nil(Option<Num>),
    ZeroBidIsNil(bool),
    BlindNilValue(Num),
    BlindNilWhen(u8),
    BlindNilDeficit(Num),
    FailedNilTricks(u8),
    MinTeamBid(Num),
    SetPenalty(bool),
    BagsLimit(Option<Num>),
    BagsPenalty(Num),
    BagsOverflow(bool),
    BagsValue(Num),
    TenFor200(Option<(Num, Num, bool)>),
    Revoke(Option<(Num, Num)>),
    Ties(bool),
    LossFloor(Option<Num>),
    Moon(Option<(Num, bool)>),
    BlindBids(Option<(Num, Num, u8, Num)>),
    /// A field that does not exist or a value of the wrong type (a 422).
    Junk(u8),
}

const WHEN: [&str; 4] = ["never", "always", "behind_at_least", "behind_more_than"];
const FAILED_NIL: [&str; 3] = ["ignore", "count_toward_bid", "bags_only"];

impl Override {
    fn apply(&self, map: &mut Map<String, Value>) {
        let opt = |n: &Option<Num>, lo, hi| n.map_or(Value::Null, |n| n.json(lo, hi));
        let (key, value) = match self {
            Override::Target(n) => ("target", n.json(50, 1000)),
            Override::TimeLimit(n) => ("time_limit_minutes", opt(n, 1, 90)),
            Override::Nil(n) => ("nil", opt(n, 0, 200)),
            Override::ZeroBidIsNil(b) => ("zero_bid_is_nil", json!(b)),
            Override::BlindNilValue(n) => ("blind_nil", json!({"value": n.json(0, 400)})),
            Override::BlindNilWhen(w) => (
                "blind_nil",
                json!({"when": WHEN[usize::from(*w) % WHEN.len()]}),
            ),
            Override::BlindNilDeficit(n) => ("blind_nil", json!({"deficit": n.json(-200, 300)})),
            Override::FailedNilTricks(f) => (
                "failed_nil_tricks",
                json!(FAILED_NIL[usize::from(*f) % FAILED_NIL.len()]),
            ),
            Override::MinTeamBid(n) => ("min_team_bid", n.json(0, 6)),
            Override::SetPenalty(b) => (
                "set_penalty",
                json!(if *b { "per_bid_trick" } else { "per_short_trick" }),
            ),
            Override::BagsLimit(n) => ("bags", json!({"limit": opt(n, 1, 12)})),
            Override::BagsPenalty(n) => ("bags", json!({"penalty": n.json(0, 200)})),
            Override::BagsOverflow(b) => (
                "bags",
                json!({"overflow": if *b { "carry" } else { "discard" }}),
            ),
            Override::BagsValue(n) => ("bags", json!({"value": n.json(-10, 10)})),
            Override::TenFor200(t) => (
                "ten_for_200",
                t.map_or(Value::Null, |(min, value, flat)| {
                    json!({"min_bid": min.json(1, 13), "value": value.json(0, 300),
                           "set": if flat { "flat" } else { "per_bid_trick" }})
                }),
            ),
            Override::Revoke(r) => (
                "revoke",
                r.map_or(Value::Null, |(tricks, award)| {
                    json!({"tricks": tricks.json(0, 13), "award": award.json(0, 100)})
                }),
            ),
            Override::Ties(b) => (
                "regular_season_ties",
                json!(if *b { "draw" } else { "tiebreak_hand" }),
            ),
            Override::LossFloor(n) => ("loss_floor", opt(n, -1000, -100)),
            Override::Moon(m) => (
                "moon",
                m.map_or(Value::Null, |(value, wins)| {
                    json!({"value": value.json(0, 500), "wins_game": wins})
                }),
            ),
            Override::BlindBids(b) => (
                "blind_bids",
                b.map_or(Value::Null, |(min, mult, when, deficit)| {
                    json!({"min_bid": min.json(1, 13), "multiplier": mult.json(1, 4),
                           "when": WHEN[usize::from(when) % WHEN.len()],
                           "deficit": deficit.json(-200, 300)})
                }),
            ),
            Override::Junk(j) => match j % 4 {
                0 => ("no_such_rule", json!(1)),
                1 => ("target", json!("high")),
                2 => ("bags", json!({"limit": 5, "colour": "blue"})),
                _ => ("moon", json!(true)),
            },
        };
        // Nested objects merge field by field, as the API does.
        match (map.get_mut(key), value) {
            (Some(Value::Object(old)), Value::Object(new)) => old.extend(new),
            (_, value) => {
                map.insert(key.to_string(), value);
            }
        }
    }
}

/// A start total: mostly a realistic score and bag counter.
#[derive(Debug, Arbitrary)]
struct Start {
    score: Num,
    bags: Num,
}

impl Start {
    fn total(&self) -> TeamTotal {
        TeamTotal {
            score: self
                .score
                .pick(-400, 600)
                .clamp(i32::MIN.into(), i32::MAX.into()) as i32,
            bags: self.bags.pick(0, 9).clamp(0, u32::MAX.into()) as u32,
        }
    }
}

/// A player's bid, chosen relative to the tricks the player took so contracts are often made.
fn bid(u: &mut Unstructured, took: i64) -> arbitrary::Result<BidInput> {
    let sel = u8::arbitrary(u)?;
    Ok(match sel {
        0..=24 => BidInput::Word("nil".into()),
        25..=26 => BidInput::Word("blind_nil".into()),
        27..=239 => BidInput::Number(took.saturating_add(i64::from(sel % 5) - 2).clamp(0, 13)),
        240..=251 => BidInput::Number(i64::from(sel % 14)),
        252 => BidInput::Number(i64::arbitrary(u)?),
        253 => BidInput::Word("Nil".into()),
        254 => BidInput::Word(String::new()),
        255 => BidInput::Number(0),
    })
}

/// A hand, in about ten bytes: a misdeal, a played hand with the 13 tricks dealt out, or
/// (rarely) a malformed one. Raw numbers are read only where a selector asks for one, so a
/// short input still makes a long game.
fn hand(u: &mut Unstructured) -> arbitrary::Result<HandInput> {
    let kind = u8::arbitrary(u)?;
    if kind < 8 {
        // A misdeal, now and then with something it must not carry.
        return Ok(HandInput {
            misdeal: true,
            time_called: kind == 0 && u8::arbitrary(u)? < 16,
            ..HandInput::default()
        });
    }
    // How the 13 tricks split over seats 1-4 (seats 1 and 3 are team a).
    let mut tricks = [0i64; 4];
    let mut left = 13i64;
    for slot in &mut tricks[..3] {
        *slot = i64::from(u8::arbitrary(u)?) % (left + 1);
        left -= *slot;
    }
    tricks[3] = left;
    tricks.rotate_left(usize::from(kind % 4));
    if kind >= 250 {
        // Tricks that do not add up, or are out of range.
        tricks[usize::from(kind % 4)] = i64::from(u8::arbitrary(u)? % 20);
        if kind == 255 {
            tricks[0] = i64::arbitrary(u)?;
        }
    }
    let mut bids = Vec::with_capacity(4);
    for took in tricks {
        bids.push(bid(u, took)?);
    }
    // Now and then a blind bid, a time call or revokes.
    let extra = u8::arbitrary(u)?;
    let seats = |team: [usize; 2], blind: bool| TeamHandInput {
        bids: team.iter().map(|&s| bids[s].clone()).collect(),
        tricks: team.iter().map(|&s| tricks[s]).collect(),
        blind,
    };
    let mut a = seats([0, 2], extra < 6);
    let b = seats([1, 3], (6..12).contains(&extra));
    match kind {
        // A wrong number of bids or tricks, or a team missing.
        249 => a.bids.push(BidInput::Number(1)),
        248 => {
            a.tricks.pop();
        }
        _ => {}
    }
    let revokes = if (15..31).contains(&extra) {
        let mut revoke = || -> arbitrary::Result<i64> {
            Ok(match u8::arbitrary(u)? {
                0..=159 => 0,
                160..=249 => 1 + i64::from(u8::arbitrary(u)? % 3),
                _ => i64::arbitrary(u)?,
            })
        };
        Some(RevokesInput {
            a: revoke()?,
            b: revoke()?,
        })
    } else {
        None
    };
    Ok(HandInput {
        misdeal: false,
        a: Some(a),
        b: (kind != 247).then_some(b),
        revokes,
        time_called: (12..15).contains(&extra),
    })
}

/// A structured request: half the time a plain preset, else a preset and a few overrides; now
/// and then a start; then hands until the input runs out.
fn request(u: &mut Unstructured) -> arbitrary::Result<ScoreRequest> {
    let choice = u8::arbitrary(u)?;
    let name = if choice == 255 {
        "no-such-preset"
    } else {
        PRESETS[usize::from(choice) % PRESETS.len()]
    };
    let overrides = match u8::arbitrary(u)? {
        0..=127 => 0,
        128..=207 => 1,
        208..=239 => 2,
        _ => 3 + usize::from(u8::arbitrary(u)? % 6),
    };
    let rules = if overrides == 0 {
        RulesSpec::Preset(name.to_string())
    } else {
        let mut map = Map::new();
        map.insert("preset".into(), json!(name));
        for _ in 0..overrides {
            Override::arbitrary(u)?.apply(&mut map);
        }
        RulesSpec::Custom(map)
    };
    let stage = match u8::arbitrary(u)? % 3 {
        0 => Stage::Regular,
        1 => Stage::Playoff,
        _ => Stage::Final,
    };
    let start = if u8::arbitrary(u)? < 176 {
        None
    } else {
        let (a, b) = <(Start, Start)>::arbitrary(u)?;
        Some(StartInput {
            a: a.total(),
            b: b.total(),
        })
    };
    let mut hands = Vec::new();
    while !u.is_empty() && hands.len() < MAX_HANDS {
        hands.push(hand(u)?);
    }
    Ok(ScoreRequest {
        rules,
        stage,
        start,
        hands,
    })
}

// ---------------------------------------------------------------------------------------------
// Invariants.

const CODES: [&str; 5] = [
    "invalid_request",
    "invalid_rules",
    "invalid_start",
    "invalid_hand",
    "game_over",
];

/// What must hold of any answer to `request`.
fn check(request: &ScoreRequest, result: &Result<ScoreResponse, FieldError>) {
    let response = match result {
        Err(e) => {
            assert!(CODES.contains(&e.code.as_str()), "unknown code {e:?}");
            if let Some(hand) = e.hand {
                assert!(
                    (1..=request.hands.len()).contains(&hand),
                    "error names hand {hand} of {}: {e:?}",
                    request.hands.len()
                );
            }
            assert!(!e.message.is_empty());
            return;
        }
        Ok(response) => response,
    };
    assert_eq!(response.hands.len(), request.hands.len());
    let start = request.start.clone().unwrap_or_default();
    // Running totals in i64, so the checker itself cannot overflow.
    let mut running = [i64::from(start.a.score), i64::from(start.b.score)];
    let mut bags = [start.a.bags, start.b.bags];
    let limit = response.rules.bags.limit;
    for (index, hand) in response.hands.iter().enumerate() {
        let input = &request.hands[index];
        assert_eq!(hand.number, index + 1);
        assert_eq!(hand.misdeal, input.misdeal);
        for (t, result) in [&hand.a, &hand.b].into_iter().enumerate() {
            check_team(result, limit);
            if hand.misdeal {
                assert_eq!(result.points, 0, "a misdeal scores nothing: {hand:?}");
                assert_eq!(result.bags, bags[t], "a misdeal keeps the bags: {hand:?}");
            }
            running[t] += i64::from(result.points);
            assert_eq!(
                i64::from(result.score),
                running[t],
                "hand {}: running score is not start + the sum of points",
                index + 1
            );
            bags[t] = result.bags;
        }
        // Only the last hand may decide the game: a hand after that is a `game_over` error.
        let over = matches!(hand.status.as_str(), "won" | "tied");
        assert!(
            !over || index + 1 == response.hands.len(),
            "hand {} decided the game but more hands were scored",
            index + 1
        );
        check_state(
            hand.status.as_str(),
            hand.winner.is_some(),
            hand.reason.is_some(),
        );
    }
    assert_eq!(i64::from(response.a.score), running[0]);
    assert_eq!(i64::from(response.b.score), running[1]);
    assert_eq!([response.a.bags, response.b.bags], bags);
    check_state(
        response.status.as_str(),
        response.winner.is_some(),
        response.reason.is_some(),
    );
    if let Some(last) = response.hands.last() {
        assert_eq!(last.status, response.status);
        assert_eq!(last.winner, response.winner);
        assert_eq!(last.reason, response.reason);
    }
}

fn check_team(r: &TeamResult, limit: Option<u32>) {
    let parts = i64::from(r.nil_points)
        + i64::from(r.contract_points)
        + i64::from(r.bag_points)
        + i64::from(r.bag_penalty)
        + i64::from(r.revoke_award);
    assert_eq!(
        i64::from(r.points),
        parts,
        "points are not the sum of the parts: {r:?}"
    );
    if let Some(limit) = limit {
        assert!(
            r.bags < limit,
            "bag counter {} at or past the limit {limit}",
            r.bags
        );
    }
    assert_eq!(
        r.made.is_none(),
        r.contract == 0,
        "made is null iff contract 0: {r:?}"
    );
    assert!(r.contract <= 26 && r.tricks_counted <= 13, "{r:?}");
}

fn check_state(status: &str, winner: bool, reason: bool) {
    match status {
        "won" => assert!(winner && reason),
        "in_progress" | "tiebreak" | "tied" => assert!(!winner && !reason),
        other => panic!("unknown status {other}"),
    }
}

/// The same request scored again, through JSON and with one hand fewer, agrees.
fn check_again(request: &ScoreRequest, result: &Result<ScoreResponse, FieldError>) {
    assert_eq!(
        &score_request(request),
        result,
        "scoring is not deterministic"
    );
    let value = serde_json::to_value(request).expect("a request serializes");
    assert_eq!(
        &score_json(value),
        result,
        "the request through JSON scores differently"
    );
    // A game scored hand by hand: the answer to the first n-1 hands is a prefix of this one.
    if let Ok(response) = result
        && let Some((_, prefix)) = request.hands.split_last()
    {
        let shorter = ScoreRequest {
            hands: prefix.to_vec(),
            ..request.clone()
        };
        let short = score_request(&shorter).expect("a prefix of a scored game scores");
        assert_eq!(short.hands[..], response.hands[..prefix.len()]);
    }
}
