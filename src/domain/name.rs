//! Text as the service stores it, checked once: the rules of docs/api.md §1.1 (what is
//! refused, removed and normalized; `service::text` says them in full and words the
//! messages), and the names made only by them: [`TeamName`] and [`PersonName`].
//!
//! A name is checked where it is made ([`TeamName::new`]); a name read back from the
//! database is taken as stored ([`TeamName::from_stored`], the sqlx `Decode`), since a
//! name stored before a rule existed must still read as it did.

use std::fmt;

use serde::Serialize;
use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeEmoji, UnicodeGeneralCategory};

/// A league's, team's or player's name, in characters.
pub const NAME_MAX: usize = 80;

/// Whether a text may hold line breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lines {
    /// A name, a table, a postponement's reason: shown on one line (a list, a CSV cell, a
    /// calendar's SUMMARY).
    One,
    /// Typed in a text area: a correction's reason, an eligibility decision's, a rating's note.
    Many,
}

/// Why a text is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadText {
    /// A control character (line breaks are allowed in multi-line text).
    Control(char),
    /// An invisible bidirectional control.
    Bidi(char),
    /// U+2028 or U+2029 in one-line text.
    LineSeparator(char),
    /// Not 1 to the maximum characters (counted as sent, trimmed, and as stored).
    Length { count: usize, max: usize },
}

/// `value` as stored (normalized), `None` when it is blank once normalized (spaces, format
/// characters); refused if it holds a refused character or is longer than `max`.
pub fn check_text(value: &str, max: usize, lines: Lines) -> Result<Option<String>, BadText> {
    let value = value.trim();
    if let Some(bad) = refusal(value, lines) {
        return Err(bad);
    }
    let stored = normalized(value);
    if stored.is_empty() {
        return Ok(None);
    }
    let count = stored.chars().count().max(value.chars().count());
    if count > max {
        return Err(BadText::Length { count, max });
    }
    Ok(Some(stored))
}

/// Why `value` (trimmed) is refused whatever its length, if it is.
fn refusal(value: &str, lines: Lines) -> Option<BadText> {
    if let Some(c) = value
        .chars()
        .find(|&c| c.is_control() && !(lines == Lines::Many && matches!(c, '\n' | '\r')))
    {
        return Some(BadText::Control(c));
    }
    if let Some(c) = value.chars().find(|&c| is_bidi_control(c)) {
        return Some(BadText::Bidi(c));
    }
    if lines == Lines::One
        && let Some(c) = value.chars().find(|&c| is_line_separator(c))
    {
        return Some(BadText::LineSeparator(c));
    }
    None
}

/// A one-line name of 1 to [`NAME_MAX`] characters, normalized: the only way to make one
/// from text is `new`, which checks it; `from_stored` takes a stored one as it is.
macro_rules! name_type {
    ($(#[$doc:meta])* $t:ident) => {
        $(#[$doc])*
        // No `ToSchema`: the API documents a name as the string it is (a field holding one
        // says `#[schema(value_type = String)]`), as it did before names had a type.
        #[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
        #[serde(transparent)]
        pub struct $t(String);

        impl $t {
            /// `text` checked and normalized as a name.
            pub fn new(text: &str) -> Result<$t, BadText> {
                check_text(text, NAME_MAX, Lines::One)?
                    .map($t)
                    .ok_or(BadText::Length { count: 0, max: NAME_MAX })
            }

            /// A name read from the database, as stored: not checked again, since it may
            /// predate today's rules (and the stored text is what the league shows).
            pub fn from_stored(text: String) -> $t {
                $t(text)
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $t {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl From<$t> for String {
            fn from(name: $t) -> String {
                name.0
            }
        }

        $crate::domain::text::sql_text!(
            $t,
            &str,
            |v| v.as_str(),
            |s| Ok::<_, sqlx::error::BoxDynError>($t::from_stored(s.to_string()))
        );
    };
}

name_type!(
    /// A team's name.
    TeamName
);
name_type!(
    /// A player's name.
    PersonName
);

/// The bidirectional controls: the marks (U+061C, U+200E, U+200F), embeddings and overrides
/// (U+202A–U+202E) and isolates (U+2066–U+2069).
pub(crate) fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
    )
}

/// U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR: line breaks that are not controls.
pub(crate) fn is_line_separator(c: char) -> bool {
    matches!(c, '\u{2028}' | '\u{2029}')
}

/// Checked text as stored: format characters out, NFKC, spaces plain and single, line
/// separators as line breaks (only multi-line text still has them), trimmed.
pub(crate) fn normalized(text: &str) -> String {
    // Format characters go first: one between a letter and its accent would otherwise keep
    // NFKC from composing them.
    let composed: String = without_format_characters(text).nfkc().collect();
    let mut out = String::with_capacity(composed.len());
    for c in composed.chars() {
        let c = if is_line_separator(c) {
            '\n'
        } else if c.general_category() == GeneralCategory::SpaceSeparator {
            ' '
        } else {
            c
        };
        if !(c == ' ' && out.ends_with(' ')) {
            out.push(c);
        }
    }
    out.trim().to_string()
}

const ZERO_WIDTH_JOINER: char = '\u{200D}';
const WAVING_BLACK_FLAG: char = '\u{1F3F4}';
const CANCEL_TAG: char = '\u{E007F}';

/// `text` without its format characters (general category Cf), but for the zero-width
/// joiners between emoji and the tags of a subdivision flag.
fn without_format_characters(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == WAVING_BLACK_FLAG {
            let tags = flag_tags(&chars[i + 1..]);
            out.push(c);
            out.extend(tags);
            i += 1 + tags.len();
            continue;
        }
        let keep = if c == ZERO_WIDTH_JOINER {
            joins_emoji(&out, chars.get(i + 1).copied())
        } else {
            c.general_category() != GeneralCategory::Format
        };
        if keep {
            out.push(c);
        }
        i += 1;
    }
    out
}

/// The tags that make 🏴 a subdivision's flag (UTS #51): 1 to 6 tag letters or digits and
/// the cancel tag, right after it; none otherwise (stray tags are removed as format
/// characters, so no text hides in them).
fn flag_tags(after: &[char]) -> &[char] {
    let spec = after
        .iter()
        .take_while(|c| matches!(c, '\u{E0030}'..='\u{E0039}' | '\u{E0061}'..='\u{E007A}'))
        .count();
    if (1..=6).contains(&spec) && after.get(spec) == Some(&CANCEL_TAG) {
        &after[..=spec]
    } else {
        &[]
    }
}

/// A zero-width joiner between two emoji (the one before may carry a skin tone or the
/// emoji presentation selector) holds them together as one.
fn joins_emoji(before: &str, next: Option<char>) -> bool {
    let previous = before
        .chars()
        .rev()
        .find(|&c| !matches!(c, '\u{FE0F}' | '\u{1F3FB}'..='\u{1F3FF}'));
    previous.is_some_and(is_emoji) && next.is_some_and(is_emoji)
}

/// An emoji character; digits, `#` and `*` are emoji only as keycaps, never joined.
fn is_emoji(c: char) -> bool {
    !c.is_ascii() && c.is_emoji_char()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_checked_and_normalized_when_made() {
        assert_eq!(
            TeamName::new("  Ａｃｅｓ  High ").unwrap().as_str(),
            "Aces High"
        );
        assert_eq!(
            PersonName::new("Ann\u{200B}a").unwrap().as_str(),
            "Anna",
            "format characters are removed"
        );
        assert_eq!(
            TeamName::new("Aces\u{202E}ffo"),
            Err(BadText::Bidi('\u{202E}'))
        );
        assert_eq!(TeamName::new("a\nb"), Err(BadText::Control('\n')));
        assert_eq!(
            PersonName::new("a\u{2028}b"),
            Err(BadText::LineSeparator('\u{2028}'))
        );
        assert_eq!(
            TeamName::new(" \u{200B} "),
            Err(BadText::Length {
                count: 0,
                max: NAME_MAX
            })
        );
        let long = "x".repeat(NAME_MAX + 1);
        assert_eq!(
            PersonName::new(&long),
            Err(BadText::Length {
                count: NAME_MAX + 1,
                max: NAME_MAX
            })
        );
        assert!(PersonName::new(&long[1..]).is_ok());
    }

    #[test]
    fn a_stored_name_is_taken_as_stored() {
        let old = "Old\u{200B}  name ";
        assert_eq!(TeamName::from_stored(old.into()).as_str(), old);
    }
}
