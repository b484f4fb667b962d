//! Typed ids: a team id can never be passed where a match id is meant. Each is the row's
//! integer key, stored and sent as a plain number.

use std::fmt;

use serde::{Deserialize, Serialize};

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
            sqlx_macros::Type, utoipa::ToSchema,
        )]
        #[serde(transparent)]
        #[sqlx(transparent)]
        #[schema(value_type = i64)]
        pub struct $name(pub i64);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::num::ParseIntError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                s.trim().parse().map($name)
            }
        }
    };
}

id!(
    /// A league (`leagues.id`).
    LeagueId
);
id!(
    /// A team of a league (`teams.id`).
    TeamId
);
id!(
    /// A division of a league (`divisions.id`).
    DivisionId
);
id!(
    /// A match, regular or playoff (`matches.id`).
    MatchId
);
id!(
    /// A player of a team (`players.id`): what a lineup points at.
    PlayerId
);
id!(
    /// A user account (`users.id`).
    UserId
);
id!(
    /// A league's playoff bracket (`brackets.id`).
    BracketId
);
id!(
    /// An API token (`api_tokens.id`).
    TokenId
);
