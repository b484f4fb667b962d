//! The supervisor a match is given: one of its league's active supervisors, checked
//! ([`supervisor_of`]), given with an audit row ([`give_supervisor`]), or a night's tables
//! spread over several in one go ([`spread_supervisors`]).

use chrono::NaiveDate;

use crate::db::matches::{self as db_matches, MatchRow};
use crate::db::{Conn, Db, leagues as db_leagues};
use crate::domain::{ErrorCode, MatchStatus, Slug, UserId};
use crate::service::audit;
use crate::service::term::leagues::league_row;
use crate::service::{ServiceError, User, require_admin};

/// The account `username` names, if it supervises match `m`'s league (`None` for none).
pub(super) async fn supervisor_of(
    conn: &mut Conn,
    m: &MatchRow,
    username: Option<&str>,
) -> Result<Option<(UserId, String)>, ServiceError> {
    match username.map(str::trim).filter(|u| !u.is_empty()) {
        Some(username) => Ok(Some(
            league_supervisor(conn, m.league_id, username, "supervisor").await?,
        )),
        None => Ok(None),
    }
}

/// The active account `username` names, if it supervises league `league` (else 422
/// `invalid_supervisor` on `field`).
async fn league_supervisor(
    conn: &mut Conn,
    league: crate::domain::LeagueId,
    username: &str,
    field: &str,
) -> Result<(UserId, String), ServiceError> {
    let refused = || {
        ServiceError::invalid(
            ErrorCode::InvalidSupervisor,
            field,
            "that account does not supervise this league: add it to the league's supervisors first",
        )
    };
    let user = crate::db::users::by_name(conn, username.trim())
        .await?
        .filter(|u| u.active)
        .ok_or_else(refused)?;
    if !db_leagues::is_supervisor(conn, league, user.id).await? {
        return Err(refused());
    }
    Ok((user.id, user.username))
}

/// Spreads `usernames` (supervisors of the league `slug`) over the night of `night`: its
/// matches not over, in table order, in one block each (tables 1–4 to the first, 5–8 to the
/// next…), so each walks the fewest tables. One transaction; how many matches were given.
#[tracing::instrument(skip_all, fields(user_id = %user.id))]
pub async fn spread_supervisors(
    db: &Db,
    user: &User,
    slug: &Slug,
    night: NaiveDate,
    usernames: &[String],
) -> Result<usize, ServiceError> {
    require_admin(user)?;
    if usernames.is_empty() {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidSupervisor,
            "supervisors",
            "tick at least one supervisor",
        ));
    }
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let league = league_row(&mut tx, slug).await?;
    if league.archived {
        return Err(ServiceError::league_archived());
    }
    let mut people = Vec::with_capacity(usernames.len());
    for name in usernames {
        people.push(league_supervisor(&mut tx, league.id, name, "supervisors").await?);
    }
    let mut tonight: Vec<MatchRow> = db_matches::on_night(&mut tx, league.id, night)
        .await?
        .into_iter()
        .filter(|m| m.status.is_unstarted() || m.status == MatchStatus::InProgress)
        .collect();
    tonight.sort_by(|a, b| {
        let table = |m: &MatchRow| m.table_name.clone().unwrap_or_default();
        crate::domain::table_name::natural_cmp(&table(a), &table(b))
            .then(a.scheduled_at.cmp(&b.scheduled_at))
    });
    let block = tonight.len().div_ceil(people.len()).max(1);
    for (i, m) in tonight.iter().enumerate() {
        let to = people[(i / block).min(people.len() - 1)].clone();
        give_supervisor(&mut tx, user, m, Some(to), now).await?;
    }
    tx.commit().await?;
    Ok(tonight.len())
}

/// Gives match `m` the supervisor `to` (`None`: none), with one audit row.
pub(super) async fn give_supervisor(
    conn: &mut Conn,
    user: &User,
    m: &MatchRow,
    to: Option<(UserId, String)>,
    now: crate::domain::Timestamp,
) -> Result<(), ServiceError> {
    crate::db::match_write::set_supervisor(conn, m.id, to.as_ref().map(|(id, _)| *id)).await?;
    let named = to.map_or_else(|| "no supervisor".to_string(), |(_, name)| name);
    audit::record(
        conn,
        user,
        now,
        audit::Change::new("give_supervisor", audit::Subject::Match(m.id)).after(&named),
    )
    .await?;
    Ok(())
}
