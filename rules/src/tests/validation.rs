//! Validation of hands (docs/scoring.md §2.4–§2.6): each failure is a clear message naming the hand and the
//! field, and nothing is saved. Through the engine and through the calculator.

use serde_json::{Value, json};

use super::support::*;
use crate::hand::HandError;
use crate::state::Stage;
use crate::team::Team;

/// The shape error of a hand sent as hand `number`.
fn shape_error(value: Value, number: usize) -> HandError {
    parse(value, number).expect_err("the hand's shape should be refused")
}

/// A request with one good hand and then `bad`, scored through the calculator: the error
/// names hand 2.
fn second_hand_error(rules: Value, bad: Value) -> crate::FieldError {
    calc_err(json!({"rules": rules, "hands": [exact(5), bad]}))
}

#[test]
fn tricks_must_sum_to_13() {
    for (a, b, sum) in [
        ([4, 4], [2, 2], 12),
        ([5, 5], [2, 2], 14),
        ([0, 0], [0, 0], 0),
    ] {
        let e = shape_error(hj(json!([4, 4]), a, json!([3, 3]), b), 2);
        assert_eq!(
            (
                e.code.as_str(),
                e.hand,
                e.field.as_ref().map(|f| f.as_str())
            ),
            ("invalid_hand", 2, Some("tricks"))
        );
        assert_eq!(e.message, format!("hand 2: tricks sum to {sum}, not 13"));
    }
    // The example message of docs/scoring.md §2.6, through the calculator.
    let e = second_hand_error(
        json!("unc-im-300"),
        hj(json!([4, 4]), [4, 4], json!([3, 3]), [2, 2]),
    );
    assert_eq!(e.code.as_str(), "invalid_hand");
    assert_eq!(e.message, "hand 2: tricks sum to 12, not 13");
    assert_eq!(
        (e.hand, e.field.as_ref().map(|f| f.as_str())),
        (Some(2), Some("tricks"))
    );
}

#[test]
fn tricks_out_of_range() {
    for (took, seat, team, player) in [
        (14, 3, Team::A, 1),
        (-1, 2, Team::B, 0),
        (99, 4, Team::B, 1),
    ] {
        let mut t = [[6, 0], [3, 4]];
        t[team.index()][player] = took;
        let e = shape_error(hj(json!([4, 4]), t[0], json!([3, 3]), t[1]), 1);
        assert_eq!(e.field.as_ref().map(|f| f.as_str()), Some("tricks"));
        assert_eq!((e.team, e.player), (Some(team), Some(player)));
        assert_eq!(
            e.message,
            format!("hand 1: seat {seat} took {took} tricks; tricks are 0 to 13")
        );
    }
}

#[test]
fn bids_out_of_range_or_unknown() {
    for (bid, text) in [
        (
            json!(14),
            "seat 1 bid 14; a bid is 0 to 13, nil or blind nil".to_string(),
        ),
        (
            json!(-1),
            "seat 1 bid -1; a bid is 0 to 13, nil or blind nil".to_string(),
        ),
        (
            json!("pass"),
            "seat 1 bid \"pass\"; a bid is 0 to 13, nil or blind nil".to_string(),
        ),
        (
            json!("Nil"),
            "seat 1 bid \"Nil\"; a bid is 0 to 13, nil or blind nil".to_string(),
        ),
    ] {
        let e = shape_error(hj(json!([bid, 4]), [4, 3], json!([3, 3]), [3, 3]), 3);
        assert_eq!(
            (e.hand, e.field.as_ref().map(|f| f.as_str())),
            (3, Some("bids"))
        );
        assert_eq!((e.team, e.player), (Some(Team::A), Some(0)));
        assert_eq!(e.message, format!("hand 3: {text}"));
    }
    // 0 and 13 are bids.
    assert!(parse(hj(json!([13, 0]), [13, 0], json!([0, 0]), [0, 0]), 1).is_ok());
    // A bid of the wrong JSON type, through the calculator: hand and field named.
    let e = second_hand_error(
        json!("partnership"),
        hj(json!([4, true]), [4, 3], json!([3, 3]), [3, 3]),
    );
    assert_eq!(
        (
            e.code.as_str(),
            e.hand,
            e.field.as_ref().map(|f| f.as_str())
        ),
        ("invalid_hand", Some(2), Some("bids"))
    );
    assert!(e.message.starts_with("hand 2: "), "{}", e.message);
}

#[test]
fn hand_shape_errors() {
    let e = shape_error(json!({"a": {"bids": [4, 4], "tricks": [4, 4]}}), 1);
    assert_eq!(
        (e.field.as_ref().map(|f| f.as_str()), e.team),
        (Some("bids"), Some(Team::B))
    );
    assert!(e.message.contains("team b is missing"), "{}", e.message);
    let e = shape_error(hj(json!([4, 4, 1]), [4, 4], json!([3, 3]), [3, 2]), 1);
    assert_eq!(
        e.message,
        "hand 1: team a needs 2 bids, one per player, not 3"
    );
    let e = shape_error(
        json!({"a": {"bids": [4, 4], "tricks": [4, 4]}, "b": {"bids": [3, 3], "tricks": [5]}}),
        1,
    );
    assert_eq!(e.field.as_ref().map(|f| f.as_str()), Some("tricks"));
    assert_eq!(
        e.message,
        "hand 1: team b needs 2 trick counts, one per player, not 1"
    );
    let e = shape_error(json!({"misdeal": true, "time_called": true}), 4);
    assert_eq!(
        (e.hand, e.field.as_ref().map(|f| f.as_str())),
        (4, Some("misdeal"))
    );
    let e = shape_error(with(exact(5), json!({"misdeal": true})), 1);
    assert_eq!(e.field.as_ref().map(|f| f.as_str()), Some("misdeal"));
    for bad in [-1, 14] {
        let e = shape_error(with(exact(5), json!({"revokes": {"b": bad}})), 1);
        assert_eq!(
            (e.field.as_ref().map(|f| f.as_str()), e.team),
            (Some("revokes"), Some(Team::B))
        );
        assert_eq!(
            e.message,
            format!("hand 1: team b revokes must be 0 to 13, not {bad}")
        );
    }
    // An unknown field in a hand, through the calculator.
    let e = second_hand_error(json!("partnership"), with(exact(5), json!({"bonus": 1})));
    assert_eq!((e.code.as_str(), e.hand), ("invalid_hand", Some(2)));
}

/// "a team's contract ... is at least `min_team_bid`, unless both partners bid nil; with one
/// nil the partner's own bid must reach the minimum".
#[test]
fn min_team_bid() {
    for name in PRESETS {
        let r = rules(json!({"preset": name, "min_team_bid": 4, "blind_nil": {"when": "always"}}));
        let zero_is_nil = r.zero_bid_is_nil;
        let e = refused(
            &r,
            None,
            &[exact(5), hj(json!([2, 1]), [2, 1], json!([5, 5]), [5, 5])],
        );
        assert_eq!(
            (e.hand, e.field.as_ref().map(|f| f.as_str()), e.team),
            (2, Some("bids"), Some(Team::A)),
            "{name}"
        );
        assert_eq!(
            e.message,
            "hand 2: team a bid 3; the minimum team bid is 4 unless both partners bid nil"
        );
        for one_nil in [json!([3, "nil"]), json!(["blind_nil", 3])] {
            let e = refused(&r, None, &[hj(json!([5, 5]), [5, 5], one_nil, [3, 0])]);
            assert_eq!(
                (e.team, e.field.as_ref().map(|f| f.as_str())),
                (Some(Team::B), Some("bids")),
                "{name}"
            );
        }
        let zero_and_three = hj(json!([5, 5]), [5, 5], json!([0, 3]), [0, 3]);
        let e = refused(&r, None, &[zero_and_three]);
        assert_eq!(
            e.team,
            Some(Team::B),
            "{name}: 0 + 3 (nil or not) is below 4"
        );
        for ok in [
            json!([4, "nil"]),
            json!(["nil", 4]),
            json!([4, 0]),
            json!([2, 2]),
        ] {
            let s = one(&r, hj(json!([5, 4]), [5, 5], ok.clone(), [3, 0]));
            assert_eq!(s.b.contract, 4, "{name} {ok}");
        }
        // Both nil (or blind nil) is allowed below the minimum.
        for both in [
            json!(["nil", "nil"]),
            json!(["blind_nil", "nil"]),
            json!(["blind_nil", "blind_nil"]),
        ] {
            let s = one(&r, hj(json!([6, 7]), [6, 7], both.clone(), [0, 0]));
            assert_eq!((s.b.contract, s.b.made), (0, None), "{name} {both}");
        }
        // 0 + 0: both nil where 0 is nil, else a contract of 0 below the minimum.
        let zeros = hj(json!([6, 7]), [6, 7], json!([0, 0]), [0, 0]);
        if zero_is_nil {
            assert_eq!(one(&r, zeros).b.points, 200, "{name}");
        } else {
            let e = refused(&r, None, &[zeros]);
            assert_eq!(
                e.message,
                "hand 1: team b bid 0; the minimum team bid is 4 unless both partners bid nil"
            );
        }
    }
    // Presets without a minimum take a contract of 0 or 1.
    for name in ["chicago-im", "classic", "partnership"] {
        let s = one(
            &preset(name),
            hj(json!([1, 0]), [1, 0], json!([6, 6]), [6, 6]),
        );
        assert_eq!(s.a.contract, 1, "{name}");
    }
}

/// "`nil`/`blind_nil` only where the rules allow them": `nil: null` means no nil.
#[test]
fn nil_when_rules_have_none() {
    for name in PRESETS {
        let r = rules(json!({"preset": name, "nil": null}));
        for (bids, seat, player) in [(json!(["nil", 5]), 1, 0), (json!([5, "nil"]), 3, 1)] {
            let e = refused(
                &r,
                None,
                &[exact(5), hj(bids, [5, 0], json!([4, 4]), [4, 4])],
            );
            assert_eq!(
                (e.hand, e.field.as_ref().map(|f| f.as_str())),
                (2, Some("bids")),
                "{name}"
            );
            assert_eq!((e.team, e.player), (Some(Team::A), Some(player)));
            assert_eq!(
                e.message,
                format!("hand 2: seat {seat} bid nil, but these rules have no nil")
            );
        }
        // A 0 bid is then an ordinary bid of 0, even where 0 would be nil.
        let s = one(&r, hj(json!([0, 5]), [1, 5], json!([4, 4]), [3, 4]));
        assert_eq!((s.a.nil_points, s.a.tricks_counted), (0, 6), "{name}");
    }
}

/// Blind nil "only when the team's deficit before the hand meets `blind_nil.when`", with the
/// exact thresholds of each preset.
#[test]
fn blind_nil_thresholds_by_preset() {
    let bn = |team_b: bool| {
        if team_b {
            hj(json!([4, 4]), [4, 4], json!(["blind_nil", 5]), [0, 5])
        } else {
            hj(json!(["blind_nil", 5]), [0, 5], json!([4, 4]), [4, 4])
        }
    };
    // (preset, smallest deficit allowed; None = never, Some(i32::MIN) = always)
    for (name, least) in [
        ("chicago-im", None),
        ("unc-im-300", Some(100)),
        ("unc-im-500", Some(100)),
        ("classic", Some(101)),
        ("partnership", Some(i32::MIN)),
    ] {
        let r = preset(name);
        for deficit in [-250, -1, 0, 1, 99, 100, 101, 250] {
            for team_b in [false, true] {
                let start = if team_b {
                    (deficit, 0, 0, 0)
                } else {
                    (0, 0, deficit, 0)
                };
                let allowed = least.is_some_and(|l| deficit >= l);
                let mut g = new_game(&r, Stage::Regular, Some(start));
                let team = if team_b { Team::B } else { Team::A };
                assert_eq!(g.deficit(team), deficit);
                assert_eq!(g.blind_nil_allowed(team), allowed, "{name} {deficit}");
                let res = g.play(&hand(bn(team_b)));
                match res {
                    Ok(s) => {
                        assert!(allowed, "{name}: {deficit} behind should be refused");
                        assert_eq!(s.team(team).nil_points, r.blind_nil.value);
                    }
                    Err(e) => {
                        assert!(
                            !allowed,
                            "{name}: {deficit} behind should be allowed: {}",
                            e.message
                        );
                        assert_eq!(
                            (e.field.as_ref().map(|f| f.as_str()), e.team, e.player),
                            (Some("bids"), Some(team), Some(0))
                        );
                        let seat = if team_b { 2 } else { 1 };
                        assert!(
                            e.message
                                .starts_with(&format!("hand 1: seat {seat} bid blind nil, but ")),
                            "{}",
                            e.message
                        );
                    }
                }
            }
        }
    }
}

/// Blind bids: no `blind_bids` in the rules, below `min_bid`, or the condition unmet.
#[test]
fn blind_bid_errors() {
    let blind = with(exact(7), json!({"b": {"blind": true}}));
    for name in PRESETS {
        let e = refused(&preset(name), None, &[blind.clone()]);
        assert_eq!(
            (e.field.as_ref().map(|f| f.as_str()), e.team),
            (Some("blind"), Some(Team::B)),
            "{name}"
        );
        assert_eq!(e.message, "hand 1: these rules have no blind bids");
        let r = rules(json!({"preset": name, "blind_bids": {"min_bid": 7}}));
        // exact(7): b bids 6.
        let e = refused(&r, Some((150, 0, 0, 0)), &[blind.clone()]);
        assert_eq!(
            e.message,
            "hand 1: team b's blind bid is 6; a blind bid is at least 7"
        );
        let r = rules(json!({"preset": name, "blind_bids": {}}));
        let e = refused(&r, Some((99, 0, 0, 0)), &[blind.clone()]);
        assert_eq!(
            e.message,
            "hand 1: team b may not bid blind now: it is 99 behind"
        );
        let e = refused(&r, Some((0, 0, 30, 0)), &[blind.clone()]);
        assert_eq!(
            e.message,
            "hand 1: team b may not bid blind now: it is 30 ahead"
        );
        let s = one_from(&r, (100, 0, 0, 0), blind.clone());
        assert_eq!(s.b.contract_points, 120, "{name}");
    }
}

/// Revokes only where the rules have a revoke penalty.
#[test]
fn revokes_need_revoke_rules() {
    for name in PRESETS {
        let r = preset(name);
        let h = with(exact(5), json!({"revokes": {"a": 0, "b": 1}}));
        if r.revoke.is_some() {
            assert_eq!(one(&r, h).a.revoke_award, 30, "{name}");
        } else {
            let e = refused(&r, None, &[exact(5), h]);
            assert_eq!(
                (e.hand, e.field.as_ref().map(|f| f.as_str()), e.team),
                (2, Some("revokes"), Some(Team::B)),
                "{name}"
            );
            assert_eq!(e.message, "hand 2: these rules have no revoke penalty");
            // Zero revokes are fine anywhere.
            let s = one(&r, with(exact(5), json!({"revokes": {"a": 0, "b": 0}})));
            assert_eq!(s.a.revoke_award, 0);
        }
        let r = rules(json!({"preset": name, "revoke": null}));
        let e = refused(&r, None, &[with(exact(5), json!({"revokes": {"a": 2}}))]);
        assert_eq!(
            (e.field.as_ref().map(|f| f.as_str()), e.team),
            (Some("revokes"), Some(Team::A)),
            "{name}"
        );
    }
}

/// Time can be called only where the rules have a time limit.
#[test]
fn time_called_needs_a_time_limit() {
    for name in PRESETS {
        let r = preset(name);
        let h = with(exact(5), json!({"time_called": true}));
        if r.time_limit_minutes.is_some() {
            assert!(one(&r, h).state.is_over(), "{name}");
        } else {
            let e = refused(&r, None, &[exact(5), exact(6), h]);
            assert_eq!(
                (e.hand, e.field.as_ref().map(|f| f.as_str())),
                (3, Some("time_called")),
                "{name}"
            );
            assert_eq!(
                e.message,
                "hand 3: these rules have no time limit, so time cannot be called"
            );
        }
    }
}

/// A refused hand changes nothing (checked by `refused`), and the game goes on after it.
#[test]
fn refused_hand_changes_nothing() {
    let r = preset("unc-im-300");
    let (mut g, _) = play_all(&r, Stage::Regular, None, &[exact(5)]);
    let before = g.clone();
    let bad = hand(hj(json!([2, 1]), [2, 1], json!([5, 5]), [5, 5]));
    assert!(g.play(&bad).is_err());
    assert_eq!(g, before);
    let s = g.play(&hand(exact(6))).unwrap();
    assert_eq!(s.number, 2, "the refused hand took no number");
}

/// Hands of the wrong JSON shape, through the calculator: the error names the hand and the
/// field (docs/api.md §5.1: an invalid hand is a 422 naming the hand, 1-based, and the field).
#[test]
fn calculator_names_the_field_of_a_malformed_hand() {
    for (bad, field) in [
        (with(exact(5), json!({"a": {"bids": [3, "two"]}})), "bids"),
        (with(exact(5), json!({"b": {"tricks": [4, "4"]}})), "tricks"),
        (with(exact(5), json!({"b": {"blind": "yes"}})), "blind"),
        (with(exact(5), json!({"revokes": {"a": "one"}})), "revokes"),
        (with(exact(5), json!({"revokes": {"b": 1.5}})), "revokes"),
        (with(exact(5), json!({"time_called": "yes"})), "time_called"),
        (json!({"misdeal": "yes"}), "misdeal"),
    ] {
        let e = second_hand_error(json!("unc-im-300"), bad.clone());
        assert_eq!(e.code.as_str(), "invalid_hand", "{bad}");
        assert_eq!(e.hand, Some(2), "{bad}");
        assert_eq!(
            e.field.as_ref().map(|f| f.as_str()),
            Some(field),
            "{bad}: {}",
            e.message
        );
        assert!(e.message.starts_with("hand 2: "), "{}", e.message);
    }
}

#[test]
fn a_team_cannot_bid_more_than_13() {
    // Each player may bid up to 13 (000: "Any number from 0 to 13"), but a team contract of
    // more than 13 tricks can never be made: refused, naming the team.
    let e = refused(
        &preset("partnership"),
        None,
        &[hj(json!([7, 7]), [7, 6], json!([0, 0]), [0, 0])],
    );
    assert_eq!(
        (e.hand, e.field.as_ref().map(|f| f.as_str()), e.team),
        (1, Some("bids"), Some(Team::A))
    );
    assert_eq!(
        e.message,
        "hand 1: team a bid 14; a team cannot bid more than 13 tricks"
    );
}

#[test]
fn rule_values_out_of_range_are_refused_by_field() {
    for (overrides, field) in [
        (json!({"nil": -50}), "nil"),
        (json!({"bags": {"penalty": 20000}}), "bags.penalty"),
        (json!({"bags": {"value": -11}}), "bags.value"),
        (json!({"target": 1_000_000}), "target"),
        (json!({"moon": {"value": -1}}), "moon.value"),
        (
            json!({"blind_bids": {"multiplier": 11}}),
            "blind_bids.multiplier",
        ),
        (json!({"loss_floor": 600}), "loss_floor"),
    ] {
        let mut spec = overrides.clone();
        spec["preset"] = json!("partnership");
        let e = calc_err(json!({"rules": spec, "hands": []}));
        assert_eq!(e.code.as_str(), "invalid_rules", "{overrides}");
        assert_eq!(
            e.field.as_ref().map(|f| f.as_str()),
            Some(format!("rules.{field}").as_str()),
            "{overrides}"
        );
    }
}
