//! Rule parameters (docs/scoring.md §5.1), the five presets, and the merge of a league's overrides
//! over a preset.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

/// Every parameter the scoring engine reads. The JSON shape is the API's (`snake_case`,
/// optional features are `null` when off).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    /// Points that end the game.
    #[schema(minimum = 1, maximum = 100_000)]
    pub target: i32,
    /// Minutes before time is called; `null` for no limit.
    #[schema(minimum = 1, maximum = 4_294_967_295_u64, format = Int64)]
    pub time_limit_minutes: Option<u32>,
    /// Value of a nil bid (± this); `null` means nil may not be bid.
    #[schema(minimum = 0, maximum = 10_000)]
    pub nil: Option<i32>,
    /// A numeric bid of 0 is a nil bid.
    pub zero_bid_is_nil: bool,
    pub blind_nil: BlindNil,
    pub failed_nil_tricks: FailedNilTricks,
    /// The smallest team contract, unless both partners bid nil.
    #[schema(maximum = 13)]
    pub min_team_bid: u8,
    pub set_penalty: SetPenalty,
    pub bags: Bags,
    pub ten_for_200: Option<TenFor200>,
    pub revoke: Option<Revoke>,
    pub regular_season_ties: TieRule,
    /// A team at or below this score loses at once (below `target`).
    #[schema(minimum = -100_000, maximum = 99_999)]
    pub loss_floor: Option<i32>,
    pub moon: Option<Moon>,
    pub blind_bids: Option<BlindBids>,
}

/// When a team may bid blind: a condition on how far it is behind before the hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BlindWhen {
    Never,
    Always,
    BehindAtLeast,
    BehindMoreThan,
}

impl BlindWhen {
    /// Whether a team `deficit` points behind (negative when ahead) may bid blind.
    pub fn allows(self, deficit: i32, threshold: i32) -> bool {
        match self {
            BlindWhen::Never => false,
            BlindWhen::Always => true,
            BlindWhen::BehindAtLeast => deficit >= threshold,
            BlindWhen::BehindMoreThan => deficit > threshold,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BlindNil {
    #[schema(minimum = 0, maximum = 10_000)]
    pub value: i32,
    pub when: BlindWhen,
    /// The deficit that `behind_at_least` / `behind_more_than` compare with.
    pub deficit: i32,
}

impl Default for BlindNil {
    fn default() -> Self {
        BlindNil {
            value: 200,
            when: BlindWhen::Never,
            deficit: 100,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FailedNilTricks {
    /// A failed nil's tricks count for nothing.
    Ignore,
    /// A failed nil's tricks help the partner's contract (and become bags past it).
    CountTowardBid,
    /// A failed nil's tricks are bags but never help the contract.
    BagsOnly,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SetPenalty {
    /// A set loses 10 per trick bid.
    PerBidTrick,
    /// A set loses 10 per trick short of the contract.
    PerShortTrick,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BagOverflow {
    /// Bags past the limit carry on into the next count.
    Carry,
    /// The counter goes back to 0 at the limit.
    Discard,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Bags {
    /// Bags that cost a penalty; `null` for no bag penalty.
    #[schema(minimum = 1, maximum = 4_294_967_295_u64, format = Int64)]
    pub limit: Option<u32>,
    #[schema(minimum = 0, maximum = 10_000)]
    pub penalty: i32,
    pub overflow: BagOverflow,
    /// Points per overtrick (1; −1 or −10 in some variations).
    #[schema(minimum = -10, maximum = 10)]
    pub value: i32,
}

impl Default for Bags {
    fn default() -> Self {
        Bags {
            limit: Some(10),
            penalty: 100,
            overflow: BagOverflow::Carry,
            value: 1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TenFor200Set {
    /// A set 10-for-200 loses what any set loses (`set_penalty`).
    PerBidTrick,
    /// A set 10-for-200 loses its full value.
    Flat,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TenFor200 {
    #[schema(minimum = 1, maximum = 13)]
    pub min_bid: u8,
    #[schema(minimum = 0, maximum = 10_000)]
    pub value: i32,
    pub set: TenFor200Set,
}

impl Default for TenFor200 {
    fn default() -> Self {
        TenFor200 {
            min_bid: 10,
            value: 200,
            set: TenFor200Set::PerBidTrick,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Revoke {
    /// Tricks moved from the offending team to the other per revoke.
    #[schema(maximum = 13)]
    pub tricks: u8,
    /// Points the other team gains per revoke.
    #[schema(minimum = 0, maximum = 10_000)]
    pub award: i32,
}

impl Default for Revoke {
    fn default() -> Self {
        Revoke {
            tricks: 3,
            award: 30,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TieRule {
    Draw,
    TiebreakHand,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Moon {
    #[schema(minimum = 0, maximum = 10_000)]
    pub value: i32,
    pub wins_game: bool,
}

impl Default for Moon {
    fn default() -> Self {
        Moon {
            value: 200,
            wins_game: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BlindBids {
    #[schema(minimum = 1, maximum = 13)]
    pub min_bid: u8,
    #[schema(minimum = 1, maximum = 10)]
    pub multiplier: i32,
    pub when: BlindWhen,
    pub deficit: i32,
}

impl Default for BlindBids {
    fn default() -> Self {
        BlindBids {
            min_bid: 6,
            multiplier: 2,
            when: BlindWhen::BehindAtLeast,
            deficit: 100,
        }
    }
}

/// A named preset: the rules of one seed document.
#[derive(Debug, Clone)]
pub struct Preset {
    pub name: &'static str,
    pub title: &'static str,
    /// The number of the rule document it encodes (docs/scoring.md §1.3).
    pub source: &'static str,
    pub rules: Rules,
}

/// The presets of docs/scoring.md §5.2, exactly as tabled.
pub fn presets() -> Vec<Preset> {
    let base = Rules {
        target: 500,
        time_limit_minutes: None,
        nil: Some(100),
        zero_bid_is_nil: false,
        blind_nil: BlindNil {
            value: 200,
            when: BlindWhen::Always,
            deficit: 100,
        },
        failed_nil_tricks: FailedNilTricks::Ignore,
        min_team_bid: 0,
        set_penalty: SetPenalty::PerBidTrick,
        bags: Bags::default(),
        ten_for_200: None,
        revoke: None,
        regular_season_ties: TieRule::TiebreakHand,
        loss_floor: None,
        moon: None,
        blind_bids: None,
    };
    vec![
        Preset {
            name: "chicago-im",
            title: "University of Chicago IM",
            source: "000",
            rules: Rules {
                zero_bid_is_nil: true,
                blind_nil: BlindNil {
                    value: 200,
                    when: BlindWhen::Never,
                    deficit: 100,
                },
                regular_season_ties: TieRule::Draw,
                ..base.clone()
            },
        },
        Preset {
            name: "unc-im-300",
            title: "UNC IM, regular season (300)",
            source: "002",
            rules: Rules {
                target: 300,
                time_limit_minutes: Some(30),
                nil: Some(60),
                blind_nil: BlindNil {
                    value: 120,
                    when: BlindWhen::BehindAtLeast,
                    deficit: 100,
                },
                min_team_bid: 4,
                bags: Bags {
                    limit: Some(6),
                    penalty: 60,
                    overflow: BagOverflow::Carry,
                    value: 1,
                },
                ten_for_200: Some(TenFor200 {
                    min_bid: 10,
                    value: 120,
                    set: TenFor200Set::PerBidTrick,
                }),
                revoke: Some(Revoke::default()),
                ..base.clone()
            },
        },
        Preset {
            name: "unc-im-500",
            title: "UNC IM, championship (500)",
            source: "002",
            rules: Rules {
                time_limit_minutes: Some(45),
                blind_nil: BlindNil {
                    value: 200,
                    when: BlindWhen::BehindAtLeast,
                    deficit: 100,
                },
                min_team_bid: 4,
                ten_for_200: Some(TenFor200::default()),
                revoke: Some(Revoke::default()),
                ..base.clone()
            },
        },
        Preset {
            name: "classic",
            title: "Classic (McLeod)",
            source: "003",
            rules: Rules {
                nil: Some(50),
                blind_nil: BlindNil {
                    value: 100,
                    when: BlindWhen::BehindMoreThan,
                    deficit: 100,
                },
                failed_nil_tricks: FailedNilTricks::CountTowardBid,
                ..base.clone()
            },
        },
        Preset {
            name: "partnership",
            title: "Partnership",
            source: "004",
            rules: base,
        },
    ]
}

pub fn preset(name: &str) -> Option<Preset> {
    presets().into_iter().find(|p| p.name == name)
}

/// Rules as a client sends them: a preset name, or an object with `"preset"` and overrides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum RulesSpec {
    #[schema(value_type = PresetName)]
    Preset(String),
    #[schema(value_type = RulesOverrides)]
    Custom(Map<String, Value>),
}

/// A preset's name (docs/scoring.md §5.2): the schema lists [`presets`].
pub struct PresetName;

impl utoipa::PartialSchema for PresetName {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(preset_names()))
            .description(Some("A preset's name (docs/scoring.md §5.2)."))
            .into()
    }
}

impl utoipa::ToSchema for PresetName {}

// Only for the OpenAPI document: the object form of `RulesSpec`. `RulesSpec::resolve` reads
// the real thing, a JSON object merged over the preset; the test
// `overrides_name_every_field_of_the_rules` keeps the two in step.
/// A preset and the fields of the rules to change (docs/scoring.md §5.3). Nested objects
/// are merged field by field; an optional feature is turned off with `null`, or on with an
/// object of the fields that differ from its usual values.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct RulesOverrides {
    #[schema(value_type = PresetName)]
    preset: String,
    #[serde(default)]
    #[schema(minimum = 1, maximum = 100_000)]
    target: i32,
    #[serde(default)]
    #[schema(minimum = 1, maximum = 4_294_967_295_u64, format = Int64)]
    time_limit_minutes: Option<u32>,
    #[serde(default)]
    #[schema(minimum = 0, maximum = 10_000)]
    nil: Option<i32>,
    #[serde(default)]
    zero_bid_is_nil: bool,
    #[serde(default)]
    blind_nil: BlindNil,
    #[serde(default)]
    #[schema(value_type = FailedNilTricks)]
    failed_nil_tricks: String,
    #[serde(default)]
    #[schema(maximum = 13)]
    min_team_bid: u8,
    #[serde(default)]
    #[schema(value_type = SetPenalty)]
    set_penalty: String,
    #[serde(default)]
    bags: Bags,
    #[serde(default)]
    ten_for_200: Option<TenFor200>,
    #[serde(default)]
    revoke: Option<Revoke>,
    #[serde(default)]
    #[schema(value_type = TieRule)]
    regular_season_ties: String,
    #[serde(default)]
    #[schema(minimum = -100_000, maximum = 99_999)]
    loss_floor: Option<i32>,
    #[serde(default)]
    moon: Option<Moon>,
    #[serde(default)]
    blind_bids: Option<BlindBids>,
}

impl Default for RulesSpec {
    fn default() -> Self {
        RulesSpec::Preset("partnership".to_string())
    }
}

/// Rules that could not be resolved; `field` is the dotted path of the offending field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulesError {
    pub field: Option<String>,
    pub message: String,
}

impl std::fmt::Display for RulesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl RulesSpec {
    /// The base preset's name (`None` when an object names none).
    pub fn preset_name(&self) -> Option<&str> {
        match self {
            RulesSpec::Preset(name) => Some(name),
            RulesSpec::Custom(map) => map.get("preset").and_then(Value::as_str),
        }
    }

    /// Merges the overrides over the preset field by field and checks the result.
    pub fn resolve(&self) -> Result<Rules, RulesError> {
        let name = self.preset_name().ok_or_else(|| RulesError {
            field: Some("preset".into()),
            message: "rules: \"preset\" must name a preset (e.g. \"unc-im-300\")".into(),
        })?;
        let base = preset(name).ok_or_else(|| RulesError {
            field: Some("preset".into()),
            message: format!(
                "rules: unknown preset \"{name}\"; the presets are {}",
                preset_names().join(", ")
            ),
        })?;
        let RulesSpec::Custom(overrides) = self else {
            return Ok(base.rules);
        };
        let mut merged = serde_json::to_value(&base.rules).map_err(internal)?;
        for (key, value) in overrides {
            if key == "preset" {
                continue;
            }
            merge_field(&mut merged, key, value, key)?;
        }
        let rules: Rules = super::strict::from_value(merged).map_err(|e| {
            let path = e.path().to_string();
            RulesError {
                message: format!(
                    "rules.{path}: {}",
                    super::strict::in_words(&e.inner().to_string())
                ),
                field: Some(path),
            }
        })?;
        rules.check()?;
        Ok(rules)
    }
}

fn internal(e: serde_json::Error) -> RulesError {
    RulesError {
        field: None,
        message: format!("rules: {e}"),
    }
}

pub fn preset_names() -> Vec<&'static str> {
    presets().iter().map(|p| p.name).collect()
}

/// The default object of an optional feature, so `{"moon": {"wins_game": true}}` turns the
/// feature on with the other fields at their usual values.
fn option_default(path: &str) -> Option<Value> {
    let value = match path {
        "ten_for_200" => serde_json::to_value(TenFor200::default()),
        "revoke" => serde_json::to_value(Revoke::default()),
        "moon" => serde_json::to_value(Moon::default()),
        "blind_bids" => serde_json::to_value(BlindBids::default()),
        _ => return None,
    };
    value.ok()
}

fn merge_field(target: &mut Value, key: &str, value: &Value, path: &str) -> Result<(), RulesError> {
    let Some(object) = target.as_object_mut() else {
        return Err(RulesError {
            field: Some(path.into()),
            message: format!("rules: unknown field \"{path}\""),
        });
    };
    let Some(slot) = object.get_mut(key) else {
        return Err(RulesError {
            field: Some(path.into()),
            message: format!("rules: unknown field \"{path}\""),
        });
    };
    match value {
        Value::Object(fields) => {
            if slot.is_null() {
                *slot = option_default(path).ok_or_else(|| RulesError {
                    field: Some(path.into()),
                    message: format!("rules.{path}: expected a value, not an object"),
                })?;
            }
            if !slot.is_object() {
                return Err(RulesError {
                    field: Some(path.into()),
                    message: format!("rules.{path}: expected a value, not an object"),
                });
            }
            for (k, v) in fields {
                merge_field(slot, k, v, &format!("{path}.{k}"))?;
            }
        }
        other => *slot = other.clone(),
    }
    Ok(())
}

/// The largest target (and the lowest loss floor) a league may set.
const MAX_POINTS: i32 = 100_000;
/// The largest value of a nil, penalty or bonus.
const MAX_VALUE: i32 = 10_000;

impl Rules {
    /// Range checks that the types alone do not express.
    pub fn check(&self) -> Result<(), RulesError> {
        let fail = |field: &str, message: &str| {
            Err(RulesError {
                field: Some(field.into()),
                message: format!("rules.{field}: {message}"),
            })
        };
        if self.target <= 0 {
            return fail("target", "must be above 0");
        }
        if self.time_limit_minutes == Some(0) {
            return fail(
                "time_limit_minutes",
                "must be at least 1 (null for no limit)",
            );
        }
        if self.target > MAX_POINTS {
            return fail("target", &format!("must be at most {MAX_POINTS}"));
        }
        // Point values are magnitudes: the engine adds or subtracts them.
        let values = [
            ("nil", self.nil.unwrap_or(0)),
            ("blind_nil.value", self.blind_nil.value),
            ("bags.penalty", self.bags.penalty),
            (
                "ten_for_200.value",
                self.ten_for_200.as_ref().map_or(0, |t| t.value),
            ),
            ("revoke.award", self.revoke.as_ref().map_or(0, |r| r.award)),
            ("moon.value", self.moon.as_ref().map_or(0, |m| m.value)),
        ];
        for (field, value) in values {
            if !(0..=MAX_VALUE).contains(&value) {
                return fail(field, &format!("must be 0 to {MAX_VALUE}"));
            }
        }
        if !(-10..=10).contains(&self.bags.value) {
            return fail("bags.value", "must be -10 to 10");
        }
        if self.min_team_bid > 13 {
            return fail("min_team_bid", "must be 0 to 13");
        }
        if self.bags.limit == Some(0) {
            return fail("bags.limit", "must be at least 1 (null for no penalty)");
        }
        if let Some(t) = &self.ten_for_200
            && !(1..=13).contains(&t.min_bid)
        {
            return fail("ten_for_200.min_bid", "must be 1 to 13");
        }
        if let Some(r) = &self.revoke
            && r.tricks > 13
        {
            return fail("revoke.tricks", "must be 0 to 13");
        }
        if let Some(b) = &self.blind_bids {
            if !(1..=13).contains(&b.min_bid) {
                return fail("blind_bids.min_bid", "must be 1 to 13");
            }
            if !(1..=10).contains(&b.multiplier) {
                return fail("blind_bids.multiplier", "must be 1 to 10");
            }
        }
        if let Some(floor) = self.loss_floor
            && !(-MAX_POINTS..self.target).contains(&floor)
        {
            return fail(
                "loss_floor",
                &format!("must be below the target and at least -{MAX_POINTS}"),
            );
        }
        Ok(())
    }
}
