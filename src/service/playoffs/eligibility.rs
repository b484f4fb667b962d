//! Who may enter the playoffs (docs/api.md §6.10): each team's record judged by the league's
//! eligibility settings (`league::eligibility`), and the seeding's list of eligible teams.

use crate::domain::ErrorCode;
use crate::domain::Slug;
use std::collections::{HashMap, HashSet};

use crate::db::Conn;
use serde::{Deserialize, Serialize};

use crate::db::Db;
use crate::db::leagues::{self as db_leagues, OverrideRow, TeamRow};
use crate::domain::{TeamId, Timestamp};
use crate::league::eligibility::{Record, WITHDRAWN, at_risk, failing};
use crate::league::standings::Standing;
use crate::service::playoffs::player_eligibility::{PlayerEligibility, override_reason};
use crate::service::term::leagues::{League, league_by_slug};
use crate::service::views::standings::standings;
use crate::service::{ServiceError, User, audit, require_admin};

/// One team's eligibility.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct EligibilityRow {
    pub team_id: TeamId,
    pub team: String,
    pub eligible: bool,
    /// Every rule the team fails, in words ("sportsmanship average 2.7 is below 3.0").
    pub reasons: Vec<String>,
    /// What the team needs to stay eligible, in words ("one more forfeit and you are out of
    /// the playoffs").
    pub at_risk: Vec<String>,
    /// An admin's decision over the rules (then `eligible` is the decision's, except that a
    /// withdrawn or dropped team is never eligible).
    #[serde(rename = "override")]
    pub decision: Option<Override>,
    /// The team's active players, each with whether they may play in the playoffs
    /// (`settings.eligibility.min_matches_played`; names and ids only). A team's own
    /// eligibility does not depend on them.
    pub players: Vec<PlayerEligibility>,
}

/// An admin's decision on a team's eligibility.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Override {
    pub eligible: bool,
    pub reason: String,
    /// The admin's username.
    pub by: String,
    pub at: Timestamp,
}

impl From<&OverrideRow> for Override {
    fn from(row: &OverrideRow) -> Self {
        Override {
            eligible: row.eligible,
            reason: row.reason.clone(),
            by: row.set_by.clone(),
            at: row.set_at,
        }
    }
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct EligibilityTable {
    pub rows: Vec<EligibilityRow>,
}

/// Every team of the league with its verdict, in standings order.
pub async fn table(conn: &mut Conn, league: &League) -> Result<Vec<EligibilityRow>, ServiceError> {
    let teams = db_leagues::teams(&mut *conn, league.row.id).await?;
    let overrides = db_leagues::overrides(&mut *conn, league.row.id).await?;
    let table = standings(&mut *conn, league).await?;
    let players = crate::service::playoffs::player_eligibility::of_league(conn, league).await?;
    Ok(judge(league, &teams, &overrides, &table, players))
}

/// The verdict on each row of `table` (the league's standings), from its `teams` and the
/// admins' `overrides`, with each team's `players`' verdicts: for a caller that has the
/// standings already (the playoffs' seeding, which needs no players).
pub(in crate::service) fn judge(
    league: &League,
    teams: &[TeamRow],
    overrides: &[OverrideRow],
    table: &[Standing],
    mut players: HashMap<TeamId, Vec<PlayerEligibility>>,
) -> Vec<EligibilityRow> {
    let decisions: HashMap<TeamId, &OverrideRow> =
        overrides.iter().map(|o| (o.team_id, o)).collect();
    let withdrawn: HashSet<TeamId> = teams.iter().filter(|t| t.withdrawn).map(|t| t.id).collect();
    // A team the forfeit policy dropped says so instead of "withdrawn".
    let dropped: HashMap<TeamId, &str> = teams
        .iter()
        .filter_map(|t| Some((t.id, t.dropped_reason.as_deref()?)))
        .collect();
    table
        .iter()
        .map(|s| {
            let record = Record {
                played: s.played,
                won: s.won,
                tied: s.tied,
                forfeits: s.forfeits,
                ratings: s.ratings,
                withdrawn: withdrawn.contains(&s.team_id),
            };
            let mut reasons = failing(&league.settings, &record);
            if let Some(why) = dropped.get(&s.team_id) {
                for reason in &mut reasons {
                    if reason == WITHDRAWN {
                        *reason = format!("the team was {why}");
                    }
                }
            }
            let decision = decisions.get(&s.team_id).map(|o| Override::from(*o));
            EligibilityRow {
                team_id: s.team_id,
                team: s.team.clone(),
                // A decision never brings back a team that has withdrawn or was dropped
                // since it was made.
                eligible: !record.withdrawn
                    && decision.as_ref().map_or(reasons.is_empty(), |d| d.eligible),
                at_risk: at_risk(&league.settings, &record),
                reasons,
                decision,
                players: players.remove(&s.team_id).unwrap_or_default(),
            }
        })
        .collect()
}

/// The eligibility of every team of league `slug` (public).
pub async fn of_league(db: &Db, slug: &Slug) -> Result<EligibilityTable, ServiceError> {
    let mut conn = db.read().await?;
    let league = league_by_slug(&mut conn, slug).await?;
    Ok(EligibilityTable {
        rows: table(&mut conn, &league).await?,
    })
}

/// An admin's decision: `eligible` true or false with a reason, or `null` to remove it.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OverrideInput {
    /// `true` or `false` over what the rules say; `null` gives the decision back to them.
    pub eligible: Option<bool>,
    /// Why: required with a decision (optional with `null`, and checked when given), at most
    /// 500 characters, line breaks allowed, stored text (docs/api.md §1.1).
    #[serde(default)]
    #[schema(max_length = 500)]
    pub reason: Option<String>,
}

/// Sets or removes an admin's decision on the eligibility of `team` of league `slug`
/// (audited); the team's row as it is now.
#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug, team_id = %team))]
pub async fn set_override(
    db: &Db,
    user: &User,
    slug: &Slug,
    team: TeamId,
    input: &OverrideInput,
) -> Result<EligibilityRow, ServiceError> {
    require_admin(user)?;
    let now = db.clock().now();
    let reason = override_reason(input.eligible, input.reason.as_deref())?;
    let mut tx = db.write().await?;
    let league = league_by_slug(&mut tx, slug).await?;
    let row = db_leagues::team(&mut tx, team)
        .await?
        .filter(|t| t.league_id == league.row.id)
        .ok_or(ServiceError::NotFound)?;
    if row.withdrawn && input.eligible == Some(true) {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidInput,
            "eligible",
            format!(
                "{} has withdrawn: put it back in the league on the teams page before making it eligible",
                row.name
            ),
        ));
    }
    let before = db_leagues::overrides(&mut tx, league.row.id)
        .await?
        .into_iter()
        .find(|o| o.team_id == team)
        .map(|o| decision_words(Some(o.eligible)));
    db_leagues::set_override(
        &mut tx,
        team,
        input.eligible.zip(reason.as_deref()),
        user.id,
        now,
    )
    .await?;
    let after = decision_words(input.eligible);
    let mut change =
        audit::Change::new("override_eligibility", audit::Subject::Team(team)).after(&after);
    if let Some(before) = &before {
        change = change.before(before);
    }
    if let Some(reason) = &reason {
        change = change.reason(reason);
    }
    audit::record(&mut tx, user, now, change).await?;
    let rows = table(&mut tx, &league).await?;
    tx.commit().await?;
    rows.into_iter()
        .find(|r| r.team_id == team)
        .ok_or(ServiceError::NotFound)
}

fn decision_words(eligible: Option<bool>) -> String {
    match eligible {
        Some(true) => "eligible (admin's decision)",
        Some(false) => "not eligible (admin's decision)",
        None => "as the rules say",
    }
    .to_string()
}
