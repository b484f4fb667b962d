//! Building and running the server: used by `main` and by the tests, which bind port 0.

use std::net::TcpListener;

use actix_web::dev::Server;
use actix_web::{App, HttpServer, web};

use crate::db::{Db, Location};
use crate::domain::Clock;
use crate::service::notices::password_mail::Mailer;
use crate::service::notices::relay::{MailSettings, Relay};
use crate::service::notices::sender;
use crate::service::people::oidc::{CampusSignIn, OidcSettings};
use crate::web::{self as site, AppState};
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct Settings {
    /// Address to listen on, e.g. `127.0.0.1:8080` (`127.0.0.1:0` picks a free port).
    pub bind: String,
    /// The SQLite file or the PostgreSQL database.
    pub db: Location,
    /// Mark the session cookie `Secure` (needs HTTPS in front of the service).
    pub secure_cookies: bool,
    /// Serve anonymous visitors' public pages from copies made at the current data version,
    /// at most this many bytes of them, least recently used out (0: off, to measure the
    /// pages' own cost).
    pub page_cache_bytes: usize,
    /// The time and the league's time zone (the machine's clock but for tests).
    pub clock: Clock,
    /// Reverse proxies whose `X-Forwarded-For` names the client (for the login throttle).
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// Threads answering requests (`None`: actix's default, one per CPU core).
    pub workers: Option<usize>,
    /// The address people reach the service at (`--public-url`): campus sign-in's redirect
    /// URI is made from it.
    pub public_url: Option<url::Url>,
    /// Campus sign-in (OpenID Connect), when configured; needs `public_url`.
    pub oidc: Option<OidcSettings>,
    /// The mail relay for notices by email, when configured; needs `public_url` (the
    /// messages' links).
    pub mail: Option<MailSettings>,
}

pub struct Application {
    server: Server,
    port: u16,
    db: Db,
}

impl Application {
    /// Opens the database (running migrations) and binds the listener.
    pub async fn build(settings: &Settings) -> anyhow::Result<Application> {
        let campus = campus_sign_in(settings)?;
        let mut db = Db::open(&settings.db, settings.clock.clone()).await?;
        let (mut mail, mut mailer) = (None, None);
        if let Some((relay, public_url)) = mail_relay(settings)? {
            db = db.with_notices(public_url.clone());
            mail = Some(relay.describe());
            let relay = Arc::new(relay);
            tokio::spawn(sender::run(db.clone(), relay.clone(), public_url.clone()));
            mailer = Some(Mailer { relay, public_url });
        }
        // Made now, off the workers, so the first login of an unknown name takes no longer
        // than a known one's.
        tokio::spawn(crate::service::people::accounts::dummy_hash());
        let listener = TcpListener::bind(&settings.bind)
            .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", settings.bind))?;
        let port = listener.local_addr()?.port();
        let state = web::Data::new(AppState {
            db: db.clone(),
            client_address: site::client_address::ClientAddress::trusting(
                settings.trusted_proxies.clone(),
            ),
            secure_cookies: settings.secure_cookies,
            pages: site::middleware::page_cache::PageCache::new(settings.page_cache_bytes),
            device_keys: Default::default(),
            metrics: site::metrics::Metrics::new(&db),
            campus,
            mail,
            mailer,
        });
        let server = HttpServer::new(move || {
            App::new()
                .app_data(state.clone())
                .app_data(web::FormConfig::default().limit(256 * 1024))
                .wrap(actix_web::middleware::from_fn(
                    site::middleware::private::no_store_when_logged_in,
                ))
                .wrap(site::middleware::same_origin::SameOrigin)
                .wrap(site::middleware::security_headers())
                // A panic anywhere inside is one 500 (see `panics`).
                .wrap(actix_web::middleware::from_fn(
                    site::middleware::panics::catch_panic,
                ))
                // Outermost: the request id, its log line and metrics, on every answer.
                .wrap(actix_web::middleware::from_fn(
                    site::middleware::observe::observe,
                ))
                .configure(site::routes)
                .default_service(web::to(site::not_found))
        });
        let server = match settings.workers {
            Some(n) => server.workers(n),
            None => server,
        };
        let server = server.listen(listener)?.run();
        Ok(Application { server, port, db })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn db(&self) -> &Db {
        &self.db
    }

    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.await
    }
}

/// The relay for notices by email and where their links point, its line in the start-up log;
/// none when not configured.
fn mail_relay(settings: &Settings) -> anyhow::Result<Option<(Relay, url::Url)>> {
    let Some(mail) = &settings.mail else {
        tracing::info!("no email notices (no --smtp-url and --mail-from)");
        return Ok(None);
    };
    let Some(public_url) = &settings.public_url else {
        anyhow::bail!(
            "email notices need --public-url (the address people reach the service at: the \
             messages link to it)"
        );
    };
    let relay = Relay::new(mail)?;
    tracing::info!("{}", relay.describe());
    Ok(Some((relay, public_url.clone())))
}

/// Campus sign-in as configured, its line in the start-up log; none when not configured.
fn campus_sign_in(settings: &Settings) -> anyhow::Result<Option<CampusSignIn>> {
    let Some(oidc) = settings.oidc.clone() else {
        return Ok(None);
    };
    let Some(public_url) = &settings.public_url else {
        anyhow::bail!(
            "campus sign-in needs --public-url (the address people reach the service at, \
             from which the redirect URI registered at the provider is made)"
        );
    };
    let campus = CampusSignIn::new(oidc, public_url)?;
    tracing::info!("{}", campus.describe());
    Ok(Some(campus))
}
