//! A league's schedule: a generated round robin, or single matches added by hand.

use crate::db::Conn;
use crate::domain::Slug;
use crate::service::night::calls::Now;
use serde::Deserialize;

use crate::db::Db;
use crate::db::leagues::{self as db_leagues, TeamRow};
use crate::db::matches::{self as db_matches, MatchRow, NewMatch};
use crate::domain::ErrorCode;
use crate::domain::{
    DivisionId, FIRST_DAY, LAST_DAY, LeagueId, LocalTime, MatchId, MatchStatus, TeamId, TextEnum,
    check_day, parse_day,
};
use crate::league::schedule::{Pairing, rest_of_round_robin, rest_within_groups};
use crate::league::settings::BLACKOUTS_MAX;
use crate::rules::Stage;
use crate::service::audit;
use crate::service::night::match_view::MatchView;
use crate::service::term::leagues::league_row;
use crate::service::text::{self, Lines, TextRule};
use crate::service::{ServiceError, User, require_admin};
use chrono::{Days, NaiveDate};

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ScheduleInput {
    /// `round_robin` (absent: a round robin, unless `mode` is `swiss_round`).
    #[serde(default)]
    pub format: Option<String>,
    /// The first league night (`YYYY-MM-DD`); later rounds follow weekly.
    #[serde(default)]
    pub start_date: Option<String>,
    /// Time of day of the matches (`HH:MM`, default 19:00).
    #[serde(default)]
    pub time: Option<String>,
    /// Days between league nights (default 7).
    #[serde(default)]
    pub days_between: Option<u32>,
    /// `new` (default): the league has no regular-season match yet. `rest`: add the pairings
    /// not yet scheduled or played (a cancelled match counts as not scheduled) as rounds
    /// after the last. `replace`: while no regular-season match has started, delete them all
    /// and generate anew. `swiss_round`: pair the next Swiss round from the standings
    /// (docs/api.md §21.2); it takes `scheduled_at` and none of the round robin's fields.
    #[serde(default)]
    pub mode: ScheduleMode,
    /// A Swiss round's matches' time (`YYYY-MM-DDTHH:MM`); absent: no time, played as the
    /// queue calls them.
    #[serde(default)]
    pub scheduled_at: Option<String>,
    /// `league`: every team meets every other. `division`: each division its own round
    /// robin, on the same nights (every active team must be in a division). Absent: within
    /// divisions when an active team has one, else the league.
    #[serde(default)]
    pub within: Option<String>,
    /// League nights skipped (`YYYY-MM-DD`, at most [`BLACKOUTS_MAX`]): the round of such a
    /// night moves to the next league night, and every later round with it. They are added
    /// to the league's own (`settings.blackouts`), which every generation skips too.
    #[serde(default)]
    pub blackouts: Vec<String>,
}

/// Who a round robin pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Within {
    League,
    Division,
}

impl Within {
    /// Who the request pairs: `None` when it does not say (the league's divisions decide).
    fn of(input: &ScheduleInput) -> Result<Option<Within>, ServiceError> {
        match non_blank(&input.within) {
            None => Ok(None),
            Some("league") => Ok(Some(Within::League)),
            Some("division") => Ok(Some(Within::Division)),
            Some(other) => Err(ServiceError::invalid(
                ErrorCode::InvalidSchedule,
                "within",
                format!(
                    "a round robin is within the league or within each division, not \"{other}\""
                ),
            )),
        }
    }
}

/// What a generation does with the regular-season matches already there.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ScheduleMode {
    #[default]
    New,
    Rest,
    Replace,
    SwissRound,
}

/// How a season's schedule is made (only round robins so far).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScheduleFormat {
    RoundRobin,
}

crate::domain::text_enum!(ScheduleFormat, "schedule format", {
    ScheduleFormat::RoundRobin => "round_robin",
});

/// Generates a round robin of the league's active teams: one round per league night, tables
/// numbered 1, 2, ... within a round.
#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug))]
pub async fn generate_schedule(
    db: &Db,
    user: &User,
    slug: &Slug,
    input: &ScheduleInput,
) -> Result<Vec<MatchId>, ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    let mut nights = Nights::of(input)?;
    let within = Within::of(input)?;
    let mut tx = db.write().await?;
    let league = league_row(&mut tx, slug).await?;
    keep_blackouts(&mut tx, &league, &mut nights).await?;
    if !crate::db::swiss::of_league(&mut tx, league.id)
        .await?
        .is_empty()
    {
        return Err(ServiceError::conflict(
            ErrorCode::ScheduleExists,
            "the league plays Swiss rounds: pair the next one (mode swiss_round); a league plays a round robin or Swiss rounds, not both",
        ));
    }
    let regular = regular_matches(&mut tx, league.id).await?;
    clear_for_mode(&mut tx, input.mode, &regular).await?;
    let active = active_teams(&mut tx, league.id).await?;
    let plan = Continuation::of(input.mode, &regular, &active, &nights);
    let within = within.unwrap_or(if active.iter().any(|t| t.division_id.is_some()) {
        Within::Division
    } else {
        Within::League
    });
    let pairings = match within {
        Within::League => rest_of_round_robin(active.len(), &plan.met),
        Within::Division => rest_within_groups(&division_groups(&active)?, &plan.met),
    };
    if pairings.is_empty() {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidSchedule,
            "format",
            "every pair of active teams is already scheduled or has played: nothing to add",
        ));
    }
    check_last_night(plan.start, &nights, &pairings)?;
    let ids = insert_pairings(&mut tx, league.id, &active, &plan, &nights, pairings).await?;
    let after = format!("{} matches", ids.len());
    audit::record(
        &mut tx,
        user,
        now,
        audit::Change::new("generate_schedule", audit::Subject::League(league.id)).after(&after),
    )
    .await?;
    crate::service::night::calls::refill(&mut tx, league.id, Now::of(db)).await?;
    tx.commit().await?;
    Ok(ids)
}

/// Adds the request's blackout nights to the league's (`settings.blackouts`, stored when
/// they change), and the league's to the nights this generation skips.
async fn keep_blackouts(
    tx: &mut Conn,
    league: &db_leagues::LeagueRow,
    nights: &mut Nights,
) -> Result<(), ServiceError> {
    let mut settings = crate::service::term::leagues::League::from_row(league.clone())?.settings;
    let stored = settings.blackouts.len();
    settings.blackouts.extend(nights.blackouts.iter().copied());
    if settings.blackouts.len() > BLACKOUTS_MAX {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidSchedule,
            "blackouts",
            format!(
                "a league keeps at most {BLACKOUTS_MAX} blackout nights; with these it would have {}",
                settings.blackouts.len()
            ),
        ));
    }
    nights.blackouts.extend(settings.blackouts.iter().copied());
    if settings.blackouts.len() != stored {
        let json = crate::service::to_json("settings", &settings)?;
        db_leagues::set_settings(tx, league.id, &json).await?;
    }
    Ok(())
}

/// When a generated schedule's matches are played, as the input asks.
struct Nights {
    /// The first night the input names, if any.
    start: Option<NaiveDate>,
    time: chrono::NaiveTime,
    /// Days between league nights.
    gap: i64,
    /// Nights skipped: their round moves to the next league night.
    blackouts: std::collections::HashSet<NaiveDate>,
}

impl Nights {
    /// Checks the format and reads the dates of `input`.
    fn of(input: &ScheduleInput) -> Result<Self, ServiceError> {
        let format = non_blank(&input.format).unwrap_or("round_robin");
        let ScheduleFormat::RoundRobin = ScheduleFormat::parse(format).map_err(|_| {
            ServiceError::invalid(
                ErrorCode::InvalidSchedule,
                "format",
                format!("unknown format \"{format}\"; use round_robin"),
            )
        })?;
        if non_blank(&input.scheduled_at).is_some() {
            return Err(ServiceError::invalid(
                ErrorCode::InvalidSchedule,
                "scheduled_at",
                "a round robin's times come from start_date, time and days_between; scheduled_at is a Swiss round's",
            ));
        }
        let start = match non_blank(&input.start_date) {
            Some(d) => Some(parse_day(d).map_err(|e| {
                ServiceError::invalid(
                    ErrorCode::InvalidSchedule,
                    "start_date",
                    e.message("the first date is YYYY-MM-DD"),
                )
            })?),
            None => None,
        };
        let time = match non_blank(&input.time) {
            Some(t) => chrono::NaiveTime::parse_from_str(t, "%H:%M").map_err(|_| {
                ServiceError::invalid(
                    ErrorCode::InvalidSchedule,
                    "time",
                    "the time is HH:MM, e.g. 19:00",
                )
            })?,
            None => chrono::NaiveTime::from_hms_opt(19, 0, 0).unwrap_or_default(),
        };
        let gap = i64::from(input.days_between.unwrap_or(7).clamp(1, 60));
        if input.blackouts.len() > BLACKOUTS_MAX {
            return Err(ServiceError::invalid(
                ErrorCode::InvalidSchedule,
                "blackouts",
                format!(
                    "at most {BLACKOUTS_MAX} blackout nights (a year of them), not {}",
                    input.blackouts.len()
                ),
            ));
        }
        let blackouts = input
            .blackouts
            .iter()
            .enumerate()
            .map(|(i, day)| {
                parse_day(day.trim()).map_err(|e| {
                    ServiceError::invalid(
                        ErrorCode::InvalidSchedule,
                        &format!("blackouts[{i}]"),
                        format!(
                            "blackout night \"{}\": {}",
                            day.trim(),
                            e.message("a blackout night is YYYY-MM-DD")
                        ),
                    )
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            start,
            time,
            gap,
            blackouts,
        })
    }

    /// The night of round `round` (1-based) from the first night `first`: the
    /// `round`-th league night that is not a blackout.
    fn of_round(&self, first: NaiveDate, round: usize) -> NaiveDate {
        let mut played = 0;
        let mut night = 1;
        loop {
            let day = night_of_round(first, self.gap, night);
            // Held at chrono's last day: no later night to move to.
            if day == NaiveDate::MAX {
                return day;
            }
            if !self.blackouts.contains(&day) {
                played += 1;
                if played >= round {
                    return day;
                }
            }
            night += 1;
        }
    }
}

/// The trimmed text of an optional field, `None` when absent or blank.
fn non_blank(field: &Option<String>) -> Option<&str> {
    field.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

/// The league's regular-season matches, whatever their status.
async fn regular_matches(
    conn: &mut Conn,
    league_id: LeagueId,
) -> Result<Vec<MatchRow>, ServiceError> {
    Ok(db_matches::of_league(conn, league_id)
        .await?
        .into_iter()
        .filter(|m| m.stage == Stage::Regular)
        .collect())
}

/// Refuses a generation its mode does not allow over the `regular` matches there; for
/// `replace`, deletes them all (none may have started meanwhile).
async fn clear_for_mode(
    conn: &mut Conn,
    mode: ScheduleMode,
    regular: &[MatchRow],
) -> Result<(), ServiceError> {
    // Started, or decided without starting (a forfeit).
    let played = regular
        .iter()
        .filter(|m| {
            m.started_at.is_some() || !m.status.is_unstarted() && m.status != MatchStatus::Cancelled
        })
        .count();
    match mode {
        ScheduleMode::New if !regular.is_empty() => {
            return Err(ServiceError::conflict(
                ErrorCode::ScheduleExists,
                "the league already has regular-season matches: generate the rest of the round robin (mode rest), replace the schedule while nothing has been played (mode replace), or add single matches",
            ));
        }
        ScheduleMode::Replace if played > 0 => {
            return Err(ServiceError::conflict(
                ErrorCode::MatchStarted,
                "regular-season matches have been played: the schedule can no longer be replaced; generate the rest of it instead",
            ));
        }
        ScheduleMode::Replace => {
            for m in regular {
                if !db_matches::delete_unstarted(conn, m.id).await? {
                    return Err(ServiceError::conflict(
                        ErrorCode::MatchStarted,
                        format!(
                            "match #{} has started meanwhile: nothing was replaced",
                            m.id
                        ),
                    ));
                }
            }
        }
        ScheduleMode::New | ScheduleMode::Rest => {}
        // Paired by service::term::swiss, never here.
        ScheduleMode::SwissRound => {
            return Err(ServiceError::invalid(
                ErrorCode::InvalidSchedule,
                "mode",
                "a Swiss round is paired from the standings, not generated as a round robin",
            ));
        }
    }
    Ok(())
}

/// The league's teams that have not withdrawn: at least 2, or there is no round robin.
async fn active_teams(conn: &mut Conn, league_id: LeagueId) -> Result<Vec<TeamRow>, ServiceError> {
    let active: Vec<TeamRow> = db_leagues::teams(conn, league_id)
        .await?
        .into_iter()
        .filter(|t| !t.withdrawn)
        .collect();
    if active.len() < 2 {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidSchedule,
            "format",
            "a round robin needs at least 2 active teams",
        ));
    }
    Ok(active)
}

/// The active teams (indexes into `active`) of each division, for a round robin within
/// divisions: 422 `invalid_division` when a team is in none.
fn division_groups(active: &[TeamRow]) -> Result<Vec<Vec<usize>>, ServiceError> {
    let mut groups: Vec<(DivisionId, Vec<usize>)> = Vec::new();
    for (i, team) in active.iter().enumerate() {
        let Some(division) = team.division_id else {
            return Err(ServiceError::invalid(
                ErrorCode::InvalidDivision,
                "within",
                format!(
                    "{} is in no division: give every active team a division before a round robin within divisions, or pair the whole league (\"within\": \"league\")",
                    team.name
                ),
            ));
        };
        match groups.iter_mut().find(|(d, _)| *d == division) {
            Some((_, group)) => group.push(i),
            None => groups.push((division, vec![i])),
        }
    }
    Ok(groups.into_iter().map(|(_, group)| group).collect())
}

/// Where the new rounds go on from: nothing for a new or replaced schedule.
struct Continuation {
    /// Pairs (indexes into the active teams) already scheduled or played.
    met: Vec<(usize, usize)>,
    /// The round the new rounds come after.
    first_round: i64,
    /// The night of the first new round, if known.
    start: Option<NaiveDate>,
}

impl Continuation {
    fn of(mode: ScheduleMode, regular: &[MatchRow], active: &[TeamRow], nights: &Nights) -> Self {
        if mode != ScheduleMode::Rest {
            return Self {
                met: Vec::new(),
                first_round: 0,
                start: nights.start,
            };
        }
        // What the rest leaves out: every pair scheduled or played (a cancelled one may come
        // back), and after which round and night it goes on.
        let index = |id: TeamId| active.iter().position(|t| t.id == id);
        let standing = regular
            .iter()
            .filter(|m| m.status != MatchStatus::Cancelled);
        let met: Vec<(usize, usize)> = standing
            .filter_map(|m| Some((index(m.team_a)?, index(m.team_b)?)))
            .collect();
        let last_round = regular.iter().filter_map(|m| m.round).max().unwrap_or(0);
        let last_night = regular
            .iter()
            .filter_map(|m| m.scheduled_at)
            .map(|t| t.0.date())
            .max();
        let start = nights
            .start
            .or(last_night.map(|d| night_of_round(d, nights.gap, 2)));
        Self {
            met,
            first_round: last_round,
            start,
        }
    }
}

/// Every night on a day a user could have named: the last round is the latest.
fn check_last_night(
    start: Option<NaiveDate>,
    nights: &Nights,
    pairings: &[Pairing],
) -> Result<(), ServiceError> {
    let Some(d) = start else { return Ok(()) };
    let rounds = pairings.iter().map(|p| p.round).max().unwrap_or(1);
    let last = nights.of_round(d, rounds);
    check_day(last).map_err(|_| {
        ServiceError::invalid(
            ErrorCode::InvalidSchedule,
            "start_date",
            format!(
                "the last round would fall on {last}, outside {FIRST_DAY} to {LAST_DAY}: choose another first date or fewer days between nights"
            ),
        )
    })?;
    Ok(())
}

/// Inserts one match per pairing, tables numbered 1, 2, ... within a round.
async fn insert_pairings(
    conn: &mut Conn,
    league_id: LeagueId,
    active: &[TeamRow],
    plan: &Continuation,
    nights: &Nights,
    pairings: Vec<Pairing>,
) -> Result<Vec<MatchId>, ServiceError> {
    let mut ids = Vec::new();
    let mut table_in_round = std::collections::HashMap::new();
    for p in pairings {
        let table = table_in_round.entry(p.round).or_insert(0);
        *table += 1;
        let when = plan
            .start
            .map(|d| LocalTime(nights.of_round(d, p.round).and_time(nights.time)));
        let table_name = format!("Table {table}");
        let id = db_matches::insert(
            conn,
            &NewMatch {
                league_id,
                stage: Stage::Regular,
                round: Some(plan.first_round + p.round as i64),
                team_a: active[p.a].id,
                team_b: active[p.b].id,
                table_name: Some(&table_name),
                scheduled_at: when,
            },
        )
        .await?;
        ids.push(id);
    }
    Ok(ids)
}

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewMatchInput {
    pub team_a: TeamId,
    pub team_b: TeamId,
    #[serde(default)]
    pub stage: Option<Stage>,
    #[serde(default)]
    pub table: Option<String>,
    #[serde(default)]
    pub scheduled_at: Option<String>,
}

#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug))]
pub async fn create_match(
    db: &Db,
    user: &User,
    slug: &Slug,
    input: &NewMatchInput,
) -> Result<MatchId, ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    if input.team_a == input.team_b {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidMatch,
            "team_b",
            "a team cannot play itself",
        ));
    }
    let scheduled = match input
        .scheduled_at
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        Some(s) => Some(parse_when(s)?),
        None => None,
    };
    let table = check_table(input.table.as_deref())?;
    let stage = input.stage.unwrap_or_default();
    let (user, slug, input) = (user.clone(), slug.clone(), input.clone());
    let queue_now = Now::of(db);
    // In the next group commit with the hands: a match made during league night costs the
    // tables no flush of its own.
    db.batched(move |conn| {
        Box::pin(async move {
            let league = league_row(conn, &slug).await?;
            for (field, id) in [("team_a", input.team_a), ("team_b", input.team_b)] {
                check_team(conn, league.id, field, id).await?;
            }
            let new = NewMatch {
                league_id: league.id,
                stage,
                round: None,
                team_a: input.team_a,
                team_b: input.team_b,
                table_name: table.as_deref(),
                scheduled_at: scheduled,
            };
            let id = db_matches::insert(conn, &new).await?;
            let change = audit::Change::new("create", audit::Subject::Match(id));
            audit::record(conn, &user, now, change).await?;
            crate::service::night::calls::refill(conn, league.id, queue_now).await?;
            Ok(id)
        })
    })
    .await
}

/// A table name as stored: empty (or blank) for none.
pub(crate) fn check_table(table: Option<&str>) -> Result<Option<String>, ServiceError> {
    TextRule {
        code: ErrorCode::InvalidMatch,
        field: "table",
        what: "a table name",
        max: text::TABLE_MAX,
        lines: Lines::One,
    }
    .check_optional(table)
}

/// Team `id` may play a new match of league `league_id` (named `field` in the error).
pub(crate) async fn check_team(
    conn: &mut Conn,
    league_id: LeagueId,
    field: &str,
    id: TeamId,
) -> Result<TeamRow, ServiceError> {
    let team = db_leagues::team(conn, id)
        .await?
        .filter(|t| t.league_id == league_id);
    match team {
        None => Err(ServiceError::invalid(
            ErrorCode::InvalidMatch,
            field,
            format!("team {id} is not in this league"),
        )),
        Some(t) if t.withdrawn => Err(ServiceError::invalid(
            ErrorCode::InvalidMatch,
            field,
            format!("{} has withdrawn", t.name),
        )),
        Some(t) => Ok(t),
    }
}

/// The night of round `round` (1-based) of a schedule whose first night is `first`, nights
/// `gap` days apart; held at chrono's last day rather than overflowing (a stored night may be
/// any date; the caller checks the result is a day a user may name).
fn night_of_round(first: NaiveDate, gap: i64, round: usize) -> NaiveDate {
    let days = u64::try_from(gap)
        .unwrap_or(0)
        .saturating_mul(u64::try_from(round.saturating_sub(1)).unwrap_or(u64::MAX));
    first
        .checked_add_days(Days::new(days))
        .unwrap_or(NaiveDate::MAX)
}

/// A match's time as sent: `YYYY-MM-DDTHH:MM` (what a datetime-local input sends), or with
/// seconds / a zone ([`LocalTime::parse_input`]), on a day a user may name.
pub fn parse_when(s: &str) -> Result<LocalTime, ServiceError> {
    LocalTime::parse_input(s).map_err(|e| {
        ServiceError::invalid(
            ErrorCode::InvalidMatch,
            "scheduled_at",
            e.message("the time is YYYY-MM-DDTHH:MM, e.g. 2026-11-24T19:00"),
        )
    })
}

/// [`generate_schedule`], answering the new matches as the API shows them.
pub async fn generate_schedule_views(
    db: &Db,
    user: &User,
    slug: &Slug,
    input: &ScheduleInput,
) -> Result<Vec<MatchView>, ServiceError> {
    let ids = generate_schedule(db, user, slug, input).await?;
    crate::service::night::match_view::views_after_write(db, &ids).await
}

/// [`create_match`], answering the new match as the API shows it.
pub async fn create_match_view(
    db: &Db,
    user: &User,
    slug: &Slug,
    input: &NewMatchInput,
) -> Result<MatchView, ServiceError> {
    let id = create_match(db, user, slug, input).await?;
    // Committed: a reader sees it, and the writer stays free for the next batch.
    let mut conn = db.read().await?;
    Ok(crate::service::night::match_view::load(&mut conn, id)
        .await?
        .0)
}
