//! The match as the console's scripts read it: a `<script type="application/json"
//! id="match-data">` under the hand form (a new hand's or a correction's), from which
//! `static/console/form.js` (with preview.js) asks the scoring engine (`static/rules.wasm`,
//! the server's own engine) what the hand being typed scores, and whether its bids are
//! allowed, before it is sent. No page text is scraped.
//!
//! The request it makes is exactly `POST /api/v1/score`'s (docs/api.md §5.1): the match's
//! rules, its stage and every hand recorded, then the hand typed; the server replays the same
//! hands under the same rules when it records one, so both give the same answer.

use serde::Serialize;
use serde_json::Value;

use crate::domain::Timestamp;
use crate::rules::{HandInput, Rules, Stage};
use crate::service::night::match_view::MatchView;

/// The preset the rules are written over: the rules carry every field, so any preset gives
/// the same rules back (see the test).
const BASE_PRESET: &str = "classic";

#[derive(Serialize)]
struct MatchData<'a> {
    /// The rules as a score request names them: a preset with every field overridden.
    rules: Value,
    stage: Stage,
    /// The hands recorded, in order (docs/api.md §4.2).
    hands: Vec<&'a HandInput>,
    /// The teams' names, team a's first: the console names the teams so in its messages.
    names: [&'a str; 2],
    /// The next hand is the one in play when time ran out (the server marks it so).
    time_called: bool,
    /// When the clock runs out, where the next hand is not time-called yet.
    ends_at: Option<Timestamp>,
    /// The form corrects the hand after `hands` rather than adding one (its words differ,
    /// and the outbox's waiting hands come after it, so they do not count).
    correcting: bool,
}

/// The rules written as a score request sends them (docs/api.md §4.1).
fn rules_request(rules: &Rules) -> Option<Value> {
    let mut fields = match serde_json::to_value(rules) {
        Ok(Value::Object(fields)) => fields,
        _ => return None,
    };
    fields.insert("preset".into(), Value::String(BASE_PRESET.into()));
    Some(Value::Object(fields))
}

/// The JSON for the console's new-hand form, safe inside `<script>`; `None` where the rules
/// do not serialize (the form then works without a preview, as without scripts).
pub(super) fn match_data(view: &MatchView, now: Timestamp) -> Option<String> {
    let already = view.hands.iter().any(|h| h.hand.time_called);
    let due = !already && (view.time_called_at.is_some() || view.ends_at.is_some_and(|e| now >= e));
    script_json(&MatchData {
        rules: rules_request(&view.rules)?,
        stage: view.stage,
        hands: view.hands.iter().map(|h| &h.hand).collect(),
        names: [&view.team_a.name, &view.team_b.name],
        time_called: due,
        ends_at: if already || due { None } else { view.ends_at },
        correcting: false,
    })
}

/// The JSON for the correction of the hand after `before`'s hands (`before` is the match
/// as it stood then), which was the time-called hand if `time_called`.
pub(super) fn correction_data(before: &MatchView, time_called: bool) -> Option<String> {
    script_json(&MatchData {
        rules: rules_request(&before.rules)?,
        stage: before.stage,
        hands: before.hands.iter().map(|h| &h.hand).collect(),
        names: [&before.team_a.name, &before.team_b.name],
        time_called,
        ends_at: None,
        correcting: true,
    })
}

fn script_json(data: &MatchData<'_>) -> Option<String> {
    let json = serde_json::to_string(data).ok()?;
    // `<` only ever appears inside a JSON string, where `\u003c` means the same: no team name
    // can close the script element.
    Some(json.replace('<', "\\u003c"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::params::{RulesSpec, presets};

    #[test]
    fn the_rules_request_gives_the_rules_back() {
        // Every preset, and rules with the optional features the base preset has off.
        let mut all: Vec<(String, Rules)> = presets()
            .into_iter()
            .map(|p| (p.name.to_string(), p.rules))
            .collect();
        let custom = serde_json::json!({"preset": "unc-im-300", "blind_bids": {},
            "moon": {"wins_game": true}, "loss_floor": -200, "zero_bid_is_nil": true});
        let Value::Object(custom) = custom else {
            panic!("an object")
        };
        let custom = RulesSpec::Custom(custom)
            .resolve()
            .expect("the custom rules");
        all.push(("custom".into(), custom));
        for (name, rules) in all {
            let Some(Value::Object(request)) = rules_request(&rules) else {
                panic!("{name}: the rules serialize to an object");
            };
            let resolved = RulesSpec::Custom(request).resolve();
            assert_eq!(resolved.as_ref().ok(), Some(&rules), "{name}");
        }
    }
}
