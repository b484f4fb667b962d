//! A client's idempotency key: what makes a resent write answer its first answer again
//! instead of writing twice (docs/api.md §7.8).

use serde::{Deserialize, Deserializer, Serialize};

use crate::rules::{ErrorCode, FieldError};

/// 1 to [`IdempotencyKey::MAX`] characters, none of them a control character; compared as
/// sent and never shown. Parsed once at the edge (a request body, a form's hidden field),
/// so a service never holds a key that could not be one.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct IdempotencyKey(String);

/// Why a text is not an idempotency key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("an idempotency key is 1 to 200 characters, none of them a control character")]
pub struct BadIdempotencyKey;

impl IdempotencyKey {
    /// The longest key, in characters.
    pub const MAX: usize = 200;
    /// No control character (C0, DEL, C1), as the served schema says it.
    pub const PATTERN: &'static str = r"^[^\x00-\x1F\x7F-\x9F]*$";

    pub fn new(key: &str) -> Result<IdempotencyKey, BadIdempotencyKey> {
        if key.is_empty() || key.chars().count() > Self::MAX || key.chars().any(char::is_control) {
            return Err(BadIdempotencyKey);
        }
        Ok(IdempotencyKey(key.to_string()))
    }

    /// The key of a form's hidden field: surrounding blanks dropped, and a blank field is
    /// no key (a page rendered before the forms had one).
    pub fn from_form(field: &str) -> Result<Option<IdempotencyKey>, BadIdempotencyKey> {
        let key = field.trim();
        (!key.is_empty()).then(|| Self::new(key)).transpose()
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<BadIdempotencyKey> for FieldError {
    fn from(e: BadIdempotencyKey) -> Self {
        FieldError::at(ErrorCode::InvalidRequest, "idempotency_key", e.to_string())
    }
}

impl<'de> Deserialize<'de> for IdempotencyKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<IdempotencyKey, D::Error> {
        let text = String::deserialize(deserializer)?;
        IdempotencyKey::new(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_1_to_200_characters_without_control_characters() {
        assert!(IdempotencyKey::new("k").is_ok());
        assert!(IdempotencyKey::new(&"é".repeat(200)).is_ok());
        assert_eq!(IdempotencyKey::new(""), Err(BadIdempotencyKey));
        assert_eq!(
            IdempotencyKey::new(&"k".repeat(201)),
            Err(BadIdempotencyKey)
        );
        assert_eq!(IdempotencyKey::new("a\u{7}b"), Err(BadIdempotencyKey));
        assert_eq!(IdempotencyKey::new("a\u{85}b"), Err(BadIdempotencyKey));
    }

    #[test]
    fn a_form_key_is_trimmed_and_a_blank_one_is_none() {
        assert_eq!(IdempotencyKey::from_form("  "), Ok(None));
        let key = IdempotencyKey::from_form(" k1 ").unwrap().unwrap();
        assert_eq!(key.as_str(), "k1");
        assert_eq!(IdempotencyKey::from_form("a\u{0}"), Err(BadIdempotencyKey));
    }

    #[test]
    fn a_bad_key_does_not_deserialize_and_a_good_one_reads_as_sent() {
        let key: IdempotencyKey = serde_json::from_str(r#"" k ""#).unwrap();
        assert_eq!(key.as_str(), " k ");
        assert!(serde_json::from_str::<IdempotencyKey>(r#""""#).is_err());
        assert_eq!(serde_json::to_string(&key).unwrap(), r#"" k ""#);
    }
}
