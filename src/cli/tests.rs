//! Which flags the command line takes, refuses, and needs together (clap's `try_parse_from`),
//! and the checks of settings that clap cannot say.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};

use super::*;

fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
    Cli::try_parse_from(std::iter::once("spades-im").chain(args.iter().copied()))
}

fn refused(args: &[&str]) -> ErrorKind {
    match parse(args) {
        Ok(_) => panic!("{args:?} was taken"),
        Err(e) => e.kind(),
    }
}

#[test]
fn the_definition_is_consistent() {
    Cli::command().debug_assert();
}

#[test]
fn no_command_serves_on_the_default_file() {
    let cli = parse(&[]).unwrap();
    assert!(cli.command.is_none());
    assert!(cli.serve.db == Location::File("data/spades-im.sqlite3".into()));
    assert_eq!(cli.serve.bind, "127.0.0.1:8080");
    assert_eq!(cli.serve.page_cache_mb, 64);
    assert_eq!(cli.log_format, LogFormat::Text);
}

#[test]
fn settings_are_global_so_they_may_follow_the_command() {
    let cli = parse(&[
        "user",
        "list",
        "--db",
        "other.sqlite3",
        "--tz",
        "Europe/Oslo",
    ])
    .unwrap();
    assert!(matches!(
        cli.command,
        Some(Command::User {
            command: UserCommand::List
        })
    ));
    assert!(cli.serve.db == Location::File("other.sqlite3".into()));
    assert_eq!(cli.serve.time_zone.as_deref(), Some("Europe/Oslo"));
}

#[test]
fn a_role_is_admin_or_supervisor_and_required() {
    let cli = parse(&["user", "add", "pat", "--role", "supervisor"]).unwrap();
    let Some(Command::User { command }) = cli.command else {
        panic!("not a user command");
    };
    assert_eq!(
        command,
        UserCommand::Add {
            name: "pat".into(),
            role: RoleArg::Supervisor,
            password_stdin: false
        }
    );
    assert_eq!(
        crate::domain::Role::from(RoleArg::Admin),
        crate::domain::Role::Admin
    );
    assert_eq!(
        refused(&["user", "add", "pat", "--role", "boss"]),
        ErrorKind::InvalidValue
    );
    assert_eq!(
        refused(&["user", "add", "pat"]),
        ErrorKind::MissingRequiredArgument
    );
}

#[test]
fn a_url_that_is_no_store_is_refused_without_repeating_it() {
    let e = parse(&["--db", "mysql://user:hunter2@host/db"])
        .err()
        .unwrap();
    assert_eq!(e.kind(), ErrorKind::ValueValidation);
    assert!(!e.to_string().contains("hunter2"), "{e}");
    let cli = parse(&["migrate-to", "postgres://u:p@host/db"]).unwrap();
    assert!(matches!(
        cli.command,
        Some(Command::MigrateTo {
            url: Location::Postgres(_)
        })
    ));
}

#[test]
fn numbers_out_of_range_are_refused() {
    assert_eq!(
        refused(&["--page-cache-mb", "65537"]),
        ErrorKind::ValueValidation
    );
    assert_eq!(refused(&["--workers", "0"]), ErrorKind::ValueValidation);
    assert_eq!(
        parse(&["--workers", "1024"]).unwrap().serve.workers,
        Some(1024)
    );
}

#[test]
fn trusted_proxies_are_repeated_or_separated_by_commas() {
    let cli = parse(&[
        "--trusted-proxy",
        "127.0.0.1, 10.0.0.0/8",
        "--trusted-proxy",
        "::1",
    ])
    .unwrap();
    let shown: Vec<String> = cli
        .serve
        .trusted_proxies
        .iter()
        .map(|p| p.to_string())
        .collect();
    assert_eq!(shown, ["127.0.0.1/32", "10.0.0.0/8", "::1/128"]);
    assert_eq!(
        refused(&["--trusted-proxy", "proxy.local"]),
        ErrorKind::ValueValidation
    );
}

#[test]
fn the_mail_relay_needs_both_flags() {
    let settings = |args: &[&str]| parse(args).unwrap().serve.mail.settings();
    assert!(settings(&[]).unwrap().is_none());
    let both = settings(&[
        "--smtp-url",
        "smtp://relay:587",
        "--mail-from",
        "im@example.edu",
    ]);
    assert_eq!(both.unwrap().unwrap().from, "im@example.edu");
    let e = settings(&["--smtp-url", "smtp://relay:587"]).unwrap_err();
    assert_eq!(e.to_string(), "--smtp-url also needs --mail-from");
    let e = settings(&["--mail-from", "im@example.edu"]).unwrap_err();
    assert_eq!(e.to_string(), "--mail-from also needs --smtp-url");
}

#[test]
fn campus_sign_in_needs_all_three_and_only_needs_it() {
    let settings = |args: &[&str]| parse(args).unwrap().serve.campus.settings();
    assert!(settings(&[]).unwrap().is_none());
    let all = [
        "--oidc-issuer",
        "https://idp.example.edu",
        "--oidc-client-id",
        "spades",
        "--oidc-client-secret",
        "s3cret",
        "--oidc-only",
    ];
    let on = settings(&all).unwrap().unwrap();
    assert!(on.only);
    assert_eq!(on.client_id, "spades");
    let e = settings(&all[..2]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "campus sign-in also needs --oidc-client-id and --oidc-client-secret"
    );
    let e = settings(&["--oidc-only"]).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("--oidc-only needs campus sign-in"),
        "{e}"
    );
}

#[test]
fn commands_take_their_own_arguments() {
    let cli = parse(&["restore", "copy.sqlite3", "--force"]).unwrap();
    assert!(matches!(
        cli.command,
        Some(Command::Restore { force: true, .. })
    ));
    assert_eq!(refused(&["backup"]), ErrorKind::MissingRequiredArgument);
    assert_eq!(refused(&["check", "--force"]), ErrorKind::UnknownArgument);
    let cli = parse(&["token", "create", "coord"]).unwrap();
    let Some(Command::Token { command }) = cli.command else {
        panic!("not a token command");
    };
    assert_eq!(
        command,
        TokenCommand::Create {
            name: "coord".into(),
            label: "cli".into()
        }
    );
    let cli = parse(&["generate", "--teams", "8"]).unwrap();
    assert!(matches!(
        cli.command,
        Some(Command::Generate {
            teams: 8,
            matches: 2000,
            hands: 30000,
            seed: 2026,
            ..
        })
    ));
}

#[test]
fn the_time_zone_is_an_iana_name() {
    assert!(
        parse(&["--time-zone", "America/New_York"])
            .unwrap()
            .serve
            .clock()
            .is_ok()
    );
    let e = parse(&["--tz", "Mars/Olympus"])
        .unwrap()
        .serve
        .clock()
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("unknown time zone \"Mars/Olympus\""),
        "{e}"
    );
}
