//! Group commit: the writes of league night (start a match, record a hand, correct one) are
//! queued for one writer task, which runs every request waiting in the queue inside one
//! `BEGIN IMMEDIATE … COMMIT` — one fsync for the whole batch instead of one per request.
//!
//! Each request still runs its own checks on what the batch has written before it (two
//! hands for one match in one batch: the second sees the first's version and is refused),
//! inside its own savepoint: a request that fails is rolled back to its savepoint and
//! answered with its error, and its neighbours commit. Nobody is answered before the
//! commit: an answer means the write is on disk, and a failed commit answers every request
//! of the batch with the error (nothing of it was saved).

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;

use futures_util::FutureExt;
use sqlx::{SqliteConnection, SqlitePool};
use tokio::sync::{mpsc, oneshot};

/// A future borrowing the writer's connection.
pub type BoxFuture<'c, T> = Pin<Box<dyn Future<Output = T> + Send + 'c>>;

/// The most requests one transaction takes: the batch's own commit is not delayed by an
/// unbounded queue, and the next batch forms while this one is written.
const MAX_BATCH: usize = 256;

/// Requests waiting for the writer before a new one is refused as busy (503, send again).
const QUEUE: usize = 4096;

/// A queued request: its body, run on the writer's connection inside the batch, or refused
/// unrun when the batch could not begin.
type Job = Box<dyn for<'c> FnOnce(Slot<'c>) -> BoxFuture<'c, Done> + Send>;

/// What the writer hands a request.
enum Slot<'c> {
    Run(&'c mut SqliteConnection),
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
    /// No writer connection in time (the database is held by a long write).
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
    match e {
        sqlx::Error::PoolTimedOut => BatchLost::Busy,
        e => BatchLost::Failed(e.to_string()),
    }
}

/// The queue in front of the writer task.
#[derive(Clone, Debug)]
pub struct GroupCommit {
    queue: mpsc::Sender<Job>,
}

impl GroupCommit {
    /// Starts the writer task on `writer` (the one-connection pool of writes).
    pub fn start(writer: SqlitePool) -> GroupCommit {
        let (queue, requests) = mpsc::channel(QUEUE);
        tokio::spawn(write_batches(writer, requests));
        GroupCommit { queue }
    }

    /// Runs `body` in the next batch and answers once the batch is committed. An `Err` from
    /// `body` rolls back what it wrote (and only that) and is returned as it is.
    pub async fn run<T, E>(
        &self,
        body: impl for<'c> FnOnce(&'c mut SqliteConnection) -> BoxFuture<'c, Result<T, E>>
        + Send
        + 'static,
    ) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<sqlx::Error> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel::<Result<T, E>>();
        let job: Job = Box::new(move |slot| {
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
        let lost_queue = || E::from(sqlx::Error::from(BatchLost::Failed("the writer has stopped".into())));
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

/// The writer task: takes the first waiting request and every one queued behind it (up to
/// [`MAX_BATCH`]), writes them in one transaction, answers them, and starts again.
async fn write_batches(writer: SqlitePool, mut requests: mpsc::Receiver<Job>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while requests.recv_many(&mut batch, MAX_BATCH).await > 0 {
        write_batch(&writer, std::mem::take(&mut batch)).await;
    }
}

async fn write_batch(writer: &SqlitePool, jobs: Vec<Job>) {
    let mut tx = match writer.begin_with("BEGIN IMMEDIATE").await {
        Ok(tx) => tx,
        Err(e) => {
            let why = lost(&e);
            for job in jobs {
                job(Slot::Refuse(why.clone())).await;
            }
            return;
        }
    };
    let mut done = Vec::with_capacity(jobs.len());
    let mut broken: Option<BatchLost> = None;
    for job in jobs {
        if let Some(why) = &broken {
            // The transaction is unusable: the rest are not run.
            job(Slot::Refuse(why.clone())).await;
            continue;
        }
        if let Err(e) = sqlx::query("SAVEPOINT request").execute(&mut *tx).await {
            broken = Some(lost(&e));
            job(Slot::Refuse(lost(&e))).await;
            continue;
        }
        let d = job(Slot::Run(&mut tx)).await;
        let end = if d.wrote {
            "RELEASE request"
        } else {
            "ROLLBACK TO request; RELEASE request"
        };
        if let Err(e) = sqlx::raw_sql(end).execute(&mut *tx).await {
            broken = Some(lost(&e));
        }
        done.push(d);
    }
    let outcome = match broken {
        Some(why) => Err(why),
        None => tx.commit().await.map_err(|e| lost(&e)),
    };
    for d in done {
        (d.answer)(outcome.clone());
    }
}
