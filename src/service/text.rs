//! The text the service stores: names (leagues, teams, players), table names, reasons and
//! notes, token names. Every one is checked and normalized here, before it is compared or
//! stored, so that what a page, a CSV, a calendar or the printed bracket shows is exactly
//! what was checked; docs/api.md §1.1 says the same in the API's words. The checks
//! themselves are `domain::name` (so a `TeamName` or `PersonName` is made only by them);
//! this module words their refusals ([`TextRule`]) and compares names ([`NameKey`]).
//!
//! - **Refused** (a 422 naming the field): control characters (U+0000–U+001F,
//!   U+007F–U+009F), but line breaks in multi-line text; the invisible bidirectional
//!   controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), which reorder what a
//!   reader sees ("Aces" + U+202E + "ffo" shows as "Acesoff"); in one-line text the line and
//!   paragraph separators U+2028 and U+2029 too.
//! - **Removed**: the other format characters (general category Cf: zero-width space and
//!   non-joiner, word joiner, byte order mark, soft hyphen…), which show nothing and would
//!   make two names that read the same differ. Two exceptions keep emoji whole: a
//!   zero-width joiner between two emoji (👨‍👩‍👧 is three emoji held together by two) and the
//!   tags of a subdivision flag (🏴 with the tags "gbsct" and a cancel tag is Scotland's).
//! - **Normalized**: NFKC (Unicode's compatibility composition, UAX #15: full-width
//!   "Ａｃｅｓ" is "Aces", "ﬁ" is "fi", "①" is "1"), every kind of space (no-break,
//!   ideographic, thin…) a plain space, runs of spaces one, and trimmed.
//!
//! Lengths are counted in characters (Unicode scalar values: an emoji made of several, like
//! 👍🏽, counts as several), of the text as sent (trimmed) and of the text as stored. Scripts
//! are never refused: CJK, Arabic, Hebrew, Cyrillic and emoji are names like any other.
//!
//! Two team names are the same name ([`NameKey`]) when they read the same: equal ignoring
//! case, or look-alikes by the confusable skeleton of UTS #39 (a Cyrillic "а" in
//! "Cаrdsharks" reads as the Latin "a" of "Cardsharks").

use crate::domain::ErrorCode;
use crate::domain::name::{BadText, check_text};
pub use crate::domain::name::{Lines, NAME_MAX};

use crate::service::ServiceError;

/// A table's name ("Table 3", "Lounge B").
pub const TABLE_MAX: usize = crate::domain::table_name::MAX;
/// A reason or a note (a correction's, a postponement's, an eligibility decision's...).
pub const REASON_MAX: usize = 500;
/// An API token's label.
pub const TOKEN_NAME_MAX: usize = 60;

/// What a text is, for the checks and the messages.
pub struct TextRule<'a> {
    /// The error code (`invalid_input`, `invalid_correction` …).
    pub code: ErrorCode,
    /// The field the message is shown next to.
    pub field: &'a str,
    /// The text in words, as the message's subject ("the team's name").
    pub what: &'a str,
    pub max: usize,
    pub lines: Lines,
}

impl TextRule<'_> {
    /// `value` as stored (normalized), if it is 1 to `max` characters of text.
    pub fn check(&self, value: &str) -> Result<String, ServiceError> {
        self.check_optional(Some(value))?
            .ok_or_else(|| self.invalid(self.length_message(0)))
    }

    /// As [`check`](Self::check), for a field where nothing means none (a table, a note):
    /// `None` for no text or text that is blank once normalized (spaces, format characters).
    pub fn check_optional(&self, value: Option<&str>) -> Result<Option<String>, ServiceError> {
        let Some(value) = value else {
            return Ok(None);
        };
        check_text(value, self.max, self.lines).map_err(|bad| self.refused(bad))
    }

    /// The error that says why a text is refused, in this rule's words.
    pub fn refused(&self, bad: BadText) -> ServiceError {
        let what = self.what;
        self.invalid(match bad {
            BadText::Control(c) => format!(
                "{what} contains a control character (U+{:04X}); type plain text",
                c as u32
            ),
            BadText::Bidi(c) => format!(
                "{what} contains an invisible direction control (U+{:04X}), which would show the text in another order than it is stored; type it without",
                c as u32
            ),
            BadText::LineSeparator(c) => format!(
                "{what} must be one line: it contains a line separator (U+{:04X})",
                c as u32
            ),
            BadText::Length { count, .. } => self.length_message(count),
        })
    }

    fn length_message(&self, count: usize) -> String {
        format!(
            "{} must be 1 to {} characters (this one has {count})",
            self.what, self.max
        )
    }

    fn invalid(&self, message: String) -> ServiceError {
        ServiceError::invalid(self.code, self.field, message)
    }
}

/// Why a text of at most `max` characters is refused, in words that name no field (a
/// league document's column: its pointer says where).
pub fn words_of(bad: BadText, max: usize) -> String {
    TextRule {
        code: ErrorCode::InvalidInput,
        field: "",
        what: "the text",
        max,
        lines: Lines::One,
    }
    .refused(bad)
    .to_string()
}

/// A name as compared for duplicates: two names with the same key read the same. Lower
/// case, then the confusable skeleton of UTS #39 (which also drops what shows nothing and
/// maps look-alikes across scripts, "а" to "a", "1" to "l"). Also right for names stored
/// before they were normalized.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NameKey(String);

impl NameKey {
    pub fn of(name: &str) -> NameKey {
        NameKey(unicode_security::skeleton(&name.to_lowercase()).collect())
    }
}

// The characters above as the classes of a JSON Schema `pattern` (ECMA-262 regular
// expressions, written with `\uXXXX` escapes, which the dialects that read the document
// share). They name characters of the Basic Multilingual Plane only: the format characters
// beyond it (tags, musical formatting...) are removed all the same.

/// The control characters (`char::is_control`).
const CONTROL: &str = r"\x00-\x1F\x7F-\x9F";
/// The control characters but line feed and carriage return.
const CONTROL_BUT_LINE_BREAKS: &str = r"\x00-\x09\x0B\x0C\x0E-\x1F\x7F-\x9F";
/// [`is_bidi_control`](crate::domain::name::is_bidi_control).
const BIDI_CONTROL: &str = r"\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069";
/// [`is_line_separator`](crate::domain::name::is_line_separator).
const LINE_SEPARATOR: &str = r"\u2028\u2029";
/// The space separators (general category Zs).
const SPACE: &str = r" \u00A0\u1680\u2000-\u200A\u202F\u205F\u3000";
/// The format characters (general category Cf) of the Basic Multilingual Plane.
const FORMAT: &str = r"\u00AD\u0600-\u0605\u061C\u06DD\u070F\u0890\u0891\u08E2\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB";

/// The JSON Schema `pattern` of the text a [`TextRule`] with these `lines` takes: none of
/// the characters it refuses, and, unless the text `may_be_blank` (an optional field where
/// empty means none), at least one that is neither removed nor trimmed.
pub fn schema_pattern(lines: Lines, may_be_blank: bool) -> String {
    let refused = match lines {
        Lines::One => format!("{CONTROL}{BIDI_CONTROL}{LINE_SEPARATOR}"),
        Lines::Many => format!("{CONTROL_BUT_LINE_BREAKS}{BIDI_CONTROL}"),
    };
    if may_be_blank {
        format!("^[^{refused}]*$")
    } else {
        let blank = format!("{CONTROL}{SPACE}{LINE_SEPARATOR}{FORMAT}");
        format!("^[^{refused}]*[^{refused}{blank}][^{refused}]*$")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::name::{is_bidi_control, is_line_separator, normalized};
    use unicode_normalization::UnicodeNormalization;
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

    fn rule(lines: Lines) -> TextRule<'static> {
        TextRule {
            code: ErrorCode::InvalidInput,
            field: "name",
            what: "the name",
            max: 5,
            lines,
        }
    }

    fn name(value: &str) -> Result<String, String> {
        TextRule {
            max: NAME_MAX,
            ..rule(Lines::One)
        }
        .check(value)
        .map_err(message)
    }

    fn message(e: ServiceError) -> String {
        match e {
            ServiceError::Invalid(e) => {
                assert_eq!(e.field.as_ref().map(|f| f.as_str()), Some("name"));
                e.message
            }
            other => panic!("not invalid: {other:?}"),
        }
    }

    #[test]
    fn text_is_trimmed_and_limited_in_characters() {
        assert_eq!(rule(Lines::One).check("  Ace  ").unwrap(), "Ace");
        assert_eq!(
            rule(Lines::One).check("ÄÖÜßé").unwrap(),
            "ÄÖÜßé",
            "5 characters, 10 bytes"
        );
        let long = message(rule(Lines::One).check("abcdef").unwrap_err());
        assert_eq!(long, "the name must be 1 to 5 characters (this one has 6)");
        assert!(message(rule(Lines::One).check("   ").unwrap_err()).contains("1 to 5"));
    }

    #[test]
    fn control_characters_are_refused_line_breaks_only_where_allowed() {
        let nul = message(rule(Lines::One).check("a\0b").unwrap_err());
        assert_eq!(
            nul,
            "the name contains a control character (U+0000); type plain text"
        );
        assert!(rule(Lines::One).check("a\u{1b}[2J").is_err(), "escape");
        assert!(rule(Lines::One).check("a\u{85}b").is_err(), "C1 control");
        assert!(
            rule(Lines::One).check("a\nb").is_err(),
            "no line break in a name"
        );
        assert_eq!(rule(Lines::Many).check("a\r\nb").unwrap(), "a\r\nb");
        assert!(
            rule(Lines::Many).check("a\tb").is_err(),
            "a tab is not a line break"
        );
    }

    #[test]
    fn line_separators_are_line_breaks() {
        for c in ['\u{2028}', '\u{2029}'] {
            let refused = message(rule(Lines::One).check(&format!("a{c}b")).unwrap_err());
            assert_eq!(
                refused,
                format!(
                    "the name must be one line: it contains a line separator (U+{:04X})",
                    c as u32
                )
            );
            assert_eq!(rule(Lines::Many).check(&format!("a{c}b")).unwrap(), "a\nb");
        }
    }

    #[test]
    fn bidirectional_controls_are_refused() {
        for c in [
            '\u{061C}', '\u{200E}', '\u{200F}', '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}',
            '\u{202E}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
        ] {
            for lines in [Lines::One, Lines::Many] {
                let refused = message(rule(lines).check(&format!("ab{c}c")).unwrap_err());
                assert!(
                    refused.starts_with(&format!(
                        "the name contains an invisible direction control (U+{:04X})",
                        c as u32
                    )),
                    "{refused}"
                );
            }
        }
        // The scripts that are written right to left are text like any other.
        assert_eq!(name("الآس").unwrap(), "الآس");
        assert_eq!(name("אסים 7").unwrap(), "אסים 7");
    }

    #[test]
    fn format_characters_are_removed_and_names_composed() {
        assert_eq!(name("Card\u{200B}sharks").unwrap(), "Cardsharks", "ZWSP");
        assert_eq!(
            name("\u{FEFF}Aces\u{00AD}").unwrap(),
            "Aces",
            "BOM, soft hyphen"
        );
        assert_eq!(
            name("Ac\u{200C}es\u{2060}").unwrap(),
            "Aces",
            "ZWNJ, word joiner"
        );
        assert_eq!(name("Ａｃｅｓ").unwrap(), "Aces", "full width");
        assert_eq!(name("ﬁve ①").unwrap(), "five 1", "compatibility forms");
        assert_eq!(
            name("Cafe\u{0301}").unwrap(),
            "Caf\u{e9}",
            "composed (NFKC)"
        );
        assert_eq!(
            name("Cafe\u{200B}\u{0301}").unwrap(),
            "Caf\u{e9}",
            "composed once the zero-width space is out"
        );
        assert_eq!(
            message(rule(Lines::One).check("\u{200B}\u{FEFF}").unwrap_err()),
            "the name must be 1 to 5 characters (this one has 0)",
            "nothing that shows"
        );
        // A stray tag (text hidden from readers) is removed.
        assert_eq!(name("Aces\u{E0068}\u{E0069}").unwrap(), "Aces");
    }

    #[test]
    fn every_kind_of_space_is_one_plain_space() {
        assert_eq!(name("Aces\u{00A0}High").unwrap(), "Aces High", "no-break");
        assert_eq!(
            name("東京\u{3000}エース").unwrap(),
            "東京 エース",
            "ideographic"
        );
        assert_eq!(name("Aces\u{2009}\u{1680}  High").unwrap(), "Aces High");
        assert_eq!(name("\u{2003}Aces\u{202F}").unwrap(), "Aces", "trimmed");
        let lines = TextRule {
            max: REASON_MAX,
            ..rule(Lines::Many)
        };
        assert_eq!(
            lines.check("a  \u{00A0}b\n  c").unwrap(),
            "a b\n c",
            "lines keep their breaks"
        );
    }

    #[test]
    fn emoji_stay_whole() {
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}";
        let thumbs = "\u{1F44D}\u{1F3FD}";
        let health_worker = "\u{1F9D1}\u{1F3FE}\u{200D}\u{2695}\u{FE0F}";
        let rainbow_flag = "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}";
        let scotland = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}";
        for emoji in [family, thumbs, health_worker, rainbow_flag, scotland] {
            let team = format!("{emoji} Aces {emoji}");
            assert_eq!(name(&team).unwrap(), team);
        }
        // A joiner between letters, digits or an emoji and a letter holds nothing together.
        assert_eq!(name("A\u{200D}ces").unwrap(), "Aces");
        assert_eq!(name("1\u{200D}2").unwrap(), "12");
        assert_eq!(name("\u{1F468}\u{200D}a").unwrap(), "\u{1F468}a");
        // A flag's tags without their cancel tag, or too many, are not a flag.
        assert_eq!(name("\u{1F3F4}\u{E0067}\u{E0062}").unwrap(), "\u{1F3F4}");
        assert_eq!(
            name(&format!("\u{1F3F4}{}\u{E007F}", "\u{E0061}".repeat(7))).unwrap(),
            "\u{1F3F4}"
        );
        // Counted in characters: the family is 5.
        assert!(
            TextRule {
                max: 4,
                ..rule(Lines::One)
            }
            .check(family)
            .is_err()
        );
    }

    #[test]
    fn the_length_counts_the_text_as_sent_and_as_stored() {
        let limit = |max| TextRule {
            max,
            ..rule(Lines::One)
        };
        // Sent with a zero-width space: 6 characters, over the limit even though 5 are stored.
        assert!(limit(5).check("Ac\u{200B}ess").is_err());
        // "ﷺ" is one character that NFKC writes as 18.
        assert_eq!(
            message(limit(5).check("\u{FDFA}").unwrap_err()),
            "the name must be 1 to 5 characters (this one has 18)"
        );
        assert_eq!(name(&"ß".repeat(80)).unwrap().chars().count(), 80);
    }

    #[test]
    fn normalizing_twice_changes_nothing() {
        for text in [
            "Card\u{200B}sharks",
            "Ａ\u{00A0}\u{00A0}ｃｅｓ",
            "e\u{200B}\u{0301}",
            "\u{00A8}x",
            "\u{1F468}\u{200D}\u{200D}\u{1F469}",
            "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}",
        ] {
            let once = normalized(text);
            assert_eq!(normalized(&once), once, "{text:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn normalizing_any_text_twice_changes_nothing(text in ".{0,40}") {
            let once = normalized(&text);
            proptest::prop_assert_eq!(normalized(&once), once);
        }
    }

    /// NFKC writes no character that the checks refuse or remove: checked text stays
    /// checked once composed, whatever it was.
    #[test]
    fn composing_adds_nothing_refused_or_removed() {
        for c in (0..=0x10FFFF_u32).filter_map(char::from_u32) {
            if c.is_control() || c.general_category() == GeneralCategory::Format {
                continue;
            }
            for d in c.to_string().nfkc() {
                assert!(
                    !d.is_control() && d.general_category() != GeneralCategory::Format,
                    "U+{:04X} composes to U+{:04X}",
                    c as u32,
                    d as u32
                );
            }
        }
    }

    #[test]
    fn look_alike_names_have_one_key() {
        let key = NameKey::of("Cardsharks");
        for same in [
            "cardsharks",
            "CARDSHARKS",
            "C\u{0430}rdsharks",
            "\u{0421}ardsharks",
            "Card\u{200B}sharks",
        ] {
            assert_eq!(NameKey::of(same), key, "{same}");
        }
        assert_ne!(NameKey::of("Cardshark"), key);
        assert_ne!(NameKey::of("Aces"), NameKey::of("Ace"));
        assert_eq!(NameKey::of("Aces High"), NameKey::of("Aces\u{00A0}High"));
        assert_eq!(NameKey::of("Team 1"), NameKey::of("Team l"));
        assert_eq!(NameKey::of("東京"), NameKey::of("東京"));
        assert_ne!(NameKey::of("東京"), NameKey::of("京都"));
    }

    /// The classes of the document's patterns hold exactly the characters the checks mean.
    #[test]
    fn the_pattern_classes_name_the_characters() {
        fn class(spec: &str) -> Vec<char> {
            let mut chars = Vec::new();
            let mut rest = spec;
            let next = |rest: &mut &str| -> Option<char> {
                let (c, len) = if let Some(hex) = rest.strip_prefix(r"\u") {
                    (u32::from_str_radix(&hex[..4], 16).unwrap(), 6)
                } else if let Some(hex) = rest.strip_prefix(r"\x") {
                    (u32::from_str_radix(&hex[..2], 16).unwrap(), 4)
                } else {
                    let c = rest.chars().next()?;
                    (c as u32, c.len_utf8())
                };
                *rest = &rest[len..];
                char::from_u32(c)
            };
            while let Some(first) = next(&mut rest) {
                if let Some(after) = rest.strip_prefix('-') {
                    rest = after;
                    let last = next(&mut rest).unwrap();
                    chars.extend(first..=last);
                } else {
                    chars.push(first);
                }
            }
            chars
        }
        let bmp = || (0..=0xFFFF_u32).filter_map(char::from_u32);
        let expect = |spec: &str, want: &dyn Fn(char) -> bool| {
            assert_eq!(
                class(spec),
                bmp().filter(|&c| want(c)).collect::<Vec<_>>(),
                "{spec}"
            );
        };
        expect(CONTROL, &|c| c.is_control());
        expect(CONTROL_BUT_LINE_BREAKS, &|c| {
            c.is_control() && !matches!(c, '\n' | '\r')
        });
        expect(BIDI_CONTROL, &is_bidi_control);
        expect(LINE_SEPARATOR, &is_line_separator);
        expect(SPACE, &|c| {
            c.general_category() == GeneralCategory::SpaceSeparator
        });
        expect(FORMAT, &|c| c.general_category() == GeneralCategory::Format);
    }
}
