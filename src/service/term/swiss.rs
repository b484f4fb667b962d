//! Swiss rounds (docs/api.md §21.2): the next round of the regular season paired from the
//! standings, each round once the last is over; the pairing itself is `league::swiss`.

use crate::db::Conn;
use crate::db::Db;
use crate::db::matches::{self as db_matches, MatchRow, NewMatch};
use crate::db::swiss as db_swiss;
use crate::domain::{ErrorCode, LeagueId, MatchId, MatchStatus, Slug, TeamId};
use crate::league::swiss::{Met, NoRound, Round, SwissTeam, pair_round};
use crate::rules::Stage;
use crate::service::audit;
use crate::service::night::calls::Now;
use crate::service::term::leagues::{League, league_row};
use crate::service::term::schedule::{ScheduleInput, parse_when};
use crate::service::views::standings::{standings, withdrawn_teams};
use crate::service::{ServiceError, User, require_admin};

/// A Swiss round as paired: its number and its matches.
#[derive(Debug, Clone)]
pub struct PairedRound {
    pub round: i64,
    pub matches: Vec<MatchId>,
    /// The team that had the bye, if the field was odd.
    pub bye: Option<TeamId>,
}

/// Pairs the league's next Swiss round (its first, when it has no regular-season match).
#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug))]
pub async fn pair_next_round(
    db: &Db,
    user: &User,
    slug: &Slug,
    input: &ScheduleInput,
) -> Result<PairedRound, ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    refuse_round_robin_fields(input)?;
    let scheduled_at = match input.scheduled_at.as_deref().map(str::trim) {
        Some(s) if !s.is_empty() => Some(parse_when(s)?),
        _ => None,
    };
    let mut tx = db.write().await?;
    let row = league_row(&mut tx, slug).await?;
    let league = League::from_row(row.clone())?;
    let rounds = db_swiss::of_league(&mut tx, league.row.id).await?;
    let regular = regular_matches(&mut tx, league.row.id).await?;
    check_last_round_over(&rounds, &regular)?;
    let (teams, round) = pair(&mut tx, &league, &rounds, &regular).await?;
    let number = rounds.last().map_or(0, |r| r.round) + 1;
    let mut matches = Vec::with_capacity(round.pairs.len());
    // With the room's tables named, the queue gives each match its table; else they are
    // numbered in pairing order.
    let numbered = league.settings.tables.is_empty();
    for (table, &(a, b)) in round.pairs.iter().enumerate() {
        let table_name = numbered.then(|| format!("Table {}", table + 1));
        let new = NewMatch {
            league_id: league.row.id,
            stage: Stage::Regular,
            round: Some(number),
            team_a: teams[a],
            team_b: teams[b],
            table_name: table_name.as_deref(),
            scheduled_at,
        };
        matches.push(db_matches::insert(&mut tx, &new).await?);
    }
    let bye = round.bye.map(|t| teams[t]);
    db_swiss::insert(&mut tx, league.row.id, number, bye, now).await?;
    crate::service::night::calls::refill(&mut tx, league.row.id, Now::of(db)).await?;
    let after = format!("Swiss round {number}: {} matches", matches.len());
    audit::record(
        &mut tx,
        user,
        now,
        audit::Change::new("pair_swiss_round", audit::Subject::League(league.row.id)).after(&after),
    )
    .await?;
    tx.commit().await?;
    Ok(PairedRound {
        round: number,
        matches,
        bye,
    })
}

/// A Swiss round takes a time and nothing of a round robin's.
fn refuse_round_robin_fields(input: &ScheduleInput) -> Result<(), ServiceError> {
    let given = |field: &Option<String>| field.as_deref().is_some_and(|s| !s.trim().is_empty());
    let field = if given(&input.format) {
        Some("format")
    } else if given(&input.start_date) {
        Some("start_date")
    } else if given(&input.time) {
        Some("time")
    } else if input.days_between.is_some() {
        Some("days_between")
    } else if given(&input.within) {
        Some("within")
    } else if !input.blackouts.is_empty() {
        Some("blackouts")
    } else {
        None
    };
    match field {
        Some(field) => Err(ServiceError::invalid(
            ErrorCode::InvalidSchedule,
            field,
            format!(
                "a Swiss round takes only scheduled_at (its matches' time, or none for the queue), not {field}"
            ),
        )),
        None => Ok(()),
    }
}

/// The league's regular-season matches, cancelled ones left out.
async fn regular_matches(conn: &mut Conn, league: LeagueId) -> Result<Vec<MatchRow>, ServiceError> {
    Ok(db_matches::of_league(conn, league)
        .await?
        .into_iter()
        .filter(|m| m.stage == Stage::Regular && m.status != MatchStatus::Cancelled)
        .collect())
}

/// The next round waits for every match of the last; a league with a round robin plays no
/// Swiss rounds.
fn check_last_round_over(
    rounds: &[db_swiss::SwissRoundRow],
    regular: &[MatchRow],
) -> Result<(), ServiceError> {
    if rounds.is_empty() && !regular.is_empty() {
        return Err(ServiceError::conflict(
            ErrorCode::ScheduleExists,
            "the league already has regular-season matches that are not Swiss rounds: a league plays a round robin or Swiss rounds, not both",
        ));
    }
    let open = regular.iter().filter(|m| !m.status.is_over()).count();
    if open > 0 {
        return Err(ServiceError::conflict(
            ErrorCode::RoundUnfinished,
            format!(
                "{open} match{} of the last round {} not over: record {} (or forfeit or cancel {}) before pairing the next round",
                if open == 1 { "" } else { "es" },
                if open == 1 { "is" } else { "are" },
                if open == 1 {
                    "its result"
                } else {
                    "their results"
                },
                if open == 1 { "it" } else { "them" },
            ),
        ));
    }
    Ok(())
}

/// The next round's pairs over the active teams in standings order (`teams`: their ids).
async fn pair(
    conn: &mut Conn,
    league: &League,
    rounds: &[db_swiss::SwissRoundRow],
    regular: &[MatchRow],
) -> Result<(Vec<TeamId>, Round), ServiceError> {
    let withdrawn = withdrawn_teams(conn, league.row.id).await?;
    // Once the desk has checked a team in, only the teams checked in play (§21.4).
    let arrived: std::collections::HashSet<TeamId> =
        crate::db::desk::checked_in(conn, league.row.id)
            .await?
            .into_iter()
            .map(|(id, _)| id)
            .collect();
    let ranked: Vec<_> = standings(conn, league)
        .await?
        .into_iter()
        .filter(|s| !withdrawn.contains(&s.team_id))
        .filter(|s| arrived.is_empty() || arrived.contains(&s.team_id))
        .collect();
    let ids: Vec<TeamId> = ranked.iter().map(|s| s.team_id).collect();
    let had_bye = |id: TeamId| rounds.iter().any(|r| r.bye_team_id == Some(id));
    let teams: Vec<SwissTeam> = ranked
        .iter()
        .map(|s| SwissTeam {
            score: 2 * s.won + s.tied,
            had_bye: had_bye(s.team_id),
        })
        .collect();
    let mut met = Met::new(ids.len());
    let index = |id: TeamId| ids.iter().position(|&t| t == id);
    for m in regular {
        if let (Some(a), Some(b)) = (index(m.team_a), index(m.team_b)) {
            met.add(a, b);
        }
    }
    let round = pair_round(&teams, &met).map_err(|e| refusal(e, ids.len()))?;
    Ok((ids, round))
}

fn refusal(e: NoRound, teams: usize) -> ServiceError {
    match e {
        NoRound::TooFew => ServiceError::invalid(
            ErrorCode::InvalidSchedule,
            "mode",
            "Swiss rounds need at least 2 active teams",
        ),
        NoRound::TooMany => ServiceError::invalid(
            ErrorCode::InvalidSchedule,
            "mode",
            format!(
                "Swiss rounds pair at most {} teams; this league has {teams} playing: split the field into leagues",
                crate::league::swiss::MAX_TEAMS
            ),
        ),
        NoRound::NoByeLeft => ServiceError::conflict(
            ErrorCode::SwissExhausted,
            format!(
                "every one of the {teams} teams has had its bye, and an odd field needs one more: the Swiss rounds are over; go on to the playoffs"
            ),
        ),
        NoRound::EveryPairingRepeats => ServiceError::conflict(
            ErrorCode::SwissExhausted,
            format!(
                "every pairing of the {teams} teams would repeat a match: the Swiss rounds are over; go on to the playoffs"
            ),
        ),
    }
}
