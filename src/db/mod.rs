//! SQLite access. Functions take a connection; the caller decides the transaction.
//!
//! One writer connection and a small read-only pool (so that no acknowledged write is lost and writes do not fail as "database is locked"):
//! WAL with `synchronous=FULL`, foreign keys on, a 5 s busy timeout, and every write
//! transaction opened with `BEGIN IMMEDIATE`.

pub mod leagues;
pub mod matches;
pub mod playoffs;
pub mod tonight;
pub mod users;

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, SqlitePool, Transaction};

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!();

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("database: {0}")]
    Sqlx(#[from] sqlx::Error),
    #[error("database migrations: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("database setting {pragma} is {found}, expected {expected}; refusing to run")]
    Pragma {
        pragma: &'static str,
        found: String,
        expected: &'static str,
    },
}

/// The database: one writer, several readers.
#[derive(Clone, Debug)]
pub struct Db {
    writer: SqlitePool,
    reader: SqlitePool,
}

impl Db {
    /// Opens (creating if needed) the database file, runs the migrations and checks that
    /// the durability settings are in force.
    pub async fn open(path: &Path) -> Result<Db, DbError> {
        if let Some(dir) = path.parent()
            && !dir.as_os_str().is_empty()
        {
            std::fs::create_dir_all(dir).map_err(|e| DbError::Sqlx(sqlx::Error::Io(e)))?;
        }
        let base = SqliteConnectOptions::from_str("sqlite:")?
            .filename(path)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(5));
        // Waiting longer than this for the writer answers 503 "not saved, send again".
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(base.clone().create_if_missing(true))
            .await?;
        MIGRATOR.run(&writer).await?;
        let reader = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(base.read_only(true))
            .await?;
        let db = Db { writer, reader };
        db.check_settings().await?;
        Ok(db)
    }

    /// The writer pool, for a read that must see the latest write in the same request.
    pub fn writer(&self) -> &SqlitePool {
        &self.writer
    }

    /// A read-only connection pool for pages and reports.
    pub fn reader(&self) -> &SqlitePool {
        &self.reader
    }

    /// Starts a write transaction with `BEGIN IMMEDIATE`, so a read-then-write never fails
    /// half-way with "database is locked".
    pub async fn write(&self) -> Result<Transaction<'static, Sqlite>, sqlx::Error> {
        self.writer.begin_with("BEGIN IMMEDIATE").await
    }

    /// Refuses to run unless WAL, `synchronous=FULL`, foreign keys and the busy timeout are
    /// in force on both pools.
    async fn check_settings(&self) -> Result<(), DbError> {
        for pool in [&self.writer, &self.reader] {
            let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
                .fetch_one(pool)
                .await?;
            expect("journal_mode", mode.to_lowercase(), "wal")?;
            for (pragma, query, expected) in [
                ("synchronous", "PRAGMA synchronous", "2"),
                ("foreign_keys", "PRAGMA foreign_keys", "1"),
                ("busy_timeout", "PRAGMA busy_timeout", "5000"),
            ] {
                let found: i64 = sqlx::query_scalar(query).fetch_one(pool).await?;
                expect(pragma, found.to_string(), expected)?;
            }
        }
        Ok(())
    }

    /// Copies the database to `dest` with `VACUUM INTO`, then checks the copy's integrity.
    pub async fn backup(&self, dest: &Path) -> Result<(), DbError> {
        let dest = dest.to_string_lossy().to_string();
        sqlx::query("VACUUM INTO ?")
            .bind(&dest)
            .execute(&self.writer)
            .await?;
        let copy = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(
                SqliteConnectOptions::from_str("sqlite:")?
                    .filename(&dest)
                    .read_only(true),
            )
            .await?;
        let result: String = sqlx::query_scalar("PRAGMA integrity_check")
            .fetch_one(&copy)
            .await?;
        copy.close().await;
        expect("integrity_check of the backup", result, "ok")
    }

    /// A cheap round trip to the reader pool, for health checks.
    /// The counter of changes to what the public pages show (migration 0005).
    pub async fn data_version(&self) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar("SELECT n FROM data_version WHERE id = 1")
            .fetch_one(&self.reader)
            .await
    }

    pub async fn ping(&self) -> Result<(), sqlx::Error> {
        sqlx::query("SELECT 1")
            .execute(&self.reader)
            .await
            .map(|_| ())
    }
}

fn expect(pragma: &'static str, found: String, expected: &'static str) -> Result<(), DbError> {
    if found == expected {
        Ok(())
    } else {
        Err(DbError::Pragma {
            pragma,
            found,
            expected,
        })
    }
}
