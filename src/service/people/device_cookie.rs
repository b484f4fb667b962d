//! Device cookies (OWASP, "Slow Down Online Guessing Attacks with Device Cookies"): a browser
//! that has logged in as a user gets a signed cookie naming that user and a random nonce. At
//! the next password check for that user, the cookie marks the browser as a device the user
//! has logged in on before, and the login throttle (`service::people::throttle`) counts its failures
//! against that cookie's own budget only, so nobody else's failures hold it back.
//!
//! The value is `<username in hex>.<nonce>.<HMAC-SHA256 of both>`, signed with one key kept in
//! the database (`app_meta`, created at the first use, the same for every instance on one
//! database and carried over by `migrate-to`). Only the server can make one; a cookie for
//! another username, a cookie that was changed, or one signed with another key is ignored,
//! and its holder is treated as any other client.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use tokio::sync::OnceCell;

use crate::db::Db;
use crate::db::users as db_users;
use crate::service::ServiceError;
use crate::service::people::accounts::random_hex;

/// The cookie's name.
pub const COOKIE: &str = "spades_device";
/// How long a browser keeps it.
pub const DAYS: i64 = 365;

/// What the MAC covers before the username and the nonce, so that no other value this key
/// might ever sign reads as a device cookie.
const DOMAIN: &[u8] = b"spades-im device cookie v1\n";

/// The random part of one device cookie: the name of that device's failure budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceId(String);

impl DeviceId {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The key device cookies are signed with (an HMAC keyed with it, ready to take a message).
#[derive(Clone)]
pub struct DeviceKey(Hmac<Sha256>);

impl DeviceKey {
    /// A key made of `secret` (the database's, or a test's).
    pub fn new(secret: &[u8]) -> Result<DeviceKey, ServiceError> {
        <Hmac<Sha256> as KeyInit>::new_from_slice(secret)
            .map(DeviceKey)
            .map_err(|e| ServiceError::corrupt("the device cookie key", e))
    }

    fn mac(&self, username: &str, nonce: &str) -> Hmac<Sha256> {
        let mut mac = self.0.clone();
        mac.update(DOMAIN);
        mac.update(username.as_bytes());
        mac.update(b"\n");
        mac.update(nonce.as_bytes());
        mac
    }

    /// A new cookie value for `username` (already folded: `throttle::fold`), with a new nonce.
    pub fn issue(&self, username: &str) -> String {
        let nonce = random_hex(16);
        let tag = self.mac(username, &nonce).finalize().into_bytes();
        format!("{}.{nonce}.{}", hex(username.as_bytes()), hex(&tag))
    }

    /// A tag over `message` for another use of this key than device cookies (the campus
    /// sign-in's flow cookie); `purpose` keeps each use's tags apart from the others'.
    pub fn sign(&self, purpose: &[u8], message: &[u8]) -> String {
        hex(&self.tagged(purpose, message).finalize().into_bytes())
    }

    /// Whether `tag` is [`sign`](Self::sign)'s tag over `message` for `purpose`.
    pub fn verify(&self, purpose: &[u8], message: &[u8], tag: &str) -> bool {
        let Some(tag) = unhex(tag) else {
            return false;
        };
        self.tagged(purpose, message).verify_slice(&tag).is_ok()
    }

    /// The MAC over `purpose` then `message`, for [`sign`](Self::sign) and
    /// [`verify`](Self::verify).
    fn tagged(&self, purpose: &[u8], message: &[u8]) -> Hmac<Sha256> {
        let mut mac = self.0.clone();
        mac.update(purpose);
        mac.update(message);
        mac
    }

    /// The device of `value` if it is a cookie this key signed for `username` (folded).
    pub fn recognise(&self, value: &str, username: &str) -> Option<DeviceId> {
        let mut parts = value.split('.');
        let (Some(user), Some(nonce), Some(tag), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return None;
        };
        if user != hex(username.as_bytes())
            || nonce.len() != 32
            || !nonce.bytes().all(|b| b.is_ascii_hexdigit())
        {
            return None;
        }
        let tag = unhex(tag)?;
        // verify_slice compares in constant time.
        self.mac(username, nonce).verify_slice(&tag).ok()?;
        Some(DeviceId(nonce.to_string()))
    }
}

/// The database's key, read (or made) at the first login and kept for the life of the process.
#[derive(Default)]
pub struct DeviceKeys(OnceCell<DeviceKey>);

impl DeviceKeys {
    pub async fn get(&self, db: &Db) -> Result<&DeviceKey, ServiceError> {
        self.0.get_or_try_init(|| load(db)).await
    }
}

/// The key in the database, made by whichever instance needs it first: an instance that
/// finds one written by another uses that one.
async fn load(db: &Db) -> Result<DeviceKey, ServiceError> {
    let mut conn = db.read().await?;
    let found = db_users::device_cookie_key(&mut conn).await?;
    drop(conn);
    let secret = match found {
        Some(secret) => secret,
        None => {
            let mut tx = db.write().await?;
            let secret = db_users::make_device_cookie_key(&mut tx, &random_hex(32)).await?;
            tx.commit().await?;
            secret
        }
    };
    DeviceKey::new(secret.as_bytes())
}

pub(in crate::service) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(in crate::service) fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_cookie_is_recognised_for_its_own_username_only() {
        let key = DeviceKey::new(b"k1").unwrap();
        let cookie = key.issue("sup");
        let device = key.recognise(&cookie, "sup").unwrap();
        assert_eq!(device.as_str().len(), 32);
        assert_eq!(key.recognise(&cookie, "admin"), None);
        // Each cookie has its own nonce.
        assert_ne!(key.recognise(&key.issue("sup"), "sup"), Some(device));
    }

    /// Two instances starting on an empty database both find no key and both make one: the
    /// second gets the first's, so their cookies agree.
    #[tokio::test]
    async fn the_second_instance_to_make_a_key_gets_the_first_ones() {
        let dir = tempfile::tempdir().unwrap();
        let clock = crate::domain::Clock::system(chrono_tz::UTC);
        let db = Db::open_file(&dir.path().join("t.sqlite3"), clock)
            .await
            .unwrap();
        let mut conn = db.read().await.unwrap();
        assert_eq!(db_users::device_cookie_key(&mut conn).await.unwrap(), None);
        drop(conn);
        for (mine, kept) in [("first", "first"), ("second", "first")] {
            let mut tx = db.write().await.unwrap();
            let key = db_users::make_device_cookie_key(&mut tx, mine)
                .await
                .unwrap();
            tx.commit().await.unwrap();
            assert_eq!(key, kept);
        }
        let keys = DeviceKeys::default();
        let cookie = keys.get(&db).await.unwrap().issue("sup");
        let first = DeviceKey::new(b"first").unwrap();
        assert!(first.recognise(&cookie, "sup").is_some());
    }

    #[test]
    fn a_changed_or_foreign_cookie_is_not_recognised() {
        let key = DeviceKey::new(b"k1").unwrap();
        let cookie = key.issue("sup");
        assert_eq!(
            DeviceKey::new(b"k2").unwrap().recognise(&cookie, "sup"),
            None
        );
        let (user, rest) = cookie.split_once('.').unwrap();
        let (nonce, tag) = rest.split_once('.').unwrap();
        let other_nonce = format!("{}0", &nonce[..31]);
        let other_nonce = if other_nonce == nonce {
            format!("{}1", &nonce[..31])
        } else {
            other_nonce
        };
        for forged in [
            format!("{user}.{other_nonce}.{tag}"),
            format!("{}.{nonce}.{tag}", hex(b"admin")),
            format!("{user}.{nonce}.{}", &tag[..62]),
            format!("{user}.{nonce}.{tag}.x"),
            format!("{user}.{nonce}"),
            String::new(),
            "é.é.é".into(),
        ] {
            assert_eq!(key.recognise(&forged, "sup"), None, "{forged}");
            assert_eq!(key.recognise(&forged, "admin"), None, "{forged}");
        }
    }
}
