//! A league's divisions (docs/api.md §18.1): made by the admin, each team in at most one.
//! A team changes division only before it has played; the standings rank each division,
//! the round robin may stay within them, and the playoffs may seed their winners first.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::db::divisions::{self as db_divisions, DivisionRow};
use crate::db::leagues::TeamRow;
use crate::db::{Conn, Db};
use crate::domain::{DivisionId, ErrorCode, LeagueId, Slug, TeamId};
use crate::league::divisions::division_ranks;
use crate::league::standings::Standing;
use crate::service::audit;
use crate::service::term::leagues::league_row;
use crate::service::text::{Lines, NameKey, TextRule};
use crate::service::{ServiceError, User, require_admin};

/// The longest division name, in characters.
pub const DIVISION_NAME_MAX: usize = 60;

/// `POST /api/v1/leagues/{slug}/divisions`.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewDivisionInput {
    /// 1 to 60 characters, one line; unique in the league, ignoring case.
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct DivisionView {
    pub id: DivisionId,
    pub name: String,
}

impl DivisionView {
    fn of(row: &DivisionRow) -> DivisionView {
        DivisionView {
            id: row.id,
            name: row.name.clone(),
        }
    }
}

/// The divisions of league `league_id`, in the order they were made.
pub async fn views(
    conn: &mut Conn,
    league_id: LeagueId,
) -> Result<Vec<DivisionView>, ServiceError> {
    Ok(db_divisions::of_league(conn, league_id)
        .await?
        .iter()
        .map(DivisionView::of)
        .collect())
}

/// A division's name, checked (the field `name`).
pub(crate) fn check_name(name: &str) -> Result<String, ServiceError> {
    TextRule {
        code: ErrorCode::InvalidDivision,
        field: "name",
        what: "the division's name",
        max: DIVISION_NAME_MAX,
        lines: Lines::One,
    }
    .check(name)
}

/// Makes a division in the league `slug` (admin): 422 `invalid_division` for a bad name,
/// 409 `division_taken` (on `name`) when the league has one that reads the same.
#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug))]
pub async fn create(
    db: &Db,
    user: &User,
    slug: &Slug,
    input: &NewDivisionInput,
) -> Result<DivisionView, ServiceError> {
    require_admin(user)?;
    let name = check_name(&input.name)?;
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let league = league_row(&mut tx, slug).await?;
    let existing = db_divisions::of_league(&mut tx, league.id).await?;
    let key = NameKey::of(&name);
    if let Some(other) = existing.iter().find(|d| NameKey::of(&d.name) == key) {
        return Err(ServiceError::ConflictOn(crate::domain::FieldError::at(
            ErrorCode::DivisionTaken,
            crate::domain::Field::path("name".into()),
            format!(
                "the league already has a division named \"{}\": choose another name",
                other.name
            ),
        )));
    }
    let id = db_divisions::insert(&mut tx, league.id, &name).await?;
    audit::record(
        &mut tx,
        user,
        now,
        audit::Change::new("create_division", audit::Subject::League(league.id)).after(&name),
    )
    .await?;
    tx.commit().await?;
    Ok(DivisionView { id, name })
}

/// Division `id` as a team of league `league_id` may have it (422 `invalid_division` on
/// `field` when it is not one of the league's).
pub async fn check_division(
    conn: &mut Conn,
    league_id: LeagueId,
    field: &str,
    id: DivisionId,
) -> Result<DivisionId, ServiceError> {
    let divisions = db_divisions::of_league(conn, league_id).await?;
    if divisions.iter().any(|d| d.id == id) {
        Ok(id)
    } else {
        Err(ServiceError::invalid(
            ErrorCode::InvalidDivision,
            field,
            format!("division {id} is not a division of this league"),
        ))
    }
}

/// Moves team `team` to division `to` (`None`: to none), if it changes: only before the
/// team has played (409 `team_has_played`). The caller audits the team's change.
pub async fn move_team(
    conn: &mut Conn,
    team: &TeamRow,
    to: Option<DivisionId>,
) -> Result<(), ServiceError> {
    if let Some(id) = to {
        check_division(conn, team.league_id, "division", id).await?;
    }
    if team.division_id == to {
        return Ok(());
    }
    if db_divisions::team_has_played(conn, team.id).await? {
        return Err(ServiceError::conflict(
            ErrorCode::TeamHasPlayed,
            format!(
                "{} has already played a match: its division can no longer change this season",
                team.name
            ),
        ));
    }
    db_divisions::set_team_division(conn, team.id, to).await?;
    Ok(())
}

/// A standings row's division and its rank within it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placed {
    pub division: Option<DivisionId>,
    pub rank: Option<usize>,
}

/// The divisions of a league and the division of each of its teams.
#[derive(Debug, Clone, Default)]
pub struct Divisions {
    pub list: Vec<DivisionView>,
    pub of_team: HashMap<TeamId, DivisionId>,
}

impl Divisions {
    pub async fn of_league(
        conn: &mut Conn,
        league_id: LeagueId,
    ) -> Result<Divisions, ServiceError> {
        let list = views(conn, league_id).await?;
        let of_team = crate::db::leagues::team_divisions(conn, league_id)
            .await?
            .into_iter()
            .collect();
        Ok(Divisions { list, of_team })
    }

    /// The division of team `team`, if any.
    pub fn of(&self, team: TeamId) -> Option<DivisionId> {
        self.of_team.get(&team).copied()
    }

    /// Each of the standings `rows` (ranked), its division and its rank in it (both `None`
    /// for a team in no division), in row order.
    pub fn placed(&self, rows: &[Standing]) -> Vec<Placed> {
        let keyed: Vec<(usize, Option<DivisionId>)> =
            rows.iter().map(|s| (s.rank, self.of(s.team_id))).collect();
        keyed
            .iter()
            .zip(division_ranks(&keyed))
            .map(|(&(_, division), rank)| Placed { division, rank })
            .collect()
    }

    /// The name of division `id` ("" for none).
    pub fn name(&self, id: DivisionId) -> &str {
        self.list
            .iter()
            .find(|d| d.id == id)
            .map_or("", |d| d.name.as_str())
    }
}

/// The divisions of the league `slug` (404 for no such league).
pub async fn list(db: &Db, slug: &Slug) -> Result<Vec<DivisionView>, ServiceError> {
    let mut conn = db.read().await?;
    let league = league_row(&mut conn, slug).await?;
    views(&mut conn, league.id).await
}
