//! The states of a match and the roles of a user, each with the one text people read.

use serde::{Deserialize, Serialize};

use super::text::text_enum;
use crate::league::bracket::{Format, Section};

/// Where a match stands on league night.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchStatus {
    Scheduled,
    /// Not played at its time and not yet given a new one (its `scheduled_at` is empty).
    Postponed,
    InProgress,
    Complete,
    Forfeit,
    /// Called off: by the coordinator before it started (with a reason), or a started
    /// playoff match whose entrants changed (an admin reset its bracket path; its hands stay
    /// stored). It counts for nobody.
    Cancelled,
}

text_enum!(MatchStatus, "match status", {
    MatchStatus::Scheduled => "scheduled",
    MatchStatus::Postponed => "postponed",
    MatchStatus::InProgress => "in_progress",
    MatchStatus::Complete => "complete",
    MatchStatus::Forfeit => "forfeit",
    MatchStatus::Cancelled => "cancelled",
});

impl MatchStatus {
    /// No more hands: decided, forfeited or cancelled.
    pub fn is_over(self) -> bool {
        matches!(
            self,
            MatchStatus::Complete | MatchStatus::Forfeit | MatchStatus::Cancelled
        )
    }

    /// Not started yet: its time, table and teams may still change.
    pub fn is_unstarted(self) -> bool {
        matches!(self, MatchStatus::Scheduled | MatchStatus::Postponed)
    }

    /// A result the standings count.
    pub fn is_result(self) -> bool {
        matches!(self, MatchStatus::Complete | MatchStatus::Forfeit)
    }

    pub fn words(self) -> &'static str {
        match self {
            MatchStatus::Scheduled => "scheduled",
            MatchStatus::Postponed => "postponed",
            MatchStatus::InProgress => "in progress",
            MatchStatus::Complete => "complete",
            MatchStatus::Forfeit => "forfeit",
            MatchStatus::Cancelled => "cancelled",
        }
    }
}

/// The game's state as cached on the match: the engine's `GameState` without its data, or
/// `Forfeit` for a double forfeit (nobody won).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    InProgress,
    /// Tied where a draw is not allowed: the next hand decides.
    Tiebreak,
    Won,
    Tied,
    Forfeit,
}

text_enum!(GameStatus, "game status", {
    GameStatus::InProgress => "in_progress",
    GameStatus::Tiebreak => "tiebreak",
    GameStatus::Won => "won",
    GameStatus::Tied => "tied",
    GameStatus::Forfeit => "forfeit",
});

impl From<crate::rules::GameState> for GameStatus {
    fn from(state: crate::rules::GameState) -> Self {
        use crate::rules::GameState as G;
        match state {
            G::InProgress => GameStatus::InProgress,
            G::Tiebreak => GameStatus::Tiebreak,
            G::Won { .. } => GameStatus::Won,
            G::Tied => GameStatus::Tied,
        }
    }
}

/// Where a match of a playoff bracket stands: not playable yet, decided without playing,
/// or the state of its real match.
/// Sent as one name: `waiting`, `bye`, `not_needed` or the match status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BracketMatchStatus {
    /// An entrant is not known yet.
    Waiting,
    /// One entrant and nobody to play: it advances.
    Bye,
    /// The grand-final reset, when the winners'-bracket team won the first grand final.
    NotNeeded,
    /// Both teams known; the real match's own status.
    Match(MatchStatus),
}

impl Serialize for BracketMatchStatus {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl BracketMatchStatus {
    pub fn as_str(self) -> &'static str {
        use crate::domain::TextEnum;
        match self {
            BracketMatchStatus::Waiting => "waiting",
            BracketMatchStatus::Bye => "bye",
            BracketMatchStatus::NotNeeded => "not_needed",
            BracketMatchStatus::Match(status) => status.as_str(),
        }
    }

    pub fn words(self) -> &'static str {
        match self {
            BracketMatchStatus::Waiting => "waiting",
            BracketMatchStatus::Bye => "bye",
            BracketMatchStatus::NotNeeded => "not needed",
            BracketMatchStatus::Match(status) => status.words(),
        }
    }

    /// The real match is being played.
    pub fn is_live(self) -> bool {
        self == BracketMatchStatus::Match(MatchStatus::InProgress)
    }
}

/// Who forfeited a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ForfeitSide {
    A,
    B,
    Both,
}

text_enum!(ForfeitSide, "forfeiting team (a, b or both)", {
    ForfeitSide::A => "a",
    ForfeitSide::B => "b",
    ForfeitSide::Both => "both",
});

impl ForfeitSide {
    /// The team that forfeited, unless both did.
    pub fn team(self) -> Option<crate::rules::Team> {
        match self {
            ForfeitSide::A => Some(crate::rules::Team::A),
            ForfeitSide::B => Some(crate::rules::Team::B),
            ForfeitSide::Both => None,
        }
    }
}

/// What a user may do: the coordinator sets up leagues, supervisors run matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Admin,
    Supervisor,
}

text_enum!(Role, "role (admin or supervisor)", {
    Role::Admin => "admin",
    Role::Supervisor => "supervisor",
});

impl Role {
    pub fn words(self) -> &'static str {
        match self {
            Role::Admin => "admin (coordinator)",
            Role::Supervisor => "supervisor",
        }
    }
}

impl Format {
    pub fn words(self) -> &'static str {
        match self {
            Format::SingleElimination => "single elimination",
            Format::DoubleElimination => "double elimination",
        }
    }
}

impl Section {
    pub fn words(self) -> &'static str {
        match self {
            Section::Winners => "winners' bracket",
            Section::Losers => "losers' bracket",
            Section::Final => "grand final",
            Section::ThirdPlace => "third place",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::TextEnum;
    use crate::rules::{Stage, WinReason};

    /// The stored name and the JSON name of every value are the same text.
    fn same_names<
        T: TextEnum + Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
    >() {
        for &v in T::ALL {
            let json = serde_json::to_string(&v).unwrap();
            assert_eq!(json, format!("\"{}\"", v.as_str()));
            assert_eq!(T::parse(v.as_str()).unwrap(), v);
        }
        assert!(T::parse("no-such-value").is_err());
    }

    #[test]
    fn stored_and_json_names_agree() {
        same_names::<MatchStatus>();
        same_names::<GameStatus>();
        same_names::<ForfeitSide>();
        same_names::<Role>();
        same_names::<Stage>();
        same_names::<WinReason>();
        same_names::<crate::rules::Team>();
    }
}
