//! A league's rules as a form of labelled controls, one per rule option (docs/scoring.md
//! §5.1 and §5.4), so no rule needs JSON: every control left empty means "as the preset",
//! and the ones set become the overrides the API takes (`{"preset": …, "target": 500}`).
//! The one reader of the rules form: the server's league form reads with it, and the form's
//! live preview through `static/rules.wasm` (rules-wasm/).

use serde_json::{Map, Value};

use super::params::{Rules, RulesSpec, preset};

/// What a control holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A whole number (negative where the rule allows it).
    Number,
    /// One of the listed values (the API's words) or empty.
    Choice(&'static [(&'static str, &'static str)]),
    /// "yes" or "no" (a true/false rule) or empty.
    YesNo,
    /// "on" or "off": an optional rule (`null` when off) or empty.
    Switch,
}

/// One control of the rules form: its name (after the stage's prefix), the dotted path of
/// the rule it sets, its label and what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Control {
    pub name: &'static str,
    pub path: &'static str,
    pub label: &'static str,
    pub kind: Kind,
}

const BLIND_WHEN: &[(&str, &str)] = &[
    ("never", "never"),
    ("always", "at any score"),
    ("behind_at_least", "only at least the deficit behind"),
    ("behind_more_than", "only more than the deficit behind"),
];

const fn control(
    name: &'static str,
    path: &'static str,
    label: &'static str,
    kind: Kind,
) -> Control {
    Control {
        name,
        path,
        label,
        kind,
    }
}

use Kind::{Choice, Number, Switch, YesNo};

/// Every control, in the order the form shows them; each group starts at its heading.
pub const CONTROLS: &[Control] = &[
    control("target", "target", "Game to (points)", Number),
    control("time_limit", "time_limit_minutes", "Time limit", Switch),
    control(
        "time_limit_minutes",
        "time_limit_minutes",
        "Minutes before time is called",
        Number,
    ),
    control("min_team_bid", "min_team_bid", "Smallest team bid", Number),
    control("nil", "nil", "Nil bids", Switch),
    control("nil_value", "nil", "Nil is worth (±)", Number),
    control(
        "zero_bid_is_nil",
        "zero_bid_is_nil",
        "A bid of 0 is nil",
        YesNo,
    ),
    control(
        "failed_nil_tricks",
        "failed_nil_tricks",
        "A failed nil's tricks",
        Choice(&[
            ("ignore", "count for nothing"),
            ("count_toward_bid", "help the partner's contract"),
            ("bags_only", "are bags only"),
        ]),
    ),
    control(
        "blind_nil_when",
        "blind_nil.when",
        "Blind nil allowed",
        Choice(BLIND_WHEN),
    ),
    control(
        "blind_nil_value",
        "blind_nil.value",
        "Blind nil is worth (±)",
        Number,
    ),
    control(
        "blind_nil_deficit",
        "blind_nil.deficit",
        "Blind nil deficit (points behind)",
        Number,
    ),
    control(
        "set_penalty",
        "set_penalty",
        "A set loses",
        Choice(&[
            ("per_bid_trick", "10 per trick bid"),
            ("per_short_trick", "10 per trick short"),
        ]),
    ),
    control("ten_for_200", "ten_for_200", "10 for 200", Switch),
    control(
        "ten_for_200_min_bid",
        "ten_for_200.min_bid",
        "10 for 200 from a bid of",
        Number,
    ),
    control(
        "ten_for_200_value",
        "ten_for_200.value",
        "10 for 200 is worth",
        Number,
    ),
    control(
        "ten_for_200_set",
        "ten_for_200.set",
        "A set 10 for 200 loses",
        Choice(&[
            ("per_bid_trick", "what any set loses"),
            ("flat", "its full value"),
        ]),
    ),
    control("bags_value", "bags.value", "Each overtrick scores", Number),
    control("bag_penalty", "bags.limit", "Bag penalty", Switch),
    control(
        "bags_limit",
        "bags.limit",
        "Bags that cost the penalty",
        Number,
    ),
    control(
        "bags_penalty",
        "bags.penalty",
        "Bag penalty (points)",
        Number,
    ),
    control(
        "bags_overflow",
        "bags.overflow",
        "Bags past the limit",
        Choice(&[
            ("carry", "carry on to the next count"),
            ("discard", "are discarded"),
        ]),
    ),
    control("revoke", "revoke", "Revoke penalty", Switch),
    control(
        "revoke_tricks",
        "revoke.tricks",
        "Tricks moved per revoke",
        Number,
    ),
    control(
        "revoke_award",
        "revoke.award",
        "Points to the other team per revoke",
        Number,
    ),
    control("moon", "moon", "Shooting the moon (13 bid)", Switch),
    control("moon_value", "moon.value", "The moon is worth (±)", Number),
    control(
        "moon_wins_game",
        "moon.wins_game",
        "Making the moon wins the game",
        YesNo,
    ),
    control("blind_bids", "blind_bids", "Blind bids", Switch),
    control(
        "blind_bids_min_bid",
        "blind_bids.min_bid",
        "Blind bid at least",
        Number,
    ),
    control(
        "blind_bids_multiplier",
        "blind_bids.multiplier",
        "Blind bid multiplier",
        Number,
    ),
    control(
        "blind_bids_when",
        "blind_bids.when",
        "Blind bids allowed",
        Choice(BLIND_WHEN),
    ),
    control(
        "blind_bids_deficit",
        "blind_bids.deficit",
        "Blind bid deficit (points behind)",
        Number,
    ),
    control("loss_floor", "loss_floor", "Loss floor", Switch),
    control(
        "loss_floor_value",
        "loss_floor",
        "A team at or below this loses",
        Number,
    ),
    control(
        "regular_season_ties",
        "regular_season_ties",
        "A tied regular-season game",
        Choice(&[
            ("tiebreak_hand", "plays a tie-break hand"),
            ("draw", "is a draw"),
        ]),
    ),
];

/// The headings of the form's groups: the control each starts at, and its legend.
pub const GROUPS: &[(&str, &str)] = &[
    ("target", "Game"),
    ("min_team_bid", "Bidding and nil"),
    ("set_penalty", "Contracts"),
    ("bags_value", "Bags"),
    ("revoke", "Revokes"),
    ("moon", "Moon and blind bids"),
    ("loss_floor", "Ends and ties"),
];

/// The control named `name`.
pub fn find(name: &str) -> Option<&'static Control> {
    CONTROLS.iter().find(|c| c.name == name)
}

/// A control set to `value`, in words: "Game to (points) 500", "A set loses 10 per trick
/// short".
pub fn in_words(name: &str, value: &str) -> String {
    let Some(c) = find(name) else {
        return format!("{name} {value}");
    };
    let words = match c.kind {
        Choice(options) => options
            .iter()
            .find(|(v, _)| *v == value)
            .map_or(value, |(_, w)| w),
        _ => value,
    };
    format!("{} {words}", c.label)
}

/// A mistake in the rules form: the control it is at (empty: the preset) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulesFormError {
    pub control: &'static str,
    pub message: String,
}

/// The rules form as typed: each control's text (a missing control is empty).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TypedRules {
    values: Vec<(&'static str, String)>,
}

impl TypedRules {
    /// Takes a control's value; false for a name that is not a control.
    pub fn set(&mut self, name: &str, value: &str) -> bool {
        let Some(c) = find(name) else {
            return false;
        };
        self.values.retain(|(n, _)| *n != c.name);
        if !value.trim().is_empty() {
            self.values.push((c.name, value.trim().to_string()));
        }
        true
    }

    /// The text of control `name` ("" when empty).
    pub fn get(&self, name: &str) -> &str {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map_or("", |(_, v)| v)
    }

    /// The controls that are set, in the form's order.
    pub fn set_controls(&self) -> impl Iterator<Item = (&'static str, &str)> {
        CONTROLS.iter().filter_map(|c| {
            Some((
                c.name,
                self.values.iter().find(|(n, _)| *n == c.name)?.1.as_str(),
            ))
        })
    }

    /// Whether no control is set (the preset as it is).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The form that shows `overrides` (a league's, without `"preset"`) over `base`.
    pub fn of_overrides(overrides: &Map<String, Value>, base: &Rules) -> TypedRules {
        let base = rules_json(base);
        let over = Value::Object(overrides.clone());
        let mut typed = TypedRules::default();
        for c in CONTROLS {
            let Some(value) = at(&over, c.path) else {
                continue;
            };
            let text = match (c.kind, value) {
                (Switch, Value::Null) => "off".to_string(),
                (Switch, _) if at(&base, c.path).is_some_and(Value::is_null) => "on".to_string(),
                (Switch, _) | (_, Value::Null | Value::Object(_)) => continue,
                (YesNo, Value::Bool(b)) => if *b { "yes" } else { "no" }.to_string(),
                (_, Value::String(s)) => s.clone(),
                (_, other) => other.to_string(),
            };
            typed.set(c.name, &text);
        }
        typed
    }

    /// The overrides the controls make over `base`: only what differs from it.
    pub fn overrides(&self, base: &Rules) -> Result<Map<String, Value>, RulesFormError> {
        let base = rules_json(base);
        let mut over = Value::Object(Map::new());
        for c in CONTROLS.iter().filter(|c| c.kind == Switch) {
            let was_off = at(&base, c.path).is_none_or(Value::is_null);
            match self.get(c.name) {
                "" => {}
                "off" if !was_off => put(&mut over, c.path, Value::Null),
                "on" if was_off => put(&mut over, c.path, self.turned_on(c)?),
                "on" | "off" => {}
                other => return Err(not_a_choice(c, other)),
            }
        }
        for c in CONTROLS.iter().filter(|c| c.kind != Switch) {
            let typed = self.get(c.name);
            if typed.is_empty() || self.switched_off(c) {
                continue;
            }
            let value = read(c, typed)?;
            if at(&base, c.path) != Some(&value) {
                put(&mut over, c.path, value);
            }
        }
        match over {
            Value::Object(map) => Ok(map),
            _ => Ok(Map::new()),
        }
    }

    /// What an optional rule turned on starts as: its object of usual values (`{}`), or,
    /// for a number, the number typed with it.
    fn turned_on(&self, switch: &Control) -> Result<Value, RulesFormError> {
        let number = CONTROLS
            .iter()
            .find(|c| c.path == switch.path && c.kind == Number);
        match number {
            None => Ok(Value::Object(Map::new())),
            Some(n) if self.get(n.name).is_empty() => Err(RulesFormError {
                control: n.name,
                message: format!("type a value for \u{201c}{}\u{201d}", n.label),
            }),
            Some(n) => read(n, self.get(n.name)),
        }
    }

    /// Whether the optional rule that `c` belongs to is switched off (its value then waits).
    fn switched_off(&self, c: &Control) -> bool {
        CONTROLS.iter().any(|s| {
            s.kind == Switch
                && (c.path == s.path || c.path.starts_with(&format!("{}.", s.path)))
                && self.get(s.name) == "off"
        })
    }
}

/// A control's text as the rule's JSON value.
fn read(c: &Control, typed: &str) -> Result<Value, RulesFormError> {
    match c.kind {
        Number => typed
            .replace('\u{2212}', "-")
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| RulesFormError {
                control: c.name,
                message: format!(
                    "\u{201c}{}\u{201d} is a whole number, not \u{201c}{typed}\u{201d}",
                    c.label
                ),
            }),
        YesNo => match typed {
            "yes" => Ok(Value::Bool(true)),
            "no" => Ok(Value::Bool(false)),
            other => Err(not_a_choice(c, other)),
        },
        Choice(options) if options.iter().any(|(v, _)| *v == typed) => {
            Ok(Value::String(typed.into()))
        }
        Choice(_) | Switch => Err(not_a_choice(c, typed)),
    }
}

fn not_a_choice(c: &Control, typed: &str) -> RulesFormError {
    RulesFormError {
        control: c.name,
        message: format!(
            "\u{201c}{typed}\u{201d} is not one of the choices for \u{201c}{}\u{201d}",
            c.label
        ),
    }
}

fn rules_json(rules: &Rules) -> Value {
    serde_json::to_value(rules).unwrap_or(Value::Null)
}

/// The value at a dotted path, if every step is there.
fn at<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.').try_fold(value, |v, key| v.get(key))
}

/// Sets the value at a dotted path, making the objects on the way.
fn put(value: &mut Value, path: &str, new: Value) {
    let mut slot = value;
    for key in path.split('.') {
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        let Value::Object(map) = slot else { return };
        slot = map.entry(key).or_insert(Value::Null);
    }
    *slot = new;
}

/// The rules a stage's form makes: the spec to store (the preset's name alone when nothing
/// differs) and the rules it resolves to; a mistake is placed at its control.
pub fn read_rules(
    preset_name: &str,
    typed: &TypedRules,
) -> Result<(RulesSpec, Rules), RulesFormError> {
    let Some(base) = preset(preset_name) else {
        // The engine's own words for an unknown preset (they list the presets).
        let message = RulesSpec::Preset(preset_name.into())
            .resolve()
            .err()
            .map_or_else(|| "unknown preset".into(), |e| e.message);
        return Err(RulesFormError {
            control: "",
            message,
        });
    };
    let mut overrides = typed.overrides(&base.rules)?;
    let spec = if overrides.is_empty() {
        RulesSpec::Preset(preset_name.to_string())
    } else {
        overrides.insert("preset".into(), Value::String(preset_name.into()));
        RulesSpec::Custom(overrides)
    };
    let rules = spec.resolve().map_err(|e| RulesFormError {
        control: e.field.as_deref().map_or("", control_at),
        message: e.message,
    })?;
    Ok((spec, rules))
}

/// The control a rule's path is set by: its number or choice, else its switch.
pub fn control_at(path: &str) -> &'static str {
    let of_kind = |switch: bool| {
        CONTROLS
            .iter()
            .find(|c| c.path == path && (c.kind == Switch) == switch)
    };
    of_kind(false)
        .or_else(|| of_kind(true))
        .map_or("", |c| c.name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::presets;

    fn typed(pairs: &[(&str, &str)]) -> TypedRules {
        let mut t = TypedRules::default();
        for (n, v) in pairs {
            assert!(t.set(n, v), "{n} is a control");
        }
        t
    }

    #[test]
    fn every_rule_has_a_control() {
        let rules = rules_json(&presets()[0].rules);
        let mut leaves = Vec::new();
        fn walk(v: &Value, path: String, out: &mut Vec<String>) {
            if let Value::Object(m) = v {
                for (k, v) in m {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(v, p, out);
                }
            } else if !v.is_null() {
                out.push(path);
            }
        }
        walk(&rules, String::new(), &mut leaves);
        use crate::params::{BlindBids, Moon, Revoke, TenFor200};
        for (optional, def) in [
            ("moon", serde_json::to_value(Moon::default())),
            ("blind_bids", serde_json::to_value(BlindBids::default())),
            ("ten_for_200", serde_json::to_value(TenFor200::default())),
            ("revoke", serde_json::to_value(Revoke::default())),
        ] {
            walk(&def.unwrap(), optional.to_string(), &mut leaves);
        }
        for path in leaves {
            assert!(
                CONTROLS.iter().any(|c| c.path == path && c.kind != Switch),
                "no control sets {path}"
            );
        }
    }

    #[test]
    fn nothing_typed_is_the_preset() {
        for p in presets() {
            let (spec, rules) = read_rules(p.name, &TypedRules::default()).unwrap();
            assert_eq!(spec, RulesSpec::Preset(p.name.into()));
            assert_eq!(rules, p.rules);
        }
    }

    #[test]
    fn controls_make_the_overrides_that_differ() {
        let t = typed(&[
            ("target", "500"),
            ("moon", "on"),
            ("bag_penalty", "off"),
            ("min_team_bid", "4"),
        ]);
        let (spec, rules) = read_rules("unc-im-300", &t).unwrap();
        let RulesSpec::Custom(map) = spec else {
            panic!("custom")
        };
        assert_eq!(
            Value::Object(map),
            serde_json::json!({"preset": "unc-im-300", "target": 500, "moon": {}, "bags": {"limit": null}})
        );
        assert_eq!(rules.target, 500);
        assert_eq!(rules.moon.unwrap().value, 200);
        assert_eq!(rules.bags.limit, None);
    }

    #[test]
    fn mistakes_are_placed_at_their_control() {
        for (pairs, control, words) in [
            (&[("target", "lots")][..], "target", "whole number"),
            (
                &[("set_penalty", "x")][..],
                "set_penalty",
                "not one of the choices",
            ),
            (
                &[("loss_floor", "on")][..],
                "loss_floor_value",
                "type a value",
            ),
            (&[("target", "0")][..], "target", "target"),
            (
                &[("moon", "on"), ("moon_value", "-5")][..],
                "moon_value",
                "moon",
            ),
        ] {
            let e = read_rules("unc-im-300", &typed(pairs)).expect_err(&format!("{pairs:?}"));
            assert_eq!(e.control, control, "{pairs:?}: {e:?}");
            assert!(e.message.contains(words), "{pairs:?}: {}", e.message);
        }
    }

    #[test]
    fn a_value_of_an_option_switched_off_waits() {
        let t = typed(&[("moon", "off"), ("moon_value", "nonsense")]);
        let (_, rules) = read_rules("unc-im-300", &t).unwrap();
        assert_eq!(rules.moon, None);
    }

    /// Whatever is typed, the form of the overrides it makes makes them again.
    #[test]
    fn overrides_read_back_as_the_same_form() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let numbers = ["0", "1", "5", "10", "13", "100", "-1", "-200", "300", "500"];
        let mut checked = 0;
        for _ in 0..3000 {
            let preset = &presets()[next(presets().len())];
            let mut t = TypedRules::default();
            for c in CONTROLS {
                if next(5) != 0 {
                    continue;
                }
                let value = match c.kind {
                    Number => numbers[next(numbers.len())],
                    YesNo => ["yes", "no"][next(2)],
                    Switch => ["on", "off"][next(2)],
                    Choice(options) => options[next(options.len())].0,
                };
                t.set(c.name, value);
            }
            let Ok((spec, rules)) = read_rules(preset.name, &t) else {
                continue;
            };
            let over = match &spec {
                RulesSpec::Custom(map) => {
                    let mut m = map.clone();
                    m.remove("preset");
                    m
                }
                RulesSpec::Preset(_) => Map::new(),
            };
            let again = TypedRules::of_overrides(&over, &preset.rules);
            let (spec2, rules2) = read_rules(preset.name, &again).unwrap();
            assert_eq!(spec2, spec, "{t:?} -> {again:?}");
            assert_eq!(rules2, rules);
            checked += 1;
        }
        assert!(checked > 500, "only {checked} forms resolved");
    }
}
