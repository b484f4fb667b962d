//! The SQLite store: one writer connection and a small read-only pool (so that no
//! acknowledged write is lost and writes do not fail as "database is locked"): WAL with
//! `synchronous=FULL`, foreign keys on, a 5 s busy timeout, every write transaction opened
//! with `BEGIN IMMEDIATE`, and the WAL checkpointed off the writer. Also the file-level
//! tools only a file store has: `backup` (`VACUUM INTO`) and `restore`.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use super::DbError;

use super::migrations::SQLITE as MIGRATOR;

/// How often the background checkpoint copies the WAL into the database.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(500);

/// Copies committed pages from the WAL into the database file, off the writer: a `PASSIVE`
/// checkpoint never waits for the writer or the readers (it copies what no reader still
/// needs), and SQLite starts the WAL over once it has all been copied. Runs while a clone
/// of the `Db` is `alive`, then closes its connection; a failure is logged and tried again
/// at the next tick.
async fn checkpoints(pool: SqlitePool, alive: std::sync::Weak<()>) {
    let mut tick = tokio::time::interval(CHECKPOINT_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if alive.strong_count() == 0 {
            pool.close().await;
            return;
        }
        if let Err(e) = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
            .execute(&pool)
            .await
        {
            tracing::warn!("background WAL checkpoint: {e}");
        }
    }
}

/// The SQLite store's connections: one writer, several readers.
#[derive(Clone, Debug)]
pub(super) struct Pools {
    path: std::path::PathBuf,
    pub writer: SqlitePool,
    pub reader: SqlitePool,
    /// Held by every clone: the background checkpoints stop once the last one is dropped.
    _alive: std::sync::Arc<()>,
}

impl Pools {
    /// Opens (creating if needed) the database file, runs the migrations and checks that
    /// the durability settings are in force.
    pub async fn open(path: &Path) -> Result<Pools, DbError> {
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
        // One connection each stays open while the server runs, so `restore` can tell the
        // file is in use (an idle pool would otherwise close them all).
        // The writer never checkpoints the WAL itself (a commit that crosses SQLite's 1,000
        // pages would copy them into the database and fsync it before answering: ~20 ms on
        // some commits); a connection of its own does it in the background (`checkpoints`).
        // No pool pings a connection before lending it (sqlx's default): an SQLite connection
        // is a thread of this process, and the ping was a hand-over to it and back before
        // every query's own, for nothing the query would not tell.
        let writer = SqlitePoolOptions::new()
            .test_before_acquire(false)
            .max_connections(1)
            .min_connections(1)
            .idle_timeout(None)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(
                base.clone()
                    .create_if_missing(true)
                    .pragma("wal_autocheckpoint", "0"),
            )
            .await?;
        MIGRATOR.run(&writer).await?;
        let checkpointer = SqlitePoolOptions::new()
            .test_before_acquire(false)
            .max_connections(1)
            .min_connections(1)
            .idle_timeout(None)
            .connect_with(base.clone().pragma("wal_autocheckpoint", "0"))
            .await?;
        let alive = std::sync::Arc::new(());
        tokio::spawn(checkpoints(checkpointer, std::sync::Arc::downgrade(&alive)));
        let reader = SqlitePoolOptions::new()
            .test_before_acquire(false)
            .max_connections(4)
            .min_connections(1)
            .connect_with(base.read_only(true))
            .await?;
        let pools = Pools {
            path: path.to_path_buf(),
            writer,
            reader,
            _alive: alive,
        };
        pools.check_settings().await?;
        Ok(pools)
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

    /// Copies the database to `dest` with `VACUUM INTO` — a consistent snapshot: every write
    /// committed before it starts is in it, none that commits after — checks the copy's
    /// integrity, flushes it to disk (`VACUUM INTO` does not) and only then gives it its name,
    /// so `dest` is never a partial or unchecked copy. An existing `dest` is replaced.
    /// The file work (removing, flushing, renaming) runs on a blocking thread, never on the
    /// async worker that asked for the backup (`POST /admin/backup`).
    pub async fn backup(&self, dest: &Path) -> Result<(), DbError> {
        let partial = beside(dest, &format!(".partial-{}", std::process::id()));
        off_thread({
            let partial = partial.clone();
            move || {
                let _ = std::fs::remove_file(partial);
                Ok(())
            }
        })
        .await?;
        let result = match self.backup_to(&partial).await {
            Ok(()) => {
                let (from, to) = (partial.clone(), dest.to_path_buf());
                off_thread(move || put_in_place(&from, &to)).await
            }
            Err(e) => Err(e),
        };
        if result.is_err() {
            let _ = tokio::fs::remove_file(&partial).await;
        }
        result
    }

    /// Whether the database file opens for writing (not a read-only file or file system),
    /// asked on a blocking thread (for `/healthz`, which a proxy asks every few seconds).
    pub async fn file_writable(&self) -> Result<bool, sqlx::Error> {
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || {
            std::fs::OpenOptions::new().write(true).open(path).is_ok()
        })
        .await
        .map_err(|e| sqlx::Error::Io(std::io::Error::other(e)))
    }

    async fn backup_to(&self, dest: &Path) -> Result<(), DbError> {
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
}

/// A lock held past the busy timeout: nothing was written, the request may be sent again
/// (decided by SQLite's result code, never by the message).
pub(super) fn is_busy(e: &sqlx::Error) -> bool {
    matches!(primary_code(e), Some(SQLITE_BUSY | SQLITE_LOCKED))
}

/// A write the triggers of migration 0024 refused: the row belongs to an archived league
/// (`RAISE(ABORT, 'league_archived')`, SQLITE_CONSTRAINT_TRIGGER).
pub(super) fn is_league_archived(e: &sqlx::Error) -> bool {
    const SQLITE_CONSTRAINT_TRIGGER: &str = "1811";
    e.as_database_error()
        .and_then(|d| d.try_downcast_ref::<sqlx::sqlite::SqliteError>())
        .is_some_and(|d| {
            sqlx::error::DatabaseError::code(d).as_deref() == Some(SQLITE_CONSTRAINT_TRIGGER)
                && sqlx::error::DatabaseError::message(d) == "league_archived"
        })
}

fn expect(pragma: &'static str, found: String, expected: &'static str) -> Result<(), DbError> {
    if found == expected {
        Ok(())
    } else {
        Err(DbError::Setting {
            name: pragma,
            found,
            expected,
        })
    }
}

/// `path` with `suffix` appended to its file name (`x.sqlite3` → `x.sqlite3-wal`).
fn beside(path: &Path, suffix: &str) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

/// The files SQLite keeps next to a database: the write-ahead log, its index and the
/// rollback journal. A stale one next to another database would be applied to it.
const SIDECARS: [&str; 3] = ["-wal", "-shm", "-journal"];

fn sync_file(path: &Path) -> std::io::Result<()> {
    std::fs::File::open(path)?.sync_all()
}

/// Makes a rename in `path`'s folder durable.
fn sync_dir_of(path: &Path) -> std::io::Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => std::fs::File::open(dir)?.sync_all(),
        _ => std::fs::File::open(".")?.sync_all(),
    }
}

/// Runs the file work `f` on a blocking thread.
async fn off_thread(
    f: impl FnOnce() -> std::io::Result<()> + Send + 'static,
) -> Result<(), DbError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(std::io::Error::other)
        .and_then(|done| done)
        .map_err(|e| DbError::Sqlx(sqlx::Error::Io(e)))
}

/// Flushes `from` to disk, renames it to `to` (atomically, in the same folder) and flushes the
/// folder.
fn put_in_place(from: &Path, to: &Path) -> std::io::Result<()> {
    sync_file(from)?;
    std::fs::rename(from, to)?;
    sync_dir_of(to)
}

/// Why a backup was not restored. Nothing was changed: the database in place (if any) is as
/// it was.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error("cannot read the backup {0}: {1}")]
    Unreadable(String, std::io::Error),
    #[error("{0} is not an SQLite database")]
    NotSqlite(String),
    #[error("{0} is damaged: {1}")]
    Damaged(String, String),
    #[error("{0} is not a spades-im database: {1}")]
    NotSpadesIm(String, String),
    #[error(
        "{path} was written by a newer spades-im (its tables are at migration {found}, this \
         build knows migrations up to {known}): restore it with that release or a later one"
    )]
    Newer {
        path: String,
        found: i64,
        known: i64,
    },
    #[error("{0} is the database itself: give a backup file")]
    SameFile(String),
    #[error(
        "{0} is in use (a server or another command has it open): stop the server first; \
         nothing was changed"
    )]
    InUse(String),
    #[error("{0} already exists: add --force to replace it with the backup")]
    Exists(String),
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    #[error("database: {0}")]
    Sqlx(#[from] sqlx::Error),
}

/// What [`restore`] put in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    /// The last migration the backup's tables are at.
    pub migration: i64,
    /// The last migration this build knows (the server runs the ones in between at start).
    pub latest: i64,
    /// Whether a database was replaced.
    pub replaced: bool,
}

/// SQLite's primary result codes: another connection holds the lock; the file is damaged or
/// not a database.
const SQLITE_BUSY: i32 = 5;
const SQLITE_LOCKED: i32 = 6;
const SQLITE_CORRUPT: i32 = 11;
const SQLITE_NOTADB: i32 = 26;

fn primary_code(e: &sqlx::Error) -> Option<i32> {
    e.as_database_error()
        .and_then(|d| d.try_downcast_ref::<sqlx::sqlite::SqliteError>())
        .and_then(sqlx::error::DatabaseError::code)
        .and_then(|c| c.parse::<i32>().ok())
        .map(|c| c & 0xff)
}

/// Puts the backup `backup` in place as the database `target`, after checking that it is a
/// sound spades-im database: `PRAGMA integrity_check` and `foreign_key_check` pass, its
/// `_sqlx_migrations` are this build's (the same checksums) and none is newer or unfinished.
///
/// Refuses a `target` that a server (or any connection) has open, and an existing one unless
/// `force`. The backup is copied (with a `-wal` or `-journal` beside it, folded in) to a
/// temporary file in `target`'s folder, checked there, flushed to disk and renamed over
/// `target`; the old database's `-wal`, `-shm` and `-journal` are removed first, so that they
/// are never applied to the restored one. Nothing is changed if any step fails.
pub async fn restore(backup: &Path, target: &Path, force: bool) -> Result<Restored, RestoreError> {
    let shown = backup.display().to_string();
    let meta = std::fs::metadata(backup).map_err(|e| RestoreError::Unreadable(shown.clone(), e))?;
    if !meta.is_file() {
        return Err(RestoreError::Unreadable(
            shown,
            std::io::Error::other("not a file"),
        ));
    }
    let replaced = target.exists();
    if replaced {
        let same = std::fs::canonicalize(backup)
            .and_then(|b| Ok(b == std::fs::canonicalize(target)?))
            .unwrap_or(false);
        if same {
            return Err(RestoreError::SameFile(shown));
        }
        if in_use(target).await? {
            return Err(RestoreError::InUse(target.display().to_string()));
        }
        if !force {
            return Err(RestoreError::Exists(target.display().to_string()));
        }
    }
    // A backup with a log beside it is a database copied as files: not while it is written.
    if SIDECARS.iter().any(|s| beside(backup, s).exists()) && in_use(backup).await? {
        return Err(RestoreError::InUse(shown));
    }
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir)
        .map_err(|e| RestoreError::Io(format!("cannot create {}", dir.display()), e))?;
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "database".into());
    let temp = dir.join(format!(".{name}.restore-{}", std::process::id()));
    let remove_temp = || {
        for path in std::iter::once(temp.clone()).chain(SIDECARS.iter().map(|s| beside(&temp, s))) {
            let _ = std::fs::remove_file(path);
        }
    };
    remove_temp();
    let result = copy_check_and_place(backup, &temp, target, &shown).await;
    remove_temp();
    let migration = result?;
    Ok(Restored {
        migration,
        latest: latest_migration(),
        replaced,
    })
}

async fn copy_check_and_place(
    backup: &Path,
    temp: &Path,
    target: &Path,
    shown: &str,
) -> Result<i64, RestoreError> {
    let io = |what: String| move |e: std::io::Error| RestoreError::Io(what, e);
    std::fs::copy(backup, temp).map_err(|e| RestoreError::Unreadable(shown.to_string(), e))?;
    for suffix in ["-wal", "-journal"] {
        let log = beside(backup, suffix);
        if log.exists() {
            std::fs::copy(&log, beside(temp, suffix))
                .map_err(|e| RestoreError::Unreadable(log.display().to_string(), e))?;
        }
    }
    let migration = check_backup(temp, shown).await?;
    for suffix in SIDECARS {
        let stale = beside(target, suffix);
        match std::fs::remove_file(&stale) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(format!("cannot remove {}", stale.display()))(e)),
        }
    }
    put_in_place(temp, target).map_err(io(format!("cannot write {}", target.display())))?;
    Ok(migration)
}

/// The last (up) migration this build knows.
fn latest_migration() -> i64 {
    MIGRATOR
        .iter()
        .filter(|m| !m.migration_type.is_down_migration())
        .map(|m| m.version)
        .max()
        .unwrap_or(0)
}

/// Whether another connection has the database at `path` open: in WAL mode every open
/// connection holds a shared lock on the file, so an exclusive lock is refused.
async fn in_use(path: &Path) -> Result<bool, RestoreError> {
    use sqlx::{ConnectOptions, Connection};
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(false)
        .locking_mode(sqlx::sqlite::SqliteLockingMode::Exclusive)
        .busy_timeout(Duration::ZERO);
    let tried = async {
        let mut conn = options.connect().await?;
        let read = sqlx::query("SELECT count(*) FROM sqlite_master")
            .execute(&mut conn)
            .await;
        conn.close().await?;
        read.map(|_| ())
    };
    match tried.await {
        Ok(()) => Ok(false),
        Err(e) => match primary_code(&e) {
            Some(SQLITE_BUSY | SQLITE_LOCKED) => Ok(true),
            // Not a database (or a damaged one): nobody runs on it.
            Some(SQLITE_NOTADB | SQLITE_CORRUPT) => Ok(false),
            _ => Err(e.into()),
        },
    }
}

/// Checks the copy `copy` of the backup `shown`; returns the last migration it is at. The
/// copy is left in rollback-journal mode with no log beside it.
async fn check_backup(copy: &Path, shown: &str) -> Result<i64, RestoreError> {
    use sqlx::{ConnectOptions, Connection};
    let judge = |e: sqlx::Error| match primary_code(&e) {
        Some(SQLITE_NOTADB) => RestoreError::NotSqlite(shown.to_string()),
        Some(SQLITE_CORRUPT) => RestoreError::Damaged(shown.to_string(), e.to_string()),
        _ => RestoreError::Sqlx(e),
    };
    let mut conn = SqliteConnectOptions::new()
        .filename(copy)
        .create_if_missing(false)
        .journal_mode(SqliteJournalMode::Delete)
        .connect()
        .await
        .map_err(judge)?;
    let result = check_tables(&mut conn, shown).await;
    conn.close().await.map_err(judge)?;
    result.map_err(|e| match e {
        RestoreError::Sqlx(e) => judge(e),
        other => other,
    })
}

async fn check_tables(conn: &mut sqlx::SqliteConnection, shown: &str) -> Result<i64, RestoreError> {
    let damaged = |why: String| RestoreError::Damaged(shown.to_string(), why);
    let not_ours = |why: String| RestoreError::NotSpadesIm(shown.to_string(), why);
    let problems: Vec<String> = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_all(&mut *conn)
        .await?;
    if problems != ["ok"] {
        let first: Vec<&str> = problems.iter().take(3).map(String::as_str).collect();
        return Err(damaged(format!(
            "its integrity check found {} problem(s): {}",
            problems.len(),
            first.join("; ")
        )));
    }
    let broken: Vec<(String, Option<i64>, String)> =
        sqlx::query_as("SELECT \"table\", rowid, parent FROM pragma_foreign_key_check")
            .fetch_all(&mut *conn)
            .await?;
    if let Some((table, rowid, parent)) = broken.first() {
        return Err(damaged(format!(
            "{} row(s) refer to rows that do not exist (first: {table} row {} to {parent})",
            broken.len(),
            rowid.map_or("?".into(), |r| r.to_string())
        )));
    }
    let has_table: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'",
    )
    .fetch_one(&mut *conn)
    .await?;
    if has_table == 0 {
        return Err(not_ours("it has no _sqlx_migrations table".into()));
    }
    let applied: Vec<(i64, bool, Vec<u8>)> =
        sqlx::query_as("SELECT version, success, checksum FROM _sqlx_migrations ORDER BY version")
            .fetch_all(&mut *conn)
            .await?;
    let known: Vec<_> = MIGRATOR
        .iter()
        .filter(|m| !m.migration_type.is_down_migration())
        .collect();
    let latest = latest_migration();
    let Some(&(last, _, _)) = applied.last() else {
        return Err(not_ours("its _sqlx_migrations table is empty".into()));
    };
    if last > latest {
        return Err(RestoreError::Newer {
            path: shown.to_string(),
            found: last,
            known: latest,
        });
    }
    if let Some((version, _, _)) = applied.iter().find(|(_, success, _)| !success) {
        return Err(damaged(format!(
            "its migration {version} did not finish (it was copied during an upgrade)"
        )));
    }
    for (version, _, checksum) in &applied {
        match known.iter().find(|m| m.version == *version) {
            Some(m) if m.checksum.as_ref() == checksum.as_slice() => {}
            Some(m) => {
                return Err(not_ours(format!(
                    "its migration {version} is not this program's \"{}\"",
                    m.description
                )));
            }
            None => {
                return Err(not_ours(format!(
                    "its migration {version} is not one of this program's"
                )));
            }
        }
    }
    if applied.first().map(|(v, _, _)| *v) != known.first().map(|m| m.version) {
        return Err(not_ours(
            "it lacks this program's first migration".to_string(),
        ));
    }
    Ok(last)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The writer leaves the WAL alone; the background copies it into the database file.
    #[tokio::test]
    async fn the_wal_is_checkpointed_off_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.sqlite3");
        let pools = Pools::open(&path).await.unwrap();
        let auto: i64 = sqlx::query_scalar("PRAGMA wal_autocheckpoint")
            .fetch_one(&pools.writer)
            .await
            .unwrap();
        assert_eq!(auto, 0, "the writer never checkpoints");
        let before = std::fs::metadata(&path).unwrap().len();
        // About 4 MB in the WAL, well past SQLite's 1,000 pages.
        let mut tx = pools.writer.begin().await.unwrap();
        sqlx::query("CREATE TABLE filler (x BLOB)")
            .execute(&mut *tx)
            .await
            .unwrap();
        for _ in 0..64 {
            sqlx::query("INSERT INTO filler VALUES (randomblob(65536))")
                .execute(&mut *tx)
                .await
                .unwrap();
        }
        tx.commit().await.unwrap();
        let copied = |len: u64| len > before + 4_000_000;
        let mut waited = Duration::ZERO;
        while !copied(std::fs::metadata(&path).unwrap().len()) {
            assert!(
                waited < Duration::from_secs(5),
                "the database file did not grow: {} bytes",
                std::fs::metadata(&path).unwrap().len()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
            waited += Duration::from_millis(50);
        }
    }
}
