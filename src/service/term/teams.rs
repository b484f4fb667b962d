//! Teams of a league: add one, list them (edits and withdrawals are in `roster`).

use crate::domain::ErrorCode;
use crate::domain::Slug;
use serde::{Deserialize, Serialize};

use crate::db::Conn;

use crate::service::audit;

use crate::service::term::leagues::{league_row, name_rule};
use crate::service::text::NameKey;

use crate::service::{ServiceError, User, require_admin};

use crate::db::Db;

use crate::db::leagues::{self as db_leagues, TeamRow};

use crate::db::players::{self as db_players, PlayerFields};
use crate::domain::{DivisionId, LeagueId, PersonName, TeamId, TeamName, Timestamp};

use crate::service::people::players::{self, PLAYERS_MAX, PLAYERS_MIN, PlayerInput};

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTeamInput {
    pub name: String,
    /// 2 to 8 players: names, or objects with a name and optionally a student id, an email
    /// and whether they are the captain.
    #[schema(min_items = 2, max_items = 8)]
    pub players: Vec<PlayerInput>,
    /// One of the league's divisions (`null` or absent: none).
    #[serde(default)]
    pub division: Option<DivisionId>,
}

/// A new team's name and its players, checked.
pub type CheckedTeam = (TeamName, Vec<PlayerFields>);

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct TeamView {
    pub id: TeamId,
    #[schema(value_type = String)]
    pub name: TeamName,
    /// The names of its active players (never their student ids or emails).
    #[schema(value_type = Vec<String>, min_items = 2, max_items = 8)]
    pub players: Vec<PersonName>,
    pub withdrawn: bool,
    /// Once the forfeit policy dropped the team: why ("dropped after 2 forfeits").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_reason: Option<String>,
    /// Its division (`null`: none, as in a league without divisions).
    pub division: Option<DivisionId>,
}

impl TeamView {
    /// The team `t` with the names of its active players `players`.
    fn of(t: &TeamRow, players: Vec<PersonName>) -> TeamView {
        TeamView {
            id: t.id,
            name: t.name.clone(),
            players,
            withdrawn: t.withdrawn,
            dropped_reason: t.dropped_reason.clone(),
            division: t.division_id,
        }
    }
}

/// The teams `rows` of league `league_id` as shown, each with its active players' names.
pub async fn views(
    conn: &mut Conn,
    league_id: LeagueId,
    rows: &[TeamRow],
) -> Result<Vec<TeamView>, ServiceError> {
    let players = db_players::of_league(conn, league_id).await?;
    Ok(rows
        .iter()
        .map(|t| {
            let names = players
                .iter()
                .filter(|p| p.team_id == t.id && p.active)
                .map(|p| p.name.clone())
                .collect();
            TeamView::of(t, names)
        })
        .collect())
}

/// One team as shown, with its active players' names.
pub async fn view(conn: &mut Conn, t: &TeamRow) -> Result<TeamView, ServiceError> {
    let names = db_players::of_team(conn, t.id)
        .await?
        .into_iter()
        .filter(|p| p.active)
        .map(|p| p.name)
        .collect();
    Ok(TeamView::of(t, names))
}

/// Checks a team's name and its 2 to 8 players (names, or objects).
pub fn check_team(input: &NewTeamInput) -> Result<CheckedTeam, ServiceError> {
    let name = TeamName::new(&input.name)
        .map_err(|bad| name_rule("name", "the team's name").refused(bad))?;
    let count = input.players.len();
    if !(PLAYERS_MIN..=PLAYERS_MAX).contains(&count) {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidTeam,
            "players",
            format!("a team has {PLAYERS_MIN} to {PLAYERS_MAX} players, not {count}"),
        ));
    }
    let players = input
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| players::check_new(p, &format!("players[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    players::check_distinct_ids(&players)?;
    Ok((name, players))
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
    let checked = check_team(input)?;
    let mut tx = db.write().await?;
    let league = league_row(&mut tx, slug).await?;
    let team = add_team_in(&mut tx, user, now, &league, input, checked).await?;
    tx.commit().await?;
    Ok(team)
}

/// [`add_team`] inside the caller's transaction, the input `checked` already.
pub async fn add_team_in(
    tx: &mut Conn,
    user: &User,
    now: Timestamp,
    league: &db_leagues::LeagueRow,
    input: &NewTeamInput,
    (name, players): CheckedTeam,
) -> Result<TeamView, ServiceError> {
    let existing = db_leagues::teams(&mut *tx, league.id).await?;
    if let Some(message) = name_taken(name.as_str(), existing.iter().map(|t| t.name.as_str())) {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidTeam,
            "name",
            message,
        ));
    }
    for p in &players {
        if let Some(id) = &p.student_id {
            players::check_student_id_free(&mut *tx, league.id, None, id, None).await?;
        }
    }
    if let Some(division) = input.division {
        crate::service::term::divisions::check_division(&mut *tx, league.id, "division", division)
            .await?;
    }
    let mut team = insert_team(&mut *tx, user, now, league.id, (name, players), None).await?;
    if let Some(division) = input.division {
        crate::db::divisions::set_team_division(&mut *tx, team.id, Some(division)).await?;
        team.division = Some(division);
    }
    Ok(team)
}

/// Writes a new team of league `league_id` and its players (checked: 2 to 8, their student
/// ids free in the league) with their audit rows (saying `reason` when there is one),
/// inside the caller's transaction.
pub async fn insert_team(
    tx: &mut Conn,
    user: &User,
    now: Timestamp,
    league_id: LeagueId,
    (name, players): CheckedTeam,
    reason: Option<&str>,
) -> Result<TeamView, ServiceError> {
    // A roster import may bring deactivated players along: the team is its active ones.
    let names: Vec<PersonName> = players
        .iter()
        .filter(|p| p.active)
        .map(|p| p.name.clone())
        .collect();
    let [first, second, ..] = names.as_slice() else {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidTeam,
            "players",
            format!("a team has {PLAYERS_MIN} to {PLAYERS_MAX} players"),
        ));
    };
    let seats = [first.clone(), second.clone()];
    let id = db_leagues::insert_team(&mut *tx, league_id, &name, &seats).await?;
    let after = serde_json::json!({"name": name, "players": names}).to_string();
    let mut change = audit::Change::new("create", audit::Subject::Team(id)).after(&after);
    if let Some(reason) = reason {
        change = change.reason(reason);
    }
    audit::record(tx, user, now, change).await?;
    let row = db_leagues::team(tx, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    players::insert_all(tx, user, now, &row, &players).await?;
    Ok(TeamView::of(&row, names))
}

pub async fn teams(conn: &mut Conn, league_id: LeagueId) -> Result<Vec<TeamRow>, ServiceError> {
    Ok(db_leagues::teams(conn, league_id).await?)
}

/// The teams of the league `slug` as the API shows them (404 for no such league).
pub async fn list(db: &Db, slug: &Slug) -> Result<Vec<TeamView>, ServiceError> {
    let mut conn = db.read().await?;
    let league = crate::service::term::leagues::league_by_slug(&mut conn, slug).await?;
    let rows = teams(&mut conn, league.row.id).await?;
    views(&mut conn, league.row.id, &rows).await
}
