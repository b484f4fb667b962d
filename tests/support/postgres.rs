//! A new database on a PostgreSQL server, for the tests (`SPADES_TEST_DB`) and the benchmarks
//! (`BENCH_PG`). Included with `#[path]` by each target that needs it.

/// Creates the database `name` (dropping one of that name first) on the server of `url`, an
/// account that may create databases; answers `url` naming it instead, its `?…` kept.
pub async fn new_database(url: &str, name: &str) -> String {
    copy_of(url, name, None).await
}

/// Creates the database `name` as a copy of the database `template` on the server of `url`
/// (one no connection is open to), as `new_database` does; answers its URL.
#[allow(dead_code)] // Not every target that includes this file makes copies.
pub async fn copy_of(url: &str, name: &str, template: Option<&str>) -> String {
    use sqlx::Connection;
    let mut admin = sqlx::PgConnection::connect(url)
        .await
        .unwrap_or_else(|e| panic!("connect to {url}: {e}"));
    let create = match template {
        Some(template) => format!("CREATE DATABASE {name} TEMPLATE {template}"),
        None => format!("CREATE DATABASE {name}"),
    };
    for sql in [format!("DROP DATABASE IF EXISTS {name}"), create] {
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
