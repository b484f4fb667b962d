//! The hand form of the console, for a new hand and for a correction: what was typed (kept
//! as typed so it comes back after an error), and the view of it with the dealer, the first
//! bidder, only the bids the rules allow now, and each message next to its field.

use super::{ErrorSummary, message_of};
use crate::domain::ErrorCode;
use crate::domain::{Field, FieldError};
use crate::domain::{ForfeitSide, TextEnum};
use crate::rules::form::TypedHand;
use crate::rules::hand::HandInput;
use crate::rules::hand::seat;
use crate::rules::{Game, Team, TeamTotal};
use crate::service::night::match_view::MatchView;
use crate::service::people::accounts::random_hex;

/// What was posted by a console form, kept as text so it comes back as typed. Field names:
/// `a_bid0` (seat 1), `a_bid1` (seat 3), `b_bid0` (seat 2), `b_bid1` (seat 4), the same
/// with `_tricks`, `a_revokes`, `b_revokes`, `a_blind`, `b_blind`, `misdeal`, `reason`,
/// `expected_version`, `idempotency_key`; the forfeit's `team` and `confirm` (sent by its
/// confirmation page), the time call's `confirm` (its second button); an admin's
/// `reset_bracket_path`. (`csrf` is checked before the handler runs.) Public for the fuzz
/// target that checks this reading of the form (`fuzz/checks/hand_form.rs`).
#[derive(Debug, Clone, Default)]
pub struct HandForm {
    pub hand: TypedHand,
    pub reason: String,
    pub version: String,
    pub key: String,
    /// For the forfeit form: the side as sent (`a`, `b`, `both`).
    pub team: String,
    /// The second tap of a forfeit or a time call.
    pub confirm: bool,
    /// A playoff double forfeit: the side the admin sends on.
    pub advance: Option<String>,
    /// An admin's confirmation that a correction may reset started playoff matches.
    pub reset_bracket_path: bool,
}

impl HandForm {
    pub fn from_pairs(pairs: &[(String, String)]) -> HandForm {
        let mut f = HandForm::default();
        for (name, value) in pairs {
            let v = value.clone();
            match name.as_str() {
                "reason" => f.reason = v,
                "expected_version" => f.version = v,
                "idempotency_key" => f.key = v,
                // "both-a" / "both-b": a double forfeit, the admin sending a or b on.
                "team" => match v.split_once('-') {
                    Some((both, side)) if ForfeitSide::parse(both) == Ok(ForfeitSide::Both) => {
                        f.team = both.to_string();
                        f.advance = Some(side.to_string());
                    }
                    _ => f.team = v,
                },
                "confirm" => f.confirm = true,
                "reset_bracket_path" => f.reset_bracket_path = true,
                // The console has no time field: time is called with its own button.
                "time" | "csrf" => {}
                other => {
                    f.hand.set(other, value);
                }
            }
        }
        f
    }

    /// The form of a recorded hand (for a correction).
    pub fn of_hand(hand: &HandInput) -> HandForm {
        HandForm {
            hand: TypedHand::of_hand(hand),
            ..HandForm::default()
        }
    }

    pub fn expected_version(&self) -> Result<i64, FieldError> {
        self.version.trim().parse().map_err(|_| {
            FieldError::at(
                ErrorCode::InvalidForm,
                "expected_version",
                "the form has no match version: reload the console",
            )
        })
    }

    /// The side that forfeits, if one was chosen.
    pub fn forfeit_side(&self) -> Option<ForfeitSide> {
        ForfeitSide::parse(&self.team).ok()
    }

    /// The hand as the API would get it, or the first thing wrong with the typing.
    pub fn to_input(&self, number: usize) -> Result<HandInput, FieldError> {
        self.hand.to_input(number)
    }
}

/// A group of the bid choices: the number bids, then (apart, so that "0" and "Nil" are
/// never next to each other) the nil bids.
pub(super) struct BidGroup {
    pub label: &'static str,
    /// (value, label, selected).
    pub options: Vec<(String, String, bool)>,
}

/// One seat of the form, in seat order.
pub(super) struct SeatView {
    pub seat: u8,
    pub team: &'static str,
    pub team_name: String,
    pub player: String,
    pub bid_name: String,
    pub tricks_name: String,
    pub tricks: String,
    /// Nothing chosen yet (the "bid…" placeholder is selected).
    pub no_bid: bool,
    pub bid_groups: Vec<BidGroup>,
    pub bad_bid: bool,
    pub bad_tricks: bool,
    pub error: Option<String>,
    pub dealer: bool,
    pub first: bool,
}

/// A team's extras (revokes, blind contract) and its team-level message.
pub(super) struct TeamBox {
    pub key: &'static str,
    pub name: String,
    pub revokes: String,
    pub blind: bool,
    pub bad_revokes: bool,
    pub bad_blind: bool,
    pub error: Option<String>,
}

/// Everything the hand form template needs (new hand or correction).
pub(super) struct FormView {
    pub action: String,
    /// `Some` on a correction: the reason as typed.
    pub reason: Option<String>,
    pub version: i64,
    pub key: String,
    pub seats: Vec<SeatView>,
    pub teams: Vec<TeamBox>,
    pub misdeal: bool,
    pub show_revokes: bool,
    pub show_blind: bool,
    pub dealer: u8,
    pub first: u8,
    /// Messages not tied to one seat or team.
    pub tricks_error: Option<String>,
    pub reason_error: Option<String>,
    pub top_error: Option<String>,
    pub submit: &'static str,
    /// The error summary for the top of the page (the page takes it out).
    pub summary: Option<ErrorSummary>,
}

/// What the form is for.
pub(super) struct FormContext<'a> {
    /// The match as it stands before the hand being entered: its last hand's totals decide
    /// the bids allowed, its hand count the deal.
    pub before: &'a MatchView,
    /// The players, `[team][player]`.
    pub players: &'a [[String; 2]; 2],
    pub action: String,
    pub correction: bool,
}

/// The bids offered to a seat, in two groups: 0–13 ("0 (a nil)" where the rules count it
/// so), then nil and blind nil where the game allows them now. A value the rules do not offer now (sent anyway) is kept, in the group it
/// belongs to, so the message about it makes sense.
fn bid_groups(game: &Game, team: Team, typed: &str) -> Vec<BidGroup> {
    let mut numbers: Vec<(String, String)> =
        (0..=13).map(|n| (n.to_string(), n.to_string())).collect();
    // Where a bid of 0 is a nil, it says so.
    if game.rules().zero_bid_is_nil
        && let Some((_, zero)) = numbers.first_mut()
    {
        *zero = "0 (a nil)".to_string();
    }
    let mut nils = Vec::new();
    if game.nil_allowed() {
        nils.push(("nil".to_string(), "Nil".to_string()));
    }
    if game.blind_nil_allowed(team) {
        nils.push(("blind_nil".to_string(), "Blind nil".to_string()));
    }
    let offered = numbers.iter().chain(&nils).any(|(v, _)| v == typed);
    if !typed.is_empty() && !offered {
        let kept = (typed.to_string(), typed.replace('_', " "));
        if typed.parse::<i64>().is_ok() {
            numbers.push(kept);
        } else {
            nils.push(kept);
        }
    }
    let group = |label, options: Vec<(String, String)>| BidGroup {
        label,
        options: options
            .into_iter()
            .map(|(v, l)| {
                let selected = v == typed;
                (v, l, selected)
            })
            .collect(),
    };
    let mut groups = vec![group("Number bids", numbers)];
    if !nils.is_empty() {
        groups.push(group("Nil bids", nils));
    }
    groups
}

/// The game as it stands before the hand: the rules and the totals after the last hand.
fn game_before(view: &MatchView) -> Game {
    let totals = view.hands.last().map_or([TeamTotal::default(); 2], |h| {
        [&h.scored.a, &h.scored.b].map(|r| TeamTotal {
            score: r.score,
            bags: r.bags,
        })
    });
    Game::resume(view.rules.clone(), view.stage, totals[0], totals[1])
        .unwrap_or_else(|_| Game::new(view.rules.clone(), view.stage))
}

/// The id of the field an error is about, for the summary's link: the seat's bid or tricks,
/// the team's first bid or its revokes, the first trick count for a sum, the reason; the
/// form itself for the rest.
fn error_target(e: &FieldError, show_revokes: bool, show_blind: bool, correction: bool) -> String {
    let is = |f: Field| e.field == Some(f);
    match (e.team, e.player) {
        (Some(t), Some(p)) if is(Field::BIDS) => format!("{}_bid{p}", t.as_str()),
        (Some(t), Some(p)) if is(Field::TRICKS) => format!("{}_tricks{p}", t.as_str()),
        (Some(t), None) if is(Field::BIDS) => format!("{}_bid0", t.as_str()),
        (Some(t), None) if is(Field::TRICKS) => format!("{}_tricks0", t.as_str()),
        (Some(t), _) if is(Field::REVOKES) && show_revokes => format!("{}_revokes", t.as_str()),
        (Some(t), _) if is(Field::BLIND) && show_blind => format!("{}_blind", t.as_str()),
        (Some(t), _) => format!("team-box-{}", t.as_str()),
        (None, _) if is(Field::TRICKS) => "a_tricks0".into(),
        (None, _) if is(Field::REASON) && correction => "reason".into(),
        _ => "hand-form".into(),
    }
}

/// Where the form shows an error's message: next to the seat, the team or the field it is
/// about, else at the top.
#[derive(Default)]
struct Placed {
    seats: [[Option<String>; 2]; 2],
    teams: [Option<String>; 2],
    tricks: Option<String>,
    reason: Option<String>,
    top: Option<String>,
}

impl Placed {
    fn of(error: Option<&FieldError>, message: Option<&str>, correction: bool) -> Placed {
        let mut placed = Placed::default();
        let (Some(e), Some(m)) = (error, message) else {
            return placed;
        };
        let m = Some(m.to_string());
        let is = |f: Field| e.field == Some(f);
        match (e.team, e.player) {
            (Some(t), Some(p)) if is(Field::BIDS) || is(Field::TRICKS) => {
                placed.seats[t.index()][p] = m
            }
            (Some(t), _) => placed.teams[t.index()] = m,
            (None, _) if is(Field::TRICKS) => placed.tricks = m,
            (None, _) if is(Field::REASON) && correction => placed.reason = m,
            _ => placed.top = m,
        }
        placed
    }
}

/// Player `p` of `team` on the form, the cells `error` blames marked (its message, the
/// dealer and the first bidder are the caller's).
fn seat_view(
    ctx: &FormContext<'_>,
    form: &HandForm,
    game: &Game,
    error: Option<&FieldError>,
    team: Team,
    p: usize,
) -> SeatView {
    let view = ctx.before;
    let t = team.index();
    let is = |f: Field| error.is_some_and(|e| e.field == Some(f));
    let blamed =
        error.is_some_and(|e| e.team == Some(team) && (e.player.is_none() || e.player == Some(p)));
    let typed_bid = form.hand.bids[t][p].trim();
    SeatView {
        seat: seat(team, p),
        team: team.as_str(),
        team_name: [&view.team_a.name, &view.team_b.name][t].clone(),
        player: ctx.players[t][p].clone(),
        bid_name: format!("{}_bid{p}", team.as_str()),
        tricks_name: format!("{}_tricks{p}", team.as_str()),
        tricks: form.hand.tricks[t][p].clone(),
        no_bid: typed_bid.is_empty(),
        bid_groups: bid_groups(game, team, typed_bid),
        bad_bid: blamed && is(Field::BIDS),
        bad_tricks: is(Field::TRICKS) && (blamed || error.is_some_and(|e| e.team.is_none())),
        error: None,
        dealer: false,
        first: false,
    }
}

/// Both teams' boxes (revokes, blind), the cells `error` blames marked, each with its
/// message from `messages`.
fn team_boxes(
    view: &MatchView,
    form: &HandForm,
    error: Option<&FieldError>,
    messages: &mut [Option<String>; 2],
) -> Vec<TeamBox> {
    let names = [&view.team_a.name, &view.team_b.name];
    let blamed = |t: Team, f: Field| error.is_some_and(|e| e.team == Some(t) && e.field == Some(f));
    Team::BOTH
        .into_iter()
        .map(|team| {
            let t = team.index();
            TeamBox {
                key: team.as_str(),
                name: names[t].clone(),
                revokes: form.hand.revokes[t].clone(),
                blind: form.hand.blind[t],
                bad_revokes: blamed(team, Field::REVOKES),
                bad_blind: blamed(team, Field::BLIND),
                error: messages[t].take(),
            }
        })
        .collect()
}

pub(super) fn form_view(
    ctx: &FormContext<'_>,
    form: &HandForm,
    error: Option<&FieldError>,
) -> FormView {
    let view = ctx.before;
    let game = game_before(view);
    let rules = game.rules();
    let (show_revokes, show_blind) = (rules.revoke.is_some(), rules.blind_bids.is_some());
    let (dealer, first) = view.next_dealer();
    let names = [&view.team_a.name, &view.team_b.name];
    // The message as the console shows it: the teams by their names.
    let message = error.map(|e| message_of(e, [names[0], names[1]]));
    let mut placed = Placed::of(error, message.as_deref(), ctx.correction);
    let seats = (1..=4u8)
        .map(|s| {
            let team = if s % 2 == 1 { Team::A } else { Team::B };
            let p = usize::from((s - 1) / 2);
            let mut seat = seat_view(ctx, form, &game, error, team, p);
            seat.error = placed.seats[team.index()][p].take();
            seat.dealer = s == dealer;
            seat.first = s == first;
            seat
        })
        .collect();
    let teams = team_boxes(view, form, error, &mut placed.teams);
    let summary = error.zip(message).map(|(e, m)| {
        let title = if ctx.correction {
            "The correction was not saved"
        } else {
            "The hand was not recorded"
        };
        let target = error_target(e, show_revokes, show_blind, ctx.correction);
        ErrorSummary::one("error-summary", title, m, target)
    });
    FormView {
        action: ctx.action.clone(),
        reason: ctx.correction.then(|| form.reason.clone()),
        version: view.version,
        // The typed key comes back (a resend stays harmless), unless the server refused it as
        // used for another hand: then the next send needs a new one.
        key: if form.key.is_empty()
            || error.is_some_and(|e| e.code == ErrorCode::IdempotencyKeyReused)
        {
            random_hex(16)
        } else {
            form.key.clone()
        },
        seats,
        teams,
        misdeal: form.hand.misdeal,
        show_revokes,
        show_blind,
        dealer,
        first,
        tricks_error: placed.tricks,
        reason_error: placed.reason,
        top_error: placed.top,
        submit: if ctx.correction {
            "Save the correction"
        } else {
            "Record the hand"
        },
        summary,
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_pairs as pairs;
    use super::*;

    #[test]
    fn a_double_forfeit_names_the_side_sent_on() {
        let form = HandForm::from_pairs(&pairs(&[("team", "both-b"), ("confirm", "1")]));
        assert_eq!(form.forfeit_side(), Some(ForfeitSide::Both));
        assert_eq!(form.advance.as_deref(), Some("b"));
        assert!(form.confirm);
        let form = HandForm::from_pairs(&pairs(&[("team", "a")]));
        assert_eq!(form.forfeit_side(), Some(ForfeitSide::A));
        assert_eq!(form.advance, None);
        assert_eq!(
            HandForm::from_pairs(&pairs(&[("team", "c")])).forfeit_side(),
            None
        );
    }

    /// The values of the bid choices, group by group.
    fn values(groups: &[BidGroup]) -> Vec<(&'static str, Vec<String>)> {
        groups
            .iter()
            .map(|g| (g.label, g.options.iter().map(|o| o.0.clone()).collect()))
            .collect()
    }

    #[test]
    fn bids_come_in_two_groups_and_zero_is_never_next_to_nil() {
        let rules = crate::rules::params::preset("unc-im-300")
            .expect("the preset")
            .rules;
        let game = Game::new(rules, crate::rules::Stage::Regular);
        let groups = bid_groups(&game, Team::A, "");
        let numbers: Vec<String> = (0..=13).map(|n| n.to_string()).collect();
        assert_eq!(
            values(&groups),
            vec![
                ("Number bids", numbers),
                ("Nil bids", vec!["nil".to_string()])
            ]
        );
        assert!(groups.iter().flat_map(|g| &g.options).all(|o| !o.2));
        // A value sent anyway is kept where it belongs, and selected.
        let groups = bid_groups(&game, Team::A, "blind_nil");
        assert_eq!(values(&groups)[1].1, ["nil", "blind_nil"]);
        assert_eq!(groups[1].options[1].1, "blind nil");
        assert!(groups[1].options[1].2);
        let groups = bid_groups(&game, Team::A, "14");
        assert_eq!(values(&groups)[0].1.last().map(String::as_str), Some("14"));
    }

    #[test]
    fn the_hand_fields_are_kept_as_typed() {
        let form = HandForm::from_pairs(&pairs(&[
            ("csrf", "token"),
            ("expected_version", " 7 "),
            ("a_bid0", "4"),
            ("b_tricks1", "abc"),
            ("reason", "recount"),
        ]));
        assert_eq!(form.expected_version().ok(), Some(7));
        assert_eq!(form.hand.bids[0][0], "4");
        assert_eq!(form.hand.tricks[1][1], "abc");
        assert_eq!(form.reason, "recount");
        assert!(HandForm::default().expected_version().is_err());
    }
}
