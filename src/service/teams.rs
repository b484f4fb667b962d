//! Teams of a league: add one, list them (edits and withdrawals are in `roster`).

use crate::domain::ErrorCode;
use crate::domain::Slug;
use serde::{Deserialize, Serialize};

use crate::db::Conn;

use super::audit;

use super::leagues::{league_row, name_rule};
use super::text::NameKey;

use super::{ServiceError, User, require_admin};

use crate::db::Db;

use crate::db::leagues::{self as db_leagues, TeamRow};

use crate::domain::{LeagueId, PersonName, TeamId, TeamName, Timestamp};

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTeamInput {
    pub name: String,
    pub players: Vec<String>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct TeamView {
    pub id: TeamId,
    #[schema(value_type = String)]
    pub name: TeamName,
    #[schema(value_type = [String; 2])]
    pub players: [PersonName; 2],
    pub withdrawn: bool,
    /// Once the forfeit policy dropped the team: why ("dropped after 2 forfeits").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_reason: Option<String>,
}

impl From<&TeamRow> for TeamView {
    fn from(t: &TeamRow) -> Self {
        TeamView {
            id: t.id,
            name: t.name.clone(),
            players: [t.player1.clone(), t.player2.clone()],
            withdrawn: t.withdrawn,
            dropped_reason: t.dropped_reason.clone(),
        }
    }
}

/// Checks a team's name and two players.
pub fn check_team(input: &NewTeamInput) -> Result<(TeamName, [PersonName; 2]), ServiceError> {
    let name = TeamName::new(&input.name)
        .map_err(|bad| name_rule("name", "the team's name").refused(bad))?;
    if input.players.len() != 2 {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidTeam,
            "players",
            format!("a team has 2 players, not {}", input.players.len()),
        ));
    }
    let player = |text: &str| {
        PersonName::new(text).map_err(|bad| name_rule("players", "each player's name").refused(bad))
    };
    Ok((
        name,
        [player(&input.players[0])?, player(&input.players[1])?],
    ))
}

/// Why `name` cannot be a new name in a league with teams named `existing`: one of them
/// is the same name ([`NameKey`]: ignoring case, or a look-alike).
pub fn name_taken<'a>(name: &str, existing: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let key = NameKey::of(name);
    existing
        .into_iter()
        .find(|other| NameKey::of(other) == key)
        .map(|other| duplicate_message(name, other))
}

/// Why `name` is refused next to the league's team `other` that reads the same.
pub fn duplicate_message(name: &str, other: &str) -> String {
    if name.to_lowercase() == other.to_lowercase() {
        format!("the league already has a team named \"{name}\"")
    } else {
        format!(
            "\"{name}\" reads the same as the league's team \"{other}\": choose a name that tells them apart"
        )
    }
}

#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug))]
pub async fn add_team(
    db: &Db,
    user: &User,
    slug: &Slug,
    input: &NewTeamInput,
) -> Result<TeamView, ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    let (name, players) = check_team(input)?;
    let mut tx = db.write().await?;
    let league = league_row(&mut tx, slug).await?;
    let existing = db_leagues::teams(&mut tx, league.id).await?;
    if let Some(message) = name_taken(name.as_str(), existing.iter().map(|t| t.name.as_str())) {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidTeam,
            "name",
            message,
        ));
    }
    let team = insert_team(&mut tx, user, now, league.id, (name, players), None).await?;
    tx.commit().await?;
    Ok(team)
}

/// Writes a new team of league `league_id` with its audit row (saying `reason` when there
/// is one), inside the caller's transaction.
pub async fn insert_team(
    tx: &mut Conn,
    user: &User,
    now: Timestamp,
    league_id: LeagueId,
    (name, players): (TeamName, [PersonName; 2]),
    reason: Option<&str>,
) -> Result<TeamView, ServiceError> {
    let id = db_leagues::insert_team(&mut *tx, league_id, &name, &players).await?;
    let after = serde_json::json!({"name": name, "players": players}).to_string();
    let mut change = audit::Change::new("create", audit::Subject::Team(id)).after(&after);
    if let Some(reason) = reason {
        change = change.reason(reason);
    }
    audit::record(tx, user, now, change).await?;
    Ok(TeamView {
        id,
        name,
        players,
        withdrawn: false,
        dropped_reason: None,
    })
}

pub async fn teams(conn: &mut Conn, league_id: LeagueId) -> Result<Vec<TeamRow>, ServiceError> {
    Ok(db_leagues::teams(conn, league_id).await?)
}

/// The teams of the league `slug` as the API shows them (404 for no such league).
pub async fn list(db: &Db, slug: &Slug) -> Result<Vec<TeamView>, ServiceError> {
    let mut conn = db.read().await?;
    let league = super::leagues::league_by_slug(&mut conn, slug).await?;
    Ok(teams(&mut conn, league.row.id)
        .await?
        .iter()
        .map(TeamView::from)
        .collect())
}
