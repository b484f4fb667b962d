//! What the coordinator's schedule page reads (`/admin/leagues/{slug}/schedule`): every match
//! of a league with what its forms need (team ids, version, why it was called off), the
//! league's active teams for the team lists, and the preview of a night move: what would
//! move, what stays, and what the new date already holds.

use crate::domain::Slug;
use std::collections::{BTreeSet, HashMap, HashSet};

use chrono::{NaiveDate, NaiveDateTime};

use crate::db::matches::MatchRow;
use crate::db::{Conn, Db, leagues as db_leagues, matches as db_matches};
use crate::domain::{LocalTime, MatchId, MatchStatus, TeamId, UserId};
use crate::rules::Stage;
use crate::service::term::leagues::league_row;
use crate::service::term::reschedule::{self, NightMove};
use crate::service::{ServiceError, TeamRef, User, require_admin};

/// A match as the schedule page lists and edits it.
#[derive(Debug, Clone)]
pub struct ScheduleMatch {
    pub id: MatchId,
    pub stage: Stage,
    pub round: Option<i64>,
    /// A bracket match's label, "M5 · Winners semi-final" (`None` for the regular season).
    pub label: Option<String>,
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
    /// The username of the supervisor it is given, if any.
    pub supervisor: Option<String>,
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
    /// Swiss rounds paired so far (0: the league plays no Swiss rounds, or none yet).
    pub swiss_rounds: usize,
    pub missing_pairings: usize,
    /// A past season: read-only (§18.2).
    pub archived: bool,
    /// The league has divisions: the generation forms offer a round robin within each.
    pub has_divisions: bool,
    /// The league's blackout nights (`settings.blackouts`).
    pub blackouts: BTreeSet<NaiveDate>,
    /// The usernames of the league's supervisors, who a match may be given to.
    pub supervisors: Vec<String>,
}

/// The blackout nights of league `row`; none when its stored settings do not read (the
/// schedule still shows: `check` names such a row).
pub(crate) fn blackouts_of(row: &db_leagues::LeagueRow) -> BTreeSet<NaiveDate> {
    serde_json::from_str::<crate::league::settings::Settings>(&row.settings)
        .map(|s| s.blackouts)
        .unwrap_or_default()
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

fn lines(
    rows: Vec<MatchRow>,
    (names, supervisors): (&HashMap<TeamId, String>, &[(UserId, String)]),
    mut labels: HashMap<MatchId, String>,
) -> Vec<ScheduleMatch> {
    let supervisor = |id: Option<UserId>| {
        let id = id?;
        let found = supervisors.iter().find(|(s, _)| *s == id);
        Some(found.map_or_else(|| format!("account {id}"), |(_, name)| name.clone()))
    };
    let team = |id: TeamId| TeamRef {
        id,
        name: names.get(&id).cloned().unwrap_or_else(|| format!("#{id}")),
    };
    rows.into_iter()
        .map(|m| ScheduleMatch {
            id: m.id,
            stage: m.stage,
            round: m.round,
            label: labels.remove(&m.id),
            team_a: team(m.team_a),
            team_b: team(m.team_b),
            table: m.table_name,
            scheduled_at: m.scheduled_at,
            status: m.status,
            status_note: m.status_note,
            score_a: m.score_a,
            score_b: m.score_b,
            version: m.version,
            supervisor: supervisor(m.supervisor_id),
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
    load_admin(&mut conn, league).await
}

/// The schedule of `league` as the coordinator's page reads it.
pub(crate) async fn load_admin(
    conn: &mut Conn,
    league: db_leagues::LeagueRow,
) -> Result<ScheduleAdmin, ServiceError> {
    let teams = db_leagues::teams(conn, league.id).await?;
    let rows = db_matches::of_league(conn, league.id).await?;
    let has_divisions = !crate::db::divisions::of_league(conn, league.id)
        .await?
        .is_empty();
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
    // With divisions, the round robin is within them (its default): pairings across two
    // divisions are no match missing.
    let playing: Vec<&db_leagues::TeamRow> = teams.iter().filter(|t| !t.withdrawn).collect();
    let by_division = playing.iter().any(|t| t.division_id.is_some());
    let mut missing_pairings = 0;
    for (i, a) in playing.iter().enumerate() {
        for b in &playing[i + 1..] {
            let paired = !by_division || a.division_id == b.division_id;
            if paired && !counted.contains(&(a.id.min(b.id), a.id.max(b.id))) {
                missing_pairings += 1;
            }
        }
    }
    let blackouts = blackouts_of(&league);
    let supervisors = db_leagues::supervisors(conn, league.id).await?;
    Ok(ScheduleAdmin {
        slug: league.slug.to_string(),
        name: league.name,
        active,
        matches: lines(
            rows,
            (&names, &supervisors),
            crate::service::playoffs::labels_of_league(conn, league.id).await?,
        ),
        missing_pairings,
        swiss_rounds: crate::db::swiss::of_league(conn, league.id).await?.len(),
        archived: league.archived,
        has_divisions,
        blackouts,
        supervisors: supervisors.into_iter().map(|(_, name)| name).collect(),
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
    let labels = crate::service::playoffs::labels_of_league(&mut conn, league.id).await?;
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
    let moving: Vec<Moving> = lines(moving_rows, (&names, &[]), labels.clone())
        .into_iter()
        .map(|game| {
            let time = game.scheduled_at.map(|t| t.0.time()).unwrap_or_default();
            Moving {
                to: LocalTime(NaiveDateTime::new(to, time)),
                game,
            }
        })
        .collect();
    let already = lines(already_rows, (&names, &[]), labels.clone());
    let mut clashes = Vec::new();
    for m in &moving {
        for clash in clashes_of(&m.game, m.to, &already) {
            let line = match &clash.kind {
                ClashKind::TableTaken(table) => format!(
                    "{} is taken at {} by {} v {}",
                    table,
                    m.to.0.format("%H:%M"),
                    clash.other.team_a.name,
                    clash.other.team_b.name
                ),
                ClashKind::TeamBusy(team) => format!("{} already plays on the new date", team.name),
                ClashKind::PairingScheduled => continue,
            };
            if !clashes.contains(&line) {
                clashes.push(line);
            }
        }
    }
    Ok(NightPreview {
        from,
        to,
        moving,
        staying: lines(staying_rows, (&names, &[]), labels),
        already,
        clashes,
    })
}

/// What a match placed somewhere clashes with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClashKind {
    /// Its table (as named) is taken by the other match at the same time.
    TableTaken(String),
    /// This team of it plays the other match the same night.
    TeamBusy(TeamRef),
    /// The same two teams already have the other regular-season match.
    PairingScheduled,
}

/// A clash of a placed match with `other`.
#[derive(Debug, Clone)]
pub struct Clash {
    pub kind: ClashKind,
    pub other: ScheduleMatch,
}

/// The clashes of `game` placed at `at` with `others` (itself and cancelled matches are
/// skipped): a table taken at the same time, a team playing twice the same night. The night
/// move's preview and every single change (a time, a table, an added match) share it.
pub fn clashes_of(game: &ScheduleMatch, at: LocalTime, others: &[ScheduleMatch]) -> Vec<Clash> {
    let mut clashes = Vec::new();
    let others = others
        .iter()
        .filter(|o| o.id != game.id && o.status != MatchStatus::Cancelled);
    for other in others {
        if let (Some(table), Some(other_table)) = (&game.table, &other.table)
            && other.scheduled_at == Some(at)
            && table.trim().eq_ignore_ascii_case(other_table.trim())
        {
            clashes.push(Clash {
                kind: ClashKind::TableTaken(table.clone()),
                other: other.clone(),
            });
        }
        if other.night() != Some(at.0.date()) {
            continue;
        }
        for team in [&game.team_a, &game.team_b] {
            if other.team_a.id == team.id || other.team_b.id == team.id {
                clashes.push(Clash {
                    kind: ClashKind::TeamBusy(team.clone()),
                    other: other.clone(),
                });
            }
        }
    }
    clashes
}

/// The other regular-season matches (not cancelled) of `game`'s two teams, when it is one.
pub(crate) fn same_pairing(game: &ScheduleMatch, others: &[ScheduleMatch]) -> Vec<Clash> {
    let pair = |m: &ScheduleMatch| (m.team_a.id.min(m.team_b.id), m.team_a.id.max(m.team_b.id));
    if game.stage != Stage::Regular {
        return Vec::new();
    }
    others
        .iter()
        .filter(|o| {
            o.id != game.id
                && o.stage == Stage::Regular
                && o.status != MatchStatus::Cancelled
                && pair(o) == pair(game)
        })
        .map(|o| Clash {
            kind: ClashKind::PairingScheduled,
            other: o.clone(),
        })
        .collect()
}

/// A warning with a saved change: the change stands, but it clashes with another match
/// (docs/api.md §18.5).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct ScheduleWarning {
    /// `table_taken`, `team_busy`, `pairing_scheduled` or `blackout`.
    pub code: &'static str,
    /// In words, naming the other match, the table or team and the time.
    pub message: String,
    /// The id of the other match (for `blackout`, of the match itself).
    #[serde(rename = "match")]
    #[schema(value_type = i64)]
    pub other: MatchId,
}

/// "M7 · Aces v Kings (Tue 24 Nov 2026, 19:00)": the other match of a warning (a bracket
/// match by its label instead of its id).
pub(crate) fn named(m: &ScheduleMatch) -> String {
    let when = m.scheduled_at.map_or_else(
        || "no time yet".to_string(),
        |t| t.0.format("%a %-d %b %Y, %H:%M").to_string(),
    );
    match &m.label {
        // A bracket match by its label: "M5 · Semi-final: Aces v Kings (…)".
        Some(label) => format!("{label}: {} v {} ({when})", m.team_a.name, m.team_b.name),
        None => format!("M{} · {} v {} ({when})", m.id, m.team_a.name, m.team_b.name),
    }
}

impl Clash {
    pub fn warning(&self) -> ScheduleWarning {
        let (code, message) = match &self.kind {
            ClashKind::TableTaken(table) => (
                "table_taken",
                format!(
                    "{table} is already taken at that time by {}",
                    named(&self.other)
                ),
            ),
            ClashKind::TeamBusy(team) => (
                "team_busy",
                format!("{} also plays {} that night", team.name, named(&self.other)),
            ),
            ClashKind::PairingScheduled => (
                "pairing_scheduled",
                format!(
                    "these two teams already have a regular-season match: {}",
                    named(&self.other)
                ),
            ),
        };
        ScheduleWarning {
            code,
            message,
            other: self.other.id,
        }
    }
}

/// The warnings about match `id` as it stands in `view`: its clashes at its time, a pairing
/// scheduled twice, a blackout night. None for a cancelled match or one not found.
pub fn warnings_in(view: &ScheduleAdmin, id: MatchId) -> Vec<ScheduleWarning> {
    warnings_among(&view.matches, id, &view.blackouts)
}

/// The warnings about match `id` among `matches` (which hold it, and all it may clash with),
/// in a league with the blackout nights `blackouts`.
fn warnings_among(
    matches: &[ScheduleMatch],
    id: MatchId,
    blackouts: &BTreeSet<NaiveDate>,
) -> Vec<ScheduleWarning> {
    let Some(game) = matches.iter().find(|m| m.id == id) else {
        return Vec::new();
    };
    if game.status == MatchStatus::Cancelled {
        return Vec::new();
    }
    let mut clashes = game
        .scheduled_at
        .map(|at| clashes_of(game, at, matches))
        .unwrap_or_default();
    clashes.extend(same_pairing(game, matches));
    let mut warnings: Vec<ScheduleWarning> = clashes.iter().map(Clash::warning).collect();
    warnings.extend(blackout_warning(game, blackouts));
    warnings
}

/// The warning of a match to play on one of the league's blackout nights.
pub(crate) fn blackout_warning(
    game: &ScheduleMatch,
    blackouts: &BTreeSet<NaiveDate>,
) -> Option<ScheduleWarning> {
    let night = game.night()?;
    let to_play = matches!(game.status, MatchStatus::Scheduled | MatchStatus::Postponed);
    (to_play && blackouts.contains(&night)).then(|| ScheduleWarning {
        code: "blackout",
        message: format!(
            "{} is on {}, a blackout night of the league",
            named(game),
            night.format("%a %-d %b %Y")
        ),
        other: game.id,
    })
}

/// The warnings about match `id` of its league as it is now (after a write). Only the
/// matches it may clash with are read (its night's, and its first team's, which hold its
/// pairing's), not the league's: adding a match costs the same in a league of any size.
pub async fn warnings_after_write(
    db: &Db,
    user: &User,
    id: MatchId,
) -> Result<Vec<ScheduleWarning>, ServiceError> {
    // A reader, not the writer's connection: the write was committed before this, so a new
    // read sees it (WAL), and the writer is not held while this reads.
    let mut conn = db.read().await?;
    let Some(m) = db_matches::by_id(&mut conn, id).await? else {
        return Ok(Vec::new());
    };
    require_admin(user)?;
    let rows = neighbours(&mut conn, &m).await?;
    let names: HashMap<TeamId, String> = db_leagues::teams(&mut conn, m.league_id)
        .await?
        .into_iter()
        .map(|t| (t.id, t.name.to_string()))
        .collect();
    let labels = crate::service::playoffs::labels_of_league(&mut conn, m.league_id).await?;
    let blackouts = db_leagues::by_id(&mut conn, m.league_id)
        .await?
        .map(|row| blackouts_of(&row))
        .unwrap_or_default();
    Ok(warnings_among(
        &lines(rows, (&names, &[]), labels),
        id,
        &blackouts,
    ))
}

/// Match `m` and the matches of its league it may clash with: those of its night (a table
/// taken, a team busy) and those of its first team (the same pairing), in schedule order.
async fn neighbours(conn: &mut Conn, m: &MatchRow) -> Result<Vec<MatchRow>, ServiceError> {
    let mut rows = db_matches::of_team(conn, m.team_a).await?;
    if let Some(at) = m.scheduled_at {
        rows.extend(db_matches::on_night(conn, m.league_id, at.0.date()).await?);
    }
    rows.retain(|r| r.league_id == m.league_id);
    rows.sort_by_key(|r| {
        (
            r.scheduled_at.is_none(),
            r.scheduled_at,
            r.round.is_some(),
            r.round,
            r.id,
        )
    });
    rows.dedup_by_key(|r| r.id);
    Ok(rows)
}

/// A match as a change or an addition left it, with what it clashes with: the change is
/// saved all the same (`PATCH /api/v1/matches/{id}`, `POST /api/v1/leagues/{slug}/matches`).
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct MatchSaved {
    #[serde(flatten)]
    pub game: crate::service::night::match_view::MatchView,
    /// Empty when nothing clashes.
    pub warnings: Vec<ScheduleWarning>,
}

impl MatchSaved {
    pub async fn of(
        db: &Db,
        user: &User,
        game: crate::service::night::match_view::MatchView,
    ) -> Result<Self, ServiceError> {
        let warnings = warnings_after_write(db, user, game.id).await?;
        Ok(Self { game, warnings })
    }
}
