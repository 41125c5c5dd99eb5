//! The gate's words for JSON: a path as a JSON pointer, what a schema expects at a path
//! (`an integer from 0 to 255`), what was sent (`a string`), the message of a missing or
//! unknown key, and the did-you-mean of a name. A leaf under the schema's users: `spec.rs`
//! (constraint violations), `arguments.rs` (serde's errors), the gate's unknown tools and
//! registration's problems all say things the same way through it.

use crate::integer_format::integer_range;
use crate::messages;
use serde_json::Value;

/// The message of a required key that is missing at `path`.
pub(crate) fn missing(schema: &Value, path: &[String]) -> String {
    let description = subschema_at(schema, path).map(|field| expected(field, schema));
    messages::missing_key(&pointer(path), description.as_deref())
}

/// The message of a key at `path` that the schema does not have, with the nearest known
/// key at that depth.
pub(crate) fn unknown_key(schema: &Value, path: &[String]) -> String {
    let (key, parent) = match path.split_last() {
        Some((key, parent)) => (key.as_str(), parent),
        None => ("", path),
    };
    let known = subschema_at(schema, parent)
        .map(|object| property_names(object, schema))
        .unwrap_or_default();
    messages::unknown_key(&pointer(path), closest(key, &known), &known)
}

/// The longest name a suggestion is looked for, and echoed whole: the tool-name grammar's
/// 64 characters; no schema key a model should send is longer.
const LONGEST_NAME: usize = toolset_rules::MAX_NAME_LEN;

/// The name of `known` that `name` is probably a misspelling of: `toolset-rules`' one
/// did-you-mean rule, shared with the compile errors. Bounded: a name longer than the
/// grammar's 64 characters gets no suggestion before any distance is computed.
pub(crate) fn closest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    toolset_rules::closest(name, known.iter().copied())
}

/// `name` as a message may echo it: cut after [`LONGEST_NAME`] characters, so a message
/// never echoes megabytes back.
pub(crate) fn shortened(name: &str) -> String {
    if name.len() <= LONGEST_NAME || name.chars().nth(LONGEST_NAME).is_none() {
        return name.to_owned();
    }
    let head: String = name.chars().take(LONGEST_NAME).collect();
    format!("{head}... ({} bytes)", name.len())
}

/// The JSON pointer of `segments` (RFC 6901), written `/` for the arguments object itself.
/// A key longer than any schema's is [`shortened`].
pub(crate) fn pointer(segments: &[String]) -> String {
    if segments.is_empty() {
        return "/".to_owned();
    }
    let mut out = String::new();
    for segment in segments {
        out.push('/');
        out.push_str(&shortened(segment).replace('~', "~0").replace('/', "~1"));
    }
    out
}

/// The segments of a JSON pointer such as jsonschema's `instance_path`.
#[cfg_attr(not(feature = "constraints"), allow(dead_code))]
pub(crate) fn pointer_segments(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|segment| segment.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// The value at `path` in `value`.
pub(crate) fn value_at<'a>(value: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(value, |value, segment| match value {
        Value::Object(members) => members.get(segment),
        Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    })
}

/// Follows a local `$ref` (`#/$defs/Name`) of `schema` within `root`.
fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    let mut schema = schema;
    // Bounded: a `$ref` cycle without anything in between resolves to itself.
    for _ in 0..16 {
        match schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix('#'))
            .and_then(|pointer| root.pointer(pointer))
        {
            Some(target) => schema = target,
            None => break,
        }
    }
    schema
}

/// The branches of a union schema (`anyOf`, `oneOf`, `allOf`), if it is one.
fn branches(schema: &Value) -> impl Iterator<Item = &Value> {
    ["anyOf", "oneOf", "allOf"]
        .into_iter()
        .filter_map(|keyword| schema.get(keyword).and_then(Value::as_array))
        .flatten()
}

/// The schema of the value at `path` below `root`, following `$ref`s and looking into
/// union branches (the first branch that has the path wins).
pub(crate) fn subschema_at<'a>(root: &'a Value, path: &[String]) -> Option<&'a Value> {
    fn step<'a>(
        schema: &'a Value,
        root: &'a Value,
        path: &[String],
        depth: usize,
    ) -> Option<&'a Value> {
        let schema = resolve(schema, root);
        let Some((segment, rest)) = path.split_first() else {
            return Some(schema);
        };
        if depth > 32 {
            return None;
        }
        let direct = schema
            .get("properties")
            .and_then(|properties| properties.get(segment))
            .or_else(|| {
                let index = segment.parse::<usize>().ok()?;
                schema
                    .get("prefixItems")
                    .and_then(|items| items.get(index))
                    .or_else(|| schema.get("items").filter(|items| items.is_object()))
            })
            .or_else(|| {
                schema
                    .get("additionalProperties")
                    .filter(|extra| extra.is_object())
            });
        if let Some(next) = direct
            && let Some(found) = step(next, root, rest, depth + 1)
        {
            return Some(found);
        }
        branches(schema).find_map(|branch| step(branch, root, path, depth + 1))
    }
    step(root, root, path, 0)
}

/// The property names an object schema declares, in declared order, union branches
/// included.
fn property_names<'a>(schema: &'a Value, root: &'a Value) -> Vec<&'a str> {
    let schema = resolve(schema, root);
    let mut names: Vec<&str> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().map(String::as_str).collect())
        .unwrap_or_default();
    for branch in branches(schema) {
        for name in property_names(branch, root) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

/// What JSON `schema` expects, in words a model reads: `an integer from 0 to 255`,
/// `a string of at most 10 characters`, `one of "asc", "desc"`.
pub(crate) fn expected(schema: &Value, root: &Value) -> String {
    describe(schema, root, 0)
}

fn describe(schema: &Value, root: &Value, depth: usize) -> String {
    let schema = resolve(schema, root);
    if schema == &Value::Bool(true) || schema.as_object().is_some_and(|map| map.is_empty()) {
        return "any JSON value".to_owned();
    }
    if let Some(value) = schema.get("const") {
        return value.to_string();
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        let options: Vec<String> = options.iter().map(Value::to_string).collect();
        return format!("one of {}", options.join(", "));
    }
    if depth < 3
        && let Some(union) = ["anyOf", "oneOf"]
            .into_iter()
            .find_map(|keyword| schema.get(keyword).and_then(Value::as_array))
    {
        let mut shapes: Vec<String> = Vec::new();
        for branch in union {
            let shape = describe(branch, root, depth + 1);
            if !shapes.contains(&shape) {
                shapes.push(shape);
            }
        }
        return shapes.join(" or ");
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if types.is_empty() {
        return "a value of the tool's schema".to_owned();
    }
    let shapes: Vec<String> = types
        .iter()
        .map(|kind| describe_type(kind, schema, root, depth))
        .collect();
    shapes.join(" or ")
}

fn describe_type(kind: &str, schema: &Value, root: &Value, depth: usize) -> String {
    let bound = |keyword: &str| schema.get(keyword).filter(|bound| bound.is_number());
    // An integer type's end written as a double (a 128-bit one: the double just past it,
    // see `crate::schema::TypeRange`) is said as the type's exact end, the range serde
    // enforces.
    let own = schema
        .get("format")
        .and_then(Value::as_str)
        .and_then(integer_range)
        .filter(|_| kind == "integer");
    let end = |keyword: &str| {
        let written = bound(keyword)?;
        let past = |at: f64| {
            written.as_number().is_some_and(|n| n.is_f64()) && {
                let value = written.as_f64().unwrap_or(f64::NAN);
                if keyword == "minimum" {
                    value <= at
                } else {
                    value >= at
                }
            }
        };
        Some(match own {
            Some(own) if keyword == "minimum" && past(own.min as f64) => own.min.to_string(),
            Some(own) if keyword == "maximum" && past(own.max as f64) => own.max.to_string(),
            _ => written.to_string(),
        })
    };
    let range = || {
        let minimum = end("minimum");
        let maximum = end("maximum");
        let mut range = match (minimum, maximum) {
            (Some(minimum), Some(maximum)) => format!(" from {minimum} to {maximum}"),
            (Some(minimum), None) => format!(" of at least {minimum}"),
            (None, Some(maximum)) => format!(" of at most {maximum}"),
            (None, None) => String::new(),
        };
        if let Some(above) = bound("exclusiveMinimum") {
            range.push_str(&format!(" greater than {above}"));
        }
        if let Some(below) = bound("exclusiveMaximum") {
            range.push_str(&format!(" less than {below}"));
        }
        if let Some(step) = bound("multipleOf") {
            range.push_str(&format!(" (a multiple of {step})"));
        }
        range
    };
    let count = |min: &str, max: &str, unit: &str| match (bound(min), bound(max)) {
        (Some(min), Some(max)) if min == max => format!(" of exactly {min} {unit}"),
        (Some(min), Some(max)) => format!(" of {min} to {max} {unit}"),
        (Some(min), None) => format!(" of at least {min} {unit}"),
        (None, Some(max)) => format!(" of at most {max} {unit}"),
        (None, None) => String::new(),
    };
    match kind {
        "integer" => format!("an integer{}", range()),
        "number" => format!("a number{}", range()),
        "boolean" => "true or false".to_owned(),
        "null" => "null".to_owned(),
        "string" => {
            let mut text = format!("a string{}", count("minLength", "maxLength", "characters"));
            if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
                text.push_str(&format!(" matching the pattern {pattern}"));
            }
            text
        }
        "array" => {
            let mut text = format!("an array{}", count("minItems", "maxItems", "items"));
            if let Some(items) = schema.get("items").filter(|items| items.is_object())
                && depth < 3
            {
                text.push_str(&format!(" of {}", describe(items, root, depth + 1)));
            }
            text
        }
        "object" => {
            let keys = property_names(schema, root);
            if keys.is_empty() {
                "an object".to_owned()
            } else {
                format!("an object with the keys {}", keys.join(", "))
            }
        }
        other => format!("a JSON {other}"),
    }
}

/// What was sent, briefly: a scalar as it is (a long string cut short), a container by
/// its kind.
pub(crate) fn got(value: &Value) -> String {
    match value {
        Value::Array(items) => format!("an array of {} items", items.len()),
        Value::Object(_) => "an object".to_owned(),
        Value::String(text) if text.chars().count() > 40 => {
            let head: String = text.chars().take(40).collect();
            format!(
                "{}...\" (a string of {} characters)",
                &Value::from(head).to_string().trim_end_matches('"'),
                text.chars().count()
            )
        }
        other => other.to_string(),
    }
}

/// serde_json appends " at line 1 column 17", which tells the model nothing useful.
pub(crate) fn without_position(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(at) => &message[..at],
        None => message,
    }
}
