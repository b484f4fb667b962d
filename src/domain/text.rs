//! Enums stored and sent as snake_case text.

/// A value that was not one of an enum's names (a bad request field or a corrupt row).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("\"{value}\" is not a {what} (one of: {expected})")]
pub struct UnknownValue {
    pub what: &'static str,
    pub value: String,
    pub expected: String,
}

/// An enum whose every value has one stored name.
pub trait TextEnum: Sized + Copy + 'static {
    /// What it is, in words, for error messages ("match status").
    const WHAT: &'static str;
    const ALL: &'static [Self];

    fn as_str(self) -> &'static str;

    /// The value named `s` exactly (stored text, a form field, a query parameter).
    fn parse(s: &str) -> Result<Self, UnknownValue> {
        Self::ALL
            .iter()
            .copied()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| UnknownValue {
                what: Self::WHAT,
                value: s.to_string(),
                expected: Self::ALL
                    .iter()
                    .map(|v| v.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

/// sqlx `Type`, `Encode` and `Decode` on both stores for a type stored as text: the value
/// `$v` is written as `$text` (`&str` or `String`) by `$to_text`, and read back from the
/// stored `&str` `$s` by `$from_text`, a `Result` whose error is the row's decode error.
macro_rules! sql_text {
    ($t:ty, $text:ty, |$v:ident| $to_text:expr, |$s:ident| $from_text:expr) => {
        $crate::domain::text::sql_text!(@db $t, sqlx::sqlite::Sqlite, $text, |$v| $to_text, |$s| $from_text);
        $crate::domain::text::sql_text!(@db $t, sqlx::postgres::Postgres, $text, |$v| $to_text, |$s| $from_text);
    };
    (@db $t:ty, $db:ty, $text:ty, |$v:ident| $to_text:expr, |$s:ident| $from_text:expr) => {
        impl sqlx::Type<$db> for $t {
            fn type_info() -> <$db as sqlx::Database>::TypeInfo {
                <&str as sqlx::Type<$db>>::type_info()
            }
            fn compatible(ty: &<$db as sqlx::Database>::TypeInfo) -> bool {
                <&str as sqlx::Type<$db>>::compatible(ty)
            }
        }

        impl<'q> sqlx::Encode<'q, $db> for $t {
            fn encode_by_ref(
                &self,
                buf: &mut <$db as sqlx::Database>::ArgumentBuffer,
            ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
                let $v = self;
                <$text as sqlx::Encode<'q, $db>>::encode($to_text, buf)
            }
        }

        impl<'r> sqlx::Decode<'r, $db> for $t {
            fn decode(
                value: <$db as sqlx::Database>::ValueRef<'r>,
            ) -> Result<Self, sqlx::error::BoxDynError> {
                let $s = <&str as sqlx::Decode<'r, $db>>::decode(value)?;
                Ok($from_text?)
            }
        }
    };
}
pub(crate) use sql_text;

/// `TextEnum` for `$t` with these names, plus its mapping to text in both stores.
macro_rules! text_enum {
    ($t:ty, $what:literal, { $($variant:path => $name:literal),+ $(,)? }) => {
        $crate::domain::text::text_enum!(@sql $t);
        impl $crate::domain::TextEnum for $t {
            const WHAT: &'static str = $what;
            const ALL: &'static [Self] = &[$($variant),+];
            fn as_str(self) -> &'static str {
                match self {
                    $($variant => $name),+
                }
            }
        }
    };
    (@sql $t:ty) => {
        $crate::domain::text::sql_text!(
            $t,
            &str,
            |v| $crate::domain::TextEnum::as_str(*v),
            |text| <$t as $crate::domain::TextEnum>::parse(text)
        );
    };
}
pub(crate) use text_enum;

/// [`text_enum!`] for an enum that already has an inherent `as_str` (the engine's own):
/// the trait uses it, so the names are written once. The list of variants is matched
/// without a wildcard in `as_str`, so a variant added to the enum and forgotten here does
/// not compile (as in [`text_enum!`], whose `as_str` is the same exhaustive match).
macro_rules! text_enum_of {
    ($t:ident, $what:literal, [$($variant:ident),+ $(,)?]) => {
        $crate::domain::text::text_enum!(@sql $t);
        impl $crate::domain::TextEnum for $t {
            const WHAT: &'static str = $what;
            const ALL: &'static [Self] = &[$($t::$variant),+];
            fn as_str(self) -> &'static str {
                match self {
                    $($t::$variant)|+ => <$t>::as_str(self),
                }
            }
        }
    };
}

// The engine's enums, stored as the names their serde derives already use.
use crate::league::bracket::{Format, GrandFinal, Section};
use crate::rules::{Stage, Team, WinReason};

text_enum_of!(Stage, "stage", [Regular, Playoff, Final]);
text_enum_of!(Team, "team (a or b)", [A, B]);
text_enum_of!(
    WinReason,
    "reason a game was won",
    [Target, Time, Tiebreak, Floor, Moon, Forfeit]
);
text_enum_of!(
    Format,
    "bracket format",
    [SingleElimination, DoubleElimination]
);
text_enum_of!(GrandFinal, "grand final", [None, Simple, Double]);
text_enum_of!(
    Section,
    "bracket section",
    [Winners, Losers, Final, ThirdPlace]
);
