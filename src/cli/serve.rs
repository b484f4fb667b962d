//! `serve` (the default command): the server on the settings given, and the lines that say
//! where it listens and how to log in.

use super::ServeArgs;
use crate::app::{Application, Settings};
use crate::invocation::command;
use crate::service::people::accounts;

pub(super) async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    // A panic, should one happen, is one log line (and the request one 500), never a
    // backtrace per request.
    crate::web::middleware::panics::log_panics_in_one_line();
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
