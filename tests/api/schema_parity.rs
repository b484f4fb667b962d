//! The two stores' migrations end at the same schema: a fresh SQLite database and a fresh
//! PostgreSQL one, each migrated by the service, hold the same tables with the same columns
//! (names, a common kind of type, nullability). The comparison needs a PostgreSQL server: it
//! runs in the PostgreSQL pass of the suite (`SPADES_TEST_DB`, as `.ci/run` does); the SQLite
//! pass checks the tables against those the PostgreSQL migration files create.

use std::collections::{BTreeMap, BTreeSet};

use spades_im::db::{Db, Location};
use spades_im::domain::{Clock, machine_zone};
use sqlx::{Connection, Row};

use crate::helpers::{on_postgres, test_store};

/// The tables one store has for its own machinery, with why: left out of the comparison,
/// each checked to be there still (a name here that no longer exists fails).
const SQLITE_ONLY: &[(&str, &str)] = &[(
    "record_changes",
    "the queue by which SQLite's triggers keep team_records and head_to_head (always empty \
     between statements); PostgreSQL's triggers call a function that does (apply_record_change, 0001_schema)",
)];

/// A column as both stores can say it: its kind of type and whether it may be null.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Column {
    kind: &'static str,
    nullable: bool,
}

/// Each table's columns by name (the migrations' own bookkeeping left out).
type Schema = BTreeMap<String, BTreeMap<String, Column>>;

/// The kind of a declared type, by the type affinity rules of SQLite (a type naming INT is
/// an integer, CHAR, CLOB or TEXT text...), which the PostgreSQL types map onto too:
/// `boolean` is an integer on SQLite, a timestamp is stored as text there.
fn kind(declared: &str) -> &'static str {
    let t = declared.to_ascii_lowercase();
    if t.contains("int") || t == "boolean" {
        "integer"
    } else if t.contains("char") || t.contains("clob") || t.contains("text") || t.contains("time") {
        "text"
    } else if t.contains("blob") || t == "bytea" {
        "blob"
    } else if t.contains("real") || t.contains("floa") || t.contains("doub") {
        "real"
    } else {
        "numeric"
    }
}

/// The schema of a migrated SQLite file.
async fn sqlite_schema(path: &std::path::Path) -> Schema {
    let url = format!("sqlite://{}", path.display());
    let mut conn = sqlx::SqliteConnection::connect(&url).await.expect("sqlite");
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM sqlite_schema WHERE type = 'table'
         AND name NOT LIKE 'sqlite_%' AND name != '_sqlx_migrations'",
    )
    .fetch_all(&mut conn)
    .await
    .expect("tables");
    let mut schema = Schema::new();
    for table in tables {
        let columns = sqlx::query("SELECT name, type, \"notnull\", pk FROM pragma_table_info($1)")
            .bind(&table)
            .fetch_all(&mut conn)
            .await
            .expect("columns");
        let columns = columns.iter().map(|c| {
            let declared: String = c.get("type");
            // A primary key is never null (an INTEGER one is the row id), whatever the
            // pragma's `notnull` says of it.
            let not_null = c.get::<i64, _>("notnull") != 0 || c.get::<i64, _>("pk") != 0;
            let column = Column {
                kind: kind(&declared),
                nullable: !not_null,
            };
            (c.get::<String, _>("name"), column)
        });
        schema.insert(table, columns.collect());
    }
    schema
}

/// The schema of a migrated PostgreSQL database (its `public` schema's tables).
async fn postgres_schema(url: &str) -> Schema {
    let mut conn = sqlx::PgConnection::connect(url).await.expect("postgres");
    let rows = sqlx::query(
        "SELECT c.table_name::text AS t, c.column_name::text AS name, c.data_type::text AS type,
                c.is_nullable = 'YES' AS nullable
         FROM information_schema.columns c
         JOIN information_schema.tables t
           ON t.table_schema = c.table_schema AND t.table_name = c.table_name
         WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
           AND c.table_name != '_sqlx_migrations'",
    )
    .fetch_all(&mut conn)
    .await
    .expect("columns");
    let mut schema = Schema::new();
    for row in rows {
        let declared: String = row.get("type");
        let column = Column {
            kind: kind(&declared),
            nullable: row.get("nullable"),
        };
        schema
            .entry(row.get("t"))
            .or_default()
            .insert(row.get("name"), column);
    }
    schema
}

/// What differs between the two schemas, a line each (empty when they agree).
fn differences(sqlite: &Schema, postgres: &Schema) -> Vec<String> {
    let mut out = Vec::new();
    let tables: BTreeSet<&String> = sqlite.keys().chain(postgres.keys()).collect();
    for table in tables {
        let (Some(s), Some(p)) = (sqlite.get(table), postgres.get(table)) else {
            let only = if sqlite.contains_key(table) {
                "SQLite"
            } else {
                "PostgreSQL"
            };
            out.push(format!("table {table}: only on {only}"));
            continue;
        };
        let columns: BTreeSet<&String> = s.keys().chain(p.keys()).collect();
        for column in columns {
            match (s.get(column), p.get(column)) {
                (Some(a), Some(b)) if a == b => {}
                (Some(a), Some(b)) => {
                    out.push(format!("{table}.{column}: SQLite {a:?}, PostgreSQL {b:?}"));
                }
                (Some(_), None) => out.push(format!("{table}.{column}: only on SQLite")),
                (None, _) => out.push(format!("{table}.{column}: only on PostgreSQL")),
            }
        }
    }
    out
}

/// The tables the PostgreSQL migration files leave: those they create, less those they drop,
/// renamed where they rename one (read from the files, for the pass without a server).
fn tables_of_postgres_migrations() -> BTreeSet<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations/postgres");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("migrations/postgres")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "sql"))
        .collect();
    files.sort();
    let mut tables = BTreeSet::new();
    for file in files {
        let sql = std::fs::read_to_string(&file)
            .expect("a migration")
            .to_lowercase();
        let words: Vec<&str> = sql
            .split(|c: char| c.is_whitespace() || c == '(' || c == ';')
            .filter(|w| !w.is_empty())
            .collect();
        for (i, w) in words.iter().enumerate() {
            let after = |n: usize| words.get(i + n).copied().unwrap_or("");
            let named = |n: usize| match (after(n), after(n + 1), after(n + 2)) {
                ("if", "not", "exists") => after(n + 3),
                ("if", "exists", _) => after(n + 2),
                (name, _, _) => name,
            };
            match (*w, after(1)) {
                ("create", "table") => {
                    tables.insert(named(2).to_string());
                }
                ("drop", "table") => {
                    tables.remove(named(2));
                }
                ("alter", "table") if after(3) == "rename" && after(4) == "to" => {
                    tables.remove(after(2));
                    tables.insert(after(5).to_string());
                }
                _ => {}
            }
        }
    }
    tables
}

/// Both stores, migrated from nothing, end with the same tables and columns.
#[actix_web::test]
async fn both_stores_end_with_the_same_tables_and_columns() {
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("parity.sqlite3");
    let clock = Clock::system(machine_zone());
    Db::open_file(&file, clock.clone())
        .await
        .expect("sqlite migrates");
    let mut sqlite = sqlite_schema(&file).await;
    assert!(sqlite.contains_key("matches"), "{sqlite:?}");
    for (table, why) in SQLITE_ONLY {
        assert!(sqlite.remove(*table).is_some(), "no table {table} ({why})");
    }

    let sqlite_tables: BTreeSet<String> = sqlite.keys().cloned().collect();
    assert_eq!(
        sqlite_tables,
        tables_of_postgres_migrations(),
        "the tables of a migrated SQLite database, and those migrations/postgres creates"
    );
    if !on_postgres() {
        // No server to migrate: the PostgreSQL pass compares the columns.
        return;
    }
    let Location::Postgres(url) = test_store(dir.path()).await else {
        panic!("SPADES_TEST_DB names a PostgreSQL server");
    };
    Db::open(&Location::Postgres(url.clone()), clock)
        .await
        .expect("postgres migrates");
    let postgres = postgres_schema(&url).await;
    let differ = differences(&sqlite, &postgres);
    assert!(
        differ.is_empty(),
        "the migrated schemas differ:\n{}",
        differ.join("\n")
    );
}
