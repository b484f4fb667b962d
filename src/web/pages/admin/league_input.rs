//! The league form as typed (strings, so a bad value comes back as it was), read from and
//! into the service's league input: a preset and the rules' controls per stage
//! ([`rules_form`]: no JSON), and up to three tiebreaks.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::Errors;
use crate::league::settings::Settings;
use crate::rules::rules_form::{self, TypedRules, read_rules};
use crate::rules::{RulesSpec, Stage, preset};
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
    pub(super) playoff_preset: String,
    #[serde(default)]
    pub(super) final_preset: String,
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
    /// Hours of notice a captain's default needs; empty: no defaults.
    #[serde(default)]
    pub(super) default_notice_hours: String,
    /// Hours after a match's end a captain may dispute it; empty: 24.
    #[serde(default)]
    pub(super) dispute_hours: String,
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
    pub(super) playoff_teams: String,
    /// "1" when each division's winner takes a place first; empty otherwise.
    #[serde(default)]
    pub(super) division_winners_first: String,
    #[serde(default)]
    pub(super) lineups_required: String,
    /// Every other field: the rules' controls, `{stage}_{control}` ("regular_target"),
    /// as typed (and the CSRF token, unread here).
    #[serde(flatten)]
    pub(super) controls: BTreeMap<String, String>,
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
    /// One stage's preset and rules controls, as typed.
    pub(super) fn stage(&self, stage: Stage) -> (&str, TypedRules) {
        let preset = match stage {
            Stage::Regular => &self.regular_preset,
            Stage::Playoff => &self.playoff_preset,
            Stage::Final => &self.final_preset,
        };
        let prefix = format!("{}_", stage.as_str());
        let mut typed = TypedRules::default();
        for (name, value) in &self.controls {
            if let Some(control) = name.strip_prefix(&prefix) {
                typed.set(control, value);
            }
        }
        (preset, typed)
    }

    /// The rules controls that are set, as the form's fields (for the preview's hidden
    /// fields), in the stages' order.
    pub(super) fn set_controls(&self) -> Vec<(String, String)> {
        STAGES
            .iter()
            .flat_map(|&(stage, _)| {
                let (_, typed) = self.stage(stage);
                typed
                    .set_controls()
                    .map(|(name, value)| (format!("{}_{name}", stage.as_str()), value.to_string()))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    pub(super) fn tiebreaks(&self) -> [&str; 3] {
        [&self.tiebreak1, &self.tiebreak2, &self.tiebreak3]
    }

    /// The form of an existing league.
    pub(super) fn of(league: &League) -> LeagueForm {
        let mut controls = BTreeMap::new();
        let mut split = |stage: Stage, spec: &RulesSpec| -> String {
            let name = spec.preset_name().unwrap_or_default().to_string();
            if let (RulesSpec::Custom(map), Some(base)) = (spec, preset(&name)) {
                let mut overrides = map.clone();
                overrides.remove("preset");
                let typed = TypedRules::of_overrides(&overrides, &base.rules);
                for (control, value) in typed.set_controls() {
                    controls.insert(format!("{}_{control}", stage.as_str()), value.to_string());
                }
            }
            name
        };
        let rp = split(Stage::Regular, &league.specs[0]);
        let pp = split(Stage::Playoff, &league.specs[1]);
        let fp = split(Stage::Final, &league.specs[2]);
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
            playoff_preset: pp,
            final_preset: fp,
            controls,
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
        self.default_notice_hours = num(settings.forfeit.default_notice_hours);
        self.dispute_hours = settings.disputes.hours.to_string();
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
        self.playoff_teams = num(settings.playoffs.teams);
        self.division_winners_first = tick(settings.playoffs.division_winners_first);
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
    /// A mistake is placed at its control (`{stage}_{control}`, or the stage's preset).
    fn spec(&self, stage: Stage) -> Result<Option<RulesSpec>, Errors> {
        let key = stage.as_str();
        let (preset, typed) = self.stage(stage);
        let preset = preset.trim();
        if preset.is_empty() && stage != Stage::Regular {
            if !typed.is_empty() {
                return Err(Errors::new(
                    "league",
                    &format!("{key}_preset"),
                    "pick a preset for these changes (or clear them to use the regular-season rules)",
                ));
            }
            return Ok(None);
        }
        read_rules(preset, &typed)
            .map(|(spec, _)| Some(spec))
            .map_err(|e| Errors::new("league", &control_input(stage, e.control), e.message))
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
}

/// A stage's rules in words: "unc-im-300", or "unc-im-300, changed: Game to (points) 500;
/// Shooting the moon (13 bid) on" for a preset with overrides.
pub(super) fn spec_words(spec: &RulesSpec) -> String {
    let name = spec.preset_name().unwrap_or_default().to_string();
    let (RulesSpec::Custom(map), Some(base)) = (spec, preset(&name)) else {
        return name;
    };
    let mut overrides = map.clone();
    overrides.remove("preset");
    let typed = TypedRules::of_overrides(&overrides, &base.rules);
    let changes: Vec<String> = typed
        .set_controls()
        .map(|(control, value)| rules_form::in_words(control, value))
        .collect();
    if changes.is_empty() {
        return name;
    }
    format!("{name}, changed: {}", changes.join("; "))
}

/// The form's input of a stage's rules control (`""`: the stage's preset).
pub(super) fn control_input(stage: Stage, control: &str) -> String {
    let control = if control.is_empty() {
        "preset"
    } else {
        control
    };
    format!("{}_{control}", stage.as_str())
}

/// The form's input a service error about `rules.{stage}.{path}` goes to.
pub(super) fn rules_error_input(stage: &str, path: &str) -> String {
    let stage = STAGES
        .iter()
        .map(|(s, _)| *s)
        .find(|s| s.as_str() == stage)
        .unwrap_or(Stage::Regular);
    control_input(stage, rules_form::control_at(path))
}

/// A decimal as the form shows it: "3", "2.5", "0.625" (the shortest text that reads back
/// as the same number, so an unchanged form changes nothing).
fn decimal(x: f64) -> String {
    x.to_string()
}

/// Each setting's input on the form and the field the service names in its errors
/// (`settings.sportsmanship` is the scale as a whole: its message goes next to the maximum).
pub(super) const SETTING_INPUTS: [(&str, &str); 16] = [
    ("settings.forfeit.grace_minutes", "grace_minutes"),
    ("settings.forfeit.drop_after", "drop_after"),
    (
        "settings.forfeit.default_notice_hours",
        "default_notice_hours",
    ),
    ("settings.disputes.hours", "dispute_hours"),
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
    ("settings.playoffs.teams", "playoff_teams"),
    (
        "settings.playoffs.division_winners_first",
        "division_winners_first",
    ),
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
            // Empty is `null`: the league takes no defaults.
            "default_notice_hours": whole(&self.default_notice_hours, "default_notice_hours", "the hours of notice")?,
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
            // Empty is `null`: the default window, 24 hours.
            "disputes": {"hours": whole(&self.dispute_hours, "dispute_hours", "the hours to dispute")?},
            "playoffs": {"teams": whole(&self.playoff_teams, "playoff_teams", "the number of playoff teams")?,
                          "division_winners_first": !self.division_winners_first.is_empty()},
        });
        let settings = Settings::default()
            .merged(&patch)
            .map_err(|e| setting_error(&e.field, e.message))?;
        Ok(Some((patch, settings)))
    }
}
