//! Anthropic strict tool use: which tools are rendered with `strict: true`, and the strict
//! form of their `input_schema` ([`input_schema`], [`why_not_strict`]).
//!
//! With `strict: true` Anthropic constrains the model's tool input to the schema by
//! grammar, but only for a subset of JSON Schema (Anthropic, "Structured outputs › JSON
//! Schema limitations", and the `anthropic` SDK's `transform_schema`):
//! - types `object`, `array`, `string`, `integer`, `number`, `boolean`, `null`, one or an
//!   array of them; `enum` and `const` of primitive values; `anyOf`; local `$ref` into the
//!   root's `$defs`, alone;
//! - every object has `additionalProperties: false`; `properties` and `required` (a
//!   property left out of `required` is optional, unlike OpenAI's strict mode);
//! - `items`, and `minItems` of 0 or 1 only; `format` only `date-time`, `time`, `date`,
//!   `duration`, `email`, `hostname`, `uri`, `ipv4`, `ipv6`, `uuid`; `description`, `title`;
//! - no numeric bounds (`minimum`, `maximum`, `multipleOf`, …), no string lengths, no
//!   recursive schemas;
//! - per request, at most 20 strict tools, 24 optional parameters and 16 parameters with
//!   a union type: applied when a request is composed ([`crate::consumer::strict_budget`]);
//!   a tool that exceeds them alone is never strict.
//!
//! The strict form rewrites the tool's schema (the one the other JSON consumers read) the
//! way the SDK does, and only so:
//! - `additionalProperties: false` is added to objects that lack it (the model need not
//!   send unknown keys); an object with arbitrary keys (a map) or any value makes the tool
//!   not strict;
//! - `oneOf` becomes `anyOf` (schemars emits `oneOf` only for tagged enums, whose branches
//!   are mutually exclusive, so the two accept the same values);
//! - a `$ref` keeps no sibling keywords: one with a description or title becomes
//!   `anyOf: [{"$ref"}]` beside them (as OpenAI's strict form does), so a documented
//!   parameter whose type is an enum or a struct keeps its description (the SDK's
//!   transform drops it); the one-branch `anyOf` counts as a union in the budget;
//! - constraints strict mode cannot express move into the description ("From 0 to 255.",
//!   "Pattern: ^[a-z]+$.", "Default: 10."), never silently: the gate still checks them
//!   against the canonical schema, so a value the grammar lets through and the gate
//!   refuses is answered with the gate's message, as without strict;
//! - annotations strict mode does not support (`examples`, `deprecated`, …) are dropped.
//!
//! Whatever is left is checked against the subset, failing closed: a keyword the check
//! does not know makes the tool not strict. A root union flattened into one object (see
//! [`crate::consumer::schema_adapt`]) is never strict, as for OpenAI.

use crate::consumer::Format;
use crate::consumer::schema_adapt::{
    append_note, consumer_schema, first_open_object, for_each_schema, ref_beside_annotations,
    resolve, strict_node, types_of,
};
use crate::consumer::strict_budget::{StrictCost, StrictLimit};
use crate::spec::ToolSpec;
use serde_json::{Map, Value};

/// The `format`s Anthropic's strict mode accepts.
const FORMATS: [&str; 10] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Keywords a strict schema node may carry (`$defs` at the root only).
const KEYWORDS: [&str; 14] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "anyOf",
    "enum",
    "const",
    "$ref",
    "$defs",
    "description",
    "title",
    "format",
];

/// Annotations strict mode does not support, dropped on the way to strict (`default` is
/// restated instead).
const DROPPED: [&str; 9] = [
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

/// The `input_schema` of an Anthropic tool, and what its strict form costs of a request's
/// budget: the strict form with `Some` when the tool can be strict, the schema every JSON
/// consumer reads with `None` otherwise.
pub(crate) fn input_schema(spec: &ToolSpec) -> (Value, Option<StrictCost>) {
    match strict_input_schema(spec) {
        Ok((schema, cost)) => (schema, Some(cost)),
        Err(_) => (consumer_schema(spec.input_schema()), None),
    }
}

/// What the tool's strict form costs, or `None` when it is not strict.
pub(crate) fn cost(spec: &ToolSpec) -> Option<StrictCost> {
    strict_input_schema(spec).ok().map(|(_, cost)| cost)
}

/// Why Anthropic strict tool use is off for `spec`, or `None` when its tool is rendered
/// with `strict: true` (unless a request's budget takes it away: see
/// [`Request::strict_downgrades`](crate::request::Request::strict_downgrades)).
///
/// The reason names the construct strict mode cannot express and, where there is one,
/// its place in the schema:
///
/// ```
/// use toolset::prelude::*;
/// use toolset::{tool, toolset};
/// use toolset::consumer::anthropic;
/// use std::collections::HashMap;
///
/// /// Label an item.
/// #[tool(tier = "reversible")]
/// async fn label(labels: HashMap<String, String>) {}
///
/// /// Rename an item.
/// #[tool(tier = "reversible")]
/// async fn rename(/// The new name.
///     name: String, /// Its position.
///     position: Option<u32>) {}
///
/// toolset! { Tools = [label, rename]; }
///
/// let why = anthropic::why_not_strict(&Tools::specs()[0]).expect("a map is not strict");
/// assert!(why.contains("#/properties/labels"), "{why}");
/// assert_eq!(anthropic::why_not_strict(&Tools::specs()[1]), None);
/// assert_eq!(anthropic::tool(&Tools::specs()[1])["strict"], true);
/// ```
pub fn why_not_strict(spec: &ToolSpec) -> Option<String> {
    strict_input_schema(spec).err()
}

/// The strict `input_schema` of a tool and its cost, or why it cannot be strict.
fn strict_input_schema(spec: &ToolSpec) -> Result<(Value, StrictCost), String> {
    let canonical = spec.input_schema();
    if canonical.get("type").and_then(Value::as_str) != Some("object") {
        return Err(
            "the arguments are a union of shapes (an `#[args]` enum), flattened into one \
             object looser than the arguments"
                .into(),
        );
    }
    let strict = strict_schema(&consumer_schema(canonical))?;
    let cost = check(&strict)?;
    if let Some((limit, max)) = cost.exceeds(Format::Anthropic) {
        return Err(format!(
            "{} {limit}, more than the {max} Anthropic allows in one request",
            cost.of(limit)
        ));
    }
    Ok((strict, cost))
}

/// The strict form of a tool's (consumer) schema, or why the tool cannot be strict. The
/// result is not yet [`check`]ed.
pub(crate) fn strict_schema(schema: &Value) -> Result<Value, String> {
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err("the root is not `type: \"object\"`".into());
    }
    if let Some(path) = first_open_object(schema, "#") {
        return Err(format!(
            "{path}: an object with arbitrary keys (a map), which strict mode cannot express"
        ));
    }
    let mut strict = schema.clone();
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
        if map.contains_key("$ref") {
            // What strict mode cannot say beside a `$ref` is in the description by now;
            // the description and title stay, beside the reference (as for OpenAI).
            map.retain(|key, _| matches!(key.as_str(), "$ref" | "description" | "title"));
            ref_beside_annotations(map);
        }
        let is_object = types_of(map).contains(&"object") || map.contains_key("properties");
        if is_object && !map.contains_key("additionalProperties") {
            map.insert("additionalProperties".into(), false.into());
        }
    });
    Ok(strict)
}

/// A number as the description writes it.
fn number(value: &Value) -> Option<String> {
    value.is_number().then(|| value.to_string())
}

/// Moves what strict mode cannot express into the node's description, one note each:
/// numeric bounds, lengths, item and entry counts beyond `minItems` 0 or 1, `uniqueItems`,
/// `pattern`, a `format` outside [`FORMATS`], and `default`.
fn restate_constraints(map: &mut Map<String, Value>) {
    let mut notes = Vec::new();
    let take = |map: &mut Map<String, Value>, key: &str| map.shift_remove(key);
    // Numbers: inclusive bounds as one note, exclusive ones and multiples on their own.
    let minimum = take(map, "minimum");
    let maximum = take(map, "maximum");
    match (
        minimum.as_ref().and_then(number),
        maximum.as_ref().and_then(number),
    ) {
        (Some(min), Some(max)) => notes.push(format!("From {min} to {max}.")),
        (Some(min), None) => notes.push(format!("At least {min}.")),
        (None, Some(max)) => notes.push(format!("At most {max}.")),
        (None, None) => {}
    }
    if let Some(min) = take(map, "exclusiveMinimum").as_ref().and_then(number) {
        notes.push(format!("Greater than {min}."));
    }
    if let Some(max) = take(map, "exclusiveMaximum").as_ref().and_then(number) {
        notes.push(format!("Less than {max}."));
    }
    if let Some(step) = take(map, "multipleOf").as_ref().and_then(number) {
        notes.push(format!("A multiple of {step}."));
    }
    // Counts: characters, items (but `minItems` 0 or 1, which strict mode keeps), entries.
    let min_items = map.get("minItems").and_then(Value::as_u64);
    let min_items = match min_items {
        Some(0 | 1) => None,
        _ => take(map, "minItems").and_then(|value| value.as_u64()),
    };
    let counts = [
        (take(map, "minLength"), take(map, "maxLength"), "character"),
        (min_items.map(Value::from), take(map, "maxItems"), "item"),
        (
            take(map, "minProperties"),
            take(map, "maxProperties"),
            "entry",
        ),
    ];
    for (min, max, unit) in counts {
        let min = min.and_then(|value| value.as_u64());
        let max = max.and_then(|value| value.as_u64());
        let counted = |n: u64| match (n, unit) {
            (1, _) => format!("1 {unit}"),
            (_, "entry") => format!("{n} entries"),
            _ => format!("{n} {unit}s"),
        };
        match (min, max) {
            (Some(min), Some(max)) if min == max => {
                notes.push(format!("Exactly {}.", counted(max)))
            }
            (Some(min), Some(max)) => notes.push(format!("From {min} to {}.", counted(max))),
            (Some(min), None) => notes.push(format!("At least {}.", counted(min))),
            (None, Some(max)) => notes.push(format!("At most {}.", counted(max))),
            (None, None) => {}
        }
    }
    if take(map, "uniqueItems") == Some(Value::Bool(true)) {
        notes.push("Items must be unique.".to_owned());
    }
    if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
        notes.push(format!("Pattern: {pattern}."));
    }
    take(map, "pattern");
    if let Some(format) = map.get("format").and_then(Value::as_str)
        && !FORMATS.contains(&format)
    {
        notes.push(format!("Format: {format}."));
        take(map, "format");
    }
    if let Some(default) = take(map, "default") {
        notes.push(format!("Default: {default}."));
    }
    if !notes.is_empty() {
        append_note(map, &notes.join(" "));
    }
}

/// Why `schema` is outside Anthropic's strict subset, or what it costs of a request's
/// budget: one strict tool, its optional parameters (properties not in `required`, at any
/// depth, `$defs` included) and its parameters with a union type (every schema with
/// `anyOf` or a `type` array), counted as written. Fails closed: a keyword it does not
/// know is outside the subset.
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
    let mut counts = Counts::default();
    check_node(schema, schema, "#", true, &mut counts)?;
    if let Some(defs) = root.get("$defs") {
        let defs = defs.as_object().ok_or("`$defs` is not an object")?;
        for (name, def) in defs {
            check_node(def, schema, &format!("#/$defs/{name}"), false, &mut counts)?;
        }
    }
    if let Some(path) = recursion(schema, schema, &mut Vec::new()) {
        return Err(format!(
            "{path}: a recursive schema, which strict mode cannot express"
        ));
    }
    Ok(StrictCost::tool()
        .with(StrictLimit::OptionalParameters, counts.optional)
        .with(StrictLimit::UnionParameters, counts.unions))
}

#[derive(Default)]
struct Counts {
    optional: usize,
    unions: usize,
}

fn check_node(
    node: &Value,
    root: &Value,
    path: &str,
    is_root: bool,
    counts: &mut Counts,
) -> Result<(), String> {
    let Some((map, types)) = strict_node(node, root, path, is_root, &KEYWORDS, |reference| {
        reference.starts_with("#/$defs/")
    })?
    else {
        return Ok(());
    };
    if types.len() > 1 || map.contains_key("anyOf") {
        counts.unions += 1;
    }
    let literal = map.contains_key("enum") || map.contains_key("const");
    if types.is_empty() && !map.contains_key("anyOf") && !literal {
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
            .filter(|values| !values.is_empty())
            .ok_or_else(|| format!("{path}: `enum` is not a non-empty array"))?;
        if !values.iter().all(is_primitive) {
            return Err(format!("{path}: an `enum` value that is not a primitive"));
        }
    }
    if let Some(value) = map.get("const")
        && !is_primitive(value)
    {
        return Err(format!("{path}: a `const` that is not a primitive"));
    }
    if let Some(min_items) = map.get("minItems")
        && !matches!(min_items.as_u64(), Some(0 | 1))
    {
        return Err(format!("{path}: `minItems` other than 0 or 1"));
    }
    if types.contains(&"object") || map.contains_key("properties") {
        if map.get("additionalProperties") != Some(&Value::Bool(false)) {
            return Err(format!(
                "{path}: an object without `additionalProperties: false`"
            ));
        }
        let empty = Map::new();
        let properties = match map.get("properties") {
            None => &empty,
            Some(Value::Object(properties)) => properties,
            Some(_) => return Err(format!("{path}: `properties` is not an object")),
        };
        let required: Vec<&str> = match map.get("required") {
            None => Vec::new(),
            Some(Value::Array(required)) => required
                .iter()
                .map(|name| {
                    name.as_str()
                        .ok_or_else(|| format!("{path}: `required` holds a non-string"))
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(format!("{path}: `required` is not an array")),
        };
        if let Some(name) = required
            .iter()
            .find(|name| !properties.contains_key(**name))
        {
            return Err(format!("{path}: `required` names `{name}`, not a property"));
        }
        for (name, property) in properties {
            if !required.contains(&name.as_str()) {
                counts.optional += 1;
            }
            check_node(
                property,
                root,
                &format!("{path}/properties/{name}"),
                false,
                counts,
            )?;
        }
    } else if map.contains_key("additionalProperties") || map.contains_key("required") {
        return Err(format!("{path}: object keywords on a non-object schema"));
    }
    if let Some(items) = map.get("items") {
        check_node(items, root, &format!("{path}/items"), false, counts)?;
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
                counts,
            )?;
        }
    }
    Ok(())
}

fn is_primitive(value: &Value) -> bool {
    !matches!(value, Value::Array(_) | Value::Object(_))
}

/// The first `$ref` under `node` that leads back into a definition being expanded (a
/// recursive schema), or `None`.
fn recursion<'a>(node: &'a Value, root: &'a Value, expanding: &mut Vec<&'a str>) -> Option<String> {
    let map = node.as_object()?;
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        if expanding.contains(&reference) {
            return Some(reference.to_owned());
        }
        let target = resolve(root, reference)?;
        expanding.push(reference);
        let found = recursion(target, root, expanding);
        expanding.pop();
        return found;
    }
    let children = map
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|properties| properties.values())
        .chain(map.get("items"))
        .chain(
            map.get("anyOf")
                .and_then(Value::as_array)
                .into_iter()
                .flatten(),
        );
    for child in children {
        if let Some(found) = recursion(child, root, expanding) {
            return Some(found);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn strict(schema: Value) -> Result<(Value, StrictCost), String> {
        let strict = strict_schema(&schema)?;
        let cost = check(&strict)?;
        Ok((strict, cost))
    }

    #[test]
    fn options_stay_optional_and_count_as_optional_unions() {
        let (schema, cost) = strict(json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "query": {"type": "string"},
                "limit": {"type": ["integer", "null"], "minimum": 0, "maximum": 4294967295u32},
            },
            "required": ["query"],
        }))
        .expect("strict");
        assert_eq!(schema["required"], json!(["query"]));
        assert_eq!(
            schema["properties"]["limit"],
            json!({"type": ["integer", "null"], "description": "From 0 to 4294967295."})
        );
        assert_eq!(cost.of(StrictLimit::Tools), 1);
        assert_eq!(cost.of(StrictLimit::OptionalParameters), 1);
        assert_eq!(cost.of(StrictLimit::UnionParameters), 1);
    }

    #[test]
    fn constraints_move_into_the_description_and_objects_close() {
        let (schema, cost) = strict(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1, "maxLength": 80, "pattern": "^[a-z]+$"},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2, "uniqueItems": true},
                "some": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "site": {"type": "string", "format": "uri"},
                "id": {"type": "string", "format": "iri"},
                "page": {"type": "integer", "default": 1, "exclusiveMinimum": 0},
                "inner": {"type": "object", "properties": {"x": {"type": "boolean"}}, "required": ["x"]},
            },
            "required": ["name", "tags", "some", "site", "id", "inner"],
        }))
        .expect("strict");
        let properties = &schema["properties"];
        assert_eq!(
            properties["name"],
            json!({"type": "string", "description": "From 1 to 80 characters. Pattern: ^[a-z]+$."})
        );
        assert_eq!(
            properties["tags"]["description"],
            "At least 2 items. Items must be unique."
        );
        assert!(properties["tags"].get("minItems").is_none());
        assert_eq!(properties["some"]["minItems"], 1);
        assert_eq!(properties["site"]["format"], "uri");
        assert_eq!(
            properties["id"],
            json!({"type": "string", "description": "Format: iri."})
        );
        assert_eq!(
            properties["page"],
            json!({"type": "integer", "description": "Greater than 0. Default: 1."})
        );
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(properties["inner"]["additionalProperties"], false);
        assert_eq!(cost.of(StrictLimit::OptionalParameters), 1);
        assert_eq!(cost.of(StrictLimit::UnionParameters), 0);
    }

    #[test]
    fn tagged_unions_and_refs_are_rewritten_the_sdk_way() {
        let (schema, cost) = strict(json!({
            "type": "object",
            "properties": {"e": {"$ref": "#/$defs/E", "description": "An E."}},
            "required": ["e"],
            "$defs": {"E": {"oneOf": [
                {"type": "string", "const": "a"},
                {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]},
            ]}},
        }))
        .expect("strict");
        // The description stays, beside the reference.
        assert_eq!(
            schema["properties"]["e"],
            json!({"anyOf": [{"$ref": "#/$defs/E"}], "description": "An E."})
        );
        let branches = &schema["$defs"]["E"]["anyOf"];
        assert_eq!(branches[0]["const"], "a");
        assert_eq!(branches[1]["additionalProperties"], false);
        assert_eq!(cost.of(StrictLimit::UnionParameters), 2);
    }

    #[test]
    fn outside_the_subset_is_not_strict() {
        let cases = [
            (
                json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}}}),
                "#/properties/m: an object with arbitrary keys",
            ),
            (
                json!({"type": "object", "properties": {"v": {"description": "anything"}}}),
                "#/properties/v: a schema without `type`",
            ),
            (
                json!({"type": "object", "properties": {"t": {"type": "array", "prefixItems": [{"type": "string"}]}}}),
                "#/properties/t: unsupported keyword `prefixItems`",
            ),
            (
                json!({"type": "object", "properties": {"a": {"allOf": [{"type": "string"}]}}}),
                "#/properties/a: unsupported keyword `allOf`",
            ),
            (
                json!({"type": "object", "properties": {"x": {"type": "string", "x-custom": 1}}}),
                "#/properties/x: unsupported keyword `x-custom`",
            ),
            (
                json!({"type": "object", "properties": {"e": {"enum": [[1], 2]}}}),
                "#/properties/e: an `enum` value that is not a primitive",
            ),
            (
                json!({
                    "type": "object",
                    "properties": {"n": {"$ref": "#/$defs/Node"}},
                    "$defs": {"Node": {"type": "object", "properties": {
                        "next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}}}},
                }),
                "#/$defs/Node: a recursive schema",
            ),
        ];
        for (schema, expected) in cases {
            let why = strict(schema.clone()).expect_err("not strict");
            assert!(why.starts_with(expected), "{schema}: {why}");
        }
        // Not strict-able at all: the root.
        assert!(strict(json!({"type": "string"})).is_err());
        assert!(check(&json!({"type": "object", "properties": {}})).is_err());
    }

    #[test]
    fn a_tool_over_the_request_budget_alone_is_not_strict() {
        let properties: Map<String, Value> = (0..25)
            .map(|n| (format!("p{n}"), json!({"type": "string"})))
            .collect();
        let (_, cost) =
            strict(json!({"type": "object", "properties": properties})).expect("strict");
        assert_eq!(
            cost.exceeds(Format::Anthropic),
            Some((StrictLimit::OptionalParameters, 24))
        );
    }
}
