//! What the coordinator's pages read, one call per page: the dashboard (leagues, accounts,
//! matches with a rating missing), a league with its teams, supervisors and matches (with
//! their ratings), the playoffs setup (with each team's eligibility), and the backup copy.
//! Each checks that the user is the admin.

use crate::domain::Slug;
use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::db::{
    Db, DbError, leagues as db_leagues, matches as db_matches, playoffs as db_playoffs, users,
};
use crate::domain::{LocalTime, MatchId, MatchStatus, Role, TeamId, UserId};
use crate::rules::Stage;
use crate::service::playoffs;
use crate::service::playoffs::eligibility::{self, EligibilityRow};
use crate::service::term::divisions::{self, DivisionView};
use crate::service::term::leagues::{self, League};
use crate::service::term::teams::TeamView;
use crate::service::{ServiceError, User, require_admin};

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

/// A finished match of a league that requires ratings, with a team not rated yet.
#[derive(Debug, Clone)]
pub struct UnratedMatch {
    pub id: MatchId,
    pub league: LeagueLink,
    pub scheduled_at: Option<LocalTime>,
    pub stage: Stage,
    pub team_a: String,
    pub team_b: String,
    pub status: MatchStatus,
    /// Which team has no rating yet: `[a, b]`.
    pub missing: [bool; 2],
}

/// The admin dashboard: every league and every account, and the matches whose rating is
/// missing.
#[derive(Debug, Clone)]
pub struct Dashboard {
    pub leagues: Vec<LeagueLink>,
    pub accounts: Vec<Account>,
    /// How many leagues require every match to be rated.
    pub rating_leagues: usize,
    /// Their finished matches with a rating missing, league by league, in schedule order.
    pub unrated: Vec<UnratedMatch>,
}

#[tracing::instrument(skip_all, fields(user_id = %user.id))]
pub async fn dashboard(db: &Db, user: &User) -> Result<Dashboard, ServiceError> {
    require_admin(user)?;
    let mut conn = db.read().await?;
    let mut leagues = Vec::new();
    let mut rating_leagues = 0;
    let mut unrated = Vec::new();
    for league in crate::service::term::leagues::readable(db_leagues::all(&mut conn).await?) {
        let link = LeagueLink {
            slug: league.row.slug.to_string(),
            name: league.row.name.clone(),
        };
        if league
            .settings
            .sportsmanship
            .as_ref()
            .is_some_and(|s| s.required)
        {
            rating_leagues += 1;
            let rows = db_matches::unrated(&mut conn, league.row.id).await?;
            if !rows.is_empty() {
                let teams = db_leagues::teams(&mut conn, league.row.id).await?;
                let names: HashMap<TeamId, &str> =
                    teams.iter().map(|t| (t.id, t.name.as_str())).collect();
                let name_of = |id: TeamId| {
                    names
                        .get(&id)
                        .map_or_else(|| format!("#{id}"), |n| n.to_string())
                };
                unrated.extend(rows.into_iter().map(|m| UnratedMatch {
                    id: m.id,
                    league: link.clone(),
                    scheduled_at: m.scheduled_at,
                    stage: m.stage,
                    team_a: name_of(m.team_a),
                    team_b: name_of(m.team_b),
                    status: m.status,
                    missing: [m.rating_a.is_none(), m.rating_b.is_none()],
                }));
            }
        }
        leagues.push(link);
    }
    let accounts = users::all(&mut conn)
        .await?
        .into_iter()
        .map(|u| Account {
            username: u.username,
            role: u.role,
        })
        .collect();
    Ok(Dashboard {
        leagues,
        accounts,
        rating_leagues,
        unrated,
    })
}

/// A league with its rules (the edit form, a page heading).
pub async fn league(db: &Db, user: &User, slug: &Slug) -> Result<League, ServiceError> {
    require_admin(user)?;
    let mut conn = db.read().await?;
    leagues::league_by_slug(&mut conn, slug).await
}

/// Whether a league has the slug `slug` (a new league's preview warns before saving).
pub async fn slug_taken(db: &Db, user: &User, slug: &Slug) -> Result<bool, ServiceError> {
    require_admin(user)?;
    let mut conn = db.read().await?;
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
    /// The sportsmanship rating each team got, and every rater's note.
    pub rating_a: Option<i64>,
    pub rating_b: Option<i64>,
    pub rating_notes: Vec<RatingNote>,
}

/// A sportsmanship note and who wrote it (`None`: from before notes had authors).
#[derive(Debug, Clone)]
pub struct RatingNote {
    pub author: Option<String>,
    pub note: String,
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
    /// The league's divisions, in the order they were made (empty: none).
    pub divisions: Vec<DivisionView>,
    /// The teams that have played, whose division can no longer change (only looked up when
    /// the league has divisions).
    pub played: HashSet<TeamId>,
}

impl LeagueAdmin {
    /// The league has regular-season matches (a round robin cannot be generated again).
    pub fn has_regular(&self) -> bool {
        self.matches.iter().any(|m| m.stage == Stage::Regular)
    }
}

#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug))]
pub async fn league_admin(db: &Db, user: &User, slug: &Slug) -> Result<LeagueAdmin, ServiceError> {
    require_admin(user)?;
    let mut conn = db.read().await?;
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
    let notes = crate::db::rating_notes::rating_notes_of_league(&mut conn, id).await?;
    let team_views = crate::service::term::teams::views(&mut conn, id, &teams).await?;
    let divisions = divisions::views(&mut conn, id).await?;
    let played: HashSet<TeamId> = if divisions.is_empty() {
        HashSet::new()
    } else {
        crate::db::divisions::teams_that_have_played(&mut conn, id)
            .await?
            .into_iter()
            .collect()
    };
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
            rating_a: m.rating_a,
            rating_b: m.rating_b,
            rating_notes: notes
                .iter()
                .filter(|n| n.match_id == m.id)
                .map(|n| RatingNote {
                    author: n.author.clone(),
                    note: n.note.clone(),
                })
                .collect(),
        })
        .collect();
    Ok(LeagueAdmin {
        teams: team_views,
        league,
        supervisors,
        candidates,
        matches,
        divisions,
        played,
    })
}

/// What the playoffs page needs before a preview: the league, how many teams are active,
/// whether its bracket exists, and each team's eligibility.
#[derive(Debug, Clone)]
pub struct PlayoffsSetup {
    pub slug: String,
    pub name: String,
    pub active_teams: usize,
    pub bracket_exists: bool,
    /// Every team in standings order: eligible or not, why, what is at risk, any decision.
    pub eligibility: Vec<EligibilityRow>,
    /// The league's eligibility rules in words.
    pub rules: Vec<String>,
    /// The regular-season matches not played yet, in schedule order.
    pub unplayed: Vec<playoffs::Unplayed>,
    /// The league waits for them before its playoffs (unless the admin creates them anyway).
    pub require_all_played: bool,
    /// The league has divisions: the form offers seeding their winners first.
    pub has_divisions: bool,
    /// How the drawn bracket's seeds were made from divisions, in words, if they were.
    pub seeding_words: Option<String>,
    /// A past season: read-only (§18.2).
    pub archived: bool,
}

impl PlayoffsSetup {
    /// How many teams may be seeded.
    pub fn eligible_teams(&self) -> usize {
        self.eligibility.iter().filter(|r| r.eligible).count()
    }
}

pub async fn playoffs_setup(
    db: &Db,
    user: &User,
    slug: &Slug,
) -> Result<PlayoffsSetup, ServiceError> {
    require_admin(user)?;
    let mut conn = db.read().await?;
    let league = leagues::league_by_slug(&mut conn, slug).await?;
    let active_teams = db_leagues::teams(&mut conn, league.row.id)
        .await?
        .iter()
        .filter(|t| !t.withdrawn)
        .count();
    let bracket = db_playoffs::of_league(&mut conn, league.row.id).await?;
    let bracket_exists = bracket.is_some();
    let seeding_words = bracket.and_then(|b| b.seeding_words);
    let has_divisions = !crate::db::divisions::of_league(&mut conn, league.row.id)
        .await?
        .is_empty();
    let eligibility = eligibility::table(&mut conn, &league).await?;
    let rules = league.settings.describe_eligibility();
    let unplayed = playoffs::unplayed_regular(&mut conn, league.row.id).await?;
    Ok(PlayoffsSetup {
        slug: league.row.slug.to_string(),
        name: league.row.name,
        active_teams,
        bracket_exists,
        eligibility,
        rules,
        unplayed,
        require_all_played: league.settings.eligibility.require_all_played,
        has_divisions,
        seeding_words,
        archived: league.row.archived,
    })
}

/// A fresh copy of the whole database (`VACUUM INTO`, integrity checked), read from a
/// temporary file that is deleted before returning. None on PostgreSQL (backed up on its
/// server).
#[tracing::instrument(skip_all, fields(user_id = %user.id))]
pub async fn backup(db: &Db, user: &User) -> Result<Vec<u8>, ServiceError> {
    require_admin(user)?;
    if db.kind() != crate::db::StoreKind::Sqlite {
        return Err(ServiceError::NotFound);
    }
    let path = std::env::temp_dir().join(format!(
        "spades-im-backup-{}.sqlite3",
        crate::service::people::accounts::random_hex(12)
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
