//! Anthropic's strict tool use rules, written from its documentation ("Structured outputs ›
//! JSON Schema limitations", "Strict tool use") independently of the renderer: shared by
//! `render_rules.rs` (every tool) and `strict_budget.rs` (every composed list).

#![allow(dead_code)]

use serde_json::{Value, json};

fn is_object_root(schema: &Value) -> bool {
    schema.get("type") == Some(&json!("object"))
        && !["oneOf", "anyOf", "allOf", "not", "enum"]
            .iter()
            .any(|key| schema.get(*key).is_some())
}

/// At most this many strict tools, optional parameters and parameters with a union type
/// across one request's strict tools.
pub const MAX_STRICT_TOOLS: usize = 20;
pub const MAX_OPTIONAL: usize = 24;
pub const MAX_UNIONS: usize = 16;

/// Keywords Anthropic's strict tool use accepts ("Structured outputs › JSON Schema
/// limitations"; the SDK's `transform_schema` keeps these and moves the rest into the
/// description).
const ANTHROPIC_STRICT_KEYWORDS: &[&str] = &[
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

const ANTHROPIC_STRICT_FORMATS: &[&str] = &[
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

/// Every violation of Anthropic's strict rules in `schema`, and its (optional parameters,
/// parameters with a union type).
pub fn anthropic_strict_violations(schema: &Value) -> (Vec<String>, (usize, usize)) {
    fn walk(node: &Value, path: &str, found: &mut Vec<String>, counts: &mut (usize, usize)) {
        let Some(map) = node.as_object() else {
            found.push(format!("{path}: boolean schema"));
            return;
        };
        for key in map.keys() {
            if !ANTHROPIC_STRICT_KEYWORDS.contains(&key.as_str()) {
                found.push(format!("{path}: keyword `{key}` is not supported"));
            }
        }
        if map.contains_key("$ref") && map.len() != 1 {
            found.push(format!("{path}: `$ref` must stand alone"));
        }
        if let Some(format) = map.get("format").and_then(Value::as_str)
            && !ANTHROPIC_STRICT_FORMATS.contains(&format)
        {
            found.push(format!("{path}: format `{format}`"));
        }
        if let Some(min) = map.get("minItems")
            && min != &json!(0)
            && min != &json!(1)
        {
            found.push(format!("{path}: minItems {min}"));
        }
        for key in ["enum", "const"] {
            let values = match map.get(key) {
                Some(Value::Array(values)) if key == "enum" => values.clone(),
                Some(value) => vec![value.clone()],
                None => continue,
            };
            if values
                .iter()
                .any(|value| value.is_array() || value.is_object())
            {
                found.push(format!("{path}: `{key}` of a non-primitive"));
            }
        }
        let types = match map.get("type") {
            Some(Value::Array(types)) => types.len(),
            Some(_) => 1,
            None => 0,
        };
        if types > 1 || map.contains_key("anyOf") {
            counts.1 += 1;
        }
        let is_object = map.get("type") == Some(&json!("object")) || map.contains_key("properties");
        if is_object && map.get("additionalProperties") != Some(&json!(false)) {
            found.push(format!(
                "{path}: object without `additionalProperties: false`"
            ));
        }
        if let Some(Value::Object(properties)) = map.get("properties") {
            let required = map.get("required").and_then(Value::as_array);
            for (name, property) in properties {
                if !required.is_some_and(|required| required.contains(&json!(name))) {
                    counts.0 += 1;
                }
                walk(
                    property,
                    &format!("{path}/properties/{name}"),
                    found,
                    counts,
                );
            }
        }
        if let Some(items) = map.get("items") {
            walk(items, &format!("{path}/items"), found, counts);
        }
        if let Some(Value::Array(branches)) = map.get("anyOf") {
            for (index, branch) in branches.iter().enumerate() {
                walk(branch, &format!("{path}/anyOf/{index}"), found, counts);
            }
        }
        if path != "#" && map.contains_key("$defs") {
            found.push(format!("{path}: `$defs` below the root"));
        }
    }
    let mut found = Vec::new();
    let mut counts = (0, 0);
    if !is_object_root(schema) {
        found.push("root must be `type: object` and not a union".to_owned());
    }
    walk(schema, "#", &mut found, &mut counts);
    if let Some(Value::Object(defs)) = schema.get("$defs") {
        for (name, def) in defs {
            walk(def, &format!("#/$defs/{name}"), &mut found, &mut counts);
        }
    }
    if counts.0 > MAX_OPTIONAL || counts.1 > MAX_UNIONS {
        found.push(format!("over a request's budget alone: {counts:?}"));
    }
    (found, counts)
}
