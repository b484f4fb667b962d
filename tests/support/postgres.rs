//! A new database on a PostgreSQL server, for the tests (`SPADES_TEST_DB`) and the benchmarks
//! (`BENCH_PG`). Included with `#[path]` by each target that needs it.

/// Creates the database `name` (dropping one of that name first) on the server of `url`, an
/// account that may create databases; answers `url` naming it instead, its `?…` kept.
pub async fn new_database(url: &str, name: &str) -> String {
    use sqlx::Connection;
    let mut admin = sqlx::PgConnection::connect(url)
        .await
        .unwrap_or_else(|e| panic!("connect to {url}: {e}"));
    for sql in [
        format!("DROP DATABASE IF EXISTS {name}"),
        format!("CREATE DATABASE {name}"),
    ] {
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
            .execute(&mut admin)
            .await
            .unwrap_or_else(|e| panic!("create the database {name}: {e}"));
    }
    admin.close().await.unwrap_or_else(|e| panic!("close: {e}"));
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let server = match base.split_once("://") {
        Some((scheme, rest)) => match rest.split_once('/') {
            Some((host, _)) => format!("{scheme}://{host}"),
            None => base.to_string(),
        },
        None => base.to_string(),
    };
    match query {
        Some(q) => format!("{server}/{name}?{q}"),
        None => format!("{server}/{name}"),
    }
}
