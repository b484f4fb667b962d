//! The audit log: every write records who did what to which row, in the transaction of the
//! change, with the value before and after where there is one and the reason given.

use crate::db::Conn;

use crate::db::audit::{self as db_audit, AuditEntry};
use crate::domain::{BracketId, LeagueId, MatchId, PlayerId, TeamId, Timestamp, TokenId, UserId};
use crate::service::{ServiceError, User};

/// The row a change was made to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    League(LeagueId),
    Team(TeamId),
    Player(PlayerId),
    Match(MatchId),
    Bracket(BracketId),
    User(UserId),
    Token(TokenId),
}

impl Subject {
    /// The stored `entity` and `entity_id`.
    fn stored(self) -> (&'static str, i64) {
        match self {
            Subject::League(id) => ("league", id.0),
            Subject::Team(id) => ("team", id.0),
            Subject::Player(id) => ("player", id.0),
            Subject::Match(id) => ("match", id.0),
            Subject::Bracket(id) => ("bracket", id.0),
            Subject::User(id) => ("user", id.0),
            Subject::Token(id) => ("api_token", id.0),
        }
    }
}

/// One change: what was done to which row, and optionally the value before and after and
/// why.
#[derive(Debug, Clone, Copy)]
pub struct Change<'a> {
    pub action: &'a str,
    pub subject: Subject,
    pub before: Option<&'a str>,
    pub after: Option<&'a str>,
    pub reason: Option<&'a str>,
}

impl<'a> Change<'a> {
    pub fn new(action: &'a str, subject: Subject) -> Change<'a> {
        Change {
            action,
            subject,
            before: None,
            after: None,
            reason: None,
        }
    }

    pub fn before(self, before: &'a str) -> Change<'a> {
        Change {
            before: Some(before),
            ..self
        }
    }

    pub fn after(self, after: &'a str) -> Change<'a> {
        Change {
            after: Some(after),
            ..self
        }
    }

    pub fn reason(self, reason: &'a str) -> Change<'a> {
        Change {
            reason: Some(reason),
            ..self
        }
    }
}

/// Appends `change` by `user` at `now` to the audit log; call inside the transaction of the
/// change.
pub async fn record(
    conn: &mut Conn,
    user: &User,
    now: Timestamp,
    change: Change<'_>,
) -> Result<(), ServiceError> {
    record_by(conn, Some(user), now, change).await
}

/// As [`record`], for a change that may have no user behind it (the command line, the
/// first start).
pub async fn record_by(
    conn: &mut Conn,
    user: Option<&User>,
    now: Timestamp,
    change: Change<'_>,
) -> Result<(), ServiceError> {
    write(conn, user, None, now, change).await
}

/// As [`record`], for a change a captain made: `captain` names them by name and team
/// ([`crate::service::people::captains::in_audit`]), never by email.
pub async fn record_captain(
    conn: &mut Conn,
    captain: &str,
    now: Timestamp,
    change: Change<'_>,
) -> Result<(), ServiceError> {
    write(conn, None, Some(captain), now, change).await
}

async fn write(
    conn: &mut Conn,
    user: Option<&User>,
    captain: Option<&str>,
    now: Timestamp,
    change: Change<'_>,
) -> Result<(), ServiceError> {
    let (entity, entity_id) = change.subject.stored();
    db_audit::audit(
        conn,
        &AuditEntry {
            user_id: user.map(|u| u.id),
            captain,
            action: change.action,
            entity,
            entity_id: Some(entity_id),
            before: change.before,
            after: change.after,
            reason: change.reason,
            now,
        },
    )
    .await?;
    Ok(())
}

/// The filters of a read of the audit log (docs/api.md §18.3); `None` is no filter.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// A league's slug: changes to it and to its teams, players, matches and bracket.
    pub league: Option<String>,
    pub match_id: Option<MatchId>,
    /// A username, any case.
    pub user: Option<String>,
    pub action: Option<String>,
    /// An entry id: only entries older than it.
    pub before: Option<i64>,
    /// Entries per page, [`LIMITS`]; [`DEFAULT_LIMIT`] when `None`.
    pub limit: Option<i64>,
}

/// How many entries a page may ask for.
pub const LIMITS: std::ops::RangeInclusive<i64> = 1..=200;
pub const DEFAULT_LIMIT: i64 = 50;

/// One entry as read back.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct Entry {
    pub id: i64,
    pub at: Timestamp,
    /// Who made the change; `null` for the command line or the first start, or an account
    /// since removed.
    pub user: Option<String>,
    pub action: String,
    /// The league changed (or whose team, player, match or bracket was), by slug.
    pub league: Option<String>,
    /// The match changed.
    #[serde(rename = "match")]
    pub match_id: Option<i64>,
    pub reason: Option<String>,
    pub before: Option<String>,
    pub after: Option<String>,
    /// History that came with an imported league document, not an act of an account here
    /// (`user` is then null): `imported_by` and `imported_at` say who imported it and when.
    pub imported: bool,
    /// The admin who imported the entry's league (absent on entries made here).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imported_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imported_at: Option<Timestamp>,
    /// The username the document gave for who made the change: no account here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imported_user: Option<String>,
    /// The captain who made the change, by name and team ("Kim Lee, captain of Aces"; `user`
    /// is then null). Absent on other entries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub captain: Option<String>,
    /// The entry in one line of words, naming the league, team, player or match by name
    /// and label as they are now ("coord postponed M12 · Aces v Kings (Fall 2026)"), never
    /// by a bare id.
    pub summary: String,
}

/// What an action did, as a verb phrase before its object ("postponed" M12 · …); an
/// action not listed reads as its own words.
fn verb(action: &str) -> String {
    let known = match action {
        "create" => "created",
        "update" => "changed",
        "delete" => "deleted",
        "import" => "imported",
        "export" => "downloaded the whole of",
        "export_roster" => "downloaded the roster of",
        "clone" => "started a new term as",
        "archive" => "closed the season of",
        "unarchive" => "reopened the season of",
        "change_settings" => "changed the season settings of",
        "create_division" => "added a division to",
        "assign_supervisor" => "assigned a supervisor to",
        "unassign_supervisor" => "removed a supervisor from",
        "generate_schedule" => "generated the schedule of",
        "pair_swiss_round" => "paired the next Swiss round of",
        "move_night" => "moved a league night of",
        "cancel_unplayed" => "cancelled the matches still to play of",
        "create_playoffs" => "created the playoffs of",
        "reset_bracket_path" => "reset a bracket path of",
        "withdraw_team" => "withdrew",
        "check_in_team" => "checked in at the desk",
        "check_out_team" => "took back the check-in of",
        "drop_team" => "dropped (forfeit limit)",
        "override_eligibility" => "decided the playoff eligibility of",
        "change_match" => "changed the time, table or teams of",
        "postpone" => "postponed",
        "cancel" => "cancelled",
        "start" => "started",
        "record_hand" => "recorded a hand of",
        "correct_hand" => "corrected a hand of",
        "forfeit" => "recorded a forfeit in",
        "default" => "recorded a default (cannot play) in",
        "request_reschedule" => "asked to move",
        "approve_reschedule" => "approved moving",
        "decline_reschedule" => "declined moving",
        "dispute" => "disputed the result of",
        "resolve_dispute" => "resolved a dispute of",
        "call_time" => "called time in",
        "change_table" => "moved to another table",
        "give_supervisor" => "gave a supervisor to",
        "check_in" => "checked a team in for",
        "undo_check_in" => "undid a check-in for",
        "lineup" | "set_lineup" => "set a lineup for",
        "substitution" => "made a substitution in",
        "rate_sportsmanship" => "rated the sportsmanship in",
        "set_role" => "changed the role of",
        "set_active" => "activated or deactivated",
        "set_email" => "changed the email of",
        "reset_password" => "reset the password of",
        "change_password" => "changed the password of",
        "void_one_time_password" => "voided the one-time password of",
        "create_token" => "created",
        "revoke_token" => "revoked",
        other => return other.replace('_', " "),
    };
    known.to_string()
}

/// The `name` an entry kept of its row, before or after the change (a league, team or
/// player since deleted).
fn kept_name(row: &db_audit::AuditRow) -> Option<String> {
    [&row.before, &row.after].into_iter().find_map(|text| {
        let value: serde_json::Value = serde_json::from_str(text.as_deref()?).ok()?;
        value.get("name")?.as_str().map(str::to_string)
    })
}

/// What the entry changed, by name as it is now: a league, a team, a player, a match by
/// its number and teams, an account; a row since deleted by the name it had, or as such.
fn object(row: &db_audit::AuditRow) -> String {
    let gone = |what: &str| kept_name(row).unwrap_or_else(|| format!("a {what} since deleted"));
    match row.entity.as_str() {
        "league" => row.league_name.clone().unwrap_or_else(|| gone("league")),
        "team" => row.team_name.clone().unwrap_or_else(|| gone("team")),
        "player" => row.player_name.clone().unwrap_or_else(|| gone("player")),
        "match" => match (row.match_id, &row.match_team_a, &row.match_team_b) {
            (Some(id), Some(a), Some(b)) => format!("M{id} · {a} v {b}"),
            _ => "a match since deleted".to_string(),
        },
        "bracket" => "the playoff bracket".to_string(),
        "user" => row.account.as_ref().map_or_else(
            || "an account since removed".to_string(),
            |u| format!("the account {u}"),
        ),
        "api_token" => "an API token".to_string(),
        other => format!("a {other}"),
    }
}

/// The entry in one line: who, what, to which row, and in which league when the row is not
/// the league itself.
fn summary(row: &db_audit::AuditRow) -> String {
    let who = row
        .username
        .as_deref()
        .or(row.captain.as_deref())
        .or(row.imported_user.as_deref())
        .unwrap_or("the service");
    let mut line = format!("{who} {} {}", verb(&row.action), object(row));
    if row.entity != "league"
        && let Some(league) = &row.league_name
    {
        line.push_str(&format!(" ({league})"));
    }
    line
}

/// A page of entries, newest first; `next` is the `before` of the next page, `None` on the
/// last.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct Page {
    pub entries: Vec<Entry>,
    pub next: Option<i64>,
}

/// A filter holding a control character names nothing that is stored, and PostgreSQL
/// refuses a NUL in text outright (a 500 otherwise): a 422 on its field.
fn refuse_control_characters(field: &str, text: Option<&str>) -> Result<(), ServiceError> {
    if text.is_some_and(|t| t.chars().any(char::is_control)) {
        return Err(ServiceError::invalid(
            crate::rules::ErrorCode::InvalidRequest,
            field,
            format!("the {field} filter holds a control character"),
        ));
    }
    Ok(())
}

/// The entries `query` picks (admins only). An unknown league or user is a 422 on its field,
/// a limit outside [`LIMITS`] a 422 on `limit`, a filter with a control character a 422 on
/// its field.
pub async fn entries(db: &crate::db::Db, by: &User, query: &Query) -> Result<Page, ServiceError> {
    crate::service::require_admin(by)?;
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    if !LIMITS.contains(&limit) {
        return Err(ServiceError::invalid(
            crate::rules::ErrorCode::InvalidRequest,
            "limit",
            format!(
                "limit is {} to {} entries a page",
                LIMITS.start(),
                LIMITS.end()
            ),
        ));
    }
    for (field, text) in [
        ("league", &query.league),
        ("user", &query.user),
        ("action", &query.action),
    ] {
        refuse_control_characters(field, text.as_deref())?;
    }
    let mut conn = db.read().await?;
    let mut filter = db_audit::AuditFilter {
        match_id: query.match_id,
        action: query.action.clone(),
        before: query.before,
        // One more than asked: whether it comes says whether there is a next page.
        limit: limit + 1,
        ..Default::default()
    };
    if let Some(slug) = &query.league {
        filter.league_id = Some(league_id(&mut conn, slug).await?);
    }
    if let Some(username) = &query.user {
        let user = crate::db::users::by_name(&mut conn, username).await?;
        filter.user_id = Some(user.map(|u| u.id).ok_or_else(|| {
            ServiceError::invalid(
                crate::rules::ErrorCode::InvalidUser,
                "user",
                "no user with that username",
            )
        })?);
    }
    let mut rows = db_audit::entries(&mut conn, &filter).await?;
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    let next = if more {
        rows.last().map(|r| r.id)
    } else {
        None
    };
    Ok(Page {
        entries: rows.into_iter().map(Entry::from).collect(),
        next,
    })
}

/// The id of the league with `slug`, or a 422 on `league`.
pub(crate) async fn league_id(conn: &mut Conn, slug: &str) -> Result<LeagueId, ServiceError> {
    let unknown = || {
        ServiceError::invalid(
            crate::rules::ErrorCode::InvalidLeague,
            "league",
            "no league with that slug",
        )
    };
    let slug: crate::domain::Slug = slug.parse().map_err(|_| unknown())?;
    let league = crate::db::leagues::by_slug(conn, &slug).await?;
    Ok(league.ok_or_else(unknown)?.id)
}

impl From<db_audit::AuditRow> for Entry {
    fn from(row: db_audit::AuditRow) -> Entry {
        Entry {
            summary: summary(&row),
            id: row.id,
            at: row.at,
            user: row.username,
            action: row.action,
            league: row.league_slug,
            match_id: row.match_id,
            reason: row.reason,
            before: row.before,
            after: row.after,
            imported: row.imported_at.is_some(),
            imported_by: row.imported_by,
            imported_at: row.imported_at,
            imported_user: row.imported_user,
            captain: row.captain,
        }
    }
}

/// Every league as (slug, name), for the audit page's league filter (admins only).
pub async fn league_choices(
    db: &crate::db::Db,
    by: &User,
) -> Result<Vec<(String, String)>, ServiceError> {
    crate::service::require_admin(by)?;
    let mut conn = db.read().await?;
    Ok(crate::db::leagues::all(&mut conn)
        .await?
        .into_iter()
        .map(|l| (l.slug.to_string(), l.name))
        .collect())
}
