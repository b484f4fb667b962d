//! The audit log: who changed what, when, from what to what, and why.

use super::{Conn, on_store};

use crate::domain::{Timestamp, UserId};

pub struct AuditEntry<'a> {
    pub user_id: Option<UserId>,
    pub action: &'a str,
    pub entity: &'a str,
    pub entity_id: Option<i64>,
    pub before: Option<&'a str>,
    pub after: Option<&'a str>,
    pub reason: Option<&'a str>,
    pub now: Timestamp,
}

/// Appends to the audit log; call inside the transaction of the change.
pub async fn audit(conn: &mut Conn, e: &AuditEntry<'_>) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "INSERT INTO audit_log (at, user_id, action, entity, entity_id, before, after, reason)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(e.now)
    .bind(e.user_id)
    .bind(e.action)
    .bind(e.entity)
    .bind(e.entity_id)
    .bind(e.before)
    .bind(e.after)
    .bind(e.reason))?;
    Ok(())
}
