//! The notices as the admin reads them (`GET /api/v1/notices`, `/admin/notices`): newest
//! first, by league and status; a failed one can be sent again.

use serde::{Deserialize, Serialize};

use crate::db::Db;
use crate::db::notices::{self as db_notices, NoticeRow};
use crate::domain::Timestamp;
use crate::service::{ServiceError, User, require_admin};

/// The most notices one answer lists.
const MOST: i64 = 500;

/// Where a notice stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NoticeStatus {
    /// Waiting for its first try or a retry.
    Pending,
    /// The relay took it.
    Sent,
    /// Refused for good, or still failing after every retry: an admin may send it again.
    Failed,
    /// Not sent: the address stopped the league's notices after it was written.
    Skipped,
}

impl NoticeStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            NoticeStatus::Pending => "pending",
            NoticeStatus::Sent => "sent",
            NoticeStatus::Failed => "failed",
            NoticeStatus::Skipped => "skipped",
        }
    }

    fn of(stored: &str) -> NoticeStatus {
        match stored {
            "sent" => NoticeStatus::Sent,
            "failed" => NoticeStatus::Failed,
            "skipped" => NoticeStatus::Skipped,
            _ => NoticeStatus::Pending,
        }
    }
}

/// One notice: one event to one address.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct NoticeEntry {
    pub id: i64,
    /// `match_moved`, `match_postponed`, `match_cancelled`, ...
    pub event: String,
    /// The address (admins only: never on a public page or in a log line).
    pub to: String,
    pub subject: String,
    pub status: NoticeStatus,
    /// Tries so far.
    pub attempts: i64,
    /// Why the last try failed (the relay's answer), if it did.
    pub last_error: Option<String>,
    pub created_at: Timestamp,
    pub sent_at: Option<Timestamp>,
}

impl From<NoticeRow> for NoticeEntry {
    fn from(r: NoticeRow) -> NoticeEntry {
        NoticeEntry {
            id: r.id,
            event: r.event,
            to: r.address,
            subject: r.subject,
            status: NoticeStatus::of(&r.status),
            attempts: r.attempts,
            last_error: r.last_error,
            created_at: r.created_at,
            sent_at: r.sent_at,
        }
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct NoticeList {
    /// Newest first, at most 500.
    pub notices: Vec<NoticeEntry>,
}

/// The notices of league `league` (a slug) and in `status`, where given (admins only); an
/// unknown league is a 422 on `league`.
pub async fn list(
    db: &Db,
    by: &User,
    league: Option<&str>,
    status: Option<NoticeStatus>,
) -> Result<NoticeList, ServiceError> {
    require_admin(by)?;
    let mut conn = db.read().await?;
    let league = match league.filter(|l| !l.trim().is_empty()) {
        Some(slug) => Some(crate::service::audit::league_id(&mut conn, slug).await?),
        None => None,
    };
    let rows = db_notices::list(&mut conn, league, status.map(NoticeStatus::as_str), MOST).await?;
    Ok(NoticeList {
        notices: rows.into_iter().map(NoticeEntry::from).collect(),
    })
}

/// Sends failed notice `id` again (admins only); whether it was failed (a notice already
/// pending or sent, or none, is left as it is: a second click changes nothing).
pub async fn resend(db: &Db, by: &User, id: i64) -> Result<bool, ServiceError> {
    require_admin(by)?;
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let resent = db_notices::resend(&mut tx, db_notices::Failed::One(id), now).await? == 1;
    tx.commit().await?;
    Ok(resent)
}

/// Sends every failed notice again (admins only), of the league `slug` where given (422 on
/// `league` for none such); how many.
pub async fn resend_failed(db: &Db, by: &User, slug: Option<&str>) -> Result<u64, ServiceError> {
    require_admin(by)?;
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let league = match slug.map(str::trim).filter(|s| !s.is_empty()) {
        Some(slug) => Some(crate::service::audit::league_id(&mut tx, slug).await?),
        None => None,
    };
    let resent = db_notices::resend(&mut tx, db_notices::Failed::All(league), now).await?;
    tx.commit().await?;
    Ok(resent)
}

/// How many notices are in each status (every status, 0 where none), for `/metrics`.
pub async fn counts(db: &Db) -> Result<Vec<(NoticeStatus, i64)>, ServiceError> {
    let mut conn = db.read().await?;
    let stored = db_notices::counts(&mut conn).await?;
    Ok([
        NoticeStatus::Pending,
        NoticeStatus::Sent,
        NoticeStatus::Failed,
        NoticeStatus::Skipped,
    ]
    .into_iter()
    .map(|status| {
        let n = stored
            .iter()
            .find(|(s, _)| s == status.as_str())
            .map_or(0, |(_, n)| *n);
        (status, n)
    })
    .collect())
}
