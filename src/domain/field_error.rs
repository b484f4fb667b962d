//! Input that cannot be used, named down to the field: what every form shows next to the
//! field and the API answers as its error body (docs/api.md §3).

use serde::Serialize;

use crate::rules::{CalcError, Team};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct FieldError {
    /// What kind of error (`invalid_hand`, `invalid_team`, `not_found`, ...).
    pub code: String,
    pub message: String,
    /// The hand at fault (1-based), for hands.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hand: Option<usize>,
    /// The field at fault (`name`, `hands[2].a.bids[0]`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<Team>,
    /// The player of `team` to blame (0 or 1, seat order), where one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player: Option<usize>,
}

impl FieldError {
    /// An error of the request as a whole, or not of the input at all (`not_found`, ...).
    pub fn new(code: &str, message: impl Into<String>) -> FieldError {
        FieldError {
            code: code.into(),
            message: message.into(),
            hand: None,
            field: None,
            team: None,
            player: None,
        }
    }

    /// An error of one field.
    pub fn at(code: &str, field: &str, message: impl Into<String>) -> FieldError {
        FieldError {
            field: Some(field.into()),
            ..FieldError::new(code, message)
        }
    }
}

/// The scoring engine's own errors (a hand, rules, a start) as input errors.
impl From<CalcError> for FieldError {
    fn from(e: CalcError) -> Self {
        FieldError {
            code: e.code,
            message: e.message,
            hand: e.hand,
            field: e.field,
            team: e.team,
            player: e.player,
        }
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}
