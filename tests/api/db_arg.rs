//! `--db` (or `SPADES_DB`) names a SQLite file; a database URL is refused with what to do,
//! never taken for a path (it used to create a folder named `postgres:`).

use std::process::{Command, Stdio};

use crate::concurrency::BIN;

#[test]
fn a_database_url_is_refused_and_nothing_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let url = "postgres://user:secret@db.example/spades";
    for (how, args, env) in [
        ("--db", vec!["--db", url, "check"], None),
        ("SPADES_DB", vec!["check"], Some(url)),
        ("--db, serving", vec!["--db", url], None),
    ] {
        let mut command = Command::new(BIN);
        command
            .args(&args)
            .current_dir(dir.path())
            .env_remove("SPADES_DB")
            .stdin(Stdio::null());
        if let Some(value) = env {
            command.env("SPADES_DB", value);
        }
        let out = command.output().expect("run the CLI");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{how}: {stderr}");
        assert!(
            stderr.contains("\"postgres://…\" is a database URL")
                && stderr.contains("give the file's path"),
            "{how}: {stderr}"
        );
        assert!(
            !stderr.contains("secret"),
            "{how}: the password is not echoed: {stderr}"
        );
        let created: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(created.is_empty(), "{how}: {created:?}");
    }
}
