//! Forfeits: one team (the other wins) or both; a team's n-th regular-season forfeit drops
//! it from the league when the league's forfeit policy says so.

use crate::service::notices::events;
use serde::{Deserialize, Serialize};

use super::check_version;
use crate::db::leagues as db_leagues;
use crate::db::matches::{self as db_matches, MatchRow, Totals, Unstarted};
use crate::db::{Conn, Db};
use crate::domain::ErrorCode;
use crate::domain::{
    ForfeitSide, GameStatus, IdempotencyKey, MatchId, MatchStatus, TeamId, TextEnum, Timestamp,
};
use crate::rules::{Stage, Team, WinReason};
use crate::service::audit;
use crate::service::night::access::{league_of, writable};
use crate::service::night::action_keys::{self, Acted, ActionKey};
use crate::service::night::match_view::reload;
use crate::service::term::leagues::League;
use crate::service::{ServiceError, User, require_admin};

#[derive(Debug, Clone, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ForfeitInput {
    /// `a`, `b` or `both`: the team that forfeits.
    pub team: String,
    /// A double forfeit in the playoffs: the team the admin sends on, `a` or `b` (someone
    /// must advance; docs/scoring.md §9.8). Admin only; not for regular-season matches.
    #[serde(default)]
    pub advance: Option<String>,
    #[serde(default)]
    pub expected_version: Option<i64>,
    /// Unique per attempt: sent again with the same forfeit, the first answer comes back
    /// and nothing is recorded twice (docs/api.md §7.8). 1 to 200 characters, no control
    /// characters.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub idempotency_key: Option<IdempotencyKey>,
}

/// The forfeit policy (`drop_after: n`): a team's n-th regular-season forfeit withdraws it,
/// in the forfeit's own transaction: its matches not started are cancelled, its results
/// stay, and the audit log says why.
async fn drop_at_limit(
    conn: &mut Conn,
    user: &User,
    now: Timestamp,
    league: &League,
    team: TeamId,
    notices: Option<&url::Url>,
) -> Result<(), ServiceError> {
    let Some(limit) = league.settings.forfeit.drop_after else {
        return Ok(());
    };
    let Some(row) = db_leagues::team(conn, team).await? else {
        return Ok(());
    };
    let forfeits = db_matches::count_forfeits(conn, league.row.id, team).await?;
    if row.withdrawn || forfeits < i64::from(limit) {
        return Ok(());
    }
    let reason = match forfeits {
        1 => "dropped after 1 forfeit".to_string(),
        n => format!("dropped after {n} forfeits"),
    };
    db_leagues::drop_team(conn, team, &reason).await?;
    let cancelled = db_matches::cancel_unstarted(
        conn,
        Unstarted::OfTeam(team),
        &format!("{} {reason}", row.name),
    )
    .await?;
    let after = format!("{reason}; {} matches cancelled", cancelled.len());
    audit::record(
        conn,
        user,
        now,
        audit::Change::new("drop_team", audit::Subject::Team(team))
            .after(&after)
            .reason(&reason),
    )
    .await?;
    if let Some(public_url) = notices {
        events::tell_team_dropped(conn, public_url, now, team, &reason, &cancelled).await?;
    }
    Ok(())
}

/// Records a forfeit: one team (the other wins) or both (both lose; in the playoffs the
/// admin names the team that advances). A repeated `idempotency_key` answers the first
/// answer again and records nothing.
#[tracing::instrument(skip_all, fields(user_id = %user.id, match_id = %id))]
pub async fn forfeit(
    db: &Db,
    user: &User,
    id: MatchId,
    input: &ForfeitInput,
) -> Result<Acted, ServiceError> {
    let queue_now = crate::service::night::calls::Now::of(db);
    let now = queue_now.at;
    let who = forfeit_side(input)?;
    let key = ActionKey::of(input.idempotency_key.as_ref(), "forfeit", input)?;
    let mut tx = db.write().await?;
    let m = writable(&mut tx, user, id).await?;
    if let Some(first) = action_keys::first_answer(&mut tx, id, key.as_ref()).await? {
        return Ok(Acted::Again(first));
    }
    if let Some(expected) = input.expected_version {
        check_version(&m, expected)?;
    }
    if m.status.is_over() {
        return Err(ServiceError::conflict(
            ErrorCode::MatchClosed,
            format!("the match is already {}", m.status.words()),
        ));
    }
    let winner = forfeit_winner(&mut tx, user, &m, who, input.advance.as_deref()).await?;
    let league = league_of(&mut tx, &m).await?;
    db_matches::set_totals(&mut tx, id, &forfeit_totals(&m, who, winner)).await?;
    crate::service::night::conduct::rate_forfeit(&mut tx, id, &league).await?;
    if m.stage != Stage::Regular {
        crate::service::playoffs::advance(&mut tx, id, now, None).await?;
    } else {
        for team in forfeiting_teams(&m, who) {
            drop_at_limit(&mut tx, user, now, &league, team, db.notices()).await?;
        }
    }
    crate::service::night::calls::refill(&mut tx, m.league_id, queue_now).await?;
    let after = forfeit_audit_after(who, winner);
    audit::record(
        &mut tx,
        user,
        now,
        audit::Change::new("forfeit", audit::Subject::Match(id)).after(&after),
    )
    .await?;
    if let Some(public_url) = db.notices() {
        events::tell_forfeit(&mut tx, public_url, now, &m, who).await?;
    }
    let view = reload(&mut tx, id, &league).await?;
    action_keys::keep(&mut tx, id, key.as_ref(), &view, now).await?;
    tx.commit().await?;
    Ok(Acted::Done(Box::new(view)))
}

/// A Swiss round's match of a team that withdraws (docs/api.md §21.2), not yet started:
/// forfeited by that team in the withdrawal's transaction, so its opponent has the win (a
/// round robin's are cancelled instead: its opponents meet nobody else that night).
pub async fn forfeit_for_withdrawal(
    conn: &mut Conn,
    user: &User,
    now: Timestamp,
    m: &MatchRow,
    team: TeamId,
    notices: Option<&url::Url>,
) -> Result<(), ServiceError> {
    let (who, winner) = if m.team_a == team {
        (ForfeitSide::A, Team::B)
    } else {
        (ForfeitSide::B, Team::A)
    };
    let league = league_of(conn, m).await?;
    db_matches::set_totals(conn, m.id, &forfeit_totals(m, who, Some(winner))).await?;
    crate::service::night::conduct::rate_forfeit(conn, m.id, &league).await?;
    let change = audit::Change::new("forfeit", audit::Subject::Match(m.id))
        .after(who.as_str())
        .reason("the team withdrew from the league");
    audit::record(conn, user, now, change).await?;
    if let Some(public_url) = notices {
        events::tell_forfeit(conn, public_url, now, m, who).await?;
    }
    Ok(())
}

/// The side that forfeits: `a`, `b` or `both`.
fn forfeit_side(input: &ForfeitInput) -> Result<ForfeitSide, ServiceError> {
    ForfeitSide::parse(input.team.as_str()).map_err(|_| {
        ServiceError::invalid(
            ErrorCode::InvalidForfeit,
            "team",
            format!(
                "the forfeiting team is \"a\", \"b\" or \"both\", not \"{}\"",
                input.team
            ),
        )
    })
}

/// The team that wins (or advances) by the forfeit, if any: only an admin sends a team on
/// after a double forfeit in the playoffs, and only there.
async fn forfeit_winner(
    conn: &mut Conn,
    user: &User,
    m: &MatchRow,
    who: ForfeitSide,
    advance: Option<&str>,
) -> Result<Option<Team>, ServiceError> {
    let in_bracket =
        m.stage != Stage::Regular && crate::service::playoffs::in_bracket(conn, m.id).await?;
    let advance = advance.map(str::trim);
    match (who.team(), in_bracket, advance) {
        // One team forfeits: the other wins.
        (Some(team), _, None) => Ok(Some(team.other())),
        // Both forfeit in the regular season: nobody wins.
        (None, false, None) => Ok(None),
        (None, true, None) => Err(ServiceError::conflict(
            ErrorCode::DoubleForfeitPlayoff,
            "a double forfeit in the playoffs needs an admin to choose which team advances (\"advance\": \"a\" or \"b\")",
        )),
        (None, true, Some(side)) => {
            let team = Team::parse(side).map_err(|_| {
                ServiceError::invalid(
                    ErrorCode::InvalidForfeit,
                    "advance",
                    format!("the team that advances is \"a\" or \"b\", not \"{side}\""),
                )
            })?;
            require_admin(user)?;
            Ok(Some(team))
        }
        (_, _, Some(_)) => Err(ServiceError::invalid(
            ErrorCode::InvalidForfeit,
            "advance",
            "only a double forfeit in the playoffs chooses who advances",
        )),
    }
}

/// The match's totals once forfeited: the score so far stays.
pub(super) fn forfeit_totals(m: &MatchRow, who: ForfeitSide, winner: Option<Team>) -> Totals {
    Totals {
        status: MatchStatus::Forfeit,
        score_a: m.score_a,
        score_b: m.score_b,
        bags_a: m.bags_a,
        bags_b: m.bags_b,
        game_status: if winner.is_some() {
            GameStatus::Won
        } else {
            GameStatus::Forfeit
        },
        winner,
        reason: Some(WinReason::Forfeit),
        forfeit: Some(who),
        hands_played: m.hands_played,
    }
}

/// The teams of `m` that forfeit.
fn forfeiting_teams(m: &MatchRow, who: ForfeitSide) -> Vec<TeamId> {
    match who.team() {
        Some(Team::A) => vec![m.team_a],
        Some(Team::B) => vec![m.team_b],
        None => vec![m.team_a, m.team_b],
    }
}

/// The forfeit as the audit log tells it.
fn forfeit_audit_after(who: ForfeitSide, winner: Option<Team>) -> String {
    match (who, winner) {
        (ForfeitSide::Both, Some(team)) => {
            format!("both; team {} advances (admin's choice)", team.as_str())
        }
        _ => who.as_str().to_string(),
    }
}
