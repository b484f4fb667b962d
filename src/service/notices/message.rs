//! A stored notice as the message the relay gets: plain text with an HTML alternative, a
//! stable `Message-ID` (the same on every retry), and the one-click unsubscribe of RFC 8058
//! (`List-Unsubscribe` with `List-Unsubscribe-Post`) for this address and league, also linked
//! at the foot of the message.

use lettre::message::header::{ContentType, Header, HeaderName, HeaderValue};
use lettre::message::{Mailbox, Message, MultiPart, SinglePart};

use crate::db::notices::NoticeRow;

type HeaderError = Box<dyn std::error::Error + Send + Sync>;

/// `List-Unsubscribe: <https://…/unsubscribe/TOKEN>` (RFC 2369).
#[derive(Clone)]
struct ListUnsubscribe(String);

impl Header for ListUnsubscribe {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("List-Unsubscribe")
    }
    fn parse(s: &str) -> Result<Self, HeaderError> {
        Ok(ListUnsubscribe(s.to_string()))
    }
    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), format!("<{}>", self.0))
    }
}

/// `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058).
#[derive(Clone)]
struct OneClick;

impl Header for OneClick {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("List-Unsubscribe-Post")
    }
    fn parse(_: &str) -> Result<Self, HeaderError> {
        Ok(OneClick)
    }
    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), "List-Unsubscribe=One-Click".into())
    }
}

/// The notice's `Message-ID`: its row and when it was written, at the service's host.
pub fn message_id(notice: &NoticeRow, public_url: &url::Url) -> String {
    let written: String = notice
        .created_at
        .to_string()
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let host = public_url.host_str().unwrap_or("spades-im.invalid");
    format!("<notice-{}.{written}@{host}>", notice.id)
}

/// The link that stops this league's notices to this address.
pub fn unsubscribe_url(public_url: &url::Url, token: &str) -> String {
    format!(
        "{}/unsubscribe/{token}",
        public_url.as_str().trim_end_matches('/')
    )
}

/// The message for `notice`, from `from`, its unsubscribe link made of `token`.
pub fn build(
    from: &Mailbox,
    notice: &NoticeRow,
    token: &str,
    public_url: &url::Url,
) -> anyhow::Result<Message> {
    let unsubscribe = unsubscribe_url(public_url, token);
    let text = format!(
        "{}\n\n-- \nYou get this because you play or supervise in this league. Stop these \
         notices: {unsubscribe}\n",
        notice.body_text
    );
    let html = format!(
        "{}<hr><p style=\"font-size:small\">You get this because you play or supervise in this \
         league. <a href=\"{unsubscribe}\">Stop these notices</a>.</p>",
        notice.body_html
    );
    let to: Mailbox = notice.address.parse()?;
    Ok(Message::builder()
        .from(from.clone())
        .to(to)
        .subject(notice.subject.clone())
        .message_id(Some(message_id(notice, public_url)))
        .header(ListUnsubscribe(unsubscribe))
        .header(OneClick)
        .multipart(
            MultiPart::alternative()
                .singlepart(
                    SinglePart::builder()
                        .header(ContentType::TEXT_PLAIN)
                        .body(text),
                )
                .singlepart(
                    SinglePart::builder()
                        .header(ContentType::TEXT_HTML)
                        .body(html),
                ),
        )?)
}
