//! The queue of a tournament night (docs/api.md §21.1) as people see and change it:
//! [`queue`] is the public read (each table free, called or playing, "no show?", the
//! waiting matches in calling order); [`call`] a call (or a put-back) by hand;
//! [`set_tables`] the room's tables. The calls the queue makes by itself are
//! [`super::calls`]'.

use serde::{Deserialize, Serialize};

use crate::db::queue as db_queue;
use crate::db::{Db, leagues as db_leagues};
use crate::domain::{ErrorCode, MatchId, MatchStatus, Slug, Timestamp};
use crate::league::queue::{self as rules, AtTable};
use crate::league::settings::check_tables;
use crate::service::audit;
use crate::service::night::access::{league_of, may_supervise, writable};
use crate::service::night::calls::{Day, Now, day_of, fill, refusal, settings_changed};
use crate::service::night::match_view::{MatchView, reload};
use crate::service::term::leagues::{League, league_row};
use crate::service::{ServiceError, User, require_admin};

/// A table's state in the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TableStatus {
    Free,
    Called,
    Playing,
}

/// A table of the queue.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct QueueTable {
    /// As the coordinator named it ("3"); pages show it as "Table 3".
    pub name: String,
    /// The match called to it or played at it.
    #[serde(rename = "match")]
    pub match_id: Option<MatchId>,
    /// Its teams' names (team a, team b), for a board to show.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub teams: Option<[String; 2]>,
    pub status: TableStatus,
    /// When the match was called (a called table).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub called_at: Option<Timestamp>,
    /// Called more than `settings.queue.call_minutes` ago and not started: "no show?"
    /// (the supervisor decides; nothing is forfeited by itself).
    pub no_show: bool,
}

/// The queue as it is (`GET …/queue`).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct QueueView {
    pub tables: Vec<QueueTable>,
    /// The matches waiting for a table, in calling order: regular rounds in order, then the
    /// bracket in its order.
    pub waiting: Vec<MatchId>,
    /// Whether the queue calls matches by itself (`settings.queue.auto`).
    pub auto: bool,
}

/// The room's tables (`PUT …/tables`, and its answer).
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TablesInput {
    /// In calling order: each one line, at most 40 characters, no two alike; at most 100.
    #[schema(max_items = 100)]
    pub tables: Vec<String>,
}

/// A call by hand (`POST /matches/{id}/call`).
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CallInput {
    /// One of the league's tables; `null` puts the match back in the queue.
    pub table: Option<String>,
}

/// The league's queue as it is now (public).
pub async fn queue(db: &Db, slug: &Slug) -> Result<QueueView, ServiceError> {
    let mut conn = db.read().await?;
    let league = League::from_row(league_row(&mut conn, slug).await?)?;
    let now = Now::of(db);
    let day = day_of(&mut conn, league.row.id, now.today).await?;
    Ok(view_of(&league, &day, now.at))
}

pub(in crate::service) fn view_of(league: &League, day: &Day, now: Timestamp) -> QueueView {
    let q = rules::queue(&league.settings.tables, &day.entries);
    let minutes = i64::from(league.settings.queue.call_minutes);
    let tables = q
        .tables
        .into_iter()
        .map(|t| {
            let (match_id, status, called_at) = match t.at {
                AtTable::Free => (None, TableStatus::Free, None),
                AtTable::Called { id, since } => (Some(id), TableStatus::Called, Some(since)),
                AtTable::Playing { id } => (Some(id), TableStatus::Playing, None),
            };
            QueueTable {
                name: t.name,
                teams: match_id.and_then(|id| day.names.get(&id).cloned()),
                match_id,
                status,
                no_show: called_at.is_some_and(|since| since.plus_minutes(minutes).0 <= now.0),
                called_at,
            }
        })
        .collect();
    QueueView {
        tables,
        waiting: q.waiting,
        auto: league.settings.queue.auto,
    }
}

/// Calls ready matches to the free tables now (an admin, or a supervisor of the league;
/// 404 for anyone else): what the queue does by itself after each result, for the start of
/// a night. Calls only when the queue calls by itself. Returns the queue after the calls.
pub async fn fill_now(db: &Db, user: &User, slug: &Slug) -> Result<QueueView, ServiceError> {
    let now = Now::of(db);
    let mut tx = db.write().await?;
    let league = League::from_row(league_row(&mut tx, slug).await?)?;
    if !may_supervise(&mut tx, user, league.row.id).await? {
        return Err(ServiceError::NotFound);
    }
    if league.row.archived {
        return Err(ServiceError::league_archived());
    }
    fill(&mut tx, &league.row, &league.settings, now, None).await?;
    let day = day_of(&mut tx, league.row.id, now.today).await?;
    tx.commit().await?;
    Ok(view_of(&league, &day, now.at))
}

/// Sets the room's tables (admin); with the queue calling by itself, ready matches are
/// called to the new free tables at once.
pub async fn set_tables(
    db: &Db,
    user: &User,
    slug: &Slug,
    input: &TablesInput,
) -> Result<TablesInput, ServiceError> {
    require_admin(user)?;
    let tables = check_tables(&input.tables, "tables")
        .map_err(|e| ServiceError::invalid(ErrorCode::InvalidSettings, &e.field, e.message))?;
    let now = Now::of(db);
    let mut tx = db.write().await?;
    let mut league = League::from_row(league_row(&mut tx, slug).await?)?;
    if league.row.archived {
        return Err(ServiceError::league_archived());
    }
    let before = league.settings.tables.join(", ");
    league.settings.tables = tables.clone();
    let json = serde_json::to_string(&league.settings)
        .map_err(|e| ServiceError::corrupt("settings", e.to_string()))?;
    db_leagues::set_settings(&mut tx, league.row.id, &json).await?;
    let after = tables.join(", ");
    let change = audit::Change::new("set_tables", audit::Subject::League(league.row.id))
        .before(&before)
        .after(&after);
    audit::record(&mut tx, user, now.at, change).await?;
    settings_changed(&mut tx, league.row.id, now).await?;
    tx.commit().await?;
    Ok(TablesInput { tables })
}

/// Calls match `id` to a table by hand (an admin, or a supervisor of its league), or puts
/// it back in the queue (`table: null`). The table must be one of the league's and free,
/// the teams at no other table, the match not started. A put-back match waits for the next
/// table; the one it left gets the next waiting match when the queue calls by itself.
pub async fn call(
    db: &Db,
    user: &User,
    id: MatchId,
    input: &CallInput,
) -> Result<MatchView, ServiceError> {
    let now = Now::of(db);
    let mut tx = db.write().await?;
    let m = writable(&mut tx, user, id).await?;
    let league = league_of(&mut tx, &m).await?;
    if league.row.archived {
        return Err(ServiceError::league_archived());
    }
    if m.status != MatchStatus::Scheduled || m.started_at.is_some() {
        return Err(not_callable(m.status));
    }
    let day = day_of(&mut tx, league.row.id, now.today).await?;
    if !day.entries.iter().any(|e| e.id == id) {
        return Err(ServiceError::conflict(
            ErrorCode::NotScheduled,
            "the match is not on today's schedule: only the day's matches (and those without a time) are called to the tables",
        ));
    }
    let (action, after) = match input.table.as_deref() {
        None => {
            if !db_queue::put_back(&mut tx, id).await? {
                return reload(&mut tx, id, &league).await;
            }
            fill(&mut tx, &league.row, &league.settings, now, Some(id)).await?;
            ("put_back", String::new())
        }
        Some(asked) => {
            let table = the_table(&league, asked)?;
            if m.called_at.is_some() && m.table_name.as_deref() == Some(table.as_str()) {
                return reload(&mut tx, id, &league).await;
            }
            let teams = [m.team_a, m.team_b];
            if let Some(taken) = rules::taken(&day.entries, id, teams, Some(&table)) {
                return Err(refusal(taken, &table));
            }
            db_queue::call(&mut tx, id, &table, now.at).await?;
            // A call moved from another table frees that one.
            fill(&mut tx, &league.row, &league.settings, now, None).await?;
            ("call_match", table)
        }
    };
    let change = audit::Change::new(action, audit::Subject::Match(id)).after(&after);
    audit::record(&mut tx, user, now.at, change).await?;
    let view = reload(&mut tx, id, &league).await?;
    tx.commit().await?;
    Ok(view)
}

fn not_callable(status: MatchStatus) -> ServiceError {
    match status {
        MatchStatus::InProgress => ServiceError::conflict(
            ErrorCode::MatchStarted,
            "the match has started: it stays at its table",
        ),
        s if s.is_over() => ServiceError::conflict(
            ErrorCode::MatchClosed,
            format!("the match is already {}", s.words()),
        ),
        s => ServiceError::conflict(
            ErrorCode::NotScheduled,
            format!("the match is {}: give it a time first", s.words()),
        ),
    }
}

/// The league's table `asked` names ("3" or "Table 3"), or a 422 naming its tables.
fn the_table(league: &League, asked: &str) -> Result<String, ServiceError> {
    let tables = &league.settings.tables;
    if let Some(t) = tables
        .iter()
        .find(|t| crate::domain::table_name::same(t, asked))
    {
        return Ok(t.clone());
    }
    let message = if tables.is_empty() {
        format!(
            "the league has no tables yet: set them first (PUT /api/v1/leagues/{}/tables)",
            league.row.slug
        )
    } else {
        format!(
            "the league has no table \"{}\": its tables are {}",
            asked.trim(),
            tables.join(", ")
        )
    };
    Err(ServiceError::invalid(
        ErrorCode::InvalidInput,
        "table",
        message,
    ))
}

/// A league's queue on the supervisor's list.
#[derive(Debug, Clone)]
pub struct LeagueQueue {
    pub name: String,
    pub slug: String,
    pub view: QueueView,
    /// The waiting matches' teams, in calling order.
    pub waiting: Vec<(MatchId, [String; 2])>,
}

/// The queues of the leagues `user` runs (every league's for an admin) that have tables,
/// archived leagues aside.
pub async fn queues_for(db: &Db, user: &User) -> Result<Vec<LeagueQueue>, ServiceError> {
    let leagues = crate::service::term::leagues::all_leagues(db).await?;
    let mut conn = db.read().await?;
    let now = Now::of(db);
    let mut out = Vec::new();
    for league in leagues {
        if league.row.archived || league.settings.tables.is_empty() {
            continue;
        }
        if !may_supervise(&mut conn, user, league.row.id).await? {
            continue;
        }
        let day = day_of(&mut conn, league.row.id, now.today).await?;
        let view = view_of(&league, &day, now.at);
        let waiting = view
            .waiting
            .iter()
            .filter_map(|id| day.names.get(id).map(|n| (*id, n.clone())))
            .collect();
        out.push(LeagueQueue {
            name: league.row.name.clone(),
            slug: league.row.slug.to_string(),
            view,
            waiting,
        });
    }
    Ok(out)
}

/// A match of a league with tables, not started, as its console shows the queue.
#[derive(Debug, Clone)]
pub struct MatchQueue {
    /// Its call: the table, when, and whether it is "no show?".
    pub called: Option<(String, Timestamp, bool)>,
    /// The league's tables, each with whether it is free for the match.
    pub tables: Vec<(String, bool)>,
    /// The queue calls matches by itself.
    pub auto: bool,
}

/// The queue as match `id` of `league` sees it, if the league has tables and the match is
/// of the day and not started.
pub async fn for_match(
    db: &Db,
    league: &League,
    id: MatchId,
    status: MatchStatus,
) -> Result<Option<MatchQueue>, ServiceError> {
    if league.settings.tables.is_empty() || status != MatchStatus::Scheduled {
        return Ok(None);
    }
    let mut conn = db.read().await?;
    let now = Now::of(db);
    let day = day_of(&mut conn, league.row.id, now.today).await?;
    if !day.entries.iter().any(|e| e.id == id) {
        return Ok(None);
    }
    let view = view_of(league, &day, now.at);
    let called = view
        .tables
        .iter()
        .find(|t| t.match_id == Some(id) && t.status == TableStatus::Called)
        .and_then(|t| Some((t.name.clone(), t.called_at?, t.no_show)));
    let tables = view
        .tables
        .iter()
        .map(|t| (t.name.clone(), t.status == TableStatus::Free))
        .collect();
    Ok(Some(MatchQueue {
        called,
        tables,
        auto: league.settings.queue.auto,
    }))
}
