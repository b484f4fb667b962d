//! A team's edits by the coordinator: a new name or division, and its withdrawal or
//! reinstatement (its matches not started are cancelled).

use crate::db::Conn;
use crate::domain::ErrorCode;
use crate::domain::Slug;

use crate::db::Db;
use crate::db::leagues::{self as db_leagues, TeamRow};
use crate::db::matches::{self as db_matches, Unstarted};
use crate::domain::Timestamp;
use crate::domain::{TeamId, TeamName};
use crate::service::audit;
use crate::service::notices;
use crate::service::term::leagues::{league_row, name_rule};
use crate::service::term::teams::{TeamView, name_taken};
use crate::service::{ServiceError, User, require_admin};

/// Writes a team's new state in `tx` with its audit row (`after` holds its players as they
/// are now: their names are written by `players`).
async fn save_team(
    tx: &mut Conn,
    user: &User,
    now: Timestamp,
    before: (&TeamRow, &TeamView),
    after: TeamView,
) -> Result<TeamView, ServiceError> {
    let (before, before_view) = before;
    db_leagues::update_team(tx, before.id, &after.name, after.withdrawn).await?;
    let b = crate::service::to_json("team", before_view)?;
    let a = crate::service::to_json("team", &after)?;
    audit::record(
        tx,
        user,
        now,
        audit::Change::new("update", audit::Subject::Team(before.id))
            .before(&b)
            .after(&a),
    )
    .await?;
    Ok(after)
}

/// The team `team_id` of the league `slug` (not found in another league).
async fn team_of(conn: &mut Conn, slug: &Slug, team_id: TeamId) -> Result<TeamRow, ServiceError> {
    let league = league_row(conn, slug).await?;
    db_leagues::team(conn, team_id)
        .await?
        .filter(|t| t.league_id == league.id)
        .ok_or(ServiceError::NotFound)
}

/// Renames team `team_id` of the league `slug` and/or moves it to another division, as
/// [`patch_team`] does (the admin's league page; its players are changed on their own, by
/// `service::people::players`). A team of another league is not found.
#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug, team_id = %team_id))]
pub async fn change_team(
    db: &Db,
    user: &User,
    slug: &Slug,
    team_id: TeamId,
    change: &TeamChange,
) -> Result<TeamView, ServiceError> {
    edit_team(db, user, Some(slug), team_id, change).await
}

/// A team's new name, checked.
fn check_team_name(name: &str) -> Result<TeamName, ServiceError> {
    TeamName::new(name).map_err(|bad| name_rule("name", "the team's name").refused(bad))
}

/// Refuses renaming `team` to `name` when another team of its league reads the same.
async fn check_name_free(
    conn: &mut Conn,
    team: &TeamRow,
    name: &TeamName,
) -> Result<(), ServiceError> {
    let others = db_leagues::teams(conn, team.league_id).await?;
    let others = others.iter().filter(|t| t.id != team.id);
    match name_taken(name.as_str(), others.map(|t| t.name.as_str())) {
        Some(message) => Err(ServiceError::invalid(
            ErrorCode::InvalidTeam,
            "name",
            message,
        )),
        None => Ok(()),
    }
}

/// What changes in a team (`PATCH /api/v1/teams/{id}`): each field present is set, each
/// absent one kept.
#[derive(Debug, Clone, Default, serde::Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TeamChange {
    #[serde(default)]
    pub name: Option<String>,
    /// One of the league's divisions, or `null` for none; only before the team has played.
    #[serde(
        default,
        deserialize_with = "crate::service::term::reschedule::present"
    )]
    #[schema(value_type = Option<i64>)]
    pub division: Option<Option<crate::domain::DivisionId>>,
}

/// Renames team `team_id` and/or moves it to another division (admin): 404 for no such
/// team, 422 `invalid_team` for a name taken, `invalid_division` for a division of another
/// league, 409 `team_has_played` for a new division once it has played.
#[tracing::instrument(skip_all, fields(user_id = %user.id, team_id = %team_id))]
pub async fn patch_team(
    db: &Db,
    user: &User,
    team_id: TeamId,
    change: &TeamChange,
) -> Result<TeamView, ServiceError> {
    edit_team(db, user, None, team_id, change).await
}

/// [`change_team`] (in the league `slug`) and [`patch_team`] (wherever the team is).
async fn edit_team(
    db: &Db,
    user: &User,
    slug: Option<&Slug>,
    team_id: TeamId,
    change: &TeamChange,
) -> Result<TeamView, ServiceError> {
    require_admin(user)?;
    let name = change.name.as_deref().map(check_team_name).transpose()?;
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let before = match slug {
        Some(slug) => team_of(&mut tx, slug, team_id).await?,
        None => db_leagues::team(&mut tx, team_id)
            .await?
            .ok_or(ServiceError::NotFound)?,
    };
    let view = apply_team_change(&mut tx, user, now, &before, name, change.division).await?;
    tx.commit().await?;
    Ok(view)
}

/// Gives team `before` its new name (checked) and division, each when given, and audits
/// the change.
async fn apply_team_change(
    tx: &mut Conn,
    user: &User,
    now: Timestamp,
    before: &TeamRow,
    name: Option<TeamName>,
    division: Option<Option<crate::domain::DivisionId>>,
) -> Result<TeamView, ServiceError> {
    let before_view = crate::service::term::teams::view(tx, before).await?;
    let mut after = before_view.clone();
    if let Some(name) = name {
        check_name_free(tx, before, &name).await?;
        after.name = name;
    }
    if let Some(division) = division {
        crate::service::term::divisions::move_team(tx, before, division).await?;
        after.division = division;
    }
    save_team(tx, user, now, (before, &before_view), after).await
}

/// In a league of Swiss rounds, the withdrawing team's matches not yet started are
/// forfeited by it, so their opponents have the win (docs/api.md §21.2).
async fn forfeit_swiss_matches(
    tx: &mut crate::db::Conn,
    user: &User,
    now: crate::domain::Timestamp,
    team: &crate::db::leagues::TeamRow,
    notices: Option<&url::Url>,
) -> Result<(), ServiceError> {
    if crate::db::swiss::of_league(tx, team.league_id)
        .await?
        .is_empty()
    {
        return Ok(());
    }
    let open: Vec<_> = db_matches::of_league(tx, team.league_id)
        .await?
        .into_iter()
        .filter(|m| m.stage == crate::rules::Stage::Regular && m.status.is_unstarted())
        .filter(|m| m.started_at.is_none() && (m.team_a == team.id || m.team_b == team.id))
        .collect();
    for m in &open {
        crate::service::night::matches::forfeit_for_withdrawal(tx, user, now, m, team.id, notices)
            .await?;
    }
    Ok(())
}

/// Withdraws a team from the league (`true`) or reinstates it (`false`). A withdrawn team
/// plays no more: its regular-season matches not started are cancelled in the same
/// transaction, as when the forfeit policy drops a team; its results stay. Reinstating it
/// does not bring them back ("generate the rest" schedules its missing pairs again).
#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug, team_id = %team_id, withdrawn))]
pub async fn set_withdrawn(
    db: &Db,
    user: &User,
    slug: &Slug,
    team_id: TeamId,
    withdrawn: bool,
) -> Result<TeamView, ServiceError> {
    require_admin(user)?;
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let before = team_of(&mut tx, slug, team_id).await?;
    let before_view = crate::service::term::teams::view(&mut tx, &before).await?;
    let after = TeamView {
        withdrawn,
        ..before_view.clone()
    };
    let view = save_team(&mut tx, user, now, (&before, &before_view), after).await?;
    if withdrawn && !before.withdrawn {
        forfeit_swiss_matches(&mut tx, user, now, &before, db.notices()).await?;
        let note = format!("{} withdrew from the league", before.name);
        let cancelled =
            db_matches::cancel_unstarted(&mut tx, Unstarted::OfTeam(team_id), &note).await?;
        let after = format!("{} matches cancelled", cancelled.len());
        audit::record(
            &mut tx,
            user,
            now,
            audit::Change::new("withdraw_team", audit::Subject::Team(team_id))
                .after(&after)
                .reason(&note),
        )
        .await?;
        if let Some(public_url) = db.notices() {
            let reason = "withdrawn by the coordinator";
            notices::events::tell_team_dropped(
                &mut tx, public_url, now, team_id, reason, &cancelled,
            )
            .await?;
        }
        // Its called matches left their tables: the queue calls the next ones.
        let now = crate::service::night::calls::Now::of(db);
        crate::service::night::calls::refill(&mut tx, before.league_id, now).await?;
    }
    tx.commit().await?;
    Ok(view)
}
