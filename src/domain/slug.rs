//! A league's slug: the part of its addresses that names it (`/leagues/fall-2026`).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

/// Lowercase ASCII letters and digits in runs joined by single dashes ("fall-2026"): what
/// [`slugify`] makes of a name, never empty. Parsed once at the edge (a path, a form, a
/// request body), so a handler or a service never holds a slug that could not exist.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, utoipa::ToSchema)]
#[serde(transparent)]
#[schema(value_type = String)]
pub struct Slug(String);

/// Why a text is not a slug.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BadSlug {
    #[error("give the league a slug of letters or digits")]
    Empty,
    #[error("a slug is lowercase letters, digits and single dashes, e.g. \"fall-2026\"")]
    Malformed,
}

impl Slug {
    /// The slugs a new league may not take, being addresses of the service itself: `new`
    /// (the new-league page, `/admin/leagues/new`) and `import` (`/api/v1/leagues/import`,
    /// `/admin/leagues/import`); a league with one could never be read or administered.
    pub const RESERVED: &'static [&'static str] = &["new", "import"];

    /// What a slug is, as a regular expression (the API's document says it so).
    pub const PATTERN: &'static str = "^[a-z0-9]+(-[a-z0-9]+)*$";

    /// The slug made from a name ("Fall 2026 Spades!" → "fall-2026-spades").
    pub fn from_name(name: &str) -> Result<Slug, BadSlug> {
        slugify(name).parse()
    }

    /// Whether a new league may not take this slug (see [`Slug::RESERVED`]).
    pub fn is_reserved(&self) -> bool {
        Self::RESERVED.contains(&self.0.as_str())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The `{slug}` of a league's address in the API's document: every path that names a league
/// lists it with `params(Slug, …)`, so the parameter is written once.
impl utoipa::IntoParams for Slug {
    fn into_params(
        _: impl Fn() -> Option<utoipa::openapi::path::ParameterIn>,
    ) -> Vec<utoipa::openapi::path::Parameter> {
        use utoipa::openapi::path::{ParameterBuilder, ParameterIn};
        use utoipa::openapi::{ObjectBuilder, Required, Type};
        vec![
            ParameterBuilder::new()
                .name("slug")
                .parameter_in(ParameterIn::Path)
                .required(Required::True)
                .description(Some("the league's slug"))
                .schema(Some(
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .pattern(Some(Slug::PATTERN)),
                ))
                .build(),
        ]
    }
}

impl std::str::FromStr for Slug {
    type Err = BadSlug;
    fn from_str(s: &str) -> Result<Slug, BadSlug> {
        if s.is_empty() {
            Err(BadSlug::Empty)
        } else if slugify(s) != s {
            Err(BadSlug::Malformed)
        } else {
            Ok(Slug(s.to_string()))
        }
    }
}

impl<'de> Deserialize<'de> for Slug {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Slug, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for Slug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for Slug {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// Stored as text in both stores; a stored slug is checked when it is read, as a stored
/// state is (a row that holds no slug is a corrupt row, not a league to link to).
macro_rules! slug_sql {
    ($db:ty) => {
        impl sqlx::Type<$db> for Slug {
            fn type_info() -> <$db as sqlx::Database>::TypeInfo {
                <&str as sqlx::Type<$db>>::type_info()
            }
            fn compatible(ty: &<$db as sqlx::Database>::TypeInfo) -> bool {
                <&str as sqlx::Type<$db>>::compatible(ty)
            }
        }

        impl<'q> sqlx::Encode<'q, $db> for Slug {
            fn encode_by_ref(
                &self,
                buf: &mut <$db as sqlx::Database>::ArgumentBuffer,
            ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
                <&str as sqlx::Encode<'q, $db>>::encode(self.as_str(), buf)
            }
        }

        impl<'r> sqlx::Decode<'r, $db> for Slug {
            fn decode(
                value: <$db as sqlx::Database>::ValueRef<'r>,
            ) -> Result<Self, sqlx::error::BoxDynError> {
                Ok(<&str as sqlx::Decode<'r, $db>>::decode(value)?.parse()?)
            }
        }
    };
}
slug_sql!(sqlx::sqlite::Sqlite);
slug_sql!(sqlx::postgres::Postgres);

/// A URL-safe slug from a name: "Fall 2026 Spades!" → "fall-2026-spades" (empty when the
/// name has no ASCII letter or digit).
pub fn slugify(name: &str) -> String {
    let mut slug = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    while slug.ends_with('-') {
        slug.pop();
    }
    slug
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(slugify("Fall 2026 Spades!"), "fall-2026-spades");
        assert_eq!(slugify("  --A  b--"), "a-b");
        assert_eq!(slugify("!!!"), "");
    }

    #[test]
    fn a_slug_is_what_slugify_makes() {
        assert_eq!(
            "fall-2026".parse::<Slug>().map(|s| s.to_string()),
            Ok("fall-2026".into())
        );
        for bad in [
            "Fall-2026",
            "fall--2026",
            "-fall",
            "fall-",
            "fall 2026",
            "été",
        ] {
            assert_eq!(bad.parse::<Slug>(), Err(BadSlug::Malformed), "{bad}");
        }
        assert_eq!("".parse::<Slug>(), Err(BadSlug::Empty));
        assert_eq!(Slug::from_name("!!!"), Err(BadSlug::Empty));
    }

    #[test]
    fn new_and_import_are_slugs_but_reserved() {
        let new: Slug = "new".parse().unwrap();
        assert!(new.is_reserved());
        assert!("import".parse::<Slug>().unwrap().is_reserved());
        assert!(!"news".parse::<Slug>().unwrap().is_reserved());
    }

    #[test]
    fn a_bad_slug_does_not_deserialize() {
        assert!(serde_json::from_str::<Slug>("\"Fall\"").is_err());
        assert_eq!(
            serde_json::from_str::<Slug>("\"fall\"").unwrap().as_str(),
            "fall"
        );
    }
}
