//! Who may write to a match and what every write to one shares: the match if the user may
//! write to it, its league, a team named in a request, and how long an idempotency key is
//! kept. `matches`, `lineups`, `conduct` and `action_keys` import these; this module
//! imports none of them.

use crate::db::leagues as db_leagues;
use crate::db::matches::MatchRow;
use crate::db::{Conn, Db};
use crate::domain::{ErrorCode, LeagueId, MatchId, TextEnum};
use crate::rules::Team;
use crate::service::term::leagues::League;
use crate::service::{ServiceError, User};

/// How long an idempotency key is kept after its first use: a phone's outbox sends again
/// within hours, a week covers any (docs/api.md §7.3). A resend after that is refused as a
/// stale `expected_version`, never recorded twice: the first use moved the version on.
pub const IDEMPOTENCY_WINDOW: chrono::Duration = chrono::Duration::days(7);

/// The match, if `user` may write to it: admins anywhere, supervisors in their leagues
/// (elsewhere it does not exist for them: 404).
pub(in crate::service) async fn writable(
    conn: &mut Conn,
    user: &User,
    id: MatchId,
) -> Result<MatchRow, ServiceError> {
    Ok(for_write(conn, user, id).await?.row)
}

/// As [`writable`], with the teams' names for the answer, in one query.
pub(in crate::service) async fn for_write(
    conn: &mut Conn,
    user: &User,
    id: MatchId,
) -> Result<crate::db::match_write::MatchForWrite, ServiceError> {
    let m = crate::db::match_write::for_write(conn, id, user.id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    if !user.is_admin() && !m.supervises {
        return Err(ServiceError::NotFound);
    }
    Ok(m)
}

/// Whether `user` has the right to write to match `id`, for a refusal that must come before
/// the body: an admin has it everywhere (whether the match exists is the write's to say, after
/// the body); a supervisor only in their leagues (404 otherwise, a match that does not exist
/// included). Read outside any write: the write's own check in its transaction stays the one
/// that counts.
pub async fn check_writable(db: &Db, user: &User, id: MatchId) -> Result<(), ServiceError> {
    if user.is_admin() {
        return Ok(());
    }
    let mut conn = db.read().await?;
    for_write(&mut conn, user, id).await.map(|_| ())
}

/// Whether `user` may run matches of the league.
pub async fn may_supervise(
    conn: &mut Conn,
    user: &User,
    league_id: LeagueId,
) -> Result<bool, ServiceError> {
    Ok(user.is_admin() || db_leagues::is_supervisor(conn, league_id, user.id).await?)
}

pub(in crate::service) async fn league_of(
    conn: &mut Conn,
    m: &MatchRow,
) -> Result<League, ServiceError> {
    let row = db_leagues::by_id(conn, m.league_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    League::from_row(row)
}

/// The team `team` names (`a` or `b`), refused as field `field` otherwise.
pub(in crate::service) fn side(team: &str, field: &str) -> Result<Team, ServiceError> {
    Team::parse(team.trim()).map_err(|_| {
        ServiceError::invalid(
            ErrorCode::InvalidInput,
            field,
            format!("the team is \"a\" or \"b\", not \"{team}\""),
        )
    })
}
