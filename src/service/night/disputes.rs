//! Disputes (docs/api.md §20.6): within `settings.disputes.hours` (24 by default) of a
//! match's end, a captain of either team protests its result in a category (scoring,
//! eligibility, sportsmanship, result) with a reason. The coordinator's queue shows it
//! beside the match's audit and scoresheet; resolving it records a note and tells both
//! teams' captains. Each step is audited.

use serde::{Deserialize, Serialize};

use crate::db::Db;
use crate::db::matches as db_matches;
use crate::db::requests::{self as db_requests, DisputeRow, NewDispute};
use crate::domain::{ErrorCode, MatchId, MatchStatus, Timestamp};
use crate::service::night::access::league_of;
use crate::service::notices::events;
use crate::service::people::captains::{self, Captain};
use crate::service::text::{Lines, REASON_MAX, TextRule};
use crate::service::{ServiceError, TeamRef, User, audit, require_admin};

/// What a dispute is about.
pub const CATEGORIES: [&str; 4] = ["scoring", "eligibility", "sportsmanship", "result"];

/// `POST /api/v1/matches/{id}/disputes`.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewDisputeInput {
    /// `scoring`, `eligibility`, `sportsmanship` or `result`.
    pub category: String,
    /// What is wrong, 1 to 500 characters.
    #[schema(max_length = 500)]
    pub reason: String,
}

/// A dispute as the captain and the coordinator see it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Dispute {
    pub id: i64,
    #[serde(rename = "match")]
    pub match_id: MatchId,
    /// The league's slug.
    pub league: String,
    /// The team whose captain filed it.
    pub team: TeamRef,
    /// The captain, by name and team.
    pub captain: String,
    pub category: String,
    pub reason: String,
    /// `open` or `resolved`.
    pub status: String,
    /// The coordinator's note on resolving it.
    pub note: Option<String>,
    pub created_at: Timestamp,
    pub resolved_at: Option<Timestamp>,
}

impl From<DisputeRow> for Dispute {
    fn from(d: DisputeRow) -> Self {
        Dispute {
            id: d.id,
            match_id: d.match_id,
            league: d.league_slug,
            team: TeamRef {
                id: d.team_id,
                name: d.team_name,
            },
            captain: d.captain,
            category: d.category,
            reason: d.reason,
            status: d.status,
            note: d.note,
            created_at: d.created_at,
            resolved_at: d.resolved_at,
        }
    }
}

fn text_rule<'a>(field: &'a str, what: &'a str) -> TextRule<'a> {
    TextRule {
        code: ErrorCode::InvalidInput,
        field,
        what,
        max: REASON_MAX,
        lines: Lines::Many,
    }
}

/// A captain of either team disputes the result of a match that is over, within the
/// league's window from its end.
pub async fn file(
    db: &Db,
    captain: &Captain,
    id: MatchId,
    input: &NewDisputeInput,
) -> Result<Dispute, ServiceError> {
    let category = input.category.trim();
    if !CATEGORIES.contains(&category) {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidInput,
            "category",
            "the category is scoring, eligibility, sportsmanship or result",
        ));
    }
    let reason = text_rule("reason", "the reason").check(&input.reason)?;
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let m = db_matches::by_id(&mut tx, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let (_, team) = captains::side_of(&mut tx, captain, &m, None)
        .await?
        .ok_or(ServiceError::NotFound)?;
    if !matches!(m.status, MatchStatus::Complete | MatchStatus::Forfeit) {
        return Err(ServiceError::conflict(
            ErrorCode::MatchNotOver,
            format!(
                "the match is {}: a result is disputed once it is over",
                m.status.words()
            ),
        ));
    }
    let hours = league_of(&mut tx, &m).await?.settings.disputes.hours;
    if let Some(end) = db_requests::match_end(&mut tx, id).await?
        && now > end.plus_minutes(i64::from(hours) * 60)
    {
        return Err(ServiceError::conflict(
            ErrorCode::TooLateToDispute,
            format!(
                "a result is disputed within {hours} hours of the match's end; ask the coordinator"
            ),
        ));
    }
    let who = captains::in_audit(&team);
    let new = NewDispute {
        match_id: id,
        team_id: team.team_id,
        captain: &who,
        category,
        reason: &reason,
        now,
    };
    let dispute_id = db_requests::insert_dispute(&mut tx, &new).await?;
    let change = audit::Change::new("dispute", audit::Subject::Match(id))
        .after(category)
        .reason(&reason);
    audit::record_captain(&mut tx, &who, now, change).await?;
    let row = db_requests::dispute(&mut tx, dispute_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    tx.commit().await?;
    Ok(row.into())
}

/// The disputes in `status` (`open`, `resolved`; every one when `None`), oldest first
/// (admin).
pub async fn list(
    db: &Db,
    user: &User,
    status: Option<&str>,
) -> Result<Vec<Dispute>, ServiceError> {
    require_admin(user)?;
    if let Some(s) = status
        && !["open", "resolved"].contains(&s)
    {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidRequest,
            "status",
            "status is open or resolved",
        ));
    }
    let mut conn = db.read().await?;
    let rows = db_requests::disputes(&mut conn, status, None).await?;
    Ok(rows.into_iter().map(Dispute::from).collect())
}

/// `POST /api/v1/disputes/{id}/resolve`.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Resolution {
    /// What was decided, 1 to 500 characters: both captains are told.
    #[schema(max_length = 500)]
    pub note: String,
}

/// Resolves an open dispute with a note; both teams' captains are told.
pub async fn resolve(
    db: &Db,
    user: &User,
    id: i64,
    input: &Resolution,
) -> Result<Dispute, ServiceError> {
    require_admin(user)?;
    let note = text_rule("note", "the note").check(&input.note)?;
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let row = db_requests::dispute(&mut tx, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    if !db_requests::resolve_dispute(&mut tx, id, &note, now).await? {
        return Err(ServiceError::conflict(
            ErrorCode::AlreadyDecided,
            "the dispute is already resolved",
        ));
    }
    let change =
        audit::Change::new("resolve_dispute", audit::Subject::Match(row.match_id)).reason(&note);
    audit::record(&mut tx, user, now, change).await?;
    if let Some(public_url) = db.notices()
        && let Some(m) = db_matches::by_id(&mut tx, row.match_id).await?
    {
        events::tell_dispute_resolved(&mut tx, public_url, now, &m, id, &note).await?;
    }
    let resolved = db_requests::dispute(&mut tx, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    tx.commit().await?;
    Ok(resolved.into())
}
