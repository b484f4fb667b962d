//! A whole league's rows, table by table, each row a JSON object of its columns: what
//! `service::league_doc` exports and imports (docs/api.md §18.4).
//!
//! The tables and the columns that point at other rows are listed once, in [`TABLES`]; the
//! columns themselves are read from the store, so a column added by a migration travels
//! without a change here. A new table of league data is one more [`Table`] (and a [`Ref`]
//! on the columns that point at it).
//!
//! Values are the store's: integers, text (JSON kept as the text stored, byte for byte) and
//! null. PostgreSQL's booleans are written 0 and 1, as SQLite stores them, so both stores
//! export the same document.

use serde_json::{Map, Number, Value};
use sqlx::Row;

use super::{Conn, Raw, on_store};
use crate::domain::LeagueId;

/// What a column holds, as the store declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Int,
    /// PostgreSQL's booleans (SQLite's are `Int`); 0 or 1 in the document.
    Bool,
    Text,
}

/// What to do with a reference to a user who does not exist where the league is imported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// Keep the row, with no one in the column.
    Nobody,
    /// Leave the row out (a supervisor assignment).
    DropRow,
    /// Name the admin who imports (the column must name someone).
    Importer,
}

/// Where a column points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ref {
    /// The league itself.
    League,
    /// A row of that table of the document (by its `id`).
    Row(&'static str),
    /// A user: written as the username, never the id.
    User(Missing),
    /// A row of that table, or no one where the document does not hold it: the audit's
    /// `match_id` of a match deleted since (kept in the store without a foreign key).
    RowIfHeld(&'static str),
    /// `audit_log.entity_id`: a row of the table its `entity` names, or no one where the
    /// document does not hold it (a deleted match).
    AuditSubject,
}

/// A table of league data.
pub struct Table {
    /// The table, and the document's key for its rows.
    pub name: &'static str,
    /// Which rows are the league's (`$1` is the league's id).
    rows: &'static str,
    order: &'static str,
    /// Whether the store gives each row an `id` (a new one on import).
    pub has_id: bool,
    pub refs: &'static [(&'static str, Ref)],
}

impl Table {
    pub fn reference(&self, column: &str) -> Option<Ref> {
        self.refs
            .iter()
            .find(|(c, _)| *c == column)
            .map(|(_, r)| *r)
    }
}

const OF_MATCHES: &str = "match_id IN (SELECT id FROM matches WHERE league_id = $1)";

/// The league's own row (the document's `league`).
pub const LEAGUE: Table = Table {
    name: "leagues",
    rows: "id = $1",
    order: "id",
    has_id: true,
    refs: &[],
};

/// The rest of a league, parents before the rows that point at them.
pub const TABLES: &[Table] = &[
    Table {
        name: "divisions",
        rows: "league_id = $1",
        order: "id",
        has_id: true,
        refs: &[("league_id", Ref::League)],
    },
    Table {
        name: "teams",
        rows: "league_id = $1",
        order: "id",
        has_id: true,
        refs: &[
            ("league_id", Ref::League),
            ("division_id", Ref::Row("divisions")),
        ],
    },
    Table {
        name: "players",
        rows: "league_id = $1",
        order: "id",
        has_id: true,
        refs: &[("league_id", Ref::League), ("team_id", Ref::Row("teams"))],
    },
    Table {
        name: "league_supervisors",
        rows: "league_id = $1",
        order: "user_id",
        has_id: false,
        refs: &[
            ("league_id", Ref::League),
            ("user_id", Ref::User(Missing::DropRow)),
        ],
    },
    Table {
        name: "matches",
        rows: "league_id = $1",
        order: "id",
        has_id: true,
        refs: &[
            ("league_id", Ref::League),
            ("team_a", Ref::Row("teams")),
            ("team_b", Ref::Row("teams")),
            ("supervisor_id", Ref::User(Missing::Nobody)),
        ],
    },
    Table {
        name: "swiss_rounds",
        rows: "league_id = $1",
        order: "round",
        has_id: false,
        refs: &[
            ("league_id", Ref::League),
            ("bye_team_id", Ref::Row("teams")),
        ],
    },
    Table {
        name: "hands",
        rows: OF_MATCHES,
        order: "id",
        has_id: true,
        refs: &[
            ("match_id", Ref::Row("matches")),
            ("recorded_by", Ref::User(Missing::Nobody)),
        ],
    },
    Table {
        name: "lineups",
        rows: OF_MATCHES,
        order: "match_id, team, from_hand",
        has_id: false,
        refs: &[
            ("match_id", Ref::Row("matches")),
            ("seat1", Ref::Row("players")),
            ("seat2", Ref::Row("players")),
            ("set_by", Ref::User(Missing::Nobody)),
        ],
    },
    Table {
        name: "rating_notes",
        rows: OF_MATCHES,
        order: "match_id, author_id",
        has_id: false,
        refs: &[
            ("match_id", Ref::Row("matches")),
            ("author_id", Ref::User(Missing::Nobody)),
        ],
    },
    Table {
        name: "eligibility_overrides",
        rows: "team_id IN (SELECT id FROM teams WHERE league_id = $1)",
        order: "team_id",
        has_id: false,
        refs: &[
            ("team_id", Ref::Row("teams")),
            ("set_by", Ref::User(Missing::Importer)),
        ],
    },
    Table {
        name: "player_eligibility_overrides",
        rows: "player_id IN (SELECT id FROM players WHERE league_id = $1)",
        order: "player_id",
        has_id: false,
        refs: &[
            ("player_id", Ref::Row("players")),
            ("set_by", Ref::User(Missing::Importer)),
        ],
    },
    Table {
        name: "brackets",
        rows: "league_id = $1",
        order: "id",
        has_id: true,
        refs: &[("league_id", Ref::League)],
    },
    Table {
        name: "bracket_seeds",
        rows: "bracket_id IN (SELECT id FROM brackets WHERE league_id = $1)",
        order: "bracket_id, seed",
        has_id: false,
        refs: &[
            ("bracket_id", Ref::Row("brackets")),
            ("team_id", Ref::Row("teams")),
        ],
    },
    Table {
        name: "bracket_matches",
        rows: "bracket_id IN (SELECT id FROM brackets WHERE league_id = $1)",
        order: "bracket_id, match_index",
        has_id: false,
        refs: &[
            ("bracket_id", Ref::Row("brackets")),
            ("match_id", Ref::Row("matches")),
        ],
    },
    Table {
        name: "audit_log",
        // Every entry of the league, those about a match deleted since included.
        rows: "league_id = $1",
        order: "id",
        has_id: true,
        refs: &[
            ("user_id", Ref::User(Missing::Nobody)),
            ("imported_by", Ref::User(Missing::Nobody)),
            ("entity_id", Ref::AuditSubject),
            ("league_id", Ref::League),
            ("match_id", Ref::RowIfHeld("matches")),
        ],
    },
];

/// The table an audit entry's `entity` names, where it is one a league's document holds.
pub fn audit_subject_table(entity: &str) -> Option<&'static str> {
    match entity {
        "league" => Some("leagues"),
        "team" => Some("teams"),
        "player" => Some("players"),
        "match" => Some("matches"),
        "bracket" => Some("brackets"),
        _ => None,
    }
}

/// Every league's id and slug, read as plain values (so a league whose other columns do not
/// read is still named).
pub async fn league_slugs(conn: &mut Conn) -> sqlx::Result<Vec<(LeagueId, String)>> {
    let all: Vec<(i64, String)> = on_store!(conn, |c| sqlx::query_as(
        "SELECT id, slug FROM leagues ORDER BY id"
    )
    .fetch_all(c)
    .await)?;
    Ok(all
        .into_iter()
        .map(|(id, slug)| (LeagueId(id), slug))
        .collect())
}

/// Every user's username, by id.
pub async fn usernames(conn: &mut Conn) -> sqlx::Result<std::collections::HashMap<i64, String>> {
    let all: Vec<(i64, String)> =
        on_store!(conn, |c| sqlx::query_as("SELECT id, username FROM users")
            .fetch_all(c)
            .await)?;
    Ok(all.into_iter().collect())
}

/// The columns of `table`, in the store's order, with what each holds.
pub async fn columns(conn: &mut Conn, table: &str) -> sqlx::Result<Vec<(String, Kind)>> {
    let declared: Vec<(String, String)> = match conn.raw() {
        Raw::Sqlite(c) => {
            sqlx::query_as("SELECT name, type FROM pragma_table_info($1) ORDER BY cid")
                .bind(table)
                .fetch_all(c)
                .await?
        }
        Raw::Postgres(c) => {
            sqlx::query_as(
                "SELECT column_name::text, data_type::text FROM information_schema.columns
                 WHERE table_schema = current_schema() AND table_name = $1
                 ORDER BY ordinal_position",
            )
            .bind(table)
            .fetch_all(c)
            .await?
        }
    };
    Ok(declared
        .into_iter()
        .map(|(name, kind)| {
            let kind = match kind.to_ascii_lowercase().as_str() {
                "integer" | "bigint" => Kind::Int,
                "boolean" => Kind::Bool,
                _ => Kind::Text,
            };
            (name, kind)
        })
        .collect())
}

/// The league's rows of `table`, in a stable order (by id where rows have one, so the
/// order of hands' revisions and of the audit log survives an import).
pub async fn rows(
    conn: &mut Conn,
    table: &Table,
    league: LeagueId,
) -> sqlx::Result<Vec<Map<String, Value>>> {
    let columns = columns(conn, table.name).await?;
    let list = columns
        .iter()
        .map(|(name, _)| name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let sql = format!(
        "SELECT {list} FROM {} WHERE {} ORDER BY {}",
        table.name, table.rows, table.order
    );
    on_store!(conn, |c| {
        let found = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(league)
            .fetch_all(c)
            .await?;
        let mut out = Vec::with_capacity(found.len());
        for row in &found {
            let mut object = Map::new();
            for (i, (name, kind)) in columns.iter().enumerate() {
                let value = match kind {
                    Kind::Int => row.try_get::<Option<i64>, _>(i)?.map(Value::from),
                    Kind::Bool => row
                        .try_get::<Option<bool>, _>(i)?
                        .map(|b| Value::Number(Number::from(i64::from(b)))),
                    Kind::Text => row.try_get::<Option<String>, _>(i)?.map(Value::String),
                };
                object.insert(name.clone(), value.unwrap_or(Value::Null));
            }
            out.push(object);
        }
        Ok(out)
    })
}

/// A value to store, read from the document against the column's kind.
#[derive(Debug, Clone)]
pub enum Bound {
    Int(Option<i64>),
    Bool(Option<bool>),
    Text(Option<String>),
}

/// `n` new ids for rows of `table`, in order, never given to another row: past the largest
/// on SQLite (whose one writer holds the lock), from the table's sequence on PostgreSQL.
pub async fn new_ids(conn: &mut Conn, table: &Table, n: usize) -> sqlx::Result<Vec<i64>> {
    let n = i64::try_from(n).unwrap_or(i64::MAX);
    match conn.raw() {
        Raw::Sqlite(c) => {
            let sql = format!("SELECT coalesce(max(id), 0) FROM {}", table.name);
            let last: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
                .fetch_one(c)
                .await?;
            Ok((1..=n).map(|k| last + k).collect())
        }
        Raw::Postgres(c) => {
            let sql = format!(
                "SELECT nextval(pg_get_serial_sequence('{}', 'id')) FROM generate_series(1, $1)",
                table.name
            );
            sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
                .bind(n)
                .fetch_all(c)
                .await
        }
    }
}

/// Binds in one statement at most: measured, a 14 MiB league is written fastest in statements
/// of about this many (fewer, larger ones took longer to prepare and bind).
const BINDS: usize = 3_000;

/// Inserts `rows` of `table`, each with the values of `columns` in order, a few hundred rows
/// a statement (a whole league is a few statements, not one a row, so the write lock is held
/// for milliseconds).
pub async fn insert_rows(
    conn: &mut Conn,
    table: &Table,
    columns: &[String],
    rows: &[Vec<Bound>],
) -> sqlx::Result<()> {
    let per_statement = (BINDS / columns.len().max(1)).max(1);
    let names = columns.join(", ");
    // SQLite binds `?` by position; a named `$n` is looked up among all of the statement's
    // names at each bind, which for thousands of them took seconds a statement.
    let sqlite = matches!(conn.raw(), Raw::Sqlite(_));
    for chunk in rows.chunks(per_statement) {
        let mut sql = format!("INSERT INTO {} ({names}) VALUES ", table.name);
        let mut place = 0;
        for (i, row) in chunk.iter().enumerate() {
            sql.push_str(if i == 0 { "(" } else { ", (" });
            for j in 0..row.len() {
                place += 1;
                if j > 0 {
                    sql.push_str(", ");
                }
                if sqlite {
                    sql.push('?');
                } else {
                    sql.push_str(&format!("${place}"));
                }
            }
            sql.push(')');
        }
        on_store!(conn, |c| {
            let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
            for value in chunk.iter().flatten() {
                query = match value {
                    Bound::Int(v) => query.bind(*v),
                    Bound::Bool(v) => query.bind(*v),
                    Bound::Text(v) => query.bind(v.clone()),
                };
            }
            query.execute(c).await?;
            Ok::<_, sqlx::Error>(())
        })?;
    }
    Ok(())
}
