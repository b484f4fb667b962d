//! Player eligibility (docs/api.md §15): under `settings.eligibility.min_matches_played`, a
//! player may be set in a playoff match's lineup after sitting in that many complete
//! regular-season matches, or when the coordinator decided so (with a reason, audited).
//! A team's own eligibility does not depend on its players'.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::db::player_eligibility::{self as db_elig, PlayerOverrideRow};
use crate::db::players::{self as db_players, PlayerRow};
use crate::db::{Conn, Db, leagues as db_leagues};
use crate::domain::words::plural;
use crate::domain::{ErrorCode, PlayerId, TeamId, Timestamp};
use crate::service::term::leagues::League;
use crate::service::text::{Lines, REASON_MAX, TextRule};
use crate::service::{ServiceError, User, audit, require_admin};

/// One player's eligibility (names and ids only: public reads show it).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct PlayerEligibility {
    pub id: PlayerId,
    pub name: String,
    /// Whether the player may be set in a playoff match's lineup.
    pub eligible: bool,
    /// The complete regular-season matches the player sat in.
    pub matches: i64,
    /// What the player still needs, in words, while not eligible ("Cy Park needs 1 more
    /// regular-season match to play in the playoffs"); `null` otherwise.
    pub needs: Option<String>,
    /// The coordinator's decision that the player is eligible, if any.
    #[serde(rename = "override")]
    pub decision: Option<PlayerOverride>,
}

/// The coordinator's decision that a player is eligible.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct PlayerOverride {
    pub reason: String,
    /// The admin's username.
    pub by: String,
    pub at: Timestamp,
}

impl From<&PlayerOverrideRow> for PlayerOverride {
    fn from(row: &PlayerOverrideRow) -> Self {
        PlayerOverride {
            reason: row.reason.clone(),
            by: row.set_by.clone(),
            at: row.set_at,
        }
    }
}

/// "Cy Park needs 1 more regular-season match to play in the playoffs", or `None` when
/// `matches` reaches the league's minimum (or there is none).
pub fn needs(name: &str, matches: i64, min: Option<u32>) -> Option<String> {
    let missing = i64::from(min?) - matches;
    (missing > 0).then(|| {
        format!(
            "{name} needs {} to play in the playoffs",
            plural(
                missing,
                "more regular-season match",
                "more regular-season matches"
            )
        )
    })
}

/// The verdict on one player from their match count and the coordinator's decision.
fn verdict(
    player: &PlayerRow,
    matches: i64,
    decision: Option<&PlayerOverrideRow>,
    min: Option<u32>,
) -> PlayerEligibility {
    let name = player.name.to_string();
    let needs = needs(&name, matches, min);
    PlayerEligibility {
        id: player.id,
        eligible: needs.is_none() || decision.is_some(),
        needs: needs.filter(|_| decision.is_none()),
        name,
        matches,
        decision: decision.map(PlayerOverride::from),
    }
}

/// The active players of every team of `league` with their verdicts, by team, in the order
/// they were added.
pub async fn of_league(
    conn: &mut Conn,
    league: &League,
) -> Result<HashMap<TeamId, Vec<PlayerEligibility>>, ServiceError> {
    let min = league.settings.eligibility.min_matches_played;
    let counts: HashMap<PlayerId, i64> = db_elig::matches_sat(conn, league.row.id)
        .await?
        .into_iter()
        .collect();
    let decisions: HashMap<PlayerId, PlayerOverrideRow> = db_elig::overrides(conn, league.row.id)
        .await?
        .into_iter()
        .map(|o| (o.player_id, o))
        .collect();
    let mut out: HashMap<TeamId, Vec<PlayerEligibility>> = HashMap::new();
    for p in db_players::of_league(conn, league.row.id).await? {
        if !p.active {
            continue;
        }
        let matches = counts.get(&p.id).copied().unwrap_or(0);
        let row = verdict(&p, matches, decisions.get(&p.id), min);
        out.entry(p.team_id).or_default().push(row);
    }
    Ok(out)
}

/// The active players of team `team` of `league` with their verdicts, as [`of_league`] has
/// them under the team's id: a team's page reads its two players' matches, not the league's.
pub async fn of_one_team(
    conn: &mut Conn,
    league: &League,
    team: TeamId,
) -> Result<HashMap<TeamId, Vec<PlayerEligibility>>, ServiceError> {
    let min = league.settings.eligibility.min_matches_played;
    let decisions: HashMap<PlayerId, PlayerOverrideRow> = db_elig::overrides(conn, league.row.id)
        .await?
        .into_iter()
        .map(|o| (o.player_id, o))
        .collect();
    let mut rows = Vec::new();
    for p in db_players::of_team(conn, team).await? {
        if !p.active {
            continue;
        }
        let matches = db_elig::matches_sat_by(conn, p.id).await?;
        rows.push(verdict(&p, matches, decisions.get(&p.id), min));
    }
    Ok(HashMap::from([(team, rows)]))
}

/// The active players of team `team` with their verdicts (admin's players page), and
/// whether the league sets a minimum at all.
pub async fn of_team(
    db: &Db,
    user: &User,
    team: TeamId,
) -> Result<(Vec<PlayerEligibility>, Option<u32>), ServiceError> {
    require_admin(user)?;
    let mut conn = db.read().await?;
    let team_row = db_leagues::team(&mut conn, team)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let league_row = db_leagues::by_id(&mut conn, team_row.league_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let league = League::from_row(league_row)?;
    let mut all = of_league(&mut conn, &league).await?;
    Ok((
        all.remove(&team).unwrap_or_default(),
        league.settings.eligibility.min_matches_played,
    ))
}

/// One player's verdict under `league`'s settings.
async fn of_player(
    conn: &mut Conn,
    league: &League,
    player: &PlayerRow,
) -> Result<PlayerEligibility, ServiceError> {
    let matches = db_elig::matches_sat_by(conn, player.id).await?;
    let decision = db_elig::override_of(conn, player.id).await?;
    Ok(verdict(
        player,
        matches,
        decision.as_ref(),
        league.settings.eligibility.min_matches_played,
    ))
}

/// Refuses (409 `player_ineligible`) a playoff lineup's player who is not eligible; the
/// caller asks only for a match that is not of the regular season.
pub async fn check_playoff_lineup(
    conn: &mut Conn,
    league: &League,
    seats: &[PlayerRow; 2],
) -> Result<(), ServiceError> {
    if league.settings.eligibility.min_matches_played.is_none() {
        return Ok(());
    }
    for player in seats {
        let verdict = of_player(conn, league, player).await?;
        if let Some(needs) = verdict.needs {
            return Err(ServiceError::conflict(ErrorCode::PlayerIneligible, needs));
        }
    }
    Ok(())
}

/// The coordinator's decision on a player: `eligible: true` with a reason, or `null` to
/// give the decision back to the rules.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayerOverrideInput {
    /// `true`: the player may play in the playoffs whatever their matches; `null` removes
    /// the decision. (A player is never kept out by hand: `false` is refused.)
    pub eligible: Option<bool>,
    /// Why: required with `true` (optional with `null`, and checked when given), at most 500
    /// characters, line breaks allowed, stored text (docs/api.md §1.1). It is public.
    #[serde(default)]
    #[schema(max_length = 500)]
    pub reason: Option<String>,
}

/// Sets or removes the coordinator's decision on player `id` (audited); the player's
/// eligibility as it is now.
#[tracing::instrument(skip_all, fields(user_id = %user.id, player_id = %id))]
pub async fn set_override(
    db: &Db,
    user: &User,
    id: PlayerId,
    input: &PlayerOverrideInput,
) -> Result<PlayerEligibility, ServiceError> {
    require_admin(user)?;
    let now = db.clock().now();
    if input.eligible == Some(false) {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidInput,
            "eligible",
            "a decision makes a player eligible (true) or gives the decision back to the rules (null)",
        ));
    }
    let reason = override_reason(input.eligible, input.reason.as_deref())?;
    let mut tx = db.write().await?;
    let player = db_players::by_id(&mut tx, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let league_row = db_leagues::by_id(&mut tx, player.league_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let league = League::from_row(league_row)?;
    let before = db_elig::override_of(&mut tx, id).await?;
    let decided = input.eligible.and(reason.as_deref());
    db_elig::set_override(&mut tx, id, decided, user.id, now).await?;
    let mut change = audit::Change::new("override_eligibility", audit::Subject::Player(id))
        .after(decision_words(decided.is_some()));
    if before.is_some() {
        change = change.before(decision_words(true));
    }
    if let Some(reason) = &reason {
        change = change.reason(reason);
    }
    audit::record(&mut tx, user, now, change).await?;
    let row = of_player(&mut tx, &league, &player).await?;
    tx.commit().await?;
    Ok(row)
}

fn decision_words(eligible: bool) -> &'static str {
    if eligible {
        "eligible for the playoffs (admin's decision)"
    } else {
        "as the rules say"
    }
}

/// The reason of an override (a team's or a player's) as stored: required with a decision;
/// with a removal (`eligible: null`) optional, and checked all the same when given (it goes
/// to the audit log).
pub(super) fn override_reason(
    eligible: Option<bool>,
    reason: Option<&str>,
) -> Result<Option<String>, ServiceError> {
    let rule = TextRule {
        code: ErrorCode::InvalidInput,
        field: "reason",
        what: "the reason",
        max: REASON_MAX,
        lines: Lines::Many,
    };
    match eligible {
        Some(_) => rule.check(reason.unwrap_or_default()).map(Some),
        None => rule.check_optional(reason),
    }
}

#[cfg(test)]
mod tests {
    use super::needs;

    #[test]
    fn what_a_player_needs_in_words() {
        assert_eq!(
            needs("Cy Park", 2, Some(3)).as_deref(),
            Some("Cy Park needs 1 more regular-season match to play in the playoffs")
        );
        assert_eq!(
            needs("Cy Park", 0, Some(3)).as_deref(),
            Some("Cy Park needs 3 more regular-season matches to play in the playoffs")
        );
        assert_eq!(needs("Cy Park", 3, Some(3)), None);
        assert_eq!(needs("Cy Park", 0, None), None);
    }
}
