//! The operations of league night, shared by the pages and the JSON API so no rule is
//! written twice: each one opens its transaction, checks who may do it, applies the rules
//! engine to the hands and writes the result with an audit row.

pub mod accounts;
pub mod leagues;
pub mod matches;
pub mod playoffs;

use crate::rules::CalcError;

/// Who is acting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub id: i64,
    pub username: String,
    pub role: Role,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Admin,
    Supervisor,
}

impl Role {
    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "admin" => Some(Role::Admin),
            "supervisor" => Some(Role::Supervisor),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Supervisor => "supervisor",
        }
    }
}

impl User {
    pub fn is_admin(&self) -> bool {
        self.role == Role::Admin
    }
}

/// Why an operation did not happen. Nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("not found")]
    NotFound,
    /// The user's role may not do this (a supervisor outside their leagues gets `NotFound`).
    #[error("{0}")]
    Forbidden(String),
    /// Invalid input: the message names the field (and the hand).
    #[error("{}", .0.message)]
    Invalid(CalcError),
    /// The state changed under the request (stale version, match not started, ...).
    #[error("{message}")]
    Conflict { code: &'static str, message: String },
    /// A correction would change who plays in these started playoff matches (real match
    /// ids, the whole cascade): an admin must confirm resetting them (DESIGN §3).
    #[error("bracket reset needed: {0:?}")]
    ResetNeeded(Vec<i64>),
    #[error(transparent)]
    Db(#[from] sqlx::Error),
}

impl ServiceError {
    pub fn invalid(code: &str, field: &str, message: impl Into<String>) -> ServiceError {
        ServiceError::Invalid(CalcError {
            code: code.into(),
            message: message.into(),
            hand: None,
            field: Some(field.into()),
            team: None,
            player: None,
        })
    }

    pub fn conflict(code: &'static str, message: impl Into<String>) -> ServiceError {
        ServiceError::Conflict {
            code,
            message: message.into(),
        }
    }
}

impl From<CalcError> for ServiceError {
    fn from(e: CalcError) -> Self {
        ServiceError::Invalid(e)
    }
}

/// The current time as stored (RFC 3339, UTC, seconds).
pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Admin only.
pub fn require_admin(user: &User) -> Result<(), ServiceError> {
    if user.is_admin() {
        Ok(())
    } else {
        Err(ServiceError::Forbidden(
            "only an admin (the IM coordinator) may do this".into(),
        ))
    }
}

/// A URL-safe slug from a name: "Fall 2026 Spades!" → "fall-2026-spades".
pub fn slugify(name: &str) -> String {
    let mut slug = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    while slug.ends_with('-') {
        slug.pop();
    }
    slug
}

#[cfg(test)]
mod tests {
    #[test]
    fn slugs() {
        assert_eq!(super::slugify("Fall 2026 Spades!"), "fall-2026-spades");
        assert_eq!(super::slugify("  --A  b--"), "a-b");
        assert_eq!(super::slugify("!!!"), "");
    }
}
