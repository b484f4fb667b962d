//! Past seasons (docs/api.md §18.2): archiving a league (read-only from then on, kept
//! public), undoing that, starting the next term from a league, and deleting a match that
//! was added by mistake before it began.
//!
//! An archived league's read-only state is not checked here: the store itself refuses every
//! write to its rows (migrations `0024_archive` / `0012_archive`), which every service answers
//! as 409 `league_archived` (`ServiceError::from`).

use serde::Deserialize;

use crate::db::matches::{self as db_matches, Unstarted};
use crate::db::{Db, leagues as db_leagues};
use crate::domain::{ErrorCode, MatchId, Slug};
use crate::service::term::leagues::{League, check_slug, commit_league, league_row, name_rule};
use crate::service::{ServiceError, User, audit, require_admin};

/// What closing a season does with the matches still to play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Unplayed {
    /// Cancel them, saying "season closed" (calendar feeds then mark them cancelled).
    Cancel,
}

/// `POST /api/v1/leagues/{slug}/archive`.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ArchiveInput {
    /// Absent: refused (409 `unplayed_matches`, listing them) while matches are scheduled or
    /// postponed; `"cancel"`: they are cancelled with the season.
    #[serde(default)]
    pub unplayed: Option<Unplayed>,
}

/// Why a cancelled match was called off when its season closed.
pub const SEASON_CLOSED: &str = "season closed";

/// Archives a league: refused (409 `match_started`, naming them) while any of its matches is
/// in progress, as the coordinator finishes or cancels them first; and (409
/// `unplayed_matches`) while matches are still to play, unless `unplayed` says to cancel
/// them.
#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug))]
pub async fn archive(
    db: &Db,
    user: &User,
    slug: &Slug,
    input: &ArchiveInput,
) -> Result<League, ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    let mut tx = db.write().await?;
    let league = league_row(&mut tx, slug).await?;
    if league.archived {
        return Err(ServiceError::league_archived());
    }
    let playing = db_leagues::in_progress(&mut tx, league.id).await?;
    if !playing.is_empty() {
        let ids: Vec<String> = playing.iter().map(|id| format!("#{id}")).collect();
        return Err(ServiceError::conflict(
            ErrorCode::MatchStarted,
            format!(
                "matches {} are in progress: finish or cancel them before archiving the league",
                ids.join(", ")
            ),
        ));
    }
    settle_unplayed(&mut tx, user, now, league.id, input.unplayed).await?;
    db_leagues::set_archived(&mut tx, league.id, true).await?;
    audit::record(
        &mut tx,
        user,
        now,
        audit::Change::new("archive", audit::Subject::League(league.id)),
    )
    .await?;
    commit_league(tx, league.id).await
}

/// Refuses closing a season while matches are still to play (409 `unplayed_matches`, listing
/// them), or cancels them when `unplayed` says so (one audit row on the league).
async fn settle_unplayed(
    tx: &mut crate::db::Conn,
    user: &User,
    now: crate::domain::Timestamp,
    league: crate::domain::LeagueId,
    unplayed: Option<Unplayed>,
) -> Result<(), ServiceError> {
    let still = db_matches::unplayed_of_league(tx, league).await?;
    if still.is_empty() {
        return Ok(());
    }
    let Some(Unplayed::Cancel) = unplayed else {
        let ids: Vec<String> = still.iter().map(|id| format!("M{id}")).collect();
        let (verb, them) = if still.len() == 1 {
            ("match is", "it")
        } else {
            ("matches are", "them")
        };
        return Err(ServiceError::Unplayed {
            message: format!(
                "{} {verb} still to play ({}): cancel {them} with the season, or play or remove {them} first",
                still.len(),
                ids.join(", "),
            ),
            matches: still,
        });
    };
    let cancelled =
        db_matches::cancel_unstarted(tx, Unstarted::OfLeague(league), SEASON_CLOSED).await?;
    let after = serde_json::json!({ "cancelled": cancelled }).to_string();
    let change = audit::Change::new("cancel_unplayed", audit::Subject::League(league))
        .after(&after)
        .reason(SEASON_CLOSED);
    audit::record(tx, user, now, change).await?;
    Ok(())
}

/// Makes an archived league writable again (a league that is not archived stays as it is).
#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug))]
pub async fn unarchive(db: &Db, user: &User, slug: &Slug) -> Result<League, ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    let mut tx = db.write().await?;
    let league = league_row(&mut tx, slug).await?;
    if league.archived {
        crate::service::term::leagues::check_name_free(&mut tx, &league.name, Some(league.id))
            .await?;
        db_leagues::set_archived(&mut tx, league.id, false).await?;
        audit::record(
            &mut tx,
            user,
            now,
            audit::Change::new("unarchive", audit::Subject::League(league.id)),
        )
        .await?;
    }
    commit_league(tx, league.id).await
}

/// The next term of a league.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CloneInput {
    pub name: String,
    /// Made from the name when missing or empty.
    #[serde(default)]
    pub slug: Option<String>,
    /// Copy the teams that are not withdrawn, with their active players.
    #[serde(default)]
    pub teams: bool,
}

/// A new league with the rules, tiebreak order and settings of `slug` (archived or not) and,
/// with `teams`, its teams and their players; never its matches, hands or bracket.
#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug))]
pub async fn clone_league(
    db: &Db,
    user: &User,
    slug: &Slug,
    input: &CloneInput,
) -> Result<League, ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    let name = name_rule("name", "the league's name").check(&input.name)?;
    let new_slug = check_slug(input.slug.as_deref(), &name)?;
    let mut tx = db.write().await?;
    let from = league_row(&mut tx, slug).await?;
    if db_leagues::by_slug(&mut tx, &new_slug).await?.is_some() {
        return Err(ServiceError::ConflictOn(crate::domain::FieldError::at(
            ErrorCode::SlugTaken,
            crate::domain::Field::path("slug".into()),
            format!("a league with the slug \"{new_slug}\" exists"),
        )));
    }
    crate::service::term::leagues::check_name_free(&mut tx, &name, None).await?;
    let id = db_leagues::insert_copy(&mut tx, from.id, new_slug.as_str(), &name, now).await?;
    let divisions = db_leagues::copy_divisions(&mut tx, from.id, id).await?;
    let teams = if input.teams {
        db_leagues::copy_teams(&mut tx, from.id, id, now).await?
    } else {
        0
    };
    let after = serde_json::json!({"from": from.slug.as_str(), "slug": new_slug.as_str(),
                                   "name": name, "divisions": divisions, "teams": teams})
    .to_string();
    audit::record(
        &mut tx,
        user,
        now,
        audit::Change::new("clone", audit::Subject::League(id)).after(&after),
    )
    .await?;
    commit_league(tx, id).await
}

/// Deletes a match that never began (`db::matches::delete_never_started`), with an audit row
/// of what it was; any other match is 409 `match_started` (it stays, to be cancelled).
#[tracing::instrument(skip_all, fields(user_id = %user.id, match_id = %id))]
pub async fn delete_match(db: &Db, user: &User, id: MatchId) -> Result<(), ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    let mut tx = db.write().await?;
    let m = db_matches::by_id(&mut tx, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let before = serde_json::json!({
        "league_id": m.league_id, "stage": m.stage, "round": m.round,
        "team_a": m.team_a, "team_b": m.team_b, "table": m.table_name,
        "scheduled_at": m.scheduled_at, "status": m.status,
    })
    .to_string();
    // Recorded while the match still exists, so the entry gets its league (a refusal below
    // rolls it back with the rest).
    audit::record(
        &mut tx,
        user,
        now,
        audit::Change::new("delete", audit::Subject::Match(id)).before(&before),
    )
    .await?;
    if !db_matches::delete_never_started(&mut tx, id).await? {
        // An archived league's match is refused as archived, whatever its state.
        if league_of_archived(&mut tx, m.league_id).await? {
            return Err(ServiceError::league_archived());
        }
        return Err(ServiceError::conflict(
            ErrorCode::MatchStarted,
            "this match has begun (started, checked in, a lineup, a forfeit or a place in the \
             bracket): cancel it instead",
        ));
    }
    // A match called to a table leaves it free for the next one.
    let queue_now = crate::service::night::calls::Now::of(db);
    crate::service::night::calls::refill(&mut tx, m.league_id, queue_now).await?;
    tx.commit().await?;
    Ok(())
}

async fn league_of_archived(
    conn: &mut crate::db::Conn,
    id: crate::domain::LeagueId,
) -> Result<bool, ServiceError> {
    Ok(db_leagues::by_id(conn, id)
        .await?
        .is_some_and(|l| l.archived))
}
