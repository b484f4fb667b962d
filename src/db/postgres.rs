//! The PostgreSQL store (15 or later), for more than one instance or a managed database.
//!
//! One pool serves reads and writes. Where SQLite has a single writer, every write
//! transaction here first takes one transaction-scoped advisory lock ([`WRITE_LOCK`]), so the
//! writes of every instance on the database are serialized the same way (a read-then-write
//! never races another writer, and no two write transactions can deadlock), while reads
//! never wait (MVCC). The lock and every other lock wait give up after `lock_timeout` (5 s),
//! which answers 503 "not saved, send again", as SQLite's busy timeout does.

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{ConnectOptions, Connection, PgPool};

use super::DbError;

pub(super) static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("migrations/postgres");

/// Taken first in every write transaction and held until it ends: see the module's comment.
/// (The key is any number no other program on the database uses as an advisory lock.)
pub(super) const WRITE_LOCK: &str = "SELECT pg_advisory_xact_lock(5140013)";

/// The oldest PostgreSQL the schema and its triggers are written for.
const OLDEST: i64 = 150_000;

/// Connects, runs the migrations (sqlx holds an advisory lock meanwhile, so instances that
/// start together do not run them twice) and checks that commits are durable.
pub(super) async fn open(url: &str) -> Result<PgPool, DbError> {
    // Waiting for the write lock is normal under load: not worth a warning per statement.
    let options = PgConnectOptions::from_str(url)
        .map_err(|e| DbError::Connect(format!("the URL is not one PostgreSQL takes: {e}")))?
        .application_name("spades-im")
        .options([("lock_timeout", "5s")])
        .disable_statement_logging();
    // One connection first, so that a wrong host, password or database name is reported as
    // such (the pool would retry it until its timeout and report only the timeout).
    options
        .connect()
        .await
        .map_err(|e| DbError::Connect(e.to_string()))?
        .close()
        .await?;
    let pool = PgPoolOptions::new()
        .max_connections(16)
        .min_connections(1)
        .acquire_timeout(Duration::from_secs(10))
        .connect_with(options)
        .await?;
    if pending_migrations(&pool).await {
        MIGRATOR.run(&pool).await?;
    }
    check_settings(&pool).await?;
    Ok(pool)
}

/// Whether a migration of this build is not applied yet. When none is, the migrator (which
/// creates its table first) is not run, so an instance starts on a read-only database with
/// the current schema (a standby: `/healthz` says 503 until it is promoted).
async fn pending_migrations(pool: &PgPool) -> bool {
    // No table yet (a new database) reads as nothing applied.
    let applied: Vec<i64> =
        sqlx::query_scalar("SELECT version FROM _sqlx_migrations WHERE success")
            .fetch_all(pool)
            .await
            .unwrap_or_default();
    MIGRATOR
        .iter()
        .filter(|m| !m.migration_type.is_down_migration())
        .any(|m| !applied.contains(&m.version))
}

/// Refuses to run on a server older than 15, or one that may lose a commit it acknowledged:
/// `fsync` and `full_page_writes` off, or `synchronous_commit` off.
async fn check_settings(pool: &PgPool) -> Result<(), DbError> {
    let version: String = sqlx::query_scalar("SHOW server_version_num")
        .fetch_one(pool)
        .await?;
    if version.parse::<i64>().unwrap_or(0) < OLDEST {
        return Err(DbError::Setting {
            name: "server_version_num",
            found: version,
            expected: "150000 or later (PostgreSQL 15+)",
        });
    }
    for (name, show, expected) in [
        ("fsync", "SHOW fsync", "on"),
        ("full_page_writes", "SHOW full_page_writes", "on"),
        ("synchronous_commit", "SHOW synchronous_commit", "on"),
    ] {
        let found: String = sqlx::query_scalar(show).fetch_one(pool).await?;
        // `remote_write`, `remote_apply` and `local` flush the commit locally as `on` does.
        let durable = found == expected
            || (name == "synchronous_commit"
                && matches!(found.as_str(), "remote_write" | "remote_apply" | "local"));
        if !durable {
            return Err(DbError::Setting {
                name,
                found,
                expected,
            });
        }
    }
    Ok(())
}

/// SQLSTATEs that mean "nothing was written, send it again": a serialization failure, a
/// deadlock, a lock wait past `lock_timeout`.
pub(super) fn is_busy(e: &sqlx::Error) -> bool {
    e.as_database_error()
        .and_then(|d| d.try_downcast_ref::<sqlx::postgres::PgDatabaseError>())
        .is_some_and(|d| matches!(d.code(), "40001" | "40P01" | "55P03"))
}
