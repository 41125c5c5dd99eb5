//! Every renderer, every tool: the output obeys its consumer's published rules, and every
//! JSON Schema emitted is valid JSON Schema 2020-12 according to the `jsonschema` crate.
//!
//! The checkers here are written independently of the renderers (they share no code with
//! `toolset::render`), from each consumer's documentation:
//! - names: `^[A-Za-z_][A-Za-z0-9_-]{0,63}$` (OpenAI, Anthropic, Gemini, MCP all accept it);
//! - OpenAI strict mode ("Structured Outputs › Supported schemas"): object root that is not
//!   an `anyOf`; every object closed and fully required; only supported keywords and
//!   formats; `$ref` alone and local; size limits;
//! - Anthropic strict tool use ("Structured outputs › JSON Schema limitations"): objects
//!   closed, only supported keywords and formats, `minItems` 0 or 1, primitive enums,
//!   within one request's budget alone;
//! - Gemini (`Schema` of the Developer API, an OpenAPI 3.0 subset): only its fields, one
//!   `type` (never an array), no `$ref`/`$defs`, `properties` only on non-empty objects,
//!   `items` on every array, string-only `enum`, `format` only where Gemini reads it;
//! - MCP (`Tool` of the 2025-06-18 schema): object `inputSchema`, object `outputSchema`
//!   when present, no `$schema`, annotations matching the tier.

mod anthropic_strict_rules;
mod render_corpus;

use anthropic_strict_rules::anthropic_strict_violations;
use render_corpus::{Awkward, Corpus};
use serde_json::{Map, Value, json};
use toolset::consumer::{Format, tool_value};
use toolset::prelude::*;
use toolset::{DynamicTool, Tier, ToolSpec, Toolbox};
use toolset_tests::InboxTools;

fn all_specs() -> Vec<&'static ToolSpec> {
    Corpus::specs()
        .iter()
        .chain(Awkward::specs())
        .chain(InboxTools::specs())
        .collect()
}

fn spec(name: &str) -> &'static ToolSpec {
    Corpus::spec(name).expect("the corpus declares the tool")
}

fn awkward(name: &str) -> &'static ToolSpec {
    Awkward::spec(name).expect("the awkward set declares the tool")
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    (first.is_ascii_alphabetic() || first == '_')
        && name.len() <= 64
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `jsonschema` as the oracle: the schema is valid against the 2020-12 meta-schema and
/// compiles (every `$ref` resolves).
fn assert_valid_2020_12(schema: &Value, what: &str) {
    if let Err(error) = jsonschema::draft202012::meta::validate(schema) {
        panic!("{what}: not valid JSON Schema 2020-12: {error}\n{schema:#}");
    }
    if let Err(error) = jsonschema::draft202012::new(schema) {
        panic!("{what}: does not compile: {error}\n{schema:#}");
    }
}

fn obj<'a>(value: &'a Value, what: &str) -> &'a Map<String, Value> {
    value
        .as_object()
        .unwrap_or_else(|| panic!("{what}: not an object: {value}"))
}

fn is_object_root(schema: &Value) -> bool {
    schema.get("type") == Some(&json!("object"))
        && !["oneOf", "anyOf", "allOf", "not", "enum"]
            .iter()
            .any(|key| schema.get(*key).is_some())
}

// ----------------------------------------------------------------------------------------
// OpenAI strict mode
// ----------------------------------------------------------------------------------------

const STRICT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
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

const STRICT_FORMATS: &[&str] = &[
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

const JSON_TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// Every violation of OpenAI's strict-mode rules in `schema`.
fn strict_violations(schema: &Value) -> Vec<String> {
    let mut found = Vec::new();
    if !is_object_root(schema) {
        found.push("root must be `type: object` and not a union".to_owned());
    }
    let mut stats = (0usize, 0usize); // (properties, enum values)
    walk_strict(schema, schema, "#", &mut found, &mut stats);
    if let Some(defs) = schema.get("$defs") {
        match defs.as_object() {
            Some(defs) => {
                for (name, def) in defs {
                    walk_strict(
                        def,
                        schema,
                        &format!("#/$defs/{name}"),
                        &mut found,
                        &mut stats,
                    );
                }
            }
            None => found.push("`$defs` must be an object".into()),
        }
    }
    if stats.0 > 5000 {
        found.push(format!("{} properties > 5000", stats.0));
    }
    if stats.1 > 1000 {
        found.push(format!("{} enum values > 1000", stats.1));
    }
    let depth = object_depth(schema, schema, &mut Vec::new());
    if depth > 10 {
        found.push(format!("nesting depth {depth} > 10"));
    }
    found
}

fn walk_strict(
    node: &Value,
    root: &Value,
    path: &str,
    found: &mut Vec<String>,
    stats: &mut (usize, usize),
) {
    let Some(map) = node.as_object() else {
        found.push(format!("{path}: boolean schema"));
        return;
    };
    for key in map.keys() {
        if !STRICT_KEYWORDS.contains(&key.as_str()) {
            found.push(format!("{path}: keyword `{key}` is not supported"));
        }
    }
    let nested =
        path.contains("/properties/") || path.contains("/items") || path.contains("/anyOf/");
    if nested && map.contains_key("$defs") {
        found.push(format!("{path}: `$defs` must be at the root"));
    }
    if let Some(reference) = map.get("$ref") {
        if map.len() != 1 {
            found.push(format!("{path}: `$ref` must stand alone"));
        }
        let target = reference
            .as_str()
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|pointer| {
                if pointer.is_empty() {
                    Some(root)
                } else {
                    root.pointer(pointer)
                }
            });
        if target.is_none() {
            found.push(format!(
                "{path}: `$ref` {reference} must be local and resolve"
            ));
        }
        return;
    }
    let types: Vec<&str> = match map.get("type") {
        None => Vec::new(),
        Some(Value::String(ty)) => vec![ty.as_str()],
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
        Some(other) => {
            found.push(format!("{path}: bad type {other}"));
            Vec::new()
        }
    };
    for ty in &types {
        if !JSON_TYPES.contains(ty) {
            found.push(format!("{path}: unknown type {ty}"));
        }
    }
    if types.is_empty()
        && !map.contains_key("anyOf")
        && !map.contains_key("enum")
        && !map.contains_key("const")
    {
        found.push(format!("{path}: no type: an unconstrained value"));
    }
    if let Some(format) = map.get("format").and_then(Value::as_str)
        && !STRICT_FORMATS.contains(&format)
    {
        found.push(format!("{path}: format {format} is not supported"));
    }
    if let Some(values) = map.get("enum").and_then(Value::as_array) {
        stats.1 += values.len();
    }
    let objectish = types.contains(&"object") || map.contains_key("properties");
    if objectish {
        if map.get("additionalProperties") != Some(&Value::Bool(false)) {
            found.push(format!(
                "{path}: object must set additionalProperties: false"
            ));
        }
        let properties = map.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        match properties {
            None => found.push(format!("{path}: object must list properties")),
            Some(properties) => {
                let mut names: Vec<&str> = properties.keys().map(String::as_str).collect();
                let mut listed = required.clone();
                names.sort_unstable();
                listed.sort_unstable();
                if names != listed {
                    found.push(format!(
                        "{path}: required {listed:?} must be exactly the properties {names:?}"
                    ));
                }
                for (name, property) in properties {
                    stats.0 += 1;
                    walk_strict(
                        property,
                        root,
                        &format!("{path}/properties/{name}"),
                        found,
                        stats,
                    );
                }
            }
        }
    }
    if let Some(items) = map.get("items") {
        walk_strict(items, root, &format!("{path}/items"), found, stats);
    }
    if let Some(branches) = map.get("anyOf") {
        match branches.as_array() {
            Some(branches) if !branches.is_empty() => {
                for (i, branch) in branches.iter().enumerate() {
                    walk_strict(branch, root, &format!("{path}/anyOf/{i}"), found, stats);
                }
            }
            _ => found.push(format!("{path}: anyOf must be a non-empty array")),
        }
    }
}

fn object_depth<'a>(node: &'a Value, root: &'a Value, seen: &mut Vec<&'a str>) -> usize {
    let Some(map) = node.as_object() else {
        return 0;
    };
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        if seen.contains(&reference) {
            return 0;
        }
        let Some(target) = reference
            .strip_prefix("#/$defs/")
            .and_then(|name| root.get("$defs")?.get(name))
        else {
            return 0;
        };
        seen.push(reference);
        let depth = object_depth(target, root, seen);
        seen.pop();
        return depth;
    }
    let children = map
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.values())
        .chain(map.get("items"))
        .chain(
            map.get("anyOf")
                .and_then(Value::as_array)
                .into_iter()
                .flatten(),
        );
    let below = children
        .map(|child| object_depth(child, root, seen))
        .max()
        .unwrap_or(0);
    below + usize::from(map.contains_key("properties"))
}

// ----------------------------------------------------------------------------------------
// Gemini
// ----------------------------------------------------------------------------------------

const GEMINI_FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// Every violation of Gemini's `Schema` rules in `schema`.
fn gemini_violations(schema: &Value, path: &str, found: &mut Vec<String>) {
    let Some(map) = schema.as_object() else {
        found.push(format!("{path}: not an object"));
        return;
    };
    for key in map.keys() {
        if !GEMINI_FIELDS.contains(&key.as_str()) {
            found.push(format!("{path}: `{key}` is not a Gemini Schema field"));
        }
    }
    let ty = match map.get("type") {
        Some(Value::String(ty)) => {
            if !JSON_TYPES.contains(&ty.as_str()) {
                found.push(format!("{path}: unknown type {ty}"));
            }
            Some(ty.as_str())
        }
        Some(other) => {
            found.push(format!("{path}: type must be one string, not {other}"));
            None
        }
        None => {
            if !map.contains_key("anyOf") {
                found.push(format!("{path}: type must be set unless anyOf is"));
            }
            None
        }
    };
    if let Some(nullable) = map.get("nullable")
        && !nullable.is_boolean()
    {
        found.push(format!("{path}: nullable must be a boolean"));
    }
    if let Some(values) = map.get("enum") {
        let strings = values
            .as_array()
            .is_some_and(|v| !v.is_empty() && v.iter().all(Value::is_string));
        if ty != Some("string") || !strings {
            found.push(format!(
                "{path}: enum only as non-empty strings on type string"
            ));
        }
    }
    if let Some(format) = map.get("format") {
        let ok = matches!(
            (ty, format.as_str()),
            (Some("integer"), Some("int32" | "int64"))
                | (Some("number"), Some("float" | "double"))
                | (Some("string"), Some("enum" | "date-time"))
        );
        if !ok {
            found.push(format!("{path}: format {format} on type {ty:?}"));
        }
    }
    for bound in ["minimum", "maximum"] {
        if let Some(value) = map.get(bound) {
            if !matches!(ty, Some("integer" | "number")) || !value.is_number() {
                found.push(format!("{path}: {bound} only as a number on numeric types"));
            }
            // Gemini holds a bound as a double: an integer bound past 2^53 would be
            // rounded; a number's bound (an f32's ±f32::MAX) is a double already.
            if ty == Some("integer")
                && value
                    .as_f64()
                    .is_some_and(|v| v.abs() > 9_007_199_254_740_992.0)
            {
                found.push(format!("{path}: {bound} is not exact as a double"));
            }
        }
    }
    match (ty, map.get("items")) {
        (Some("array"), Some(items)) => gemini_violations(items, &format!("{path}.items"), found),
        (Some("array"), None) => found.push(format!("{path}: an array needs items")),
        (_, Some(_)) => found.push(format!("{path}: items only on arrays")),
        _ => {}
    }
    match map.get("properties") {
        Some(Value::Object(properties)) => {
            if ty != Some("object") {
                found.push(format!("{path}: properties only on objects"));
            }
            if properties.is_empty() {
                found.push(format!("{path}: properties must be non-empty"));
            }
            for (name, property) in properties {
                gemini_violations(property, &format!("{path}.properties[{name}]"), found);
            }
            if let Some(required) = map.get("required") {
                let ok = required.as_array().is_some_and(|r| {
                    r.iter()
                        .all(|name| name.as_str().is_some_and(|n| properties.contains_key(n)))
                });
                if !ok {
                    found.push(format!("{path}: required must name declared properties"));
                }
            }
        }
        Some(_) => found.push(format!("{path}: properties must be an object")),
        None => {
            if map.contains_key("required") {
                found.push(format!("{path}: required without properties"));
            }
        }
    }
    if let Some(branches) = map.get("anyOf") {
        match branches.as_array() {
            Some(branches) if !branches.is_empty() => {
                for (i, branch) in branches.iter().enumerate() {
                    gemini_violations(branch, &format!("{path}.anyOf[{i}]"), found);
                }
            }
            _ => found.push(format!("{path}: anyOf must be a non-empty array")),
        }
    }
}

fn contains_key_anywhere(value: &Value, key: &str) -> bool {
    match value {
        Value::Object(map) => {
            map.contains_key(key) || map.values().any(|v| contains_key_anywhere(v, key))
        }
        Value::Array(items) => items.iter().any(|v| contains_key_anywhere(v, key)),
        _ => false,
    }
}

// ----------------------------------------------------------------------------------------
// The tests
// ----------------------------------------------------------------------------------------

#[test]
fn canonical_schemas_are_valid_2020_12() {
    for spec in all_specs() {
        assert_valid_2020_12(spec.input_schema(), &format!("{} input", spec.name()));
        if let Some(output) = spec.output_schema() {
            assert_valid_2020_12(output, &format!("{} output", spec.name()));
        }
    }
}

#[test]
fn every_name_fits_every_consumer() {
    for spec in all_specs() {
        assert!(valid_name(spec.name()), "{}", spec.name());
        for format in Format::ALL.into_iter().filter(|f| f.is_json()) {
            let tool = tool_value(spec, format);
            let name = match format {
                Format::OpenAiChat => &tool["function"]["name"],
                _ => &tool["name"],
            };
            assert_eq!(name, spec.name(), "{format}");
        }
    }
}

#[test]
fn openai_tools_follow_the_function_shape_and_strict_rules() {
    for spec in all_specs() {
        let chat = tool_value(spec, Format::OpenAiChat);
        let responses = tool_value(spec, Format::OpenAiResponses);
        let what = spec.name();

        let mut chat_keys: Vec<&String> = obj(&chat, what).keys().collect();
        chat_keys.sort_unstable();
        assert_eq!(chat_keys, ["function", "type"], "{what}");
        assert_eq!(chat["type"], "function");
        let function = obj(&chat["function"], what);
        let mut keys: Vec<&str> = function.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            ["description", "name", "parameters", "strict"],
            "{what}"
        );
        assert_eq!(function["description"], spec.description());

        let mut keys: Vec<&str> = obj(&responses, what).keys().map(String::as_str).collect();
        keys.sort_unstable();
        // `output_schema` exactly for a structured result (`Json<T>`), of any root; Chat
        // Completions has no such field.
        let mut expected = vec!["description", "name", "parameters", "strict", "type"];
        if let Some(output) = spec.output_schema() {
            expected.insert(2, "output_schema");
            let rendered = &responses["output_schema"];
            assert!(!contains_key_anywhere(rendered, "$schema"), "{what}");
            assert_valid_2020_12(rendered, &format!("{what} openai output_schema"));
            if output["type"] == "object" {
                let mcp = tool_value(spec, Format::Mcp);
                assert_eq!(rendered, &mcp["outputSchema"], "{what}: MCP's schema");
            }
        }
        // `async: true` exactly for a tool with a late result; Chat Completions has no such
        // field.
        if spec.has_late_result() {
            expected.push("async");
            expected.sort_unstable();
            assert_eq!(responses["async"], true, "{what}");
        }
        assert_eq!(keys, expected, "{what}");
        assert_eq!(responses["type"], "function");
        // The two APIs get the same decision and the same schema.
        assert_eq!(responses["strict"], function["strict"], "{what}");
        assert_eq!(responses["parameters"], function["parameters"], "{what}");

        let parameters = &responses["parameters"];
        assert!(is_object_root(parameters), "{what}: {parameters}");
        assert!(
            parameters.get("properties").is_some(),
            "{what}: OpenAI wants properties"
        );
        assert!(!contains_key_anywhere(parameters, "$schema"), "{what}");
        assert_valid_2020_12(parameters, &format!("{what} openai parameters"));
        match responses["strict"].as_bool() {
            Some(true) => {
                let violations = strict_violations(parameters);
                assert!(
                    violations.is_empty(),
                    "{what}: {violations:#?}\n{parameters:#}"
                );
            }
            Some(false) => {
                // Not strict: the plain schema, and there is a reason it could not be.
                assert!(
                    !strict_violations(parameters).is_empty(),
                    "{what} could be strict"
                );
            }
            None => panic!("{what}: strict must be a boolean"),
        }
    }
}

#[test]
fn strict_is_decided_per_tool() {
    let strict = |name: &str| tool_value(spec(name), Format::OpenAiResponses)["strict"].clone();
    for name in [
        "lookup",
        "move_item",
        "set_priority",
        "apply_edits",
        "bulk-tag",
        "outline",
        "ping",
        "schedule",
        "wire_funds",
    ] {
        assert_eq!(strict(name), true, "{name} should be strict");
    }
    // A HashMap and a serde_json::Value; a flattened root union.
    for name in ["annotate", "find"] {
        assert_eq!(strict(name), false, "{name} should not be strict");
    }
    // A #[serde(default)] Vec is required as it is (null would not parse), its default
    // stated in the description; `required` lists the arguments in declared order.
    let schedule = tool_value(spec("schedule"), Format::OpenAiResponses);
    let attendees = &schedule["parameters"]["properties"]["attendees"];
    assert_eq!(attendees["type"], "array");
    assert!(
        attendees["description"]
            .as_str()
            .is_some_and(|d| d.ends_with("Default: []."))
    );
    // In declared order, as every list of arguments is.
    assert_eq!(
        schedule["parameters"]["required"],
        json!(["title", "starts_at", "attendees"])
    );
    let lookup = tool_value(spec("lookup"), Format::OpenAiResponses);
    assert_eq!(lookup["parameters"]["required"], json!(["query", "limit"]));

    // What strict mode cannot express is restated in the description, never dropped.
    let tune = tool_value(awkward("tune"), Format::OpenAiResponses);
    assert_eq!(tune["strict"], true);
    let properties = &tune["parameters"]["properties"];
    assert_eq!(
        properties["name"]["description"],
        "A name of 1 to 40 characters. From 1 to 40 characters."
    );
    assert!(properties["name"].get("minLength").is_none());
    assert_eq!(
        properties["labels"]["description"],
        "Distinct labels, at most five. Items must be unique."
    );
    assert_eq!(properties["labels"]["maxItems"], 5);
    // And why a tool is not strict is a question with an answer.
    for (spec, reason) in [
        (spec("annotate"), "#/properties/labels"),
        (spec("find"), "union of shapes"),
        (awkward("configure"), "#/properties/counters"),
    ] {
        let why = toolset::consumer::openai_responses::why_not_strict(spec);
        assert!(
            why.as_deref().is_some_and(|why| why.contains(reason)),
            "{}: {why:?}",
            spec.name()
        );
        assert_eq!(why, toolset::consumer::openai_chat::why_not_strict(spec));
    }
    for spec in all_specs() {
        let strict = tool_value(spec, Format::OpenAiResponses)["strict"] == true;
        let why = toolset::consumer::openai_chat::why_not_strict(spec);
        assert_eq!(strict, why.is_none(), "{}: {why:?}", spec.name());
    }
    assert_eq!(
        lookup["parameters"]["properties"]["limit"]["type"],
        json!(["integer", "null"])
    );
}

// ----------------------------------------------------------------------------------------
// Anthropic strict tool use
// ----------------------------------------------------------------------------------------

#[test]
fn anthropic_tools_carry_an_object_input_schema() {
    let mut strict_tools = 0;
    for spec in all_specs() {
        let tool = tool_value(spec, Format::Anthropic);
        let what = spec.name();
        let mut keys: Vec<&str> = obj(&tool, what).keys().map(String::as_str).collect();
        keys.sort_unstable();
        // Examples, where the tool has them, are the spec's own; the keys are judged
        // without them below.
        if !spec.examples().is_empty() {
            assert_eq!(
                tool["input_examples"].as_array().map(Vec::as_slice),
                Some(spec.examples()),
                "{what}"
            );
            keys.retain(|key| *key != "input_examples");
        }
        let schema = &tool["input_schema"];
        assert!(is_object_root(schema), "{what}: {schema}");
        assert!(!contains_key_anywhere(schema, "$schema"), "{what}");
        assert_valid_2020_12(schema, &format!("{what} anthropic input_schema"));
        let why = toolset::consumer::anthropic::why_not_strict(spec);
        if tool.get("strict").is_some() {
            // Strict: the key is `true`, and the schema keeps every rule of the subset.
            assert_eq!(
                keys,
                ["description", "input_schema", "name", "strict"],
                "{what}"
            );
            assert_eq!(tool["strict"], true, "{what}");
            assert_eq!(why, None, "{what}");
            let (violations, _) = anthropic_strict_violations(schema);
            assert!(violations.is_empty(), "{what}: {violations:?}\n{schema:#}");
            strict_tools += 1;
        } else {
            // Not strict: the schema every JSON consumer reads, and a reason.
            assert_eq!(keys, ["description", "input_schema", "name"], "{what}");
            assert!(why.is_some(), "{what}: not strict without a reason");
            assert_eq!(
                schema,
                &tool_value(spec, Format::Mcp)["inputSchema"],
                "{what}"
            );
        }
    }
    assert!(strict_tools > 10, "only {strict_tools} strict tools");
}

#[test]
fn anthropic_strict_violations_are_found() {
    let bad = [
        json!({"type": "object", "properties": {"a": {"type": "string"}}}),
        json!({"type": "object", "additionalProperties": false,
               "properties": {"a": {"type": "integer", "minimum": 0}}}),
        json!({"type": "object", "additionalProperties": false,
               "properties": {"a": {"type": "string", "format": "iri"}}}),
        json!({"type": "object", "additionalProperties": false,
               "properties": {"a": {"type": "array", "items": {"type": "string"}, "minItems": 2}}}),
    ];
    for schema in bad {
        assert!(
            !anthropic_strict_violations(&schema).0.is_empty(),
            "{schema}"
        );
    }
}

#[test]
fn gemini_declarations_stay_in_the_openapi_subset() {
    for spec in all_specs() {
        let tool = tool_value(spec, Format::Gemini);
        let what = spec.name();
        for key in obj(&tool, what).keys() {
            assert!(
                ["name", "description", "parameters", "parametersJsonSchema"]
                    .contains(&key.as_str()),
                "{what}: {key}"
            );
        }
        if let Some(json_schema) = tool.get("parametersJsonSchema") {
            // Only for arguments the `Schema` subset cannot say, and then the JSON Schema
            // the other consumers get, which says them exactly.
            assert!(tool.get("parameters").is_none(), "{what}: both");
            let why = toolset::consumer::gemini::why_parameters_json_schema(spec);
            assert!(why.is_some(), "{what}: no reason");
            let mcp = tool_value(spec, Format::Mcp);
            assert_eq!(json_schema, &mcp["inputSchema"], "{what}");
            assert_valid_2020_12(json_schema, &format!("{what} gemini parametersJsonSchema"));
            continue;
        }
        assert_eq!(
            toolset::consumer::gemini::why_parameters_json_schema(spec),
            None,
            "{what}"
        );
        let Some(parameters) = tool.get("parameters") else {
            // Only a tool without arguments may leave them out.
            let canonical = spec.input_schema();
            let none = canonical
                .get("properties")
                .and_then(Value::as_object)
                .is_none_or(Map::is_empty);
            assert!(none, "{what} has arguments but no parameters");
            continue;
        };
        assert_eq!(parameters["type"], "object", "{what}");
        let mut found = Vec::new();
        gemini_violations(parameters, "parameters", &mut found);
        assert!(found.is_empty(), "{what}: {found:#?}\n{parameters:#}");
        for banned in [
            "$ref",
            "$defs",
            "$schema",
            "additionalProperties",
            "const",
            "oneOf",
        ] {
            assert!(
                !contains_key_anywhere(parameters, banned),
                "{what}: {banned}"
            );
        }
    }
    assert!(
        tool_value(spec("ping"), Format::Gemini)
            .get("parameters")
            .is_none()
    );
}

#[test]
fn gemini_rewrites_options_enums_and_recursion() {
    let lookup = tool_value(spec("lookup"), Format::Gemini);
    assert_eq!(
        lookup["parameters"]["properties"]["limit"],
        json!({
            "type": "integer", "format": "int64", "minimum": 0, "maximum": 4294967295u32,
            "nullable": true, "description": "At most this many hits."
        })
    );
    let priority = tool_value(spec("set_priority"), Format::Gemini);
    let after = &priority["parameters"]["properties"]["after"];
    assert_eq!(after["type"], "string");
    assert_eq!(after["enum"], json!(["low", "normal", "high"]));
    assert_eq!(after["nullable"], true);

    // A recursive tree, a map and any JSON value are more than the `Schema` subset can
    // say: those tools carry JSON Schema, with `$defs` for the tree.
    for (name, reason) in [("outline", "recursive"), ("annotate", "map")] {
        let tool = tool_value(spec(name), Format::Gemini);
        assert!(tool.get("parameters").is_none(), "{name}");
        assert!(tool["parametersJsonSchema"].is_object(), "{name}");
        let why = toolset::consumer::gemini::why_parameters_json_schema(spec(name));
        assert!(why.is_some_and(|why| why.contains(reason)), "{name}");
    }
    let outline = tool_value(spec("outline"), Format::Gemini);
    assert!(outline["parametersJsonSchema"]["$defs"]["Node"].is_object());
    // Declared order survives Gemini's map of properties.
    assert_eq!(
        lookup["parameters"]["propertyOrdering"],
        json!(["query", "limit"])
    );
}

#[test]
fn mcp_tools_follow_the_tool_schema_and_tiers() {
    for spec in all_specs() {
        let tool = tool_value(spec, Format::Mcp);
        let what = spec.name();
        for key in obj(&tool, what).keys() {
            assert!(
                [
                    "name",
                    "title",
                    "description",
                    "inputSchema",
                    "outputSchema",
                    "annotations"
                ]
                .contains(&key.as_str()),
                "{what}: {key}"
            );
        }
        assert!(!contains_key_anywhere(&tool, "$schema"), "{what}");
        let input = &tool["inputSchema"];
        assert!(is_object_root(input), "{what}: {input}");
        assert_valid_2020_12(input, &format!("{what} mcp inputSchema"));
        match tool.get("outputSchema") {
            Some(output) => {
                assert_eq!(output["type"], "object", "{what}");
                assert!(spec.output_schema().is_some(), "{what}");
                assert_valid_2020_12(output, &format!("{what} mcp outputSchema"));
            }
            None => {
                let object_output = spec
                    .output_schema()
                    .is_some_and(|schema| schema["type"] == "object");
                assert!(!object_output, "{what} lost its object output schema");
            }
        }
        assert_eq!(
            tool.get("title").and_then(Value::as_str),
            spec.title(),
            "{what}"
        );

        let annotations = obj(&tool["annotations"], what);
        let hint = |key: &str| annotations.get(key).and_then(Value::as_bool);
        match spec.tier() {
            Tier::ReadOnly => assert_eq!(hint("readOnlyHint"), Some(true), "{what}"),
            Tier::Reversible => {
                assert_eq!(hint("readOnlyHint"), Some(false), "{what}");
                assert_eq!(hint("destructiveHint"), Some(false), "{what}");
                assert_ne!(hint("openWorldHint"), Some(true), "{what}");
            }
            Tier::ExternalReversible => {
                assert_eq!(hint("readOnlyHint"), Some(false), "{what}");
                assert_eq!(hint("destructiveHint"), Some(false), "{what}");
                assert_eq!(hint("openWorldHint"), Some(true), "{what}");
            }
            Tier::Irreversible => {
                assert_eq!(hint("readOnlyHint"), Some(false), "{what}");
                assert_eq!(hint("destructiveHint"), Some(true), "{what}");
            }
        }
        assert_eq!(hint("idempotentHint"), Some(spec.is_idempotent()), "{what}");
        assert_eq!(
            annotations.get("title").and_then(Value::as_str),
            spec.title(),
            "{what}"
        );
    }
    // `Json<OutlineSummary>` is an object: it has an output schema. `Json<Vec<String>>` is
    // not: MCP could not carry it as structuredContent, so there is none.
    assert!(
        tool_value(spec("outline"), Format::Mcp)
            .get("outputSchema")
            .is_some()
    );
    assert!(spec("lookup").output_schema().is_some());
    assert!(
        tool_value(spec("lookup"), Format::Mcp)
            .get("outputSchema")
            .is_none()
    );
}

#[test]
fn prompt_text_names_every_tool_tier_and_argument() {
    for spec in all_specs() {
        let text = tool_value(spec, Format::Prompt);
        let text = text.as_str().expect("prompt text is a string");
        let what = spec.name();
        assert!(text.starts_with(&format!("## {}", spec.name())), "{text}");
        assert!(text.contains(spec.tier().as_str()), "{what}: tier");
        assert!(
            text.contains(spec.description().trim()),
            "{what}: description"
        );
        for name in spec
            .input_schema()
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(Map::keys)
        {
            assert!(
                text.contains(&format!("- {name} (")),
                "{what}: argument {name}\n{text}"
            );
        }
        assert!(
            !text.contains("$ref") && !text.contains("$defs"),
            "{what}\n{text}"
        );
    }
    let text = tool_value(spec("move_item"), Format::Prompt);
    let expected = "## move_item\n\
        Tier: reversible.\n\
        Move an item somewhere else.\n\
        Arguments:\n\
        - id (integer, required): The item to move.\n\
        - target (Location, required): Where to.\n\
        Types:\n\
        - Location = {folder: string, position?: Position | null}: Where an item lives.\n\
        \x20 - folder: The folder's name.\n\
        \x20 - position: A position inside the folder, if it matters.\n\
        - Position = {row: integer, col: integer}: A cell in a grid.\n\
        \x20 - row: Zero-based row.\n\
        \x20 - col: Zero-based column.";
    assert_eq!(text, expected);
    let ping = tool_value(spec("ping"), Format::Prompt);
    assert!(
        ping.as_str()
            .is_some_and(|t| t.ends_with("Arguments: none."))
    );
    let wire = tool_value(spec("wire_funds"), Format::Prompt);
    assert!(wire.as_str().is_some_and(|t| t.contains("Propose only")));
}

#[test]
fn every_list_is_a_json_array_of_the_tool_objects() {
    let specs: Vec<&ToolSpec> = all_specs();
    for format in Format::ALL {
        let rendered = toolset::consumer::render_specs(&specs, format);
        if format.is_json() {
            let parsed: Value = serde_json::from_str(&rendered).expect("valid JSON");
            let expected: Vec<Value> = specs.iter().map(|s| tool_value(s, format)).collect();
            assert_eq!(parsed, Value::Array(expected), "{format}");
        } else {
            for spec in &specs {
                assert!(
                    rendered.contains(&format!("## {}", spec.name())),
                    "{format}"
                );
            }
        }
    }
}

#[test]
fn the_checkers_catch_what_they_claim_to() {
    let closed = |properties: Value, required: Value| {
        json!({"type": "object", "additionalProperties": false,
               "properties": properties, "required": required})
    };
    assert!(strict_violations(&closed(json!({"a": {"type": "string"}}), json!(["a"]))).is_empty());
    let bad_strict = [
        json!({"type": "object", "properties": {}}),
        closed(json!({"a": {"type": "string"}}), json!([])),
        closed(
            json!({"a": {"type": "string", "minLength": 1}}),
            json!(["a"]),
        ),
        closed(
            json!({"a": {"type": "integer", "format": "uint32"}}),
            json!(["a"]),
        ),
        closed(json!({"a": {"description": "anything"}}), json!(["a"])),
        closed(json!({"a": true}), json!(["a"])),
        closed(json!({"a": {"oneOf": [{"type": "string"}]}}), json!(["a"])),
        json!({"$defs": {"X": {"type": "string"}}, "type": "object", "additionalProperties": false,
               "properties": {"a": {"$ref": "#/$defs/X", "description": "d"}}, "required": ["a"]}),
        json!({"anyOf": [closed(json!({}), json!([]))]}),
    ];
    for schema in bad_strict {
        assert!(!strict_violations(&schema).is_empty(), "{schema}");
    }
    let mut deep = json!({"type": "string"});
    for _ in 0..11 {
        deep = closed(json!({"x": deep}), json!(["x"]));
    }
    assert!(!strict_violations(&deep).is_empty());

    let gemini = |schema: Value| {
        let mut found = Vec::new();
        gemini_violations(&schema, "p", &mut found);
        found
    };
    assert!(gemini(json!({"type": "object", "properties": {"a": {"type": "string"}}})).is_empty());
    let bad_gemini = [
        json!({"type": ["string", "null"]}),
        json!({"$ref": "#/$defs/X"}),
        json!({"type": "object", "properties": {}}),
        json!({"type": "integer", "enum": [1, 2]}),
        json!({"type": "array"}),
        json!({"type": "string", "format": "uuid"}),
        json!({"type": "object", "additionalProperties": false}),
        json!({"description": "no type"}),
        json!({"type": "string", "properties": {"a": {"type": "string"}}}),
    ];
    for schema in bad_gemini {
        assert!(!gemini(schema.clone()).is_empty(), "{schema}");
    }
}

#[test]
fn the_json_schema_consumers_share_one_schema() {
    // MCP, Anthropic and OpenAI (when not strict) read the same JSON Schema, so the
    // differential test's verdicts on one hold for all three.
    for spec in all_specs() {
        let mcp = tool_value(spec, Format::Mcp)["inputSchema"].clone();
        let anthropic = tool_value(spec, Format::Anthropic);
        if anthropic.get("strict").is_none() {
            assert_eq!(anthropic["input_schema"], mcp, "{}", spec.name());
        }
        let openai = tool_value(spec, Format::OpenAiResponses);
        if openai["strict"] == false {
            assert_eq!(openai["parameters"], mcp, "{}", spec.name());
        }
    }
}

#[test]
fn every_schema_lists_the_arguments_in_declared_order() {
    let names = |schema: &Value| -> Vec<String> {
        schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|properties| properties.keys().cloned().collect())
            .unwrap_or_default()
    };
    // Declared `title, starts_at, attendees`: neither sorted nor required-first.
    assert_eq!(
        names(spec("schedule").input_schema()),
        ["title", "starts_at", "attendees"]
    );
    for spec in all_specs() {
        let declared = names(spec.input_schema());
        let what = spec.name();
        for format in Format::ALL.into_iter().filter(|f| f.is_json()) {
            let tool = tool_value(spec, format);
            let schema = match format {
                Format::OpenAiChat => &tool["function"]["parameters"],
                Format::OpenAiResponses => &tool["parameters"],
                Format::Anthropic => &tool["input_schema"],
                Format::Mcp => &tool["inputSchema"],
                _ => match tool.get("parameters") {
                    Some(parameters) => {
                        if declared.len() > 1 {
                            assert_eq!(parameters["propertyOrdering"], json!(declared), "{what}");
                        }
                        parameters
                    }
                    None => tool.get("parametersJsonSchema").unwrap_or(&Value::Null),
                },
            };
            if schema.is_null() {
                continue;
            }
            // A flattened union lists its branches' properties in order of first use.
            if spec.input_schema().get("type").is_some() {
                assert_eq!(names(schema), declared, "{what} {format}");
            }
        }
        let text = tool_value(spec, Format::Prompt);
        let text = text.as_str().unwrap_or_default();
        let positions: Vec<usize> = declared
            .iter()
            .filter_map(|name| text.find(&format!("\n- {name} (")))
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{what} prompt");
    }
}

/// A tool whose result may come late (`late_result`) is rendered `"async": true` by OpenAI
/// Responses alone; every other format renders it byte for byte as the same tool without
/// it (the result then arrives as any late result does: "awaiting approval", then a
/// follow-up).
#[test]
fn a_late_result_is_written_by_openai_responses_alone() {
    let tool = |late: bool| {
        let tool =
            DynamicTool::new("notify", Tier::Irreversible, "Notify the team.").propose_only();
        let tool = if late { tool.late_result() } else { tool };
        let toolbox = Toolbox::<Corpus>::new().with(tool).expect("registered");
        let runtime = toolbox.runtime_tool("notify").expect("registered");
        assert_eq!(runtime.spec().has_late_result(), late);
        Format::ALL
            .into_iter()
            .map(|format| (format, tool_value(runtime.spec(), format)))
            .collect::<Vec<_>>()
    };
    for ((format, plain), (_, late)) in tool(false).into_iter().zip(tool(true)) {
        if format == Format::OpenAiResponses {
            let mut without = late.clone();
            let removed = without
                .as_object_mut()
                .and_then(|tool| tool.remove("async"));
            assert_eq!(removed, Some(json!(true)), "{late}");
            assert_eq!(without, plain);
        } else {
            assert_eq!(late, plain, "{format}");
        }
    }
}
