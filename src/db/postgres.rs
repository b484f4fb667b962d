//! The PostgreSQL store (15 or later), for more than one instance or a managed database.
//!
//! One pool serves reads and writes. Where SQLite has a single writer, every write
//! transaction here first takes one transaction-scoped advisory lock ([`WRITE_LOCK`]), so the
//! writes of every instance on the database are serialized the same way (a read-then-write
//! never races another writer, and no two write transactions can deadlock), while reads
//! never wait (MVCC). The lock and every other lock wait give up after `lock_timeout` (5 s),
//! which answers 503 "not saved, send again", as SQLite's busy timeout does.
//!
//! A write transaction is `READ COMMITTED` whatever the server's default: its statements
//! after the lock see every write committed before it was granted. (Under `REPEATABLE READ`
//! its snapshot would date from the lock request, before the writer it waited for
//! committed: its writes would fail as "could not serialize".)

use std::str::FromStr;
use std::time::Duration;

use sqlx::migrate::MigrateError;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPoolOptions};
use sqlx::{ConnectOptions, Connection, PgPool};

use super::DbError;

use super::migrations::POSTGRES as MIGRATOR;

/// How every write transaction begins: see the module's comment.
pub(super) const BEGIN_WRITE: &str = "BEGIN ISOLATION LEVEL READ COMMITTED";

/// Taken first in every write transaction and held until it ends: see the module's comment.
/// (The key is any number no other program on the database uses as an advisory lock.)
pub(super) const WRITE_LOCK: &str = "SELECT pg_advisory_xact_lock(5140013)";

/// The server settings of every connection, sent when it opens.
///
/// - `lock_timeout`: a write waits at most 5 s for the write lock (or any lock), then is
///   answered 503 "not saved, send again".
/// - `idle_in_transaction_session_timeout`: the server ends a session that stays silent
///   inside a transaction for 30 s, rolling it back and releasing the write lock. A live
///   instance never pauses that long inside one (its transactions last milliseconds; the
///   longest, `migrate-to`, sends statement after statement), but one whose machine
///   vanished mid-transaction would otherwise hold the lock, and every instance's writes
///   would answer 503, until TCP gave up on it (about 2 hours).
/// - `tcp_keepalives_*`: the server probes a connection silent for 60 s every 10 s and drops
///   it after 6 unanswered probes, so the session of a vanished machine ends within about
///   2 minutes even outside a transaction (and frees its connection slot).
pub(super) const SESSION_SETTINGS: [(&str, &str); 5] = [
    ("lock_timeout", "5s"),
    ("idle_in_transaction_session_timeout", "30s"),
    ("tcp_keepalives_idle", "60"),
    ("tcp_keepalives_interval", "10"),
    ("tcp_keepalives_count", "6"),
];

/// The oldest PostgreSQL the schema and its triggers are written for.
const OLDEST: i64 = 150_000;

/// Connects, checks the server (its version, and that commits are durable) before anything
/// is written, checks the migrations already applied against this build's, and runs the
/// new ones (sqlx holds an advisory lock meanwhile, so instances that start together do not
/// run them twice).
pub(super) async fn open(url: &str) -> Result<PgPool, DbError> {
    check_url(url).map_err(DbError::Connect)?;
    // Waiting for the write lock is normal under load: not worth a warning per statement.
    let options = PgConnectOptions::from_str(url)
        .map_err(|e| DbError::Connect(format!("the URL is not one PostgreSQL takes: {e}")))?
        .application_name("spades-im")
        .options(SESSION_SETTINGS)
        .disable_statement_logging();
    // One connection first, so that a wrong host, password or database name is reported as
    // such (the pool would retry it until its timeout and report only the timeout).
    let mut first = options
        .connect()
        .await
        .map_err(|e| DbError::Connect(e.to_string()))?;
    let checked = check_server(&mut first).await;
    first.close().await?;
    checked?;
    let pool = PgPoolOptions::new()
        .max_connections(16)
        .min_connections(1)
        .acquire_timeout(Duration::from_secs(10))
        .connect_with(options)
        .await?;
    migrate(&pool).await?;
    Ok(pool)
}

/// Checks the migrations already applied against this build's, then runs the missing ones.
/// When none is missing, the migrator (which creates its table first, a write) is not run,
/// so an instance starts on a read-only database with the current schema (a standby:
/// `/healthz` says 503 until it is promoted).
async fn migrate(pool: &PgPool) -> Result<(), DbError> {
    let applied: Vec<Applied> = match sqlx::query_as(
        "SELECT version, success, checksum FROM _sqlx_migrations ORDER BY version",
    )
    .fetch_all(pool)
    .await
    {
        Ok(rows) => rows,
        // No table yet: a new database, nothing applied.
        Err(e) if is_undefined_table(&e) => Vec::new(),
        Err(e) => return Err(e.into()),
    };
    if check_applied(&applied)? {
        MIGRATOR.run(pool).await?;
    }
    Ok(())
}

/// A row of `_sqlx_migrations`.
#[derive(Debug, Clone, sqlx_macros::FromRow)]
struct Applied {
    version: i64,
    success: bool,
    checksum: Vec<u8>,
}

/// Refuses what the migrator itself would refuse: a migration that did not finish, one this
/// build does not know (the database is newer than this program), one whose file changed
/// since it was applied. Answers whether a migration of this build is still to run.
fn check_applied(applied: &[Applied]) -> Result<bool, MigrateError> {
    let known: Vec<_> = MIGRATOR
        .iter()
        .filter(|m| !m.migration_type.is_down_migration())
        .collect();
    for row in applied {
        if !row.success {
            return Err(MigrateError::Dirty(row.version));
        }
        match known.iter().find(|m| m.version == row.version) {
            None => return Err(MigrateError::VersionMissing(row.version)),
            Some(m) if m.checksum.as_ref() != row.checksum.as_slice() => {
                return Err(MigrateError::VersionMismatch(row.version));
            }
            Some(_) => {}
        }
    }
    Ok(known
        .iter()
        .any(|m| !applied.iter().any(|row| row.version == m.version)))
}

/// `42P01`: the table does not exist.
fn is_undefined_table(e: &sqlx::Error) -> bool {
    e.as_database_error()
        .and_then(|d| d.code())
        .is_some_and(|code| code == "42P01")
}

/// Refuses to run on a server older than 15, or one that may lose a commit it acknowledged:
/// `fsync` and `full_page_writes` off, or `synchronous_commit` off. Run before migrating, so
/// a refused server is left as it was.
async fn check_server(conn: &mut PgConnection) -> Result<(), DbError> {
    let version: String = sqlx::query_scalar("SHOW server_version_num")
        .fetch_one(&mut *conn)
        .await?;
    check_version(&version)?;
    for (name, show, expected) in [
        ("fsync", "SHOW fsync", "on"),
        ("full_page_writes", "SHOW full_page_writes", "on"),
        ("synchronous_commit", "SHOW synchronous_commit", "on"),
    ] {
        let found: String = sqlx::query_scalar(show).fetch_one(&mut *conn).await?;
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

/// Refuses a server older than PostgreSQL 15 (`server_version_num` below 150000).
fn check_version(server_version_num: &str) -> Result<(), DbError> {
    if server_version_num.trim().parse::<i64>().unwrap_or(0) < OLDEST {
        return Err(DbError::Setting {
            name: "server_version_num",
            found: server_version_num.to_string(),
            expected: "150000 or later (PostgreSQL 15+)",
        });
    }
    Ok(())
}

/// The URL parameters the driver (sqlx) reads. It ignores any other, after logging it with
/// its value, which may be a secret (`sslpassword`).
const PARAMETERS: [&str; 18] = [
    "sslmode",
    "ssl-mode",
    "sslrootcert",
    "ssl-root-cert",
    "ssl-ca",
    "sslcert",
    "ssl-cert",
    "sslkey",
    "ssl-key",
    "statement-cache-capacity",
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "password",
    "application_name",
    "options",
];

/// What a URL whose password holds a reserved character is told.
const ENCODE: &str = "write the password percent-encoded (@ as %40, / as %2F, ? as %3F, \
                      # as %23, % as %25)";

/// Checks a PostgreSQL URL as the driver reads it (the `url` crate, as sqlx does), so that a
/// mistake is reported as such and no piece of a password is taken for a host, a port or a
/// database. The messages never repeat the URL or a value in it.
///
/// The user name and password end at the last `@` before the host, so a raw `@` in a password
/// is read right; a raw `/`, `?` or `#` ends them early, which shows as a port that is not a
/// number, a `#…` fragment or an `@` in the database name, each refused here.
pub(super) fn check_url(url: &str) -> Result<(), String> {
    let parsed = url::Url::parse(url)
        .map_err(|e| format!("the PostgreSQL URL does not parse ({e}): {ENCODE}"))?;
    if parsed.fragment().is_some() {
        return Err(format!(
            "the PostgreSQL URL has a '#' in it, which would end it there: {ENCODE}"
        ));
    }
    // An `@` after the host: a password cut short by a `/` or a `?`.
    if parsed.path().contains('@') || parsed.query_pairs().any(|(key, _)| key.contains('@')) {
        return Err(format!(
            "the PostgreSQL URL has an '@' after its host, as when a '/' or '?' in the \
             password ends it early: {ENCODE}"
        ));
    }
    for (key, _) in parsed.query_pairs() {
        let known = PARAMETERS.contains(&key.as_ref())
            || (key.starts_with("options[") && key.ends_with(']'));
        if known {
            continue;
        }
        let plain = key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'));
        let which = if plain {
            format!("the parameter \"{key}\"")
        } else {
            "a parameter".to_string()
        };
        return Err(format!(
            "the PostgreSQL URL has {which} that spades-im does not read (it reads {}): \
             remove it",
            PARAMETERS.join(", ")
        ));
    }
    Ok(())
}

/// `url` with its password, and the value of any parameter whose name holds "password",
/// replaced by `***`; a URL that does not parse is shown as its scheme alone.
pub(super) fn masked(url: &str) -> String {
    let Ok(mut parsed) = url::Url::parse(url) else {
        let scheme = url.split_once("://").map_or("postgres", |(s, _)| s);
        return format!("{scheme}://… (not a valid URL)");
    };
    if parsed.password().is_some() {
        // Fails only for a URL without a host, which has no password either.
        let _ = parsed.set_password(Some("***"));
    }
    parsed.set_fragment(None);
    let secret = |key: &str| key.to_ascii_lowercase().contains("password");
    if parsed.query_pairs().any(|(key, _)| secret(&key)) {
        let pairs: Vec<(String, String)> = parsed
            .query_pairs()
            .map(|(key, value)| {
                let value = if secret(&key) {
                    "***".into()
                } else {
                    value.into_owned()
                };
                (key.into_owned(), value)
            })
            .collect();
        parsed.query_pairs_mut().clear().extend_pairs(pairs);
    }
    parsed.to_string()
}

/// SQLSTATEs that mean "nothing was written, send it again": a serialization failure, a
/// deadlock, a lock wait past `lock_timeout`.
pub(super) fn is_busy(e: &sqlx::Error) -> bool {
    e.as_database_error()
        .and_then(|d| d.try_downcast_ref::<sqlx::postgres::PgDatabaseError>())
        .is_some_and(|d| matches!(d.code(), "40001" | "40P01" | "55P03"))
}

/// A write the triggers of migration 0012 refused: the row belongs to an archived league
/// (SQLSTATE `SP409`, our own).
pub(super) fn is_league_archived(e: &sqlx::Error) -> bool {
    e.as_database_error()
        .and_then(|d| d.try_downcast_ref::<sqlx::postgres::PgDatabaseError>())
        .is_some_and(|d| d.code() == "SP409")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_server_older_than_15_is_refused() {
        for old in ["140011", "90624", "", "not a number"] {
            let e = check_version(old).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "database setting server_version_num is {old}, expected 150000 or later \
                     (PostgreSQL 15+); refusing to run"
                )
            );
        }
        for new in ["150000", "150018", "170002"] {
            assert!(check_version(new).is_ok(), "{new}");
        }
    }

    /// This build's migrations as the database would list them once applied.
    fn all_applied() -> Vec<Applied> {
        MIGRATOR
            .iter()
            .filter(|m| !m.migration_type.is_down_migration())
            .map(|m| Applied {
                version: m.version,
                success: true,
                checksum: m.checksum.to_vec(),
            })
            .collect()
    }

    #[test]
    fn applied_migrations_are_checked_even_when_none_is_pending() {
        assert!(check_applied(&[]).unwrap(), "a new database");
        let all = all_applied();
        assert!(!check_applied(&all).unwrap(), "nothing pending");
        assert!(check_applied(&all[..1]).unwrap(), "one pending");
        let mut changed = all.clone();
        changed[0].checksum[0] ^= 1;
        assert!(matches!(
            check_applied(&changed),
            Err(MigrateError::VersionMismatch(1))
        ));
        let mut unfinished = all.clone();
        unfinished[1].success = false;
        assert!(matches!(
            check_applied(&unfinished),
            Err(MigrateError::Dirty(2))
        ));
        let mut newer = all.clone();
        newer.push(Applied {
            version: 9999,
            success: true,
            checksum: vec![0; 48],
        });
        assert!(matches!(
            check_applied(&newer),
            Err(MigrateError::VersionMissing(9999))
        ));
    }
}
