//! The mail relay a department gives the service (`--smtp-url`, `--mail-from`), spoken to by
//! lettre: `smtps://host[:465]` is TLS from the first byte; `smtp://host[:port]` upgrades
//! with STARTTLS when the relay offers it, and must (or nothing is sent) when the URL holds a
//! user and password, so a password never crosses the network in the clear. The URL's
//! password is never shown: [`Relay::describe`] names the host, port and sender only.

use std::time::Duration;

use lettre::message::{Mailbox, Message};
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};

/// How long one step of a conversation with the relay may take before it counts as a
/// failure.
pub const SEND_TIMEOUT: Duration = Duration::from_secs(15);

/// How long a whole conversation may take: less than a notice's claim (see `sender`), so no
/// other sender takes a notice while this one may still be handing it over.
pub const CONVERSATION_TIMEOUT: Duration = Duration::from_secs(20);

/// `--smtp-url` and `--mail-from`, as given.
#[derive(Clone)]
pub struct MailSettings {
    /// `smtp://[user:pass@]host[:port]` or `smtps://…` (secret: never printed).
    pub url: String,
    pub from: String,
}

impl std::fmt::Debug for MailSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MailSettings")
            .field("url", &shown_url(&self.url))
            .field("from", &self.from)
            .finish()
    }
}

/// The relay's URL without its user and password (for logs and the dashboard).
fn shown_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(u) => format!(
            "{}://{}{}",
            u.scheme(),
            u.host_str().unwrap_or("?"),
            u.port().map(|p| format!(":{p}")).unwrap_or_default()
        ),
        Err(_) => "(an SMTP URL that does not parse)".into(),
    }
}

/// `url` with lettre's `tls` parameter where it names none: STARTTLS required with a
/// password, used when offered without; `smtps://` is TLS already.
fn with_tls(url: &str) -> String {
    let Ok(mut parsed) = url::Url::parse(url) else {
        return url.to_string();
    };
    if parsed.scheme() != "smtp" || parsed.query_pairs().any(|(k, _)| k == "tls") {
        return url.to_string();
    }
    let tls = if parsed.password().is_some() {
        "required"
    } else {
        "opportunistic"
    };
    parsed.query_pairs_mut().append_pair("tls", tls);
    parsed.to_string()
}

/// Why a message was not taken.
#[derive(Debug)]
pub enum SendError {
    /// Worth trying again later: the relay is down, busy or said 4xx.
    Transient(String),
    /// The relay refused it for good (5xx: an address it does not know, a message it will
    /// not take): trying again would not help.
    Permanent(String),
}

impl SendError {
    pub fn message(&self) -> &str {
        match self {
            SendError::Transient(m) | SendError::Permanent(m) => m,
        }
    }
}

pub struct Relay {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    shown: String,
}

impl Relay {
    pub fn new(settings: &MailSettings) -> anyhow::Result<Relay> {
        let shown = shown_url(&settings.url);
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(&with_tls(&settings.url))
            .map_err(|e| anyhow::anyhow!("--smtp-url {shown}: {e}"))?
            .timeout(Some(SEND_TIMEOUT))
            .build();
        let from: Mailbox = settings
            .from
            .parse()
            .map_err(|e| anyhow::anyhow!("--mail-from {:?}: {e}", settings.from))?;
        Ok(Relay {
            transport,
            from,
            shown,
        })
    }

    /// "email notices through smtp://relay.example.edu:587 from im@example.edu".
    pub fn describe(&self) -> String {
        format!("email notices through {} from {}", self.shown, self.from)
    }

    pub fn from(&self) -> &Mailbox {
        &self.from
    }

    /// Hands `message` to the relay.
    pub async fn send(&self, message: Message) -> Result<(), SendError> {
        let sent = tokio::time::timeout(CONVERSATION_TIMEOUT, self.transport.send(message));
        match sent.await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) if e.is_permanent() => Err(SendError::Permanent(e.to_string())),
            Ok(Err(e)) => Err(SendError::Transient(e.to_string())),
            Err(_) => Err(SendError::Transient(format!(
                "the relay did not finish within {} s",
                CONVERSATION_TIMEOUT.as_secs()
            ))),
        }
    }

    /// Sends a short message to `to` through the relay, to check the settings
    /// (`spades-im mail-test`).
    pub async fn send_test(&self, to: &str) -> anyhow::Result<()> {
        let to: Mailbox = to
            .parse()
            .map_err(|e| anyhow::anyhow!("not an email address: {e}"))?;
        let message = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject("spades-im: a test message")
            .body(format!(
                "This message checks the relay spades-im sends its notices through ({}).\n\n\
                 It arrived: notices by email will too.\n",
                self.shown
            ))?;
        self.send(message)
            .await
            .map_err(|e| anyhow::anyhow!("the relay did not take it: {}", e.message()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_is_never_shown() {
        let settings = MailSettings {
            url: "smtp://im:hunter2@relay.example.edu:587".into(),
            from: "IM Sports <im@example.edu>".into(),
        };
        let shown = format!("{settings:?}");
        assert!(
            !shown.contains("hunter2") && !shown.contains("im:"),
            "{shown}"
        );
        let relay = Relay::new(&settings).expect("a relay");
        assert!(with_tls(&settings.url).ends_with("?tls=required"));
        assert!(with_tls("smtp://relay:25").ends_with("?tls=opportunistic"));
        assert_eq!(with_tls("smtps://relay"), "smtps://relay");
        assert_eq!(
            relay.describe(),
            "email notices through smtp://relay.example.edu:587 from IM Sports <im@example.edu>"
        );
    }
}
