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
