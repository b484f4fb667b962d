//! A whole league as one JSON document (docs/api.md §18.4): exported by an admin, imported
//! as a new league with new ids, every reference remapped, in one transaction.
//!
//! The document holds the league's row and, under one key per table, every row of its data
//! ([`db::league_doc::TABLES`]), each as the store keeps it (JSON columns as their stored
//! text, so a match's frozen rules and its hands come back byte for byte and score the same).
//! Users are named by username, never by id; an import maps each to the user of that name
//! here, and says in its warnings what it did where there is none.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::leagues::{League, LeagueView};
use super::{ServiceError, User, audit, require_admin};
use crate::db::league_doc::{self as db_doc, Bound, Kind, LEAGUE, Missing, Ref, TABLES, Table};
use crate::db::{Conn, Db, leagues as db_leagues, users as db_users};
use crate::domain::{ErrorCode, LeagueId, Slug};
use crate::rules::{HandInput, Rules};

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
    let mut row = db_doc::rows(&mut snap, &LEAGUE, league.id).await?;
    doc.insert(
        "league".into(),
        row.pop().map(Value::Object).unwrap_or_default(),
    );
    for table in TABLES {
        let mut rows = db_doc::rows(&mut snap, table, league.id).await?;
        for row in &mut rows {
            name_users(table, row, &usernames, &mut referenced);
        }
        doc.insert(
            table.name.into(),
            Value::Array(rows.into_iter().map(Value::Object).collect()),
        );
    }
    doc.insert(
        "users".into(),
        Value::Array(referenced.into_iter().map(Value::String).collect()),
    );
    Ok(Value::Object(doc))
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

/// An error at `path` within the request (`document.matches[3].team_a`).
fn refused(path: &str, message: impl Into<String>) -> ServiceError {
    ServiceError::invalid(ErrorCode::InvalidDocument, path, message)
}

/// Imports `input.document` as a new league `input.slug`, in one transaction.
pub async fn import(db: &Db, user: &User, input: &ImportInput) -> Result<Imported, ServiceError> {
    require_admin(user)?;
    let slug = super::leagues::check_slug(Some(&input.slug), "")?;
    let name = match &input.name {
        Some(name) => Some(super::leagues::name_rule("name", "the league's name").check(name)?),
        None => None,
    };
    let doc = input
        .document
        .as_object()
        .ok_or_else(|| refused("document", "the document is not a JSON object"))?;
    check_format(doc)?;
    let mut tx = db.write().await?;
    if db_leagues::by_slug(&mut tx, &slug).await?.is_some() {
        return Err(ServiceError::conflict(
            ErrorCode::SlugTaken,
            format!("a league with the slug \"{slug}\" exists"),
        ));
    }
    let mut import = Import {
        conn: &mut tx,
        importer: user,
        ids: HashMap::new(),
        users: HashMap::new(),
        warnings: BTreeSet::new(),
        columns: HashMap::new(),
    };
    let (league_id, archived) = import.league(doc, &slug, name.as_deref()).await?;
    for table in TABLES {
        import.table(doc, table).await?;
    }
    // A past season comes in current, so its rows can be written, and is archived last.
    if archived {
        db_leagues::set_archived(import.conn, league_id, true).await?;
    }
    let warnings = import.warnings.into_iter().collect();
    let from = doc
        .get("league")
        .and_then(|l| l.get("slug"))
        .cloned()
        .unwrap_or_default();
    let after = serde_json::json!({"imported_from": from, "slug": slug}).to_string();
    audit::record(
        &mut tx,
        user,
        db.clock().now(),
        audit::Change::new("import", audit::Subject::League(league_id)).after(&after),
    )
    .await?;
    let row = db_leagues::by_id(&mut tx, league_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let league = League::from_row(row)
        .map_err(|e| refused("document.league", format!("the league does not read: {e}")))?;
    tx.commit().await?;
    Ok(Imported {
        league: league.view(),
        warnings,
    })
}

fn check_format(doc: &Map<String, Value>) -> Result<(), ServiceError> {
    if doc.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(refused(
            "document.format",
            format!("this is no league document: its \"format\" is not \"{FORMAT}\""),
        ));
    }
    match doc.get("version").and_then(Value::as_i64) {
        Some(VERSION) => Ok(()),
        _ => Err(refused(
            "document.version",
            format!("this service reads league documents of version {VERSION} only"),
        )),
    }
}

/// An import under way: the new id of every row inserted so far, by table and old id.
struct Import<'a> {
    conn: &'a mut Conn,
    importer: &'a User,
    ids: HashMap<&'static str, HashMap<i64, i64>>,
    /// Users by username as the document writes it: their id here, if any.
    users: HashMap<String, Option<i64>>,
    warnings: BTreeSet<String>,
    columns: HashMap<&'static str, Vec<(String, Kind)>>,
}

impl Import<'_> {
    async fn league(
        &mut self,
        doc: &Map<String, Value>,
        slug: &Slug,
        name: Option<&str>,
    ) -> Result<(LeagueId, bool), ServiceError> {
        let mut row = doc
            .get("league")
            .and_then(Value::as_object)
            .cloned()
            .ok_or_else(|| refused("document.league", "the document holds no league"))?;
        let archived = match row.remove("archived") {
            None | Some(Value::Null) => false,
            Some(flag) => match flag.as_i64() {
                Some(0) => false,
                Some(1) => true,
                _ => return Err(refused("document.league.archived", "must be 0 or 1")),
            },
        };
        row.insert("slug".into(), slug.as_str().into());
        if let Some(name) = name {
            row.insert("name".into(), name.into());
        }
        let id = self.row(&LEAGUE, &row, "document.league").await?;
        let id = id
            .map(LeagueId)
            .ok_or_else(|| refused("document.league", "the league was not stored"))?;
        Ok((id, archived))
    }

    async fn table(
        &mut self,
        doc: &Map<String, Value>,
        table: &'static Table,
    ) -> Result<(), ServiceError> {
        let rows = match doc.get(table.name) {
            None => return Ok(()),
            Some(Value::Array(rows)) => rows,
            Some(_) => {
                return Err(refused(
                    &format!("document.{}", table.name),
                    "must be a list of rows",
                ));
            }
        };
        for (i, row) in rows.iter().enumerate() {
            let path = format!("document.{}[{i}]", table.name);
            let row = row
                .as_object()
                .ok_or_else(|| refused(&path, "a row must be a JSON object"))?;
            self.row(table, row, &path).await?;
        }
        Ok(())
    }

    /// Inserts one row (unless it is left out: see [`Missing::DropRow`]); returns its new id.
    async fn row(
        &mut self,
        table: &'static Table,
        row: &Map<String, Value>,
        path: &str,
    ) -> Result<Option<i64>, ServiceError> {
        if !self.columns.contains_key(table.name) {
            let columns = db_doc::columns(self.conn, table.name).await?;
            self.columns.insert(table.name, columns);
        }
        let columns = self.columns.get(table.name).cloned().unwrap_or_default();
        let mut values = Vec::with_capacity(row.len());
        let mut old_id = None;
        for (column, value) in row {
            let at = format!("{path}.{column}");
            let Some((_, kind)) = columns.iter().find(|(c, _)| c == column) else {
                return Err(refused(
                    &at,
                    format!("{} has no column \"{column}\"", table.name),
                ));
            };
            if table.has_id && column == "id" {
                old_id = Some(
                    value
                        .as_i64()
                        .ok_or_else(|| refused(&at, "must be an integer"))?,
                );
                continue;
            }
            let bound = match table.reference(column) {
                None => plain(value, *kind, &at)?,
                Some(reference) => match self.reference(reference, row, value, &at).await? {
                    Some(id) => Bound::Int(id),
                    None => return Ok(None),
                },
            };
            check_json(table, column, &bound, &at)?;
            values.push((column.clone(), bound));
        }
        if table.has_id && old_id.is_none() {
            return Err(refused(
                &format!("{path}.id"),
                "a row of this table needs its id",
            ));
        }
        let new_id = db_doc::insert(self.conn, table, &values)
            .await
            .map_err(|e| match e {
                sqlx::Error::Database(db) => {
                    refused(path, format!("the row does not fit: {}", db.message()))
                }
                other => ServiceError::from(other),
            })?;
        if let (Some(old), Some(new)) = (old_id, new_id) {
            let ids = self.ids.entry(table.name).or_default();
            if ids.insert(old, new).is_some() {
                return Err(refused(
                    &format!("{path}.id"),
                    format!("a second row of {} with id {old}", table.name),
                ));
            }
        }
        Ok(new_id)
    }

    /// The new value of a column that points elsewhere: `Ok(Some(..))` to store, `Ok(None)`
    /// to leave the row out.
    async fn reference(
        &mut self,
        reference: Ref,
        row: &Map<String, Value>,
        value: &Value,
        at: &str,
    ) -> Result<Option<Option<i64>>, ServiceError> {
        let (target, may_be_gone) = match reference {
            Ref::League => ("leagues", false),
            Ref::Row(table) => (table, false),
            Ref::RowIfHeld(table) => (table, true),
            Ref::AuditSubject => {
                let entity = row.get("entity").and_then(Value::as_str).unwrap_or("");
                let table = db_doc::audit_subject_table(entity).ok_or_else(|| {
                    refused(
                        at,
                        format!("an audit entry about \"{entity}\" is no league's"),
                    )
                })?;
                (table, true)
            }
            Ref::User(missing) => return self.user(value, missing, at).await,
        };
        if value.is_null() {
            return Ok(Some(None));
        }
        let old = value
            .as_i64()
            .ok_or_else(|| refused(at, "must be an integer id"))?;
        match self.ids.get(target).and_then(|ids| ids.get(&old)) {
            Some(new) => Ok(Some(Some(*new))),
            None if may_be_gone => Ok(Some(None)),
            None => Err(refused(
                at,
                format!("refers to {target} {old}, which the document does not hold (before it)"),
            )),
        }
    }

    async fn user(
        &mut self,
        value: &Value,
        missing: Missing,
        at: &str,
    ) -> Result<Option<Option<i64>>, ServiceError> {
        let name = match value {
            Value::Null => return Ok(Some(None)),
            Value::String(name) => name,
            _ => return Err(refused(at, "must be a username or null")),
        };
        let found = match self.users.get(name) {
            Some(found) => *found,
            None => {
                let found = db_users::by_name(self.conn, name).await?.map(|u| u.id.0);
                self.users.insert(name.clone(), found);
                found
            }
        };
        if found.is_some() {
            return Ok(Some(found));
        }
        let (kept, warning) = match missing {
            Missing::Nobody => (
                Some(None),
                "what they recorded (hands, lineups, notes, audit entries) names no one",
            ),
            Missing::DropRow => (None, "they do not supervise the new league"),
            Missing::Importer => (
                Some(Some(self.importer.id.0)),
                "the eligibility decisions they made name the admin who imported",
            ),
        };
        self.warnings
            .insert(format!("no user is named \"{name}\" here: {warning}"));
        Ok(kept)
    }
}

/// A column's value as the store takes it.
fn plain(value: &Value, kind: Kind, at: &str) -> Result<Bound, ServiceError> {
    let wrong = |what: &str| refused(at, format!("must be {what} or null"));
    Ok(match (kind, value) {
        (Kind::Int, Value::Null) => Bound::Int(None),
        (Kind::Bool, Value::Null) => Bound::Bool(None),
        (Kind::Text, Value::Null) => Bound::Text(None),
        (Kind::Int, v) => Bound::Int(Some(v.as_i64().ok_or_else(|| wrong("an integer"))?)),
        (Kind::Bool, v) => match v.as_i64() {
            Some(0) => Bound::Bool(Some(false)),
            Some(1) => Bound::Bool(Some(true)),
            _ => return Err(wrong("0 or 1")),
        },
        (Kind::Text, Value::String(s)) => Bound::Text(Some(s.clone())),
        (Kind::Text, _) => return Err(wrong("a string")),
    })
}

/// The columns that hold JSON the service reads back must read, or the new league's pages
/// would fail later: a match's frozen rules and a hand.
fn check_json(table: &Table, column: &str, value: &Bound, at: &str) -> Result<(), ServiceError> {
    let Bound::Text(Some(text)) = value else {
        return Ok(());
    };
    let read = match (table.name, column) {
        ("matches", "rules") => serde_json::from_str::<Rules>(text).map(drop),
        ("hands", "hand") => serde_json::from_str::<HandInput>(text).map(drop),
        _ => return Ok(()),
    };
    read.map_err(|e| refused(at, format!("does not read: {e}")))
}
