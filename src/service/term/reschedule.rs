//! Changing a schedule during the season (docs/api.md §6.8): a match's time, table, teams or
//! supervisor, postponing and cancelling it, moving a whole league night. Only the coordinator;
//! one transaction each, audited; a started match keeps its time and teams (409).

use crate::db::Conn;
use crate::domain::Slug;
use chrono::{NaiveDate, NaiveDateTime};
use serde::{Deserialize, Deserializer};

use crate::db::Db;
use crate::db::matches::{self as db_matches, MatchRow, Placement};
use crate::domain::ErrorCode;
use crate::domain::{LocalTime, MatchId, MatchStatus, TeamId, TextEnum, parse_day};
use crate::rules::Stage;
use crate::service::audit;
use crate::service::night::calls::{Now, check_place, refill};
use crate::service::night::match_view::{MatchView, views_after_write};
use crate::service::notices;
use crate::service::term::leagues::league_row;
use crate::service::term::schedule::{check_table, check_team, parse_when};
use crate::service::term::supervisors::{give_supervisor, supervisor_of};
use crate::service::text::{self, Lines, TextRule};
use crate::service::{ServiceError, User, require_admin};

/// `Some(value)` for a field that is present, `null` included: tells "set to none" (`null`)
/// from "leave as it is" (absent, the `#[serde(default)]`).
pub(crate) fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// What changes in a match (`PATCH /api/v1/matches/{id}`): each field present is set, each
/// absent one kept.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MatchChange {
    /// The new time (`YYYY-MM-DDTHH:MM`, the league's time zone); `null` for "not yet
    /// scheduled". A time given to a postponed match makes it scheduled again.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub scheduled_at: Option<Option<String>>,
    /// The table; `null` or empty for none. The only change allowed once the match started.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub table: Option<Option<String>>,
    /// Regular-season matches only: a playoff match's teams come from its bracket.
    #[serde(default)]
    pub team_a: Option<crate::domain::TeamId>,
    #[serde(default)]
    pub team_b: Option<crate::domain::TeamId>,
    /// The username of the supervisor the match is given, one of its league's; `null` for
    /// none. May change at any time, also once the match started.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub supervisor: Option<Option<String>>,
    /// The match's version as the caller last saw it (409 `version_conflict` otherwise).
    pub expected_version: i64,
}

impl MatchChange {
    /// Whether it changes the time, the table or the teams (not only the supervisor).
    fn places(&self) -> bool {
        self.scheduled_at.is_some()
            || self.table.is_some()
            || self.team_a.is_some()
            || self.team_b.is_some()
    }
}

/// Why a match is postponed or cancelled (`POST …/postpone`, `POST …/cancel`).
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CallOff {
    /// Shown with the match ("rec center closed"): not blank, at most 500 characters, one
    /// line, stored text (docs/api.md §1.1).
    #[schema(min_length = 1, max_length = 500)]
    pub reason: String,
    /// The match's version as the caller last saw it; checked when given.
    #[serde(default)]
    #[schema(minimum = 1)]
    pub expected_version: Option<i64>,
}

/// A league night moved to another date (`POST /api/v1/leagues/{slug}/nights/move`).
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NightMove {
    /// The night's date, `YYYY-MM-DD`, in the league's time zone.
    pub from: String,
    /// The new date, `YYYY-MM-DD`: every match keeps its time of day.
    pub to: String,
    /// Why (one line, optional): the notices quote it ("the rec center is closed for the
    /// storm"), and the audit keeps it.
    #[serde(default)]
    pub reason: Option<String>,
}

/// What a night move did: how many matches moved, and each as it is now.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct NightMoved {
    pub moved: usize,
    pub matches: Vec<MatchView>,
}

/// Why a match is postponed or cancelled: one line, as the match, its calendar event and
/// the lists show it.
fn reason_rule() -> TextRule<'static> {
    TextRule {
        code: ErrorCode::InvalidInput,
        field: "reason",
        what: "the reason",
        max: text::REASON_MAX,
        lines: Lines::One,
    }
}

/// The match, for a change by the coordinator at `expected` version (if given).
async fn changeable(
    conn: &mut Conn,
    id: MatchId,
    expected: Option<i64>,
) -> Result<MatchRow, ServiceError> {
    let m = db_matches::by_id(conn, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    if let Some(expected) = expected
        && m.version != expected
    {
        return Err(ServiceError::conflict(
            ErrorCode::VersionConflict,
            format!(
                "the match changed since you loaded it (version {} now, you had {expected}): reload it",
                m.version
            ),
        ));
    }
    if m.status == MatchStatus::Cancelled {
        return Err(ServiceError::conflict(
            ErrorCode::MatchClosed,
            "the match is cancelled",
        ));
    }
    Ok(m)
}

fn started(m: &MatchRow, what: &str) -> ServiceError {
    ServiceError::conflict(
        ErrorCode::MatchStarted,
        format!(
            "the match has started ({}): {what} only a match that has not started",
            m.status.words()
        ),
    )
}

/// "2026-11-24 19:00, Table 3, team 4 vs team 7" (or "postponed: …", "cancelled: …") for
/// the audit log.
fn describe(p: &Placement<'_>) -> String {
    let when = p.scheduled_at.map_or_else(
        || "no time".to_string(),
        |t| t.0.format("%Y-%m-%d %H:%M").to_string(),
    );
    let table = p.table_name.unwrap_or("no table");
    format!(
        "{}: {when}, {table}, team {} vs team {}",
        p.status.as_str(),
        p.team_a,
        p.team_b
    )
}

fn placement(m: &MatchRow) -> Placement<'_> {
    Placement {
        scheduled_at: m.scheduled_at,
        table_name: m.table_name.as_deref(),
        team_a: m.team_a,
        team_b: m.team_b,
        status: m.status,
        status_note: m.status_note.as_deref(),
    }
}

/// Writes `after` over `m` (known unstarted) with one audit row; a concurrent change in
/// between is a version conflict.
async fn replace(
    conn: &mut Conn,
    user: &User,
    m: &MatchRow,
    action: &str,
    after: &Placement<'_>,
    reason: Option<&str>,
    now: crate::domain::Timestamp,
) -> Result<(), ServiceError> {
    if !db_matches::place(conn, m.id, m.version, after).await? {
        return Err(ServiceError::conflict(
            ErrorCode::VersionConflict,
            "the match changed meanwhile: reload it",
        ));
    }
    let before = describe(&placement(m));
    let after = describe(after);
    let mut change = audit::Change::new(action, audit::Subject::Match(m.id))
        .before(&before)
        .after(&after);
    if let Some(reason) = reason {
        change = change.reason(reason);
    }
    audit::record(conn, user, now, change).await?;
    Ok(())
}

/// Changes a match's time, table, teams or supervisor.
#[tracing::instrument(skip_all, fields(user_id = %user.id, match_id = %id))]
pub async fn change_match(
    db: &Db,
    user: &User,
    id: MatchId,
    change: &MatchChange,
) -> Result<MatchView, ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    let fields = ChangeFields::of(change)?;
    let mut tx = db.write().await?;
    let m = changeable(&mut tx, id, Some(change.expected_version)).await?;
    let supervisor = match &change.supervisor {
        Some(name) => Some(supervisor_of(&mut tx, &m, name.as_deref()).await?),
        None => None,
    };
    if change.places() {
        place_match(&mut tx, db, user, &m, change, fields, now).await?;
    }
    if let Some(supervisor) = supervisor {
        give_supervisor(&mut tx, user, &m, supervisor, now).await?;
    }
    // A change of time, table or teams may free a table, or a team, for the queue.
    refill(&mut tx, m.league_id, Now::of(db)).await?;
    tx.commit().await?;
    Ok(views_after_write(db, &[id]).await?.remove(0))
}

/// Writes a change's time, table or teams to match `m`, telling its teams of it; a started
/// match changes only its table.
async fn place_match(
    tx: &mut Conn,
    db: &Db,
    user: &User,
    m: &MatchRow,
    change: &MatchChange,
    ChangeFields { when, table }: ChangeFields,
    now: crate::domain::Timestamp,
) -> Result<(), ServiceError> {
    let reteam = change.team_a.is_some() || change.team_b.is_some();
    if !m.status.is_unstarted() {
        if when.is_some() || reteam {
            return Err(started(m, "the time and the teams change on"));
        }
        return change_table(tx, user, m, table.flatten(), Now::of(db)).await;
    }
    let (team_a, team_b) = new_teams(tx, m, change).await?;
    let scheduled_at = when.unwrap_or(m.scheduled_at);
    // A postponed match is scheduled again once it has a time.
    let (status, note) = match (m.status, scheduled_at) {
        (MatchStatus::Postponed, None) => (MatchStatus::Postponed, m.status_note.as_deref()),
        _ => (MatchStatus::Scheduled, None),
    };
    let after = Placement {
        scheduled_at,
        table_name: match &table {
            Some(t) => t.as_deref(),
            None => m.table_name.as_deref(),
        },
        team_a,
        team_b,
        status,
        status_note: note,
    };
    replace(tx, user, m, "change_match", &after, None, now).await?;
    if let Some(public_url) = db.notices() {
        notices::tell_match_changed(tx, public_url, now, m, &after, None).await?;
    }
    Ok(())
}

/// A match change's time and table, checked: `None` leaves it as it is, `Some(None)` sets
/// none.
struct ChangeFields {
    when: Option<Option<LocalTime>>,
    table: Option<Option<String>>,
}

impl ChangeFields {
    fn of(change: &MatchChange) -> Result<Self, ServiceError> {
        if !change.places() && change.supervisor.is_none() {
            return Err(ServiceError::invalid(
                ErrorCode::InvalidRequest,
                "scheduled_at",
                "nothing to change: send scheduled_at, table, team_a, team_b or supervisor",
            ));
        }
        let when = match &change.scheduled_at {
            Some(Some(s)) if !s.trim().is_empty() => Some(Some(parse_when(s.trim())?)),
            Some(_) => Some(None),
            None => None,
        };
        let table = match &change.table {
            Some(t) => Some(check_table(t.as_deref())?),
            None => None,
        };
        Ok(Self { when, table })
    }
}

/// Moves started match `m` to `table` (a started match may still change tables), with one
/// audit row.
async fn change_table(
    conn: &mut Conn,
    user: &User,
    m: &MatchRow,
    table: Option<String>,
    now: Now,
) -> Result<(), ServiceError> {
    // A match in play moves only to a table no other match holds.
    let moved = MatchRow {
        table_name: table.clone(),
        ..m.clone()
    };
    check_place(conn, &moved, now.today).await?;
    if !db_matches::set_table(conn, m.id, m.version, table.as_deref()).await? {
        return Err(ServiceError::conflict(
            ErrorCode::VersionConflict,
            "the match changed meanwhile: reload it",
        ));
    }
    let before = m.table_name.clone().unwrap_or_else(|| "no table".into());
    let after = table.unwrap_or_else(|| "no table".into());
    audit::record(
        conn,
        user,
        now.at,
        audit::Change::new("change_table", audit::Subject::Match(m.id))
            .before(&before)
            .after(&after),
    )
    .await?;
    Ok(())
}

/// The teams of unstarted match `m` after `change`: only a regular-season match changes
/// teams, two different ones of its league.
async fn new_teams(
    conn: &mut Conn,
    m: &MatchRow,
    change: &MatchChange,
) -> Result<(TeamId, TeamId), ServiceError> {
    let reteam = change.team_a.is_some() || change.team_b.is_some();
    if reteam && m.stage != Stage::Regular {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidMatch,
            if change.team_a.is_some() {
                "team_a"
            } else {
                "team_b"
            },
            "a playoff match's teams come from its bracket",
        ));
    }
    let team_a = change.team_a.unwrap_or(m.team_a);
    let team_b = change.team_b.unwrap_or(m.team_b);
    if team_a == team_b {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidMatch,
            "team_b",
            "a team cannot play itself",
        ));
    }
    if let Some(a) = change.team_a {
        check_team(conn, m.league_id, "team_a", a).await?;
    }
    if let Some(b) = change.team_b {
        check_team(conn, m.league_id, "team_b", b).await?;
    }
    Ok((team_a, team_b))
}

/// Postpones a match that has not started: it loses its time until it gets a new one.
#[tracing::instrument(skip_all, fields(user_id = %user.id, match_id = %id))]
pub async fn postpone(
    db: &Db,
    user: &User,
    id: MatchId,
    call_off: &CallOff,
) -> Result<MatchView, ServiceError> {
    call_off_match(db, user, id, call_off, MatchStatus::Postponed).await
}

/// Cancels a match that has not started: it counts for nobody and stays listed as
/// cancelled. A playoff match is decided by a forfeit instead (its winner goes on).
#[tracing::instrument(skip_all, fields(user_id = %user.id, match_id = %id))]
pub async fn cancel(
    db: &Db,
    user: &User,
    id: MatchId,
    call_off: &CallOff,
) -> Result<MatchView, ServiceError> {
    call_off_match(db, user, id, call_off, MatchStatus::Cancelled).await
}

async fn call_off_match(
    db: &Db,
    user: &User,
    id: MatchId,
    call_off: &CallOff,
    to: MatchStatus,
) -> Result<MatchView, ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    let reason = reason_rule()
        .check_optional(Some(&call_off.reason))?
        .ok_or_else(|| {
            ServiceError::invalid(
                ErrorCode::InvalidInput,
                "reason",
                "say why (the teams see it with the match)",
            )
        })?;
    let mut tx = db.write().await?;
    let m = changeable(&mut tx, id, call_off.expected_version).await?;
    let verb = if to == MatchStatus::Postponed {
        "postponed"
    } else {
        "cancelled"
    };
    if !m.status.is_unstarted() {
        return Err(started(&m, &format!("{verb} can be")));
    }
    if m.status == to {
        return Err(ServiceError::conflict(
            ErrorCode::NotScheduled,
            format!("the match is already {verb}"),
        ));
    }
    if to == MatchStatus::Cancelled && m.stage != Stage::Regular {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidMatch,
            "reason",
            "a playoff match cannot be cancelled: its winner goes on in the bracket; record a forfeit instead",
        ));
    }
    let after = Placement {
        // A cancelled match keeps its time, so a calendar shows it as cancelled there.
        scheduled_at: if to == MatchStatus::Postponed {
            None
        } else {
            m.scheduled_at
        },
        status: to,
        status_note: Some(&reason),
        ..placement(&m)
    };
    let action = if to == MatchStatus::Postponed {
        "postpone"
    } else {
        "cancel"
    };
    replace(&mut tx, user, &m, action, &after, Some(&reason), now).await?;
    if let Some(public_url) = db.notices() {
        notices::tell_match_changed(&mut tx, public_url, now, &m, &after, Some(&reason)).await?;
    }
    refill(&mut tx, m.league_id, Now::of(db)).await?;
    tx.commit().await?;
    Ok(views_after_write(db, &[id]).await?.remove(0))
}

fn parse_date(s: &str, field: &str) -> Result<NaiveDate, ServiceError> {
    parse_day(s).map_err(|e| {
        ServiceError::invalid(
            ErrorCode::InvalidSchedule,
            field,
            e.message("a date is YYYY-MM-DD, e.g. 2026-11-24"),
        )
    })
}

/// The matches of league `slug` that a move of night `from` would move: those scheduled on
/// that local date that have not started, in time order.
pub async fn night(
    conn: &mut Conn,
    slug: &Slug,
    from: NaiveDate,
) -> Result<Vec<MatchRow>, ServiceError> {
    let league = league_row(conn, slug).await?;
    Ok(db_matches::on_night(conn, league.id, from)
        .await?
        .into_iter()
        .filter(|m| m.status == MatchStatus::Scheduled)
        .collect())
}

/// The two dates of a night move, checked.
pub fn night_dates(input: &NightMove) -> Result<(NaiveDate, NaiveDate), ServiceError> {
    let from = parse_date(&input.from, "from")?;
    let to = parse_date(&input.to, "to")?;
    if from == to {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidSchedule,
            "to",
            "the new date is the same as the night's date",
        ));
    }
    Ok((from, to))
}

/// Moves every match of a league night that has not started to another date, each at its
/// time of day (a rained-out night). A night with nothing left to move moves nothing (so a
/// repeated request is harmless).
#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug))]
pub async fn move_night(
    db: &Db,
    user: &User,
    slug: &Slug,
    input: &NightMove,
) -> Result<NightMoved, ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    let (from, to) = night_dates(input)?;
    let reason = reason_rule().check_optional(input.reason.as_deref())?;
    let mut tx = db.write().await?;
    let league = league_row(&mut tx, slug).await?;
    let moving = night(&mut tx, slug, from).await?;
    if moving.is_empty() {
        return Ok(NightMoved {
            moved: 0,
            matches: Vec::new(),
        });
    }
    let mut ids = Vec::with_capacity(moving.len());
    let mut moved = Vec::with_capacity(moving.len());
    for m in &moving {
        let time = m.scheduled_at.map(|t| t.0.time()).unwrap_or_default();
        let at = LocalTime(NaiveDateTime::new(to, time));
        let after = Placement {
            scheduled_at: Some(at),
            ..placement(m)
        };
        if !db_matches::place(&mut tx, m.id, m.version, &after).await? {
            return Err(ServiceError::conflict(
                ErrorCode::VersionConflict,
                "a match of that night changed meanwhile: try again",
            ));
        }
        ids.push(m.id);
        moved.push((m, at));
    }
    if let Some(public_url) = db.notices() {
        let night = notices::NightMoveNotice {
            league: &league,
            from,
            to,
            moved: &moved,
            reason: reason.as_deref(),
        };
        notices::tell_night_moved(&mut tx, public_url, now, &night).await?;
    }
    let before = from.to_string();
    let after = format!("{to} ({} matches)", ids.len());
    let change = audit::Change::new("move_night", audit::Subject::League(league.id))
        .before(&before)
        .after(&after);
    let change = match reason.as_deref() {
        Some(reason) => change.reason(reason),
        None => change,
    };
    audit::record(&mut tx, user, now, change).await?;
    refill(&mut tx, league.id, Now::of(db)).await?;
    tx.commit().await?;
    Ok(NightMoved {
        moved: ids.len(),
        matches: views_after_write(db, &ids).await?,
    })
}

/// One match of a playoff round to place (`POST /api/v1/leagues/{slug}/bracket/schedule`):
/// its time and table, as `PATCH /api/v1/matches/{id}` takes them; an absent field is kept.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RoundItem {
    /// The real match (`/api/v1/matches/{id}`): a match of the league's bracket.
    #[schema(value_type = i64)]
    pub id: MatchId,
    /// `YYYY-MM-DDTHH:MM`, the league's time zone; `null` or empty for no time yet.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub scheduled_at: Option<Option<String>>,
    /// The table; `null` or empty for none. The only change allowed once the match started.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub table: Option<Option<String>>,
}

/// A playoff round (or any matches of the bracket) placed at once, all or nothing.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RoundSchedule {
    pub matches: Vec<RoundItem>,
}

/// Error `e` of item `i` of `matches`, its field named within the item (`matches[2].table`).
fn at_item(i: usize, e: ServiceError) -> ServiceError {
    match e {
        ServiceError::Invalid(mut fe) => {
            let inner = fe.field.as_ref().map(|f| f.as_str().to_string());
            let path = match inner {
                Some(f) => format!("matches[{i}].{f}"),
                None => format!("matches[{i}]"),
            };
            fe.field = Some(crate::rules::Field::path(path));
            fe.message = format!("match {} of the list: {}", i + 1, fe.message);
            ServiceError::Invalid(fe)
        }
        other => other,
    }
}

/// An item's refusal about the match itself (`matches[i].id`).
fn item_refused(i: usize, message: String) -> ServiceError {
    at_item(
        i,
        ServiceError::invalid(ErrorCode::InvalidMatch, "id", message),
    )
}

/// Places several matches of league `slug`'s bracket at once (docs/api.md §18.5): every
/// item is checked as `PATCH /api/v1/matches/{id}` checks it, in one transaction; any bad
/// item refuses the whole request (422 naming it) and nothing is written. Each change is
/// audited as the single edit is. Answers the matches as they are now, in the order given.
#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug))]
pub async fn schedule_round(
    db: &Db,
    user: &User,
    slug: &Slug,
    input: &RoundSchedule,
) -> Result<Vec<MatchView>, ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    if input.matches.is_empty() {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidRequest,
            "matches",
            "no match to schedule: send at least one",
        ));
    }
    let mut tx = db.write().await?;
    let league = league_row(&mut tx, slug).await?;
    let bracket = crate::service::playoffs::labels_of_league(&mut tx, league.id).await?;
    let mut ids: Vec<MatchId> = Vec::with_capacity(input.matches.len());
    for (i, item) in input.matches.iter().enumerate() {
        let change = MatchChange {
            scheduled_at: item.scheduled_at.clone(),
            table: item.table.clone(),
            team_a: None,
            team_b: None,
            supervisor: None,
            expected_version: 0,
        };
        let ChangeFields { when, table } = ChangeFields::of(&change).map_err(|e| at_item(i, e))?;
        if ids.contains(&item.id) {
            return Err(item_refused(
                i,
                format!("match {} is in the list twice", item.id),
            ));
        }
        ids.push(item.id);
        let m = db_matches::by_id(&mut tx, item.id)
            .await?
            .filter(|m| m.league_id == league.id && bracket.contains_key(&m.id))
            .ok_or_else(|| {
                item_refused(
                    i,
                    format!("match {} is not a match of this league's bracket", item.id),
                )
            })?;
        place_item(&mut tx, user, i, &m, when, table, Now::of(db)).await?;
        if let Some(public_url) = db.notices() {
            let placed = db_matches::by_id(&mut tx, m.id)
                .await?
                .ok_or(ServiceError::NotFound)?;
            let (m, after) = (&m, &placement(&placed));
            notices::tell_match_changed(&mut tx, public_url, now, m, after, None).await?;
        }
    }
    refill(&mut tx, league.id, Now::of(db)).await?;
    tx.commit().await?;
    views_after_write(db, &ids).await
}

/// Item `i`'s new time and table written over bracket match `m`, as a single change would
/// write them: a started match only changes its table; a cancelled one nothing.
async fn place_item(
    conn: &mut Conn,
    user: &User,
    i: usize,
    m: &MatchRow,
    when: Option<Option<LocalTime>>,
    table: Option<Option<String>>,
    now: Now,
) -> Result<(), ServiceError> {
    if m.status == MatchStatus::Cancelled {
        return Err(item_refused(i, format!("match {} is cancelled", m.id)));
    }
    if !m.status.is_unstarted() {
        if when.is_some_and(|w| w != m.scheduled_at) {
            return Err(at_item(
                i,
                ServiceError::invalid(
                    ErrorCode::InvalidMatch,
                    "scheduled_at",
                    format!(
                        "match {} has started ({}): its time no longer changes",
                        m.id,
                        m.status.words()
                    ),
                ),
            ));
        }
        return match table {
            Some(t) if t != m.table_name => change_table(conn, user, m, t, now).await,
            _ => Ok(()),
        };
    }
    let scheduled_at = when.unwrap_or(m.scheduled_at);
    let table_name = match &table {
        Some(t) => t.as_deref(),
        None => m.table_name.as_deref(),
    };
    if scheduled_at == m.scheduled_at && table_name == m.table_name.as_deref() {
        return Ok(());
    }
    let (status, note) = match (m.status, scheduled_at) {
        (MatchStatus::Postponed, None) => (MatchStatus::Postponed, m.status_note.as_deref()),
        _ => (MatchStatus::Scheduled, None),
    };
    let after = Placement {
        scheduled_at,
        table_name,
        team_a: m.team_a,
        team_b: m.team_b,
        status,
        status_note: note,
    };
    replace(conn, user, m, "change_match", &after, None, now.at).await
}
