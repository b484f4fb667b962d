//! The league form as typed (strings, so a bad value comes back as it was), read from and
//! into the service's league input: a preset and JSON overrides per stage, and up to three
//! tiebreaks.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::Errors;
use crate::rules::{RulesSpec, Stage};
use crate::service::leagues::{League, NewLeagueInput, StageRules};

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
            slug: league.row.slug.clone(),
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
    }

    pub(super) fn blank() -> LeagueForm {
        LeagueForm {
            regular_preset: "unc-im-300".into(),
            tiebreak1: "head_to_head".into(),
            tiebreak2: "differential".into(),
            tiebreak3: "points_for".into(),
            ..LeagueForm::default()
        }
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
