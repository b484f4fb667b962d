//! Reading JSON strictly: a struct only from an object. serde's derived `Deserialize` also
//! reads a struct from an array of its fields in order, so `"start": {"a": []}` would be a
//! team at 0 points with 0 bags, and `[]` any struct whose fields all have defaults. A request
//! is read through [`Strict`], which refuses that; everything else reads exactly as from
//! `serde_json::Value`, with the same messages (and `serde_path_to_error` names the field).
//!
//! What serde buffers before choosing (untagged enums, `flatten`) is read by serde itself and
//! keeps its leniency there.

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Unexpected,
    VariantAccess, Visitor,
};
use std::fmt;

/// `deserializer`, reading structs only from maps (JSON objects), at every depth.
pub struct Strict<D>(pub D);

/// Reads `value` into `T` as [`Strict`] does, naming the path of a wrong field.
pub fn from_value<T: de::DeserializeOwned>(
    value: serde_json::Value,
) -> Result<T, serde_path_to_error::Error<serde_json::Error>> {
    serde_path_to_error::deserialize(Strict(value))
}

/// A request body read as JSON, as the API reads every body: every whole float an integer
/// ([`whole_numbers_as_integers`]). `Err` is the message of a body that is not JSON (the
/// API's 400 `malformed`).
pub fn read_body(body: &[u8]) -> Result<serde_json::Value, String> {
    serde_json::from_slice(body)
        .map(whole_numbers_as_integers)
        .map_err(|e| not_json("the body", &e))
}

/// That `what` is not JSON, and where it stops reading, without the parser's words.
pub fn not_json(what: &str, e: &serde_json::Error) -> String {
    if e.classify() == serde_json::error::Category::Eof {
        format!("{what} is not JSON: it ends too soon (line {})", e.line())
    } else {
        format!(
            "{what} is not JSON: see line {}, column {}",
            e.line(),
            e.column()
        )
    }
}

/// A deserializer's message (serde's "invalid type: null, expected u32") in the words the
/// service answers with ("must be a whole number of 0 or more"): what the field must be. A
/// message the service wrote itself (a custom one) comes back as it is.
pub fn in_words(message: &str) -> String {
    let quoted = |rest: &str| rest.split('`').next().unwrap_or_default().to_string();
    if let Some(rest) = message.strip_prefix("missing field `") {
        return format!("\"{}\" is required", quoted(rest));
    }
    if let Some(rest) = message.strip_prefix("unknown field `") {
        return format!("\"{}\" is not a field this takes", quoted(rest));
    }
    if let Some(rest) = message.strip_prefix("unknown variant `") {
        let value = quoted(rest);
        let choices = rest.split_once("expected ").map_or("", |(_, c)| c);
        let choices = choices.trim_start_matches("one of ").replace('`', "\"");
        return format!("\"{value}\" is not one of: {choices}");
    }
    for prefix in ["invalid type: ", "invalid value: ", "invalid length "] {
        if let Some(expected) = message
            .strip_prefix(prefix)
            .and_then(|rest| rest.split_once(", expected "))
            .map(|(_, expected)| expected)
        {
            return format!("must be {}", expected_words(expected));
        }
    }
    message.to_string()
}

/// What serde says it expected, in words.
fn expected_words(expected: &str) -> String {
    match expected {
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => "a whole number of 0 or more".into(),
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "an integer" => "a whole number".into(),
        "f32" | "f64" | "a number" => "a number".into(),
        "a boolean" => "true or false".into(),
        "a string" | "a borrowed string" | "a character" => "text".into(),
        e if e.starts_with("struct ") || e.starts_with("a map") => "an object".into(),
        e if e.starts_with("a sequence") || e.starts_with("tuple") => "a list".into(),
        e if e.starts_with("enum ") || e.starts_with("variant ") => "one of its names".into(),
        other => other.replace('`', "\""),
    }
}

/// `value` with every number written as a float with no fraction (`2.0`) written as the
/// integer it is (`2`), where an `i64` or `u64` holds it. JSON Schema counts `2.0` as an
/// integer, so a client may send it where the API reads one (`expected_version`, a trick
/// count); serde would refuse it. Run on a request body before it is read into its type.
pub fn whole_numbers_as_integers(value: serde_json::Value) -> serde_json::Value {
    use serde_json::{Number, Value};
    match value {
        Value::Number(n) if n.is_f64() => {
            let whole = n.as_f64().filter(|f| f.fract() == 0.0);
            // The bounds are exact powers of two: a float in [-2^63, 2^63) converts exactly.
            match whole {
                Some(f)
                    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) =>
                {
                    Value::Number(Number::from(f as i64))
                }
                Some(f) if (0.0..18_446_744_073_709_551_616.0).contains(&f) => {
                    Value::Number(Number::from(f as u64))
                }
                _ => Value::Number(n),
            }
        }
        Value::Array(items) => {
            Value::Array(items.into_iter().map(whole_numbers_as_integers).collect())
        }
        Value::Object(fields) => Value::Object(
            fields
                .into_iter()
                .map(|(k, v)| (k, whole_numbers_as_integers(v)))
                .collect(),
        ),
        other => other,
    }
}

/// A visitor that hands on strict deserializers to what it visits; `structs` when it reads a
/// struct, so that a sequence is refused.
struct Wrap<V> {
    visitor: V,
    structs: bool,
}

fn wrap<V>(visitor: V) -> Wrap<V> {
    Wrap {
        visitor,
        structs: false,
    }
}

macro_rules! forward_deserialize {
    ($($method:ident),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.0.$method(wrap(visitor))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Strict<D> {
    type Error = D::Error;

    forward_deserialize!(
        deserialize_any,
        deserialize_bool,
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_i128,
        deserialize_u8,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64,
        deserialize_u128,
        deserialize_f32,
        deserialize_f64,
        deserialize_char,
        deserialize_str,
        deserialize_string,
        deserialize_bytes,
        deserialize_byte_buf,
        deserialize_option,
        deserialize_unit,
        deserialize_seq,
        deserialize_map,
        deserialize_identifier,
        deserialize_ignored_any,
    );

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_unit_struct(name, wrap(visitor))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_newtype_struct(name, wrap(visitor))
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple(len, wrap(visitor))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple_struct(name, len, wrap(visitor))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = Wrap {
            visitor,
            structs: true,
        };
        self.0.deserialize_struct(name, fields, visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_enum(name, variants, wrap(visitor))
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

macro_rules! forward_visit {
    ($($method:ident($t:ty)),* $(,)?) => {$(
        fn $method<E: de::Error>(self, v: $t) -> Result<Self::Value, E> {
            self.visitor.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Wrap<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.visitor.expecting(f)
    }

    forward_visit!(
        visit_bool(bool),
        visit_i8(i8),
        visit_i16(i16),
        visit_i32(i32),
        visit_i64(i64),
        visit_i128(i128),
        visit_u8(u8),
        visit_u16(u16),
        visit_u32(u32),
        visit_u64(u64),
        visit_u128(u128),
        visit_f32(f32),
        visit_f64(f64),
        visit_char(char),
        visit_str(&str),
        visit_borrowed_str(&'de str),
        visit_string(String),
        visit_bytes(&[u8]),
        visit_borrowed_bytes(&'de [u8]),
        visit_byte_buf(Vec<u8>),
    );

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.visitor.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.visitor.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.visitor.visit_some(Strict(d))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.visitor.visit_newtype_struct(Strict(d))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        if self.structs {
            return Err(de::Error::invalid_type(Unexpected::Seq, &self));
        }
        self.visitor.visit_seq(StrictSeq(seq))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.visitor.visit_map(StrictMap(map))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        self.visitor.visit_enum(StrictEnum(data))
    }
}

/// A seed whose value is read strictly.
struct StrictSeed<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for StrictSeed<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Strict(d))
    }
}

struct StrictSeq<A>(A);

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for StrictSeq<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(StrictSeed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

struct StrictMap<A>(A);

impl<'de, A: MapAccess<'de>> MapAccess<'de> for StrictMap<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(StrictSeed(seed))
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.0.next_value_seed(StrictSeed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

struct StrictEnum<A>(A);

impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for StrictEnum<A> {
    type Error = A::Error;
    type Variant = StrictVariant<A::Variant>;

    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Self::Variant), A::Error> {
        let (value, variant) = self.0.variant_seed(StrictSeed(seed))?;
        Ok((value, StrictVariant(variant)))
    }
}

struct StrictVariant<A>(A);

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for StrictVariant<A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(StrictSeed(seed))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, wrap(visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        let visitor = Wrap {
            visitor,
            structs: true,
        };
        self.0.struct_variant(fields, visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Total {
        #[serde(default)]
        score: i32,
        #[serde(default)]
        bags: u32,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Start {
        #[serde(default)]
        a: Option<Total>,
        #[serde(default)]
        b: Vec<Total>,
        #[serde(default)]
        pair: Option<(u8, u8)>,
        #[serde(default)]
        side: Option<Side>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Side {
        Left,
        Custom(Total),
        Box { inner: Total },
    }

    fn read<T: de::DeserializeOwned>(value: serde_json::Value) -> Result<T, String> {
        from_value(value).map_err(|e| format!("{}: {}", e.path(), e.inner()))
    }

    #[test]
    fn floats_without_a_fraction_become_integers() {
        let body = json!({"expected_version": 3.0, "hand": {"a": {"tricks": [4.0, -0.0], "bids": ["nil", 2.5]}},
                          "big": 1e300, "huge": 1.8e19, "n": null, "s": "4.0"});
        assert_eq!(
            whole_numbers_as_integers(body),
            json!({"expected_version": 3, "hand": {"a": {"tricks": [4, 0], "bids": ["nil", 2.5]}},
                   "big": 1e300, "huge": 18_000_000_000_000_000_000_u64, "n": null, "s": "4.0"})
        );
        assert!(whole_numbers_as_integers(json!(3.0)).is_i64());
    }

    #[test]
    fn structs_are_read_from_objects_only() {
        let start: Start = read(json!({
            "a": {"score": 5},
            "b": [{"bags": 2}],
            "pair": [1, 2],
            "side": {"custom": {"score": 1}}
        }))
        .unwrap();
        assert_eq!(start.a, Some(Total { score: 5, bags: 0 }));
        assert_eq!(start.b, vec![Total { score: 0, bags: 2 }]);
        assert_eq!(start.pair, Some((1, 2)), "a tuple is an array");
        assert_eq!(start.side, Some(Side::Custom(Total { score: 1, bags: 0 })));
        assert_eq!(
            read::<Start>(json!({"side": "left"})).unwrap().side,
            Some(Side::Left)
        );
        for (value, refused) in [
            (
                json!([]),
                ".: invalid type: sequence, expected struct Start",
            ),
            (
                json!({"a": []}),
                "a: invalid type: sequence, expected struct Total",
            ),
            (
                json!({"a": [5, 2]}),
                "a: invalid type: sequence, expected struct Total",
            ),
            (
                json!({"b": [{}, []]}),
                "b[1]: invalid type: sequence, expected struct Total",
            ),
            (
                json!({"side": {"custom": []}}),
                "side.custom: invalid type: sequence, expected struct Total",
            ),
            (
                json!({"side": {"box": [{}]}}),
                "side.box: invalid type: sequence, expected struct variant",
            ),
        ] {
            assert_eq!(read::<Start>(value).unwrap_err(), refused);
        }
        // serde_json alone takes them all.
        assert!(serde_json::from_value::<Start>(json!({"a": [5, 2]})).is_ok());
    }

    #[test]
    fn other_errors_read_as_from_serde_json() {
        for value in [
            json!({"a": {"score": "x"}}),
            json!({"a": {"bags": -1}}),
            json!({"a": {"other": 1}}),
            json!({"side": "right"}),
            json!({"pair": [1]}),
            json!("start"),
        ] {
            let strict = read::<Start>(value.clone()).unwrap_err();
            let plain = serde_path_to_error::deserialize::<_, Start>(value)
                .map_err(|e| format!("{}: {}", e.path(), e.inner()))
                .unwrap_err();
            assert_eq!(strict, plain);
        }
    }

    #[test]
    fn a_deserializers_refusal_reads_as_what_the_field_must_be() {
        let words = |value: serde_json::Value| {
            let e = from_value::<Start>(value).expect_err("refused");
            in_words(&e.inner().to_string())
        };
        assert_eq!(
            words(json!({"a": {"bags": null}})),
            "must be a whole number of 0 or more"
        );
        assert_eq!(
            words(json!({"a": {"score": "7"}})),
            "must be a whole number"
        );
        assert_eq!(words(json!({"a": [1, 2]})), "must be an object");
        assert_eq!(words(json!({"b": {}})), "must be a list");
        assert_eq!(
            words(json!({"late": true})),
            "\"late\" is not a field this takes"
        );
        assert_eq!(
            words(json!({"side": "right"})),
            "\"right\" is not one of: \"left\", \"custom\", \"box\""
        );
        #[derive(Debug, Deserialize)]
        struct Named {
            #[allow(dead_code)]
            name: String,
        }
        let e = from_value::<Named>(json!({})).expect_err("refused");
        assert_eq!(in_words(&e.inner().to_string()), "\"name\" is required");
        // The service's own messages are kept.
        assert_eq!(
            in_words("the target is 100 to 1000"),
            "the target is 100 to 1000"
        );
        let e = serde_json::from_str::<serde_json::Value>("{\"a\": ").expect_err("cut");
        assert_eq!(
            not_json("the body", &e),
            "the body is not JSON: it ends too soon (line 1)"
        );
    }
}
