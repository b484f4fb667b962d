//! The database: SQLite (one file, the default) or PostgreSQL (`--db postgres://…`).
//!
//! The services never see which: they get a [`Conn`] (a pooled connection or a
//! transaction) and pass it to the functions of this module's children, which hold every
//! query. A query written once for both stores runs through [`on_store!`], which expands it
//! once per backend; where the SQL differs the function matches on [`Connection::raw`] itself.
//! Placeholders are `$1, $2…`, which both stores read.
//!
//! Writes are serialized on both: SQLite has one writer connection and opens every write
//! transaction with `BEGIN IMMEDIATE`; PostgreSQL begins it `READ COMMITTED` and takes one
//! advisory lock first ([`postgres`]). So a read-then-write inside a write transaction is
//! never raced.

pub mod action_keys;
pub mod audit;
pub mod board;
pub mod captains;
pub mod copy;
pub mod desk;
pub mod divisions;
pub mod group_commit;
pub mod hands;
pub mod idempotency;
pub mod league_doc;
pub mod leagues;
pub mod lineups;
pub mod match_write;
pub mod matches;
mod migrations;
pub mod notices;
pub mod player_eligibility;
pub mod players;
pub mod playoffs;
mod postgres;
pub mod queue;
pub mod rating_notes;
pub mod requests;
mod sqlite;
pub mod swiss;
pub mod tonight;
pub mod users;

use std::path::{Path, PathBuf};
use std::time::Duration;

use sqlx::pool::PoolConnection;
use sqlx::postgres::PgPoolOptions;
use sqlx::{PgConnection, PgPool, Postgres, Sqlite, SqliteConnection, Transaction};

use crate::domain::Clock;
use group_commit::{GroupCommit, Savepoint, WriteBody};
pub use sqlite::{RestoreError, Restored, restore};

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("database: {0}")]
    Sqlx(#[from] sqlx::Error),
    #[error("database migrations: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("database setting {name} is {found}, expected {expected}; refusing to run")]
    Setting {
        name: &'static str,
        found: String,
        expected: &'static str,
    },
    #[error("{0}")]
    Unsupported(String),
    #[error("cannot connect to the PostgreSQL database: {0}")]
    Connect(String),
}

/// Where the data is: what `--db` (or `SPADES_DB`) names.
#[derive(Clone, PartialEq, Eq)]
pub enum Location {
    /// An SQLite database file, created if missing.
    File(PathBuf),
    /// A PostgreSQL database: `postgres://user:password@host/db` (or `postgresql://`).
    Postgres(String),
}

impl Location {
    /// A `postgres://` or `postgresql://` URL (checked as the driver will read it), or a
    /// file path. Any other URL (`scheme://…`) is refused, never taken for a folder named
    /// `scheme:`. The message never repeats the argument (it may hold a password).
    pub fn parse(arg: &str) -> Result<Location, String> {
        if let Some((scheme, _)) = arg.split_once("://")
            && !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        {
            return match scheme.to_ascii_lowercase().as_str() {
                "postgres" | "postgresql" => {
                    postgres::check_url(arg)?;
                    Ok(Location::Postgres(arg.to_string()))
                }
                _ => Err(format!(
                    "\"{scheme}://…\" is not a database this version keeps its data in: give \
                     a PostgreSQL URL (postgres://user:password@host/database) or the path of \
                     an SQLite file (for example data/spades-im.sqlite3)"
                )),
            };
        }
        if arg.trim().is_empty() {
            return Err("give the path of the SQLite database file or a postgres:// URL".into());
        }
        Ok(Location::File(PathBuf::from(arg)))
    }
}

/// Shown without the password.
impl std::fmt::Debug for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// The file's path, or the URL with its password (in the user information or a
/// `?password=`) replaced by `***`.
impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::File(path) => write!(f, "{}", path.display()),
            Location::Postgres(url) => write!(f, "{}", postgres::masked(url)),
        }
    }
}

/// Which store is behind a [`Db`], for `/healthz` and the start-up message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    Sqlite,
    Postgres,
}

impl StoreKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StoreKind::Sqlite => "sqlite",
            StoreKind::Postgres => "postgresql",
        }
    }
}

#[derive(Clone, Debug)]
enum Store {
    Sqlite(sqlite::Pools),
    Postgres(PgPool),
}

impl Store {
    /// The store as the group commit's writer uses it, made on the writer's runtime: on
    /// PostgreSQL a pool of one connection of its own (opened on first use, with the same
    /// settings); SQLite's writer already is one connection on a thread of its own.
    fn own_writer(self) -> Store {
        match self {
            Store::Sqlite(pools) => Store::Sqlite(pools),
            Store::Postgres(pool) => Store::Postgres(
                PgPoolOptions::new()
                    .max_connections(1)
                    .acquire_timeout(Duration::from_secs(10))
                    .connect_lazy_with(pool.connect_options().as_ref().clone()),
            ),
        }
    }

    /// A write transaction: it holds the store's single write lock from its first statement.
    async fn begin_write(&self) -> Result<Tx, sqlx::Error> {
        Ok(Tx(match self {
            Store::Sqlite(pools) => {
                TxHandle::Sqlite(pools.writer.begin_with("BEGIN IMMEDIATE").await?)
            }
            Store::Postgres(pool) => {
                let mut tx = pool.begin_with(postgres::BEGIN_WRITE).await?;
                sqlx::query(postgres::WRITE_LOCK).execute(&mut *tx).await?;
                TxHandle::Postgres(tx)
            }
        }))
    }
}

/// The database, and the clock every change is stamped with.
#[derive(Clone, Debug)]
pub struct Db {
    store: Store,
    clock: Clock,
    batches: GroupCommit,
    /// The address notices by email link to (`--public-url`), when the service has a relay:
    /// changes then write their notices (`service::notices`).
    notices: Option<std::sync::Arc<url::Url>>,
}

impl Db {
    /// Opens the store (creating an SQLite file if needed), runs the migrations and checks
    /// that the durability settings are in force (on PostgreSQL, the server's before
    /// migrating, so a refused one is left as it was).
    pub async fn open(location: &Location, clock: Clock) -> Result<Db, DbError> {
        let store = match location {
            Location::File(path) => Store::Sqlite(sqlite::Pools::open(path).await?),
            Location::Postgres(url) => Store::Postgres(postgres::open(url).await?),
        };
        Ok(Db {
            batches: GroupCommit::start(store.clone())
                .map_err(|e| DbError::Unsupported(format!("cannot start the writer: {e}")))?,
            store,
            clock,
            notices: None,
        })
    }

    /// The same store, writing notices by email that link to `public_url`.
    pub fn with_notices(mut self, public_url: url::Url) -> Db {
        self.notices = Some(std::sync::Arc::new(public_url));
        self
    }

    /// The address notices link to; `None` when the service sends none.
    pub fn notices(&self) -> Option<&url::Url> {
        self.notices.as_deref()
    }

    /// Opens an SQLite file (the tests and tools that work on files).
    pub async fn open_file(path: &Path, clock: Clock) -> Result<Db, DbError> {
        Db::open(&Location::File(path.to_path_buf()), clock).await
    }

    pub fn kind(&self) -> StoreKind {
        match self.store {
            Store::Sqlite(_) => StoreKind::Sqlite,
            Store::Postgres(_) => StoreKind::Postgres,
        }
    }

    /// The time (and the league's time zone) of this service.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// A connection for pages and reports. Read-only on SQLite; on PostgreSQL nothing stops
    /// a write through it, but such a write skips the write lock (see [`postgres`]) and can
    /// race a read-then-write of [`Db::write`]: write only through [`Db::write`] or
    /// [`Db::batched`].
    pub async fn read(&self) -> Result<Pooled, sqlx::Error> {
        Ok(Pooled(match &self.store {
            Store::Sqlite(pools) => PooledHandle::Sqlite(pools.reader.acquire().await?),
            Store::Postgres(pool) => PooledHandle::Postgres(pool.acquire().await?),
        }))
    }

    /// A connection for a read that must see the latest write in the same request (SQLite's
    /// writer connection; on PostgreSQL every connection does).
    pub async fn read_latest(&self) -> Result<Pooled, sqlx::Error> {
        Ok(Pooled(match &self.store {
            Store::Sqlite(pools) => PooledHandle::Sqlite(pools.writer.acquire().await?),
            Store::Postgres(pool) => PooledHandle::Postgres(pool.acquire().await?),
        }))
    }

    /// One read-only snapshot: every query in it sees the same committed state.
    pub async fn snapshot(&self) -> Result<Tx, sqlx::Error> {
        Ok(Tx(match &self.store {
            Store::Sqlite(pools) => TxHandle::Sqlite(pools.reader.begin().await?),
            Store::Postgres(pool) => TxHandle::Postgres(
                pool.begin_with("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                    .await?,
            ),
        }))
    }

    /// Starts a write transaction that holds the store's write lock (`BEGIN IMMEDIATE` on
    /// SQLite, the advisory lock on PostgreSQL), so a read-then-write never fails half-way.
    pub async fn write(&self) -> Result<Tx, sqlx::Error> {
        self.store.begin_write().await
    }

    /// Runs `body` in the writer's next batch (one transaction and one flush for every
    /// request waiting: see [`group_commit`]) and answers once it is committed. For the
    /// writes of league night, which come many at once; `body` must not commit.
    pub async fn batched<T, E>(&self, body: impl WriteBody<T, E>) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<sqlx::Error> + Send + 'static,
    {
        self.batches.run(body, Savepoint::Eager).await
    }

    /// As [`Db::batched`], but on SQLite the request's savepoint is opened by its first
    /// write, in the same hand-over to SQLite's thread (one fewer for each request).
    /// The first write of `body` must be a query that takes the opening
    /// ([`Connection::take_savepoint_opening`]; today `db::hands::record_hand`): a write
    /// before it would not be rolled back if the request fails. Reads may come first.
    pub async fn batched_opening_on_write<T, E>(&self, body: impl WriteBody<T, E>) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<sqlx::Error> + Send + 'static,
    {
        self.batches.run(body, Savepoint::OnFirstWrite).await
    }

    /// Copies the database to the file `dest`, checked (SQLite only: PostgreSQL has its
    /// own tools, `pg_dump` and base backups).
    pub async fn backup(&self, dest: &Path) -> Result<(), DbError> {
        match &self.store {
            Store::Sqlite(pools) => pools.backup(dest).await,
            Store::Postgres(_) => Err(DbError::Unsupported(
                "backup copies an SQLite file; a PostgreSQL database is backed up with \
                 pg_dump or a base backup (see docs/deploy.md)"
                    .into(),
            )),
        }
    }

    /// The writer's batch sizes, waits and durations (for `GET /metrics`).
    pub fn batch_metrics(&self) -> &group_commit::BatchMetrics {
        self.batches.metrics()
    }

    /// The connections of each pool as they are now, for `GET /metrics`: SQLite's readers
    /// (`read`) and its writer (`write`), or PostgreSQL's one pool (`shared`).
    pub fn pool_use(&self) -> Vec<PoolUse> {
        fn of<DB: sqlx::Database>(name: &'static str, pool: &sqlx::Pool<DB>) -> PoolUse {
            let open = pool.size();
            let idle = u32::try_from(pool.num_idle()).unwrap_or(open).min(open);
            PoolUse {
                pool: name,
                in_use: open - idle,
                idle,
                max: pool.options().get_max_connections(),
            }
        }
        match &self.store {
            Store::Sqlite(pools) => vec![of("read", &pools.reader), of("write", &pools.writer)],
            Store::Postgres(pool) => vec![of("shared", pool)],
        }
    }

    /// The counter of changes to what the public pages show (kept by triggers).
    pub async fn data_version(&self) -> Result<i64, sqlx::Error> {
        let mut conn = self.read().await?;
        on_store!(conn, |c| sqlx::query_scalar(
            "SELECT n FROM data_version WHERE id = 1"
        )
        .fetch_one(c)
        .await)
    }

    /// Whether the store answers and would take a write, at the cost of one read: the
    /// SQLite file opens for writing; PostgreSQL is no standby (`pg_is_in_recovery()`) and
    /// not in read-only mode. For `/healthz`, which a proxy asks every few seconds, so it
    /// takes no lock a hand entry would wait for.
    pub async fn writable(&self) -> Result<bool, sqlx::Error> {
        match &self.store {
            Store::Sqlite(pools) => {
                sqlx::query("SELECT 1").execute(&pools.reader).await?;
                pools.file_writable().await
            }
            Store::Postgres(pool) => {
                sqlx::query_scalar(
                    "SELECT NOT pg_is_in_recovery()
                            AND current_setting('transaction_read_only') = 'off'",
                )
                .fetch_one(pool)
                .await
            }
        }
    }
}

/// One connection pool's use at a moment ([`Db::pool_use`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolUse {
    pub pool: &'static str,
    /// Connections lent out (running a query, or held by a request or the writer).
    pub in_use: u32,
    /// Open connections waiting in the pool.
    pub idle: u32,
    /// The most the pool opens.
    pub max: u32,
}

/// A connection of either store, pooled ([`Pooled`]) or a transaction ([`Tx`]): what every
/// query function takes. Both deref to it.
pub type Conn = dyn Connection + Send;

/// What a query needs of a connection: the backend's own, and which store it is.
pub trait Connection {
    fn raw(&mut self) -> Raw<'_>;
    fn kind(&self) -> StoreKind;

    /// Inside a batch that left a request's savepoint for its first write to open
    /// ([`Db::batched_opening_on_write`]), the statements that open it, given once: the
    /// first write runs them before itself, as part of its own query where it can.
    /// `None` everywhere else.
    fn take_savepoint_opening(&mut self) -> Option<&'static str> {
        None
    }
}

/// The backend's own connection, for one query.
pub enum Raw<'c> {
    Sqlite(&'c mut SqliteConnection),
    Postgres(&'c mut PgConnection),
}

/// A pooled connection, outside any transaction of its own ([`Db::read`]).
pub struct Pooled(PooledHandle);

enum PooledHandle {
    Sqlite(PoolConnection<Sqlite>),
    Postgres(PoolConnection<Postgres>),
}

impl Connection for Pooled {
    fn raw(&mut self) -> Raw<'_> {
        match &mut self.0 {
            PooledHandle::Sqlite(c) => Raw::Sqlite(c),
            PooledHandle::Postgres(c) => Raw::Postgres(c),
        }
    }

    fn kind(&self) -> StoreKind {
        match self.0 {
            PooledHandle::Sqlite(_) => StoreKind::Sqlite,
            PooledHandle::Postgres(_) => StoreKind::Postgres,
        }
    }
}

/// A transaction; dropped without [`Tx::commit`], it rolls back.
pub struct Tx(TxHandle);

enum TxHandle {
    Sqlite(Transaction<'static, Sqlite>),
    Postgres(Transaction<'static, Postgres>),
}

impl Connection for Tx {
    fn raw(&mut self) -> Raw<'_> {
        match &mut self.0 {
            TxHandle::Sqlite(t) => Raw::Sqlite(t),
            TxHandle::Postgres(t) => Raw::Postgres(t),
        }
    }

    fn kind(&self) -> StoreKind {
        match self.0 {
            TxHandle::Sqlite(_) => StoreKind::Sqlite,
            TxHandle::Postgres(_) => StoreKind::Postgres,
        }
    }
}

impl Tx {
    pub async fn commit(self) -> Result<(), sqlx::Error> {
        match self.0 {
            TxHandle::Sqlite(t) => t.commit().await,
            TxHandle::Postgres(t) => t.commit().await,
        }
    }

    pub async fn rollback(self) -> Result<(), sqlx::Error> {
        match self.0 {
            TxHandle::Sqlite(t) => t.rollback().await,
            TxHandle::Postgres(t) => t.rollback().await,
        }
    }
}

/// `&mut *tx` (and `&mut *conn`) is a `&mut Conn`.
macro_rules! deref_to_conn {
    ($outer:ty) => {
        impl std::ops::Deref for $outer {
            type Target = Conn;
            fn deref(&self) -> &Conn {
                self
            }
        }

        impl std::ops::DerefMut for $outer {
            fn deref_mut(&mut self) -> &mut Conn {
                self
            }
        }
    };
}
deref_to_conn!(Pooled);
deref_to_conn!(Tx);

/// Runs the same query on either store: `on_store!(conn, |c| sqlx::query("…").fetch_one(c).await)`
/// expands the body once with `c: &mut SqliteConnection` and once with `c: &mut PgConnection`.
/// Both arms must give the same type, so a statement run for its effect is written
/// `on_store!(conn, execute sqlx::query("…").bind(…))`: it runs the query and gives
/// `sqlx::Result<u64>`, the rows it changed (each backend has its own result type).
/// (Exported for the tests, which read and plant rows on either store.)
#[macro_export]
macro_rules! on_store {
    ($conn:expr, execute $query:expr) => {
        $crate::db::on_store!($conn, |c| $query
            .execute(c)
            .await
            .map(|r| r.rows_affected()))
    };
    ($conn:expr, |$c:ident| $body:expr) => {
        match $conn.raw() {
            $crate::db::Raw::Sqlite($c) => $body,
            $crate::db::Raw::Postgres($c) => $body,
        }
    };
}
pub use crate::on_store;

/// The rows of a list that every league shares (the league list, the scoreboard, the
/// supervisors' matches), each decoded on its own: a row that does not read is left out and
/// logged with `what`, its id and its league, so one league's bad row never fails a page
/// that all the others share (`check` names it).
pub fn readable<'r, R, T>(rows: &'r [R], what: &'static str) -> Vec<T>
where
    R: sqlx::Row,
    T: sqlx::FromRow<'r, R>,
    i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    &'static str: sqlx::ColumnIndex<R>,
{
    rows.iter()
        .filter_map(|row| match T::from_row(row) {
            Ok(read) => Some(read),
            Err(e) => {
                let id = row.try_get::<i64, _>("id").ok();
                let league = row.try_get::<i64, _>("league_id").ok();
                tracing::error!(what, ?id, ?league, error = %e, "left out a row that does not read (see `check`)");
                None
            }
        })
        .collect()
}

/// No pooled connection in time, or a lock held past the store's timeout: nothing was
/// written, the request may be sent again (decided by the store's error code, never by the
/// message).
pub fn is_busy(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::PoolTimedOut) || sqlite::is_busy(e) || postgres::is_busy(e)
}

/// The store refused a write because its row belongs to an archived league (the triggers of
/// the migrations `0024_archive` / `0012_archive`: docs/api.md §18.2).
pub fn is_league_archived(e: &sqlx::Error) -> bool {
    sqlite::is_league_archived(e) || postgres::is_league_archived(e)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_url_is_never_taken_for_a_file() {
        for url in ["sqlite://data/x.sqlite3", "file://tmp/x", "mysql://u:p@h/d"] {
            let e = Location::parse(url).unwrap_err();
            assert!(e.contains("is not a database"), "{url}: {e}");
            assert!(!e.contains(":p@"), "{e}");
        }
        for url in ["postgres://user:pass@host/db", "postgresql://host/db"] {
            assert_eq!(
                Location::parse(url).unwrap(),
                Location::Postgres(url.to_string())
            );
        }
        for path in [
            "data/spades-im.sqlite3",
            "/var/lib/spades/db.sqlite3",
            "./a:b.sqlite3",
            "c:/x",
        ] {
            assert_eq!(
                Location::parse(path).unwrap(),
                Location::File(PathBuf::from(path))
            );
        }
        assert!(Location::parse("").is_err());
    }

    #[test]
    fn a_url_is_shown_without_its_password() {
        let shown = Location::parse("postgres://spades:s3cret@db.example.edu:5432/im")
            .unwrap()
            .to_string();
        assert_eq!(shown, "postgres://spades:***@db.example.edu:5432/im");
        assert!(
            !format!("{:?}", Location::parse("postgres://a:s3cret@h/d").unwrap())
                .contains("s3cret")
        );
        for (url, shown) in [
            (
                "postgres://spades@h/im?password=s3cret&sslmode=require",
                "postgres://spades@h/im?password=***&sslmode=require",
            ),
            (
                "postgresql://h/im?user=spades&PASSWORD=s3cret",
                "postgresql://h/im?user=spades&PASSWORD=***",
            ),
            // Not a parameter the driver takes (refused by `parse`), still never shown.
            (
                "postgres://spades@h/im?sslpassword=s3cret",
                "postgres://spades@h/im?sslpassword=***",
            ),
            // A raw `@` in the password: the user information ends at the last `@`.
            (
                "postgres://spades:p@s3cret@h/im",
                "postgres://spades:***@h/im",
            ),
            (
                "postgres://spades:p%40s3cret@h/im",
                "postgres://spades:***@h/im",
            ),
            ("postgres://spades@h:5433/im", "postgres://spades@h:5433/im"),
        ] {
            let location = Location::Postgres(url.to_string());
            assert_eq!(location.to_string(), shown, "{url}");
            assert!(!format!("{location:?}").contains("s3cret"), "{url}");
        }
        // A URL that does not parse shows nothing of itself.
        let broken = Location::Postgres("postgres://u:s3cret#x@h:port/d".into());
        assert_eq!(broken.to_string(), "postgres://… (not a valid URL)");
    }

    /// A raw `@` in a password is read as the driver reads it (up to the last `@`); a raw
    /// `/`, `?` or `#`, which would cut the password short, is refused with what to do,
    /// and no message repeats the password or an unknown parameter's value.
    #[test]
    fn a_password_with_reserved_characters_is_read_right_or_refused_plainly() {
        use std::str::FromStr;
        let raw = "postgres://spades:p@ss@db.example.edu/im";
        assert_eq!(
            Location::parse(raw).unwrap(),
            Location::Postgres(raw.to_string())
        );
        let options = sqlx::postgres::PgConnectOptions::from_str(raw).unwrap();
        assert_eq!(options.get_host(), "db.example.edu");
        assert_eq!(options.get_username(), "spades");
        assert_eq!(options.get_database(), Some("im"));
        for url in [
            "postgres://spades:pa/s3cret@h/im",
            "postgres://spades:pa?s3cret@h/im",
            "postgres://spades:pa#s3cret@h/im",
            "postgres://spades:12#s3cret@h/im",
            "postgres://spades:12/s3cret@h/im",
            "postgres://spades:12?s3cret@h/im",
        ] {
            let e = Location::parse(url).unwrap_err();
            assert!(e.contains("percent-encoded (@ as %40"), "{url}: {e}");
            assert!(!e.contains("s3cret"), "{url}: {e}");
        }
        for (url, named) in [
            (
                "postgres://h/im?sslpassword=s3cret",
                "the parameter \"sslpassword\"",
            ),
            (
                "postgres://h/im?connect_timeout=10",
                "the parameter \"connect_timeout\"",
            ),
            ("postgres://h/im?x%20s3cret=1", "a parameter"),
        ] {
            let e = Location::parse(url).unwrap_err();
            assert!(
                e.contains(&format!(
                    "the PostgreSQL URL has {named} that spades-im does not read"
                )),
                "{url}: {e}"
            );
            assert!(!e.contains("s3cret"), "{url}: {e}");
        }
        for url in [
            "postgres://spades@h/im?sslmode=require&application_name=x",
            "postgres://spades@h/im?options[statement_timeout]=5s",
            "postgres:///im?host=/var/run/postgresql",
        ] {
            assert!(Location::parse(url).is_ok(), "{url}");
        }
    }
}
