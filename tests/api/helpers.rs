//! A real server on a free port with a fresh SQLite file per test, and fixtures: users,
//! tokens, logged-in browsers (cookie clients), leagues with teams; and [`Tables`], every
//! row of the database, for "nothing written".

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use spades_im::app::{Application, Settings};
use std::sync::Arc;

use spades_im::db::{Db, Location};
use spades_im::domain::{Clock, ManualTime};
use spades_im::service::{Role, people::accounts};

pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    pub db: Db,
    /// Where the data is (`--db` for a command run on the same database).
    pub location: Location,
    // Keeps the database directory alive for the test's duration.
    _dir: tempfile::TempDir,
}

/// The store the tests run on: an SQLite file in the test's own folder or, when
/// `SPADES_TEST_DB` names a PostgreSQL server (`postgres://user@host:port/db`), a new
/// database there for each test.
pub async fn test_store(dir: &std::path::Path) -> Location {
    match std::env::var("SPADES_TEST_DB") {
        Ok(url) if !url.trim().is_empty() => Location::Postgres(fresh_database(&url).await),
        _ => Location::File(dir.join("test.sqlite3")),
    }
}

/// Whether the tests run on PostgreSQL (`SPADES_TEST_DB`).
pub fn on_postgres() -> bool {
    std::env::var("SPADES_TEST_DB").is_ok_and(|url| !url.trim().is_empty())
}

/// A new database on the server of `url`, named for this process and test, and its URL: a
/// copy of this process's migrated template, so that each test does not run every migration
/// again (about 0.3 s a test, a minute of the PostgreSQL pass).
async fn fresh_database(url: &str) -> String {
    let template = migrated_template(url);
    crate::postgres_support::copy_of(url, &new_database_name(), Some(template)).await
}

/// A new database with nothing in it, not even the schema, on the server `SPADES_TEST_DB`
/// names: for the tests of what a start does to an empty server.
pub async fn empty_postgres_store() -> Location {
    let url = std::env::var("SPADES_TEST_DB").expect("SPADES_TEST_DB names a server");
    Location::Postgres(crate::postgres_support::new_database(&url, &new_database_name()).await)
}

/// A name for a test's database: this process's, numbered.
fn new_database_name() -> String {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    format!(
        "spades_test_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    )
}

/// The database every test's database is copied from, made once a process: new, then
/// migrated by the application itself on a runtime of its own, whose end closes every
/// connection to it (a copy is refused while one is open).
fn migrated_template(url: &str) -> &'static str {
    static TEMPLATE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEMPLATE.get_or_init(|| {
        let url = url.to_string();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async {
                let name = format!("spades_template_{}", std::process::id());
                let template_url = crate::postgres_support::new_database(&url, &name).await;
                Db::open(&Location::Postgres(template_url), system_clock())
                    .await
                    .expect("migrate the template");
                name
            })
        })
        .join()
        .expect("the template is made")
    })
}

/// A password every fixture user gets.
pub const PASSWORD: &str = "correct horse battery";

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    pub async fn post_json(&self, path: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(self.url(path))
            .json(body)
            .send()
            .await
            .expect("request failed")
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .send()
            .await
            .expect("request failed")
    }

    /// Creates a user with [`PASSWORD`].
    pub async fn user(&self, name: &str, role: Role) {
        accounts::create_user(&self.db, None, name, role, PASSWORD)
            .await
            .expect("create user");
    }

    /// An API token acting as `name` (who must exist).
    pub async fn token(&self, name: &str) -> String {
        accounts::create_token(&self.db, name, "test")
            .await
            .expect("create token")
    }

    /// A token of `name`'s (who must exist) that was revoked.
    pub async fn revoked_token(&self, name: &str) -> String {
        let token = accounts::create_token(&self.db, name, "revoked")
            .await
            .expect("create token");
        let user = accounts::token_holder(&self.db, &token)
            .await
            .expect("token user")
            .map(|h| h.user)
            .expect("the token acts as its user");
        let listed = accounts::tokens(&self.db, &user).await.expect("tokens");
        let id = listed
            .iter()
            .find(|t| t.name == "revoked" && !t.revoked)
            .expect("the new token")
            .id;
        accounts::revoke_token(&self.db, &user, id)
            .await
            .expect("revoke");
        token
    }

    /// A client that sends `token` as a bearer token.
    pub fn api(&self, token: &str) -> Api {
        Api {
            base: self.address.clone(),
            token: token.to_string(),
            client: reqwest::Client::builder()
                .pool_idle_timeout(CLIENT_IDLE)
                .build()
                .expect("client"),
        }
    }

    /// Creates `name` as `role` and returns an API client acting as them.
    pub async fn api_user(&self, name: &str, role: Role) -> Api {
        self.user(name, role).await;
        let token = self.token(name).await;
        self.api(&token)
    }

    /// Logs in as `name` with `password` through the login form: a client (cookie store, no
    /// redirects followed) holding the session, or `None` when the login is refused.
    pub async fn log_in(&self, name: &str, password: &str) -> Option<reqwest::Client> {
        let client = reqwest::Client::builder()
            .cookie_store(true)
            .redirect(reqwest::redirect::Policy::none())
            .pool_idle_timeout(CLIENT_IDLE)
            .build()
            .expect("client");
        let response = client
            .post(self.url("/login"))
            .form(&[("username", name), ("password", password)])
            .send()
            .await
            .expect("login");
        (response.status() == 303).then_some(client)
    }

    /// A browser-like client (cookie store, no redirects followed) logged in as `name`.
    pub async fn browser(&self, name: &str) -> Browser {
        let client = self
            .log_in(name, PASSWORD)
            .await
            .unwrap_or_else(|| panic!("login as {name}"));
        let mut browser = Browser {
            base: self.address.clone(),
            client,
            csrf: String::new(),
        };
        let account = browser
            .get("/account")
            .await
            .text()
            .await
            .expect("account page");
        browser.csrf = csrf_in(&account).expect("the account page has a CSRF token");
        browser
    }

    /// Sends `GET {target} HTTP/1.1` over a plain TCP connection, the target exactly as
    /// given: no URL parser on the way to normalise `..` or percent-encoded dots away (as
    /// reqwest's would). Returns the status and the whole answer, headers and body.
    pub async fn raw_get(&self, target: &str) -> (u16, String) {
        use std::io::{Read, Write};
        let host = self.address.trim_start_matches("http://").to_string();
        let request = format!("GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        // A blocking socket, off the test's thread (the server may share its runtime).
        let answer = actix_web::rt::task::spawn_blocking(move || {
            let mut stream = std::net::TcpStream::connect(&host).expect("connect");
            stream
                .set_read_timeout(Some(std::time::Duration::from_secs(10)))
                .expect("timeout");
            stream.write_all(request.as_bytes()).expect("send");
            let mut answer = Vec::new();
            stream.read_to_end(&mut answer).expect("read the answer");
            String::from_utf8_lossy(&answer).into_owned()
        })
        .await
        .expect("raw request");
        let status = answer
            .strip_prefix("HTTP/1.1 ")
            .and_then(|rest| rest.get(..3))
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("GET {target}: no status line in {answer:?}"));
        (status, answer)
    }

    /// The audit rows of `action`, oldest first: of each, the `columns` asked for (plain
    /// column names of `audit_log`; a NULL reads as "").
    pub async fn audit_rows(&self, action: &str, columns: &[&str]) -> Vec<Vec<String>> {
        assert!(
            columns
                .iter()
                .all(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')),
            "column names only: {columns:?}"
        );
        let selected: Vec<String> = columns
            .iter()
            .map(|c| format!("coalesce({c}, '')"))
            .collect();
        let sql = format!(
            "SELECT {} FROM audit_log WHERE action = $1 ORDER BY id",
            selected.join(", ")
        );
        let mut conn = self.db.read().await.expect("reader");
        let rows: Vec<Vec<String>> = spades_im::on_store!(conn, |c| {
            // The columns were checked above to be plain names.
            let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(action)
                .fetch_all(c)
                .await
                .expect("audit");
            rows.iter()
                .map(|row| {
                    (0..columns.len())
                        .map(|i| sqlx::Row::try_get::<String, _>(row, i).expect("text"))
                        .collect()
                })
                .collect()
        });
        rows
    }

    /// Every row of every table, for comparing before and after a request.
    pub async fn tables(&self) -> Tables {
        tables(&self.db).await
    }

    /// Panics, naming the rows that differ, unless the database holds exactly the rows of
    /// `before`: nothing inserted, deleted or updated in place, in any table.
    pub async fn assert_nothing_written(&self, before: &Tables, what: impl fmt::Display) {
        before.assert_same(&self.tables().await, what);
    }

    /// A league with `teams` teams ("Team 1", ...) under `rules`, created by `admin`.
    pub async fn league(&self, admin: &Api, slug: &str, rules: Value, teams: usize) -> Vec<i64> {
        let response = admin
            .post(
                "/api/v1/leagues",
                &json!({"name": slug, "slug": slug, "rules": {"regular": rules}}),
            )
            .await;
        assert_eq!(response.status(), 201, "create league {slug}");
        let mut ids = Vec::new();
        for i in 1..=teams {
            let body: Value = admin
                .post(
                    &format!("/api/v1/leagues/{slug}/teams"),
                    &json!({"name": format!("Team {i}"), "players": [format!("P{i}a"), format!("P{i}b")]}),
                )
                .await
                .json()
                .await
                .expect("team json");
            ids.push(body["id"].as_i64().expect("team id"));
        }
        ids
    }
}

/// The value of the first `name="csrf"` field of a page.
pub fn csrf_in(html: &str) -> Option<String> {
    let at = html.find("name=\"csrf\" value=\"")? + "name=\"csrf\" value=\"".len();
    let end = html[at..].find('"')?;
    Some(html[at..at + end].to_string())
}

/// JSON API calls with a bearer token.
pub struct Api {
    pub base: String,
    pub token: String,
    pub client: reqwest::Client,
}

impl Api {
    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{}", self.base, path))
            .bearer_auth(&self.token)
            .send()
            .await
            .expect("request failed")
    }

    pub async fn post(&self, path: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(format!("{}{}", self.base, path))
            .bearer_auth(&self.token)
            .json(body)
            .send()
            .await
            .expect("request failed")
    }

    /// A POST of CSV text (`Content-Type: text/csv`).
    pub async fn post_csv(&self, path: &str, csv: &str) -> reqwest::Response {
        self.client
            .post(format!("{}{}", self.base, path))
            .bearer_auth(&self.token)
            .header("content-type", "text/csv; charset=utf-8")
            .body(csv.to_string())
            .send()
            .await
            .expect("request failed")
    }

    pub async fn put(&self, path: &str, body: &Value) -> reqwest::Response {
        self.client
            .put(format!("{}{}", self.base, path))
            .bearer_auth(&self.token)
            .json(body)
            .send()
            .await
            .expect("request failed")
    }

    pub async fn patch(&self, path: &str, body: &Value) -> reqwest::Response {
        self.client
            .patch(format!("{}{}", self.base, path))
            .bearer_auth(&self.token)
            .json(body)
            .send()
            .await
            .expect("request failed")
    }

    pub async fn delete(&self, path: &str) -> reqwest::Response {
        self.client
            .delete(format!("{}{}", self.base, path))
            .bearer_auth(&self.token)
            .send()
            .await
            .expect("request failed")
    }
}

/// A logged-in browser session: cookies kept, redirects not followed, the CSRF token known.
pub struct Browser {
    pub base: String,
    pub client: reqwest::Client,
    pub csrf: String,
}

impl Browser {
    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{}", self.base, path))
            .send()
            .await
            .expect("request failed")
    }

    /// Posts a form; adds the session's CSRF token unless the fields have one.
    pub async fn post_form(&self, path: &str, fields: &[(&str, &str)]) -> reqwest::Response {
        let mut all: Vec<(&str, &str)> = fields.to_vec();
        if !fields.iter().any(|(k, _)| *k == "csrf") {
            all.push(("csrf", &self.csrf));
        }
        self.client
            .post(format!("{}{}", self.base, path))
            .form(&all)
            .send()
            .await
            .expect("request failed")
    }
}

/// The whole content of a database: for each table (`sqlite_master` itself included, so a
/// change of schema counts too), every row rendered as text (`rowid=1, name='Team 1', …`,
/// values through SQLite's `quote()`, so `NULL`, `'NULL'`, `1` and `'1'` differ), in rowid
/// order.
///
/// No table is left out: `sqlite_sequence` (AUTOINCREMENT counters) catches an insert rolled
/// back by a delete, `data_version` and `team_records` a trigger that fired,
/// `sessions`, `api_tokens` and `idempotency_keys` a login or key recorded by a refused
/// request. (Nothing in the schema changes on a mere read: no last-seen column, no
/// `sqlite_stat1` since nothing runs `ANALYZE`; if that ever changes, exclude it here with the
/// reason.) Of `sqlite_master` the `rootpage` column is left out: it is where SQLite keeps
/// the table in the file, not content.
#[derive(Clone, PartialEq, Eq)]
pub struct Tables(BTreeMap<String, Vec<String>>);

impl Tables {
    /// SHA-256 of every row of every table, in hex.
    pub fn digest(&self) -> String {
        let mut hash = Sha256::new();
        for (table, rows) in &self.0 {
            hash.update(table.as_bytes());
            hash.update([0]);
            for row in rows {
                hash.update(row.as_bytes());
                hash.update([0]);
            }
            hash.update([1]);
        }
        hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The rows only in `self` (`-`) or only in `after` (`+`), table by table; at most 40
    /// lines. Empty when the two are the same.
    pub fn diff(&self, after: &Tables) -> String {
        let empty = Vec::new();
        let mut lines = Vec::new();
        let names: std::collections::BTreeSet<&String> =
            self.0.keys().chain(after.0.keys()).collect();
        for name in names {
            let old = self.0.get(name).unwrap_or(&empty);
            let new = after.0.get(name).unwrap_or(&empty);
            for row in old.iter().filter(|r| !new.contains(r)) {
                lines.push(format!("- {name}: {row}"));
            }
            for row in new.iter().filter(|r| !old.contains(r)) {
                lines.push(format!("+ {name}: {row}"));
            }
            // The same rows in another order (or the same row twice in one of them).
            if old != new
                && !lines
                    .iter()
                    .any(|l| l[2..].starts_with(&format!("{name}: ")))
            {
                lines.push(format!(
                    "~ {name}: the same rows, in another order or count"
                ));
            }
        }
        let more = lines.len().saturating_sub(40);
        lines.truncate(40);
        if more > 0 {
            lines.push(format!("… and {more} more"));
        }
        lines.join("\n")
    }

    /// The names of the tables whose rows differ in `after` (PostgreSQL's `schema` and
    /// SQLite's `sqlite_master` included).
    pub fn changed(&self, after: &Tables) -> Vec<String> {
        let empty = Vec::new();
        let names: std::collections::BTreeSet<&String> =
            self.0.keys().chain(after.0.keys()).collect();
        names
            .into_iter()
            .filter(|name| {
                self.0.get(*name).unwrap_or(&empty) != after.0.get(*name).unwrap_or(&empty)
            })
            .cloned()
            .collect()
    }

    /// Panics with [`Tables::diff`] unless `after` holds exactly the same rows.
    pub fn assert_same(&self, after: &Tables, what: impl fmt::Display) {
        if self != after {
            panic!(
                "{what}: the database changed (- before, + after):\n{}",
                self.diff(after)
            );
        }
    }
}

/// Table by table, the row count (the rows themselves are in [`Tables::diff`]), then the
/// digest of all.
impl fmt::Debug for Tables {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (table, rows) in &self.0 {
            write!(f, "{table}: {}, ", rows.len())?;
        }
        write!(f, "sha256 {}", self.digest())
    }
}

/// Reads [`Tables`] through the read pool (what is committed).
pub async fn tables(db: &Db) -> Tables {
    if db.kind() == spades_im::db::StoreKind::Postgres {
        return postgres_tables(db).await;
    }
    let mut conn = db.read().await.expect("reader");
    let schema: Vec<(String, String, String, Option<String>)> =
        spades_im::on_store!(conn, |c| sqlx::query_as(
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
        )
        .fetch_all(c)
        .await)
        .expect("sqlite_master");
    let mut all = BTreeMap::new();
    all.insert(
        "sqlite_master".to_string(),
        schema
            .iter()
            .map(|(kind, name, table, sql)| {
                format!("type={kind:?}, name={name:?}, tbl_name={table:?}, sql={sql:?}")
            })
            .collect(),
    );
    for (kind, name, _, sql) in &schema {
        if kind != "table" {
            continue;
        }
        let columns: Vec<String> = spades_im::on_store!(conn, |c| sqlx::query_scalar(
            "SELECT name FROM pragma_table_info($1) ORDER BY cid"
        )
        .bind(name)
        .fetch_all(c)
        .await)
        .expect("columns");
        assert!(!columns.is_empty(), "table {name} has no columns");
        let without_rowid = sql
            .as_deref()
            .is_some_and(|s| s.to_ascii_uppercase().contains("WITHOUT ROWID"));
        let mut parts: Vec<String> = columns
            .iter()
            .map(|c| {
                format!(
                    "'{}=' || quote(\"{}\")",
                    c.replace('\'', "''"),
                    c.replace('"', "\"\"")
                )
            })
            .collect();
        if !without_rowid {
            parts.insert(0, "'rowid=' || quote(rowid)".into());
        }
        let order = if without_rowid { "1" } else { "rowid" };
        let query = format!(
            "SELECT {} FROM \"{}\" ORDER BY {order}",
            parts.join(" || ', ' || "),
            name.replace('"', "\"\"")
        );
        let rows: Vec<String> =
            spades_im::on_store!(conn, |c| sqlx::query_scalar(sqlx::AssertSqlSafe(query))
                .fetch_all(c)
                .await)
            .unwrap_or_else(|e| panic!("rows of {name}: {e}"));
        all.insert(name.clone(), rows);
    }
    Tables(all)
}

/// [`Tables`] of a PostgreSQL database: the columns and indexes of the schema, then every
/// row of every table as JSON (`row_to_json`: `null`, `"1"` and `1` differ), in the order of
/// that text (PostgreSQL has no rowid; an update moves a row). Sequences are left out: they
/// advance on a rolled-back insert too, which writes nothing.
async fn postgres_tables(db: &Db) -> Tables {
    let mut conn = db.read().await.expect("reader");
    let mut all = BTreeMap::new();
    let schema: Vec<String> = spades_im::on_store!(conn, |c| sqlx::query_scalar(
        "SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable
         FROM information_schema.columns WHERE table_schema = 'public'
         UNION ALL SELECT indexdef FROM pg_indexes WHERE schemaname = 'public'
         UNION ALL SELECT tgname FROM pg_trigger WHERE NOT tgisinternal
         ORDER BY 1"
    )
    .fetch_all(c)
    .await)
    .expect("schema");
    all.insert("schema".to_string(), schema);
    let names: Vec<String> = spades_im::on_store!(conn, |c| sqlx::query_scalar(
        "SELECT table_name::text FROM information_schema.tables
         WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1"
    )
    .fetch_all(c)
    .await)
    .expect("tables");
    for name in names {
        let query = format!(
            "SELECT row_to_json(t)::text AS r FROM \"{}\" t ORDER BY 1",
            name.replace('"', "\"\"")
        );
        let rows: Vec<String> =
            spades_im::on_store!(conn, |c| sqlx::query_scalar(sqlx::AssertSqlSafe(query))
                .fetch_all(c)
                .await)
            .unwrap_or_else(|e| panic!("rows of {name}: {e}"));
        all.insert(name, rows);
    }
    Tables(all)
}

/// Starts the application on 127.0.0.1 with a random port and a temporary database, on the
/// machine's clock.
pub async fn spawn_app() -> TestApp {
    spawn_app_in(
        tempfile::tempdir().expect("temp dir"),
        system_clock(),
        vec![],
    )
    .await
}

/// As [`spawn_app_with_clock`], believing `X-Forwarded-For` from peers in `proxies` (CIDR
/// blocks) as the login throttle does behind a reverse proxy.
pub async fn spawn_app_behind(proxies: &[&str], clock: Clock) -> TestApp {
    let trusted = proxies
        .iter()
        .map(|p| p.parse().expect("a CIDR block"))
        .collect();
    spawn_app_in(tempfile::tempdir().expect("temp dir"), clock, trusted).await
}

/// As [`spawn_app`], on `clock` (a [`ManualTime`] the test moves, in a chosen time zone).
pub async fn spawn_app_with_clock(clock: Clock) -> TestApp {
    spawn_app_in(tempfile::tempdir().expect("temp dir"), clock, vec![]).await
}

/// A clock standing at `rfc3339` in `zone`, and the handle that moves it.
pub fn manual_clock(rfc3339: &str, zone: chrono_tz::Tz) -> (Clock, Arc<ManualTime>) {
    let start = chrono::DateTime::parse_from_rfc3339(rfc3339)
        .expect("an RFC 3339 time")
        .to_utc();
    let time = Arc::new(ManualTime::starting_at(start));
    (Clock::new(time.clone(), zone), time)
}

fn system_clock() -> Clock {
    Clock::system(spades_im::domain::machine_zone())
}

/// Starts the application on a copy of the database file `db` (e.g. a fixture written by an
/// earlier release), made in a temporary directory: the migrations run on the copy, and the
/// original is never opened.
pub async fn spawn_app_on_copy(db: &std::path::Path) -> TestApp {
    spawn_app_on_copy_with_clock(db, system_clock()).await
}

/// As [`spawn_app_on_copy`], on `clock`.
pub async fn spawn_app_on_copy_with_clock(db: &std::path::Path, clock: Clock) -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::copy(db, dir.path().join("test.sqlite3"))
        .unwrap_or_else(|e| panic!("copy {}: {e}", db.display()));
    spawn_app_in(dir, clock, vec![]).await
}

/// Starts the application on an SQLite file whatever `SPADES_TEST_DB` says: for the tests of
/// what only a file store has (backup and restore of the file).
pub async fn spawn_sqlite_app() -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let location = Location::File(dir.path().join("test.sqlite3"));
    spawn_app_at(dir, location, system_clock(), vec![], false).await
}

/// As [`spawn_app`], with `Secure` session cookies as in production (the default without
/// `--insecure-cookies`): the cookie is `__Host-spades_session`. A client's cookie store
/// keeps no `Secure` cookie over plain HTTP, so the tests send it by hand.
pub async fn spawn_secure_app() -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let location = test_store(dir.path()).await;
    spawn_app_at(dir, location, system_clock(), vec![], true).await
}

/// Starts the application on the test store (see [`test_store`]), or on `dir/test.sqlite3`
/// when that file is there (a copy of a fixture).
async fn spawn_app_in(
    dir: tempfile::TempDir,
    clock: Clock,
    trusted_proxies: Vec<ipnet::IpNet>,
) -> TestApp {
    let location = if dir.path().join("test.sqlite3").exists() {
        // A copy of a fixture file: it is SQLite whatever the tests run on.
        Location::File(dir.path().join("test.sqlite3"))
    } else {
        test_store(dir.path()).await
    };
    spawn_app_at(dir, location, clock, trusted_proxies, false).await
}

async fn spawn_app_at(
    dir: tempfile::TempDir,
    location: Location,
    clock: Clock,
    trusted_proxies: Vec<ipnet::IpNet>,
    secure_cookies: bool,
) -> TestApp {
    let settings = Settings {
        bind: "127.0.0.1:0".into(),
        db: location.clone(),
        secure_cookies,
        page_cache_bytes: spades_im::web::middleware::page_cache::DEFAULT_BYTES,
        clock: clock.clone(),
        trusted_proxies,
        workers: None,
        public_url: None,
        oidc: None,
        mail: None,
    };
    serve(dir, location, &settings).await
}

/// As [`spawn_app`], with at most `bytes` of page copies (`--page-cache-mb`, in bytes).
pub async fn spawn_app_with_page_cache(bytes: usize) -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let location = test_store(dir.path()).await;
    let settings = Settings {
        bind: "127.0.0.1:0".into(),
        db: location.clone(),
        secure_cookies: false,
        page_cache_bytes: bytes,
        clock: system_clock(),
        trusted_proxies: vec![],
        workers: None,
        public_url: None,
        oidc: None,
        mail: None,
    };
    serve(dir, location, &settings).await
}

/// Starts the application on the test store (see [`test_store`]) on `clock`, sending notices
/// by email through the relay at `smtp_url` from `im@spades.test`, its links to
/// `http://spades.test`.
pub async fn spawn_app_with_mail(smtp_url: &str, clock: Clock) -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let location = test_store(dir.path()).await;
    let settings = Settings {
        bind: "127.0.0.1:0".into(),
        db: location.clone(),
        secure_cookies: false,
        page_cache_bytes: spades_im::web::middleware::page_cache::DEFAULT_BYTES,
        clock,
        trusted_proxies: vec![],
        workers: None,
        public_url: Some(url::Url::parse("http://spades.test").expect("a URL")),
        oidc: None,
        mail: Some(spades_im::service::notices::relay::MailSettings {
            url: smtp_url.into(),
            from: "IM Sports <im@spades.test>".into(),
        }),
    };
    serve(dir, location, &settings).await
}

/// Starts the application on the test store (see [`test_store`]) with campus sign-in
/// (`oidc`) reached at `public_url`; session cookies without `Secure` (`spades_session`).
pub async fn spawn_app_with_oidc(
    public_url: Option<url::Url>,
    oidc: Option<spades_im::service::people::oidc::OidcSettings>,
) -> TestApp {
    spawn_app_with_oidc_on("127.0.0.1:0", public_url, oidc).await
}

/// As [`spawn_app_with_oidc`], with `Secure` cookies (see [`spawn_secure_app`]).
pub async fn spawn_secure_app_with_oidc(
    public_url: Option<url::Url>,
    oidc: Option<spades_im::service::people::oidc::OidcSettings>,
) -> TestApp {
    oidc_app("127.0.0.1:0", true, public_url, oidc).await
}

/// As [`spawn_app_with_oidc`], listening on `bind`.
pub async fn spawn_app_with_oidc_on(
    bind: &str,
    public_url: Option<url::Url>,
    oidc: Option<spades_im::service::people::oidc::OidcSettings>,
) -> TestApp {
    oidc_app(bind, false, public_url, oidc).await
}

async fn oidc_app(
    bind: &str,
    secure_cookies: bool,
    public_url: Option<url::Url>,
    oidc: Option<spades_im::service::people::oidc::OidcSettings>,
) -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let location = test_store(dir.path()).await;
    let settings = Settings {
        bind: bind.into(),
        db: location.clone(),
        secure_cookies,
        page_cache_bytes: spades_im::web::middleware::page_cache::DEFAULT_BYTES,
        clock: system_clock(),
        trusted_proxies: vec![],
        workers: None,
        public_url,
        oidc,
        mail: None,
    };
    serve(dir, location, &settings).await
}

/// How long the test clients keep an idle connection: less than the server's keep-alive (5 s),
/// so a client never sends on a connection the server is closing at that moment (seen once:
/// a browser test's API client idle about 5 s, its next POST answered `IncompleteMessage`).
pub const CLIENT_IDLE: std::time::Duration = std::time::Duration::from_secs(3);

/// Builds the application with `settings` (on `location`, in `dir`) and serves it.
async fn serve(dir: tempfile::TempDir, location: Location, settings: &Settings) -> TestApp {
    let app = Application::build(settings).await.expect("app builds");
    let address = format!("http://127.0.0.1:{}", app.port());
    let db = app.db().clone();
    actix_web::rt::spawn(app.run_until_stopped());
    TestApp {
        address,
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .pool_idle_timeout(CLIENT_IDLE)
            .build()
            .expect("client"),
        db,
        location,
        _dir: dir,
    }
}

// ---------------------------------------------------------------------------------------
// A league followed through time (corrections.rs, tiebreaks.rs, double_elimination.rs):
// hands, playing and correcting matches through the API, anonymous reads with their
// `X-Page-Cache` header, and the text of pages and CSV files.

/// A hand: team a's bids and tricks, then team b's (seat order).
pub fn hand_of(
    a_bids: [i64; 2],
    a_tricks: [i64; 2],
    b_bids: [i64; 2],
    b_tricks: [i64; 2],
) -> Value {
    json!({"a": {"bids": a_bids, "tricks": a_tricks}, "b": {"bids": b_bids, "tricks": b_tricks}})
}

/// The JSON of an answer, after checking its status (the body is shown when it differs).
pub async fn json_with_status(response: reqwest::Response, status: u16, what: &str) -> Value {
    let got = response.status().as_u16();
    let body = response.text().await.expect("body");
    assert_eq!(got, status, "{what}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {body}"))
}

/// Asserts that `response` is the API error `code` with `status` (docs/api.md §3) and
/// returns its `error` object (`code`, `message`, `field`…).
pub async fn expect_error(response: reqwest::Response, status: u16, code: &str) -> Value {
    let body = json_with_status(response, status, code).await;
    assert_eq!(body["error"]["code"], code, "{body}");
    body["error"].clone()
}

impl Api {
    /// Adds a single match to league `slug` (admin).
    pub async fn add_match(&self, slug: &str, team_a: i64, team_b: i64, table: &str) -> Value {
        let r = self
            .post(
                &format!("/api/v1/leagues/{slug}/matches"),
                &json!({"team_a": team_a, "team_b": team_b, "table": table}),
            )
            .await;
        json_with_status(r, 201, "add a match").await
    }

    pub async fn start_match(&self, id: i64) -> Value {
        let r = self
            .post(&format!("/api/v1/matches/{id}/start"), &json!({}))
            .await;
        json_with_status(r, 200, &format!("start match {id}")).await
    }

    /// Records `hand` in match `m` (as last seen: its id and version).
    pub async fn enter_hand(&self, m: &Value, hand: &Value) -> Value {
        let id = m["id"].as_i64().expect("match id");
        let r = self
            .post(
                &format!("/api/v1/matches/{id}/hands"),
                &json!({"hand": hand, "expected_version": m["version"]}),
            )
            .await;
        json_with_status(r, 201, &format!("hand in match {id}")).await
    }

    /// Starts match `id` and records `hands`; the match as it is after the last.
    pub async fn play_hands(&self, id: i64, hands: &[Value]) -> Value {
        let mut m = self.start_match(id).await;
        for hand in hands {
            m = self.enter_hand(&m, hand).await;
        }
        m
    }

    /// Corrects hand `number` of match `m` (as last seen); the answer as it came.
    pub async fn correct_hand(
        &self,
        m: &Value,
        number: i64,
        hand: &Value,
        reason: &str,
        reset_bracket_path: bool,
    ) -> reqwest::Response {
        let id = m["id"].as_i64().expect("match id");
        let mut body = json!({"hand": hand, "reason": reason, "expected_version": m["version"]});
        if reset_bracket_path {
            body["reset_bracket_path"] = json!(true);
        }
        self.put(&format!("/api/v1/matches/{id}/hands/{number}"), &body)
            .await
    }
}

/// An anonymous GET (no cookie, no token: the page cache may answer): the status, the
/// `X-Page-Cache` header ("" when absent) and the body.
pub async fn anonymous_get(app: &TestApp, path: &str) -> (u16, String, String) {
    let r = reqwest::Client::new()
        .get(app.url(path))
        .send()
        .await
        .expect("request failed");
    let cache = r
        .headers()
        .get("x-page-cache")
        .map(|v| v.to_str().expect("header").to_string())
        .unwrap_or_default();
    (r.status().as_u16(), cache, r.text().await.expect("body"))
}

/// The text of an HTML fragment: tags dropped, the usual entities decoded, white space
/// collapsed to single spaces.
pub fn html_text(fragment: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    // A line-break opportunity inside a word is not a space ("Sports<wbr>manship").
    let fragment = fragment.replace("<wbr>", "");
    for c in fragment.chars() {
        match c {
            '<' => {
                in_tag = true;
                out.push(' ');
            }
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    let out = out
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#39;", "'");
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The element of `html` whose `id` is `id`, from its opening tag to the first `close`
/// after it (included); `None` when there is no such element.
pub fn html_element<'a>(html: &'a str, id: &str, close: &str) -> Option<&'a str> {
    let at = html.find(&format!(" id=\"{id}\""))?;
    let start = html[..at].rfind('<')?;
    let len = html[start..].find(close)? + close.len();
    Some(&html[start..start + len])
}

/// The cells (`td` and `th`) of an HTML table row, as text.
pub fn html_cells(row: &str) -> Vec<String> {
    let mut cells = Vec::new();
    let mut rest = row;
    loop {
        let td = rest.find("<td");
        let th = rest.find("<th");
        let (at, close) = match (td, th) {
            (Some(d), Some(h)) if h < d => (h, "</th>"),
            (Some(d), _) => (d, "</td>"),
            (None, Some(h)) => (h, "</th>"),
            (None, None) => break,
        };
        let open_end = at + rest[at..].find('>').expect("tag end") + 1;
        let end = open_end + rest[open_end..].find(close).expect("cell end");
        cells.push(html_text(&rest[open_end..end]));
        rest = &rest[end + close.len()..];
    }
    cells
}

/// The rows of the standings table (`#standings`) of a page, top first, each as its cells'
/// text: rank, team, then the page's columns.
pub fn html_standings(html: &str) -> Vec<Vec<String>> {
    let table = html_element(html, "standings", "</table>").expect("a standings table");
    table
        .split("<tr id=\"standing-")
        .skip(1)
        .map(|row| html_cells(&row[..row.find("</tr>").expect("row end")]))
        .collect()
}

/// Parses CSV (RFC 4180: quoted fields with doubled quotes, CRLF line ends) with the `csv`
/// crate, every row as it is (no header row taken out).
pub fn csv_rows(text: &str) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes())
        .records()
        .map(|r| r.expect("a CSV row").iter().map(String::from).collect())
        .collect()
}

/// Another instance of the service on the same store, as a second machine behind the same
/// proxy would be: its own connections, writer queue and page cache.
pub struct Instance {
    pub address: String,
}

impl Instance {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    /// `api`'s bearer token, sent to this instance.
    pub fn api(&self, api: &Api) -> Api {
        Api {
            base: self.address.clone(),
            token: api.token.clone(),
            client: reqwest::Client::new(),
        }
    }
}

impl TestApp {
    /// A second instance of the service on this test's store (page cache on, same clock).
    pub async fn another_instance(&self) -> Instance {
        self.instance_with_mail(None).await
    }

    /// As [`TestApp::another_instance`], sending notices as [`spawn_app_with_mail`] does,
    /// through the relay at `smtp_url`.
    pub async fn another_mailing_instance(&self, smtp_url: &str) -> Instance {
        self.instance_with_mail(Some(smtp_url)).await
    }

    async fn instance_with_mail(&self, smtp_url: Option<&str>) -> Instance {
        let mail = smtp_url.map(|url| spades_im::service::notices::relay::MailSettings {
            url: url.into(),
            from: "IM Sports <im@spades.test>".into(),
        });
        let settings = Settings {
            bind: "127.0.0.1:0".into(),
            db: self.location.clone(),
            secure_cookies: false,
            page_cache_bytes: spades_im::web::middleware::page_cache::DEFAULT_BYTES,
            clock: self.db.clock().clone(),
            trusted_proxies: vec![],
            workers: None,
            public_url: mail
                .as_ref()
                .map(|_| url::Url::parse("http://spades.test").expect("a URL")),
            oidc: None,
            mail,
        };
        let app = Application::build(&settings)
            .await
            .expect("instance builds");
        let address = format!("http://127.0.0.1:{}", app.port());
        actix_web::rt::spawn(app.run_until_stopped());
        Instance { address }
    }

    /// A second server on the same database file with the page cache off and the same
    /// `clock`: what every page is when rendered afresh, to compare with the cached copies.
    pub async fn uncached_twin(&self, clock: Clock) -> String {
        let settings = Settings {
            bind: "127.0.0.1:0".into(),
            db: self.location.clone(),
            secure_cookies: false,
            page_cache_bytes: 0,
            clock,
            trusted_proxies: vec![],
            workers: None,
            public_url: None,
            oidc: None,
            mail: None,
        };
        let app = Application::build(&settings).await.expect("twin builds");
        let address = format!("http://127.0.0.1:{}", app.port());
        actix_web::rt::spawn(app.run_until_stopped());
        address
    }
}

/// A number as the pages show it: a negative one with a real minus sign ("−68").
pub fn shown(n: i64) -> String {
    if n < 0 {
        format!("\u{2212}{}", n.unsigned_abs())
    } else {
        n.to_string()
    }
}

/// HTML text back to plain text (what askama escapes).
pub fn unescape(s: &str) -> String {
    s.replace("&#34;", "\"")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#60;", "<")
        .replace("&#62;", ">")
        .replace("&amp;", "&")
}
