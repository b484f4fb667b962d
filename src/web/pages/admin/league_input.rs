//! The league form as typed (strings, so a bad value comes back as it was), read from and
//! into the service's league input: a preset and JSON overrides per stage, and up to three
//! tiebreaks.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::Errors;
use crate::league::settings::Settings;
use crate::rules::{RulesSpec, Stage};
use crate::service::term::leagues::{League, NewLeagueInput, StageRules};

#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct LeagueForm {
    #[serde(default)]
    pub(super) name: String,
    #[serde(default)]
    pub(super) slug: String,
    #[serde(default)]
    pub(super) regular_preset: String,
    #[serde(default)]
    pub(super) regular_overrides: String,
    #[serde(default)]
    pub(super) playoff_preset: String,
    #[serde(default)]
    pub(super) playoff_overrides: String,
    #[serde(default)]
    pub(super) final_preset: String,
    #[serde(default)]
    pub(super) final_overrides: String,
    #[serde(default)]
    pub(super) tiebreak1: String,
    #[serde(default)]
    pub(super) tiebreak2: String,
    #[serde(default)]
    pub(super) tiebreak3: String,
    /// "1": the form has the season-settings fieldset (a post without it, from an older
    /// page or a script, leaves the settings as they are).
    #[serde(default)]
    pub(super) settings_form: String,
    /// Season settings as typed; empty: no value. Checkboxes: non-empty when ticked.
    #[serde(default)]
    pub(super) grace_minutes: String,
    #[serde(default)]
    pub(super) drop_after: String,
    #[serde(default)]
    pub(super) rate_sportsmanship: String,
    #[serde(default)]
    pub(super) rating_min: String,
    #[serde(default)]
    pub(super) rating_max: String,
    #[serde(default)]
    pub(super) forfeit_rating: String,
    #[serde(default)]
    pub(super) rating_required: String,
    #[serde(default)]
    pub(super) min_sportsmanship: String,
    #[serde(default)]
    pub(super) max_forfeits: String,
    #[serde(default)]
    pub(super) min_win_pct: String,
    #[serde(default)]
    pub(super) require_all_played: String,
    #[serde(default)]
    pub(super) lineups_required: String,
    /// "1": save (from the preview).
    #[serde(default)]
    pub(super) confirm: String,
    /// "1": back from the preview to the form.
    #[serde(default)]
    pub(super) back: String,
}

/// The stages whose rules a league sets, in the order a league's spec lists them.
pub(super) const STAGES: [(Stage, &str); 3] = [
    (Stage::Regular, "Regular season"),
    (Stage::Playoff, "Playoffs"),
    (Stage::Final, "Final"),
];

impl LeagueForm {
    /// One stage's preset and overrides, as typed.
    pub(super) fn stage(&self, stage: Stage) -> (&str, &str) {
        match stage {
            Stage::Regular => (&self.regular_preset, &self.regular_overrides),
            Stage::Playoff => (&self.playoff_preset, &self.playoff_overrides),
            Stage::Final => (&self.final_preset, &self.final_overrides),
        }
    }

    pub(super) fn tiebreaks(&self) -> [&str; 3] {
        [&self.tiebreak1, &self.tiebreak2, &self.tiebreak3]
    }

    /// The form of an existing league.
    pub(super) fn of(league: &League) -> LeagueForm {
        let split = |spec: &RulesSpec| -> (String, String) {
            match spec {
                RulesSpec::Preset(name) => (name.clone(), String::new()),
                RulesSpec::Custom(map) => {
                    let name = map
                        .get("preset")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string();
                    let mut rest = map.clone();
                    rest.remove("preset");
                    let overrides = if rest.is_empty() {
                        String::new()
                    } else {
                        serde_json::to_string_pretty(&Value::Object(rest)).unwrap_or_default()
                    };
                    (name, overrides)
                }
            }
        };
        let (rp, ro) = split(&league.specs[0]);
        let (pp, po) = split(&league.specs[1]);
        let (fp, fo) = split(&league.specs[2]);
        let tb = |i: usize| {
            league
                .tiebreak
                .get(i)
                .map(|t| t.as_str().to_string())
                .unwrap_or_default()
        };
        LeagueForm {
            name: league.row.name.clone(),
            slug: league.row.slug.to_string(),
            regular_preset: rp,
            regular_overrides: ro,
            playoff_preset: pp,
            playoff_overrides: po,
            final_preset: fp,
            final_overrides: fo,
            tiebreak1: tb(0),
            tiebreak2: tb(1),
            tiebreak3: tb(2),
            ..LeagueForm::default()
        }
        .with_settings(&league.settings)
    }

    /// The form showing `settings`.
    fn with_settings(mut self, settings: &Settings) -> LeagueForm {
        let num = |n: Option<u32>| n.map(|n| n.to_string()).unwrap_or_default();
        let tick = |on: bool| if on { "1" } else { "" }.to_string();
        self.settings_form = "1".into();
        self.grace_minutes = num(settings.forfeit.grace_minutes);
        self.drop_after = num(settings.forfeit.drop_after);
        if let Some(scale) = &settings.sportsmanship {
            self.rate_sportsmanship = "1".into();
            self.rating_min = scale.min.to_string();
            self.rating_max = scale.max.to_string();
            self.forfeit_rating = num(scale.forfeit_rating);
            self.rating_required = tick(scale.required);
        }
        let e = &settings.eligibility;
        self.min_sportsmanship = e.min_sportsmanship.map(decimal).unwrap_or_default();
        self.max_forfeits = num(e.max_forfeits);
        self.min_win_pct = e.min_win_pct.map(decimal).unwrap_or_default();
        self.require_all_played = tick(e.require_all_played);
        self.lineups_required = tick(settings.lineups.required);
        self
    }

    pub(super) fn blank() -> LeagueForm {
        LeagueForm {
            regular_preset: "unc-im-300".into(),
            tiebreak1: "head_to_head".into(),
            tiebreak2: "differential".into(),
            tiebreak3: "points_for".into(),
            ..LeagueForm::default()
        }
        .with_settings(&Settings::default())
    }

    /// One stage's rules as the API takes them; `None` for "same as the regular season".
    fn spec(&self, stage: Stage) -> Result<Option<RulesSpec>, Errors> {
        let key = stage.as_str();
        let (preset, overrides) = self.stage(stage);
        let preset = preset.trim();
        let overrides = overrides.trim();
        if preset.is_empty() && stage != Stage::Regular {
            if !overrides.is_empty() {
                return Err(Errors::new(
                    "league",
                    &format!("rules.{key}.preset"),
                    "pick a preset for these overrides (or clear them to use the regular-season rules)",
                ));
            }
            return Ok(None);
        }
        if overrides.is_empty() {
            return Ok(Some(RulesSpec::Preset(preset.to_string())));
        }
        let field = format!("rules.{key}.overrides");
        let mut map: Map<String, Value> = match serde_json::from_str(overrides) {
            Ok(Value::Object(map)) => map,
            Ok(_) => {
                return Err(Errors::new(
                    "league",
                    &field,
                    "overrides must be a JSON object, e.g. {\"target\": 300}",
                ));
            }
            Err(e) => {
                return Err(Errors::new(
                    "league",
                    &field,
                    format!("overrides are not valid JSON: {e}"),
                ));
            }
        };
        if map.contains_key("preset") {
            return Err(Errors::new(
                "league",
                &field,
                "pick the preset in the list above, not in the overrides",
            ));
        }
        map.insert("preset".into(), Value::String(preset.to_string()));
        Ok(Some(RulesSpec::Custom(map)))
    }

    /// The service's input, or the error of a stage's rules.
    pub(super) fn input(&self, creating: bool) -> Result<NewLeagueInput, Errors> {
        let regular = self.spec(Stage::Regular)?.unwrap_or_default();
        let tiebreak: Vec<String> = self
            .tiebreaks()
            .iter()
            .map(|t| t.trim())
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect();
        Ok(NewLeagueInput {
            name: self.name.clone(),
            slug: creating.then(|| self.slug.trim().to_string()),
            rules: StageRules {
                regular,
                playoff: self.spec(Stage::Playoff)?,
                r#final: self.spec(Stage::Final)?,
            },
            tiebreak_order: Some(tiebreak),
            settings: None,
        })
    }

    /// The same values, compact, for the preview's hidden fields.
    pub(super) fn normalized(&self) -> LeagueForm {
        let compact = |s: &str| -> String {
            serde_json::from_str::<Value>(s.trim())
                .map(|v| v.to_string())
                .unwrap_or_else(|_| s.to_string())
        };
        let mut f = self.clone();
        f.regular_overrides = compact(&f.regular_overrides);
        f.playoff_overrides = compact(&f.playoff_overrides);
        f.final_overrides = compact(&f.final_overrides);
        f
    }
}

/// A stage's rules in words: "unc-im-300", or "unc-im-300 with {...}" for overrides.
pub(super) fn spec_words(spec: &RulesSpec) -> String {
    match spec {
        RulesSpec::Preset(p) => p.clone(),
        RulesSpec::Custom(map) => {
            let mut rest = map.clone();
            let p = rest
                .remove("preset")
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            format!("{p} with {}", Value::Object(rest))
        }
    }
}

/// A decimal as the form shows it: "3", "2.5", "0.625" (the shortest text that reads back
/// as the same number, so an unchanged form changes nothing).
fn decimal(x: f64) -> String {
    x.to_string()
}

/// Each setting's input on the form and the field the service names in its errors
/// (`settings.sportsmanship` is the scale as a whole: its message goes next to the maximum).
pub(super) const SETTING_INPUTS: [(&str, &str); 12] = [
    ("settings.forfeit.grace_minutes", "grace_minutes"),
    ("settings.forfeit.drop_after", "drop_after"),
    ("settings.sportsmanship", "rating_max"),
    ("settings.sportsmanship.min", "rating_min"),
    ("settings.sportsmanship.max", "rating_max"),
    ("settings.sportsmanship.forfeit_rating", "forfeit_rating"),
    ("settings.sportsmanship.required", "rating_required"),
    (
        "settings.eligibility.min_sportsmanship",
        "min_sportsmanship",
    ),
    ("settings.eligibility.max_forfeits", "max_forfeits"),
    ("settings.eligibility.min_win_pct", "min_win_pct"),
    (
        "settings.eligibility.require_all_played",
        "require_all_played",
    ),
    ("settings.lineups.required", "lineups_required"),
];

/// The error of a setting placed on its input (a field the form has no input for, such as
/// `settings` itself, goes to the top of the form).
pub(super) fn setting_error(field: &str, message: impl Into<String>) -> Errors {
    let input = SETTING_INPUTS
        .iter()
        .find(|(path, _)| *path == field)
        .map_or("", |(_, input)| input);
    Errors::new("league", input, message)
}

/// A whole number as typed: empty is `null`.
fn whole(typed: &str, input: &str, what: &str) -> Result<Value, Errors> {
    let t = typed.trim();
    if t.is_empty() {
        return Ok(Value::Null);
    }
    t.parse::<u32>().map(Value::from).map_err(|_| {
        Errors::new(
            "league",
            input,
            format!("{what} is a whole number (or empty), not \"{t}\""),
        )
    })
}

/// A decimal as typed ("2.5"; with `percent`, "50%" is 0.5): empty is `null`.
fn number(typed: &str, input: &str, what: &str, percent: bool) -> Result<Value, Errors> {
    let t = typed.trim();
    if t.is_empty() {
        return Ok(Value::Null);
    }
    let parsed = match t.strip_suffix('%').filter(|_| percent) {
        Some(p) => p.trim().parse::<f64>().map(|p| p / 100.0),
        None => t.parse::<f64>(),
    };
    match parsed {
        Ok(x) if x.is_finite() => Ok(Value::from(x)),
        _ => Err(Errors::new(
            "league",
            input,
            format!("{what} is a number (or empty), not \"{t}\""),
        )),
    }
}

impl LeagueForm {
    /// The season settings as a change the service takes (every field given, so the result
    /// is what the form shows whatever was stored), and the settings it makes; `None` when
    /// the post has no settings fieldset. Values out of range are the error of their input.
    pub(super) fn settings(&self) -> Result<Option<(Value, Settings)>, Errors> {
        if self.settings_form.is_empty() {
            return Ok(None);
        }
        let rate = !self.rate_sportsmanship.is_empty();
        if !rate && !self.min_sportsmanship.trim().is_empty() {
            return Err(Errors::new(
                "league",
                "min_sportsmanship",
                "a sportsmanship minimum needs the rating scale: tick \u{201c}Rate sportsmanship\u{201d} (or clear the minimum)",
            ));
        }
        let forfeit = serde_json::json!({
            "grace_minutes": whole(&self.grace_minutes, "grace_minutes", "the grace period")?,
            "drop_after": whole(&self.drop_after, "drop_after", "the number of forfeits")?,
        });
        let sportsmanship = if rate {
            serde_json::json!({
                "min": whole(&self.rating_min, "rating_min", "the lowest rating")?,
                "max": whole(&self.rating_max, "rating_max", "the highest rating")?,
                "forfeit_rating": whole(&self.forfeit_rating, "forfeit_rating", "the forfeit rating")?,
                "required": !self.rating_required.is_empty(),
            })
        } else {
            Value::Null
        };
        let eligibility = serde_json::json!({
            "min_sportsmanship": number(&self.min_sportsmanship, "min_sportsmanship", "the minimum average", false)?,
            "max_forfeits": whole(&self.max_forfeits, "max_forfeits", "the forfeit limit")?,
            "min_win_pct": number(&self.min_win_pct, "min_win_pct", "the minimum win percentage", true)?,
            "require_all_played": !self.require_all_played.is_empty(),
        });
        let patch = serde_json::json!({
            "forfeit": forfeit,
            "sportsmanship": sportsmanship,
            "eligibility": eligibility,
            "lineups": {"required": !self.lineups_required.is_empty()},
        });
        let settings = Settings::default()
            .merged(&patch)
            .map_err(|e| setting_error(&e.field, e.message))?;
        Ok(Some((patch, settings)))
    }
}
