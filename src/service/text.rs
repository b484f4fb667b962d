//! The text the service stores: names, table names, correction reasons, token names and
//! idempotency keys. Each is trimmed, limited in length (in characters) and free of control
//! characters: a NUL or a terminal escape in a team name would reach every page, CSV and log
//! that shows it. Only a reason, typed in a text area, may hold line breaks.

use super::ServiceError;

/// A league's, team's or player's name.
pub const NAME_MAX: usize = 80;
/// A table's name ("Table 3", "Lounge B").
pub const TABLE_MAX: usize = 40;
/// Why a hand was corrected.
pub const REASON_MAX: usize = 500;
/// An API token's label.
pub const TOKEN_NAME_MAX: usize = 60;
/// A client's idempotency key.
pub const IDEMPOTENCY_KEY_MAX: usize = 200;

/// What a text is, for the checks and the messages.
pub struct TextRule<'a> {
    /// The error code (`invalid_input`, `invalid_correction` …).
    pub code: &'a str,
    /// The field the message is shown next to.
    pub field: &'a str,
    /// The text in words, as the message's subject ("the team's name").
    pub what: &'a str,
    pub max: usize,
    /// Line breaks allowed (a text area).
    pub lines: bool,
}

impl TextRule<'_> {
    /// `value` trimmed, if it is 1 to `max` characters of text.
    pub fn check(&self, value: &str) -> Result<String, ServiceError> {
        let value = value.trim();
        let refuse = |message: String| Err(ServiceError::invalid(self.code, self.field, message));
        if let Some(c) = value
            .chars()
            .find(|c| c.is_control() && !(self.lines && matches!(c, '\n' | '\r')))
        {
            return refuse(format!(
                "{} contains a control character (U+{:04X}); type plain text",
                self.what, c as u32
            ));
        }
        let count = value.chars().count();
        if count == 0 || count > self.max {
            return refuse(format!(
                "{} must be 1 to {} characters (this one has {count})",
                self.what, self.max
            ));
        }
        Ok(value.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(lines: bool) -> TextRule<'static> {
        TextRule {
            code: "invalid_input",
            field: "name",
            what: "the name",
            max: 5,
            lines,
        }
    }

    fn message(e: ServiceError) -> String {
        match e {
            ServiceError::Invalid(e) => {
                assert_eq!(e.field.as_deref(), Some("name"));
                e.message
            }
            other => panic!("not invalid: {other:?}"),
        }
    }

    #[test]
    fn text_is_trimmed_and_limited_in_characters() {
        assert_eq!(rule(false).check("  Ace  ").unwrap(), "Ace");
        assert_eq!(
            rule(false).check("ÄÖÜßé").unwrap(),
            "ÄÖÜßé",
            "5 characters, 10 bytes"
        );
        let long = message(rule(false).check("abcdef").unwrap_err());
        assert_eq!(long, "the name must be 1 to 5 characters (this one has 6)");
        assert!(message(rule(false).check("   ").unwrap_err()).contains("1 to 5"));
    }

    #[test]
    fn control_characters_are_refused_line_breaks_only_where_allowed() {
        let nul = message(rule(false).check("a\0b").unwrap_err());
        assert_eq!(
            nul,
            "the name contains a control character (U+0000); type plain text"
        );
        assert!(rule(false).check("a\u{1b}[2J").is_err(), "escape");
        assert!(rule(false).check("a\u{85}b").is_err(), "C1 control");
        assert!(
            rule(false).check("a\nb").is_err(),
            "no line break in a name"
        );
        assert_eq!(rule(true).check("a\r\nb").unwrap(), "a\r\nb");
        assert!(
            rule(true).check("a\tb").is_err(),
            "a tab is not a line break"
        );
    }
}
