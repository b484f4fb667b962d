//! Importing a roster CSV: the file read (`reading`), its rows checked against the league
//! and planned (`plan`), then written in one transaction when no row has an error: new
//! divisions, new teams, and the league's teams updated (each change audited). A dry run
//! writes nothing and reports the same.

use crate::db::Conn;
use crate::db::Db;
use crate::db::divisions as db_divisions;
use crate::db::leagues as db_leagues;
use crate::db::players as db_players;
use crate::domain::{DivisionId, ErrorCode, LeagueId, Slug, Timestamp};
use crate::service::audit;
use crate::service::people::players;
use crate::service::term::leagues::league_row;
use crate::service::term::teams::insert_team;
use crate::service::{ServiceError, User, require_admin};

use super::plan::{DivisionPick, LeagueRoster, Plan, RosterReport, plan};
use super::reading::{read_rows, records};

/// The most rows a roster import takes at once.
pub const ROSTER_MAX_ROWS: usize = 500;

/// Checks a roster CSV against the league `slug` and, unless `dry_run`, writes it when no
/// row has an error (one transaction; else nothing). The report says each row's outcome
/// and whether it was written. A file that gives no rows, or too many, is refused (422
/// `invalid_roster` on `csv`).
#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug, dry_run))]
pub async fn import_roster(
    db: &Db,
    user: &User,
    slug: &Slug,
    csv: &str,
    dry_run: bool,
) -> Result<RosterReport, ServiceError> {
    require_admin(user)?;
    let rows = read_rows(records(csv)?)?;
    roster_size(rows.len())?;
    if dry_run {
        let mut conn = db.read().await?;
        let league = league_row(&mut conn, slug).await?;
        let roster = league_roster(&mut conn, league.id).await?;
        return Ok(plan(rows, &roster).report);
    }
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let league = league_row(&mut tx, slug).await?;
    if league.archived {
        // Refused whatever the file holds (a file that changes nothing writes nothing).
        return Err(ServiceError::league_archived());
    }
    let roster = league_roster(&mut tx, league.id).await?;
    let plan = plan(rows, &roster);
    if plan.report.errors() > 0 {
        return Ok(plan.report);
    }
    let mut report = write(&mut tx, user, now, league.id, plan).await?;
    tx.commit().await?;
    report.written = true;
    Ok(report)
}

/// The league's teams, players, divisions, and the teams that have played.
async fn league_roster(conn: &mut Conn, league: LeagueId) -> Result<LeagueRoster, ServiceError> {
    Ok(LeagueRoster {
        teams: db_leagues::teams(conn, league).await?,
        players: db_players::of_league(conn, league).await?,
        divisions: db_divisions::of_league(conn, league).await?,
        played: db_divisions::teams_that_have_played(conn, league).await?,
    })
}

/// A roster gives 1 to [`ROSTER_MAX_ROWS`] rows.
fn roster_size(rows: usize) -> Result<(), ServiceError> {
    if rows == 0 {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidRoster,
            "csv",
            "the roster is empty: one team a line (team,player1,player2...), or a header row and one player a line",
        ));
    }
    if rows > ROSTER_MAX_ROWS {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidRoster,
            "csv",
            format!("at most {ROSTER_MAX_ROWS} rows at once, not {rows}: import the file in parts"),
        ));
    }
    Ok(())
}

/// Writes a plan with no error inside the caller's transaction, each change audited (with
/// the reason "roster import").
async fn write(
    tx: &mut Conn,
    user: &User,
    now: Timestamp,
    league: LeagueId,
    plan: Plan,
) -> Result<RosterReport, ServiceError> {
    let reason = "roster import";
    let mut made: Vec<DivisionId> = Vec::new();
    for name in &plan.new_divisions {
        made.push(db_divisions::insert(tx, league, name).await?);
        let change = audit::Change::new("create_division", audit::Subject::League(league))
            .after(name)
            .reason(reason);
        audit::record(tx, user, now, change).await?;
    }
    let id_of = |pick: DivisionPick| match pick {
        DivisionPick::Has(id) => id,
        DivisionPick::New(at) => made[at],
    };
    for team in plan.new_teams {
        let division = team.division.map(id_of);
        let view = insert_team(
            tx,
            user,
            now,
            league,
            (team.name, team.players),
            Some(reason),
        )
        .await?;
        if division.is_some() {
            db_divisions::set_team_division(tx, view.id, division).await?;
        }
    }
    for update in plan.updates {
        let team = &update.team;
        if let Some(pick) = update.division {
            let to = id_of(pick);
            db_divisions::set_team_division(tx, team.id, Some(to)).await?;
            let before = serde_json::json!({ "division": team.division_id }).to_string();
            let after = serde_json::json!({ "division": to }).to_string();
            let change = audit::Change::new("update", audit::Subject::Team(team.id))
                .before(&before)
                .after(&after)
                .reason(reason);
            audit::record(tx, user, now, change).await?;
        }
        for (before, fields) in &update.changed {
            players::save_imported(tx, user, now, before, fields).await?;
        }
        if !update.added.is_empty() {
            players::insert_all(tx, user, now, team, &update.added).await?;
        }
    }
    Ok(plan.report)
}
