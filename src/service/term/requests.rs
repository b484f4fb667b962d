//! Reschedule requests (docs/api.md §20.5): a captain asks to move a coming match, with a
//! reason and one to three proposed times; the coordinator approves one (the match moves as
//! `PATCH` moves it, with its clash warnings, and both teams are told of the move) or
//! declines with a reason (both teams are told). Each step is audited.

use serde::{Deserialize, Serialize};

use crate::db::Db;
use crate::db::matches as db_matches;
use crate::db::requests::{self as db_requests, NewReschedule, RescheduleRow};
use crate::domain::{ErrorCode, LocalTime, MatchId, Timestamp};
use crate::service::night::match_view::MatchView;
use crate::service::notices::events;
use crate::service::people::captains::{self, Captain};
use crate::service::term::reschedule::{self, MatchChange};
use crate::service::text::{Lines, REASON_MAX, TextRule};
use crate::service::{ServiceError, TeamRef, User, audit, require_admin};

/// `POST /api/v1/matches/{id}/reschedule-requests`.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewRequest {
    /// Why the team cannot play then, 1 to 500 characters.
    #[schema(max_length = 500)]
    pub reason: String,
    /// One to three times the team could play, `YYYY-MM-DDTHH:MM` (the league's time), each
    /// still to come.
    #[schema(min_items = 1, max_items = 3)]
    pub proposals: Vec<String>,
}

/// A request as the captain and the coordinator see it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct RescheduleRequest {
    pub id: i64,
    /// The match's id.
    #[serde(rename = "match")]
    pub match_id: MatchId,
    /// The league's slug.
    pub league: String,
    /// The team that asks.
    pub team: TeamRef,
    /// The captain who asked, by name and team.
    pub captain: String,
    pub reason: String,
    /// `YYYY-MM-DDTHH:MM`.
    pub proposals: Vec<String>,
    /// `pending`, `approved` or `declined`.
    pub status: String,
    /// The coordinator's answer: the new time, or why not.
    pub answer: Option<String>,
    pub created_at: Timestamp,
    pub decided_at: Option<Timestamp>,
}

impl From<RescheduleRow> for RescheduleRequest {
    fn from(r: RescheduleRow) -> Self {
        RescheduleRequest {
            id: r.id,
            match_id: r.match_id,
            league: r.league_slug,
            team: TeamRef {
                id: r.team_id,
                name: r.team_name,
            },
            captain: r.captain,
            reason: r.reason,
            proposals: serde_json::from_str(&r.proposals).unwrap_or_default(),
            status: r.status,
            answer: r.answer,
            created_at: r.created_at,
            decided_at: r.decided_at,
        }
    }
}

fn reason_rule(field: &str) -> TextRule<'_> {
    TextRule {
        code: ErrorCode::InvalidInput,
        field,
        what: "the reason",
        max: REASON_MAX,
        lines: Lines::Many,
    }
}

/// A captain asks to move a coming match of their team.
pub async fn request(
    db: &Db,
    captain: &Captain,
    id: MatchId,
    input: &NewRequest,
) -> Result<RescheduleRequest, ServiceError> {
    let reason = reason_rule("reason").check(&input.reason)?;
    let proposals = proposals(&input.proposals, db.clock().local_now())?;
    let shown: Vec<String> = proposals.iter().map(|t| t.to_string()).collect();
    // A list of plain strings always serializes.
    let stored = serde_json::Value::from(shown.clone()).to_string();
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let m = db_matches::by_id(&mut tx, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let (_, team) = captains::side_of(&mut tx, captain, &m, None)
        .await?
        .ok_or(ServiceError::NotFound)?;
    if !m.status.is_unstarted() || m.hands_played > 0 {
        return Err(ServiceError::conflict(
            ErrorCode::MatchStarted,
            format!("the match is {}: it can no longer move", m.status.words()),
        ));
    }
    let who = captains::in_audit(&team);
    let new = NewReschedule {
        match_id: id,
        team_id: team.team_id,
        captain: &who,
        reason: &reason,
        proposals: &stored,
        now,
    };
    let request_id = db_requests::insert_reschedule(&mut tx, &new).await?;
    let after = shown.join(", ");
    let change = audit::Change::new("request_reschedule", audit::Subject::Match(id))
        .after(&after)
        .reason(&reason);
    audit::record_captain(&mut tx, &who, now, change).await?;
    let row = db_requests::reschedule(&mut tx, request_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    tx.commit().await?;
    Ok(row.into())
}

/// The proposed times, checked: one to three, each a time still to come.
fn proposals(sent: &[String], now: LocalTime) -> Result<Vec<LocalTime>, ServiceError> {
    if sent.is_empty() || sent.len() > 3 {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidInput,
            "proposals",
            "propose one to three times the team could play",
        ));
    }
    sent.iter()
        .enumerate()
        .map(|(i, text)| {
            let field = format!("proposals[{i}]");
            let at = LocalTime::parse_input(text).map_err(|e| {
                let words = e.message("a time is written YYYY-MM-DDTHH:MM, e.g. 2026-11-23T19:00");
                ServiceError::invalid(ErrorCode::InvalidInput, &field, words)
            })?;
            if at <= now {
                return Err(ServiceError::invalid(
                    ErrorCode::InvalidInput,
                    &field,
                    format!("{at} has passed: propose a time still to come"),
                ));
            }
            Ok(at)
        })
        .collect()
}

/// The requests in `status` (`pending`, `approved`, `declined`; every one when `None`),
/// oldest first (admin).
pub async fn list(
    db: &Db,
    user: &User,
    status: Option<&str>,
) -> Result<Vec<RescheduleRequest>, ServiceError> {
    require_admin(user)?;
    if let Some(s) = status
        && !["pending", "approved", "declined"].contains(&s)
    {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidRequest,
            "status",
            "status is pending, approved or declined",
        ));
    }
    let mut conn = db.read().await?;
    let rows = db_requests::reschedules(&mut conn, status, None).await?;
    Ok(rows.into_iter().map(RescheduleRequest::from).collect())
}

/// `POST /api/v1/reschedule-requests/{id}/approve`.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Approval {
    /// The new time, `YYYY-MM-DDTHH:MM` (one of the proposals, or another).
    pub scheduled_at: String,
    /// The table; absent: as it is.
    #[serde(default)]
    pub table: Option<String>,
}

/// A pending request, or why not (404, 409 `already_decided`).
async fn pending(db: &Db, id: i64) -> Result<RescheduleRow, ServiceError> {
    let mut conn = db.read_latest().await?;
    let row = db_requests::reschedule(&mut conn, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    if row.status != "pending" {
        return Err(already_decided(&row.status));
    }
    Ok(row)
}

fn already_decided(status: &str) -> ServiceError {
    ServiceError::conflict(
        ErrorCode::AlreadyDecided,
        format!("the request is already {status}"),
    )
}

/// Approves a request: the match moves as `PATCH` moves it (its checks, its notice to both
/// teams), then the request is marked approved with the new time.
pub async fn approve(
    db: &Db,
    user: &User,
    id: i64,
    input: &Approval,
) -> Result<(RescheduleRequest, MatchView), ServiceError> {
    require_admin(user)?;
    let row = pending(db, id).await?;
    let version = {
        let mut conn = db.read_latest().await?;
        db_matches::by_id(&mut conn, row.match_id)
            .await?
            .ok_or(ServiceError::NotFound)?
            .version
    };
    let change = MatchChange {
        scheduled_at: Some(Some(input.scheduled_at.clone())),
        table: input.table.clone().map(Some),
        expected_version: version,
        ..MatchChange::default()
    };
    let view = reschedule::change_match(db, user, row.match_id, &change).await?;
    let answer = match view.scheduled_at {
        Some(at) => format!("moved to {at}"),
        None => "moved".to_string(),
    };
    let now = db.clock().now();
    let mut tx = db.write().await?;
    if !db_requests::decide_reschedule(&mut tx, id, "approved", &answer, now).await? {
        return Err(already_decided("decided"));
    }
    let change = audit::Change::new("approve_reschedule", audit::Subject::Match(row.match_id))
        .after(&answer);
    audit::record(&mut tx, user, now, change).await?;
    let decided = db_requests::reschedule(&mut tx, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    tx.commit().await?;
    Ok((decided.into(), view))
}

/// `POST /api/v1/reschedule-requests/{id}/decline`.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Decline {
    /// Why not, 1 to 500 characters: both teams are told.
    #[schema(max_length = 500)]
    pub reason: String,
}

/// Declines a request with a reason; both teams are told.
pub async fn decline(
    db: &Db,
    user: &User,
    id: i64,
    input: &Decline,
) -> Result<RescheduleRequest, ServiceError> {
    require_admin(user)?;
    let reason = reason_rule("reason").check(&input.reason)?;
    let row = pending(db, id).await?;
    let now = db.clock().now();
    let mut tx = db.write().await?;
    if !db_requests::decide_reschedule(&mut tx, id, "declined", &reason, now).await? {
        return Err(already_decided("decided"));
    }
    let change = audit::Change::new("decline_reschedule", audit::Subject::Match(row.match_id))
        .reason(&reason);
    audit::record(&mut tx, user, now, change).await?;
    if let Some(public_url) = db.notices()
        && let Some(m) = db_matches::by_id(&mut tx, row.match_id).await?
    {
        events::tell_reschedule_declined(&mut tx, public_url, now, &m, id, &reason).await?;
    }
    let decided = db_requests::reschedule(&mut tx, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    tx.commit().await?;
    Ok(decided.into())
}
