//! `mail-test`: one message through the relay of --smtp-url, before the server sends notices.

use super::MailArgs;
use crate::service::notices::relay::Relay;

pub(super) async fn mail_test(args: MailArgs, address: String) -> anyhow::Result<()> {
    let Some(settings) = args.settings()? else {
        anyhow::bail!(
            "mail-test needs --smtp-url and --mail-from (or SPADES_SMTP_URL and SPADES_MAIL_FROM)"
        );
    };
    let relay = Relay::new(&settings)?;
    relay.send_test(&address).await?;
    println!("the relay took the test message ({})", relay.describe());
    Ok(())
}
