//! The `spades-im` command line: its arguments (clap derive), the checks of settings that
//! clap cannot say (`settings`), and each command's body, one file per group: `serve`,
//! `score`, `store` (check, backup, restore, migrate-to), `users` (user and token), `seasons`
//! (demo, generate) and `mail` (mail-test). `main.rs` parses and calls [`Cli::run`].

mod mail;
mod score;
mod seasons;
mod serve;
mod settings;
mod store;
mod users;

#[cfg(test)]
mod tests;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tracing_subscriber::EnvFilter;

use crate::db::Location;
use crate::service::ServiceError;

pub use settings::{CampusArgs, MailArgs, ServeArgs};
pub use users::{RoleArg, TokenCommand, UserCommand};

/// Scoring, standings and playoffs for intramural Spades leagues.
#[derive(Parser)]
#[command(version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub serve: ServeArgs,
    /// How log lines are written to standard error: `text` for people, `json` (one object a
    /// line, the request's id under `spans`) for log shippers.
    #[arg(
        long,
        env = "SPADES_LOG_FORMAT",
        value_enum,
        default_value_t = LogFormat::Text,
        global = true
    )]
    pub log_format: LogFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

// No Debug: `migrate-to`'s URL may hold a password (Location shows it masked).
#[derive(Subcommand)]
pub enum Command {
    /// Serve the web pages and the JSON API (the default command).
    Serve,
    /// Score a game offline: reads a calculator request (JSON, as POST /api/v1/score) on
    /// standard input and prints the answer. Exits 1 with the error JSON on invalid input.
    Score,
    /// Manage users.
    User {
        #[command(subcommand)]
        command: UserCommand,
    },
    /// Manage API tokens.
    Token {
        #[command(subcommand)]
        command: TokenCommand,
    },
    /// Load a sample season (8 teams, a round robin about half played, one match in
    /// progress) into the database, for a first look.
    Demo {
        /// Load a tournament night instead: 24 teams, 4 Swiss rounds played, the top 8 in a
        /// bracket with its quarter-finals played.
        #[arg(long)]
        tournament: bool,
    },
    /// Generate a large season for benchmarks: a league of TEAMS teams and MATCHES
    /// round-robin matches played in order until HANDS hands are in (scored by the engine).
    Generate {
        #[arg(long, default_value_t = 64)]
        teams: usize,
        #[arg(long, default_value_t = 2000)]
        matches: usize,
        #[arg(long, default_value_t = 30000)]
        hands: usize,
        #[arg(long, default_value = "bench")]
        slug: String,
        #[arg(long, default_value_t = 2026)]
        seed: u64,
    },
    /// Replay every match's hands and compare the totals cached on each match, and compare
    /// each team's standings record and each league's count of matches with the matches; prints each difference and
    /// exits 1 if there is one (safe while the server runs: it only reads).
    Check {
        /// First rewrite every team's standings record and every league's count of matches
        /// from the matches.
        #[arg(long)]
        rebuild: bool,
    },
    /// Copy the database to FILE (VACUUM INTO) and check the copy's integrity.
    Backup {
        /// Where to write the copy; must not exist.
        file: PathBuf,
    },
    /// Copy the SQLite database (--db FILE) into an empty PostgreSQL database, in one
    /// transaction, then compare every table's count, every match's cached totals and every
    /// team's record in the two, and replay every match's hands on the copy. Stop the server
    /// first: what it writes during the copy is not copied.
    MigrateTo {
        /// The PostgreSQL database: postgres://user:password@host/database (empty).
        #[arg(value_parser = settings::StoreArg)]
        url: Location,
    },
    /// Put a backup in place as the --db file: checks its integrity and that it is a
    /// spades-im database no newer than this program, then copies it in atomically. Refuses
    /// a database in use (stop the server first) and an existing one unless --force.
    Restore {
        /// The backup to restore (written by `backup` or the admin page's download).
        #[arg(value_name = "BACKUP_FILE")]
        file: PathBuf,
        /// Replace the --db file if it exists (never while a server has it open).
        #[arg(long)]
        force: bool,
    },
    /// Send a test message to ADDRESS through the relay of --smtp-url, from --mail-from, to
    /// check them before the server sends notices.
    MailTest { address: String },
}

impl Cli {
    /// Runs the command (serve when none is named) to its end.
    pub fn run(self) -> ExitCode {
        let args = self.serve;
        match self.command.unwrap_or(Command::Serve) {
            Command::Serve => run_async(serve::serve(args)),
            Command::Score => score::score(),
            Command::Backup { file } => run_async(store::backup(args, file)),
            Command::Check { rebuild } => run_async(store::check(args, rebuild)),
            Command::Restore { file, force } => run_async(store::restore(args.db, file, force)),
            Command::MigrateTo { url } => run_async(store::migrate_to(args, url)),
            Command::Demo { tournament } => run_async(seasons::demo(args, tournament)),
            Command::Generate {
                teams,
                matches,
                hands,
                slug,
                seed,
            } => {
                let spec = crate::generate::SeasonSpec {
                    slug,
                    teams,
                    matches,
                    hands,
                    seed,
                };
                run_async(seasons::generate(args, spec))
            }
            Command::MailTest { address } => run_async(mail::mail_test(args.mail, address)),
            Command::User { command } => run_async(users::user(args, command)),
            Command::Token { command } => run_async(users::token(args, command)),
        }
    }
}

/// Logs to standard error, filtered by `SPADES_LOG` (`info` by default), in `format`.
pub fn start_logging(format: LogFormat) {
    let filter = EnvFilter::try_from_env("SPADES_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    // Colours only for a person at a terminal, never into a file or the journal.
    let lines = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => lines.init(),
        // Every open span with its fields (`spans`): the request's id is in the outermost,
        // whichever service function (`#[instrument]`) wrote the line.
        LogFormat::Json => lines
            .json()
            .with_current_span(false)
            .with_span_list(true)
            .init(),
    }
}

fn run_async(future: impl Future<Output = anyhow::Result<()>>) -> ExitCode {
    let result = actix_web::rt::System::new().block_on(future);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_busy(&e) => {
            eprintln!("error: {BUSY}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// What a command says when the database stayed locked past its timeout: nothing was written.
const BUSY: &str = "the database is busy (the server is writing): try again";

/// Whether `e` is the database staying busy or locked past its timeout (by its error code, as
/// the server decides its 503), anywhere in the chain of causes.
fn is_busy(e: &anyhow::Error) -> bool {
    use crate::db::is_busy as store_busy;
    e.chain().any(|cause| {
        matches!(
            cause.downcast_ref::<ServiceError>(),
            Some(ServiceError::Busy)
        ) || cause.downcast_ref::<sqlx::Error>().is_some_and(store_busy)
            || matches!(
                cause.downcast_ref::<sqlx::migrate::MigrateError>(),
                Some(sqlx::migrate::MigrateError::Execute(e)) if store_busy(e)
            )
    })
}

/// A service error for the command line; busy keeps its type for [`is_busy`].
fn service_error(e: ServiceError) -> anyhow::Error {
    match e {
        ServiceError::Busy => anyhow::Error::new(e),
        other => anyhow::anyhow!("{other}"),
    }
}
