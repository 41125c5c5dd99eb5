//! Whether a deserialization ignored a key, found without recording where.
//!
//! The gate refuses every key serde would ignore (a user's `#[args]` struct or a nested
//! struct cannot be given `deny_unknown_fields` by the macro). `serde_ignored` says where
//! each ignored key was, but it copies every map key into a `String` as it goes, so that
//! the path is at hand should something below it be ignored: on the gate's hot path that
//! is most of the cost of reading a call. Almost every call the gate reads has no ignored
//! key, so [`Detect`] only raises a flag: it forwards everything and notes a call to
//! `deserialize_ignored_any`, which is how a derived `Deserialize` skips a value it has no
//! field for (the same hook `serde_ignored` uses). Only when the flag is up does the gate
//! read the arguments again through `serde_ignored` to name each key.
//!
//! Keys themselves are not watched (a key is an identifier, never skipped); values, and
//! everything nested in them (sequences, maps, options, newtypes, enum variants), are.

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};
use std::cell::Cell;
use std::fmt;

/// A deserializer that forwards to `de` and sets `ignored` when any value below it is
/// skipped as unknown.
pub(crate) struct Detect<'f, D> {
    de: D,
    ignored: &'f Cell<bool>,
}

impl<'f, D> Detect<'f, D> {
    /// Watches `de`; `ignored` is set (never cleared) when a value is skipped.
    pub(crate) fn new(de: D, ignored: &'f Cell<bool>) -> Self {
        Detect { de, ignored }
    }
}

/// Forwards `deserialize_*` methods, watching the visitor.
macro_rules! forward_deserialize {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            self.de.$method($($arg,)* Watch { visitor, ignored: self.ignored })
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Detect<'_, D> {
    type Error = D::Error;

    forward_deserialize! {
        deserialize_any();
        deserialize_bool();
        deserialize_i8();
        deserialize_i16();
        deserialize_i32();
        deserialize_i64();
        deserialize_i128();
        deserialize_u8();
        deserialize_u16();
        deserialize_u32();
        deserialize_u64();
        deserialize_u128();
        deserialize_f32();
        deserialize_f64();
        deserialize_char();
        deserialize_str();
        deserialize_string();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_option();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier();
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.ignored.set(true);
        self.de.deserialize_ignored_any(visitor)
    }

    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }
}

/// A visitor that hands the deserializers and accesses it is given on, watched.
struct Watch<'f, V> {
    visitor: V,
    ignored: &'f Cell<bool>,
}

/// Forwards `visit_*` methods of plain values, which hold nothing to watch.
macro_rules! forward_visit {
    ($($method:ident($ty:ty);)*) => {$(
        fn $method<E: de::Error>(self, value: $ty) -> Result<V::Value, E> {
            self.visitor.$method(value)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Watch<'_, V> {
    type Value = V::Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(formatter)
    }

    forward_visit! {
        visit_bool(bool);
        visit_i8(i8);
        visit_i16(i16);
        visit_i32(i32);
        visit_i64(i64);
        visit_i128(i128);
        visit_u8(u8);
        visit_u16(u16);
        visit_u32(u32);
        visit_u64(u64);
        visit_u128(u128);
        visit_f32(f32);
        visit_f64(f64);
        visit_char(char);
        visit_str(&str);
        visit_borrowed_str(&'de str);
        visit_string(String);
        visit_bytes(&[u8]);
        visit_borrowed_bytes(&'de [u8]);
        visit_byte_buf(Vec<u8>);
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.visitor.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.visitor.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.visitor.visit_some(Detect::new(de, self.ignored))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.visitor
            .visit_newtype_struct(Detect::new(de, self.ignored))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, access: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_seq(Watch {
            visitor: access,
            ignored: self.ignored,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, access: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_map(Watch {
            visitor: access,
            ignored: self.ignored,
        })
    }

    fn visit_enum<A: EnumAccess<'de>>(self, access: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_enum(Watch {
            visitor: access,
            ignored: self.ignored,
        })
    }
}

/// A seed whose deserializer is watched.
struct Seed<'f, S> {
    seed: S,
    ignored: &'f Cell<bool>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(Detect::new(de, self.ignored))
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Watch<'_, A> {
    type Error = A::Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, A::Error> {
        self.visitor.next_element_seed(Seed {
            seed,
            ignored: self.ignored,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.visitor.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Watch<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.visitor.next_key_seed(seed)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        self.visitor.next_value_seed(Seed {
            seed,
            ignored: self.ignored,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.visitor.size_hint()
    }
}

impl<'de, 'f, A: EnumAccess<'de>> EnumAccess<'de> for Watch<'f, A> {
    type Error = A::Error;
    type Variant = Watch<'f, A::Variant>;

    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Self::Variant), A::Error> {
        let ignored = self.ignored;
        let (value, variant) = self.visitor.variant_seed(seed)?;
        Ok((
            value,
            Watch {
                visitor: variant,
                ignored,
            },
        ))
    }
}

impl<'de, A: de::VariantAccess<'de>> de::VariantAccess<'de> for Watch<'_, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.visitor.unit_variant()
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, A::Error> {
        self.visitor.newtype_variant_seed(Seed {
            seed,
            ignored: self.ignored,
        })
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.visitor.tuple_variant(
            len,
            Watch {
                visitor,
                ignored: self.ignored,
            },
        )
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.visitor.struct_variant(
            fields,
            Watch {
                visitor,
                ignored: self.ignored,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Detect;
    use serde::Deserialize;
    use std::cell::Cell;
    use std::collections::BTreeMap;

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Inner {
        a: u32,
    }

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    enum Shape {
        Unit,
        Wrapped(Inner),
        Pair(Inner, u8),
        Named { inner: Inner },
    }

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Outer {
        inner: Option<Inner>,
        list: Option<Vec<Inner>>,
        map: Option<BTreeMap<String, Inner>>,
        shape: Option<Shape>,
        tuple: Option<(Inner, u8)>,
        boxed: Option<Box<Inner>>,
    }

    /// Whether reading `text` as `Outer` ignored something, by `Detect` and by
    /// `serde_ignored` (the two must agree).
    fn verdicts(text: &str) -> (bool, bool) {
        let ignored = Cell::new(false);
        let mut de = serde_json::Deserializer::from_str(text);
        Outer::deserialize(Detect::new(&mut de, &ignored)).expect("the case is well-typed");
        let mut paths = Vec::new();
        let mut de = serde_json::Deserializer::from_str(text);
        serde_ignored::deserialize::<_, _, Outer>(&mut de, |path| paths.push(path.to_string()))
            .expect("the case is well-typed");
        (ignored.get(), !paths.is_empty())
    }

    #[test]
    fn an_ignored_key_is_detected_at_every_depth_and_kind_of_nesting() {
        for text in [
            r#"{"extra":1}"#,
            r#"{"inner":{"a":1,"b":2}}"#,
            r#"{"list":[{"a":1},{"a":2,"z":[1,2]}]}"#,
            r#"{"map":{"k":{"a":1,"q":null}}}"#,
            r#"{"shape":{"Wrapped":{"a":1,"x":1}}}"#,
            r#"{"shape":{"Pair":[{"a":1,"x":1},3]}}"#,
            r#"{"shape":{"Named":{"inner":{"a":1},"y":1}}}"#,
            r#"{"shape":{"Named":{"inner":{"a":1,"y":1}}}}"#,
            r#"{"tuple":[{"a":1,"y":{}},3]}"#,
            r#"{"boxed":{"a":1,"y":"s"}}"#,
        ] {
            assert_eq!(verdicts(text), (true, true), "{text}");
        }
    }

    #[test]
    fn nothing_is_detected_when_every_key_is_known() {
        for text in [
            r#"{}"#,
            r#"{"inner":{"a":1},"list":[{"a":2}],"map":{"k":{"a":3}}}"#,
            r#"{"shape":"Unit"}"#,
            r#"{"shape":{"Pair":[{"a":1},3]},"tuple":[{"a":1},3],"boxed":{"a":1}}"#,
            r#"{"shape":{"Named":{"inner":{"a":1}}}}"#,
        ] {
            assert_eq!(verdicts(text), (false, false), "{text}");
        }
    }
}
