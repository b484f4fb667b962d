//! `--db` (or `SPADES_DB`) names an SQLite file or a PostgreSQL database; any other URL is
//! refused with what to do, never taken for a path (it used to create a folder named
//! `postgres:`).

use std::process::{Command, Stdio};

use crate::concurrency::BIN;

/// Runs the CLI in `dir` with `args` (and `SPADES_DB`, if given); answers the exit code and
/// what it printed on stderr.
fn run(dir: &std::path::Path, args: &[&str], env: Option<&str>) -> (Option<i32>, String) {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .current_dir(dir)
        .env_remove("SPADES_DB")
        .stdin(Stdio::null());
    if let Some(value) = env {
        command.env("SPADES_DB", value);
    }
    let out = command.output().expect("run the CLI");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A URL of a store this version does not keep data in is refused, its password never
/// echoed, and no folder named after its scheme is created.
#[test]
fn an_unknown_database_url_is_refused_and_nothing_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let url = "mysql://user:secret@db.example/spades";
    for (how, args, env) in [
        ("--db", vec!["--db", url, "check"], None),
        ("SPADES_DB", vec!["check"], Some(url)),
        ("--db, serving", vec!["--db", url], None),
    ] {
        let (code, stderr) = run(dir.path(), &args, env);
        assert_eq!(code, Some(2), "{how}: {stderr}");
        assert!(
            stderr.contains("\"mysql://…\" is not a database this version keeps its data in")
                && stderr.contains("postgres://"),
            "{how}: {stderr}"
        );
        assert!(!stderr.contains("secret"), "{how}: {stderr}");
        let created: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(created.is_empty(), "{how}: {created:?}");
    }
}

/// A PostgreSQL URL selects PostgreSQL: with no server there, the command fails saying it
/// could not connect, without the password and without creating a file.
#[test]
fn a_postgres_url_is_taken_for_postgres_never_for_a_file() {
    let dir = tempfile::tempdir().unwrap();
    // Port 9 (discard) on this machine: nothing answers PostgreSQL there.
    let url = "postgres://user:secret@127.0.0.1:9/spades";
    for (how, args, env) in [
        ("--db", vec!["--db", url, "check"], None),
        ("SPADES_DB", vec!["check"], Some(url)),
    ] {
        let (code, stderr) = run(dir.path(), &args, env);
        assert_eq!(code, Some(1), "{how}: {stderr}");
        assert!(
            stderr.contains("error: cannot connect to the PostgreSQL database"),
            "{how}: {stderr}"
        );
        assert!(!stderr.contains("secret"), "{how}: {stderr}");
        let created: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(created.is_empty(), "{how}: {created:?}");
    }
}

/// `--help`, at the top and for every command, names `SPADES_DB` without its value, which
/// may hold the database's password. (The help speaks of the campus sign-in's client
/// "secret": the password here is a word no help text has.)
#[test]
fn help_never_prints_the_database_password() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec!["--help"],
        vec!["serve", "--help"],
        vec!["user", "add", "--help"],
        vec!["token", "create", "--help"],
        vec!["check", "--help"],
        vec!["migrate-to", "--help"],
        vec!["help", "serve"],
    ] {
        let out = Command::new(BIN)
            .args(&args)
            .current_dir(dir.path())
            .env("SPADES_DB", "postgres://u:pgpass7q@h/db")
            .stdin(Stdio::null())
            .output()
            .expect("run the CLI");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(stdout.contains("SPADES_DB"), "{args:?}: {stdout}");
        assert!(
            !stdout.contains("pgpass7q") && !stderr.contains("pgpass7q"),
            "{args:?}: {stdout}{stderr}"
        );
    }
}

/// A password holding a raw `/`, `?` or `#` (which would end it early and make the rest a
/// port, a database or a fragment) is refused with how to write it, without repeating it.
#[test]
fn a_password_cut_short_by_a_reserved_character_is_refused_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    for url in [
        "postgres://user:pa/secret@127.0.0.1:9/spades",
        "postgres://user:12?secret@127.0.0.1:9/spades",
        "postgres://user:pa#secret@127.0.0.1:9/spades",
    ] {
        let (code, stderr) = run(dir.path(), &["--db", url, "check"], None);
        assert_eq!(code, Some(2), "{url}: {stderr}");
        assert!(
            stderr.contains("write the password percent-encoded (@ as %40, / as %2F"),
            "{url}: {stderr}"
        );
        assert!(!stderr.contains("secret"), "{url}: {stderr}");
        let created: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(created.is_empty(), "{url}: {created:?}");
    }
}

/// The start-up line names the database with its password masked, wherever the URL holds
/// it: in the user information (a raw `@` in it too) or in `?password=`. (The test server
/// trusts every connection, so any password logs in.)
#[actix_web::test]
async fn the_start_up_line_masks_the_database_password() {
    if !crate::helpers::on_postgres() {
        // An SQLite file has no password; the PostgreSQL pass runs this.
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let spades_im::db::Location::Postgres(url) = crate::helpers::test_store(dir.path()).await
    else {
        panic!("on PostgreSQL")
    };
    let mut with_user_password = url::Url::parse(&url).unwrap();
    with_user_password
        .set_password(Some("p@ss-secret"))
        .unwrap();
    let with_user_password = with_user_password
        .to_string()
        .replace("p%40ss-secret", "p@ss-secret");
    assert!(
        with_user_password.contains(":p@ss-secret@"),
        "{with_user_password}"
    );
    let separator = if url.contains('?') { '&' } else { '?' };
    let with_query_password = format!("{url}{separator}password=secret");
    for url in [with_user_password, with_query_password] {
        let line = first_line_of_serve(dir.path(), &url).await;
        assert!(
            line.starts_with("spades-im is serving http://127.0.0.1:")
                && line.contains("***")
                && !line.contains("secret")
                && !line.contains("p@ss"),
            "{url}: {line}"
        );
    }
}

/// Starts `serve` on `url`, answers the first line it prints, and stops it.
async fn first_line_of_serve(dir: &std::path::Path, url: &str) -> String {
    use std::io::BufRead;
    let mut child = Command::new(BIN)
        .args(["serve", "--bind", "127.0.0.1:0"])
        .current_dir(dir)
        .env("SPADES_DB", url)
        .env("SPADES_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the server");
    let stdout = child.stdout.take().expect("stdout");
    let line = actix_web::rt::task::spawn_blocking(move || {
        let mut line = String::new();
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .map(|_| line)
    })
    .await
    .expect("the reading thread");
    child.kill().expect("stop the server");
    let out = child.wait_with_output().expect("the server's end");
    let line = line.expect("read the server's output");
    assert!(
        !line.is_empty(),
        "the server printed nothing: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    line
}
