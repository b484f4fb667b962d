//! Every scoring rule of docs/scoring.md §3 under each preset, and every option of §5.4.

use serde_json::{Value, json};

use super::support::*;
use crate::game::counted_tricks;
use crate::hand::Hand;
use crate::params::FailedNilTricks;
use crate::state::Stage;

/// (nil, blind nil, bag limit, bag penalty) of each preset, from the table of §2.4.
fn table(name: &str) -> (i32, i32, u32, i32) {
    match name {
        "chicago-im" => (100, 200, 10, 100),
        "unc-im-300" => (60, 120, 6, 60),
        "unc-im-500" => (100, 200, 10, 100),
        "classic" => (50, 100, 10, 100),
        "partnership" => (100, 200, 10, 100),
        _ => unreachable!(),
    }
}

/// §2.2 step 3: a made contract scores 10 per trick bid plus `bags.value` per overtrick;
/// a set one loses 10 per trick bid, under every preset.
#[test]
fn made_and_set_contracts_under_each_preset() {
    for name in PRESETS {
        let r = preset(name);
        let s = one(&r, hj(json!([3, 3]), [4, 4], json!([3, 2]), [3, 2]));
        assert_eq!(s.a.made, Some(true), "{name}");
        assert_eq!(
            (s.a.contract_points, s.a.bag_points, s.a.points),
            (60, 2, 62),
            "{name}"
        );
        assert_eq!((s.b.made, s.b.points), (Some(true), 50), "{name}");
        let s = one(&r, hj(json!([4, 4]), [4, 3], json!([3, 3]), [3, 3]));
        assert_eq!(
            (s.a.made, s.a.contract_points, s.a.bags),
            (Some(false), -80, 0),
            "{name}"
        );
    }
}

/// §2.2 step 1: each nil scores ±`nil`, each blind nil ±`blind_nil.value`, independently, and
/// the partner's contract is scored as usual; under each preset's values.
#[test]
fn nil_and_blind_nil_values_under_each_preset() {
    for name in PRESETS {
        let (nil, blind, _, _) = table(name);
        // Blind nil allowed at any score, to test its value alone.
        let r = rules(json!({"preset": name, "blind_nil": {"when": "always"}}));
        for (bid, v) in [("nil", nil), ("blind_nil", blind)] {
            let s = one(&r, hj(json!([bid, 5]), [0, 5], json!([4, 4]), [4, 4]));
            assert_eq!(
                (s.a.nil_points, s.a.points),
                (v, v + 50),
                "{name} {bid} made"
            );
            let s = one(&r, hj(json!([bid, 5]), [1, 5], json!([4, 3]), [4, 3]));
            assert_eq!(s.a.nil_points, -v, "{name} {bid} failed");
        }
        let s = one(
            &r,
            hj(json!(["nil", "blind_nil"]), [0, 0], json!([6, 7]), [6, 7]),
        );
        assert_eq!(s.a.points, nil + blind, "{name} both made");
        let s = one(
            &r,
            hj(json!(["nil", "blind_nil"]), [2, 0], json!([5, 6]), [5, 6]),
        );
        assert_eq!(s.a.nil_points, blind - nil, "{name} one each");
    }
}

/// §2.2 step 2 and 2.4 `failed_nil_tricks`: `ignore` (000, 002, 004), `count_toward_bid`
/// (003), and `bags_only` (an option).
#[test]
fn failed_nil_tricks_each_mode() {
    let h = hj(json!([4, "nil"]), [3, 2], json!([4, 4]), [4, 4]);
    for name in PRESETS {
        let r = preset(name);
        let s = one(&r, h.clone());
        let nil = table(name).0;
        match r.failed_nil_tricks {
            FailedNilTricks::Ignore => {
                assert_eq!(
                    (s.a.tricks_counted, s.a.made, s.a.bags),
                    (3, Some(false), 0)
                );
                assert_eq!(s.a.points, -40 - nil, "{name}");
            }
            FailedNilTricks::CountTowardBid => {
                assert_eq!(name, "classic");
                assert_eq!((s.a.tricks_counted, s.a.made, s.a.bags), (5, Some(true), 1));
                assert_eq!(s.a.points, 40 + 1 - nil);
            }
            FailedNilTricks::BagsOnly => panic!("no preset uses bags_only"),
        }
    }
    let r = rules(json!({"preset": "partnership", "failed_nil_tricks": "bags_only"}));
    // Set: the 2 tricks do not help the bid of 4 but are 2 bags.
    let s = one(&r, h);
    assert_eq!((s.a.tricks_counted, s.a.made), (3, Some(false)));
    assert_eq!((s.a.bags_taken, s.a.bag_points, s.a.bags), (2, 2, 2));
    assert_eq!(s.a.points, -40 + 2 - 100);
    // Made with 1 overtrick of its own: 1 + 2 bags.
    let s = one(&r, hj(json!([4, "nil"]), [5, 2], json!([3, 3]), [3, 3]));
    assert_eq!((s.a.tricks_counted, s.a.bags_taken), (5, 3));
    assert_eq!(s.a.points, 40 + 3 - 100);
    // Both nil failing: the contract is 0 and every failed-nil trick is a bag.
    let s = one_from(
        &r,
        (0, 8, 0, 0),
        hj(json!(["nil", "nil"]), [1, 2], json!([5, 5]), [5, 5]),
    );
    assert_eq!((s.a.made, s.a.tricks_counted, s.a.bags_taken), (None, 0, 3));
    assert_eq!((s.a.bag_penalty, s.a.bags), (-100, 1));
    assert_eq!(s.a.points, -200 + 3 - 100);
}

/// 2.4 `zero_bid_is_nil`: under chicago-im a bid of 0 is nil; under the others it is a
/// contract of 0 (with a partner's bid, the partner's contract).
#[test]
fn zero_bid_is_nil_only_under_chicago() {
    for name in PRESETS {
        let r = preset(name);
        let made = one(&r, hj(json!([0, 5]), [0, 5], json!([4, 4]), [4, 4]));
        let failed = one(&r, hj(json!([0, 5]), [2, 5], json!([3, 3]), [3, 3]));
        if name == "chicago-im" {
            assert!(r.zero_bid_is_nil);
            assert_eq!((made.a.nil_points, made.a.points), (100, 150));
            assert_eq!((failed.a.nil_points, failed.a.tricks_counted), (-100, 5));
            assert_eq!((failed.a.bags, failed.a.points), (0, -50));
        } else {
            assert!(!r.zero_bid_is_nil, "{name}");
            assert_eq!((made.a.nil_points, made.a.points), (0, 50), "{name}");
            assert_eq!(
                (failed.a.nil_points, failed.a.tricks_counted),
                (0, 7),
                "{name}"
            );
            assert_eq!((failed.a.bags, failed.a.points), (2, 52), "{name}");
        }
    }
}

/// §2.2 step 3: "If the contract is 0 (both nil, or bids of 0 where 0 is not nil), every
/// counted trick is an overtrick and a bag." API: `made` is null when the contract is 0.
#[test]
fn contract_of_zero_every_trick_a_bag_and_made_is_none() {
    for name in ["classic", "partnership"] {
        let r = preset(name);
        let s = one_from(
            &r,
            (0, 8, 0, 0),
            hj(json!([0, 0]), [1, 2], json!([5, 5]), [5, 5]),
        );
        assert_eq!(
            (s.a.contract, s.a.made, s.a.contract_points),
            (0, None, 0),
            "{name}"
        );
        assert_eq!((s.a.bags_taken, s.a.bag_points), (3, 3), "{name}");
        assert_eq!(
            (s.a.bag_penalty, s.a.bags, s.a.points),
            (-100, 1, -97),
            "{name}"
        );
        let s = one(&r, hj(json!([0, 0]), [0, 0], json!([6, 7]), [6, 7]));
        assert_eq!((s.a.made, s.a.points), (None, 0), "{name}");
    }
    // chicago: 0 + 0 is both nil, made is none too.
    let s = one(
        &preset("chicago-im"),
        hj(json!([0, 0]), [0, 0], json!([6, 7]), [6, 7]),
    );
    assert_eq!((s.a.made, s.a.points), (None, 200));
    // A contract of 0 with a revoke received: the moved tricks are bags too.
    let r = rules(json!({"preset": "partnership", "revoke": {}}));
    let s = one(
        &r,
        with(
            hj(json!([0, 0]), [0, 0], json!([6, 6]), [7, 6]),
            json!({"revokes": {"b": 1}}),
        ),
    );
    assert_eq!((s.a.made, s.a.tricks_counted, s.a.bags_taken), (None, 3, 3));
    assert_eq!(s.a.points, 3 + 30);
}

/// 2.4 `set_penalty`: `per_bid_trick` (every preset) and `per_short_trick` (option), also with
/// 10-for-200 and blind bids.
#[test]
fn set_penalty_per_short_trick() {
    for name in PRESETS {
        let r = rules(json!({"preset": name, "set_penalty": "per_short_trick"}));
        let s = one(&r, hj(json!([4, 4]), [4, 1], json!([4, 4]), [4, 4]));
        assert_eq!(s.a.contract_points, -30, "{name}: 3 short");
    }
    let r = rules(json!({"preset": "unc-im-500", "set_penalty": "per_short_trick"}));
    let s = one(&r, hj(json!([5, 5]), [5, 3], json!([3, 2]), [3, 2]));
    assert_eq!(
        s.a.contract_points, -20,
        "a set 10-for-200 with per_bid_trick set"
    );
    let r = rules(
        json!({"preset": "partnership", "set_penalty": "per_short_trick",
                         "blind_bids": {"when": "always"}}),
    );
    let s = one(
        &r,
        with(
            hj(json!([4, 4]), [4, 2], json!([3, 2]), [4, 3]),
            json!({"a": {"blind": true}}),
        ),
    );
    assert_eq!(s.a.contract_points, -40, "2 short, doubled");
}

/// 2.4 `ten_for_200`: `min_bid`, `value` and `set` (`per_bid_trick` vs `flat`), and enabling it
/// with `{}` gives 10 / 200 / per_bid_trick.
#[test]
fn ten_for_200_options() {
    let ten = hj(json!([5, 5]), [5, 5], json!([2, 2]), [2, 1]);
    let ten_set = hj(json!([5, 5]), [5, 4], json!([2, 2]), [2, 2]);
    for name in ["chicago-im", "classic", "partnership"] {
        assert_eq!(
            one(&preset(name), ten.clone()).a.points,
            100,
            "{name} has none"
        );
        let r = rules(json!({"preset": name, "ten_for_200": {}}));
        assert_eq!(one(&r, ten.clone()).a.points, 200, "{name} enabled");
        assert_eq!(
            one(&r, ten_set.clone()).a.points,
            -100,
            "{name} enabled, set"
        );
    }
    for (name, v) in [("unc-im-300", 120), ("unc-im-500", 200)] {
        let r = rules(json!({"preset": name, "ten_for_200": {"set": "flat"}}));
        assert_eq!(one(&r, ten.clone()).a.points, v, "{name} flat, made");
        assert_eq!(one(&r, ten_set.clone()).a.points, -v, "{name} flat, set");
        assert_eq!(
            one(&preset(name), ten_set.clone()).a.points,
            -100,
            "{name} per bid trick"
        );
        // Above the minimum: the same value, bags on top.
        let s = one(&r, hj(json!([6, 6]), [6, 7], json!([2, 2]), [0, 0]));
        assert_eq!(s.a.points, v + 1, "{name} 12 bid 13 taken");
        let r = rules(json!({"preset": name, "ten_for_200": {"min_bid": 11}}));
        assert_eq!(one(&r, ten.clone()).a.points, 100, "{name} min 11");
        let r = rules(json!({"preset": name, "ten_for_200": null}));
        assert_eq!(one(&r, ten.clone()).a.points, 100, "{name} disabled");
    }
}

/// §2.2 step 4: several penalties in one hand with `carry`; one with `discard`, which empties
/// the counter.
#[test]
fn bag_overflow_carry_and_discard() {
    // unc-im-300: 5 bags + 9 = 14: two penalties of 60, 2 carried.
    let r = preset("unc-im-300");
    let s = one_from(
        &r,
        (0, 5, 0, 0),
        hj(json!([2, 2]), [7, 6], json!([2, 2]), [0, 0]),
    );
    assert_eq!((s.a.bags_taken, s.a.bag_penalty, s.a.bags), (9, -120, 2));
    assert_eq!(s.a.points, 40 + 9 - 120);
    for name in PRESETS {
        let (_, _, limit, penalty) = table(name);
        let r = preset(name);
        let h = hj(json!([2, 2]), [7, 6], json!([2, 2]), [0, 0]); // 9 bags
        let start = (0, limit - 1, 0, 0);
        let s = one_from(&r, start, h.clone());
        let total = limit - 1 + 9;
        assert_eq!(
            s.a.bag_penalty,
            (total / limit) as i32 * -penalty,
            "{name} carry"
        );
        assert_eq!(s.a.bags, total % limit, "{name} carry");
        let r = rules(json!({"preset": name, "bags": {"overflow": "discard"}}));
        let s = one_from(&r, start, h);
        assert_eq!((s.a.bag_penalty, s.a.bags), (-penalty, 0), "{name} discard");
        // Exactly reaching the limit costs the penalty.
        let s = one_from(
            &r,
            (0, limit - 2, 0, 0),
            hj(json!([3, 3]), [4, 4], json!([3, 2]), [3, 2]),
        );
        assert_eq!(
            (s.a.bag_penalty, s.a.bags),
            (-penalty, 0),
            "{name} reaching"
        );
    }
}

/// 2.4 options: `bags.limit: null` — no bag penalty; with `bags.value` −1 or −10 overtricks
/// cost points instead. The counter still counts; a start above 10 is fine.
#[test]
fn bags_without_limit() {
    for name in PRESETS {
        for (value, expected) in [(1, 63), (-1, 57), (-10, 30)] {
            let r = rules(json!({"preset": name, "bags": {"limit": null, "value": value}}));
            let s = one_from(
                &r,
                (0, 25, 0, 0),
                hj(json!([3, 3]), [5, 4], json!([2, 2]), [2, 2]),
            );
            assert_eq!(
                (s.a.bag_points, s.a.bag_penalty),
                (3 * value, 0),
                "{name} {value}"
            );
            assert_eq!((s.a.points, s.a.bags), (expected, 28), "{name} {value}");
        }
    }
}

/// §2.2 step 2: "each revoke moves `revoke.tricks` (capped by what the offending team has
/// counted) from the offending team to the other team, as ordinary tricks"; step 5: the other
/// team gains `revoke.award` per revoke.
#[test]
fn revokes_move_tricks_capped_and_award() {
    for name in ["unc-im-300", "unc-im-500"] {
        let r = preset(name);
        // Team a counted only 2 (the nil took none): only 2 can move; the award is whole.
        let s = one(
            &r,
            with(
                hj(json!([5, "nil"]), [2, 0], json!([4, 4]), [6, 5]),
                json!({"revokes": {"a": 1}}),
            ),
        );
        assert_eq!((s.a.tricks_counted, s.b.tricks_counted), (0, 13), "{name}");
        assert_eq!(s.a.points, -50 + table(name).0, "{name}");
        assert_eq!(
            (s.b.bags_taken, s.b.revoke_award, s.b.points),
            (5, 30, 80 + 5 + 30),
            "{name}"
        );
        // Two revokes: 6 tricks, 60 points.
        let s = one(
            &r,
            with(
                hj(json!([4, 4]), [4, 4], json!([2, 2]), [3, 2]),
                json!({"revokes": {"a": 2}}),
            ),
        );
        assert_eq!((s.a.tricks_counted, s.b.tricks_counted), (2, 11), "{name}");
        assert_eq!((s.a.points, s.b.revoke_award), (-80, 60), "{name}");
        // Both teams revoke once: 3 each way, 30 each.
        let s = one(
            &r,
            with(
                hj(json!([4, 3]), [4, 3], json!([3, 3]), [3, 3]),
                json!({"revokes": {"a": 1, "b": 1}}),
            ),
        );
        assert_eq!((s.a.tricks_counted, s.b.tricks_counted), (7, 6), "{name}");
        assert_eq!((s.a.points, s.b.points), (70 + 30, 60 + 30), "{name}");
        // A failed nil's tricks (ignored) cannot be taken from the team.
        let s = one(
            &r,
            with(
                hj(json!([4, "nil"]), [1, 4], json!([4, 4]), [4, 4]),
                json!({"revokes": {"a": 1}}),
            ),
        );
        assert_eq!((s.a.tricks_counted, s.b.tricks_counted), (0, 9), "{name}");
    }
    // Options: `revoke.tricks` and `revoke.award`.
    let r = rules(json!({"preset": "partnership", "revoke": {"tricks": 2, "award": 50}}));
    let s = one(
        &r,
        with(
            hj(json!([3, 3]), [4, 3], json!([3, 3]), [3, 3]),
            json!({"revokes": {"b": 1}}),
        ),
    );
    assert_eq!(
        (s.a.tricks_counted, s.a.revoke_award, s.a.points),
        (9, 50, 60 + 3 + 50)
    );
    assert_eq!((s.b.tricks_counted, s.b.points), (4, -60));
}

/// `counted_tricks` directly: moves are capped by what each offending team counted before
/// any move, and the 13 tricks are conserved.
#[test]
fn counted_tricks_conserves_thirteen() {
    let r = preset("unc-im-300");
    let h = hand(with(
        hj(json!([4, 4]), [1, 1], json!([5, 5]), [6, 5]),
        json!({"revokes": {"a": 2, "b": 1}}),
    ));
    let Hand::Played(p) = h else { panic!() };
    // a counted 2 and owes 6: moves 2; b counted 11 and owes 3: moves 3.
    assert_eq!(counted_tricks(&r, &p), [3, 10]);
    let classic = preset("classic");
    let h = hand(hj(json!([4, "nil"]), [3, 2], json!([4, 4]), [4, 4]));
    let Hand::Played(p) = h else { panic!() };
    assert_eq!(counted_tricks(&classic, &p), [5, 8]);
    assert_eq!(counted_tricks(&preset("partnership"), &p), [3, 8]);
}

/// 2.4 `moon`: a contract of 13 scores ±`value` instead of 130; `{}` gives 200, not winning.
#[test]
fn moon_value_and_wins_game() {
    let moon = hj(json!([7, 6]), [7, 6], json!([0, 0]), [0, 0]);
    let moon_set = hj(json!([7, 6]), [6, 6], json!([0, 0]), [1, 0]);
    for name in ["chicago-im", "classic", "partnership"] {
        assert_eq!(
            one(&preset(name), moon.clone()).a.contract_points,
            130,
            "{name}: no moon"
        );
        assert_eq!(
            one(&preset(name), moon_set.clone()).a.contract_points,
            -130,
            "{name}"
        );
        let r = rules(json!({"preset": name, "moon": {}}));
        let s = one(&r, moon.clone());
        assert_eq!(s.a.contract_points, 200, "{name}");
        assert!(!s.state.is_over(), "{name}: wins_game is off by default");
        assert_eq!(one(&r, moon_set.clone()).a.contract_points, -200, "{name}");
        let r = rules(json!({"preset": name, "moon": {"value": 250}}));
        assert_eq!(one(&r, moon.clone()).a.points, 250, "{name}");
    }
    // Under the unc presets a moon beats 10-for-200.
    let r = rules(json!({"preset": "unc-im-300", "moon": {"value": 300}}));
    let s = one(&r, hj(json!([7, 6]), [7, 6], json!([2, 2]), [0, 0]));
    assert_eq!(s.a.contract_points, 300);
    // A contract of 12 is no moon.
    let r = rules(json!({"preset": "partnership", "moon": {"wins_game": true}}));
    let s = one(&r, hj(json!([6, 6]), [7, 6], json!([0, 0]), [0, 0]));
    assert_eq!(s.a.points, 121);
    assert!(!s.state.is_over());
    let s = one(&r, moon_set);
    assert!(!s.state.is_over(), "a set moon does not win");
}

/// 2.4 `blind_bids`: `min_bid`, `multiplier`, `when` / `deficit`; bags are not multiplied.
#[test]
fn blind_bids_options() {
    let blind = |h: Value| with(h, json!({"a": {"blind": true}}));
    let six = blind(hj(json!([3, 3]), [4, 3], json!([3, 3]), [3, 3]));
    for name in PRESETS {
        let r = rules(json!({"preset": name, "blind_bids": {}}));
        let s = one_from(&r, (0, 0, 100, 0), six.clone());
        assert_eq!(
            (s.a.blind, s.a.contract_points, s.a.points),
            (true, 120, 121),
            "{name}"
        );
        let r = rules(
            json!({"preset": name, "blind_bids": {"multiplier": 3, "min_bid": 4,
                                                            "when": "behind_more_than",
                                                            "deficit": 50}}),
        );
        let s = one_from(&r, (0, 0, 51, 0), six.clone());
        assert_eq!(s.a.contract_points, 180, "{name}");
        let e = refused(&r, Some((0, 0, 50, 0)), &[six.clone()]);
        assert_eq!(
            e.message,
            "hand 1: team a may not bid blind now: it is 50 behind"
        );
        let s = one_from(
            &r,
            (0, 0, 51, 0),
            blind(hj(json!([2, 2]), [2, 2], json!([4, 5]), [4, 5])),
        );
        assert_eq!(s.a.contract_points, 120, "{name}: blind 4");
        let r = rules(json!({"preset": name, "blind_bids": {"when": "always"}}));
        let s = one_from(&r, (200, 0, 0, 0), six.clone());
        assert_eq!(s.a.contract_points, 120, "{name}: always, even ahead");
        let r = rules(json!({"preset": name, "blind_bids": {"when": "never"}}));
        let e = refused(&r, Some((0, 0, 150, 0)), &[six.clone()]);
        assert_eq!(e.field.as_ref().map(|f| f.as_str()), Some("blind"));
    }
    // Blind 10-for-200: the 10-for-200 value is multiplied.
    let r = rules(json!({"preset": "unc-im-300", "blind_bids": {"when": "always"}}));
    let s = one(&r, blind(hj(json!([5, 5]), [5, 5], json!([2, 2]), [2, 1])));
    assert_eq!(s.a.contract_points, 240);
}

/// 2.4 `loss_floor`: a team at or below it loses at once; both: the higher score wins; equal:
/// as a tie (draw under chicago-im's regular season, else a tie-break hand).
#[test]
fn loss_floor() {
    use crate::state::{GameState, WinReason};
    use crate::team::Team;
    let set_a = hj(json!([4, 4]), [4, 3], json!([3, 3]), [3, 3]); // a −80, b +60
    for name in PRESETS {
        let r = rules(json!({"preset": name, "loss_floor": -200}));
        let (g, _) = play_all(&r, Stage::Regular, Some((-110, 0, 0, 0)), &[set_a.clone()]);
        assert_eq!(
            g.state(),
            GameState::InProgress,
            "{name}: −190 is above −200"
        );
        let (g, _) = play_all(&r, Stage::Regular, Some((-120, 0, 0, 0)), &[set_a.clone()]);
        assert_eq!(
            g.state(),
            GameState::Won {
                winner: Team::B,
                reason: WinReason::Floor
            },
            "{name}: exactly at the floor"
        );
        // Both at or below: the higher wins.
        let both_set = hj(json!([4, 4]), [4, 3], json!([4, 3]), [3, 3]); // a −80, b −70
        let (g, _) = play_all(
            &r,
            Stage::Regular,
            Some((-150, 0, -150, 0)),
            &[both_set.clone()],
        );
        assert_eq!(
            g.state(),
            GameState::Won {
                winner: Team::B,
                reason: WinReason::Floor
            },
            "{name}"
        );
        // Both equal below the floor: a tie.
        let (g, _) = play_all(
            &r,
            Stage::Regular,
            Some((-150, 0, -160, 0)),
            &[both_set.clone()],
        );
        assert_eq!(
            (g.total(Team::A).score, g.total(Team::B).score),
            (-230, -230)
        );
        let tie = if name == "chicago-im" {
            GameState::Tied
        } else {
            GameState::Tiebreak
        };
        assert_eq!(g.state(), tie, "{name}");
        let (g, _) = play_all(&r, Stage::Playoff, Some((-150, 0, -160, 0)), &[both_set]);
        assert_eq!(g.state(), GameState::Tiebreak, "{name} playoff");
    }
}

/// §2.2's order: nil results, counted tricks (failed nils' where they count, *then* revokes,
/// capped by what the offending team counted), contract, bag penalty, revoke award.
#[test]
fn order_of_operations() {
    let r = rules(json!({"preset": "classic", "revoke": {}}));
    // a: partner took 1, the failed nil 3 → 4 counted before the revoke; the revoke then
    // moves 3 of them (cap 4, not 1), leaving 1: set.
    let h = with(
        hj(json!([4, "nil"]), [1, 3], json!([4, 4]), [5, 4]),
        json!({"revokes": {"a": 1}}),
    );
    let s = one_from(&r, (0, 0, 0, 8), h);
    assert_eq!(s.a.nil_points, -50);
    assert_eq!(
        (s.a.tricks_counted, s.a.made, s.a.contract_points),
        (1, Some(false), -40)
    );
    assert_eq!((s.a.bags_taken, s.a.points), (0, -90));
    // b: 9 + 3 = 12 counted, 4 bags on top of 8: one penalty, 2 carried, and the award.
    assert_eq!(
        (s.b.tricks_counted, s.b.contract_points, s.b.bag_points),
        (12, 80, 4)
    );
    assert_eq!((s.b.bag_penalty, s.b.bags, s.b.revoke_award), (-100, 2, 30));
    assert_eq!(s.b.points, 80 + 4 - 100 + 30);
}

/// "Bags are a counter of their own, never read from a score's last digit."
#[test]
fn bags_are_a_counter_not_the_last_digit() {
    let r = preset("classic");
    // The score's last digit goes from 9 past 0, but only 3 bags are counted: no penalty.
    let s = one_from(
        &r,
        (9, 0, 0, 0),
        hj(json!([3, 3]), [5, 4], json!([2, 2]), [2, 2]),
    );
    assert_eq!((s.a.score, s.a.bags, s.a.bag_penalty), (72, 3, 0));
    // A score ending in 0 with 9 bags: the next bag costs the penalty.
    let s = one_from(
        &r,
        (100, 9, 0, 0),
        hj(json!([3, 3]), [4, 3], json!([3, 3]), [3, 3]),
    );
    assert_eq!((s.a.bags, s.a.bag_penalty, s.a.score), (0, -100, 61));
    // A set (negative) score keeps its counter too.
    let s = one_from(
        &r,
        (-43, 4, 0, 0),
        hj(json!([3, 3]), [4, 3], json!([3, 3]), [3, 3]),
    );
    assert_eq!((s.a.bags, s.a.score), (5, -43 + 61));
}
