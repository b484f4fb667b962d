//! Group commit: the writes of league night (start a match, record a hand, correct one) are
//! queued for one writer task, which runs every request waiting in the queue inside one
//! write transaction (`BEGIN IMMEDIATE … COMMIT` on SQLite, the write lock on PostgreSQL) —
//! one flush to disk for the whole batch instead of one per request.
//!
//! Each request still runs its own checks on what the batch has written before it (two
//! hands for one match in one batch: the second sees the first's version and is refused),
//! inside its own savepoint: a request that fails is rolled back to its savepoint and
//! answered with its error, and its neighbours commit. Nobody is answered before the
//! commit: an answer means the write is on disk, and a failed commit answers every request
//! of the batch with the error (nothing of it was saved).
//!
//! Every statement on the writer is a hand-over to SQLite's thread (or a round trip to
//! PostgreSQL), and the requests of a batch wait for each other, so the savepoints cost as
//! few as they can: a request's opening also keeps (releases) the savepoint before it, and
//! on SQLite a new hand's request leaves the opening to its first write, which runs it in
//! the same query ([`Savepoint::OnFirstWrite`]).

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::time::Instant;

use futures_util::FutureExt;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use tokio::sync::{mpsc, oneshot};

use super::{Conn, Connection, Raw, Store, StoreKind, Tx, on_store};

/// A future borrowing the writer's connection.
pub type BoxFuture<'c, T> = Pin<Box<dyn Future<Output = T> + Send + 'c>>;

/// The body of a batched write: given the writer's connection, a future of its answer `T`
/// or its error `E` (an `Err` rolls back what the body wrote, and only that).
pub trait WriteBody<T, E>:
    for<'c> FnOnce(&'c mut Conn) -> BoxFuture<'c, Result<T, E>> + Send + 'static
{
}

impl<F, T, E> WriteBody<T, E> for F where
    F: for<'c> FnOnce(&'c mut Conn) -> BoxFuture<'c, Result<T, E>> + Send + 'static
{
}

/// The most requests one transaction takes: the batch's own commit is not delayed by an
/// unbounded queue, and the next batch forms while this one is written.
const MAX_BATCH: usize = 256;

/// Requests waiting for the writer before a new one is refused as busy (503, send again).
const QUEUE: usize = 4096;

/// A queued request: its body, run on the writer's connection inside the batch, or refused
/// unrun when the batch could not begin; and when it was queued.
struct Job {
    queued: Instant,
    savepoint: Savepoint,
    body: Body,
}

/// When a request's savepoint is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Savepoint {
    /// Before its body runs: one hand-over of its own.
    Eager,
    /// On SQLite, by the body's first write, which runs [`OPENING`] as part of its own query
    /// ([`Connection::take_savepoint_opening`]). On PostgreSQL, which cannot send a query
    /// with binds and other statements together, it is eager.
    OnFirstWrite,
}

/// What opens a request's savepoint: it keeps (releases) the one before it, the previous
/// request's or the batch's first, in the same statement list.
pub const OPENING: &str = "RELEASE request; SAVEPOINT request;";

/// The writer's transaction as a request's body sees it: with the statements that open
/// its savepoint while its first write has yet to take them.
struct InBatch {
    tx: Tx,
    opening: Option<&'static str>,
}

impl Connection for InBatch {
    fn raw(&mut self) -> Raw<'_> {
        self.tx.raw()
    }

    fn kind(&self) -> StoreKind {
        self.tx.kind()
    }

    fn take_savepoint_opening(&mut self) -> Option<&'static str> {
        self.opening.take()
    }
}

type Body = Box<dyn for<'c> FnOnce(Slot<'c>) -> BoxFuture<'c, Done> + Send>;

/// What `GET /metrics` shows of the writer: how full its batches are, how long requests wait
/// for it, how long a batch takes to write and commit. (Clones share the counts.)
#[derive(Clone, Debug)]
pub struct BatchMetrics {
    /// Requests per batch (1 to [`MAX_BATCH`]).
    pub sizes: Histogram,
    /// Seconds from a request's queueing to the writer taking its batch.
    pub waits: Histogram,
    /// Seconds from a batch's `BEGIN` to its commit (or failure).
    pub durations: Histogram,
}

impl Default for BatchMetrics {
    fn default() -> BatchMetrics {
        BatchMetrics {
            // 1, 2, 4 … 256.
            sizes: Histogram::new(exponential_buckets(1.0, 2.0, 9)),
            // 0.25 ms … 4.1 s.
            waits: Histogram::new(exponential_buckets(0.000_25, 2.0, 15)),
            durations: Histogram::new(exponential_buckets(0.000_25, 2.0, 15)),
        }
    }
}

/// What the writer hands a request.
enum Slot<'c> {
    Run(&'c mut Conn),
    Refuse(BatchLost),
}

/// What a request's body left behind: whether it wrote (keep its savepoint) and how to
/// answer it once the fate of the whole batch is known.
struct Done {
    wrote: bool,
    answer: Box<dyn FnOnce(Result<(), BatchLost>) + Send>,
}

/// Why a request whose body succeeded was not saved after all.
#[derive(Debug, Clone)]
pub enum BatchLost {
    /// No writer connection in time, or the store's write lock held past its timeout (by a
    /// command-line write, or on PostgreSQL another instance's batch): send again.
    Busy,
    /// The transaction could not be begun or committed, or a savepoint failed.
    Failed(String),
}

impl From<BatchLost> for sqlx::Error {
    fn from(lost: BatchLost) -> sqlx::Error {
        match lost {
            BatchLost::Busy => sqlx::Error::PoolTimedOut,
            BatchLost::Failed(why) => {
                sqlx::Error::Io(std::io::Error::other(format!("not saved: {why}")))
            }
        }
    }
}

fn lost(e: &sqlx::Error) -> BatchLost {
    if super::is_busy(e) {
        BatchLost::Busy
    } else {
        BatchLost::Failed(e.to_string())
    }
}

/// The queue in front of the writer task.
#[derive(Clone)]
pub struct GroupCommit {
    queue: mpsc::Sender<Job>,
    metrics: BatchMetrics,
}

impl std::fmt::Debug for GroupCommit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupCommit").finish_non_exhaustive()
    }
}

impl GroupCommit {
    /// Starts the writer on `writer`, the store whose write transactions it opens, on a
    /// thread and runtime of its own: each request of a batch waits for the one before it,
    /// and every statement of each is a hand-over to the store (a round trip to PostgreSQL),
    /// so the writer must not queue behind the server's other tasks for each of them. On
    /// PostgreSQL it writes on a connection of its own, opened on its runtime, whose
    /// answers wake it there.
    pub(super) fn start(writer: Store) -> std::io::Result<GroupCommit> {
        let (queue, requests) = mpsc::channel(QUEUE);
        let metrics = BatchMetrics::default();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let counts = metrics.clone();
        std::thread::Builder::new()
            .name("spades-writer".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let writer = writer.own_writer();
                    write_batches(writer, requests, counts).await;
                });
            })?;
        Ok(GroupCommit { queue, metrics })
    }

    /// The writer's batch sizes, waits and durations so far.
    pub fn metrics(&self) -> &BatchMetrics {
        &self.metrics
    }

    /// Runs `body` in the next batch and answers once the batch is committed. An `Err` from
    /// `body` rolls back what it wrote (and only that) and is returned as it is.
    /// `savepoint` says when the request's savepoint is opened.
    pub async fn run<T, E>(&self, body: impl WriteBody<T, E>, savepoint: Savepoint) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<sqlx::Error> + Send + 'static,
    {
        let (job, answer) = request(body, savepoint);
        let lost_queue = || {
            E::from(sqlx::Error::from(BatchLost::Failed(
                "the writer has stopped".into(),
            )))
        };
        match self.queue.try_send(job) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => {
                return Err(E::from(sqlx::Error::PoolTimedOut));
            }
            Err(mpsc::error::TrySendError::Closed(_)) => return Err(lost_queue()),
        }
        answer.await.unwrap_or_else(|_| Err(lost_queue()))
    }
}

/// `body` as a queued request, and where its answer will come.
fn request<T, E>(
    body: impl WriteBody<T, E>,
    savepoint: Savepoint,
) -> (Job, oneshot::Receiver<Result<T, E>>)
where
    T: Send + 'static,
    E: From<sqlx::Error> + Send + 'static,
{
    let (reply, answer) = oneshot::channel::<Result<T, E>>();
    let body: Body = Box::new(move |slot| {
        Box::pin(async move {
            let conn = match slot {
                Slot::Run(conn) => conn,
                Slot::Refuse(why) => {
                    let _ = reply.send(Err(E::from(sqlx::Error::from(why))));
                    return Done {
                        wrote: false,
                        answer: Box::new(|_| {}),
                    };
                }
            };
            let result = match AssertUnwindSafe(body(conn)).catch_unwind().await {
                Ok(result) => result,
                Err(_) => Err(E::from(sqlx::Error::Protocol(
                    "the request failed unexpectedly (a bug): nothing was saved".into(),
                ))),
            };
            Done {
                wrote: result.is_ok(),
                answer: Box::new(move |batch: Result<(), BatchLost>| {
                    let answer = match (result, batch) {
                        (Ok(_), Err(lost)) => Err(E::from(sqlx::Error::from(lost))),
                        (result, _) => result,
                    };
                    // The requester may have gone (client hung up): the write stands.
                    let _ = reply.send(answer);
                }),
            }
        })
    });
    let job = Job {
        queued: Instant::now(),
        savepoint,
        body,
    };
    (job, answer)
}

/// Answers every request of a batch that could not begin with `why`, unrun.
async fn refuse_all(jobs: Vec<Job>, why: BatchLost, t0: Instant, metrics: &BatchMetrics) {
    for job in jobs {
        (job.body)(Slot::Refuse(why.clone())).await;
    }
    metrics.durations.observe(t0.elapsed().as_secs_f64());
}

/// The writer task: takes the first waiting request and every one queued behind it (up to
/// [`MAX_BATCH`]), writes them in one transaction, answers them, and starts again.
async fn write_batches(writer: Store, mut requests: mpsc::Receiver<Job>, metrics: BatchMetrics) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while requests.recv_many(&mut batch, MAX_BATCH).await > 0 {
        write_batch(&writer, std::mem::take(&mut batch), &metrics).await;
    }
}

async fn write_batch(writer: &Store, jobs: Vec<Job>, metrics: &BatchMetrics) {
    // Timed for `SPADES_LOG=spades_im::db::group_commit=debug` and `GET /metrics`.
    let t0 = Instant::now();
    let n = jobs.len();
    metrics.sizes.observe(n as f64);
    for job in &jobs {
        metrics
            .waits
            .observe(t0.saturating_duration_since(job.queued).as_secs_f64());
    }
    let tx = match writer.begin_write().await {
        Ok(tx) => tx,
        Err(e) => return refuse_all(jobs, lost(&e), t0, metrics).await,
    };
    let mut batch = InBatch { tx, opening: None };
    // Each request runs in a savepoint named `request`, which is kept open after it (its
    // rollback or its writes kept) until the next request's opening releases it, in the same
    // hand-over as it opens the next one; the commit closes the last. So every request's
    // opening is the same, and the batch's first opens the first savepoint for it to release.
    let mut broken = on_store!(batch, execute sqlx::raw_sql("SAVEPOINT request"))
        .err()
        .map(|e| lost(&e));
    let deferrable = batch.kind() == StoreKind::Sqlite;
    let mut done = Vec::with_capacity(jobs.len());
    for job in jobs {
        if broken.is_none() {
            if deferrable && job.savepoint == Savepoint::OnFirstWrite {
                batch.opening = Some(OPENING);
            } else {
                broken = on_store!(batch, execute sqlx::raw_sql(OPENING))
                    .err()
                    .map(|e| lost(&e));
            }
        }
        if let Some(why) = &broken {
            // The transaction is unusable: the rest are not run.
            (job.body)(Slot::Refuse(why.clone())).await;
            continue;
        }
        let d = (job.body)(Slot::Run(&mut batch)).await;
        // A request that did not open its savepoint wrote nothing: nothing to roll back.
        let opened = batch.opening.take().is_none();
        if opened
            && !d.wrote
            && let Err(e) = on_store!(batch, execute sqlx::raw_sql("ROLLBACK TO request"))
        {
            broken = Some(lost(&e));
        }
        done.push(d);
    }
    let t1 = t0.elapsed();
    let outcome = match broken {
        Some(why) => Err(why),
        None => batch.tx.commit().await.map_err(|e| lost(&e)),
    };
    metrics.durations.observe(t0.elapsed().as_secs_f64());
    tracing::debug!(
        requests = n,
        run_us = t1.as_micros() as u64,
        commit_us = (t0.elapsed() - t1).as_micros() as u64,
        "group commit"
    );
    for d in done {
        (d.answer)(outcome.clone());
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::db::sqlite::Pools;

    /// A database file with `t(x UNIQUE)`.
    async fn writer(dir: &tempfile::TempDir) -> Store {
        let pools = Pools::open(&dir.path().join("t.sqlite3")).await.unwrap();
        sqlx::query("CREATE TABLE t (x INTEGER UNIQUE)")
            .execute(&pools.writer)
            .await
            .unwrap();
        Store::Sqlite(pools)
    }

    async fn insert(conn: &mut Conn, x: i64) -> Result<i64, sqlx::Error> {
        on_store!(conn, execute sqlx::query("INSERT INTO t (x) VALUES ($1)")
            .bind(x))?;
        Ok(x)
    }

    /// [`insert`] as a first write that opens the request's savepoint, when it is left to
    /// it, in the same query.
    async fn insert_opening(conn: &mut Conn, x: i64) -> Result<i64, sqlx::Error> {
        let opening = conn.take_savepoint_opening().unwrap_or_default();
        let sql = format!("{opening} INSERT INTO t (x) VALUES ($1)");
        on_store!(conn, execute sqlx::query(sqlx::AssertSqlSafe(sql)).bind(x))?;
        Ok(x)
    }

    /// Runs `requests` as one batch on `store`: their answers, in order.
    async fn run_batch<const N: usize>(
        store: &Store,
        requests: [(Job, oneshot::Receiver<Result<i64, sqlx::Error>>); N],
    ) -> Vec<Result<i64, String>> {
        let (jobs, answers): (Vec<Job>, Vec<_>) = requests.into_iter().unzip();
        write_batch(store, jobs, &BatchMetrics::default()).await;
        let mut results = Vec::new();
        for answer in answers {
            results.push(answer.await.unwrap().map_err(|e| e.to_string()));
        }
        results
    }

    async fn rows(store: &Store) -> Vec<i64> {
        let Store::Sqlite(pools) = store else {
            unreachable!()
        };
        sqlx::query_scalar("SELECT x FROM t ORDER BY x")
            .fetch_all(&pools.reader)
            .await
            .unwrap()
    }

    /// One batch of six requests: the ones that fail (an error after a write, a
    /// constraint, a panic) are rolled back alone and answered with their error, the others
    /// are committed and answered with their values.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failing_request_leaves_its_batch_committed() {
        let dir = tempfile::tempdir().unwrap();
        let pool = writer(&dir).await;
        let results = run_batch(
            &pool,
            [
                request(|c| Box::pin(insert(c, 1)), Savepoint::Eager),
                // Writes, then fails: its write must not be kept.
                request(
                    |c| {
                        Box::pin(async move {
                            insert(&mut *c, 10).await?;
                            Err(sqlx::Error::RowNotFound)
                        })
                    },
                    Savepoint::Eager,
                ),
                request(|c| Box::pin(insert(c, 2)), Savepoint::Eager),
                // Sees the batch's earlier writes: 1 is taken.
                request(|c| Box::pin(insert(c, 1)), Savepoint::Eager),
                request(
                    |c| {
                        Box::pin(async move {
                            insert(&mut *c, 11).await?;
                            panic!("a bug in a request");
                        })
                    },
                    Savepoint::Eager,
                ),
                request(|c| Box::pin(insert(c, 3)), Savepoint::Eager),
            ],
        )
        .await;
        assert_eq!(results[0], Ok(1));
        assert!(results[1].is_err(), "{results:?}");
        assert_eq!(results[2], Ok(2));
        assert!(
            results[3].as_ref().is_err_and(|e| e.contains("UNIQUE")),
            "{results:?}"
        );
        assert!(
            results[4]
                .as_ref()
                .is_err_and(|e| e.contains("nothing was saved")),
            "{results:?}"
        );
        assert_eq!(results[5], Ok(3));
        assert_eq!(rows(&pool).await, vec![1, 2, 3]);
    }

    /// Requests whose first write opens their savepoint, among one that opens it before:
    /// one that fails before writing leaves the savepoint before it alone (the request
    /// before it keeps its write), one that fails after is rolled back alone.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_savepoint_opened_by_the_first_write_rolls_back_only_its_request() {
        let dir = tempfile::tempdir().unwrap();
        let pool = writer(&dir).await;
        let late = Savepoint::OnFirstWrite;
        let results = run_batch(
            &pool,
            [
                request(|c| Box::pin(insert_opening(c, 1)), late),
                // Refused on what it read, before writing: 1 must be kept.
                request(
                    |c| {
                        Box::pin(async move {
                            let _: Option<i64> =
                                on_store!(c, |c| sqlx::query_scalar("SELECT MAX(x) FROM t")
                                    .fetch_one(c)
                                    .await)?;
                            Err::<i64, _>(sqlx::Error::RowNotFound)
                        })
                    },
                    late,
                ),
                // Writes, then fails: its write must not be kept.
                request(
                    |c| {
                        Box::pin(async move {
                            insert_opening(&mut *c, 10).await?;
                            Err(sqlx::Error::RowNotFound)
                        })
                    },
                    late,
                ),
                request(|c| Box::pin(insert(c, 2)), Savepoint::Eager),
                // Fails in the query that opens its savepoint: 1 is taken.
                request(|c| Box::pin(insert_opening(c, 1)), late),
                request(|c| Box::pin(insert_opening(c, 3)), late),
            ],
        )
        .await;
        assert_eq!(results[0], Ok(1));
        assert!(results[1].is_err(), "{results:?}");
        assert!(results[2].is_err(), "{results:?}");
        assert_eq!(results[3], Ok(2));
        assert!(
            results[4].as_ref().is_err_and(|e| e.contains("UNIQUE")),
            "{results:?}"
        );
        assert_eq!(results[5], Ok(3));
        assert_eq!(rows(&pool).await, vec![1, 2, 3]);
    }

    /// A batch whose commit fails answers every request with the error: nothing was saved.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_commit_answers_every_request_not_saved() {
        let dir = tempfile::tempdir().unwrap();
        let pool = writer(&dir).await;
        // A deferred foreign key is checked at COMMIT: the commit of the batch fails.
        let Store::Sqlite(pools) = &pool else {
            unreachable!()
        };
        sqlx::raw_sql(
            "CREATE TABLE parent (id INTEGER PRIMARY KEY);
             CREATE TABLE child (p INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);",
        )
        .execute(&pools.writer)
        .await
        .unwrap();
        let (first_job, first) = request(|c| Box::pin(insert(c, 1)), Savepoint::Eager);
        let (orphan_job, orphan) = request(
            |c| {
                Box::pin(async move {
                    on_store!(c, execute sqlx::query("INSERT INTO child (p) VALUES (42)"))?;
                    Ok::<_, sqlx::Error>(0)
                })
            },
            Savepoint::Eager,
        );
        write_batch(&pool, vec![first_job, orphan_job], &BatchMetrics::default()).await;
        let first = first.await.unwrap().map_err(|e| e.to_string());
        let orphan = orphan.await.unwrap().map_err(|e| e.to_string());
        assert!(
            first.as_ref().is_err_and(|e| e.contains("not saved")),
            "{first:?}"
        );
        assert!(orphan.is_err(), "{orphan:?}");
        assert_eq!(rows(&pool).await, Vec::<i64>::new());
    }
}
