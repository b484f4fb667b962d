//! `migrate-to`: an SQLite database copied into an empty PostgreSQL one, in one transaction,
//! then checked against the original.
//!
//! Every table of data is copied row by row with its ids, in an order that satisfies the
//! foreign keys. What the triggers keep (each team's record and head-to-head, the match counts
//! by status, the change counter) is not copied: PostgreSQL's own triggers build it from the
//! copied matches, and the check compares it with SQLite's, so a difference between the two
//! stores' triggers would show. Then every table's count and every match's cached totals are
//! compared.

use sqlx::{PgConnection, QueryBuilder, Row, SqliteConnection};

use super::{Db, DbError, Raw};

/// The tables of data, parents first. The rest is kept by triggers or belongs to sqlx.
const TABLES: [&str; 29] = [
    "app_meta",
    "users",
    "sessions",
    "api_tokens",
    "leagues",
    "divisions",
    "teams",
    "players",
    "league_supervisors",
    "matches",
    "hands",
    "lineups",
    "idempotency_keys",
    "action_keys",
    "audit_log",
    "brackets",
    "bracket_seeds",
    "bracket_matches",
    "eligibility_overrides",
    "player_eligibility_overrides",
    "login_failures",
    "rating_notes",
    "notices",
    "notice_subscriptions",
    "captain_links",
    "captain_sessions",
    "reschedule_requests",
    "disputes",
    "swiss_rounds",
];

/// Rows per INSERT (PostgreSQL takes at most 65,535 parameters in one statement).
const BATCH: usize = 500;

/// What was copied: each table and its rows.
#[derive(Debug, Default)]
pub struct Copied {
    pub tables: Vec<(&'static str, u64)>,
}

#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    #[error("migrate-to copies an SQLite database (--db FILE) into PostgreSQL (postgres://…)")]
    WrongStores,
    #[error(
        "the PostgreSQL database is not empty ({0} has rows): give a new, empty database; \
         nothing was copied"
    )]
    NotEmpty(&'static str),
    #[error("after the copy, {0}: the copy was rolled back, the PostgreSQL database is as it was")]
    Differs(String),
    #[error(transparent)]
    Db(#[from] DbError),
}

impl From<sqlx::Error> for CopyError {
    fn from(e: sqlx::Error) -> CopyError {
        CopyError::Db(DbError::Sqlx(e))
    }
}

/// A value of a column, by the PostgreSQL column's type.
enum Value {
    Int(Option<i64>),
    Bool(Option<bool>),
    Text(Option<String>),
}

/// Copies `source` (SQLite) into `target` (PostgreSQL, empty) in one transaction, then
/// compares them.
pub async fn sqlite_to_postgres(source: &Db, target: &Db) -> Result<Copied, CopyError> {
    let mut from = source.snapshot().await?;
    let mut to = target.write().await?;
    let (Raw::Sqlite(sqlite), Raw::Postgres(pg)) = (from.raw(), to.raw()) else {
        return Err(CopyError::WrongStores);
    };
    for table in ["users", "leagues", "matches", "hands"] {
        let rows: i64 =
            sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT count(*) FROM {table}")))
                .fetch_one(&mut *pg)
                .await?;
        if rows > 0 {
            return Err(CopyError::NotEmpty(table));
        }
    }
    // The target's own first-start row gives way to the source's.
    sqlx::query("DELETE FROM app_meta")
        .execute(&mut *pg)
        .await?;
    let mut copied = Copied::default();
    for table in TABLES {
        let n = copy_table(sqlite, pg, table).await?;
        copied.tables.push((table, n));
        if table == "leagues" {
            // The archive's triggers refuse every row of a past season: its league is open
            // while its rows are copied, and closed again once they all are (below).
            sqlx::query("UPDATE leagues SET archived = false WHERE archived")
                .execute(&mut *pg)
                .await?;
        }
    }
    let archived: Vec<i64> = sqlx::query_scalar("SELECT id FROM leagues WHERE archived = 1")
        .fetch_all(&mut *sqlite)
        .await?;
    sqlx::query("UPDATE leagues SET archived = true WHERE id = ANY($1)")
        .bind(&archived)
        .execute(&mut *pg)
        .await?;
    for table in TABLES {
        let has_id: bool = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM information_schema.columns
                            WHERE table_name = $1 AND column_name = 'id'
                              AND is_identity = 'YES')",
        )
        .bind(table)
        .fetch_one(&mut *pg)
        .await?;
        if has_id {
            // The next id after the copied ones.
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "SELECT setval(pg_get_serial_sequence('{table}', 'id'),
                               coalesce((SELECT max(id) FROM {table}), 0) + 1, false)"
            )))
            .execute(&mut *pg)
            .await?;
        }
    }
    compare(sqlite, pg).await?;
    drop(from);
    to.commit().await?;
    Ok(copied)
}

/// The columns of `table` in PostgreSQL, with their types.
async fn columns(pg: &mut PgConnection, table: &str) -> Result<Vec<(String, String)>, CopyError> {
    Ok(sqlx::query_as(
        "SELECT column_name::text, data_type::text FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
    )
    .bind(table)
    .fetch_all(pg)
    .await?)
}

async fn copy_table(
    sqlite: &mut SqliteConnection,
    pg: &mut PgConnection,
    table: &'static str,
) -> Result<u64, CopyError> {
    let columns = columns(pg, table).await?;
    let names: Vec<&str> = columns.iter().map(|(name, _)| name.as_str()).collect();
    let list = names.join(", ");
    let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT {list} FROM {table} ORDER BY rowid"
    )))
    .fetch_all(&mut *sqlite)
    .await?;
    let mut values = Vec::with_capacity(rows.len());
    for row in &rows {
        let mut one = Vec::with_capacity(columns.len());
        for (i, (_, kind)) in columns.iter().enumerate() {
            one.push(match kind.as_str() {
                "bigint" => Value::Int(row.try_get(i)?),
                "boolean" => Value::Bool(row.try_get::<Option<i64>, _>(i)?.map(|v| v != 0)),
                _ => Value::Text(row.try_get(i)?),
            });
        }
        values.push(one);
    }
    for chunk in values.chunks(BATCH) {
        let mut insert: QueryBuilder<sqlx::Postgres> =
            QueryBuilder::new(format!("INSERT INTO {table} ({list}) "));
        insert.push_values(chunk, |mut b, row| {
            for value in row {
                match value {
                    Value::Int(v) => b.push_bind(*v),
                    Value::Bool(v) => b.push_bind(*v),
                    Value::Text(v) => b.push_bind(v.clone()),
                };
            }
        });
        insert.build().execute(&mut *pg).await?;
    }
    Ok(rows.len() as u64)
}

/// Every table's count, every match's cached totals and what the triggers keep, the same in
/// both.
async fn compare(sqlite: &mut SqliteConnection, pg: &mut PgConnection) -> Result<(), CopyError> {
    for table in TABLES {
        let sql = format!("SELECT count(*) FROM {table}");
        let a: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(sql.clone()))
            .fetch_one(&mut *sqlite)
            .await?;
        let b: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
            .fetch_one(&mut *pg)
            .await?;
        if a != b {
            return Err(CopyError::Differs(format!(
                "{table} has {a} rows in SQLite and {b} in PostgreSQL"
            )));
        }
    }
    same::<(i64, String, i64, i64, i64, i64, Option<String>, i64, i64)>(
        sqlite,
        pg,
        "every match's cached totals",
        "SELECT id, status, score_a, score_b, bags_a, bags_b, winner, hands_played, version
         FROM matches ORDER BY id",
    )
    .await?;
    // What the triggers keep. SQLite keeps a row of zeros where a count went back down;
    // PostgreSQL's triggers, run on the copy from the start, never made one.
    type Record = (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64);
    same::<Record>(
        sqlite,
        pg,
        "the teams' records",
        "SELECT team_id, played, won, lost, tied, forfeits, points_for, points_against,
                rating_sum, rating_count
         FROM team_records WHERE played <> 0 ORDER BY team_id",
    )
    .await?;
    same::<(i64, i64, i64, i64)>(
        sqlite,
        pg,
        "the teams' records against the teams level with them",
        "SELECT team_id, level_played, level_won, level_tied
         FROM team_records WHERE played <> 0 ORDER BY team_id",
    )
    .await?;
    same::<(i64, i64, i64, i64, i64, i64)>(
        sqlite,
        pg,
        "the head-to-head records",
        "SELECT team_id, opponent_id, played, won, tied,
                CAST(CASE WHEN level THEN 1 ELSE 0 END AS BIGINT)
         FROM head_to_head WHERE played <> 0 ORDER BY team_id, opponent_id",
    )
    .await?;
    same::<(i64, String, i64)>(
        sqlite,
        pg,
        "the match counts",
        "SELECT league_id, status, n FROM match_counts WHERE n <> 0 ORDER BY league_id, status",
    )
    .await?;
    Ok(())
}

/// The rows `sql` reads, the same in both stores.
async fn same<T>(
    sqlite: &mut SqliteConnection,
    pg: &mut PgConnection,
    what: &str,
    sql: &'static str,
) -> Result<(), CopyError>
where
    T: for<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow>
        + for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow>
        + PartialEq
        + std::fmt::Debug
        + Send
        + Unpin,
{
    let a: Vec<T> = sqlx::query_as(sql).fetch_all(&mut *sqlite).await?;
    let b: Vec<T> = sqlx::query_as(sql).fetch_all(&mut *pg).await?;
    if a.len() != b.len() {
        return Err(CopyError::Differs(format!(
            "{what}: {} rows in SQLite, {} in PostgreSQL",
            a.len(),
            b.len()
        )));
    }
    match a.iter().zip(&b).find(|(x, y)| x != y) {
        Some((x, y)) => Err(CopyError::Differs(format!(
            "{what}: {x:?} in SQLite, {y:?} in PostgreSQL"
        ))),
        None => Ok(()),
    }
}
