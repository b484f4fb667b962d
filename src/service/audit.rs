//! The audit log: every write records who did what to which row, in the transaction of the
//! change, with the value before and after where there is one and the reason given.

use crate::db::Conn;

use super::{ServiceError, User};
use crate::db::audit::{self as db_audit, AuditEntry};
use crate::domain::{BracketId, LeagueId, MatchId, PlayerId, TeamId, Timestamp, TokenId, UserId};

/// The row a change was made to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    League(LeagueId),
    Team(TeamId),
    Player(PlayerId),
    Match(MatchId),
    Bracket(BracketId),
    User(UserId),
    Token(TokenId),
}

impl Subject {
    /// The stored `entity` and `entity_id`.
    fn stored(self) -> (&'static str, i64) {
        match self {
            Subject::League(id) => ("league", id.0),
            Subject::Team(id) => ("team", id.0),
            Subject::Player(id) => ("player", id.0),
            Subject::Match(id) => ("match", id.0),
            Subject::Bracket(id) => ("bracket", id.0),
            Subject::User(id) => ("user", id.0),
            Subject::Token(id) => ("api_token", id.0),
        }
    }
}

/// One change: what was done to which row, and optionally the value before and after and
/// why.
#[derive(Debug, Clone, Copy)]
pub struct Change<'a> {
    pub action: &'a str,
    pub subject: Subject,
    pub before: Option<&'a str>,
    pub after: Option<&'a str>,
    pub reason: Option<&'a str>,
}

impl<'a> Change<'a> {
    pub fn new(action: &'a str, subject: Subject) -> Change<'a> {
        Change {
            action,
            subject,
            before: None,
            after: None,
            reason: None,
        }
    }

    pub fn before(self, before: &'a str) -> Change<'a> {
        Change {
            before: Some(before),
            ..self
        }
    }

    pub fn after(self, after: &'a str) -> Change<'a> {
        Change {
            after: Some(after),
            ..self
        }
    }

    pub fn reason(self, reason: &'a str) -> Change<'a> {
        Change {
            reason: Some(reason),
            ..self
        }
    }
}

/// Appends `change` by `user` at `now` to the audit log; call inside the transaction of the
/// change.
pub async fn record(
    conn: &mut Conn,
    user: &User,
    now: Timestamp,
    change: Change<'_>,
) -> Result<(), ServiceError> {
    record_by(conn, Some(user), now, change).await
}

/// As [`record`], for a change that may have no user behind it (the command line, the
/// first start).
pub async fn record_by(
    conn: &mut Conn,
    user: Option<&User>,
    now: Timestamp,
    change: Change<'_>,
) -> Result<(), ServiceError> {
    let (entity, entity_id) = change.subject.stored();
    db_audit::audit(
        conn,
        &AuditEntry {
            user_id: user.map(|u| u.id),
            action: change.action,
            entity,
            entity_id: Some(entity_id),
            before: change.before,
            after: change.after,
            reason: change.reason,
            now,
        },
    )
    .await?;
    Ok(())
}
