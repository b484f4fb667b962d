//! A hand as typed into a form (the calculator's rows, the console's hand form): text kept as
//! typed so it comes back after an error, and turned into the API's [`HandInput`] with a
//! message that names the seat and the field. The one reader of every hand form: the server's
//! pages read with it, and the phone's preview through `static/rules.wasm` (rules-wasm/).

use super::error::{ErrorCode, Field, FieldError};
use super::hand::{BidInput, HandInput, RevokesInput, TeamHandInput, seat};
use super::team::Team;

/// What was typed for one hand; `[team][player]`, team a first, players in seat order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TypedHand {
    pub bids: [[String; 2]; 2],
    pub tricks: [[String; 2]; 2],
    pub revokes: [String; 2],
    pub blind: [bool; 2],
    pub misdeal: bool,
    pub time_called: bool,
}

impl TypedHand {
    /// Takes a field of the form (`a_bid0`, `b_tricks1`, `a_revokes`, `b_blind`, `misdeal`,
    /// `time`); false for a name that is not a hand field.
    pub fn set(&mut self, name: &str, value: &str) -> bool {
        let value = value.to_string();
        match name {
            "misdeal" => self.misdeal = true,
            "time" => self.time_called = true,
            _ => {
                let Some((team, cell)) = name.split_once('_') else {
                    return false;
                };
                let t = match team {
                    "a" => 0,
                    "b" => 1,
                    _ => return false,
                };
                match cell {
                    "bid0" => self.bids[t][0] = value,
                    "bid1" => self.bids[t][1] = value,
                    "tricks0" => self.tricks[t][0] = value,
                    "tricks1" => self.tricks[t][1] = value,
                    "revokes" => self.revokes[t] = value,
                    "blind" => self.blind[t] = true,
                    _ => return false,
                }
            }
        }
        true
    }

    /// Nothing typed at all.
    pub fn is_blank(&self) -> bool {
        !self.misdeal
            && !self.time_called
            && !self.blind.iter().any(|b| *b)
            && self
                .bids
                .iter()
                .chain(&self.tricks)
                .flatten()
                .chain(&self.revokes)
                .all(|s| s.trim().is_empty())
    }

    /// Some bid or trick count not typed yet (a misdeal needs none): the phone's preview
    /// asks for the rest rather than naming the first one missing.
    pub fn is_incomplete(&self) -> bool {
        !self.misdeal
            && self
                .bids
                .iter()
                .chain(&self.tricks)
                .flatten()
                .any(|s| s.trim().is_empty())
    }

    /// The form of a recorded hand (to correct it).
    pub fn of_hand(hand: &HandInput) -> TypedHand {
        let mut typed = TypedHand {
            misdeal: hand.misdeal,
            time_called: hand.time_called,
            ..TypedHand::default()
        };
        for (t, team) in [hand.a.as_ref(), hand.b.as_ref()].into_iter().enumerate() {
            let Some(team) = team else { continue };
            for p in 0..2 {
                typed.bids[t][p] = team.bids.get(p).map(bid_value).unwrap_or_default();
                typed.tricks[t][p] = team.tricks.get(p).map(i64::to_string).unwrap_or_default();
            }
            typed.blind[t] = team.blind;
        }
        if let Some(r) = &hand.revokes {
            let shown = |n: i64| if n == 0 { String::new() } else { n.to_string() };
            typed.revokes = [shown(r.a), shown(r.b)];
        }
        typed
    }

    /// The hand as the JSON API would get it (hand `number`, for messages), or the first
    /// thing wrong with the typing. The rules' checks come after, in the engine.
    pub fn to_input(&self, number: usize) -> Result<HandInput, FieldError> {
        if self.misdeal {
            return Ok(HandInput {
                misdeal: true,
                ..HandInput::default()
            });
        }
        let (a, revokes_a) = self.team_input(number, 0, Team::A)?;
        let (b, revokes_b) = self.team_input(number, 1, Team::B)?;
        let revokes = RevokesInput {
            a: revokes_a,
            b: revokes_b,
        };
        Ok(HandInput {
            misdeal: false,
            a: Some(a),
            b: Some(b),
            revokes: (revokes.a != 0 || revokes.b != 0).then_some(revokes),
            time_called: self.time_called,
        })
    }

    /// Team `team`'s row `t` of hand `number`: its bids, tricks and blind, and its revokes.
    fn team_input(
        &self,
        number: usize,
        t: usize,
        team: Team,
    ) -> Result<(TeamHandInput, i64), FieldError> {
        let mut bids = Vec::with_capacity(2);
        let mut tricks = Vec::with_capacity(2);
        for p in 0..2 {
            bids.push(bid_of(number, team, p, self.bids[t][p].trim())?);
            tricks.push(tricks_of(number, team, p, self.tricks[t][p].trim())?);
        }
        let text = self.revokes[t].trim();
        let revokes = if text.is_empty() {
            0
        } else {
            text.parse::<i64>().map_err(|_| {
                cell_error(
                    number,
                    team,
                    None,
                    Field::REVOKES,
                    format!("revokes must be a number, not \"{text}\""),
                )
            })?
        };
        let input = TeamHandInput {
            bids,
            tricks,
            blind: self.blind[t],
        };
        Ok((input, revokes))
    }
}

/// The bid typed for player `p` of `team` in hand `number`: a number, or a word the
/// engine checks.
fn bid_of(number: usize, team: Team, p: usize, bid: &str) -> Result<BidInput, FieldError> {
    match bid {
        "" => Err(cell_error(
            number,
            team,
            Some(p),
            Field::BIDS,
            format!("seat {} has no bid", seat(team, p)),
        )),
        n => Ok(match n.parse::<i64>() {
            Ok(n) => BidInput::Number(n),
            Err(_) => BidInput::Word(n.into()),
        }),
    }
}

/// The tricks typed for player `p` of `team` in hand `number`.
fn tricks_of(number: usize, team: Team, p: usize, took: &str) -> Result<i64, FieldError> {
    took.parse::<i64>().map_err(|_| {
        let message = if took.is_empty() {
            format!("seat {} has no trick count", seat(team, p))
        } else {
            format!(
                "seat {} took \"{took}\" tricks; tricks are 0 to 13",
                seat(team, p)
            )
        };
        cell_error(number, team, Some(p), Field::TRICKS, message)
    })
}

/// A bid as a form's `<option>` value: `4`, `nil`, `blind_nil`.
fn bid_value(bid: &BidInput) -> String {
    match bid {
        BidInput::Number(n) => n.to_string(),
        BidInput::Word(w) => w.clone(),
    }
}

/// An error of one cell of hand `number`.
fn cell_error(
    number: usize,
    team: Team,
    player: Option<usize>,
    field: Field,
    detail: String,
) -> FieldError {
    FieldError {
        code: ErrorCode::InvalidHand,
        message: format!("hand {number}: {detail}"),
        hand: Some(number),
        field: Some(field),
        team: Some(team),
        player,
        words: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_hand_round_trips_through_the_api_shape() {
        let mut typed = TypedHand::default();
        for (name, value) in [
            ("a_bid0", "4"),
            ("a_bid1", "nil"),
            ("b_bid0", "3"),
            ("b_bid1", "blind_nil"),
            ("a_tricks0", "5"),
            ("a_tricks1", "0"),
            ("b_tricks0", "8"),
            ("b_tricks1", "0"),
            ("b_revokes", "1"),
            ("a_blind", "1"),
        ] {
            assert!(typed.set(name, value), "{name}");
        }
        assert!(!typed.set("expected_version", "3"));
        let input = typed.to_input(2).expect("a well-typed hand");
        assert_eq!(input.revokes.as_ref().map(|r| (r.a, r.b)), Some((0, 1)));
        assert!(input.a.as_ref().is_some_and(|a| a.blind));
        assert_eq!(TypedHand::of_hand(&input), typed);
        assert!(!typed.is_blank());
        assert!(TypedHand::default().is_blank());
        assert!(!typed.is_incomplete());
        typed.set("b_tricks1", " ");
        assert!(typed.is_incomplete());
        typed.set("misdeal", "on");
        assert!(!typed.is_incomplete(), "a misdeal needs no bids");
    }

    #[test]
    fn typing_mistakes_name_the_seat_and_field() {
        let mut typed = TypedHand::default();
        typed.set("a_bid0", "4");
        typed.set("a_tricks0", "5");
        let e = typed.to_input(3).expect_err("seat 3 has no bid");
        assert_eq!(e.message, "hand 3: seat 3 has no bid");
        assert_eq!(
            (e.team, e.player, e.field.as_ref().map(|f| f.as_str())),
            (Some(Team::A), Some(1), Some("bids"))
        );
        typed.set("a_bid1", "3");
        typed.set("a_tricks0", "x");
        let e = typed.to_input(3).expect_err("tricks are numbers");
        assert_eq!(
            e.message,
            "hand 3: seat 1 took \"x\" tricks; tricks are 0 to 13"
        );
    }
}
