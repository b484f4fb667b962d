//! Enums stored and sent as snake_case text: [`TextEnum`], and the engine's own enums
//! ([`Stage`], [`Team`], [`WinReason`]) under it. The server stores them as this text; with
//! the `sqlx` feature this crate gives them sqlx's `Type`, `Encode` and `Decode` on SQLite and
//! PostgreSQL (Rust lets only the crate of a type or of a trait implement the one for the
//! other, so those impls cannot live in the server's crate).

use crate::state::{Stage, WinReason};
use crate::team::Team;

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

/// [`TextEnum`] for an engine enum from its inherent `as_str` (the names its serde derive
/// uses), so the names are written once. The variants are matched without a wildcard, so a
/// variant added to the enum and forgotten here does not compile.
macro_rules! text_enum_of {
    ($t:ident, $what:literal, [$($variant:ident),+ $(,)?]) => {
        impl TextEnum for $t {
            const WHAT: &'static str = $what;
            const ALL: &'static [Self] = &[$($t::$variant),+];
            fn as_str(self) -> &'static str {
                match self {
                    $($t::$variant)|+ => <$t>::as_str(self),
                }
            }
        }
        #[cfg(feature = "sqlx")]
        sql_text_enum!($t, sqlx::sqlite::Sqlite);
        #[cfg(feature = "sqlx")]
        sql_text_enum!($t, sqlx::postgres::Postgres);
    };
}

/// sqlx `Type`, `Encode` and `Decode` on `$db` for a [`TextEnum`], stored as its name.
#[cfg(feature = "sqlx")]
macro_rules! sql_text_enum {
    ($t:ty, $db:ty) => {
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
                <&str as sqlx::Encode<'q, $db>>::encode(TextEnum::as_str(*self), buf)
            }
        }

        impl<'r> sqlx::Decode<'r, $db> for $t {
            fn decode(
                value: <$db as sqlx::Database>::ValueRef<'r>,
            ) -> Result<Self, sqlx::error::BoxDynError> {
                let text = <&str as sqlx::Decode<'r, $db>>::decode(value)?;
                Ok(<$t as TextEnum>::parse(text)?)
            }
        }
    };
}

text_enum_of!(Stage, "stage", [Regular, Playoff, Final]);
text_enum_of!(Team, "team (a or b)", [A, B]);
text_enum_of!(
    WinReason,
    "reason a game was won",
    [Target, Time, Tiebreak, Floor, Moon, Forfeit]
);
