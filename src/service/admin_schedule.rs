//! What the coordinator's schedule page reads (`/admin/leagues/{slug}/schedule`): every match
//! of a league with what its forms need (team ids, version, why it was called off), the
//! league's active teams for the team lists, and the preview of a night move: what would
//! move, what stays, and what the new date already holds.

use crate::domain::Slug;
use std::collections::{HashMap, HashSet};

use chrono::{NaiveDate, NaiveDateTime};

use super::leagues::league_row;
use super::reschedule::{self, NightMove};
use super::{ServiceError, TeamRef, User, require_admin};
use crate::db::matches::MatchRow;
use crate::db::{Db, leagues as db_leagues, matches as db_matches};
use crate::domain::{LocalTime, MatchId, MatchStatus, TeamId};
use crate::rules::Stage;

/// A match as the schedule page lists and edits it.
#[derive(Debug, Clone)]
pub struct ScheduleMatch {
    pub id: MatchId,
    pub stage: Stage,
    pub round: Option<i64>,
    pub team_a: TeamRef,
    pub team_b: TeamRef,
    pub table: Option<String>,
    pub scheduled_at: Option<LocalTime>,
    pub status: MatchStatus,
    /// Why it was postponed or cancelled.
    pub status_note: Option<String>,
    pub score_a: i64,
    pub score_b: i64,
    /// What a change must name as `expected_version`.
    pub version: i64,
}

impl ScheduleMatch {
    /// The local date of its league night, if it has a time.
    pub fn night(&self) -> Option<NaiveDate> {
        self.scheduled_at.map(|t| t.0.date())
    }
}

/// A league's schedule for the coordinator.
#[derive(Debug, Clone)]
pub struct ScheduleAdmin {
    pub slug: String,
    pub name: String,
    /// The teams that may play a new match (not withdrawn), by name.
    pub active: Vec<TeamRef>,
    /// Every match, cancelled ones too, in schedule order (undated last).
    pub matches: Vec<ScheduleMatch>,
    /// Pairings of active teams with no regular-season match that counts (none at all, or
    /// only cancelled ones): what "generate the rest" would add.
    pub missing_pairings: usize,
}

impl ScheduleAdmin {
    pub fn has_regular(&self) -> bool {
        self.matches.iter().any(|m| m.stage == Stage::Regular)
    }

    /// Some regular-season match has started (or ended): the schedule can no longer be
    /// generated anew.
    pub fn regular_started(&self) -> bool {
        self.matches
            .iter()
            .any(|m| m.stage == Stage::Regular && started(m.status))
    }

    pub fn by_id(&self, id: MatchId) -> Option<&ScheduleMatch> {
        self.matches.iter().find(|m| m.id == id)
    }
}

/// In play or over (cancelled is neither).
fn started(status: MatchStatus) -> bool {
    matches!(
        status,
        MatchStatus::InProgress | MatchStatus::Complete | MatchStatus::Forfeit
    )
}

fn lines(rows: Vec<MatchRow>, names: &HashMap<TeamId, String>) -> Vec<ScheduleMatch> {
    let team = |id: TeamId| TeamRef {
        id,
        name: names.get(&id).cloned().unwrap_or_else(|| format!("#{id}")),
    };
    rows.into_iter()
        .map(|m| ScheduleMatch {
            id: m.id,
            stage: m.stage,
            round: m.round,
            team_a: team(m.team_a),
            team_b: team(m.team_b),
            table: m.table_name,
            scheduled_at: m.scheduled_at,
            status: m.status,
            status_note: m.status_note,
            score_a: m.score_a,
            score_b: m.score_b,
            version: m.version,
        })
        .collect()
}

pub async fn schedule_admin(
    db: &Db,
    user: &User,
    slug: &Slug,
) -> Result<ScheduleAdmin, ServiceError> {
    require_admin(user)?;
    let mut conn = db.read().await?;
    let league = league_row(&mut conn, slug).await?;
    let teams = db_leagues::teams(&mut conn, league.id).await?;
    let rows = db_matches::of_league(&mut conn, league.id).await?;
    drop(conn);
    let names: HashMap<TeamId, String> = teams.iter().map(|t| (t.id, t.name.to_string())).collect();
    let active: Vec<TeamRef> = teams
        .iter()
        .filter(|t| !t.withdrawn)
        .map(|t| TeamRef {
            id: t.id,
            name: t.name.to_string(),
        })
        .collect();
    let counted: HashSet<(TeamId, TeamId)> = rows
        .iter()
        .filter(|m| m.stage == Stage::Regular && m.status != MatchStatus::Cancelled)
        .map(|m| (m.team_a.min(m.team_b), m.team_a.max(m.team_b)))
        .collect();
    let mut missing_pairings = 0;
    for (i, a) in active.iter().enumerate() {
        for b in &active[i + 1..] {
            if !counted.contains(&(a.id.min(b.id), a.id.max(b.id))) {
                missing_pairings += 1;
            }
        }
    }
    Ok(ScheduleAdmin {
        slug: league.slug.to_string(),
        name: league.name,
        active,
        matches: lines(rows, &names),
        missing_pairings,
    })
}

/// A match of a night move: as it is, and its time on the new date.
#[derive(Debug, Clone)]
pub struct Moving {
    pub game: ScheduleMatch,
    pub to: LocalTime,
}

/// What moving a league night would do, read without writing.
#[derive(Debug, Clone)]
pub struct NightPreview {
    pub from: NaiveDate,
    pub to: NaiveDate,
    /// What the move moves ([`reschedule::night`]), in time order.
    pub moving: Vec<Moving>,
    /// The night's other matches (started, over or cancelled): they keep their time.
    pub staying: Vec<ScheduleMatch>,
    /// Matches already on the new date (not cancelled).
    pub already: Vec<ScheduleMatch>,
    /// Warnings about the new date: a table taken at the same time, a team playing twice.
    pub clashes: Vec<String>,
}

impl NightPreview {
    /// `id:version` of every match that would move, in order: what the confirmation checks
    /// is still what the coordinator saw.
    pub fn fingerprint(&self) -> String {
        self.moving
            .iter()
            .map(|m| format!("{}:{}", m.game.id, m.game.version))
            .collect::<Vec<_>>()
            .join(",")
    }
}

pub async fn night_preview(
    db: &Db,
    user: &User,
    slug: &Slug,
    input: &NightMove,
) -> Result<NightPreview, ServiceError> {
    require_admin(user)?;
    let (from, to) = reschedule::night_dates(input)?;
    let mut conn = db.read().await?;
    let league = league_row(&mut conn, slug).await?;
    let moving_rows = reschedule::night(&mut conn, slug, from).await?;
    let teams = db_leagues::teams(&mut conn, league.id).await?;
    let all = db_matches::of_league(&mut conn, league.id).await?;
    drop(conn);
    let names: HashMap<TeamId, String> = teams.iter().map(|t| (t.id, t.name.to_string())).collect();
    let moving_ids: HashSet<MatchId> = moving_rows.iter().map(|m| m.id).collect();
    let on = |date: NaiveDate, m: &MatchRow| m.scheduled_at.is_some_and(|t| t.0.date() == date);
    let staying_rows: Vec<MatchRow> = all
        .iter()
        .filter(|m| on(from, m) && !moving_ids.contains(&m.id))
        .cloned()
        .collect();
    let already_rows: Vec<MatchRow> = all
        .iter()
        .filter(|m| on(to, m) && m.status != MatchStatus::Cancelled)
        .cloned()
        .collect();
    let moving: Vec<Moving> = lines(moving_rows, &names)
        .into_iter()
        .map(|game| {
            let time = game.scheduled_at.map(|t| t.0.time()).unwrap_or_default();
            Moving {
                to: LocalTime(NaiveDateTime::new(to, time)),
                game,
            }
        })
        .collect();
    let already = lines(already_rows, &names);
    let mut clashes = Vec::new();
    for m in &moving {
        for other in &already {
            if let (Some(table), Some(other_table)) = (&m.game.table, &other.table)
                && other.scheduled_at == Some(m.to)
                && table.trim().eq_ignore_ascii_case(other_table.trim())
            {
                clashes.push(format!(
                    "{} is taken at {} by {} v {}",
                    table,
                    m.to.0.format("%H:%M"),
                    other.team_a.name,
                    other.team_b.name
                ));
            }
        }
        for team in [&m.game.team_a, &m.game.team_b] {
            if already
                .iter()
                .any(|o| o.team_a.id == team.id || o.team_b.id == team.id)
            {
                let line = format!("{} already plays on the new date", team.name);
                if !clashes.contains(&line) {
                    clashes.push(line);
                }
            }
        }
    }
    Ok(NightPreview {
        from,
        to,
        moving,
        staying: lines(staying_rows, &names),
        already,
        clashes,
    })
}
