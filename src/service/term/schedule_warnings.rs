//! The schedule's warnings as it stands (`GET /api/v1/leagues/{slug}/schedule/warnings`, and
//! the top of the admin schedule page): each clash between matches still to play, and each
//! such match on a blackout night, computed at every read, so a warning stays listed until
//! its cause is gone and never outlives it.

use std::collections::HashSet;

use serde::Serialize;

use crate::db::Db;
use crate::domain::{MatchId, MatchStatus, Slug};
use crate::service::night::access::may_supervise;
use crate::service::term::admin_schedule::{
    ClashKind, ScheduleAdmin, ScheduleMatch, blackout_warning, clashes_of, load_admin, named,
    same_pairing,
};
use crate::service::term::leagues::league_row;
use crate::service::{ServiceError, User};

/// A clash in the schedule as it is: its kind, in words, and the matches it concerns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct StandingWarning {
    /// `table_taken`, `team_busy`, `pairing_scheduled` or `blackout`.
    pub code: &'static str,
    /// In words, naming the matches by label and teams, the table or the team, and the time.
    pub message: String,
    /// The matches concerned, in schedule order.
    #[schema(value_type = Vec<i64>)]
    pub matches: Vec<MatchId>,
}

/// A match that can still be moved: not started, not over, not called off for good.
fn to_play(m: &ScheduleMatch) -> bool {
    matches!(m.status, MatchStatus::Scheduled | MatchStatus::Postponed)
}

/// Every clash among the matches still to play of `schedule`, each once, in schedule order.
pub fn standing(schedule: &ScheduleAdmin) -> Vec<StandingWarning> {
    let all = &schedule.matches;
    let mut seen: HashSet<(&'static str, MatchId, MatchId, String)> = HashSet::new();
    let mut out = Vec::new();
    for game in all.iter().filter(|m| to_play(m)) {
        let mut clashes = game
            .scheduled_at
            .map(|at| clashes_of(game, at, all))
            .unwrap_or_default();
        clashes.extend(same_pairing(game, all));
        for clash in clashes {
            let other = &clash.other;
            let (code, detail, message) = match &clash.kind {
                ClashKind::TableTaken(table) => (
                    "table_taken",
                    table.trim().to_lowercase(),
                    format!(
                        "{table} is booked twice: {} and {}",
                        named(game),
                        named(other)
                    ),
                ),
                ClashKind::TeamBusy(team) => (
                    "team_busy",
                    team.id.to_string(),
                    format!(
                        "{} plays twice the same night: {} and {}",
                        team.name,
                        named(game),
                        named(other)
                    ),
                ),
                ClashKind::PairingScheduled => (
                    "pairing_scheduled",
                    String::new(),
                    format!(
                        "{} and {} have two regular-season matches: {} and {}",
                        game.team_a.name,
                        game.team_b.name,
                        named(game),
                        named(other)
                    ),
                ),
            };
            let key = (code, game.id.min(other.id), game.id.max(other.id), detail);
            if seen.insert(key) {
                out.push(StandingWarning {
                    code,
                    message,
                    matches: vec![game.id, other.id],
                });
            }
        }
        if let Some(w) = blackout_warning(game, &schedule.blackouts) {
            out.push(StandingWarning {
                code: w.code,
                message: w.message,
                matches: vec![game.id],
            });
        }
    }
    out
}

/// The standing warnings of league `slug`'s schedule: the coordinator, and the league's
/// supervisors.
pub async fn of_league(
    db: &Db,
    user: &User,
    slug: &Slug,
) -> Result<Vec<StandingWarning>, ServiceError> {
    let mut conn = db.read().await?;
    let league = league_row(&mut conn, slug).await?;
    if !may_supervise(&mut conn, user, league.id).await? {
        return Err(ServiceError::NotFound);
    }
    let schedule = load_admin(&mut conn, league).await?;
    Ok(standing(&schedule))
}
