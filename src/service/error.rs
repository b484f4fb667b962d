//! Why an operation did not happen. Nothing was written: every service call is one
//! transaction, rolled back when it returns an error.

use crate::domain::{BadIdempotencyKey, ErrorCode, Field, FieldError, MatchId};

#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// Invalid input: the message names the field (and the hand).
    #[error("{}", .0.message)]
    Invalid(FieldError),
    /// The state changed under the request (stale version, match not started, ...).
    #[error("{message}")]
    Conflict { code: ErrorCode, message: String },
    /// A conflict with what is stored, on one field of the input (a name already used):
    /// 409 with the field.
    #[error("{}", .0.message)]
    ConflictOn(FieldError),
    /// The league still has these matches to play (scheduled or postponed): closing its
    /// season must say what becomes of them (409 `unplayed_matches`, listing them).
    #[error("{message}")]
    Unplayed {
        message: String,
        matches: Vec<MatchId>,
    },
    /// A correction would change who plays in these started playoff matches (the whole
    /// cascade): an admin must confirm resetting them (docs/scoring.md, "Playoffs").
    #[error("bracket reset needed: {0:?}")]
    ResetNeeded(Vec<MatchId>),
    #[error("not found")]
    NotFound,
    /// The user's role may not do this (a supervisor outside their leagues gets `NotFound`).
    #[error("{0}")]
    Forbidden(String),
    /// The database stayed busy past its timeout: nothing was saved, send again.
    #[error("the database is busy")]
    Busy,
    /// Stored data that does not read back (a frozen rule set, a hand): a bug or a damaged
    /// database, never the user's input.
    #[error("stored data does not read back: {0}")]
    Corrupt(String),
    #[error(transparent)]
    Db(sqlx::Error),
}

impl ServiceError {
    pub fn invalid(code: ErrorCode, field: &str, message: impl Into<String>) -> ServiceError {
        ServiceError::Invalid(FieldError::at(code, Field::path(field.into()), message))
    }

    /// A write to an archived league (a past season), refused (409 `league_archived`).
    pub fn league_archived() -> ServiceError {
        ServiceError::conflict(
            ErrorCode::LeagueArchived,
            "this league is archived (a past season): it is read-only",
        )
    }

    pub fn conflict(code: ErrorCode, message: impl Into<String>) -> ServiceError {
        ServiceError::Conflict {
            code,
            message: message.into(),
        }
    }

    /// The rule of the API's list filters (`?league=`, `?user=`): a filter naming a league or
    /// a user that is not there is not found (404), as the same name in a path would be;
    /// the query itself is well formed. Pages keep the 422, shown by their filter's field.
    pub fn unknown_filter_not_found(self) -> ServiceError {
        match self {
            ServiceError::Invalid(e)
                if matches!(e.code, ErrorCode::InvalidLeague | ErrorCode::InvalidUser) =>
            {
                ServiceError::NotFound
            }
            other => other,
        }
    }

    /// Stored data that does not decode.
    /// A stored row that does not read (`corrupt`, or a column the store's decoder refused):
    /// a list every league shares leaves its row out rather than fail.
    pub fn is_unreadable(&self) -> bool {
        matches!(
            self,
            ServiceError::Corrupt(_)
                | ServiceError::Db(sqlx::Error::ColumnDecode { .. } | sqlx::Error::Decode(_))
        )
    }

    pub fn corrupt(what: &str, e: impl std::fmt::Display) -> ServiceError {
        ServiceError::Corrupt(format!("{what}: {e}"))
    }
}

impl From<FieldError> for ServiceError {
    fn from(e: FieldError) -> Self {
        ServiceError::Invalid(e)
    }
}

impl From<BadIdempotencyKey> for ServiceError {
    fn from(e: BadIdempotencyKey) -> Self {
        ServiceError::Invalid(e.into())
    }
}

impl From<sqlx::Error> for ServiceError {
    /// A lock held past the busy timeout, or no pooled connection in time, is `Busy`
    /// (decided by the store's error code, never by the message text). A write the store
    /// refused because its league is archived is the 409 `league_archived`.
    fn from(e: sqlx::Error) -> Self {
        if crate::db::is_busy(&e) {
            ServiceError::Busy
        } else if crate::db::is_league_archived(&e) {
            ServiceError::league_archived()
        } else {
            ServiceError::Db(e)
        }
    }
}

/// JSON of a value stored in a TEXT column (rules, hands, answers): serializing our own
/// types cannot fail short of a bug, which is reported rather than stored as "".
pub fn to_json<T: serde::Serialize>(what: &str, value: &T) -> Result<String, ServiceError> {
    serde_json::to_string(value).map_err(|e| ServiceError::corrupt(what, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_is_decided_by_the_result_code() {
        assert!(matches!(
            ServiceError::from(sqlx::Error::PoolTimedOut),
            ServiceError::Busy
        ));
        assert!(matches!(
            ServiceError::from(sqlx::Error::RowNotFound),
            ServiceError::Db(_)
        ));
    }
}
