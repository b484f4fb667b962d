//! A whole league as one JSON document (docs/api.md §18.4): exported by an admin, imported
//! as a new league with new ids, every reference remapped, in one transaction.
//!
//! The document holds the league's row and, under one key per table, every row of its data
//! ([`db::league_doc::TABLES`]), each as the store keeps it (JSON columns as their stored
//! text, so a match's frozen rules and its hands come back byte for byte and score the same).
//! Users are named by username, never by id; an import maps each to the user of that name
//! here, and says in its warnings what it did where there is none.

mod columns;
pub mod gate;
mod plan;

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::db::league_doc::{self as db_doc, LEAGUE, Ref, TABLES, Table};
use crate::db::{Conn, Db, leagues as db_leagues};
use crate::domain::{ErrorCode, LeagueId, Slug};
use crate::service::term::leagues::{League, LeagueView};
use crate::service::{ServiceError, User, audit, require_admin};
use plan::{Making, Plan};

/// The document's `format`.
pub const FORMAT: &str = "spades-im league";
/// The document's `version`: raised when a document of it would no longer import the same.
pub const VERSION: i64 = 1;

/// The league `slug` as one document (admin only: it holds the roster's student ids and
/// emails).
pub async fn export(db: &Db, user: &User, slug: &Slug) -> Result<Value, ServiceError> {
    require_admin(user)?;
    let mut snap = db.snapshot().await?;
    let league = db_leagues::by_slug(&mut snap, slug)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let usernames = db_doc::usernames(&mut snap).await?;
    let mut referenced = BTreeSet::new();
    let mut doc = Map::new();
    doc.insert("format".into(), FORMAT.into());
    doc.insert("version".into(), VERSION.into());
    doc.insert("exported_at".into(), db.clock().now().to_string().into());
    doc.insert("time_zone".into(), db.clock().zone().to_string().into());
    stored_rows(&mut snap, league.id, &mut doc).await?;
    for table in TABLES {
        if let Some(Value::Array(rows)) = doc.get_mut(table.name) {
            for row in rows.iter_mut().filter_map(Value::as_object_mut) {
                name_users(table, row, &usernames, &mut referenced);
            }
        }
    }
    doc.insert(
        "users".into(),
        Value::Array(referenced.into_iter().map(Value::String).collect()),
    );
    Ok(Value::Object(doc))
}

/// The league `id`'s row (`league`) and the rows of each of its tables (by the table's
/// name) into `doc`, as stored: users by id.
async fn stored_rows(
    conn: &mut Conn,
    id: LeagueId,
    doc: &mut Map<String, Value>,
) -> Result<(), ServiceError> {
    let mut row = db_doc::rows(conn, &LEAGUE, id).await?;
    doc.insert(
        "league".into(),
        row.pop().map(Value::Object).unwrap_or_default(),
    );
    for table in TABLES {
        let rows = db_doc::rows(conn, table, id).await?;
        doc.insert(
            table.name.into(),
            Value::Array(rows.into_iter().map(Value::Object).collect()),
        );
    }
    Ok(())
}

/// A stored row that does not pass the [`gate`]: its league (id and slug) and the fault.
#[derive(Debug, Clone)]
pub struct BadRow {
    pub league: LeagueId,
    pub slug: String,
    pub fault: gate::Fault,
}

impl std::fmt::Display for BadRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let gate::Fault {
            pointer,
            table,
            id,
            message,
            ..
        } = &self.fault;
        write!(f, "league {} ({}): {table}", self.league, self.slug)?;
        if let Some(id) = id {
            write!(f, " {id}")?;
        }
        write!(f, ": {pointer}: {message}")
    }
}

/// Every stored league's rows through the gate an import passes (admins' command line:
/// `check`): each row that would be refused today, every league read. A cached total that
/// differs from its hands is left to `check`'s own comparison, which names it as such.
pub async fn bad_rows(db: &Db) -> Result<Vec<BadRow>, ServiceError> {
    let mut snap = db.snapshot().await?;
    let now = db.clock().now();
    let mut out = Vec::new();
    for (league, slug) in db_doc::league_slugs(&mut snap).await? {
        let mut doc = Map::new();
        stored_rows(&mut snap, league, &mut doc).await?;
        for fault in gate::check(&mut doc, now).into_iter().filter(|f| !f.cached) {
            out.push(BadRow {
                league,
                slug: slug.clone(),
                fault,
            });
        }
    }
    Ok(out)
}

/// Each column of `row` that points at a user names them by username instead of id.
fn name_users(
    table: &Table,
    row: &mut Map<String, Value>,
    usernames: &HashMap<i64, String>,
    referenced: &mut BTreeSet<String>,
) {
    for (column, value) in row.iter_mut() {
        if let Some(Ref::User(_)) = table.reference(column) {
            let name = value.as_i64().and_then(|id| usernames.get(&id));
            if let Some(name) = name {
                referenced.insert(name.clone());
            }
            *value = name.cloned().map(Value::String).unwrap_or(Value::Null);
        }
    }
}

/// What `POST /api/v1/leagues/import` takes.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportInput {
    /// The new league's slug.
    pub slug: String,
    /// The new league's name; default: the document's.
    #[serde(default)]
    pub name: Option<String>,
    /// The document `GET /api/v1/leagues/{slug}/export` gave.
    #[schema(value_type = Object)]
    pub document: Value,
}

/// The imported league, and what the import could not keep.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Imported {
    #[serde(flatten)]
    pub league: LeagueView,
    /// One line per user the document names who is no user here, saying what became of
    /// their rows.
    pub warnings: Vec<String>,
}

/// An error at `pointer`, a JSON pointer into the document (`/matches/3/team_a`).
pub(super) fn refused(pointer: &str, message: impl Into<String>) -> ServiceError {
    ServiceError::invalid(ErrorCode::InvalidDocument, pointer, message)
}

/// Imports `input.document` as a new league `input.slug`, in one transaction. The document
/// passes the [`gate`] and is made into rows ([`Plan`]) before the write lock is taken; the
/// first fault is the answer, and nothing is written.
pub async fn import(db: &Db, user: &User, input: &ImportInput) -> Result<Imported, ServiceError> {
    require_admin(user)?;
    let slug = crate::service::term::leagues::check_slug(Some(&input.slug), "")?;
    let name = match &input.name {
        Some(name) => Some(
            crate::service::term::leagues::name_rule("name", "the league's name").check(name)?,
        ),
        None => None,
    };
    let mut doc = input
        .document
        .as_object()
        .cloned()
        .ok_or_else(|| refused("", "the document is not a JSON object"))?;
    check_format(&doc)?;
    let now = db.clock().now();
    if let Some(fault) = gate::check(&mut doc, now).into_iter().next() {
        return Err(refused(&fault.pointer, fault.message));
    }
    let plan = {
        let mut snap = db.snapshot().await?;
        let making = Making {
            conn: &mut snap,
            importer: user,
            slug: &slug,
            name: name.as_deref(),
            now,
        };
        Plan::make(making, &doc).await?
    };
    let locked = std::time::Instant::now();
    let mut tx = db.write().await?;
    if db_leagues::by_slug(&mut tx, &slug).await?.is_some() {
        return Err(ServiceError::conflict(
            ErrorCode::SlugTaken,
            format!("a league with the slug \"{slug}\" exists"),
        ));
    }
    let league_id = plan.write(&mut tx).await.map_err(unfit)?;
    if plan.archived {
        db_leagues::set_archived(&mut tx, league_id, true).await?;
    }
    let from = doc
        .get("league")
        .and_then(|l| l.get("slug"))
        .cloned()
        .unwrap_or_default();
    let after = serde_json::json!({"imported_from": from, "slug": slug}).to_string();
    audit::record(
        &mut tx,
        user,
        now,
        audit::Change::new("import", audit::Subject::League(league_id)).after(&after),
    )
    .await?;
    let row = db_leagues::by_id(&mut tx, league_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let league = League::from_row(row)?;
    crate::service::playoffs::check_imported(&mut tx, league_id)
        .await?
        .map_or(Ok(()), |problem| Err(refused("/brackets/0", problem)))?;
    tx.commit().await?;
    tracing::info!(%slug, rows = plan.rows(), ms = locked.elapsed().as_millis(), "imported a league");
    Ok(Imported {
        league: league.view(),
        warnings: plan.warnings.into_iter().collect(),
    })
}

/// A row the store refuses although the gate let it through (a column missing that has no
/// default): the document's fault, said without the store's words (logged).
fn unfit(e: ServiceError) -> ServiceError {
    match e {
        ServiceError::Db(sqlx::Error::Database(db)) => {
            tracing::warn!(error = %db.message(), "an imported league's row did not fit the store");
            refused(
                "",
                "a row of the document does not fit: a column the store needs is missing",
            )
        }
        other => other,
    }
}

fn check_format(doc: &Map<String, Value>) -> Result<(), ServiceError> {
    if doc.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(refused(
            "/format",
            format!("this is no league document: its \"format\" is not \"{FORMAT}\""),
        ));
    }
    match doc.get("version").and_then(Value::as_i64) {
        Some(VERSION) => Ok(()),
        _ => Err(refused(
            "/version",
            format!("this service reads league documents of version {VERSION} only"),
        )),
    }
}
