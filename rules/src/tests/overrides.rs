//! The presets of docs/scoring.md §5.2 exactly as tabled, and a league's overrides merged over them
//! (docs/scoring.md §5.3: nested objects merged field by field; unknown fields or presets refused).

use serde_json::{Value, json};

use super::support::*;
use crate::calculator::score_json;
use crate::params::{
    BagOverflow, Bags, BlindBids, BlindNil, BlindWhen, FailedNilTricks, Moon, Revoke, Rules,
    RulesSpec, SetPenalty, TenFor200, TenFor200Set, TieRule, preset_names, presets,
};

fn resolve(spec: Value) -> Result<Rules, crate::params::RulesError> {
    serde_json::from_value::<RulesSpec>(spec).unwrap().resolve()
}

fn error(spec: Value) -> (Option<String>, String) {
    let e = resolve(spec.clone()).expect_err(&format!("{spec} should be refused"));
    (e.field, e.message)
}

/// Each preset, field by field, as the table of docs/scoring.md §5.2 has it.
#[test]
fn presets_match_the_design_table() {
    // The table: a row per field, a column per preset (in the order of `PRESETS`).
    let source = ["000", "002", "002", "003", "004"];
    let target = [500, 300, 500, 500, 500];
    let time_limit_minutes = [None, Some(30), Some(45), None, None];
    let nil = [Some(100), Some(60), Some(100), Some(50), Some(100)];
    let zero_bid_is_nil = [true, false, false, false, false];
    // value / when / deficit
    let blind_nil = [
        (200, BlindWhen::Never, 100),
        (120, BlindWhen::BehindAtLeast, 100),
        (200, BlindWhen::BehindAtLeast, 100),
        (100, BlindWhen::BehindMoreThan, 100),
        (200, BlindWhen::Always, 100),
    ];
    let failed_nil_tricks = [
        FailedNilTricks::Ignore,
        FailedNilTricks::Ignore,
        FailedNilTricks::Ignore,
        FailedNilTricks::CountTowardBid,
        FailedNilTricks::Ignore,
    ];
    let min_team_bid = [0, 4, 4, 0, 0];
    // limit / penalty (overflow `carry` and value 1 in every preset)
    let bags = [(10, 100), (6, 60), (10, 100), (10, 100), (10, 100)];
    // min_bid / value (set `per_bid_trick`)
    let ten_for_200 = [None, Some((10, 120)), Some((10, 200)), None, None];
    // tricks / award
    let revoke = [None, Some((3, 30)), Some((3, 30)), None, None];
    let regular_season_ties = [
        TieRule::Draw,
        TieRule::TiebreakHand,
        TieRule::TiebreakHand,
        TieRule::TiebreakHand,
        TieRule::TiebreakHand,
    ];
    let expected: Vec<(&str, &str, Rules)> = (0..PRESETS.len())
        .map(|i| {
            let rules = Rules {
                target: target[i],
                time_limit_minutes: time_limit_minutes[i],
                nil: nil[i],
                zero_bid_is_nil: zero_bid_is_nil[i],
                blind_nil: BlindNil {
                    value: blind_nil[i].0,
                    when: blind_nil[i].1,
                    deficit: blind_nil[i].2,
                },
                failed_nil_tricks: failed_nil_tricks[i],
                min_team_bid: min_team_bid[i],
                set_penalty: SetPenalty::PerBidTrick,
                bags: Bags {
                    limit: Some(bags[i].0),
                    penalty: bags[i].1,
                    overflow: BagOverflow::Carry,
                    value: 1,
                },
                ten_for_200: ten_for_200[i].map(|(min_bid, value)| TenFor200 {
                    min_bid,
                    value,
                    set: TenFor200Set::PerBidTrick,
                }),
                revoke: revoke[i].map(|(tricks, award)| Revoke { tricks, award }),
                regular_season_ties: regular_season_ties[i],
                // `null` in every preset.
                loss_floor: None,
                moon: None,
                blind_bids: None,
            };
            (PRESETS[i], source[i], rules)
        })
        .collect();
    let all = presets();
    assert_eq!(all.len(), expected.len());
    assert_eq!(
        preset_names(),
        expected.iter().map(|e| e.0).collect::<Vec<_>>()
    );
    for ((name, source, rules), p) in expected.iter().zip(&all) {
        assert_eq!((p.name, p.source), (*name, *source));
        assert_eq!(&p.rules, rules, "{name}");
        assert_eq!(&preset(name), rules, "{name} by name");
        assert_eq!(
            &resolve(json!({"preset": name})).unwrap(),
            rules,
            "{name} as an object"
        );
        assert!(rules.check().is_ok(), "{name}");
    }
}

/// "nested objects are merged field by field over the preset".
#[test]
fn overrides_merge_field_by_field() {
    let r = resolve(json!({"preset": "unc-im-300", "bags": {"penalty": 50}})).unwrap();
    assert_eq!(
        r.bags,
        Bags {
            limit: Some(6),
            penalty: 50,
            overflow: BagOverflow::Carry,
            value: 1
        }
    );
    let base = preset("unc-im-300");
    assert_eq!(
        Rules {
            bags: base.bags.clone(),
            ..r
        },
        base,
        "nothing else changed"
    );

    let r = resolve(json!({"preset": "chicago-im", "blind_nil": {"when": "always"}})).unwrap();
    assert_eq!(
        r.blind_nil,
        BlindNil {
            value: 200,
            when: BlindWhen::Always,
            deficit: 100
        }
    );
    let r = resolve(json!({"preset": "unc-im-500", "ten_for_200": {"value": 250}})).unwrap();
    assert_eq!(
        r.ten_for_200,
        Some(TenFor200 {
            min_bid: 10,
            value: 250,
            set: TenFor200Set::PerBidTrick
        })
    );
    let r = resolve(json!({"preset": "classic", "target": 300, "nil": 100,
                           "regular_season_ties": "draw", "min_team_bid": 2,
                           "failed_nil_tricks": "bags_only", "time_limit_minutes": 20}))
    .unwrap();
    assert_eq!((r.target, r.nil, r.min_team_bid), (300, Some(100), 2));
    assert_eq!(r.regular_season_ties, TieRule::Draw);
    assert_eq!(r.failed_nil_tricks, FailedNilTricks::BagsOnly);
    assert_eq!(r.time_limit_minutes, Some(20));
    assert_eq!(r.blind_nil, preset("classic").blind_nil);
    // A preset name alone, or an object naming it, resolve the same.
    assert_eq!(resolve(json!("classic")).unwrap(), preset("classic"));
}

/// An option enabled with `{}` gets its defaults; with some fields, the rest default; `null`
/// disables it.
#[test]
fn options_enable_with_defaults_and_null_disables() {
    let r = resolve(
        json!({"preset": "partnership", "moon": {}, "blind_bids": {},
                           "revoke": {}, "ten_for_200": {}}),
    )
    .unwrap();
    assert_eq!(
        r.moon,
        Some(Moon {
            value: 200,
            wins_game: false
        })
    );
    assert_eq!(
        r.blind_bids,
        Some(BlindBids {
            min_bid: 6,
            multiplier: 2,
            when: BlindWhen::BehindAtLeast,
            deficit: 100
        })
    );
    assert_eq!(
        r.revoke,
        Some(Revoke {
            tricks: 3,
            award: 30
        })
    );
    assert_eq!(
        r.ten_for_200,
        Some(TenFor200 {
            min_bid: 10,
            value: 200,
            set: TenFor200Set::PerBidTrick
        })
    );
    let r = resolve(json!({"preset": "partnership", "moon": {"wins_game": true}})).unwrap();
    assert_eq!(
        r.moon,
        Some(Moon {
            value: 200,
            wins_game: true
        })
    );
    let r = resolve(
        json!({"preset": "unc-im-300", "revoke": null, "ten_for_200": null,
                           "time_limit_minutes": null, "nil": null,
                           "bags": {"limit": null}}),
    )
    .unwrap();
    assert_eq!(
        (r.revoke, r.ten_for_200, r.time_limit_minutes, r.nil),
        (None, None, None, None)
    );
    assert_eq!(r.bags.limit, None);
    assert_eq!(r.bags.penalty, 60);
    let r = resolve(json!({"preset": "partnership", "loss_floor": -300})).unwrap();
    assert_eq!(r.loss_floor, Some(-300));
    // A scalar option cannot be given an object.
    let (field, message) = error(json!({"preset": "partnership", "loss_floor": {}}));
    assert_eq!(field.as_deref(), Some("loss_floor"));
    assert_eq!(message, "rules.loss_floor: expected a value, not an object");
    let (field, _) = error(json!({"preset": "partnership", "target": {"value": 3}}));
    assert_eq!(field.as_deref(), Some("target"));
}

/// Unknown fields (top level, nested, inside an enabled option) name the field.
#[test]
fn unknown_fields_are_named() {
    for (spec, path) in [
        (json!({"preset": "classic", "bonus": 10}), "bonus"),
        (
            json!({"preset": "classic", "bags": {"limit": 5, "size": 3}}),
            "bags.size",
        ),
        (
            json!({"preset": "classic", "moon": {"bonus": 1}}),
            "moon.bonus",
        ),
        (
            json!({"preset": "unc-im-300", "revoke": {"points": 30}}),
            "revoke.points",
        ),
        (
            json!({"preset": "chicago-im", "blind_nil": {"deficit": 50, "passes": 2}}),
            "blind_nil.passes",
        ),
    ] {
        let (field, message) = error(spec);
        assert_eq!(field.as_deref(), Some(path));
        assert_eq!(message, format!("rules: unknown field \"{path}\""));
    }
}

#[test]
fn unknown_or_missing_preset() {
    let (field, message) = error(json!("unc-im-400"));
    assert_eq!(field.as_deref(), Some("preset"));
    assert_eq!(
        message,
        "rules: unknown preset \"unc-im-400\"; the presets are chicago-im, unc-im-300, unc-im-500, classic, partnership"
    );
    let (field, _) = error(json!({"preset": "Classic"}));
    assert_eq!(field.as_deref(), Some("preset"));
    let (field, message) = error(json!({"target": 300}));
    assert_eq!(field.as_deref(), Some("preset"));
    assert!(message.contains("must name a preset"), "{message}");
}

/// Values of the wrong type or out of range are refused, naming the field.
#[test]
fn bad_values_are_named() {
    for (spec, path) in [
        (json!({"preset": "classic", "target": "500"}), "target"),
        (
            json!({"preset": "classic", "set_penalty": "per_trick"}),
            "set_penalty",
        ),
        (
            json!({"preset": "classic", "bags": {"overflow": "spill"}}),
            "bags.overflow",
        ),
        (
            json!({"preset": "classic", "blind_nil": {"when": "sometimes"}}),
            "blind_nil.when",
        ),
        (json!({"preset": "classic", "target": 0}), "target"),
        (
            json!({"preset": "classic", "time_limit_minutes": 0}),
            "time_limit_minutes",
        ),
        (
            json!({"preset": "classic", "min_team_bid": 14}),
            "min_team_bid",
        ),
        (
            json!({"preset": "classic", "bags": {"limit": 0}}),
            "bags.limit",
        ),
        (
            json!({"preset": "classic", "ten_for_200": {"min_bid": 14}}),
            "ten_for_200.min_bid",
        ),
        (
            json!({"preset": "classic", "revoke": {"tricks": 14}}),
            "revoke.tricks",
        ),
        (
            json!({"preset": "classic", "blind_bids": {"min_bid": 0}}),
            "blind_bids.min_bid",
        ),
        (
            json!({"preset": "classic", "blind_bids": {"multiplier": 0}}),
            "blind_bids.multiplier",
        ),
        (
            json!({"preset": "classic", "loss_floor": 500}),
            "loss_floor",
        ),
    ] {
        let (field, message) = error(spec.clone());
        assert_eq!(field.as_deref(), Some(path), "{spec}: {message}");
        assert!(
            message.starts_with(&format!("rules.{path}")),
            "{spec}: {message}"
        );
    }
}

/// The calculator answers rules errors with code `invalid_rules` and the field under `rules.`,
/// and echoes the resolved rules.
#[test]
fn calculator_rules() {
    let e = calc_err(json!({"rules": {"preset": "classic", "bonus": 1}}));
    assert_eq!(e.code.as_str(), "invalid_rules");
    assert_eq!(e.field.as_ref().map(|f| f.as_str()), Some("rules.bonus"));
    let e = calc_err(json!({"rules": "nope"}));
    assert_eq!(
        (e.code.as_str(), e.field.as_ref().map(|f| f.as_str())),
        ("invalid_rules", Some("rules.preset"))
    );
    let res =
        score_json(json!({"rules": {"preset": "chicago-im", "blind_nil": {"when": "always"}}}))
            .unwrap();
    assert_eq!(res.rules.blind_nil.when, BlindWhen::Always);
    assert_eq!((res.status.as_str(), res.hands.len()), ("in_progress", 0));
    let json = serde_json::to_value(&res).unwrap();
    assert_eq!(
        json["rules"]["bags"],
        json!({"limit": 10, "penalty": 100, "overflow": "carry", "value": 1})
    );
    assert_eq!(json["rules"]["moon"], Value::Null);
}
