//! The two partnerships ([`Team`]): what a hand, a game's state and an error all name, so it
//! lives apart from each of them (none of those modules need import another for it).

use serde::{Deserialize, Serialize};

/// One of the two partnerships: `A` is seats 1 and 3, `B` seats 2 and 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Team {
    A,
    B,
}

impl Team {
    pub fn other(self) -> Team {
        match self {
            Team::A => Team::B,
            Team::B => Team::A,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Team::A => "a",
            Team::B => "b",
        }
    }

    pub fn index(self) -> usize {
        match self {
            Team::A => 0,
            Team::B => 1,
        }
    }

    pub const BOTH: [Team; 2] = [Team::A, Team::B];
}
