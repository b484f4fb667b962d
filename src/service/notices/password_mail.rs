//! Secrets sent to their person: a one-time password (`"deliver": "email"` on a new account
//! or a reset) and a captain's sign-in link. One message straight through the relay, never
//! queued, so the secret is never stored in clear, not even in the outbox. The admin who
//! asked for a password never sees it.

use std::sync::Arc;

use lettre::message::{Mailbox, Message};

use crate::service::notices::relay::Relay;

/// The relay, and where the service is reached (the message's sign-in link).
#[derive(Clone)]
pub struct Mailer {
    pub relay: Arc<Relay>,
    pub public_url: url::Url,
}

/// Why a new account or a reset is being told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Occasion {
    NewAccount,
    Reset,
}

impl Mailer {
    /// Sends `username`'s one-time `password` to `to`; on failure, why in words (without the
    /// password or the address).
    pub async fn send_password(
        &self,
        to: &str,
        username: &str,
        password: &str,
        occasion: Occasion,
    ) -> Result<(), String> {
        let to: Mailbox = to
            .parse()
            .map_err(|_| "the account's email is not an address the relay takes".to_string())?;
        let message = Message::builder()
            .from(self.relay.from().clone())
            .to(to)
            .subject(subject(occasion))
            .body(body(&self.public_url, username, password, occasion))
            .map_err(|_| "the message could not be written".to_string())?;
        self.relay
            .send(message)
            .await
            .map_err(|e| format!("the mail relay did not take it ({})", e.message()))
    }
}

impl Mailer {
    /// Sends a captain their sign-in link, `{public-url}/captain/auth/{token}`.
    pub async fn send_captain_link(
        &self,
        to: &str,
        token: &str,
        minutes: i64,
    ) -> Result<(), String> {
        let to: Mailbox = to
            .parse()
            .map_err(|_| "the captain's email is not an address the relay takes".to_string())?;
        let link = self
            .public_url
            .join(&format!("/captain/auth/{token}"))
            .map_err(|_| "the public URL takes no path".to_string())?;
        let message = Message::builder()
            .from(self.relay.from().clone())
            .to(to)
            .subject("Your spades-im sign-in link")
            .body(captain_body(link.as_str(), minutes))
            .map_err(|_| "the message could not be written".to_string())?;
        self.relay
            .send(message)
            .await
            .map_err(|e| format!("the mail relay did not take it ({})", e.message()))
    }
}

/// The captain's message: the link, how long it works, and what to do if it was not asked.
fn captain_body(link: &str, minutes: i64) -> String {
    format!(
        "Someone asked to sign in as a team captain on spades-im with this address.\n\n\
         Sign in: {link}\n\n\
         The link works once, for {minutes} minutes. If you did not ask for it, ignore this \
         message: nothing happens without the link.\n"
    )
}

fn subject(occasion: Occasion) -> &'static str {
    match occasion {
        Occasion::NewAccount => "Your spades-im account",
        Occasion::Reset => "A new password for spades-im",
    }
}

/// The message: the username, the password, the sign-in link and what happens next.
fn body(public_url: &url::Url, username: &str, password: &str, occasion: Occasion) -> String {
    let login = public_url
        .join("/login")
        .map_or_else(|_| public_url.to_string(), String::from);
    let why = match occasion {
        Occasion::NewAccount => "An administrator made you an account on spades-im.",
        Occasion::Reset => {
            "An administrator reset your spades-im password: the old one no longer works, and \
             you were signed out everywhere."
        }
    };
    format!(
        "{why}\n\nSign in at {login}\nUsername: {username}\nOne-time password: {password}\n\n\
         You choose your own password right after signing in; this one works only until then.\n\
         If you did not expect this message, tell your intramural office.\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_captains_message_gives_the_link_and_how_long_it_works() {
        let text = captain_body("https://im.example.edu/captain/auth/abc", 15);
        assert!(
            text.contains("Sign in: https://im.example.edu/captain/auth/abc"),
            "{text}"
        );
        assert!(text.contains("once, for 15 minutes"), "{text}");
    }

    #[test]
    fn the_message_names_the_user_the_password_and_where_to_sign_in() {
        let url = url::Url::parse("https://im.example.edu/").unwrap();
        let text = body(&url, "kim", "0123abcd4567ef89", Occasion::Reset);
        for needle in [
            "https://im.example.edu/login",
            "Username: kim",
            "One-time password: 0123abcd4567ef89",
            "reset your spades-im password",
        ] {
            assert!(text.contains(needle), "{needle}: {text}");
        }
        assert_ne!(subject(Occasion::Reset), subject(Occasion::NewAccount));
    }
}
