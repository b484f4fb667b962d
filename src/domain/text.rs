//! Enums stored and sent as snake_case text.

// The trait and its error live with the engine (rules/src/text.rs), which implements it for
// its own enums (and, with its `sqlx` feature, stores them): Rust lets only the crate of a
// type or of a trait implement the one for the other.
pub use crate::rules::text::{TextEnum, UnknownValue};

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

/// [`text_enum!`] for an enum that already has an inherent `as_str` (the bracket's):
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

// The bracket's enums, stored as the names their serde derives already use (the engine's
// own, Stage, Team and WinReason, are stored by rules/src/text.rs).
use crate::league::bracket::{Format, GrandFinal, Section};

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
