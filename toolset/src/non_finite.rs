//! Finding a non-finite float (NaN, ±infinity) in a value about to be written as JSON.
//!
//! JSON has no such numbers, and serde_json writes each as `null`: a `Json<T>` result
//! holding `f64::NAN` under a `"type": "number"` schema would reach the model as `null`,
//! silently. `serde_json::to_value` keeps no trace of it, so the value is walked once more
//! through [`Probe`], a serializer that writes nothing and stops at the first non-finite
//! float, saying where it is. Only a serialized value holding a `null` can hide one
//! ([`non_finite_at`] is asked then), so a result without `null` pays nothing more.

use crate::describe::pointer;
use serde::Serialize;
use serde::ser;
use std::fmt;

/// The JSON pointer of the first non-finite float in `value`'s serialized form, if any
/// (`/ratio`, `/history/1`, `/` for the value itself).
pub(crate) fn non_finite_at<T: Serialize + ?Sized>(value: &T) -> Option<String> {
    let mut probe = Probe {
        path: Vec::new(),
        indexes: Vec::new(),
        key: None,
        found: None,
    };
    // A non-finite float stops the walk with `Stop`; so does the value's own error,
    // which `to_value` reported first.
    let _ = value.serialize(&mut probe);
    probe.found.map(|path| pointer(&path))
}

/// A serializer writing nothing, recording the path to the value being serialized.
struct Probe {
    /// The JSON path of the value being serialized.
    path: Vec<String>,
    /// The next element's index in each sequence being serialized, innermost last.
    indexes: Vec<usize>,
    /// The key of the map entry whose value comes next.
    key: Option<String>,
    /// Where the first non-finite float is.
    found: Option<Vec<String>>,
}

/// Why the walk stopped: a non-finite float was found, or the value could not be
/// serialized.
#[derive(Debug)]
struct Stop;

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("stopped")
    }
}

impl std::error::Error for Stop {}

impl ser::Error for Stop {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Stop
    }
}

impl Probe {
    /// Checks one float.
    fn float(&mut self, value: f64) -> Result<(), Stop> {
        if value.is_finite() {
            return Ok(());
        }
        self.found = Some(self.path.clone());
        Err(Stop)
    }

    /// Serializes `value` one level down, at `segment`.
    fn at<T: Serialize + ?Sized>(&mut self, segment: String, value: &T) -> Result<(), Stop> {
        self.path.push(segment);
        let walked = value.serialize(&mut *self);
        self.path.pop();
        walked
    }

    /// Serializes the next element of the innermost sequence.
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        let index = self.indexes.last().copied().unwrap_or(0);
        if let Some(next) = self.indexes.last_mut() {
            *next += 1;
        }
        self.at(index.to_string(), value)
    }

    /// Opens a sequence.
    fn open(&mut self) -> Result<&mut Self, Stop> {
        self.indexes.push(0);
        Ok(self)
    }

    /// Closes a sequence.
    fn close(&mut self) -> Result<(), Stop> {
        self.indexes.pop();
        Ok(())
    }
}

/// The key of a map entry as serde_json writes it: a string as it is, anything else as
/// its JSON.
fn key_text<T: Serialize + ?Sized>(key: &T) -> String {
    match serde_json::to_value(key) {
        Ok(serde_json::Value::String(text)) => text,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

impl ser::Serializer for &mut Probe {
    type Ok = ();
    type Error = Stop;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    fn serialize_bool(self, _: bool) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_i8(self, _: i8) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_i16(self, _: i16) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_i32(self, _: i32) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_i64(self, _: i64) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_i128(self, _: i128) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_u8(self, _: u8) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_u16(self, _: u16) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_u32(self, _: u32) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_u64(self, _: u64) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_u128(self, _: u128) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_f32(self, value: f32) -> Result<(), Stop> {
        self.float(f64::from(value))
    }
    fn serialize_f64(self, value: f64) -> Result<(), Stop> {
        self.float(value)
    }
    fn serialize_char(self, _: char) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_str(self, _: &str) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Stop> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        // serde_json writes `{"Variant": value}`.
        self.at(variant.to_owned(), value)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self, Stop> {
        self.open()
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, Stop> {
        self.open()
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, Stop> {
        self.open()
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self, Stop> {
        self.path.push(variant.to_owned());
        self.open()
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self, Stop> {
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Stop> {
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self, Stop> {
        self.path.push(variant.to_owned());
        Ok(self)
    }
}

/// The sequence-like serializers: each element is serialized at its index; `$close` ends
/// the sequence (a tuple variant's also leaves its variant's key).
macro_rules! sequence {
    ($($trait:ident :: $element:ident, $close:expr;)*) => {$(
        impl ser::$trait for &mut Probe {
            type Ok = ();
            type Error = Stop;
            fn $element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
                self.element(value)
            }
            fn end(self) -> Result<(), Stop> {
                let close: fn(&mut Probe) -> Result<(), Stop> = $close;
                close(self)
            }
        }
    )*};
}

sequence! {
    SerializeSeq::serialize_element, Probe::close;
    SerializeTuple::serialize_element, Probe::close;
    SerializeTupleStruct::serialize_field, Probe::close;
    SerializeTupleVariant::serialize_field, |probe| {
        probe.path.pop();
        probe.close()
    };
}

impl ser::SerializeMap for &mut Probe {
    type Ok = ();
    type Error = Stop;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Stop> {
        self.key = Some(key_text(key));
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        let key = self.key.take().unwrap_or_default();
        self.at(key, value)
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

/// The struct-like serializers: each field is serialized at its name; `$close` ends the
/// struct (a struct variant's also leaves its variant's key).
macro_rules! fields {
    ($($trait:ident, $close:expr;)*) => {$(
        impl ser::$trait for &mut Probe {
            type Ok = ();
            type Error = Stop;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Stop> {
                self.at(key.to_owned(), value)
            }
            fn end(self) -> Result<(), Stop> {
                let close: fn(&mut Probe) = $close;
                close(self);
                Ok(())
            }
        }
    )*};
}

fields! {
    SerializeStruct, |_| {};
    SerializeStructVariant, |probe| {
        probe.path.pop();
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[derive(Serialize)]
    struct Reading {
        ratio: f64,
        history: Vec<f32>,
        by_name: BTreeMap<String, f64>,
        nested: Option<Box<Reading>>,
        kind: Kind,
    }

    #[derive(Serialize)]
    enum Kind {
        Plain,
        Scaled(f64),
        Pair(f64, f64),
        Named { factor: f64 },
    }

    fn reading() -> Reading {
        Reading {
            ratio: 0.5,
            history: vec![1.0, 2.0],
            by_name: BTreeMap::from([("a".to_owned(), 1.0)]),
            nested: None,
            kind: Kind::Plain,
        }
    }

    #[test]
    fn finite_values_have_none() {
        assert_eq!(non_finite_at(&reading()), None);
        assert_eq!(non_finite_at(&1.5_f64), None);
        assert_eq!(non_finite_at(&Option::<f64>::None), None);
    }

    #[test]
    fn each_non_finite_float_is_found_where_serde_json_writes_it() {
        assert_eq!(non_finite_at(&f64::NAN).as_deref(), Some("/"));
        let mut at_ratio = reading();
        at_ratio.ratio = f64::NAN;
        assert_eq!(non_finite_at(&at_ratio).as_deref(), Some("/ratio"));
        let mut in_list = reading();
        in_list.history[1] = f32::INFINITY;
        assert_eq!(non_finite_at(&in_list).as_deref(), Some("/history/1"));
        let mut in_map = reading();
        in_map.by_name.insert("b".to_owned(), f64::NEG_INFINITY);
        assert_eq!(non_finite_at(&in_map).as_deref(), Some("/by_name/b"));
        let mut deep = reading();
        let mut inner = reading();
        inner.kind = Kind::Named { factor: f64::NAN };
        deep.nested = Some(Box::new(inner));
        assert_eq!(
            non_finite_at(&deep).as_deref(),
            Some("/nested/kind/Named/factor")
        );
        let mut scaled = reading();
        scaled.kind = Kind::Scaled(f64::NAN);
        assert_eq!(non_finite_at(&scaled).as_deref(), Some("/kind/Scaled"));
        let mut pair = reading();
        pair.kind = Kind::Pair(1.0, f64::NAN);
        assert_eq!(non_finite_at(&pair).as_deref(), Some("/kind/Pair/1"));
        // The walk's index bookkeeping survives a sequence closed before the float.
        let lists = (vec![1.0, 2.0], vec![3.0, f64::NAN]);
        assert_eq!(non_finite_at(&lists).as_deref(), Some("/1/1"));
    }
}
