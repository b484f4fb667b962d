//! What the coordinator's pages read, one call per page: the dashboard (leagues and
//! accounts), a league with its teams, supervisors and matches, the playoffs setup, and the
//! backup copy. Each checks that the user is the admin.

use std::collections::HashMap;
use std::path::Path;

use super::leagues::{self, League, league_row};
use super::teams::TeamView;
use super::{ServiceError, User, require_admin};
use crate::db::{
    Db, DbError, leagues as db_leagues, matches as db_matches, playoffs as db_playoffs, users,
};
use crate::domain::{LocalTime, MatchId, MatchStatus, Role, TeamId, UserId};
use crate::rules::Stage;

/// A league as the dashboard lists it.
#[derive(Debug, Clone)]
pub struct LeagueLink {
    pub slug: String,
    pub name: String,
}

/// An account as the dashboard lists it.
#[derive(Debug, Clone)]
pub struct Account {
    pub username: String,
    pub role: Role,
}

/// The admin dashboard: every league and every account.
#[derive(Debug, Clone)]
pub struct Dashboard {
    pub leagues: Vec<LeagueLink>,
    pub accounts: Vec<Account>,
}

pub async fn dashboard(db: &Db, user: &User) -> Result<Dashboard, ServiceError> {
    require_admin(user)?;
    let mut conn = db.reader().acquire().await?;
    let leagues = db_leagues::all(&mut conn)
        .await?
        .into_iter()
        .map(|l| LeagueLink {
            slug: l.slug,
            name: l.name,
        })
        .collect();
    let accounts = users::all(&mut conn)
        .await?
        .into_iter()
        .map(|u| Account {
            username: u.username,
            role: u.role,
        })
        .collect();
    Ok(Dashboard { leagues, accounts })
}

/// A league with its rules (the edit form, a page heading).
pub async fn league(db: &Db, user: &User, slug: &str) -> Result<League, ServiceError> {
    require_admin(user)?;
    let mut conn = db.reader().acquire().await?;
    leagues::league_by_slug(&mut conn, slug).await
}

/// Whether a league has the slug `slug` (a new league's preview warns before saving).
pub async fn slug_taken(db: &Db, user: &User, slug: &str) -> Result<bool, ServiceError> {
    require_admin(user)?;
    let mut conn = db.reader().acquire().await?;
    Ok(db_leagues::by_slug(&mut conn, slug).await?.is_some())
}

/// A match as the league's admin page lists it.
#[derive(Debug, Clone)]
pub struct MatchLine {
    pub id: MatchId,
    pub scheduled_at: Option<LocalTime>,
    pub table: Option<String>,
    pub stage: Stage,
    pub round: Option<i64>,
    pub team_a: String,
    pub team_b: String,
    pub status: MatchStatus,
    pub score_a: i64,
    pub score_b: i64,
}

/// The league's admin page: its teams (by name), supervisors, the supervisor accounts that
/// could be assigned, and every match (cancelled ones too) in schedule order.
#[derive(Debug, Clone)]
pub struct LeagueAdmin {
    pub league: League,
    pub teams: Vec<TeamView>,
    pub supervisors: Vec<(UserId, String)>,
    /// Supervisor accounts not assigned to the league yet.
    pub candidates: Vec<String>,
    pub matches: Vec<MatchLine>,
}

impl LeagueAdmin {
    /// The league has regular-season matches (a round robin cannot be generated again).
    pub fn has_regular(&self) -> bool {
        self.matches.iter().any(|m| m.stage == Stage::Regular)
    }
}

pub async fn league_admin(db: &Db, user: &User, slug: &str) -> Result<LeagueAdmin, ServiceError> {
    require_admin(user)?;
    let mut conn = db.reader().acquire().await?;
    let league = leagues::league_by_slug(&mut conn, slug).await?;
    let id = league.row.id;
    let teams = db_leagues::teams(&mut conn, id).await?;
    let supervisors = db_leagues::supervisors(&mut conn, id).await?;
    let candidates = users::all(&mut conn)
        .await?
        .into_iter()
        .filter(|u| u.role == Role::Supervisor && !supervisors.iter().any(|(i, _)| *i == u.id))
        .map(|u| u.username)
        .collect();
    let rows = db_matches::of_league(&mut conn, id).await?;
    drop(conn);
    let names: HashMap<TeamId, &str> = teams.iter().map(|t| (t.id, t.name.as_str())).collect();
    let name_of = |id: TeamId| {
        names
            .get(&id)
            .map_or_else(|| format!("#{id}"), |n| n.to_string())
    };
    let matches = rows
        .into_iter()
        .map(|m| MatchLine {
            id: m.id,
            scheduled_at: m.scheduled_at,
            table: m.table_name,
            stage: m.stage,
            round: m.round,
            team_a: name_of(m.team_a),
            team_b: name_of(m.team_b),
            status: m.status,
            score_a: m.score_a,
            score_b: m.score_b,
        })
        .collect();
    Ok(LeagueAdmin {
        teams: teams.iter().map(TeamView::from).collect(),
        league,
        supervisors,
        candidates,
        matches,
    })
}

/// What the playoffs page needs before a preview: the league, how many teams are active,
/// and whether its bracket exists.
#[derive(Debug, Clone)]
pub struct PlayoffsSetup {
    pub slug: String,
    pub name: String,
    pub active_teams: usize,
    pub bracket_exists: bool,
}

pub async fn playoffs_setup(
    db: &Db,
    user: &User,
    slug: &str,
) -> Result<PlayoffsSetup, ServiceError> {
    require_admin(user)?;
    let mut conn = db.reader().acquire().await?;
    let league = league_row(&mut conn, slug).await?;
    let active_teams = db_leagues::teams(&mut conn, league.id)
        .await?
        .iter()
        .filter(|t| !t.withdrawn)
        .count();
    let bracket_exists = db_playoffs::of_league(&mut conn, league.id)
        .await?
        .is_some();
    Ok(PlayoffsSetup {
        slug: league.slug,
        name: league.name,
        active_teams,
        bracket_exists,
    })
}

/// A fresh copy of the whole database (`VACUUM INTO`, integrity checked), read from a
/// temporary file that is deleted before returning.
pub async fn backup(db: &Db, user: &User) -> Result<Vec<u8>, ServiceError> {
    require_admin(user)?;
    let path = std::env::temp_dir().join(format!(
        "spades-im-backup-{}.sqlite3",
        super::accounts::random_hex(12)
    ));
    let bytes = copy_to(db, &path).await;
    let _ = tokio::fs::remove_file(&path).await;
    bytes
}

async fn copy_to(db: &Db, path: &Path) -> Result<Vec<u8>, ServiceError> {
    db.backup(path).await.map_err(|e| match e {
        DbError::Sqlx(e) => ServiceError::from(e),
        other => ServiceError::corrupt("backup", other),
    })?;
    tokio::fs::read(path)
        .await
        .map_err(|e| ServiceError::Db(sqlx::Error::Io(e)))
}
