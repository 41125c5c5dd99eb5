//! Reading a call's JSON arguments into its tool's typed arguments.
//!
//! One pass of serde does the work, watched for any key the types would silently skip (a
//! struct without `deny_unknown_fields`, at any depth; see `ignored_keys`): the gate
//! refuses those, since `{"dryrun": true}` for `dry_run` would otherwise run with
//! `dry_run = false`, and a second pass through `serde_ignored` names each one. The arguments must be a JSON object, as every schema says: serde's
//! derive would also read a struct from an array of its fields.
//!
//! Only when the arguments do not fit is more work done, to explain it as a model can act
//! on: the JSON path of serde's error (`serde_path_to_error`), every violation of the
//! schema at once (the `jsonschema` validator), and for each, what JSON the schema expects
//! there and what was sent (`/page/per_page: expected an integer from 0 to 255, got 300`).

use crate::ignored_keys::Detect;
// The gate's words for paths, schemas and values; re-exported for the gate's callers.
pub(crate) use crate::describe::{
    closest, expected, got, missing, pointer, shortened, subschema_at, unknown_key, value_at,
    without_position,
};
use crate::messages;
use crate::set::ToolSet;
use crate::spec::ToolSpec;
use serde_json::Value;
use std::cell::Cell;

/// Why a call's arguments could not be read.
#[derive(Debug)]
pub(crate) enum ArgumentsError {
    /// The arguments are not JSON at all: serde_json's message, without its position.
    Malformed(String),
    /// They are JSON but do not fit the schema: one message per problem, each starting
    /// with its JSON path.
    Invalid(Vec<String>),
}

/// Deserializes `text` (the model's arguments as `verify_arguments` hands them: trimmed,
/// and `{}` for none, so they are trimmed once per call) into the typed call of the tool
/// `name`, refusing anything but an object and every key serde would ignore.
pub(crate) fn read<T: ToolSet>(
    name: T::Name,
    spec: &ToolSpec,
    text: &str,
) -> Result<T::Call, ArgumentsError> {
    debug_assert_eq!(text, text.trim(), "the caller trims the arguments");
    if !text.starts_with('{') {
        return Err(not_an_object(text));
    }
    // The common case, a call with no ignored key, pays for a flag only; where the
    // flag goes up, the arguments are read again to say where each ignored key is.
    let ignored = Cell::new(false);
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let read = T::deserialize_call(name, Detect::new(&mut deserializer, &ignored))
        .and_then(|call| deserializer.end().map(|()| call));
    match read {
        Ok(call) if !ignored.get() => Ok(call),
        Ok(_) => {
            let mut ignored = ignored_paths::<T>(name, text);
            if ignored.is_empty() {
                // Both readings watch the same hook, so this cannot happen; were it to,
                // the call is still refused, its key named as best we can.
                ignored.push(Vec::new());
            }
            let schema = spec.input_schema();
            let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
            Err(ArgumentsError::Invalid(
                ignored
                    .iter()
                    .map(|path| unknown_key(schema, &with_variant_keys(&value, path)))
                    .collect(),
            ))
        }
        Err(error) => Err(explain::<T>(name, spec, text, &error)),
    }
}

/// Deserializes `object` (arguments a transport already parsed, always a JSON object, of
/// shape `shape`) into the typed call of the tool `name` as [`read`] does its text, without
/// writing the object out: serde reads the value itself, watched for ignored keys alike.
/// `None` when that reading fails or finds an ignored key: the caller reads the object's
/// text instead, so a refusal says exactly what it says for the same arguments sent as
/// text.
///
/// Arguments holding a fraction or an exponent (a float) are `None` at once, for the text
/// to decide: serde reads a float from a value and from text differently (`1e39` for an
/// `f32` is infinity from a value and refused from text), and the text's verdict is the
/// gate's.
pub(crate) fn read_object<T: ToolSet>(
    name: T::Name,
    object: &Value,
    shape: Shape,
) -> Option<T::Call> {
    debug_assert!(object.is_object(), "parsed arguments are an object");
    if shape.float {
        return None;
    }
    let ignored = Cell::new(false);
    T::deserialize_call(name, Detect::new(object, &ignored))
        .ok()
        .filter(|_| !ignored.get())
}

/// What parsed arguments hold, at any depth, that decides how the gate reads them: a
/// number that is not an integer (read from the text, see [`read_object`]), an array (the
/// schema is checked, as for text holding a `[`). Found in one walk.
#[derive(Clone, Copy, Default)]
pub(crate) struct Shape {
    /// A number with a fraction or an exponent.
    pub(crate) float: bool,
    /// An array.
    pub(crate) array: bool,
}

impl Shape {
    /// The shape of `value`.
    pub(crate) fn of(value: &Value) -> Shape {
        let mut shape = Shape::default();
        shape.walk(value);
        shape
    }

    fn walk(&mut self, value: &Value) {
        match value {
            Value::Number(number) => self.float |= number.is_f64(),
            Value::Array(items) => {
                self.array = true;
                items.iter().for_each(|item| self.walk(item));
            }
            Value::Object(members) => members.values().for_each(|member| self.walk(member)),
            Value::Null | Value::Bool(_) | Value::String(_) => {}
        }
    }
}

/// The problem of `text` when it is valid JSON holding a number serde_json cannot read at
/// all (`1e400`, beyond every double): `/count: a number cannot be read (...)`, naming
/// where it is. `None` when `text` is not JSON (or reads as a `Value`): then it is
/// malformed, or the problem is elsewhere.
pub(crate) fn unreadable_number(text: &str) -> Option<String> {
    // `IgnoredAny` scans a number's digits without converting them: it accepts exactly
    // JSON's grammar, whatever the magnitudes.
    serde_json::from_str::<serde::de::IgnoredAny>(text).ok()?;
    let mut track = serde_path_to_error::Track::new();
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let read = <Value as serde::Deserialize>::deserialize(serde_path_to_error::Deserializer::new(
        &mut deserializer,
        &mut track,
    ));
    let error = read.err()?;
    let at = pointer(&path_segments(&track.path()));
    Some(messages::unreadable_number(
        &at,
        without_position(&error.to_string()),
    ))
}

/// Where in `text` each key serde ignores is, read through `serde_ignored` (only for a
/// call [`Detect`] found one in, so its copying of every key costs nothing otherwise).
fn ignored_paths<T: ToolSet>(name: T::Name, text: &str) -> Vec<Vec<String>> {
    let mut ignored: Vec<Vec<String>> = Vec::new();
    let mut record = |path: serde_ignored::Path<'_>| ignored.push(ignored_segments(&path));
    let mut deserializer = serde_json::Deserializer::from_str(text);
    // The first reading succeeded, so this one does too; its value is not needed.
    let _ = T::deserialize_call(
        name,
        serde_ignored::Deserializer::new(&mut deserializer, &mut record),
    );
    ignored
}

/// The problem of arguments that are not an object: malformed JSON, or JSON of another
/// type (an array, serde's positional form of a struct, included).
fn not_an_object(text: &str) -> ArgumentsError {
    match serde_json::from_str::<Value>(text) {
        Err(error) => ArgumentsError::Malformed(without_position(&error.to_string()).to_owned()),
        Ok(value) => {
            ArgumentsError::Invalid(vec![messages::not_an_object(&pointer(&[]), &got(&value))])
        }
    }
}

/// Explains why serde refused `text`: malformed JSON, or every problem of the call with
/// its path.
fn explain<T: ToolSet>(
    name: T::Name,
    spec: &ToolSpec,
    text: &str,
    error: &serde_json::Error,
) -> ArgumentsError {
    // serde_json reports some data errors (a number out of range for an `f32`, a float
    // for a `u128`) as syntax errors; valid JSON means they are data errors.
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(_) => {
            return match unreadable_number(text) {
                Some(problem) => ArgumentsError::Invalid(vec![problem]),
                None => ArgumentsError::Malformed(without_position(&error.to_string()).to_owned()),
            };
        }
    };
    let schema = spec.input_schema();
    let mut problems: Vec<(String, String)> = Vec::new();
    // serde's first error, with its path: read again with the path tracked (only now,
    // so the calls that fit pay nothing for it).
    let mut track = serde_path_to_error::Track::new();
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let again = T::deserialize_call(
        name,
        serde_path_to_error::Deserializer::new(&mut deserializer, &mut track),
    );
    let path = path_segments(&track.path());
    let serde_message = match &again {
        Err(error) => without_position(&error.to_string()).to_owned(),
        Ok(_) => without_position(&error.to_string()).to_owned(),
    };
    let first = if error.classify() == serde_json::error::Category::Data {
        serde_problem(schema, &value, &path, &serde_message)
    } else {
        // Valid JSON that serde_json's reader refused mid-way, inside a number. Where the
        // schema says what is wrong (a 128-bit integer past its range or negative for an
        // unsigned one, a float beyond `f32`), its words name the field and the range;
        // serde's path may stop at the enclosing object, its words at a stray character.
        let violations = spec.schema_problems(&value);
        if !violations.is_empty() {
            return ArgumentsError::Invalid(
                violations.into_iter().map(|(_, message)| message).collect(),
            );
        }
        // An integer past its type's end that the schema's double still admits (2^128
        // for a `u128`: a 128-bit range is stated rounded outward, see
        // `crate::schema::TypeRange`): the schema's words, with the exact range, and the
        // number as it was sent.
        // serde's path may stop at the enclosing object (a float read for a `u128`); the
        // field is then the first one below it that the schema says is an integer of a
        // known format and that holds no integer serde_json could read.
        let path = match integer_field(schema, &path) {
            Some(_) => path,
            None => unread_integer_below(schema, &value, &path).unwrap_or(path),
        };
        let here = pointer(&path);
        if let (Some(field), Some(sent)) = (integer_field(schema, &path), raw_at(text, &path)) {
            let message = format!("{here}: expected {}, got {sent}", expected(field, schema));
            (here, message)
        } else {
            // Valid JSON that serde_json's reader refused mid-way: a number in a form its
            // field cannot take (`3.0` or `3e38` for a 128-bit integer, a float beyond
            // `f32`). The reader stops inside the number, so the path may be the
            // enclosing one.
            let message = messages::unreadable_number(&here, &serde_message);
            (here, message)
        }
    };
    // Every violation of the schema, so the model fixes them all in one round trip; those
    // at or below serde's problem are that problem seen in parts.
    let covered =
        |at: &str| at == first.0 || first.0 == "/" || at.starts_with(&format!("{}/", first.0));
    let mut rest: Vec<(String, String)> = Vec::new();
    for (at, message) in spec.schema_problems(&value) {
        if !covered(&at) && !rest.iter().any(|(known, _)| *known == at) {
            rest.push((at, message));
        }
    }
    problems.push(first);
    problems.extend(rest);
    ArgumentsError::Invalid(problems.into_iter().map(|(_, message)| message).collect())
}

/// The schema at `path` when it is an integer of one of schemars' formats (`uint128`, …).
fn integer_field<'a>(schema: &'a Value, path: &[String]) -> Option<&'a Value> {
    subschema_at(schema, path).filter(|field| {
        field
            .get("format")
            .and_then(Value::as_str)
            .and_then(crate::integer_format::integer_range)
            .is_some()
    })
}

/// The first path at or below `at` in `value` holding a number serde_json read as a
/// float where the schema says an integer of a known format: what serde's reader
/// refused, when its path stopped above it.
fn unread_integer_below(schema: &Value, value: &Value, at: &[String]) -> Option<Vec<String>> {
    match value_at(value, at)? {
        Value::Number(number) if number.is_f64() => integer_field(schema, at).map(|_| at.to_vec()),
        Value::Object(members) => members.keys().find_map(|key| {
            let mut below = at.to_vec();
            below.push(key.clone());
            unread_integer_below(schema, value, &below)
        }),
        Value::Array(items) => (0..items.len()).find_map(|index| {
            let mut below = at.to_vec();
            below.push(index.to_string());
            unread_integer_below(schema, value, &below)
        }),
        _ => None,
    }
}

/// The JSON text at `path` in `text` as it was written (a number beyond what a `Value`
/// holds exactly keeps its digits), shortened like any value a message echoes; `None`
/// where there is none.
fn raw_at(text: &str, path: &[String]) -> Option<String> {
    use serde_json::value::RawValue;
    let mut raw: &RawValue = serde_json::from_str(text).ok()?;
    for segment in path {
        raw = match raw.get().trim_start().as_bytes().first() {
            Some(b'{') => {
                serde_json::from_str::<std::collections::HashMap<String, &RawValue>>(raw.get())
                    .ok()?
                    .remove(segment)?
            }
            Some(b'[') => {
                let index: usize = segment.parse().ok()?;
                serde_json::from_str::<Vec<&RawValue>>(raw.get())
                    .ok()?
                    .get(index)
                    .copied()?
            }
            _ => return None,
        };
    }
    Some(shortened(raw.get().trim()))
}

/// serde's error at `path`, said in JSON terms: `(path, message)`.
fn serde_problem(
    schema: &Value,
    value: &Value,
    path: &[String],
    message: &str,
) -> (String, String) {
    if let Some(field) = between(message, "missing field `", "`") {
        let mut at = path.to_vec();
        at.push(field.to_owned());
        return (pointer(&at), missing(schema, &at));
    }
    if let Some(field) = between(message, "unknown field `", "`") {
        // The path may already end at the unknown key, or stop at its object.
        let mut at = path.to_vec();
        if at.last().map(String::as_str) != Some(field) {
            at.push(field.to_owned());
        }
        return (pointer(&at), unknown_key(schema, &at));
    }
    // The deepest level of the path the schema describes: below a unit variant sent as
    // an object (`{"oldest": 1}`), serde's path goes where the schema has nothing.
    for depth in (0..=path.len()).rev() {
        let at = &path[..depth];
        if let (Some(field), Some(sent)) = (subschema_at(schema, at), value_at(value, at)) {
            let here = pointer(at);
            let message = format!(
                "{here}: expected {}, got {}",
                expected(field, schema),
                got(sent)
            );
            return (here, message);
        }
    }
    // Nothing to describe it by: serde's words, with the path.
    let here = pointer(path);
    let message = format!("{here}: {message}");
    (here, message)
}

/// `path` as serde_ignored reports it, with the keys it leaves out put back: the variant
/// of an externally tagged enum (`{"owner": {...}}`) is a level of the JSON but not of
/// serde_ignored's path. Where an object lacks the next key but holds exactly one member
/// that has it, that member's key is the missing level.
fn with_variant_keys(value: &Value, path: &[String]) -> Vec<String> {
    let mut repaired = Vec::with_capacity(path.len());
    let mut at = value;
    for segment in path {
        loop {
            let next = match at {
                Value::Object(members) if !members.contains_key(segment) && members.len() == 1 => {
                    members.iter().next()
                }
                _ => None,
            };
            match next {
                Some((variant, inner)) if inner.is_object() => {
                    repaired.push(variant.clone());
                    at = inner;
                }
                _ => break,
            }
        }
        repaired.push(segment.clone());
        at = match at {
            Value::Object(members) => members.get(segment).unwrap_or(&Value::Null),
            Value::Array(items) => segment
                .parse::<usize>()
                .ok()
                .and_then(|index| items.get(index))
                .unwrap_or(&Value::Null),
            _ => &Value::Null,
        };
    }
    repaired
}

/// The text between `start` and the next `end` in `message`.
fn between<'a>(message: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = message.find(start)? + start.len();
    let length = message[from..].find(end)?;
    Some(&message[from..from + length])
}

/// The path serde_ignored reports, as JSON pointer segments (`Option`s and newtypes are
/// not levels of the JSON).
fn ignored_segments(path: &serde_ignored::Path<'_>) -> Vec<String> {
    let mut segments = Vec::new();
    let mut at = path;
    loop {
        match at {
            serde_ignored::Path::Root => break,
            serde_ignored::Path::Seq { parent, index } => {
                segments.push(index.to_string());
                at = parent;
            }
            serde_ignored::Path::Map { parent, key } => {
                segments.push(key.clone());
                at = parent;
            }
            serde_ignored::Path::Some { parent }
            | serde_ignored::Path::NewtypeStruct { parent }
            | serde_ignored::Path::NewtypeVariant { parent } => at = parent,
        }
    }
    segments.reverse();
    segments
}

/// The path serde_path_to_error tracked, as JSON pointer segments.
fn path_segments(path: &serde_path_to_error::Path) -> Vec<String> {
    let mut segments = Vec::new();
    for segment in path.iter() {
        match segment {
            serde_path_to_error::Segment::Seq { index } => segments.push(index.to_string()),
            serde_path_to_error::Segment::Map { key } => segments.push(key.clone()),
            serde_path_to_error::Segment::Enum { variant } => segments.push(variant.clone()),
            // Below an untagged or flattened value serde knows no more.
            serde_path_to_error::Segment::Unknown => break,
        }
    }
    segments
}
