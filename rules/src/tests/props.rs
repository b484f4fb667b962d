//! Property tests: random rule sets (a preset with random options), random valid hands for
//! them, and invariants of §2.2–2.3 that must hold for every game.
//!
//! Hands are generated valid for the rules (nil only where there is nil, `min_team_bid` met
//! unless both partners bid nil, 13 tricks, revokes only under revoke rules, time only under a
//! time limit). What depends on the score before the hand — blind nil's and blind bids'
//! deficit conditions — is made legal by [`legalize`] just before the hand is played: a blind
//! nil the team may not bid becomes a plain nil, a blind contract it may not bid is bid open.

use proptest::collection::vec;
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::calculator::score_json;
use crate::game::{Game, ScoredHand, counted_tricks, is_nil, score_game};
use crate::hand::{Bid, Hand, PlayedHand, TeamHand};
use crate::params::{
    BagOverflow, BlindBids, BlindWhen, FailedNilTricks, Moon, Revoke, Rules, RulesSpec, SetPenalty,
    TenFor200Set, TieRule, presets,
};
use crate::state::{GameState, Stage, TeamTotal};
use crate::team::Team;

/// Cases per property (each case is a whole game of up to 40 hands, or one hand).
const GAME_CASES: u32 = 2000;
const ROUND_TRIP_CASES: u32 = 1000;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        max_shrink_iters: 2000,
        // Keep failures out of the source tree; a failing case is printed in full.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn when_strategy() -> impl Strategy<Value = BlindWhen> {
    prop_oneof![
        Just(BlindWhen::Never),
        Just(BlindWhen::Always),
        Just(BlindWhen::BehindAtLeast),
        Just(BlindWhen::BehindMoreThan),
    ]
}

/// A preset, kept as it is half of the time, otherwise with random options of §2.4.
fn rules_strategy() -> impl Strategy<Value = Rules> {
    let preset = (0..presets().len()).prop_map(|i| presets()[i].rules.clone());
    let tweaks = (
        (
            prop_oneof![3 => Just(None), 1 => (any::<bool>(), prop_oneof![Just(200), Just(250)])
                .prop_map(|(wins_game, value)| Some(Moon { value, wins_game }))],
            prop_oneof![3 => Just(None), 1 => (6u8..=8, 2i32..=3, when_strategy(), 0i32..=150)
                .prop_map(|(min_bid, multiplier, when, deficit)| Some(BlindBids { min_bid, multiplier, when, deficit }))],
            prop_oneof![
                Just(FailedNilTricks::Ignore),
                Just(FailedNilTricks::CountTowardBid),
                Just(FailedNilTricks::BagsOnly),
            ],
            prop_oneof![
                Just(SetPenalty::PerBidTrick),
                Just(SetPenalty::PerShortTrick)
            ],
        ),
        (
            prop_oneof![Just(BagOverflow::Carry), Just(BagOverflow::Discard)],
            // Bag limit: keep, another, or none (with a value of 1, −1 or −10).
            prop_oneof![
                2 => Just(None),
                1 => (3u32..=10).prop_map(|l| Some((Some(l), 1))),
                1 => prop_oneof![Just(1), Just(-1), Just(-10)].prop_map(|v| Some((None, v))),
            ],
            any::<bool>(), // ten_for_200 flat
            prop_oneof![3 => Just(None), 1 => prop_oneof![Just(-200), Just(-300)].prop_map(Some)],
        ),
        (
            prop_oneof![3 => Just(None), 1 => Just(Some(Revoke::default()))], // add revokes
            0u8..10, // 0: no nil, 1: zero bid is nil toggled
            prop_oneof![3 => Just(None), 1 => (0u8..=5).prop_map(Some)], // min team bid
            prop_oneof![2 => Just(None), 1 => when_strategy().prop_map(Some)], // blind nil when
            prop_oneof![3 => Just(None), 1 => Just(Some(30u32))], // time limit
            prop_oneof![2 => Just(None), 1 => Just(Some(TieRule::Draw)), 1 => Just(Some(TieRule::TiebreakHand))],
        ),
    );
    (preset, any::<bool>(), tweaks).prop_map(|(mut r, keep, tweaks)| {
        if keep {
            return r;
        }
        let (
            (moon, blind_bids, failed, set),
            (overflow, bags, flat, floor),
            (revoke, nil, min, when, time, ties),
        ) = tweaks;
        if let Some(ties) = ties {
            r.regular_season_ties = ties;
        }
        r.moon = moon;
        r.blind_bids = blind_bids;
        r.failed_nil_tricks = failed;
        r.set_penalty = set;
        r.bags.overflow = overflow;
        if let Some((limit, value)) = bags {
            r.bags.limit = limit;
            r.bags.value = value;
        }
        if flat && let Some(t) = &mut r.ten_for_200 {
            t.set = TenFor200Set::Flat;
        }
        r.loss_floor = floor;
        if revoke.is_some() {
            r.revoke = revoke;
        }
        match nil {
            0 => r.nil = None,
            1 => r.zero_bid_is_nil = !r.zero_bid_is_nil,
            _ => {}
        }
        if let Some(min) = min {
            r.min_team_bid = min;
        }
        if let Some(when) = when {
            r.blind_nil.when = when;
        }
        if time.is_some() {
            r.time_limit_minutes = time;
        }
        assert!(r.check().is_ok(), "generated rules must be valid: {r:?}");
        r
    })
}

/// Four trick counts summing to 13 (seats 1, 3 for team a; 2, 4 for team b), sometimes all
/// to one player (moons).
fn tricks_strategy() -> impl Strategy<Value = [u8; 4]> {
    prop_oneof![
        9 => vec(0u8..=13, 3).prop_map(|mut cuts| {
            cuts.sort_unstable();
            [cuts[0], cuts[1] - cuts[0], cuts[2] - cuts[1], 13 - cuts[2]]
        }),
        1 => (0usize..4, 0u8..=13).prop_map(|(who, rest)| {
            let mut t = [0u8; 4];
            t[who] = 13 - rest;
            t[(who + 1) % 4] = rest;
            t
        }),
    ]
}

/// One player's bid: a selector for nil / blind nil / a number, and how far the number is
/// from the tricks the player took.
fn bid_seed() -> impl Strategy<Value = (u8, i8)> {
    (0u8..100, -3i8..=2)
}

fn make_bid(rules: &Rules, (kind, delta): (u8, i8), took: u8) -> Bid {
    let nil = rules.nil.is_some();
    // Blind nil only where it can ever be bid, and where a plain nil can stand in for it.
    let blind = nil && rules.blind_nil.when != BlindWhen::Never;
    if nil && kind < 12 {
        Bid::Nil
    } else if blind && kind < 20 {
        Bid::BlindNil
    } else {
        Bid::Tricks((i16::from(took) + i16::from(delta)).clamp(0, 13) as u8)
    }
}

/// Raises a bid so the team's contract reaches `min_team_bid`, unless both partners bid nil.
fn meet_minimum(rules: &Rules, th: &mut TeamHand) {
    if th.bids.iter().all(|b| is_nil(rules, *b)) {
        return;
    }
    let contract = th.contract();
    if contract >= rules.min_team_bid {
        return;
    }
    let player = (0..2).find(|&p| !is_nil(rules, th.bids[p])).unwrap();
    let Bid::Tricks(n) = th.bids[player] else {
        unreachable!()
    };
    th.bids[player] = Bid::Tricks(n + (rules.min_team_bid - contract));
}

/// Lowers the bids so the team's contract is at most 13 (a team cannot bid more).
fn cap_contract(th: &mut TeamHand) {
    while th.contract() > 13 {
        let tricks = |b: Bid| if let Bid::Tricks(n) = b { n } else { 0 };
        let player = if tricks(th.bids[0]) > tricks(th.bids[1]) {
            0
        } else {
            1
        };
        if let Bid::Tricks(n) = th.bids[player] {
            th.bids[player] = Bid::Tricks(n - 1);
        }
    }
}

/// A hand valid for `rules` whatever the score (up to [`legalize`]).
fn hand_strategy(rules: &Rules) -> impl Strategy<Value = PlayedHand> + use<> {
    let rules = rules.clone();
    (
        tricks_strategy(),
        [bid_seed(), bid_seed(), bid_seed(), bid_seed()],
        [0u8..5, 0u8..5],
        [
            prop_oneof![12 => Just(0u8), 2 => Just(1), 1 => Just(2)],
            prop_oneof![12 => Just(0u8), 2 => Just(1), 1 => Just(2)],
        ],
        0u8..25,
        // One hand in four is bid exactly (ties come from such hands).
        0u8..4,
        // One in ten is a 70–60 or 60–70 hand bid exactly, or a hand where both bid 8 and
        // are set (−80 each under `per_bid_trick`), without nil.
        (0u8..10, 0u8..3),
    )
        .prop_map(
            move |(t, mut seeds, blind, revokes, time, exact, (tie_maker, kind))| {
                let time_called = rules.time_limit_minutes.is_some() && time == 0;
                if tie_maker == 0 {
                    let team = |bid: u8, n: u8| TeamHand {
                        bids: [Bid::Tricks(bid - bid / 2), Bid::Tricks(bid / 2)],
                        tricks: [n - n / 2, n / 2],
                        blind: false,
                    };
                    let (a, b) = match kind {
                        0 => (team(7, 7), team(6, 6)),
                        1 => (team(6, 6), team(7, 7)),
                        _ => (team(8, 6), team(8, 7)),
                    };
                    return PlayedHand {
                        a,
                        b,
                        revokes: [0, 0],
                        time_called,
                    };
                }
                if exact == 0 {
                    for seed in &mut seeds {
                        seed.1 = 0;
                    }
                }
                let team = |i: usize, j: usize, blind_sel: u8| {
                    let mut th = TeamHand {
                        bids: [
                            make_bid(&rules, seeds[i], t[i]),
                            make_bid(&rules, seeds[j], t[j]),
                        ],
                        tricks: [t[i], t[j]],
                        blind: rules.blind_bids.is_some() && blind_sel == 0,
                    };
                    cap_contract(&mut th);
                    meet_minimum(&rules, &mut th);
                    th
                };
                let revokes = if rules.revoke.is_some() {
                    revokes
                } else {
                    [0, 0]
                };
                PlayedHand {
                    a: team(0, 2, blind[0]),
                    b: team(1, 3, blind[1]),
                    revokes,
                    time_called,
                }
            },
        )
}

/// Makes the score-dependent parts of `hand` legal before `game` plays it.
fn legalize(game: &Game, mut hand: PlayedHand) -> PlayedHand {
    for team in Team::BOTH {
        let th = match team {
            Team::A => &mut hand.a,
            Team::B => &mut hand.b,
        };
        if !game.blind_nil_allowed(team) {
            for bid in &mut th.bids {
                if *bid == Bid::BlindNil {
                    *bid = Bid::Nil;
                }
            }
        }
        if th.blind {
            let min = game.rules().blind_bids.as_ref().map_or(14, |b| b.min_bid);
            th.blind = game.blind_bid_allowed(team) && th.contract() >= min;
        }
    }
    hand
}

fn stage_strategy() -> impl Strategy<Value = Stage> {
    prop_oneof![
        Just(Stage::Regular),
        Just(Stage::Playoff),
        Just(Stage::Final)
    ]
}

/// Rules, a stage, an optional start (below the target, near it, or tied at or above it; bags
/// below the limit) and hands.
fn game_strategy(
    max_hands: usize,
) -> impl Strategy<
    Value = (
        Rules,
        Stage,
        Option<(TeamTotal, TeamTotal)>,
        Vec<PlayedHand>,
    ),
> {
    rules_strategy().prop_flat_map(move |r| {
        let bag_cap = r.bags.limit.unwrap_or(30);
        let total =
            (-150..r.target, 0..bag_cap).prop_map(|(score, bags)| TeamTotal { score, bags });
        // Close to the target and close to each other, for ties and tie-break hands.
        let target = r.target;
        let close = (
            (target - 150..target).prop_map(|s| s / 10 * 10),
            prop_oneof![2 => Just(0), 3 => Just(10), 3 => Just(-10), 1 => Just(20), 1 => Just(-20)],
            0..bag_cap,
            0..bag_cap,
        )
            .prop_map(move |(a, d, ba, bb)| {
                (
                    TeamTotal { score: a, bags: ba },
                    TeamTotal {
                        score: (a + d).min(target - 1),
                        bags: bb,
                    },
                )
            });
        // Tied at or above the target: a tie-break hand first, or a draw already.
        let tied = (target..target + 100).prop_map(|score| {
            let t = TeamTotal { score, bags: 0 };
            (t, t)
        });
        let start = prop_oneof![
            2 => Just(None),
            4 => (total.clone(), total).prop_map(Some),
            4 => close.prop_map(Some),
            1 => tied.prop_map(Some),
        ];
        (
            Just(r.clone()),
            stage_strategy(),
            start,
            vec(hand_strategy(&r), 1..max_hands),
        )
    })
}

/// Plays the hands (made legal one by one) until the game is decided; every one must be
/// accepted. Returns the game, the hands as played and their scores.
fn play(
    rules: &Rules,
    stage: Stage,
    start: Option<(TeamTotal, TeamTotal)>,
    seeds: &[PlayedHand],
) -> Result<(Game, Vec<Hand>, Vec<ScoredHand>), TestCaseError> {
    let mut game = match start {
        Some((a, b)) => Game::resume(rules.clone(), stage, a, b).expect("a valid start"),
        None => Game::new(rules.clone(), stage),
    };
    let mut hands = Vec::new();
    let mut scored = Vec::new();
    for seed in seeds {
        if game.state().is_over() {
            break;
        }
        let hand = Hand::Played(legalize(&game, *seed));
        match game.play(&hand) {
            Ok(s) => scored.push(s),
            Err(e) => {
                return Err(TestCaseError::fail(format!(
                    "a valid hand was refused: {} ({hand:?})",
                    e.message
                )));
            }
        }
        hands.push(hand);
    }
    Ok((game, hands, scored))
}

/// Tricks of nil players (a made nil took none, so these are the failed nils' tricks).
fn nil_tricks(rules: &Rules, th: &TeamHand) -> u8 {
    th.bids
        .iter()
        .zip(th.tricks)
        .filter(|(b, _)| is_nil(rules, **b))
        .map(|(_, t)| t)
        .sum()
}

proptest! {
    #![proptest_config(config(GAME_CASES))]

    /// (a) The 13 tricks are conserved through revokes: the counted tricks of both teams plus
    /// the failed nils' uncounted tricks are 13 (`ignore`, `bags_only`); with
    /// `count_toward_bid` the counted tricks alone are 13.
    #[test]
    fn prop_tricks_conserved((r, stage, start, seeds) in game_strategy(2)) {
        let (_, hands, scored) = play(&r, stage, start, &seeds)?;
        for (hand, s) in hands.iter().zip(&scored) {
            let Hand::Played(p) = hand else { unreachable!() };
            let counted = counted_tricks(&r, p);
            prop_assert_eq!(counted, [s.a.tricks_counted, s.b.tricks_counted]);
            let uncounted = nil_tricks(&r, &p.a) + nil_tricks(&r, &p.b);
            let total = counted[0] + counted[1];
            if r.failed_nil_tricks == FailedNilTricks::CountTowardBid {
                prop_assert_eq!(total, 13);
            } else {
                prop_assert_eq!(total + uncounted, 13);
            }
            // Without revokes each team counts exactly its own (non-nil) tricks.
            if p.revokes == [0, 0] {
                for team in Team::BOTH {
                    let th = p.team(team);
                    let uncounted = match r.failed_nil_tricks {
                        FailedNilTricks::CountTowardBid => 0,
                        _ => nil_tricks(&r, th),
                    };
                    let own = th.tricks_taken() - uncounted;
                    prop_assert_eq!(s.team(team).tricks_counted, own);
                }
            }
        }
    }

    /// A game continued from its totals after any hand (as a store keeps them: scores, bags,
    /// hands played, a tie-break to come) scores the rest of the hands as the whole game did.
    #[test]
    fn prop_continued_game_scores_as_the_whole((r, stage, start, seeds) in game_strategy(30)) {
        let (_, hands, scored) = play(&r, stage, start, &seeds)?;
        for k in 1..scored.len() {
            let before = &scored[k - 1];
            if before.state.is_over() {
                break;
            }
            let totals = [
                TeamTotal { score: before.a.score, bags: before.a.bags },
                TeamTotal { score: before.b.score, bags: before.b.bags },
            ];
            let tiebreak = before.state == GameState::Tiebreak;
            let mut game = Game::continued(r.clone(), stage, totals, k, tiebreak)
                .map_err(|e| TestCaseError::fail(e.message))?;
            for (hand, whole) in hands[k..].iter().zip(&scored[k..]) {
                let s = game.play(hand).map_err(|e| TestCaseError::fail(e.message))?;
                prop_assert_eq!(&s, whole);
            }
        }
    }

    /// (b) The bag counter is below `bags.limit` after every hand (carry and discard).
    #[test]
    fn prop_bags_below_limit((r, stage, start, seeds) in game_strategy(40)) {
        let (_, _, scored) = play(&r, stage, start, &seeds)?;
        let mut bags = start.map_or([0, 0], |(a, b)| [a.bags, b.bags]);
        for s in &scored {
            for team in Team::BOTH {
                let t = s.team(team);
                if let Some(limit) = r.bags.limit {
                    prop_assert!(t.bags < limit, "bags {} with limit {}", t.bags, limit);
                    let before = bags[team.index()] + u32::from(t.bags_taken);
                    let penalties = match r.bags.overflow {
                        BagOverflow::Carry => before / limit,
                        BagOverflow::Discard => u32::from(before >= limit),
                    };
                    prop_assert_eq!(t.bag_penalty, -(penalties as i32) * r.bags.penalty);
                    let after = match r.bags.overflow {
                        BagOverflow::Carry => before % limit,
                        BagOverflow::Discard if before >= limit => 0,
                        BagOverflow::Discard => before,
                    };
                    prop_assert_eq!(t.bags, after);
                } else {
                    prop_assert_eq!(t.bag_penalty, 0);
                    prop_assert_eq!(t.bags, bags[team.index()] + u32::from(t.bags_taken));
                }
                prop_assert_eq!(t.bag_points, i32::from(t.bags_taken) * r.bags.value);
                bags[team.index()] = t.bags;
            }
        }
    }

    /// (c) Scoring hand by hand, each hand in a game resumed from the previous totals, equals
    /// scoring all at once — while the game is in progress (a resumed game re-evaluates the
    /// target and knows nothing of a pending tie-break hand).
    #[test]
    fn prop_hand_by_hand_equals_all_at_once((r, stage, start, seeds) in game_strategy(40)) {
        let (_, hands, _) = play(&r, stage, start, &seeds)?;
        let (game, all) = score_game(&r, stage, start, &hands)
            .map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        prop_assert_eq!(all.len(), hands.len());
        let mut totals = start.unwrap_or_default();
        let mut state = game_start_state(&r, stage, start);
        for (hand, whole) in hands.iter().zip(&all) {
            if state != GameState::InProgress {
                break;
            }
            let mut one = Game::resume(r.clone(), stage, totals.0, totals.1)
                .map_err(|e| TestCaseError::fail(e.message))?;
            prop_assert_eq!(one.state(), GameState::InProgress);
            let s = one.play(hand).map_err(|e| TestCaseError::fail(e.message))?;
            prop_assert_eq!(s.number, 1);
            prop_assert_eq!(s.a, whole.a);
            prop_assert_eq!(s.b, whole.b);
            prop_assert_eq!(s.state, whole.state);
            totals = (one.total(Team::A), one.total(Team::B));
            state = s.state;
        }
        prop_assert_eq!((game.total(Team::A), game.total(Team::B)), all.last().map_or(
            start.unwrap_or_default(),
            |s| (TeamTotal { score: s.a.score, bags: s.a.bags }, TeamTotal { score: s.b.score, bags: s.b.bags }),
        ));
    }

    /// (d) Each team's score is its start plus the sum of its hands' points.
    #[test]
    fn prop_score_is_start_plus_points((r, stage, start, seeds) in game_strategy(40)) {
        let (game, _, scored) = play(&r, stage, start, &seeds)?;
        let start = start.unwrap_or_default();
        for team in Team::BOTH {
            let first = if team == Team::A { start.0 } else { start.1 };
            let mut running = first.score;
            for s in &scored {
                running += s.team(team).points;
                prop_assert_eq!(s.team(team).score, running);
            }
            prop_assert_eq!(game.total(team).score, running);
        }
    }

    /// (e) A made contract's points are never negative, a set one's never positive; a
    /// contract of 0 is neither made nor set and scores nothing.
    #[test]
    fn prop_contract_points_sign((r, stage, start, seeds) in game_strategy(40)) {
        let (_, _, scored) = play(&r, stage, start, &seeds)?;
        for s in &scored {
            for team in Team::BOTH {
                let t = s.team(team);
                match t.made {
                    Some(true) => {
                        prop_assert!(t.contract_points >= 0, "{:?}", t);
                        prop_assert!(t.tricks_counted >= t.contract);
                    }
                    Some(false) => {
                        prop_assert!(t.contract_points < 0, "{:?}", t);
                        prop_assert!(t.tricks_counted < t.contract);
                    }
                    None => {
                        prop_assert_eq!(t.contract, 0);
                        prop_assert_eq!(t.contract_points, 0);
                    }
                }
            }
        }
    }

    /// (f) A hand's points are the sum of its parts, and each part is what §2.2 says.
    #[test]
    fn prop_points_are_the_sum_of_parts((r, stage, start, seeds) in game_strategy(40)) {
        let (_, hands, scored) = play(&r, stage, start, &seeds)?;
        for (hand, s) in hands.iter().zip(&scored) {
            let Hand::Played(p) = hand else { unreachable!() };
            for team in Team::BOTH {
                let t = s.team(team);
                prop_assert_eq!(
                    t.points,
                    t.nil_points + t.contract_points + t.bag_points + t.bag_penalty + t.revoke_award
                );
                let th = p.team(team);
                let nil: i32 = th.bids.iter().zip(th.tricks).map(|(b, took)| {
                    let v = match b {
                        Bid::BlindNil => r.blind_nil.value,
                        b if is_nil(&r, *b) => r.nil.unwrap(),
                        _ => 0,
                    };
                    if took == 0 { v } else { -v }
                }).sum();
                prop_assert_eq!(t.nil_points, nil);
                let award = r.revoke.as_ref().map_or(0, |rv| rv.award * i32::from(p.revokes[team.other().index()]));
                prop_assert_eq!(t.revoke_award, award);
                prop_assert_eq!(t.contract, th.contract());
                prop_assert_eq!(t.blind, th.blind);
                let (made, contract_points, bags_taken) = expected_contract(&r, th, t.tricks_counted);
                prop_assert_eq!(t.made, made);
                prop_assert_eq!(t.contract_points, contract_points);
                prop_assert_eq!(t.bags_taken, bags_taken);
                prop_assert_eq!(t.bag_points, i32::from(bags_taken) * r.bags.value);
            }
        }
    }

    /// Endings: once decided the game takes no more hands; a won game names a reason that
    /// fits the scores.
    #[test]
    fn prop_endings_fit_the_scores((r, stage, start, seeds) in game_strategy(40)) {
        let (mut game, hands, scored) = play(&r, stage, start, &seeds)?;
        for (i, (hand, s)) in hands.iter().zip(&scored).enumerate() {
            let (a, b) = (s.a.score, s.b.score);
            let Hand::Played(p) = hand else { unreachable!() };
            match s.state {
                GameState::Won { winner, reason } => {
                    use crate::state::WinReason::*;
                    let (w, l) = if winner == Team::A { (a, b) } else { (b, a) };
                    match reason {
                        Target => prop_assert!(w >= r.target && w > l),
                        Floor => prop_assert!(r.loss_floor.is_some_and(|f| l <= f && w > l)),
                        Tiebreak => prop_assert!(s.tiebreak && w > l),
                        Time => prop_assert!(p.time_called && w > l),
                        Moon => prop_assert!(r.moon.as_ref().is_some_and(|m| m.wins_game)
                            && s.team(winner).contract == 13 && s.team(winner).made == Some(true)),
                        Forfeit => prop_assert!(false, "the engine never forfeits"),
                    }
                    prop_assert_eq!(i, scored.len() - 1, "the last hand decides");
                }
                GameState::Tied => {
                    prop_assert_eq!(a, b);
                    prop_assert!(stage == Stage::Regular);
                    prop_assert_eq!(r.regular_season_ties, crate::params::TieRule::Draw);
                    prop_assert_eq!(i, scored.len() - 1);
                }
                GameState::Tiebreak => prop_assert_eq!(a, b),
                GameState::InProgress => {
                    prop_assert!(!p.time_called && !s.tiebreak);
                    prop_assert!(a < r.target && b < r.target);
                    if let Some(f) = r.loss_floor {
                        prop_assert!(a > f && b > f);
                    }
                }
            }
        }
        if game.state().is_over() {
            let e = game.play(&Hand::Misdeal).unwrap_err();
            prop_assert_eq!(e.code.as_str(), "game_over");
        }
    }
}

/// docs/scoring.md §3.4 (the contract) written out again: (made, contract points, bags taken) of a team that
/// counted `counted` tricks.
fn expected_contract(r: &Rules, th: &TeamHand, counted: u8) -> (Option<bool>, i32, u8) {
    let contract = i32::from(th.contract());
    let counted_i = i32::from(counted);
    let multiplier = match (&r.blind_bids, th.blind) {
        (Some(b), true) => b.multiplier,
        _ => 1,
    };
    let moon = r.moon.as_ref().filter(|_| contract == 13).map(|m| m.value);
    let ten = r
        .ten_for_200
        .as_ref()
        .filter(|t| contract >= i32::from(t.min_bid));
    let failed_nil_bags = if r.failed_nil_tricks == FailedNilTricks::BagsOnly {
        nil_tricks(r, th)
    } else {
        0
    };
    let (made, points, bags) = if contract == 0 {
        (None, 0, counted)
    } else if counted_i >= contract {
        let base = moon.or(ten.map(|t| t.value)).unwrap_or(10 * contract);
        (Some(true), base * multiplier, counted - contract as u8)
    } else {
        let flat = ten.filter(|t| t.set == TenFor200Set::Flat).map(|t| t.value);
        let base = moon.or(flat).unwrap_or(match r.set_penalty {
            SetPenalty::PerBidTrick => 10 * contract,
            SetPenalty::PerShortTrick => 10 * (contract - counted_i),
        });
        (Some(false), -base * multiplier, 0)
    };
    (made, points, bags + failed_nil_bags)
}

fn game_start_state(r: &Rules, stage: Stage, start: Option<(TeamTotal, TeamTotal)>) -> GameState {
    match start {
        Some((a, b)) => Game::resume(r.clone(), stage, a, b).unwrap().state(),
        None => GameState::InProgress,
    }
}

/// A hand as the API's JSON.
fn hand_json(p: &PlayedHand) -> Value {
    let bid = |b: &Bid| match b {
        Bid::Tricks(n) => json!(n),
        Bid::Nil => json!("nil"),
        Bid::BlindNil => json!("blind_nil"),
    };
    let team = |th: &TeamHand| {
        let mut v =
            json!({"bids": th.bids.iter().map(bid).collect::<Vec<_>>(), "tricks": th.tricks});
        if th.blind {
            v["blind"] = json!(true);
        }
        v
    };
    json!({"a": team(&p.a), "b": team(&p.b),
           "revokes": {"a": p.revokes[0], "b": p.revokes[1]},
           "time_called": p.time_called})
}

proptest! {
    #![proptest_config(config(ROUND_TRIP_CASES))]

    /// Any rule set, sent as every field overriding any preset, resolves to itself.
    #[test]
    fn prop_rules_round_trip_through_overrides(r in rules_strategy(), base in 0..5usize) {
        let mut spec = serde_json::to_value(&r).unwrap();
        spec["preset"] = json!(presets()[base].name);
        let resolved = serde_json::from_value::<RulesSpec>(spec).unwrap().resolve();
        prop_assert_eq!(resolved, Ok(r));
    }

    /// The calculator (JSON in, JSON out: the API's and CLI's path) agrees with the engine.
    #[test]
    fn prop_calculator_agrees_with_engine((r, stage, start, seeds) in game_strategy(30)) {
        let (game, hands, scored) = play(&r, stage, start, &seeds)?;
        let mut rules = serde_json::to_value(&r).unwrap();
        rules["preset"] = json!("partnership");
        let mut request = json!({
            "rules": rules,
            "stage": stage.as_str(),
            "hands": hands.iter().map(|h| match h {
                Hand::Played(p) => hand_json(p),
                Hand::Misdeal => json!({"misdeal": true}),
            }).collect::<Vec<_>>(),
        });
        if let Some((a, b)) = start {
            request["start"] = json!({"a": {"score": a.score, "bags": a.bags},
                                      "b": {"score": b.score, "bags": b.bags}});
        }
        let res = score_json(request).map_err(|e| TestCaseError::fail(e.message))?;
        prop_assert_eq!(&res.rules, &r);
        prop_assert_eq!(res.hands.len(), scored.len());
        for (out, s) in res.hands.iter().zip(&scored) {
            prop_assert_eq!(out.a, s.a);
            prop_assert_eq!(out.b, s.b);
            prop_assert_eq!(out.status, s.state.phase());
            prop_assert_eq!(out.winner, s.state.winner());
        }
        prop_assert_eq!((res.a, res.b), (game.total(Team::A), game.total(Team::B)));
        prop_assert_eq!(res.status, game.state().phase());
    }
}

/// The generators reach what the properties are about: every ending, ties, tie-break hands,
/// blind nils, blind bids, revokes, moons, time calls, bag penalties, sets and contracts of 0.
/// (Counts from a fixed-seed sample, so the test is deterministic.)
#[test]
fn generators_cover_the_rules() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    use std::collections::BTreeMap;
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    let strategy = game_strategy(40);
    let mut seen: BTreeMap<&str, u32> = BTreeMap::new();
    let games = 2000;
    let mut hands_played = 0;
    for _ in 0..games {
        let (r, stage, start, seeds) = strategy.new_tree(&mut runner).unwrap().current();
        let (game, hands, scored) = play(&r, stage, start, &seeds).expect("valid hands");
        hands_played += scored.len();
        let mut note = |what: &'static str, yes: bool| {
            if yes {
                *seen.entry(what).or_default() += 1;
            }
        };
        match game.state() {
            GameState::Won { reason, .. } => note(reason.as_str(), true),
            GameState::Tied => note("draw", true),
            GameState::Tiebreak => note("tiebreak pending", true),
            GameState::InProgress => note("in progress", true),
        }
        for (hand, s) in hands.iter().zip(&scored) {
            let Hand::Played(p) = hand else { continue };
            for team in Team::BOTH {
                let th = p.team(team);
                let t = s.team(team);
                note("nil", th.bids.contains(&Bid::Nil));
                note("blind nil", th.bids.contains(&Bid::BlindNil));
                note("blind bid", th.blind);
                note("moon made", t.contract == 13 && t.made == Some(true));
                note("set", t.made == Some(false));
                note("contract 0", t.made.is_none());
                note("bag penalty", t.bag_penalty < 0);
                note(
                    "two bag penalties",
                    r.bags.limit.is_some() && t.bag_penalty <= -2 * r.bags.penalty,
                );
            }
            note("revoke", p.revokes != [0, 0]);
            note("time called", p.time_called);
            note("tie-break hand", s.tiebreak);
            note(
                "tie after a hand",
                matches!(s.state, GameState::Tiebreak | GameState::Tied),
            );
            note(
                "tied again after a tie-break hand",
                s.tiebreak && matches!(s.state, GameState::Tiebreak),
            );
        }
    }
    println!("{games} games, {hands_played} hands: {seen:#?}");
    for what in [
        "target",
        "time",
        "tiebreak",
        "floor",
        "moon",
        "draw",
        "in progress",
        "nil",
        "blind nil",
        "blind bid",
        "moon made",
        "set",
        "contract 0",
        "bag penalty",
        "two bag penalties",
        "revoke",
        "time called",
        "tie-break hand",
        "tie after a hand",
        "tied again after a tie-break hand",
    ] {
        assert!(
            seen.get(what).copied().unwrap_or(0) > 0,
            "the generators never produce: {what}"
        );
    }
    assert!(
        hands_played > games as usize * 3,
        "games are long enough to matter"
    );
}
