//! Lineups on the console: each team's two players at the table, set before the first hand
//! and changed later as a substitution (from the next hand on). A seat is picked from the
//! team's roster (active players, by name) or found by the student ID typed into its field,
//! which card readers type into too (`console.js` moves on at their Enter and scans a card
//! with the camera where the browser can). The console never shows a student ID or an
//! email: a refusal names the seat and the team, not what was typed.
//!
//! Every write goes through `service::night::lineups::set_lineup`, as the JSON API's does. A refused
//! lineup re-renders the console (422) with the error summary at the top, the typed values
//! kept and the message at the field; a closed match gives the console's conflict (409).

use super::field;
use crate::domain::{ErrorCode, FieldError, IdempotencyKey, MatchStatus, TextEnum};
use crate::rules::Team;
use crate::service::night::lineups::LineupInput;
use crate::service::night::match_view::MatchView;
use crate::service::night::match_view::Seat;

/// A lineup form as posted, kept as typed so it comes back as it was.
#[derive(Debug, Clone, Default)]
pub(super) struct LineupForm {
    /// `a` or `b`.
    pub team: String,
    /// The players picked from the roster (their ids), by seat.
    pub players: [String; 2],
    /// The student IDs typed (or read by a card reader), by seat.
    pub student_ids: [String; 2],
    /// The form's idempotency key (a resend changes nothing).
    pub key: String,
}

/// A student ID as a card reader types it: without the magnetic stripe's start sentinel (`;`
/// or `%`), end sentinel (`?`) and the whitespace around.
pub(super) fn card_text(typed: &str) -> &str {
    let text = typed.trim();
    let text = text.strip_prefix([';', '%']).unwrap_or(text);
    let text = text.strip_suffix('?').unwrap_or(text);
    text.trim()
}

/// "first" or "second".
fn ordinal(seat: usize) -> &'static str {
    if seat == 0 { "first" } else { "second" }
}

impl LineupForm {
    pub fn from_pairs(fields: &[(String, String)]) -> LineupForm {
        LineupForm {
            team: field(fields, "team").trim().to_string(),
            players: ["player1", "player2"].map(|n| field(fields, n).trim().to_string()),
            student_ids: ["student_id1", "student_id2"].map(|n| card_text(field(fields, n)).into()),
            key: field(fields, "idempotency_key").to_string(),
        }
    }

    pub(super) fn team(&self) -> Option<Team> {
        Team::parse(&self.team).ok()
    }

    /// The lineup as the service takes it: both seats by student ID where one is typed, else
    /// both picked from the roster; or what is missing (`team_name` names the team).
    pub(super) fn to_input(&self, team_name: &str) -> Result<LineupInput, FieldError> {
        let typed = self.student_ids.iter().map(|s| !s.is_empty());
        let typed: Vec<bool> = typed.collect();
        if typed.iter().any(|t| *t) {
            if let Some(blank) = typed.iter().position(|t| !t) {
                return Err(FieldError::at(
                    ErrorCode::InvalidInput,
                    format!("student_ids[{blank}]"),
                    format!(
                        "type the {} player's student ID too (or clear both student IDs and pick {team_name}'s players from the list)",
                        ordinal(blank)
                    ),
                ));
            }
            return Ok(LineupInput {
                team: self.team.clone(),
                players: None,
                student_ids: Some(
                    self.student_ids
                        .iter()
                        .map(|s| serde_json::Value::String(s.clone()))
                        .collect(),
                ),
                idempotency_key: IdempotencyKey::from_form(&self.key)?,
            });
        }
        let mut ids = Vec::with_capacity(2);
        for (seat, picked) in self.players.iter().enumerate() {
            let id = picked.parse().map_err(|_| {
                FieldError::at(
                    ErrorCode::InvalidInput,
                    format!("players[{seat}]"),
                    format!(
                        "choose {team_name}'s {} player, or type their student ID",
                        ordinal(seat)
                    ),
                )
            })?;
            ids.push(id);
        }
        Ok(LineupInput {
            team: self.team.clone(),
            players: Some(ids),
            student_ids: None,
            idempotency_key: IdempotencyKey::from_form(&self.key)?,
        })
    }
}

/// A team's lineup box on the console.
pub(super) struct LineupTeam {
    pub key: &'static str,
    pub name: String,
    /// The two players set for the next hand, by name.
    pub set: Option<[String; 2]>,
    pub seats: Vec<LineupSeat>,
    /// A message for the whole form (the team, the same player twice).
    pub error: Option<String>,
    /// The form is shown open (no lineup yet, or it came back with an error).
    pub open: bool,
}

/// One seat of a team's lineup form.
pub(super) struct LineupSeat {
    /// 1 or 2: the field names' number (`player1`, `student_id2`).
    pub n: usize,
    /// The seat at the table: team a's are 1 and 3, team b's 2 and 4.
    pub table_seat: usize,
    /// The team's active players to pick from: `(id, name, selected)`.
    pub options: Vec<(String, String, bool)>,
    /// The student ID as typed (sent back with an error).
    pub typed: String,
    pub error: Option<String>,
}

/// The lineups part of the console: before the first hand, or as substitutions during the
/// match.
pub(super) struct LineupsView {
    /// A hand was played: a change is a substitution from the next hand on.
    pub substitution: bool,
    /// The next hand's number.
    pub next_hand: usize,
    pub teams: Vec<LineupTeam>,
    /// The error summary's message and the field it links to.
    pub error: Option<(String, String)>,
}

/// The console's lineups of `view` (not over), with each team's active `rosters`; `typed`:
/// a form sent back with its error.
pub(super) fn lineups_view(
    view: &MatchView,
    rosters: &[Vec<Seat>; 2],
    typed: Option<(&LineupForm, &FieldError)>,
) -> Option<LineupsView> {
    if !matches!(
        view.status,
        MatchStatus::Scheduled | MatchStatus::InProgress
    ) {
        return None;
    }
    let names = [view.team_a.name.as_str(), view.team_b.name.as_str()];
    let error_team = typed.and_then(|(f, _)| f.team()).unwrap_or(Team::A);
    let mut summary = None;
    let teams = Team::BOTH
        .into_iter()
        .map(|team| {
            let name = names[team.index()];
            let set = view
                .lineup
                .of(team)
                .map(|s| [s[0].name.clone(), s[1].name.clone()]);
            let mine = typed.filter(|_| team == error_team);
            let chosen: [String; 2] = match (mine, view.lineup.of(team)) {
                (Some((f, _)), _) => f.players.clone(),
                (None, Some(s)) => [s[0].id.to_string(), s[1].id.to_string()],
                (None, None) => Default::default(),
            };
            let mut seat_errors: [Option<String>; 2] = Default::default();
            let mut error = None;
            if let Some((f, e)) = mine {
                let (seat, message, target) = words_of(team, name, f, e);
                match seat {
                    Some(seat) => seat_errors[seat] = Some(message.clone()),
                    None => error = Some(message.clone()),
                }
                summary = Some((message, target));
            }
            let seats = (0..2)
                .zip(seat_errors)
                .map(|(seat, error)| LineupSeat {
                    n: seat + 1,
                    table_seat: 2 * seat + 1 + team.index(),
                    options: rosters[team.index()]
                        .iter()
                        .map(|p| {
                            let id = p.id.to_string();
                            let selected = id == chosen[seat];
                            (id, p.name.clone(), selected)
                        })
                        .collect(),
                    typed: mine
                        .map(|(f, _)| f.student_ids[seat].clone())
                        .unwrap_or_default(),
                    error,
                })
                .collect();
            LineupTeam {
                key: team.as_str(),
                name: name.to_string(),
                open: set.is_none() || mine.is_some(),
                set,
                seats,
                error,
            }
        })
        .collect();
    Some(LineupsView {
        substitution: !view.hands.is_empty(),
        next_hand: view.hands.len() + 1,
        teams,
        error: summary,
    })
}

/// A refusal of team `team`'s (named `name`) lineup `form` in the console's words: the seat
/// it is about (none: the whole form), the message, and the id of the field it links to.
/// Never a student ID: the seat and the team are named instead.
fn words_of(
    team: Team,
    name: &str,
    form: &LineupForm,
    e: &FieldError,
) -> (Option<usize>, String, String) {
    let key = team.as_str();
    let path = e.field.as_ref().map(|f| f.as_str()).unwrap_or_default();
    let seat = if path.ends_with("[1]") {
        Some(1)
    } else if path.ends_with("[0]") {
        Some(0)
    } else {
        None
    };
    let by_student_id = path.starts_with("student_ids");
    let what = |seat: usize| {
        if by_student_id {
            format!("The {} student ID", ordinal(seat))
        } else {
            format!("The {} player", ordinal(seat))
        }
    };
    let message = match (e.code, seat) {
        (ErrorCode::NotOnRoster, Some(s)) if by_student_id => format!(
            "{} is not on {name}'s roster: no active player of {name} has it",
            what(s)
        ),
        (ErrorCode::NotOnRoster, Some(s)) => {
            format!("{} is not on {name}'s roster (any more)", what(s))
        }
        (ErrorCode::InvalidStudentId, Some(s)) => format!(
            "{} is not a student ID: letters, digits and “-” only, up to 40",
            what(s)
        ),
        (ErrorCode::InvalidInput, _) if path.starts_with("players") && seat.is_none() => {
            format!("{name}: the two seats need two different players")
        }
        _ => super::message_of(e, [name, name]),
    };
    let target = match seat {
        Some(s) if by_student_id => format!("lineup-{key}-student-id{}", s + 1),
        Some(s) => format!("lineup-{key}-player{}", s + 1),
        None if form.student_ids.iter().any(|s| !s.is_empty()) => {
            format!("lineup-{key}-student-id1")
        }
        None => format!("lineup-{key}-player1"),
    };
    (seat, message, target)
}

#[cfg(test)]
mod tests {
    use super::super::test_pairs as pairs;
    use super::*;

    #[test]
    fn a_card_readers_sentinels_are_not_part_of_the_id() {
        assert_eq!(card_text(";20231234?\n"), "20231234");
        assert_eq!(card_text(" %A-77? "), "A-77");
        assert_eq!(card_text("20231234"), "20231234");
        assert_eq!(card_text("  "), "");
    }

    #[test]
    fn both_seats_by_student_id_or_both_picked() {
        let form = LineupForm::from_pairs(&pairs(&[
            ("team", "b"),
            ("player1", "3"),
            ("player2", ""),
            ("student_id1", ";111?"),
            ("student_id2", "222"),
        ]));
        let input = form.to_input("Hall 5").ok();
        let sent = input.and_then(|i| i.student_ids);
        assert_eq!(sent, Some(vec!["111".into(), "222".into()]));

        let half = LineupForm::from_pairs(&pairs(&[("team", "a"), ("student_id2", "222")]));
        let e = half.to_input("Hall 5").err();
        assert_eq!(
            e.and_then(|e| e.field).map(|f| f.to_string()).as_deref(),
            Some("student_ids[0]")
        );

        let none = LineupForm::from_pairs(&pairs(&[("team", "a"), ("player1", "4")]));
        let e = none.to_input("Hall 5").err();
        assert!(e.is_some_and(|e| e.message.contains("Hall 5's second player")));
    }
}
