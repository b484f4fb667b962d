//! A hand as recorded at the table: the JSON shape of docs/api.md §4.2 and the checked domain
//! type the engine scores.

use super::error::{ErrorCode, Field, FieldError, TeamWords};
use super::team::Team;
use serde::{Deserialize, Serialize};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{
    Array, ArrayBuilder, ArrayItems, ObjectBuilder, OneOfBuilder, Schema, Type,
};

/// A player's bid, as checked: a number of tricks, nil or blind nil.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bid {
    Tricks(u8),
    Nil,
    BlindNil,
}

impl Bid {
    pub fn is_nil(self) -> bool {
        matches!(self, Bid::Nil | Bid::BlindNil)
    }
}

impl std::fmt::Display for Bid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bid::Tricks(n) => write!(f, "{n}"),
            Bid::Nil => f.write_str("nil"),
            Bid::BlindNil => f.write_str("blind nil"),
        }
    }
}

/// A bid as JSON carries it: an integer or `"nil"` / `"blind_nil"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum BidInput {
    Number(i64),
    Word(String),
}

/// The schema says what a bid may be (what [`HandInput::parse`] accepts), not only the JSON
/// types the enum reads.
impl utoipa::PartialSchema for BidInput {
    fn schema() -> RefOr<Schema> {
        OneOfBuilder::new()
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .minimum(Some(0))
                    .maximum(Some(MAX_TRICKS)),
            )
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .enum_values(Some(["nil", "blind_nil"])),
            )
            .description(Some(
                "A bid: a number of tricks from 0 to 13, `\"nil\"` or `\"blind_nil\"`.",
            ))
            .into()
    }
}

impl utoipa::ToSchema for BidInput {}

/// The most tricks a bid or a player can name.
const MAX_TRICKS: u8 = 13;

/// Two entries, in seat order.
fn two<T: Into<RefOr<Schema>>>(item: T) -> Array {
    ArrayBuilder::new()
        .items(ArrayItems::RefOrSchema(Box::new(item.into())))
        .min_items(Some(2))
        .max_items(Some(2))
        .build()
}

/// The schema of `tricks`: two counts from 0 to 13.
fn trick_counts() -> Array {
    two(ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(0))
        .maximum(Some(MAX_TRICKS)))
}

/// The schema of `bids`: two bids.
fn two_bids() -> Array {
    two(<BidInput as utoipa::PartialSchema>::schema())
}

impl From<Bid> for BidInput {
    fn from(bid: Bid) -> Self {
        match bid {
            Bid::Tricks(n) => BidInput::Number(n.into()),
            Bid::Nil => BidInput::Word("nil".into()),
            Bid::BlindNil => BidInput::Word("blind_nil".into()),
        }
    }
}

/// One team's part of a hand, as sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TeamHandInput {
    /// The two players' bids, in seat order.
    #[schema(schema_with = two_bids)]
    pub bids: Vec<BidInput>,
    /// The tricks each of the two players took, in seat order (the four add up to 13).
    #[schema(schema_with = trick_counts)]
    pub tricks: Vec<i64>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub blind: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RevokesInput {
    #[serde(default)]
    #[schema(minimum = 0, maximum = 13)]
    pub a: i64,
    #[serde(default)]
    #[schema(minimum = 0, maximum = 13)]
    pub b: i64,
}

/// A hand as sent: the four bids and tricks, or `{"misdeal": true}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HandInput {
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub misdeal: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a: Option<TeamHandInput>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<TeamHandInput>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revokes: Option<RevokesInput>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub time_called: bool,
}

/// One team's part of a checked hand: bids and tricks in seat order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TeamHand {
    pub bids: [Bid; 2],
    pub tricks: [u8; 2],
    pub blind: bool,
}

impl TeamHand {
    /// The sum of the non-nil bids.
    pub fn contract(&self) -> u8 {
        self.bids
            .iter()
            .map(|bid| match bid {
                Bid::Tricks(n) => *n,
                _ => 0,
            })
            .sum()
    }

    pub fn tricks_taken(&self) -> u8 {
        self.tricks[0] + self.tricks[1]
    }
}

/// A played hand whose shape is checked (every number in range, the 13 tricks accounted for).
/// What depends on the rules and the score (nil allowed, minimum bid, blind) is checked when
/// the game plays it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PlayedHand {
    pub a: TeamHand,
    pub b: TeamHand,
    /// Revokes per offending team, indexed by [`Team::index`].
    pub revokes: [u8; 2],
    pub time_called: bool,
}

impl PlayedHand {
    pub fn team(&self, team: Team) -> &TeamHand {
        match team {
            Team::A => &self.a,
            Team::B => &self.b,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Hand {
    Misdeal,
    Played(PlayedHand),
}

/// An invalid hand: what is wrong and where. `hand` is 1-based.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandError {
    pub code: ErrorCode,
    pub hand: usize,
    pub field: Option<Field>,
    pub team: Option<Team>,
    /// Which player of the team (0 or 1, seat order), where one is to blame.
    pub player: Option<usize>,
    pub message: String,
    /// `message` in its parts, where it names a team.
    pub words: Option<Box<TeamWords>>,
}

impl std::fmt::Display for HandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// An invalid hand as an input error.
impl From<HandError> for FieldError {
    fn from(e: HandError) -> Self {
        FieldError {
            code: e.code,
            message: e.message,
            hand: Some(e.hand),
            field: e.field,
            team: e.team,
            player: e.player,
            words: e.words,
        }
    }
}

impl HandError {
    pub fn invalid(hand: usize, field: Field, detail: impl std::fmt::Display) -> Self {
        HandError {
            code: ErrorCode::InvalidHand,
            hand,
            field: Some(field),
            team: None,
            player: None,
            message: format!("hand {hand}: {detail}"),
            words: None,
        }
    }

    /// An invalid hand whose message names the team at fault: `words` says it.
    pub fn naming(hand: usize, field: Option<Field>, words: TeamWords) -> Self {
        let words = words.after_prefix(&format!("hand {hand}: "));
        HandError {
            code: ErrorCode::InvalidHand,
            hand,
            field,
            team: Some(words.team),
            player: None,
            message: words.as_api_says(),
            words: Some(Box::new(words)),
        }
    }

    pub fn for_team(mut self, team: Team) -> Self {
        self.team = Some(team);
        self
    }

    pub fn for_player(mut self, team: Team, player: usize) -> Self {
        self.team = Some(team);
        self.player = Some(player);
        self
    }
}

/// Seat names for messages: team a is seats 1 and 3, team b seats 2 and 4.
pub fn seat(team: Team, player: usize) -> u8 {
    match team {
        Team::A => 1 + 2 * player as u8,
        Team::B => 2 + 2 * player as u8,
    }
}

impl HandInput {
    /// Checks the shape of the hand (`number` is its 1-based place, for messages).
    pub fn parse(&self, number: usize) -> Result<Hand, HandError> {
        if self.misdeal {
            if self.a.is_some() || self.b.is_some() || self.revokes.is_some() || self.time_called {
                return Err(HandError::invalid(
                    number,
                    Field::MISDEAL,
                    "a misdeal records no bids, tricks, revokes or time call",
                ));
            }
            return Ok(Hand::Misdeal);
        }
        let a = parse_team(number, Team::A, self.a.as_ref())?;
        let b = parse_team(number, Team::B, self.b.as_ref())?;
        let total = u32::from(a.tricks_taken()) + u32::from(b.tricks_taken());
        if total != 13 {
            return Err(HandError::invalid(
                number,
                Field::TRICKS,
                format!("tricks sum to {total}, not 13"),
            ));
        }
        let revokes = self.revokes.clone().unwrap_or_default();
        let mut counts = [0u8; 2];
        for (team, value) in [(Team::A, revokes.a), (Team::B, revokes.b)] {
            counts[team.index()] =
                u8::try_from(value)
                    .ok()
                    .filter(|n| *n <= 13)
                    .ok_or_else(|| {
                        HandError::naming(
                            number,
                            Some(Field::REVOKES),
                            TeamWords::starting(
                                team,
                                format!(" revokes must be 0 to 13, not {value}"),
                            ),
                        )
                    })?;
        }
        Ok(Hand::Played(PlayedHand {
            a,
            b,
            revokes: counts,
            time_called: self.time_called,
        }))
    }
}

fn parse_team(
    number: usize,
    team: Team,
    input: Option<&TeamHandInput>,
) -> Result<TeamHand, HandError> {
    let input = input.ok_or_else(|| {
        HandError::naming(
            number,
            Some(Field::BIDS),
            TeamWords::starting(team, " is missing (or send {\"misdeal\": true})"),
        )
    })?;
    if input.bids.len() != 2 {
        return Err(HandError::naming(
            number,
            Some(Field::BIDS),
            TeamWords::starting(
                team,
                format!(" needs 2 bids, one per player, not {}", input.bids.len()),
            ),
        ));
    }
    if input.tricks.len() != 2 {
        return Err(HandError::naming(
            number,
            Some(Field::TRICKS),
            TeamWords::starting(
                team,
                format!(
                    " needs 2 trick counts, one per player, not {}",
                    input.tricks.len()
                ),
            ),
        ));
    }
    let mut bids = [Bid::Tricks(0); 2];
    let mut tricks = [0u8; 2];
    for player in 0..2 {
        let seat = seat(team, player);
        bids[player] = match &input.bids[player] {
            BidInput::Number(n) if (0..=13).contains(n) => Bid::Tricks(*n as u8),
            BidInput::Word(w) if w == "nil" => Bid::Nil,
            BidInput::Word(w) if w == "blind_nil" => Bid::BlindNil,
            BidInput::Number(n) => {
                return Err(HandError::invalid(
                    number,
                    Field::BIDS,
                    format!("seat {seat} bid {n}; a bid is 0 to 13, nil or blind nil"),
                )
                .for_player(team, player));
            }
            BidInput::Word(w) => {
                return Err(HandError::invalid(
                    number,
                    Field::BIDS,
                    format!("seat {seat} bid \"{w}\"; a bid is 0 to 13, nil or blind nil"),
                )
                .for_player(team, player));
            }
        };
        let took = input.tricks[player];
        tricks[player] = u8::try_from(took)
            .ok()
            .filter(|n| *n <= 13)
            .ok_or_else(|| {
                HandError::invalid(
                    number,
                    Field::TRICKS,
                    format!("seat {seat} took {took} tricks; tricks are 0 to 13"),
                )
                .for_player(team, player)
            })?;
    }
    Ok(TeamHand {
        bids,
        tricks,
        blind: input.blind,
    })
}
