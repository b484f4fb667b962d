//! The check-in desk of a tournament night (docs/api.md §21.4): a team of two added and
//! checked in with one form at the door; teams known in advance checked in as they arrive.
//! Once any team is checked in, the Swiss rounds pair only the teams checked in.

use std::collections::HashMap;

use crate::db::Db;
use crate::db::desk as db_desk;
use crate::db::leagues as db_leagues;
use crate::domain::{ErrorCode, LeagueId, Slug, TeamId, Timestamp};
use crate::service::audit;
use crate::service::people::players::{NewPlayerInput, PlayerInput};
use crate::service::term::leagues::league_row;
use crate::service::term::teams::{NewTeamInput, TeamView, add_team_in, check_team};
use crate::service::{ServiceError, User, require_admin};

/// A team at the desk.
#[derive(Debug, Clone)]
pub struct DeskTeam {
    pub id: TeamId,
    pub name: String,
    /// Its players' names (never their student ids).
    pub players: Vec<String>,
    pub checked_in: Option<Timestamp>,
}

/// What the desk shows: the teams (not withdrawn), by name, and whether new ones may come.
#[derive(Debug, Clone)]
pub struct Desk {
    pub name: String,
    pub archived: bool,
    pub teams: Vec<DeskTeam>,
    /// The first Swiss round is paired (or the league has a schedule): no team is added here
    /// any more.
    pub closed: bool,
}

/// A team of two as typed at the door.
#[derive(Debug, Clone, Default)]
pub struct Arrival {
    pub name: String,
    /// Each player's name and student id (empty: none).
    pub players: [(String, String); 2],
}

pub async fn desk(db: &Db, user: &User, slug: &Slug) -> Result<Desk, ServiceError> {
    require_admin(user)?;
    let mut conn = db.read().await?;
    let league = league_row(&mut conn, slug).await?;
    let arrived: HashMap<TeamId, Timestamp> = db_desk::checked_in(&mut conn, league.id)
        .await?
        .into_iter()
        .collect();
    let rows = db_leagues::teams(&mut conn, league.id).await?;
    let views = crate::service::term::teams::views(&mut conn, league.id, &rows).await?;
    let teams = views
        .into_iter()
        .filter(|t| !t.withdrawn)
        .map(|t| DeskTeam {
            id: t.id,
            name: t.name.to_string(),
            players: t.players.iter().map(ToString::to_string).collect(),
            checked_in: arrived.get(&t.id).copied(),
        })
        .collect();
    Ok(Desk {
        name: league.name.to_string(),
        archived: league.archived,
        closed: has_regular_matches(&mut conn, league.id).await?,
        teams,
    })
}

/// Adds the team at the door and checks it in, in one transaction, with the checks of any
/// new team (names, student ids free in the league).
pub async fn arrive(
    db: &Db,
    user: &User,
    slug: &Slug,
    arrival: &Arrival,
) -> Result<TeamView, ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    let input = NewTeamInput {
        name: arrival.name.clone(),
        players: arrival
            .players
            .iter()
            .map(|(name, student_id)| {
                PlayerInput::Player(NewPlayerInput {
                    name: name.clone(),
                    student_id: Some(student_id.trim().to_string()).filter(|s| !s.is_empty()),
                    email: None,
                    captain: None,
                })
            })
            .collect(),
        division: None,
    };
    let checked = check_team(&input)?;
    let mut tx = db.write().await?;
    let league = league_row(&mut tx, slug).await?;
    if has_regular_matches(&mut tx, league.id).await? {
        return Err(ServiceError::conflict(
            ErrorCode::ScheduleExists,
            "the first round is paired: the desk adds no more teams tonight (a team added now would have missed a round)",
        ));
    }
    let team = add_team_in(&mut tx, user, now, &league, &input, checked).await?;
    db_desk::set_checked_in(&mut tx, team.id, Some(now)).await?;
    tx.commit().await?;
    Ok(team)
}

/// Checks team `team` of league `slug` in (`true`) or out.
pub async fn check_in(
    db: &Db,
    user: &User,
    slug: &Slug,
    team: TeamId,
    arrived: bool,
) -> Result<(), ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    let mut tx = db.write().await?;
    let league = league_row(&mut tx, slug).await?;
    let row = db_leagues::team(&mut tx, team)
        .await?
        .filter(|t| t.league_id == league.id && !t.withdrawn)
        .ok_or(ServiceError::NotFound)?;
    db_desk::set_checked_in(&mut tx, row.id, arrived.then_some(now)).await?;
    let action = if arrived {
        "check_in_team"
    } else {
        "check_out_team"
    };
    audit::record(
        &mut tx,
        user,
        now,
        audit::Change::new(action, audit::Subject::Team(row.id)),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

async fn has_regular_matches(
    conn: &mut crate::db::Conn,
    league: LeagueId,
) -> Result<bool, ServiceError> {
    Ok(crate::db::matches::of_league(conn, league)
        .await?
        .iter()
        .any(|m| m.stage == crate::rules::Stage::Regular))
}
