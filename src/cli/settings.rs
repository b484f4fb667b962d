//! The settings every command shares (`--db`, the clock) and those of the server, with the
//! checks clap cannot say: which flags need each other (campus sign-in, the mail relay) and
//! the time zone's name.

use std::path::PathBuf;

use crate::db::{Db, Location};
use crate::domain::{Clock, machine_zone};
use crate::service::notices::relay::MailSettings;
use crate::service::people::oidc::{ClientSecret, OidcSettings};

/// `--db`: a PostgreSQL URL or an SQLite file; any other URL is an error instead of a folder
/// named `scheme:`. Its own message, not clap's, which would repeat the URL and its password.
#[derive(Clone)]
pub(super) struct StoreArg;

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
pub struct ServeArgs {
    /// Address and port to listen on.
    #[arg(
        long,
        env = "SPADES_BIND",
        default_value = "127.0.0.1:8080",
        global = true
    )]
    pub bind: String,
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
    pub db: Location,
    /// Send the session cookie without `Secure`, for plain HTTP on a closed network only
    /// (browsers accept Secure cookies over plain HTTP on 127.0.0.1 and localhost).
    #[arg(
        long,
        env = "SPADES_INSECURE_COOKIES",
        global = true,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub insecure_cookies: bool,
    /// Render every public page afresh, even for anonymous visitors (by default they get a
    /// copy made since the last change; see docs/speed.md).
    #[arg(
        long,
        env = "SPADES_NO_PAGE_CACHE",
        global = true,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub no_page_cache: bool,
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
    pub page_cache_mb: u32,
    /// The league's time zone (IANA name, e.g. America/New_York): schedules, "tonight",
    /// "this week", calendar feeds and the nights a move names are in its wall-clock time.
    /// Default: the machine's zone. Also `--tz`, and `SPADES_TZ` when SPADES_TIME_ZONE is
    /// not set.
    #[arg(long, visible_alias = "tz", env = "SPADES_TIME_ZONE", global = true)]
    pub time_zone: Option<String>,
    /// A reverse proxy (address or CIDR block, e.g. 127.0.0.1 or 10.0.0.0/8) whose
    /// X-Forwarded-For header names the client, for the login throttle. Repeat the flag, or
    /// separate with commas. Without it every client is its peer address (see
    /// docs/configuration.md, "Behind a reverse proxy").
    #[arg(
        long = "trusted-proxy",
        env = "SPADES_TRUSTED_PROXIES",
        value_name = "CIDR",
        value_delimiter = ',',
        value_parser = parse_proxy,
        global = true
    )]
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// How many threads answer requests (default: one per CPU core). Slow work (password
    /// hashing, the backup's fsync) runs on other threads and does not hold them.
    #[arg(
        long,
        env = "SPADES_WORKERS",
        global = true,
        value_parser = clap::value_parser!(u16).range(1..=1024)
    )]
    pub workers: Option<u16>,
    #[command(flatten)]
    pub campus: CampusArgs,
    #[command(flatten)]
    pub mail: MailArgs,
}

/// Notices by email: see docs/deploy.md, "Notices by email".
#[derive(clap::Args, Clone)]
pub struct MailArgs {
    /// The mail relay: smtp://relay.example.edu:587 (STARTTLS when offered; required with a
    /// user and password, smtp://user:pass@host:587), or smtps://host:465. Prefer the
    /// environment variable when it holds a password.
    #[arg(long, env = "SPADES_SMTP_URL", hide_env_values = true, global = true)]
    pub smtp_url: Option<String>,
    /// The sender of notices, e.g. "IM Sports <im-sports@example.edu>".
    #[arg(long, env = "SPADES_MAIL_FROM", global = true)]
    pub mail_from: Option<String>,
}

impl MailArgs {
    /// Both of --smtp-url and --mail-from, or neither.
    pub fn settings(&self) -> anyhow::Result<Option<MailSettings>> {
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
pub struct CampusArgs {
    /// The address people reach the service at, e.g. https://spades.example.edu: campus
    /// sign-in's redirect URI is {public-url}/auth/oidc/callback.
    #[arg(long, env = "SPADES_PUBLIC_URL", global = true)]
    pub public_url: Option<url::Url>,
    /// The campus identity provider's issuer URL, exactly as its discovery document names it
    /// (e.g. https://login.microsoftonline.com/TENANT/v2.0). With the client id and secret it
    /// turns on "Log in with your campus account".
    #[arg(long, env = "SPADES_OIDC_ISSUER", global = true)]
    pub oidc_issuer: Option<String>,
    /// The client id the provider gave this service.
    #[arg(long, env = "SPADES_OIDC_CLIENT_ID", global = true)]
    pub oidc_client_id: Option<String>,
    /// The client secret the provider gave this service. Prefer the environment variable: a
    /// flag's value shows in the process list.
    // `hide_env_values`: `--help` names SPADES_OIDC_CLIENT_SECRET without its value.
    #[arg(
        long,
        env = "SPADES_OIDC_CLIENT_SECRET",
        hide_env_values = true,
        global = true
    )]
    pub oidc_client_secret: Option<String>,
    /// Supervisors log in only with their campus account (admins keep their password, for
    /// the day the provider is down; the command line still works).
    #[arg(
        long,
        env = "SPADES_OIDC_ONLY",
        global = true,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub oidc_only: bool,
}

impl CampusArgs {
    /// The campus sign-in settings: all three of issuer, client id and secret, or none.
    pub fn settings(&self) -> anyhow::Result<Option<OidcSettings>> {
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
    pub async fn open(&self) -> anyhow::Result<Db> {
        Ok(Db::open(&self.db, self.clock()?).await?)
    }

    /// The machine's clock in the configured time zone.
    pub fn clock(&self) -> anyhow::Result<Clock> {
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
