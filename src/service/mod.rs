//! The operations of league night, shared by the pages and the JSON API so no rule is
//! written twice: each one opens its transaction, checks who may do it, applies the rules
//! engine to the hands and writes the result with an audit row.
//!
//! **`&Db` or `&mut Conn`.** A service function called by a handler takes `&Db` and opens
//! what it needs itself: a write opens its own transaction (checks, writes, audit row and
//! commit in one place), a read its own connection. It takes `&mut Conn` (a transaction
//! derefs to one) only when it is a step inside its caller's connection or transaction: a
//! read a page composes with others on one snapshot (`public_views`, `calendar`), or a
//! write step of a caller's transaction (`audit::record`). Such a function never commits,
//! and its doc says whose transaction it runs in when that is not plain.
//!
//! **Types at the edge.** A league is named by a [`Slug`](crate::domain::Slug) and rows by
//! their typed ids: a handler's path extractor parses them (a malformed one is the same
//! 404 as an unknown one), so a service never holds a slug no league could have.

pub mod audit;
pub mod check;
pub mod league_doc;
pub mod night;
pub mod notices;
pub mod people;
pub mod playoffs;
pub mod term;
pub mod text;
pub mod views;

mod error;

pub use error::{ServiceError, to_json};

use serde::Serialize;

pub use crate::domain::Role;
use crate::domain::{TeamId, UserId};

/// Who is acting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub id: UserId,
    pub username: String,
    pub role: Role,
}

impl User {
    pub fn is_admin(&self) -> bool {
        self.role == Role::Admin
    }
}

/// A team as lists and matches name it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct TeamRef {
    pub id: TeamId,
    pub name: String,
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
