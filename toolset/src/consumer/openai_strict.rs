//! OpenAI strict mode ("Structured Outputs" for function calling), shared by both OpenAI
//! consumers: rewriting a tool's schema into the subset strict mode accepts, and deciding
//! per tool whether that is possible ([`parameters`]).
//!
//! Chat Completions and Responses decide `strict` the same way: `true` with the strict
//! form of the schema when the tool's arguments can be expressed in strict mode's subset,
//! `false` with the plain schema (canonical, integer bounds added, object root) otherwise.
//!
//! Strict mode guarantees the model's arguments match the schema, but only for a subset
//! of JSON Schema (OpenAI, "Structured Outputs › Supported schemas"):
//! - the root is `type: "object"`, not an `anyOf`;
//! - every object has `additionalProperties: false` and lists every property in
//!   `required`; an optional property is one whose schema also accepts `null`;
//! - keywords: `type` (a string or an array of types), `properties`, `required`,
//!   `additionalProperties`, `items`, `anyOf`, `enum`, `$ref` (no siblings), `$defs`,
//!   `description`, `title`; strings `pattern` and `format` (date-time, time, date,
//!   duration, email, hostname, ipv4, ipv6, uuid); numbers `minimum`, `maximum`,
//!   `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`; arrays `minItems`, `maxItems`;
//! - at most 5000 properties, 10 levels of object nesting, 1000 enum values and 120 000
//!   characters of property names, definition names and enum values. A tool over these
//!   alone is not strict; a request's strict tools are held to them together when it is
//!   composed ([`super::strict_budget`]).
//!
//! The rewrite only ever makes the schema express the same set of arguments serde
//! accepts, minus what the model need not send:
//! - every property becomes required, `required` listing them in declared order. One
//!   serde may omit because it is an `Option<T>` already accepts `null` (serde reads
//!   `null` as `None`), so the model says "absent" with `null`. One that is optional
//!   through `#[serde(default)]` but refuses `null` (`Vec<T>`, `bool`, …) is *not* made
//!   nullable, since serde would refuse the `null`: it becomes required as it is, and its
//!   default, when the schema states one, is added to its description ("Default: []."),
//!   so the model sends that value to get it;
//! - `additionalProperties: false` is added to objects that lack it (the model need not
//!   send unknown keys); an object that accepts arbitrary keys (`HashMap`, a
//!   `serde_json::Map`) or any value (`serde_json::Value`) makes the tool not strict;
//! - `oneOf` becomes `anyOf`: schemars emits `oneOf` only for tagged enums, whose branches
//!   are mutually exclusive, so the two accept the same values;
//! - `const` becomes a one-value `enum` (schemars' [`ReplaceConstValue`]);
//! - a `$ref` with sibling annotations becomes `anyOf: [{"$ref"}]` beside them;
//! - annotations strict mode does not support (`default`, `examples`, `deprecated`, …)
//!   are dropped;
//! - constraints strict mode cannot express are never dropped silently: string lengths,
//!   `uniqueItems`, `min`/`maxProperties` and a `format` outside strict mode's list move
//!   into the description ("From 1 to 80 characters."), as defaults do. The gate still
//!   checks them against the canonical schema.
//!
//! [`why_not_strict`] says why a tool is not strict.
//!
//! A root union flattened for the consumers (see [`super::schema_adapt`]) is never strict:
//! requiring every branch's properties at once could force keys a variant refuses.
//!
//! Anything else outside the subset (`allOf`, `not`, tuples' `prefixItems`,
//! `patternProperties`, …) makes the tool not strict: it is rendered with `strict: false`
//! and its plain schema.

use super::schema_adapt::{
    admits_null, append_note, apply, consumer_schema, first_open_object, for_each_schema,
    ref_beside_annotations, strict_node, types_of,
};
use super::strict_budget::{StrictCost, StrictLimit};
use crate::spec::ToolSpec;
use schemars::transform::ReplaceConstValue;
use serde_json::{Map, Value};

/// The `format`s strict mode accepts.
const FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Keywords a strict schema node may carry.
const KEYWORDS: [&str; 20] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "$ref",
    "$defs",
    "description",
    "title",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

/// Annotations strict mode does not support, dropped on the way to strict.
const DROPPED: [&str; 10] = [
    "default",
    "examples",
    "example",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

/// Constraints strict mode cannot express, as (minimum, maximum, what is counted): each
/// pair is restated in the description as one note. serde does not enforce them either
/// (the gate checks them against the canonical schema), so the strict schema accepts
/// nothing the gate refuses for another reason; the note keeps the model told.
const RESTATED: [(&str, &str, &str); 2] = [
    ("minLength", "maxLength", "character"),
    ("minProperties", "maxProperties", "entry"),
];

const MAX_PROPERTIES: usize = 5000;
const MAX_NESTING: usize = 10;
const MAX_ENUM_VALUES: usize = 1000;
const MAX_STRING_CHARS: usize = 120_000;

/// The `parameters` of an OpenAI function, and whether they are strict; with `allow`
/// false never strict (a tool a request's budget took `strict` from).
pub(crate) fn parameters(spec: &ToolSpec, allow: bool) -> (Value, bool) {
    match allow.then(|| strict_parameters(spec)) {
        Some(Ok((strict, _))) => (strict, true),
        _ => (consumer_schema(spec.input_schema()), false),
    }
}

/// What the tool's strict form costs of a request's budget (its properties, enum values
/// and characters, see [`super::strict_budget`]), or `None` when it is not strict.
pub(crate) fn cost(spec: &ToolSpec) -> Option<StrictCost> {
    strict_parameters(spec).ok().map(|(_, cost)| cost)
}

/// The strict `parameters` of a tool and their cost, or why it cannot be strict.
fn strict_parameters(spec: &ToolSpec) -> Result<(Value, StrictCost), String> {
    let canonical = spec.input_schema();
    // A root union flattened into one object is looser than the arguments; requiring all
    // of its properties could force keys a variant refuses.
    if canonical.get("type").and_then(Value::as_str) != Some("object") {
        return Err(
            "the arguments are a union of shapes (an `#[args]` enum), flattened into one \
                    object whose properties strict mode would make all required"
                .into(),
        );
    }
    let strict = strict_schema(&consumer_schema(canonical))?;
    let cost = check(&strict)?;
    Ok((strict, cost))
}

/// Why OpenAI strict mode is off for `spec`, or `None` when its tool is rendered with
/// `strict: true`.
///
/// Both OpenAI consumers (Chat Completions and Responses) decide alike, so one answer
/// holds for both. The reason names the construct strict mode cannot express and, where
/// there is one, its place in the schema (`#/properties/labels`):
///
/// ```
/// use toolset::prelude::*;
/// use toolset::{tool, toolset};
/// use toolset::consumer::openai_chat;
/// use std::collections::HashMap;
///
/// /// Label an item.
/// #[tool(tier = "reversible")]
/// async fn label(labels: HashMap<String, String>) {}
///
/// toolset! { Tools = [label]; }
///
/// let why = openai_chat::why_not_strict(&Tools::specs()[0]).expect("a map is not strict");
/// assert!(why.contains("#/properties/labels"), "{why}");
/// ```
pub fn why_not_strict(spec: &ToolSpec) -> Option<String> {
    strict_parameters(spec).err()
}

/// The strict form of a tool's (consumer) schema, or why the tool cannot be strict.
pub(crate) fn strict_schema(schema: &Value) -> Result<Value, String> {
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err("the root is not `type: \"object\"`".into());
    }
    if let Some(path) = first_open_object(schema, "#") {
        return Err(format!(
            "{path}: an object with arbitrary keys (a map), which strict mode cannot express"
        ));
    }
    let snapshot = schema.clone();
    let mut strict = schema.clone();
    let mut problem = None;
    for_each_schema(&mut strict, |map| {
        for key in DROPPED {
            map.shift_remove(key);
        }
        restate_constraints(map);
        if !map.contains_key("anyOf")
            && let Some(branches) = map.shift_remove("oneOf")
        {
            map.insert("anyOf".into(), branches);
        }
        ref_beside_annotations(map);
        let is_object = types_of(map).contains(&"object") || map.contains_key("properties");
        if is_object && let Err(why) = close_object(map, &snapshot) {
            problem.get_or_insert(why);
        }
    });
    if let Some(problem) = problem {
        return Err(problem);
    }
    apply(&mut strict, ReplaceConstValue::default());
    check(&strict)?;
    Ok(strict)
}

/// Moves the constraints strict mode cannot express ([`RESTATED`], `uniqueItems`) and a `format` it does
/// not support into the node's description, so the model still reads them.
fn restate_constraints(map: &mut Map<String, Value>) {
    let mut notes = Vec::new();
    for (min_key, max_key, unit) in RESTATED {
        let min = map.shift_remove(min_key).and_then(|value| value.as_u64());
        let max = map.shift_remove(max_key).and_then(|value| value.as_u64());
        let counted = |n: u64| match (n, unit) {
            (1, _) => format!("1 {unit}"),
            (_, "entry") => format!("{n} entries"),
            _ => format!("{n} {unit}s"),
        };
        let note = match (min, max) {
            (Some(min), Some(max)) if min == max => format!("Exactly {}.", counted(max)),
            (Some(min), Some(max)) => format!("From {min} to {}.", counted(max)),
            (Some(min), None) => format!("At least {}.", counted(min)),
            (None, Some(max)) => format!("At most {}.", counted(max)),
            (None, None) => continue,
        };
        notes.push(note);
    }
    if map.shift_remove("uniqueItems") == Some(Value::Bool(true)) {
        notes.push("Items must be unique.".to_owned());
    }
    if let Some(format) = map.get("format").and_then(Value::as_str)
        && !FORMATS.contains(&format)
    {
        notes.push(format!("Format: {format}."));
        map.shift_remove("format");
    }
    if !notes.is_empty() {
        append_note(map, &notes.join(" "));
    }
}

/// Closes an object schema: `additionalProperties: false`, every property required, in
/// the properties' declared order. An error when that would accept something serde
/// refuses.
fn close_object(map: &mut Map<String, Value>, root: &Value) -> Result<(), String> {
    match map.get("additionalProperties") {
        None => {
            map.insert("additionalProperties".into(), false.into());
        }
        Some(Value::Bool(false)) => {}
        // Found by `first_open_object` first; kept so this function is right on its own.
        Some(_) => return Err("an object with arbitrary keys (a map)".into()),
    }
    let required: Vec<String> = match map.get("required") {
        Some(Value::Array(required)) => required
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        None => Vec::new(),
        Some(_) => return Err("`required` is not an array".into()),
    };
    let properties = match map.entry("properties").or_insert_with(|| Map::new().into()) {
        Value::Object(properties) => properties,
        _ => return Err("`properties` is not an object".into()),
    };
    for (name, schema) in properties.iter_mut() {
        if required.contains(name) {
            continue;
        }
        // Optional through a serde default, not through `Option`: required as it is; the
        // model sends the default to get it.
        if !admits_null(schema, root)
            && let Value::Object(schema) = schema
            && let Some(default) = schema.get("default")
        {
            let note = format!("Default: {default}.");
            append_note(schema, &note);
        }
    }
    let all: Vec<Value> = properties.keys().map(|name| name.as_str().into()).collect();
    map.insert("required".into(), Value::Array(all));
    Ok(())
}

/// Why `schema` is outside the strict subset, if it is, or what it costs of a request's
/// budget: one strict tool, its properties, enum values and characters of names and enum
/// values (the same totals its own limits are checked on).
pub(crate) fn check(schema: &Value) -> Result<StrictCost, String> {
    let root = schema
        .as_object()
        .ok_or("the root is not an object schema")?;
    if root.get("type").and_then(Value::as_str) != Some("object") {
        return Err("the root is not `type: \"object\"`".into());
    }
    if root.contains_key("anyOf") {
        return Err("the root is an `anyOf`".into());
    }
    let mut totals = Totals::default();
    check_node(schema, schema, "#", true, &mut totals)?;
    if let Some(defs) = root.get("$defs") {
        let defs = defs.as_object().ok_or("`$defs` is not an object")?;
        for (name, def) in defs {
            totals.strings += name.chars().count();
            check_node(def, schema, &format!("#/$defs/{name}"), false, &mut totals)?;
        }
    }
    if totals.properties > MAX_PROPERTIES {
        return Err(format!(
            "{} properties (at most {MAX_PROPERTIES})",
            totals.properties
        ));
    }
    if totals.enum_values > MAX_ENUM_VALUES {
        return Err(format!(
            "{} enum values (at most {MAX_ENUM_VALUES})",
            totals.enum_values
        ));
    }
    if totals.strings > MAX_STRING_CHARS {
        return Err(format!(
            "{} characters of names and enum values",
            totals.strings
        ));
    }
    let depth = nesting(schema, schema, &mut Vec::new());
    if depth > MAX_NESTING {
        return Err(format!("{depth} levels of nesting (at most {MAX_NESTING})"));
    }
    Ok(StrictCost::tool()
        .with(StrictLimit::Properties, totals.properties)
        .with(StrictLimit::EnumValues, totals.enum_values)
        .with(StrictLimit::Characters, totals.strings))
}

#[derive(Default)]
struct Totals {
    properties: usize,
    enum_values: usize,
    strings: usize,
}

fn check_node(
    node: &Value,
    root: &Value,
    path: &str,
    is_root: bool,
    totals: &mut Totals,
) -> Result<(), String> {
    let Some((map, types)) = strict_node(node, root, path, is_root, &KEYWORDS, |reference| {
        reference == "#" || reference.starts_with("#/$defs/")
    })?
    else {
        return Ok(());
    };
    if types.is_empty() && !map.contains_key("anyOf") && !map.contains_key("enum") {
        return Err(format!("{path}: a schema without `type` (any value)"));
    }
    if let Some(format) = map.get("format")
        && !format
            .as_str()
            .is_some_and(|format| FORMATS.contains(&format))
    {
        return Err(format!("{path}: unsupported format {format}"));
    }
    if let Some(values) = map.get("enum") {
        let values = values
            .as_array()
            .ok_or_else(|| format!("{path}: `enum` is not an array"))?;
        totals.enum_values += values.len();
        totals.strings += values
            .iter()
            .filter_map(Value::as_str)
            .map(|value| value.chars().count())
            .sum::<usize>();
    }
    if types.contains(&"object") || map.contains_key("properties") {
        if map.get("additionalProperties") != Some(&Value::Bool(false)) {
            return Err(format!(
                "{path}: an object without `additionalProperties: false`"
            ));
        }
        let properties = map
            .get("properties")
            .and_then(Value::as_object)
            .ok_or_else(|| format!("{path}: an object without `properties`"))?;
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{path}: an object without `required`"))?
            .iter()
            .filter_map(Value::as_str)
            .collect();
        for (name, property) in properties {
            if !required.contains(&name.as_str()) {
                return Err(format!("{path}: property `{name}` is not required"));
            }
            totals.properties += 1;
            totals.strings += name.chars().count();
            check_node(
                property,
                root,
                &format!("{path}/properties/{name}"),
                false,
                totals,
            )?;
        }
        if required.len() != properties.len() {
            return Err(format!("{path}: `required` names a property not declared"));
        }
    } else if map.contains_key("additionalProperties") || map.contains_key("required") {
        return Err(format!("{path}: object keywords on a non-object schema"));
    }
    if let Some(items) = map.get("items") {
        check_node(items, root, &format!("{path}/items"), false, totals)?;
    }
    if let Some(branches) = map.get("anyOf") {
        let branches = branches
            .as_array()
            .filter(|branches| !branches.is_empty())
            .ok_or_else(|| format!("{path}: `anyOf` is not a non-empty array"))?;
        for (index, branch) in branches.iter().enumerate() {
            check_node(
                branch,
                root,
                &format!("{path}/anyOf/{index}"),
                false,
                totals,
            )?;
        }
    }
    Ok(())
}

/// The deepest object nesting under `node`, following `$ref`s but not into a definition
/// already being expanded (recursion is allowed and does not count).
fn nesting<'a>(node: &'a Value, root: &'a Value, expanding: &mut Vec<&'a str>) -> usize {
    let Some(map) = node.as_object() else {
        return 0;
    };
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        if expanding.contains(&reference) {
            return 0;
        }
        let Some(target) = super::schema_adapt::resolve(root, reference) else {
            return 0;
        };
        expanding.push(reference);
        let depth = nesting(target, root, expanding);
        expanding.pop();
        return depth;
    }
    let mut deepest = 0;
    if let Some(properties) = map.get("properties").and_then(Value::as_object) {
        for property in properties.values() {
            deepest = deepest.max(nesting(property, root, expanding));
        }
    }
    if let Some(items) = map.get("items") {
        deepest = deepest.max(nesting(items, root, expanding));
    }
    if let Some(branches) = map.get("anyOf").and_then(Value::as_array) {
        for branch in branches {
            deepest = deepest.max(nesting(branch, root, expanding));
        }
    }
    let own = usize::from(types_of(map).contains(&"object") || map.contains_key("properties"));
    deepest + own
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn options_become_required_and_stay_nullable() {
        let schema = json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "query": {"type": "string"},
                "limit": {"type": ["integer", "null"], "format": "uint32", "minimum": 0},
            },
            "required": ["query"],
        });
        let strict = strict_schema(&schema).expect("an Option is strict-able");
        assert_eq!(strict["required"], json!(["query", "limit"]));
        assert_eq!(
            strict["properties"]["limit"]["type"],
            json!(["integer", "null"])
        );
        assert!(strict["properties"]["limit"].get("format").is_none());
        assert!(check(&strict).is_ok());
    }

    #[test]
    fn a_defaulted_field_that_refuses_null_becomes_required_as_it_is() {
        let schema = json!({
            "type": "object",
            "properties": {"tags": {"type": "array", "items": {"type": "string"}, "default": []}},
        });
        let strict = strict_schema(&schema).expect("strict-able");
        assert_eq!(strict["required"], json!(["tags"]));
        assert_eq!(
            strict["properties"]["tags"],
            json!({"type": "array", "items": {"type": "string"}, "description": "Default: []."})
        );
    }

    #[test]
    fn maps_and_any_values_are_not_strict() {
        let map = json!({
            "type": "object",
            "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}},
            "required": ["m"],
        });
        let why = strict_schema(&map).expect_err("a map is not strict");
        assert!(why.starts_with("#/properties/m:"), "{why}");
        let any = json!({
            "type": "object",
            "properties": {"v": {"description": "anything"}},
            "required": ["v"],
        });
        let why = strict_schema(&any).expect_err("any value is not strict");
        assert!(why.contains("#/properties/v"), "{why}");
    }

    #[test]
    fn refs_with_descriptions_and_tagged_unions_are_rewritten() {
        let schema = json!({
            "$defs": {"E": {"oneOf": [
                {"type": "string", "const": "a", "description": "A."},
                {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]},
            ]}},
            "type": "object",
            "properties": {"e": {"$ref": "#/$defs/E", "description": "An E."}},
            "required": ["e"],
        });
        let strict = strict_schema(&schema).expect("strict-able");
        assert_eq!(
            strict["properties"]["e"],
            json!({"anyOf": [{"$ref": "#/$defs/E"}], "description": "An E."})
        );
        let branches = &strict["$defs"]["E"]["anyOf"];
        assert_eq!(branches[0]["enum"], json!(["a"]));
        assert_eq!(branches[1]["additionalProperties"], json!(false));
    }

    #[test]
    fn constraints_strict_mode_cannot_express_move_into_the_description() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1, "maxLength": 80, "description": "Who."},
                "site": {"type": "string", "format": "uri"},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
            },
            "required": ["name", "site", "tags"],
        });
        let strict = strict_schema(&schema).expect("strict-able");
        let properties = &strict["properties"];
        assert_eq!(
            properties["name"],
            json!({"type": "string", "description": "Who. From 1 to 80 characters."})
        );
        assert_eq!(
            properties["site"],
            json!({"type": "string", "description": "Format: uri."})
        );
        assert_eq!(properties["tags"]["description"], "Items must be unique.");
        assert!(check(&strict).is_ok());
    }

    #[test]
    fn required_follows_the_declared_order() {
        let schema = json!({
            "type": "object",
            "properties": {"b": {"type": "string"}, "a": {"type": ["string", "null"]}, "c": {"type": "string"}},
            "required": ["c", "b"],
        });
        let strict = strict_schema(&schema).expect("strict-able");
        assert_eq!(strict["required"], json!(["b", "a", "c"]));
    }

    #[test]
    fn nesting_beyond_the_limit_is_not_strict() {
        let mut schema = json!({"type": "string"});
        for _ in 0..11 {
            schema = json!({
                "type": "object",
                "additionalProperties": false,
                "properties": {"x": schema},
                "required": ["x"],
            });
        }
        assert!(check(&schema).is_err());
        let why = strict_schema(&schema).expect_err("too deep");
        assert!(why.contains("nesting"), "{why}");
    }
}
