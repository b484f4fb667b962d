//! The `spades-im` command: serve (the default), score, backup, restore.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use spades_im::app::{Application, Settings};
use spades_im::db::{Db, Location};
use spades_im::domain::TextEnum;
use spades_im::domain::{Clock, ErrorCode, FieldError, machine_zone};
use spades_im::invocation::command;
use spades_im::rules::score_json;
use spades_im::service::notices::relay::MailSettings;
use spades_im::service::people::oidc::{ClientSecret, OidcSettings};
use spades_im::service::{Role, ServiceError, people::accounts, people::users};
use tracing_subscriber::EnvFilter;

/// Scoring, standings and playoffs for intramural Spades leagues.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: ServeArgs,
    /// How log lines are written to standard error: `text` for people, `json` (one object a
    /// line, the request's id under `spans`) for log shippers.
    #[arg(
        long,
        env = "SPADES_LOG_FORMAT",
        value_enum,
        default_value_t = LogFormat::Text,
        global = true
    )]
    log_format: LogFormat,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

/// Logs to standard error, filtered by `SPADES_LOG` (`info` by default), in `format`.
fn start_logging(format: LogFormat) {
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

/// `--db`: a PostgreSQL URL or an SQLite file; any other URL is an error instead of a folder
/// named `scheme:`. Its own message, not clap's, which would repeat the URL and its password.
#[derive(Clone)]
struct StoreArg;

impl clap::builder::TypedValueParser for StoreArg {
    type Value = Location;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Location, clap::Error> {
        // A path that is not UTF-8 is no URL: kept byte for byte.
        let Some(text) = value.to_str() else {
            return Ok(Location::File(PathBuf::from(value)));
        };
        Location::parse(text).map_err(|e| {
            clap::Error::raw(
                clap::error::ErrorKind::ValueValidation,
                format!("--db: {e}\n"),
            )
            .with_cmd(cmd)
        })
    }
}

#[derive(clap::Args, Clone)]
struct ServeArgs {
    /// Address and port to listen on.
    #[arg(
        long,
        env = "SPADES_BIND",
        default_value = "127.0.0.1:8080",
        global = true
    )]
    bind: String,
    /// The SQLite database file (created if missing), or a PostgreSQL database:
    /// postgres://user:password@host/database (see docs/deploy.md, "Several boxes").
    // `hide_env_values`: `--help` names SPADES_DB without its value, which may hold a password.
    #[arg(
        long,
        env = "SPADES_DB",
        hide_env_values = true,
        default_value = "data/spades-im.sqlite3",
        global = true,
        value_parser = StoreArg
    )]
    db: Location,
    /// Send the session cookie without `Secure`, for plain HTTP on a closed network only
    /// (browsers accept Secure cookies over plain HTTP on 127.0.0.1 and localhost).
    #[arg(
        long,
        env = "SPADES_INSECURE_COOKIES",
        global = true,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    insecure_cookies: bool,
    /// Render every public page afresh, even for anonymous visitors (by default they get a
    /// copy made since the last change; see README "Speed").
    #[arg(
        long,
        env = "SPADES_NO_PAGE_CACHE",
        global = true,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    no_page_cache: bool,
    /// At most this many MiB of page copies for anonymous visitors (body, headers and key
    /// counted), the least recently used let go first; 0 turns the copies off, as
    /// --no-page-cache does.
    #[arg(
        long,
        env = "SPADES_PAGE_CACHE_MB",
        global = true,
        default_value_t = 64,
        value_parser = clap::value_parser!(u32).range(0..=65536)
    )]
    page_cache_mb: u32,
    /// The league's time zone (IANA name, e.g. America/New_York): schedules, "tonight",
    /// "this week", calendar feeds and the nights a move names are in its wall-clock time.
    /// Default: the machine's zone. Also `--tz`, and `SPADES_TZ` when SPADES_TIME_ZONE is
    /// not set.
    #[arg(long, visible_alias = "tz", env = "SPADES_TIME_ZONE", global = true)]
    time_zone: Option<String>,
    /// A reverse proxy (address or CIDR block, e.g. 127.0.0.1 or 10.0.0.0/8) whose
    /// X-Forwarded-For header names the client, for the login throttle. Repeat the flag, or
    /// separate with commas. Without it every client is its peer address (see README,
    /// "Behind a reverse proxy").
    #[arg(
        long = "trusted-proxy",
        env = "SPADES_TRUSTED_PROXIES",
        value_name = "CIDR",
        value_delimiter = ',',
        value_parser = parse_proxy,
        global = true
    )]
    trusted_proxies: Vec<ipnet::IpNet>,
    /// How many threads answer requests (default: one per CPU core). Slow work (password
    /// hashing, the backup's fsync) runs on other threads and does not hold them.
    #[arg(
        long,
        env = "SPADES_WORKERS",
        global = true,
        value_parser = clap::value_parser!(u16).range(1..=1024)
    )]
    workers: Option<u16>,
    #[command(flatten)]
    campus: CampusArgs,
    #[command(flatten)]
    mail: MailArgs,
}

/// Notices by email: see docs/deploy.md, "Notices by email".
#[derive(clap::Args, Clone)]
struct MailArgs {
    /// The mail relay: smtp://relay.example.edu:587 (STARTTLS when offered; required with a
    /// user and password, smtp://user:pass@host:587), or smtps://host:465. Prefer the
    /// environment variable when it holds a password.
    #[arg(long, env = "SPADES_SMTP_URL", hide_env_values = true, global = true)]
    smtp_url: Option<String>,
    /// The sender of notices, e.g. "IM Sports <im-sports@example.edu>".
    #[arg(long, env = "SPADES_MAIL_FROM", global = true)]
    mail_from: Option<String>,
}

impl MailArgs {
    /// Both of --smtp-url and --mail-from, or neither.
    fn settings(&self) -> anyhow::Result<Option<MailSettings>> {
        match (&self.smtp_url, &self.mail_from) {
            (Some(url), Some(from)) => Ok(Some(MailSettings {
                url: url.clone(),
                from: from.clone(),
            })),
            (None, None) => Ok(None),
            (Some(_), None) => anyhow::bail!("--smtp-url also needs --mail-from"),
            (None, Some(_)) => anyhow::bail!("--mail-from also needs --smtp-url"),
        }
    }
}

/// Campus sign-in (OpenID Connect): see docs/deploy.md, "Campus sign-in".
#[derive(clap::Args, Clone)]
struct CampusArgs {
    /// The address people reach the service at, e.g. https://spades.example.edu: campus
    /// sign-in's redirect URI is {public-url}/auth/oidc/callback.
    #[arg(long, env = "SPADES_PUBLIC_URL", global = true)]
    public_url: Option<url::Url>,
    /// The campus identity provider's issuer URL, exactly as its discovery document names it
    /// (e.g. https://login.microsoftonline.com/TENANT/v2.0). With the client id and secret it
    /// turns on "Log in with your campus account".
    #[arg(long, env = "SPADES_OIDC_ISSUER", global = true)]
    oidc_issuer: Option<String>,
    /// The client id the provider gave this service.
    #[arg(long, env = "SPADES_OIDC_CLIENT_ID", global = true)]
    oidc_client_id: Option<String>,
    /// The client secret the provider gave this service. Prefer the environment variable: a
    /// flag's value shows in the process list.
    // `hide_env_values`: `--help` names SPADES_OIDC_CLIENT_SECRET without its value.
    #[arg(
        long,
        env = "SPADES_OIDC_CLIENT_SECRET",
        hide_env_values = true,
        global = true
    )]
    oidc_client_secret: Option<String>,
    /// Supervisors log in only with their campus account (admins keep their password, for
    /// the day the provider is down; the command line still works).
    #[arg(
        long,
        env = "SPADES_OIDC_ONLY",
        global = true,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    oidc_only: bool,
}

impl CampusArgs {
    /// The campus sign-in settings: all three of issuer, client id and secret, or none.
    fn settings(&self) -> anyhow::Result<Option<OidcSettings>> {
        let (issuer, client_id, secret) = match (
            &self.oidc_issuer,
            &self.oidc_client_id,
            &self.oidc_client_secret,
        ) {
            (Some(issuer), Some(id), Some(secret)) => (issuer, id, secret),
            (None, None, None) if self.oidc_only => anyhow::bail!(
                "--oidc-only needs campus sign-in: --oidc-issuer, --oidc-client-id and \
                 --oidc-client-secret"
            ),
            (None, None, None) => return Ok(None),
            (issuer, id, secret) => {
                let missing: Vec<&str> = [
                    ("--oidc-issuer", issuer.is_none()),
                    ("--oidc-client-id", id.is_none()),
                    ("--oidc-client-secret", secret.is_none()),
                ]
                .into_iter()
                .filter_map(|(flag, absent)| absent.then_some(flag))
                .collect();
                anyhow::bail!("campus sign-in also needs {}", missing.join(" and "))
            }
        };
        Ok(Some(OidcSettings {
            issuer: issuer.clone(),
            client_id: client_id.clone(),
            client_secret: ClientSecret::new(secret.clone()),
            only: self.oidc_only,
        }))
    }
}

/// An address block, or a single address as a block of one.
fn parse_proxy(s: &str) -> Result<ipnet::IpNet, String> {
    let s = s.trim();
    s.parse::<ipnet::IpNet>()
        .or_else(|_| s.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| {
            format!("\"{s}\" is not an address or CIDR block (e.g. 127.0.0.1 or 10.0.0.0/8)")
        })
}

impl ServeArgs {
    /// The database, migrated, on the machine's clock.
    async fn open(&self) -> anyhow::Result<Db> {
        Ok(Db::open(&self.db, self.clock()?).await?)
    }

    /// The machine's clock in the configured time zone.
    fn clock(&self) -> anyhow::Result<Clock> {
        let named = self
            .time_zone
            .clone()
            .or_else(|| std::env::var("SPADES_TZ").ok());
        let zone = match named.as_deref().map(str::trim) {
            None | Some("") => machine_zone(),
            Some(name) => name.parse().map_err(|_| {
                anyhow::anyhow!(
                    "unknown time zone \"{name}\": use an IANA name such as America/New_York"
                )
            })?,
        };
        Ok(Clock::system(zone))
    }
}

#[derive(Subcommand)]
enum Command {
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
    Demo,
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
        #[arg(value_parser = StoreArg)]
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

#[derive(Subcommand)]
enum UserCommand {
    /// Add a user; prints a generated password unless --password-stdin is given.
    Add {
        name: String,
        #[arg(long, value_parser = ["admin", "supervisor"])]
        role: String,
        /// Read the password from standard input (first line).
        #[arg(long)]
        password_stdin: bool,
    },
    /// List every user: name, role, state, leagues, last log-in.
    List,
    /// Give the user NAME a new one-time password (printed once), ending its sessions and
    /// revoking its API tokens.
    Reset { name: String },
    /// Deactivate the user NAME: it can no longer log in; its sessions end and its API
    /// tokens are revoked.
    Disable { name: String },
    /// Reactivate the user NAME.
    Enable { name: String },
}

#[derive(Subcommand)]
enum TokenCommand {
    /// Create an API token acting as the user NAME; prints it once.
    Create {
        name: String,
        /// A label to recognise the token by.
        #[arg(long, default_value = "cli")]
        label: String,
    },
}

fn main() -> ExitCode {
    large_blocks_apart();
    let cli = Cli::parse();
    start_logging(cli.log_format);
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => run_async(serve(cli.serve)),
        Command::Score => score(),
        Command::Backup { file } => run_async(backup(cli.serve, file)),
        Command::Check { rebuild } => run_async(check(cli.serve, rebuild)),
        Command::Restore { file, force } => run_async(restore(cli.serve.db, file, force)),
        Command::Demo => run_async(demo(cli.serve)),
        Command::MigrateTo { url } => run_async(migrate_to(cli.serve, url)),
        Command::MailTest { address } => run_async(mail_test(cli.serve.mail, address)),
        Command::Generate {
            teams,
            matches,
            hands,
            slug,
            seed,
        } => run_async(generate(
            cli.serve,
            spades_im::generate::SeasonSpec {
                slug,
                teams,
                matches,
                hands,
                seed,
            },
        )),
        Command::User {
            command:
                UserCommand::Add {
                    name,
                    role,
                    password_stdin,
                },
        } => run_async(add_user(cli.serve, name, role, password_stdin)),
        Command::User {
            command: UserCommand::List,
        } => run_async(list_users(cli.serve)),
        Command::User {
            command: UserCommand::Reset { name },
        } => run_async(reset_user(cli.serve, name)),
        Command::User {
            command: UserCommand::Disable { name },
        } => run_async(set_user_active(cli.serve, name, false)),
        Command::User {
            command: UserCommand::Enable { name },
        } => run_async(set_user_active(cli.serve, name, true)),
        Command::Token {
            command: TokenCommand::Create { name, label },
        } => run_async(create_token(cli.serve, name, label)),
    }
}

/// Blocks of 128 KiB and more (a page cache's copy, a rendered schedule, a document being
/// imported) each in memory of its own, returned to the system when freed. By default glibc
/// raises that threshold after the first such block is freed and serves later ones from its
/// heap, where copies the page cache lets go leave holes it keeps: 10,000 distinct query
/// strings grew the server by 139 MiB under a 64 MiB bound, 68 MiB with this (BENCHMARKS.md).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn large_blocks_apart() {
    // SAFETY: mallopt only sets a parameter of glibc's allocator; it is called first thing in
    // `main`, before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn large_blocks_apart() {}

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
    use spades_im::db::is_busy as store_busy;
    e.chain().any(|cause| {
        matches!(
            cause.downcast_ref::<spades_im::service::ServiceError>(),
            Some(spades_im::service::ServiceError::Busy)
        ) || cause.downcast_ref::<sqlx::Error>().is_some_and(store_busy)
            || matches!(
                cause.downcast_ref::<sqlx::migrate::MigrateError>(),
                Some(sqlx::migrate::MigrateError::Execute(e)) if store_busy(e)
            )
    })
}

/// A service error for the command line; busy keeps its type for [`is_busy`].
fn service_error(e: spades_im::service::ServiceError) -> anyhow::Error {
    match e {
        spades_im::service::ServiceError::Busy => anyhow::Error::new(e),
        other => anyhow::anyhow!("{other}"),
    }
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    // A panic, should one happen, is one log line (and the request one 500), never a
    // backtrace per request.
    spades_im::web::middleware::panics::log_panics_in_one_line();
    let clock = args.clock()?;
    let settings = Settings {
        bind: args.bind,
        db: args.db,
        secure_cookies: !args.insecure_cookies,
        page_cache_bytes: if args.no_page_cache {
            0
        } else {
            usize::try_from(args.page_cache_mb)? << 20
        },
        clock,
        trusted_proxies: args.trusted_proxies,
        workers: args.workers.map(usize::from),
        public_url: args.campus.public_url.clone(),
        oidc: args.campus.settings()?,
        mail: args.mail.settings()?,
    };
    let app = Application::build(&settings).await?;
    let first_admin = accounts::ensure_admin(app.db()).await?;
    let host = settings
        .bind
        .rsplit_once(':')
        .map_or("127.0.0.1", |(h, _)| h);
    let host = if host == "0.0.0.0" { "127.0.0.1" } else { host };
    println!(
        "spades-im is serving http://{host}:{}/ (database {})",
        app.port(),
        settings.db
    );
    match first_admin {
        Some((name, password)) => println!(
            "First start: log in at http://{host}:{}/login as \"{name}\" with the one-time password {password} (shown once; you choose your own at the first log-in)",
            app.port()
        ),
        None => println!(
            "Log in at http://{host}:{}/login (add users with `{}`)",
            app.port(),
            command("user add NAME --role admin|supervisor")
        ),
    }
    app.run_until_stopped().await?;
    Ok(())
}

fn score() -> ExitCode {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("error: cannot read standard input: {e}");
        return ExitCode::FAILURE;
    }
    let value: serde_json::Value = match serde_json::from_str(&input) {
        Ok(v) => v,
        Err(e) => {
            let error =
                FieldError::new(ErrorCode::Malformed, format!("the input is not JSON: {e}"));
            let body = serde_json::json!({ "error": error });
            println!("{body:#}");
            return ExitCode::FAILURE;
        }
    };
    match score_json(value) {
        Ok(answer) => match serde_json::to_string_pretty(&answer) {
            Ok(text) => {
                println!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Err(error) => {
            let body = serde_json::json!({ "error": error });
            println!("{body:#}");
            ExitCode::FAILURE
        }
    }
}

async fn migrate_to(args: ServeArgs, url: Location) -> anyhow::Result<()> {
    if !matches!(args.db, Location::File(_)) || !matches!(url, Location::Postgres(_)) {
        anyhow::bail!(spades_im::db::copy::CopyError::WrongStores);
    }
    let source = args.open().await?;
    let target = Db::open(&url, args.clock()?).await?;
    let copied = spades_im::db::copy::sqlite_to_postgres(&source, &target).await?;
    let rows: u64 = copied.tables.iter().map(|(_, n)| n).sum();
    let report = spades_im::service::check::check(&target).await?;
    for difference in &report.differences {
        println!("{difference}");
    }
    if !report.differences.is_empty() {
        anyhow::bail!(
            "the copy in {url} disagrees with its own hands ({} differences above)",
            report.differences.len()
        );
    }
    for (table, n) in &copied.tables {
        println!("{table}: {n} rows");
    }
    println!(
        "copied {rows} rows from {} to {url}: every table's count, every match's totals and \
         every team's record agree, and the {} matches' {} hands replay to their totals; start \
         the server with --db set to the PostgreSQL URL",
        args.db, report.matches, report.hands
    );
    Ok(())
}

async fn check(args: ServeArgs, rebuild: bool) -> anyhow::Result<()> {
    let db = args.open().await?;
    if rebuild {
        let teams = spades_im::service::check::rebuild_records(&db).await?;
        println!(
            "rebuilt the standings records of {teams} teams and the counts of matches from the \
             matches"
        );
    }
    // Every row through the import's gate first, every league read: a row that does not
    // read would stop the comparison below, and each is named here.
    let bad = spades_im::service::league_doc::bad_rows(&db).await?;
    for row in &bad {
        println!("{row}");
    }
    if !bad.is_empty() {
        anyhow::bail!(
            "{} rows would be refused by an import today (listed above: league, table, row id, \
             where in its league's document, and what is wrong); put them right or restore a \
             backup, then run `{}` again to compare the cached totals",
            bad.len(),
            command("check")
        );
    }
    let report = spades_im::service::check::check(&db).await?;
    for difference in &report.differences {
        println!("{difference}");
    }
    if report.differences.is_empty() {
        println!(
            "checked {} matches ({} hands): every cached total agrees with the hands, every \
             team's record and every league's count of matches with the matches",
            report.matches, report.hands
        );
        Ok(())
    } else {
        anyhow::bail!(
            "{} cached values differ from the hands or the matches (listed above); the \
             teams' records and the counts of matches are rewritten by `{}`",
            report.differences.len(),
            command("check --rebuild")
        )
    }
}

async fn mail_test(args: MailArgs, address: String) -> anyhow::Result<()> {
    let Some(settings) = args.settings()? else {
        anyhow::bail!(
            "mail-test needs --smtp-url and --mail-from (or SPADES_SMTP_URL and SPADES_MAIL_FROM)"
        );
    };
    let relay = spades_im::service::notices::relay::Relay::new(&settings)?;
    relay.send_test(&address).await?;
    println!("the relay took the test message ({})", relay.describe());
    Ok(())
}

async fn backup(args: ServeArgs, file: PathBuf) -> anyhow::Result<()> {
    if file.exists() {
        anyhow::bail!("{} already exists; choose a new file", file.display());
    }
    let db = args.open().await?;
    db.backup(&file).await?;
    println!("backup written to {} and checked", file.display());
    Ok(())
}

async fn restore(db: Location, file: PathBuf, force: bool) -> anyhow::Result<()> {
    let Location::File(db) = db else {
        anyhow::bail!(
            "restore puts an SQLite backup file in place; a PostgreSQL database is restored \
             with pg_restore or from a base backup (see docs/deploy.md)"
        );
    };
    let done = spades_im::db::restore(&file, &db, force).await?;
    let schema = if done.migration < done.latest {
        format!(
            "its tables are at migration {} of {}: the server brings them up to date when it starts",
            done.migration, done.latest
        )
    } else {
        format!(
            "its tables are at migration {}, this program's last",
            done.migration
        )
    };
    println!(
        "restored {} as {}{}",
        file.display(),
        db.display(),
        if done.replaced {
            " (in place of the database that was there)"
        } else {
            ""
        }
    );
    println!("checked: integrity, foreign keys and the schema; {schema}");
    println!(
        "serve it with: {}",
        command(&format!("--db {}", db.display()))
    );
    Ok(())
}

async fn add_user(
    args: ServeArgs,
    name: String,
    role: String,
    password_stdin: bool,
) -> anyhow::Result<()> {
    let role =
        Role::parse(&role).map_err(|_| anyhow::anyhow!("the role is admin or supervisor"))?;
    let db = args.open().await?;
    let taken = |e: ServiceError| match &e {
        ServiceError::Invalid(f) if f.code == ErrorCode::UsernameTaken => anyhow::anyhow!(
            "{e}; to give that user a new password: {}",
            command(&format!("user reset {name}"))
        ),
        _ => service_error(e),
    };
    if password_stdin {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line)?;
        let password = line.trim_end_matches(['\n', '\r']);
        let user = accounts::create_user(&db, None, &name, role, password)
            .await
            .map_err(taken)?;
        println!("user {} ({}) added", user.username, role.as_str());
    } else {
        let new = users::NewAccount {
            username: name.clone(),
            role,
            email: None,
        };
        let (user, password) = users::add(&db, None, &new, &[]).await.map_err(taken)?;
        println!(
            "user {} ({}) added; one-time password (to be changed at the first log-in): {password}",
            user.username,
            role.as_str()
        );
    }
    Ok(())
}

/// "no user named NAME" for a missing user, else the service's message.
fn user_error(name: &str) -> impl Fn(ServiceError) -> anyhow::Error + '_ {
    move |e| match e {
        ServiceError::NotFound => {
            anyhow::anyhow!("no user named {name} (see {})", command("user list"))
        }
        other => service_error(other),
    }
}

async fn list_users(args: ServeArgs) -> anyhow::Result<()> {
    let db = args.open().await?;
    for user in users::all(&db).await.map_err(service_error)? {
        let state = match (user.active, user.must_change_password) {
            (false, _) => "deactivated",
            (true, true) => "must change password",
            (true, false) => "active",
        };
        let last = user.last_login_at.map_or_else(
            || "never logged in".to_string(),
            |t| format!("last log-in {t}"),
        );
        let leagues = if user.leagues.is_empty() {
            "no leagues".to_string()
        } else {
            user.leagues.join(", ")
        };
        println!(
            "{}\t{}\t{state}\t{leagues}\t{last}",
            user.username,
            user.role.as_str()
        );
    }
    Ok(())
}

async fn reset_user(args: ServeArgs, name: String) -> anyhow::Result<()> {
    let db = args.open().await?;
    let password = users::reset_password(&db, None, &name)
        .await
        .map_err(user_error(&name))?;
    println!("user {name}: new one-time password (to be changed at the first log-in): {password}");
    Ok(())
}

async fn set_user_active(args: ServeArgs, name: String, active: bool) -> anyhow::Result<()> {
    let db = args.open().await?;
    let change = users::AccountChange {
        active: Some(active),
        ..Default::default()
    };
    users::change(&db, None, &name, &change)
        .await
        .map_err(user_error(&name))?;
    if active {
        println!("user {name} enabled");
    } else {
        println!("user {name} disabled: its sessions ended and its API tokens were revoked");
    }
    Ok(())
}

async fn create_token(args: ServeArgs, name: String, label: String) -> anyhow::Result<()> {
    let db = args.open().await?;
    let token = accounts::create_token(&db, &name, &label)
        .await
        .map_err(|e| match e {
            spades_im::service::ServiceError::NotFound => anyhow::anyhow!("no user named {name}"),
            other => service_error(other),
        })?;
    println!("{token}");
    Ok(())
}

async fn generate(args: ServeArgs, spec: spades_im::generate::SeasonSpec) -> anyhow::Result<()> {
    let db = args.open().await?;
    let (admin, password) = spades_im::generate::admin(&db).await?;
    if let Some(password) = password {
        println!(
            "created the admin account \"{}\"; one-time password (to be changed at the first log-in): {password}",
            admin.username
        );
    }
    let started = std::time::Instant::now();
    let g = spades_im::generate::season(&db, &admin, &spec).await?;
    println!(
        "league /leagues/{}: {} teams, {} matches ({} complete, {} in progress), {} hands in {:.1} s",
        spec.slug,
        spec.teams,
        g.matches,
        g.complete,
        g.in_progress,
        g.hands,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

async fn demo(args: ServeArgs) -> anyhow::Result<()> {
    let db = args.open().await?;
    let summary = spades_im::demo::load(&db).await?;
    println!("{summary}");
    Ok(())
}
