//! Defaults (docs/api.md §20.4): a team that cannot play says so at least the league's
//! notice (`settings.forfeit.default_notice_hours`, 24 by default) before the match. The
//! match ends then, a win for the other team and a loss for it, but never a forfeit: it
//! counts neither towards `drop_after` nor towards the playoffs' `max_forfeits`, and no
//! forfeit rating is given. Later, the supervisor's forfeit at the table remains.

use serde::{Deserialize, Serialize};

use super::forfeit::forfeit_totals;
use crate::db::Db;
use crate::db::matches::{self as db_matches, MatchRow};
use crate::domain::{ErrorCode, ForfeitSide, LocalTime, MatchId, MatchStatus};
use crate::rules::{Stage, Team};
use crate::service::night::access::{league_of, side};
use crate::service::night::match_view::{MatchView, reload};
use crate::service::notices::events;
use crate::service::people::captains::{self, Captain};
use crate::service::text::{Lines, REASON_MAX, TextRule};
use crate::service::{ServiceError, User, audit, require_admin};

/// `POST /api/v1/matches/{id}/default`.
#[derive(Debug, Clone, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DefaultInput {
    /// `a` or `b`: the team that cannot play.
    #[schema(value_type = crate::rules::Team)]
    pub team: String,
    /// Why, 1 to 500 characters: both teams and the league's supervisors are told.
    #[schema(max_length = 500)]
    pub reason: String,
}

/// Who defaults a match: the coordinator (for a team that phoned the office), or a captain
/// of the team.
pub enum Defaulter<'a> {
    Admin(&'a User),
    Captain(&'a Captain),
}

/// Ends match `id` as a default of `input.team`.
#[tracing::instrument(skip_all, fields(match_id = %id))]
pub async fn default(
    db: &Db,
    by: Defaulter<'_>,
    id: MatchId,
    input: &DefaultInput,
) -> Result<MatchView, ServiceError> {
    let team = side(&input.team, "team")?;
    let reason = TextRule {
        code: ErrorCode::InvalidInput,
        field: "reason",
        what: "the reason",
        max: REASON_MAX,
        lines: Lines::Many,
    }
    .check(&input.reason)?;
    let queue_now = crate::service::night::calls::Now::of(db);
    let now = queue_now.at;
    let mut tx = db.write().await?;
    let m = db_matches::by_id(&mut tx, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let captain = match by {
        Defaulter::Admin(user) => {
            require_admin(user)?;
            None
        }
        Defaulter::Captain(captain) => {
            let (_, team) = captains::side_of(&mut tx, captain, &m, Some(team))
                .await?
                .ok_or(ServiceError::NotFound)?;
            Some(captains::in_audit(&team))
        }
    };
    let league = league_of(&mut tx, &m).await?;
    if league.row.archived {
        return Err(ServiceError::league_archived());
    }
    check_not_begun(&m)?;
    check_notice(
        m.scheduled_at,
        league.settings.forfeit.default_notice_hours,
        db.clock().local_now(),
    )?;
    db_matches::set_defaulted(&mut tx, id).await?;
    let who = match team {
        Team::A => ForfeitSide::A,
        Team::B => ForfeitSide::B,
    };
    db_matches::set_totals(&mut tx, id, &forfeit_totals(&m, who, Some(team.other()))).await?;
    if m.stage != Stage::Regular {
        crate::service::playoffs::advance(&mut tx, id, now, None).await?;
    }
    crate::service::night::calls::refill(&mut tx, m.league_id, queue_now).await?;
    let after = format!("team {}", team.as_str());
    let change = audit::Change::new("default", audit::Subject::Match(id))
        .after(&after)
        .reason(&reason);
    match (&by, &captain) {
        (Defaulter::Admin(user), _) => audit::record(&mut tx, user, now, change).await?,
        (_, Some(words)) => audit::record_captain(&mut tx, words, now, change).await?,
        (Defaulter::Captain(_), None) => return Err(ServiceError::NotFound),
    }
    if let Some(public_url) = db.notices() {
        events::tell_default(&mut tx, public_url, now, &m, team, &reason).await?;
    }
    let view = reload(&mut tx, id, &league).await?;
    tx.commit().await?;
    Ok(view)
}

/// A default comes before the match begins: not once it is under way or over.
fn check_not_begun(m: &MatchRow) -> Result<(), ServiceError> {
    match m.status {
        MatchStatus::Scheduled | MatchStatus::Postponed if m.hands_played == 0 => Ok(()),
        MatchStatus::Scheduled | MatchStatus::Postponed | MatchStatus::InProgress => {
            Err(ServiceError::conflict(
                ErrorCode::MatchStarted,
                "the match has started: a team that leaves forfeits at the table",
            ))
        }
        status => Err(ServiceError::conflict(
            ErrorCode::MatchClosed,
            format!("the match is already {}", status.words()),
        )),
    }
}

/// The league's notice: `hours` before the match's time at least (`None`: no defaults).
/// A match with no time yet may be defaulted until it starts.
fn check_notice(
    scheduled_at: Option<LocalTime>,
    hours: Option<u32>,
    now: LocalTime,
) -> Result<(), ServiceError> {
    let Some(hours) = hours else {
        return Err(ServiceError::conflict(
            ErrorCode::DefaultsOff,
            "this league takes no defaults: a team that cannot play forfeits the match",
        ));
    };
    let Some(at) = scheduled_at else {
        return Ok(());
    };
    if at.0 - now.0 >= chrono::Duration::hours(i64::from(hours)) {
        return Ok(());
    }
    Err(ServiceError::conflict(
        ErrorCode::TooLateToDefault,
        format!(
            "a default is sent at least {hours} hours before the match ({}); it is too late \
             now: if the team does not come, the supervisor records a forfeit at the table",
            at.0.format("%a %-d %b %Y, %H:%M")
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> LocalTime {
        LocalTime::parse(text).unwrap()
    }

    #[test]
    fn the_notice_is_measured_to_the_minute() {
        let match_at = Some(at("2026-11-10T19:00"));
        assert!(check_notice(match_at, Some(24), at("2026-11-09T19:00")).is_ok());
        let late = check_notice(match_at, Some(24), at("2026-11-09T19:01")).unwrap_err();
        assert!(late.to_string().contains("at least 24 hours"), "{late}");
        assert!(check_notice(match_at, Some(0), at("2026-11-10T19:00")).is_ok());
        let off = check_notice(match_at, None, at("2026-11-01T19:00")).unwrap_err();
        assert!(off.to_string().contains("no defaults"), "{off}");
        assert!(check_notice(None, Some(24), at("2026-11-09T19:01")).is_ok());
    }
}
