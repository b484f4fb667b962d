//! Conduct at the table on the console (docs/api.md §6.9): teams check in before the start
//! ("Team 1 is here", with an Undo for a wrong tap); once the league's grace period has passed
//! with a team absent, the console offers the forfeit against it, through a confirmation
//! page (nothing forfeits by itself); after the match the supervisor rates both teams'
//! sportsmanship on the league's scale (a forfeiting team shows its fixed forfeit rating).
//!
//! Every write goes through `service::night::conduct`, as the JSON API's do. A refusal because the
//! match moved on (a check-in once started, a rating before the end) re-renders the console
//! with the message (409); a rating off the scale re-renders it with everything chosen kept,
//! an error summary at the top and the message at the field (422).

use crate::domain::ErrorCode;

use super::{field, message_of, when, when_local};
use crate::domain::words::plural;
use crate::domain::{Field, FieldError, IdempotencyKey, LocalTime, MatchStatus};
use crate::league::settings::Settings;
use crate::rules::Team;
use crate::service::night::conduct::{self, RatingInput};
use crate::service::night::console_views;
use crate::service::night::match_view::MatchView;
use crate::service::term::leagues::League;
use crate::web::AppState;
use crate::web::error::PageError;

/// The names of the two teams, `[a, b]`.
pub(super) fn names(view: &MatchView) -> [&str; 2] {
    [view.team_a.name.as_str(), view.team_b.name.as_str()]
}

/// The ratings as posted, kept as text so they come back as chosen.
#[derive(Debug, Clone, Default)]
pub(super) struct RatingForm {
    pub a: String,
    pub b: String,
    pub note: String,
    /// The form's idempotency key (a resend changes nothing).
    pub key: String,
}

impl RatingForm {
    pub fn from_pairs(fields: &[(String, String)]) -> RatingForm {
        RatingForm {
            a: field(fields, "a").trim().to_string(),
            b: field(fields, "b").trim().to_string(),
            note: field(fields, "note").to_string(),
            key: field(fields, "idempotency_key").to_string(),
        }
    }

    /// The ratings stored on the match (to change them).
    fn of_view(view: &MatchView) -> RatingForm {
        let text = |r: Option<u32>| r.map(|r| r.to_string()).unwrap_or_default();
        match &view.sportsmanship {
            Some(s) => RatingForm {
                a: text(s.a),
                b: text(s.b),
                note: s.note.clone().unwrap_or_default(),
                key: String::new(),
            },
            None => RatingForm::default(),
        }
    }

    fn typed(&self, team: Team) -> &str {
        match team {
            Team::A => &self.a,
            Team::B => &self.b,
        }
    }

    /// The ratings as the service takes them, or what is wrong with the form (a team not
    /// rated, not a number); the scale itself is the service's to check.
    pub(super) fn to_input(&self, view: &MatchView) -> Result<RatingInput, FieldError> {
        let names = names(view);
        let mut values = [0i64; 2];
        for team in Team::BOTH {
            let typed = self.typed(team);
            let name = names[team.index()];
            values[team.index()] = match typed {
                "" => {
                    return Err(FieldError::at(
                        ErrorCode::InvalidRating,
                        team.as_str(),
                        format!("choose a rating for {name}"),
                    ));
                }
                typed => typed.parse().map_err(|_| {
                    FieldError::at(
                        ErrorCode::InvalidRating,
                        team.as_str(),
                        format!("a rating is a whole number, not \"{typed}\""),
                    )
                })?,
            };
        }
        Ok(RatingInput {
            a: values[0],
            b: values[1],
            note: Some(self.note.clone()),
            idempotency_key: IdempotencyKey::from_form(&self.key)?,
        })
    }
}

/// A team's check-in line: its button, or when it checked in.
pub(super) struct CheckInRow {
    pub key: &'static str,
    pub name: String,
    /// "Mon 23 Nov, 18:52" once checked in.
    pub at: Option<String>,
}

/// A team still absent after the grace period: the forfeit offered against it.
pub(super) struct AbsentRow {
    pub key: &'static str,
    pub name: String,
    /// "12 minutes" after the match's time.
    pub late: String,
}

/// One choice of a rating scale.
pub(super) struct RatingOption {
    pub value: String,
    pub checked: bool,
}

/// A team's row of the ratings form.
pub(super) struct RatingTeam {
    pub key: &'static str,
    pub name: String,
    /// The league's forfeit rating, for a team that forfeited: shown, not asked.
    pub fixed: Option<String>,
    pub options: Vec<RatingOption>,
    /// The rating stored now.
    pub saved: Option<u32>,
    pub error: Option<String>,
}

/// The ratings part of the console, after a complete or forfeited match in a league that
/// rates sportsmanship.
pub(super) struct RatingsView {
    pub min: u32,
    pub max: u32,
    /// The league requires ratings and a team is not rated yet.
    pub missing: bool,
    /// Both teams are rated: the ratings are shown, the form is for a change.
    pub saved: bool,
    /// The form is shown open (nothing saved yet, or it came back with an error).
    pub open: bool,
    pub teams: Vec<RatingTeam>,
    /// The note as stored (shown with the saved ratings).
    pub saved_note: Option<String>,
    /// The note in the form.
    pub note: String,
    pub note_error: Option<String>,
    /// The error summary at the top of the page, and the field it links to.
    pub error: Option<(String, String)>,
}

/// The conduct parts of the console.
#[derive(Default)]
pub(super) struct ConductView {
    /// Before the start: each team's check-in.
    pub check_in: Vec<CheckInRow>,
    /// Before the grace period ends: when it does ("Mon 23 Nov, 19:10").
    pub grace_ends: Option<String>,
    /// After it: the teams still absent.
    pub absent: Vec<AbsentRow>,
    pub ratings: Option<RatingsView>,
}

/// What the console shows of conduct for `view` at local time `now`; `typed` is a ratings
/// form sent back with its error.
pub(super) fn conduct_view(
    view: &MatchView,
    settings: &Settings,
    now: LocalTime,
    zone: chrono_tz::Tz,
    typed: Option<(&RatingForm, &FieldError)>,
) -> ConductView {
    let names = names(view);
    let mut out = ConductView::default();
    if view.status == MatchStatus::Scheduled {
        out.check_in = Team::BOTH
            .into_iter()
            .map(|team| {
                let at = match team {
                    Team::A => view.checked_in.a,
                    Team::B => view.checked_in.b,
                };
                CheckInRow {
                    key: team.as_str(),
                    name: names[team.index()].to_string(),
                    at: at.map(|t| when(t, zone)),
                }
            })
            .collect();
        out.grace_ends = conduct::grace_ends(view, settings)
            .filter(|ends| now.0 < ends.0)
            .map(when_local);
        let late = view
            .scheduled_at
            .map_or(0, |at| (now.0 - at.0).num_minutes().max(0));
        out.absent = conduct::absent_after_grace(view, settings, now)
            .into_iter()
            .map(|team| AbsentRow {
                key: team.as_str(),
                name: names[team.index()].to_string(),
                late: plural(late, "minute", "minutes"),
            })
            .collect();
    }
    out.ratings = ratings_view(view, settings, typed);
    out
}

/// The league's forfeit rating of `team` in `view`, when the team forfeited and the league
/// has one.
fn fixed_rating(view: &MatchView, settings: &Settings, team: Team) -> Option<u32> {
    let rating = settings.sportsmanship.as_ref()?.forfeit_rating?;
    let side = view.forfeit?;
    match side.team() {
        Some(t) if t != team => None,
        _ => Some(rating),
    }
}

fn ratings_view(
    view: &MatchView,
    settings: &Settings,
    typed: Option<(&RatingForm, &FieldError)>,
) -> Option<RatingsView> {
    let scale = settings.sportsmanship.as_ref()?;
    let stored = view.sportsmanship.as_ref()?;
    if !view.status.is_result() {
        return None;
    }
    let names = names(view);
    let saved_form = RatingForm::of_view(view);
    let (form, error) = match typed {
        Some((f, e)) => (f, Some(e)),
        None => (&saved_form, None),
    };
    let blamed = error.and_then(|e| e.field.as_ref());
    let teams = Team::BOTH
        .into_iter()
        .map(|team| {
            let chosen = form.typed(team);
            let mut values: Vec<String> = (scale.min..=scale.max).map(|v| v.to_string()).collect();
            // A number off the scale (sent anyway) is kept, so the message makes sense.
            if chosen.parse::<i64>().is_ok() && !values.iter().any(|v| v == chosen) {
                values.push(chosen.to_string());
            }
            RatingTeam {
                key: team.as_str(),
                name: names[team.index()].to_string(),
                fixed: fixed_rating(view, settings, team).map(|r| r.to_string()),
                options: values
                    .into_iter()
                    .map(|value| RatingOption {
                        checked: value == chosen,
                        value,
                    })
                    .collect(),
                saved: match team {
                    Team::A => stored.a,
                    Team::B => stored.b,
                },
                error: error
                    .filter(|_| blamed.and_then(Field::team) == Some(team))
                    .map(|e| message_of(e, names)),
            }
        })
        .collect();
    let saved = stored.a.is_some() && stored.b.is_some();
    // The summary links to the field: a team's first button (its row, for a fixed rating).
    let target = match blamed.and_then(Field::team) {
        Some(team) if fixed_rating(view, settings, team).is_none() => {
            format!("rating-{}-{}", team.as_str(), scale.min)
        }
        Some(team) => format!("rating-{}", team.as_str()),
        None if blamed == Some(&Field::NOTE) => "rating-note".to_string(),
        None => "ratings-form".to_string(),
    };
    Some(RatingsView {
        min: scale.min,
        max: scale.max,
        missing: stored.missing,
        saved,
        open: !saved || error.is_some(),
        teams,
        saved_note: stored.note.clone(),
        note: form.note.clone(),
        note_error: error
            .filter(|_| blamed == Some(&Field::NOTE))
            .map(|e| message_of(e, names)),
        error: error.map(|e| (message_of(e, names), target)),
    })
}

/// The console's season settings for `view`.
pub(super) async fn league(state: &AppState, view: &MatchView) -> Result<League, PageError> {
    Ok(console_views::league_of(&state.db, view).await?)
}

#[cfg(test)]
mod tests {
    use super::super::test_pairs as pairs;
    use super::*;

    #[test]
    fn the_ratings_are_kept_as_typed() {
        let form = RatingForm::from_pairs(&pairs(&[
            ("csrf", "t"),
            ("a", " 4 "),
            ("b", "6"),
            ("note", "late again"),
        ]));
        assert_eq!(form.a, "4");
        assert_eq!(form.b, "6");
        assert_eq!(form.note, "late again");
        assert_eq!(form.typed(Team::B), "6");
    }
}
