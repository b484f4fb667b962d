//! "Schedule <round>" on the admin playoffs page: once the bracket exists, one form per
//! bracket round that has a match still to place (docs/api.md §18.5), listing each match of
//! the round by its label and teams with a date-and-time and a table input, saved at once by
//! [`reschedule::schedule_round`] (all or nothing). A match that has started, or whose teams
//! are not known yet (no real match to place), is shown as text.
//!
//! The form posts `round` (the round's key), `match` once per match listed, and
//! `at-{id}` / `table-{id}` per match, as typed.

use std::collections::HashMap;

use super::super::Errors;
use crate::domain::{BracketMatchStatus, MatchId, MatchStatus};
use crate::service::ServiceError;
use crate::service::playoffs::BracketView;
use crate::service::term::admin_schedule::{self, ScheduleAdmin, ScheduleWarning};
use crate::service::term::reschedule::{RoundItem, RoundSchedule};
use crate::web::view::bracket::BracketDrawing;
use crate::web::view::time;

/// A round's form on the page.
pub(super) struct RoundForm {
    /// `winners-1`, `losers-2`…: the form's name in [`Errors`] and its anchor (`round-{key}`).
    pub key: String,
    /// "the quarter-finals", as the button and the notice say it.
    pub phrase: String,
    pub lines: Vec<RoundLine>,
}

/// One match of a round's form.
pub(super) struct RoundLine {
    /// The real match, when it has one with inputs.
    pub id: Option<MatchId>,
    /// "M5 · Quarter-final".
    pub label: String,
    /// "Team 1 v Team 8", or "Team 1 v Winner of M3" while a slot is open.
    pub teams: String,
    /// The date-and-time and table inputs' values (typed, or the match's own).
    pub at: String,
    pub table: String,
    /// For a match shown as text: its state, time and table in words.
    pub words: String,
}

impl RoundLine {
    /// The field's key in [`Errors`]: `m{id}-scheduled_at` or `m{id}-table`.
    pub fn field(&self, field: &str) -> String {
        self.id
            .map(|id| format!("m{id}-{field}"))
            .unwrap_or_default()
    }
}

/// The form as posted: the round and each match's values, as typed.
pub(super) struct RoundTyped {
    pub round: String,
    /// The matches listed, in the page's order, each with its time and table as typed.
    pub items: Vec<(MatchId, String, String)>,
}

impl RoundTyped {
    pub fn of(fields: &[(String, String)]) -> RoundTyped {
        let value = |name: &str| {
            fields
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        let items = fields
            .iter()
            .filter(|(k, _)| k == "match")
            .filter_map(|(_, v)| v.trim().parse::<i64>().ok().map(MatchId))
            .map(|id| {
                (
                    id,
                    value(&format!("at-{id}")),
                    value(&format!("table-{id}")),
                )
            })
            .collect();
        RoundTyped {
            // The anchor of the redirect: only the characters a round's key has.
            round: value("round")
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect(),
            items,
        }
    }

    /// What the service takes: every listed match with its time and table (an empty input
    /// is "none").
    pub fn input(&self) -> RoundSchedule {
        RoundSchedule {
            matches: self
                .items
                .iter()
                .map(|(id, at, table)| RoundItem {
                    id: *id,
                    scheduled_at: Some(Some(at.clone())),
                    table: Some(Some(table.clone())),
                })
                .collect(),
        }
    }

    fn typed(&self, id: MatchId) -> Option<(&str, &str)> {
        self.items
            .iter()
            .find(|(m, _, _)| *m == id)
            .map(|(_, at, table)| (at.as_str(), table.as_str()))
    }
}

/// "Quarter-finals" → "the quarter-finals"; "Round 1" → "round 1"; "Third place" → "the
/// third-place match".
fn phrase(title: &str) -> String {
    let lower = title.to_lowercase();
    if lower == "third place" {
        "the third-place match".into()
    } else if lower.starts_with("round ") || lower.starts_with("losers round ") {
        lower
    } else {
        format!("the {lower}")
    }
}

/// The match in words when it has no inputs: started, finished, or waiting for its teams.
fn words_of(status: BracketMatchStatus, placed: Option<(&str, Option<&str>)>) -> String {
    let state = match status {
        BracketMatchStatus::Waiting => {
            return "gets a time and table here once both teams are known".into();
        }
        BracketMatchStatus::Match(MatchStatus::InProgress) => "being played",
        BracketMatchStatus::Match(MatchStatus::Complete) => "played",
        BracketMatchStatus::Match(MatchStatus::Forfeit) => "decided by forfeit",
        BracketMatchStatus::Match(MatchStatus::Cancelled) => "cancelled",
        _ => "read-only",
    };
    match placed {
        Some((when, table)) => format!("{state}: {when}, {}", table.unwrap_or("no table")),
        None => state.into(),
    }
}

/// The round forms of `bracket`: a form for each round with a match still to place (none
/// for a past season, read-only). `typed` is a refused form's values, kept in its round.
pub(super) fn round_forms(
    bracket: &BracketView,
    schedule: &ScheduleAdmin,
    typed: Option<&RoundTyped>,
) -> Vec<RoundForm> {
    // The drawing names the rounds as the bracket page does; its boxes are numbered
    // "M{id + 1}", which finds each box's match again.
    let by_number: HashMap<String, _> = bracket
        .matches
        .iter()
        .map(|m| (format!("M{}", m.id + 1), m))
        .collect();
    let mut forms = Vec::new();
    for section in BracketDrawing::new(bracket, false).sections {
        for round in section.rounds {
            let key = format!("{}-{}", section.key, round.round);
            let typed = typed.filter(|t| t.round == key);
            let lines: Vec<RoundLine> = round
                .boxes
                .iter()
                .filter_map(|b| {
                    let m = by_number.get(&b.number)?;
                    if matches!(
                        m.status,
                        BracketMatchStatus::Bye | BracketMatchStatus::NotNeeded
                    ) {
                        return None;
                    }
                    let real = m.match_id.and_then(|id| schedule.by_id(id));
                    let teams = format!("{} v {}", b.sides[0].name, b.sides[1].name);
                    let editable = real.filter(|r| !schedule.archived && r.status.is_unstarted());
                    Some(match editable {
                        Some(r) => {
                            let (at, table) = typed.and_then(|t| t.typed(r.id)).map_or_else(
                                || {
                                    (
                                        r.scheduled_at.map(|t| t.to_string()).unwrap_or_default(),
                                        r.table.clone().unwrap_or_default(),
                                    )
                                },
                                |(at, table)| (at.to_string(), table.to_string()),
                            );
                            RoundLine {
                                id: Some(r.id),
                                label: m.label.clone(),
                                teams,
                                at,
                                table,
                                words: String::new(),
                            }
                        }
                        None => RoundLine {
                            id: None,
                            label: m.label.clone(),
                            teams,
                            at: String::new(),
                            table: String::new(),
                            words: words_of(
                                m.status,
                                real.map(|r| {
                                    (
                                        r.scheduled_at
                                            .map_or_else(|| "no time".into(), time::scheduled),
                                        r.table.as_deref(),
                                    )
                                })
                                .as_ref()
                                .map(|(w, t)| (w.as_str(), *t)),
                            ),
                        },
                    })
                })
                .collect();
            if lines.iter().any(|l| l.id.is_some()) {
                forms.push(RoundForm {
                    phrase: phrase(&round.title),
                    key,
                    lines,
                });
            }
        }
    }
    forms
}

/// A refusal of round form `typed` as the page shows it: the field is the match's input
/// (`matches[2].table` → `m{id}-table`) and the message names the match by its label
/// ("M6 · Quarter-final: the table …"), not by its place in the list.
pub(super) fn refusal(typed: &RoundTyped, forms: &[RoundForm], e: &ServiceError) -> Errors {
    let (field, message) = match e {
        ServiceError::Invalid(c) | ServiceError::ConflictOn(c) => (
            c.field.as_ref().map(|f| f.to_string()).unwrap_or_default(),
            c.message.clone(),
        ),
        other => (String::new(), other.to_string()),
    };
    let item = field
        .strip_prefix("matches[")
        .and_then(|rest| rest.split_once(']'))
        .and_then(|(i, rest)| Some((i.parse::<usize>().ok()?, rest.trim_start_matches('.'))));
    let Some((i, inner)) = item else {
        return Errors::new(&typed.round, "", message);
    };
    // The service says "match 3 of the list: …"; the page names the match instead.
    let message = message
        .split_once(" of the list: ")
        .map_or(message.as_str(), |(_, m)| m)
        .to_string();
    let Some((id, _, _)) = typed.items.get(i) else {
        return Errors::new(&typed.round, "", message);
    };
    let label = forms
        .iter()
        .flat_map(|f| &f.lines)
        .find(|l| l.id == Some(*id))
        .map(|l| l.label.clone())
        .unwrap_or_else(|| format!("Match {id}"));
    let field = match inner {
        "scheduled_at" | "table" => format!("m{id}-{inner}"),
        _ => String::new(),
    };
    Errors::new(&typed.round, &field, format!("{label}: {message}"))
}

/// The notice after a round's save (`?round={key}&n={count}`, [`super::RoundQuery`]):
/// what was saved, and the clash warnings of the round's matches as they are now.
pub(super) fn notice_of(
    query: &super::RoundQuery,
    forms: &[RoundForm],
    schedule: &ScheduleAdmin,
) -> Option<(String, Vec<ScheduleWarning>)> {
    let key = query.round.as_deref()?;
    let form = forms.iter().find(|f| f.key == key)?;
    let n = query.n.unwrap_or(0);
    let text = format!(
        "Scheduled {} ({n} match{})",
        form.phrase,
        if n == 1 { "" } else { "es" }
    );
    let mut warnings: Vec<ScheduleWarning> = Vec::new();
    for id in form.lines.iter().filter_map(|l| l.id) {
        for w in admin_schedule::warnings_in(schedule, id) {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
    }
    Some((text, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_in_words() {
        assert_eq!(phrase("Quarter-finals"), "the quarter-finals");
        assert_eq!(phrase("Round 1"), "round 1");
        assert_eq!(phrase("Losers round 2"), "losers round 2");
        assert_eq!(phrase("Grand final"), "the grand final");
        assert_eq!(phrase("Third place"), "the third-place match");
    }
}
