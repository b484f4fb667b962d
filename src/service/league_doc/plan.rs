//! A league document that passed the gate, made into rows ready to store: every value bound
//! by its column's kind, every reference to another row of the document kept as that row's
//! place, every user named by the document found here (or not). All of it is done on a read
//! snapshot before the write lock; under the lock [`Plan::write`] takes new ids, fills in
//! the references and inserts each table in a few statements.

use std::collections::{BTreeSet, HashMap};

use serde_json::{Map, Value};

use super::refused;
use crate::db::Conn;
use crate::db::league_doc::{self as db_doc, Bound, Kind, LEAGUE, Missing, Ref, TABLES, Table};
use crate::db::users as db_users;
use crate::domain::{LeagueId, Slug, Timestamp};
use crate::service::{ServiceError, User};

/// A value of a planned row.
#[derive(Debug, Clone)]
enum Cell {
    Value(Bound),
    /// The new id of the row of `table` at index `at` of the plan.
    Row {
        table: &'static str,
        at: usize,
    },
    /// The new league's id.
    League,
}

struct PlannedTable {
    table: &'static Table,
    columns: Vec<String>,
    rows: Vec<Vec<Cell>>,
}

/// The rows of a new league, before their ids are known.
pub struct Plan {
    tables: Vec<PlannedTable>,
    /// Each row's place by its table and the document's id, for references.
    pub warnings: BTreeSet<String>,
    /// The league was archived: it is stored current and archived last (so its rows can be
    /// written).
    pub archived: bool,
}

/// What a plan is made with.
pub struct Making<'a> {
    pub conn: &'a mut Conn,
    pub importer: &'a User,
    pub slug: &'a Slug,
    pub name: Option<&'a str>,
    pub now: Timestamp,
}

/// Users by username as the document writes them: their id here, if any.
type Users = HashMap<String, Option<i64>>;

impl Plan {
    pub async fn make(m: Making<'_>, doc: &Map<String, Value>) -> Result<Plan, ServiceError> {
        let mut maker = Maker {
            places: HashMap::new(),
            users: HashMap::new(),
            warnings: BTreeSet::new(),
            tables: Vec::new(),
        };
        let mut league = doc
            .get("league")
            .and_then(Value::as_object)
            .cloned()
            .ok_or_else(|| refused("/league", "the document holds no league"))?;
        let archived = league.remove("archived").and_then(|a| a.as_i64()) == Some(1);
        league.insert("slug".into(), m.slug.as_str().into());
        if let Some(name) = m.name {
            league.insert("name".into(), name.into());
        }
        maker
            .table(
                m.conn,
                m.importer,
                &LEAGUE,
                &[Value::Object(league)],
                "/league",
            )
            .await?;
        for table in TABLES {
            let rows = doc.get(table.name).and_then(Value::as_array);
            let rows = rows.map(Vec::as_slice).unwrap_or_default();
            let rows = imported_audit(table, rows, m.importer, m.now);
            maker
                .table(
                    m.conn,
                    m.importer,
                    table,
                    &rows,
                    &format!("/{}", table.name),
                )
                .await?;
        }
        Ok(Plan {
            tables: maker.tables,
            warnings: maker.warnings,
            archived,
        })
    }

    /// How many rows it holds.
    pub fn rows(&self) -> usize {
        self.tables.iter().map(|t| t.rows.len()).sum()
    }

    /// Stores every row under new ids; answers the new league's id.
    pub async fn write(&self, conn: &mut Conn) -> Result<LeagueId, ServiceError> {
        let mut ids: HashMap<&'static str, Vec<i64>> = HashMap::new();
        for planned in &self.tables {
            if planned.table.has_id {
                let new = db_doc::new_ids(conn, planned.table, planned.rows.len()).await?;
                ids.insert(planned.table.name, new);
            }
        }
        let league = ids
            .get(LEAGUE.name)
            .and_then(|l| l.first().copied())
            .ok_or_else(|| refused("/league", "the document holds no league"))?;
        for planned in &self.tables {
            let own = ids.get(planned.table.name);
            let mut rows = Vec::with_capacity(planned.rows.len());
            for (at, row) in planned.rows.iter().enumerate() {
                let mut bound: Vec<Bound> = row.iter().map(|c| fill(c, &ids, league)).collect();
                if let Some(own) = own {
                    bound.insert(0, Bound::Int(own.get(at).copied()));
                }
                rows.push(bound);
            }
            let mut columns = planned.columns.clone();
            if own.is_some() {
                columns.insert(0, "id".into());
            }
            db_doc::insert_rows(conn, planned.table, &columns, &rows).await?;
        }
        Ok(LeagueId(league))
    }
}

fn fill(cell: &Cell, ids: &HashMap<&'static str, Vec<i64>>, league: i64) -> Bound {
    match cell {
        Cell::Value(bound) => bound.clone(),
        Cell::League => Bound::Int(Some(league)),
        Cell::Row { table, at } => Bound::Int(ids.get(table).and_then(|t| t.get(*at)).copied()),
    }
}

/// The audit entries of a document as history: the user the document names moves to
/// `imported_user`, and the entry is marked imported by `importer` at `now`.
fn imported_audit(table: &Table, rows: &[Value], importer: &User, now: Timestamp) -> Vec<Value> {
    if table.name != "audit_log" {
        return rows.to_vec();
    }
    rows.iter()
        .map(|row| {
            let mut row = row.as_object().cloned().unwrap_or_default();
            let named = match row.remove("user_id") {
                Some(Value::String(name)) => Value::String(name),
                _ => row.remove("imported_user").unwrap_or(Value::Null),
            };
            row.insert("imported_user".into(), named);
            row.insert("user_id".into(), Value::Null);
            row.insert("imported_by".into(), importer.username.clone().into());
            row.insert("imported_at".into(), now.to_string().into());
            Value::Object(row)
        })
        .collect()
}

struct Maker {
    /// Each planned row's place, by table and the document's id.
    places: HashMap<(&'static str, i64), usize>,
    users: Users,
    warnings: BTreeSet<String>,
    tables: Vec<PlannedTable>,
}

impl Maker {
    async fn table(
        &mut self,
        conn: &mut Conn,
        importer: &User,
        table: &'static Table,
        rows: &[Value],
        at: &str,
    ) -> Result<(), ServiceError> {
        // The columns the document gives (one exported before a column was added leaves it to
        // the store's default).
        let present: BTreeSet<&str> = rows
            .iter()
            .filter_map(Value::as_object)
            .flat_map(|row| row.keys().map(String::as_str))
            .collect();
        let kinds: Vec<(String, Kind)> = db_doc::columns(conn, table.name)
            .await?
            .into_iter()
            .filter(|(name, _)| present.contains(name.as_str()))
            .collect();
        let columns: Vec<String> = kinds
            .iter()
            .map(|(name, _)| name.clone())
            .filter(|name| !(table.has_id && name == "id"))
            .collect();
        let mut planned = PlannedTable {
            table,
            columns,
            rows: Vec::with_capacity(rows.len()),
        };
        for (i, row) in rows.iter().enumerate() {
            let path = format!("{at}/{i}");
            let path = if table.name == LEAGUE.name { at } else { &path };
            let row = row
                .as_object()
                .ok_or_else(|| refused(path, "must be a JSON object"))?;
            let Some(cells) = self.row(conn, importer, table, &kinds, row, path).await? else {
                continue;
            };
            if table.has_id {
                let old = row.get("id").and_then(Value::as_i64);
                let old = old.ok_or_else(|| refused(&format!("{path}/id"), "needs its id"))?;
                let place = planned.rows.len();
                if self.places.insert((table.name, old), place).is_some() {
                    let message = format!("a second row of {} with id {old}", table.name);
                    return Err(refused(&format!("{path}/id"), message));
                }
            }
            planned.rows.push(cells);
        }
        self.tables.push(planned);
        Ok(())
    }

    /// One row's cells in the table's column order (`None`: the row is left out).
    async fn row(
        &mut self,
        conn: &mut Conn,
        importer: &User,
        table: &'static Table,
        kinds: &[(String, Kind)],
        row: &Map<String, Value>,
        path: &str,
    ) -> Result<Option<Vec<Cell>>, ServiceError> {
        if let Some(unknown) = row.keys().find(|c| !kinds.iter().any(|(k, _)| k == *c)) {
            let message = format!("{} has no column \"{unknown}\"", table.name);
            return Err(refused(&format!("{path}/{unknown}"), message));
        }
        let mut cells = Vec::with_capacity(kinds.len());
        for (column, kind) in kinds {
            if table.has_id && column == "id" {
                continue;
            }
            let value = row.get(column).unwrap_or(&Value::Null);
            let at = format!("{path}/{column}");
            let cell = match table.reference(column) {
                None => Cell::Value(plain(value, *kind, &at)?),
                Some(Ref::League) => Cell::League,
                Some(Ref::User(missing)) => {
                    match self.user(conn, importer, value, missing, &at).await? {
                        Some(id) => Cell::Value(Bound::Int(id)),
                        None => return Ok(None),
                    }
                }
                Some(reference) => self.reference(reference, row, value, &at)?,
            };
            cells.push(cell);
        }
        Ok(Some(cells))
    }

    /// A column that points at another row of the document.
    fn reference(
        &self,
        reference: Ref,
        row: &Map<String, Value>,
        value: &Value,
        at: &str,
    ) -> Result<Cell, ServiceError> {
        let (target, may_be_gone) = match reference {
            Ref::Row(table) => (table, false),
            Ref::RowIfHeld(table) => (table, true),
            Ref::AuditSubject => {
                let entity = row.get("entity").and_then(Value::as_str).unwrap_or("");
                let table = db_doc::audit_subject_table(entity)
                    .ok_or_else(|| refused(at, "an audit entry about nothing a league holds"))?;
                (table, true)
            }
            Ref::League | Ref::User(_) => return Ok(Cell::Value(Bound::Int(None))),
        };
        if value.is_null() {
            return Ok(Cell::Value(Bound::Int(None)));
        }
        let old = value
            .as_i64()
            .ok_or_else(|| refused(at, "must be an integer id"))?;
        match self.places.get(&(target, old)) {
            Some(&place) => Ok(Cell::Row {
                table: target,
                at: place,
            }),
            None if may_be_gone => Ok(Cell::Value(Bound::Int(None))),
            None => Err(refused(
                at,
                format!("refers to {target} {old}, which the document does not hold (before it)"),
            )),
        }
    }

    /// A user column: the user of that name here, `Ok(None)` to leave the row out.
    async fn user(
        &mut self,
        conn: &mut Conn,
        importer: &User,
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
                let found = db_users::by_name(conn, name).await?.map(|u| u.id.0);
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
                "what they recorded (hands, lineups, notes) names no one",
            ),
            Missing::DropRow => (None, "they do not supervise the new league"),
            Missing::Importer => (
                Some(Some(importer.id.0)),
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
