//! Gemini's schema rules: a tool's `parameters` in the OpenAPI 3.0 subset the Gemini
//! Developer API's `Schema` accepts, rewritten from the canonical JSON Schema.
//!
//! Gemini's `Schema` is a protobuf message, not JSON Schema. What it accepts, and how each
//! canonical construct is rewritten:
//! - keywords: `type` (one of `string`, `number`, `integer`, `boolean`, `array`, `object`,
//!   `null`: a single type, never an array), `format`, `title`, `description`, `nullable`,
//!   `enum` (strings only, on `type: "string"`), `items` (required on arrays),
//!   `minItems`, `maxItems`, `properties` (only on objects), `required`,
//!   `minProperties`, `maxProperties`, `minLength`, `maxLength`, `pattern`, `minimum`,
//!   `maximum`, `default`, `example`, `anyOf`; every other keyword is dropped;
//! - every schema has a `type` unless it is an `anyOf`;
//! - `$ref`s are inlined, with the reference site's description first. A recursive type
//!   is expanded [`RECURSION_LIMIT`] times along one path; below that, the reference is
//!   cut to `{"type": "object"}` with a description saying so. The model can still send
//!   deeper values, which the gate's parse checks as usual;
//! - `null` in a type array, a null branch of `anyOf`/`oneOf` or `null` in an `enum`
//!   becomes `nullable: true`; several non-null types become an `anyOf` with each type's
//!   keywords moved into its branch;
//! - `oneOf` becomes `anyOf`; a union of string constants (a unit-only enum) becomes
//!   `{"type": "string", "enum": [...]}` with the variants' descriptions listed in the
//!   description; `allOf` branches are merged;
//! - `const` becomes a one-value `enum` (schemars' [`ReplaceConstValue`]); `examples`
//!   becomes `example` ([`SetSingleExample`]); boolean schemas become objects
//!   ([`ReplaceBoolSchemas`]);
//! - `format`: integers keep `int32` (8-, 16- and 32-bit formats, whose bounds stay in
//!   `minimum`/`maximum`) or `int64` (`uint32`, `int64`); `uint64` and pointer-sized
//!   formats are dropped (their `minimum: 0` stays); numbers keep `float`/`double`;
//!   strings keep `date-time` and `enum`, other string formats move into the description;
//! - `exclusiveMinimum`/`exclusiveMaximum` become inclusive bounds (exact for integers, a
//!   little looser for numbers); integer bounds beyond ±2^53 are dropped (Gemini holds
//!   them as doubles, which would round them), a number's bounds stay (an `f32` keeps
//!   `±f32::MAX`, so a value beyond it is outside the declaration);
//! - a free-form map (`additionalProperties` with a schema) becomes `{"type": "object"}`
//!   with the values' type in the description; Gemini cannot constrain its keys;
//! - any JSON value (`serde_json::Value`) becomes `anyOf` string, number, boolean, object,
//!   `nullable: true`: Gemini has no "any" type and an array needs an item type, so arrays
//!   are not offered there;
//! - enums of non-strings move into the description.
//!
//! A tool without arguments gets no `parameters` at all: Gemini has rejected `parameters`
//! whose `properties` are empty ("should be non-empty for OBJECT type"). Every object
//! lists its properties' declared order in `propertyOrdering` (Gemini holds `properties`
//! as a map). The root union of an `#[args]` enum is flattened first (see
//! [`schema_adapt`](crate::consumer::schema_adapt)), because `parameters` must be an
//! object.
//!
//! # When `parameters` cannot say it: `parametersJsonSchema`
//!
//! Some arguments the subset can only approximate: a map (an OBJECT must list its
//! properties), any JSON value (an ARRAY needs an item type, so "any" leaves arrays
//! out), a recursive type (cut after [`RECURSION_LIMIT`] levels), a parameter name outside
//! Gemini's rule (a letter or `_`, then letters, digits and `_`, at most 64). For those
//! the declaration carries `parametersJsonSchema` instead, Gemini's field for parameters
//! in JSON Schema: the same consumer schema Anthropic and MCP get, which accepts exactly
//! what the gate accepts. The approximations above are still what the converter writes
//! where it meets them, but never reach the wire.

use crate::consumer::schema_adapt::{
    apply, bounded_schema, consumer_schema, resolve, string_constants, types_of,
};
use crate::integer_format::integer_range;
use schemars::transform::{ReplaceBoolSchemas, ReplaceConstValue, SetSingleExample};
use serde_json::{Map, Value};

/// How many times one definition is expanded inside itself before the reference is cut.
pub(crate) const RECURSION_LIMIT: usize = 2;

/// The keywords a Gemini `Schema` may carry.
const KEYWORDS: [&str; 22] = [
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "default",
    "example",
    "anyOf",
    "propertyOrdering",
];

/// Annotations carried over to whatever a schema node becomes.
const ANNOTATIONS: [&str; 4] = ["description", "title", "default", "example"];

/// The largest integer a double holds exactly.
const EXACT_DOUBLE: f64 = 9_007_199_254_740_992.0;

/// A tool's parameters as a Gemini function declaration carries them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Parameters {
    /// No arguments: no parameters at all.
    None,
    /// `parameters`: a Gemini `Schema` (the OpenAPI 3.0 subset) that says exactly what the
    /// arguments are.
    Schema(Value),
    /// `parametersJsonSchema`: the consumer JSON Schema, for arguments the `Schema` subset
    /// cannot say exactly (see the module docs), and the first construct it could not say.
    JsonSchema(Value, String),
}

/// The Gemini rule for a parameter name: a letter or underscore, then letters, digits or
/// underscores, at most 64 in all.
pub(crate) fn is_parameter_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && name.len() <= 64
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The Gemini parameters of a canonical input schema.
pub(crate) fn parameters(canonical: &Value) -> Parameters {
    let mut schema = bounded_schema(canonical);
    let mut bools = ReplaceBoolSchemas::default();
    bools.skip_additional_properties = true;
    apply(&mut schema, bools);
    apply(&mut schema, ReplaceConstValue::default());
    apply(&mut schema, SetSingleExample::default());
    let root = schema.clone();
    let mut converter = Converter {
        root: &root,
        expanding: Vec::new(),
        inexact: None,
    };
    let mut converted = converter.convert(&schema);
    retain_keywords(&mut converted);
    let has_properties = converted
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| !properties.is_empty());
    let is_object = converted.get("type").and_then(Value::as_str) == Some("object");
    if is_object && !has_properties {
        return Parameters::None;
    }
    match converter.inexact {
        None => Parameters::Schema(converted),
        Some(why) => Parameters::JsonSchema(consumer_schema(canonical), why),
    }
}

struct Converter<'a> {
    root: &'a Value,
    /// The `$ref`s being expanded, outermost first.
    expanding: Vec<String>,
    /// The first construct the `Schema` subset could only approximate.
    inexact: Option<String>,
}

impl Converter<'_> {
    /// Notes that the conversion only approximates the arguments.
    fn approximate(&mut self, what: impl FnOnce() -> String) {
        if self.inexact.is_none() {
            self.inexact = Some(what());
        }
    }

    /// Any JSON value, which the `Schema` subset cannot say (an array needs an item type).
    fn any(&mut self, out: Map<String, Value>) -> Map<String, Value> {
        self.approximate(|| "an argument accepts any JSON value".into());
        any_value(out)
    }

    fn convert(&mut self, schema: &Value) -> Value {
        match schema {
            Value::Object(map) => self.convert_map(map).into(),
            _ => self.any(Map::new()).into(),
        }
    }

    fn convert_map(&mut self, map: &Map<String, Value>) -> Map<String, Value> {
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            return self.convert_ref(reference, map);
        }
        if let Some(Value::Array(branches)) = map.get("allOf") {
            let mut merged: Map<String, Value> = map.clone();
            merged.shift_remove("allOf");
            for branch in branches {
                let branch = self.resolved(branch);
                merge_raw(&mut merged, &branch);
            }
            return self.convert_map(&merged);
        }

        let mut nullable = map.get("nullable") == Some(&Value::Bool(true));
        let mut types: Vec<String> = Vec::new();
        for ty in types_of(map) {
            if ty == "null" {
                nullable = true;
            } else {
                types.push(ty.to_owned());
            }
        }
        let only_null_type = map.contains_key("type") && types.is_empty();

        let union = map.get("anyOf").or_else(|| map.get("oneOf"));
        if let Some(Value::Array(branches)) = union {
            let mut kept = Vec::new();
            for branch in branches {
                if is_null_only(branch) {
                    nullable = true;
                } else {
                    kept.push(branch);
                }
            }
            return self.convert_union(map, &kept, nullable);
        }

        let mut map = map.clone();
        if let Some(Value::Array(values)) = map.get_mut("enum")
            && values.contains(&Value::Null)
        {
            values.retain(|value| !value.is_null());
            nullable = true;
            if values.is_empty() {
                map.shift_remove("enum");
            }
        }
        if only_null_type || (map.contains_key("enum") && enum_values(&map).is_empty()) {
            let mut out = annotations(&map);
            out.insert("type".into(), "null".into());
            return out;
        }
        if types.is_empty() {
            if let Some(inferred) = infer_type(&map) {
                types.push(inferred.to_owned());
            } else {
                return with_nullable(self.any(annotations(&map)), true);
            }
        }
        if types.len() == 1 {
            let out = self.convert_typed(&map, &types[0]);
            return with_nullable(out, nullable);
        }
        let mut out = annotations(&map);
        let branches: Vec<Value> = types
            .iter()
            .map(|ty| {
                let mut branch = self.convert_typed(&map, ty);
                for key in ANNOTATIONS {
                    branch.shift_remove(key);
                }
                branch.into()
            })
            .collect();
        out.insert("anyOf".into(), branches.into());
        with_nullable(out, nullable)
    }

    /// A `$ref`, inlined (or cut, deep inside a recursive type).
    fn convert_ref(&mut self, reference: &str, site: &Map<String, Value>) -> Map<String, Value> {
        let mut siblings = site.clone();
        siblings.shift_remove("$ref");
        let target = resolve(self.root, reference).cloned();
        let target_description = target
            .as_ref()
            .and_then(|target| target.get("description"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let depth = self
            .expanding
            .iter()
            .filter(|expanding| *expanding == reference)
            .count();
        let mut out = match target {
            Some(target) if depth < RECURSION_LIMIT => {
                self.expanding.push(reference.to_owned());
                let out = self.convert(&target);
                self.expanding.pop();
                match out {
                    Value::Object(out) => out,
                    _ => self.any(Map::new()),
                }
            }
            Some(_) => {
                self.approximate(|| format!("the recursive type at {reference} is cut"));
                let mut cut = Map::new();
                cut.insert("type".into(), "object".into());
                let name = reference.rsplit('/').next().unwrap_or(reference);
                cut.insert(
                    "description".into(),
                    format!(
                        "{} (nested too deep to describe here: an object of the same shape as the enclosing `{name}`)",
                        target_description.as_deref().unwrap_or(name)
                    )
                    .into(),
                );
                cut
            }
            None => self.any(Map::new()),
        };
        // The reference site's own keywords: annotations go first in the description;
        // anything structural is merged in.
        let site_description = siblings
            .remove("description")
            .and_then(|description| description.as_str().map(str::to_owned));
        if siblings
            .keys()
            .any(|key| !ANNOTATIONS.contains(&key.as_str()))
        {
            let extra = self.convert_map(&siblings);
            merge_converted(&mut out, extra);
        } else {
            for (key, value) in siblings {
                out.insert(key, value);
            }
        }
        if let Some(site) = site_description {
            let description = match out.get("description").and_then(Value::as_str) {
                Some(inner) if inner != site => format!("{site}\n{inner}"),
                _ => site,
            };
            out.insert("description".into(), description.into());
        }
        out
    }

    fn convert_union(
        &mut self,
        map: &Map<String, Value>,
        branches: &[&Value],
        nullable: bool,
    ) -> Map<String, Value> {
        let mut out = annotations(map);
        let resolved: Vec<Value> = branches
            .iter()
            .map(|branch| self.resolved(branch))
            .collect();
        // A union of string constants: a unit-only enum.
        let constants: Option<Vec<Vec<Value>>> = resolved.iter().map(string_constants).collect();
        if let Some(constants) = constants.filter(|constants| !constants.is_empty()) {
            let mut values = Vec::new();
            let mut notes = Vec::new();
            for (branch, branch_values) in resolved.iter().zip(constants) {
                // Every branch's description is kept, whatever number of values it holds.
                if let Some(description) = branch.get("description").and_then(Value::as_str) {
                    let said: Vec<String> = branch_values.iter().map(Value::to_string).collect();
                    notes.push(format!("- {}: {description}", said.join(", ")));
                }
                for value in branch_values {
                    if !values.contains(&value) {
                        values.push(value);
                    }
                }
            }
            out.insert("type".into(), "string".into());
            out.insert("enum".into(), values.into());
            if !notes.is_empty() {
                let notes = notes.join("\n");
                let description = match out.get("description").and_then(Value::as_str) {
                    Some(description) => format!("{description}\n{notes}"),
                    None => notes,
                };
                out.insert("description".into(), description.into());
            }
            return with_nullable(out, nullable);
        }
        if let [branch] = branches {
            let mut inner = self
                .convert(branch)
                .as_object()
                .cloned()
                .unwrap_or_default();
            let outer_description = out.shift_remove("description");
            for (key, value) in out {
                inner.insert(key, value);
            }
            if let Some(Value::String(outer)) = outer_description {
                let description = match inner.get("description").and_then(Value::as_str) {
                    Some(own) if own != outer => format!("{outer}\n{own}"),
                    _ => outer,
                };
                inner.insert("description".into(), description.into());
            }
            return with_nullable(inner, nullable);
        }
        let converted: Vec<Value> = branches.iter().map(|branch| self.convert(branch)).collect();
        out.insert("anyOf".into(), converted.into());
        with_nullable(out, nullable)
    }

    /// The keywords of `map` that apply to values of type `ty`, converted.
    fn convert_typed(&mut self, map: &Map<String, Value>, ty: &str) -> Map<String, Value> {
        let mut out = annotations(map);
        out.insert("type".into(), ty.into());
        match ty {
            "string" => {
                let values = enum_values(map);
                if !values.is_empty() {
                    if values.iter().all(Value::is_string) {
                        out.insert("enum".into(), values.into());
                    } else {
                        describe_values(&mut out, &values);
                    }
                }
                for key in ["minLength", "maxLength", "pattern"] {
                    copy(map, &mut out, key);
                }
                if let Some(format) = map.get("format").and_then(Value::as_str) {
                    if matches!(format, "date-time" | "enum") {
                        out.insert("format".into(), format.into());
                    } else {
                        append_description(&mut out, &format!("(format: {format})"));
                    }
                }
            }
            "integer" | "number" => {
                let integer = ty == "integer";
                let format = map
                    .get("format")
                    .and_then(Value::as_str)
                    .and_then(|format| {
                        if integer {
                            gemini_integer_format(format)
                        } else {
                            matches!(format, "float" | "double").then_some(format)
                        }
                    });
                if let Some(format) = format {
                    out.insert("format".into(), format.into());
                }
                // Gemini holds a bound as a double: an integer bound past ±2^53 would be
                // rounded, so it is dropped (the gate keeps the type's range); a number's
                // bound is a double already (`±f32::MAX` for an `f32`) and stays.
                let representable = |value: f64| value.is_finite() && (!integer || exact(value));
                let bound = |key: &str, exclusive: &str, step: f64| -> Option<Value> {
                    if let Some(value) = map.get(key) {
                        return value
                            .as_f64()
                            .filter(|v| representable(*v))
                            .map(|_| value.clone());
                    }
                    let value = map.get(exclusive).and_then(Value::as_f64)?;
                    let value = if integer { value + step } else { value };
                    representable(value).then(|| number(value))
                };
                if let Some(minimum) = bound("minimum", "exclusiveMinimum", 1.0) {
                    out.insert("minimum".into(), minimum);
                }
                if let Some(maximum) = bound("maximum", "exclusiveMaximum", -1.0) {
                    out.insert("maximum".into(), maximum);
                }
                let values = enum_values(map);
                if !values.is_empty() {
                    describe_values(&mut out, &values);
                }
            }
            "boolean" => {}
            "array" => {
                let items = match (map.get("items"), map.get("prefixItems")) {
                    (_, Some(Value::Array(prefix))) => {
                        let mut branches: Vec<Value> = Vec::new();
                        for item in prefix {
                            let item = self.convert(item);
                            if !branches.contains(&item) {
                                branches.push(item);
                            }
                        }
                        match branches.len() {
                            0 => self.any(Map::new()).into(),
                            1 => branches.remove(0),
                            _ => {
                                let mut union = Map::new();
                                union.insert("anyOf".into(), branches.into());
                                union.into()
                            }
                        }
                    }
                    (Some(items), _) if items.is_object() => self.convert(items),
                    _ => with_nullable(self.any(Map::new()), true).into(),
                };
                out.insert("items".into(), items);
                for key in ["minItems", "maxItems"] {
                    copy(map, &mut out, key);
                }
            }
            "object" => {
                let mut properties = Map::new();
                if let Some(Value::Object(declared)) = map.get("properties") {
                    for (name, schema) in declared {
                        if !is_parameter_name(name) {
                            self.approximate(|| {
                                format!("the parameter name `{name}` is outside Gemini's rule")
                            });
                        }
                        properties.insert(name.clone(), self.convert(schema));
                    }
                }
                if properties.is_empty() {
                    self.approximate(|| "an object without declared properties (a map)".into());
                }
                let required: Vec<Value> = map
                    .get("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter(|name| {
                        name.as_str()
                            .is_some_and(|name| properties.contains_key(name))
                    })
                    .cloned()
                    .collect();
                let order: Vec<Value> =
                    properties.keys().map(|name| name.as_str().into()).collect();
                if !properties.is_empty() {
                    out.insert("properties".into(), properties.into());
                }
                if !required.is_empty() {
                    out.insert("required".into(), required.into());
                }
                // Gemini holds properties in a map; this keeps the declared order.
                if order.len() > 1 {
                    out.insert("propertyOrdering".into(), order.into());
                }
                for key in ["minProperties", "maxProperties"] {
                    copy(map, &mut out, key);
                }
                if let Some(values) = map.get("additionalProperties").filter(|v| v.is_object()) {
                    self.approximate(|| "an object with arbitrary keys (a map)".into());
                    let values = self.convert(values);
                    let label = values
                        .get("type")
                        .and_then(Value::as_str)
                        .unwrap_or("any JSON value");
                    append_description(
                        &mut out,
                        &format!("(an object mapping any string key to a {label} value)"),
                    );
                }
            }
            _ => {}
        }
        out
    }

    /// `schema` with a top-level `$ref` replaced by its target (one level).
    fn resolved(&self, schema: &Value) -> Value {
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str)
            && let Some(target) = resolve(self.root, reference)
            && !self
                .expanding
                .iter()
                .any(|expanding| expanding == reference)
        {
            let mut merged = target.clone();
            if let (Value::Object(merged), Value::Object(site)) = (&mut merged, schema) {
                for (key, value) in site {
                    if key != "$ref" {
                        merged.insert(key.clone(), value.clone());
                    }
                }
            }
            return merged;
        }
        schema.clone()
    }
}

/// The Gemini `format` of an integer format: `int32` when its range fits 32 bits,
/// `int64` when it fits 64, none otherwise (`uint64`, the 128-bit formats). Pointer-sized
/// formats get none either: their width is the build target's, so the list would differ
/// between a 32- and a 64-bit build.
fn gemini_integer_format(format: &str) -> Option<&'static str> {
    let range = integer_range(format).filter(|range| !range.pointer_sized)?;
    if range.within(i32::MIN.into(), i32::MAX as u128) {
        Some("int32")
    } else if range.within(i64::MIN.into(), i64::MAX as u128) {
        Some("int64")
    } else {
        None
    }
}

/// Drops, everywhere in a converted schema, any keyword Gemini's `Schema` does not have.
/// The converter emits none; this keeps it that way whatever a custom `JsonSchema` impl
/// produces.
fn retain_keywords(schema: &mut Value) {
    let Value::Object(map) = schema else {
        return;
    };
    map.retain(|key, _| KEYWORDS.contains(&key.as_str()));
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        properties.values_mut().for_each(retain_keywords);
    }
    if let Some(items) = map.get_mut("items") {
        retain_keywords(items);
    }
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        branches.iter_mut().for_each(retain_keywords);
    }
}

/// Whether a union branch accepts only `null`.
fn is_null_only(branch: &Value) -> bool {
    let Some(map) = branch.as_object() else {
        return false;
    };
    if types_of(map) == ["null"] {
        return true;
    }
    matches!(map.get("enum"), Some(Value::Array(values)) if values.iter().all(Value::is_null) && !values.is_empty())
}

fn enum_values(map: &Map<String, Value>) -> Vec<Value> {
    map.get("enum")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn infer_type(map: &Map<String, Value>) -> Option<&'static str> {
    if map.contains_key("properties") || map.contains_key("additionalProperties") {
        return Some("object");
    }
    if map.contains_key("items") || map.contains_key("prefixItems") {
        return Some("array");
    }
    let values = enum_values(map);
    if values.is_empty() {
        return None;
    }
    let all = |check: fn(&Value) -> bool| values.iter().all(check);
    if all(Value::is_string) {
        Some("string")
    } else if all(Value::is_boolean) {
        Some("boolean")
    } else if all(|value| value.is_i64() || value.is_u64()) {
        Some("integer")
    } else if all(Value::is_number) {
        Some("number")
    } else {
        None
    }
}

fn annotations(map: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for key in ANNOTATIONS {
        if let Some(value) = map.get(key) {
            let keep = match key {
                "description" | "title" => value.is_string(),
                _ => true,
            };
            if keep {
                out.insert(key.into(), value.clone());
            }
        }
    }
    out
}

/// Any JSON value but an array, as Gemini can say it.
fn any_value(mut out: Map<String, Value>) -> Map<String, Value> {
    let branches: Vec<Value> = ["string", "number", "boolean", "object"]
        .into_iter()
        .map(|ty| {
            let mut branch = Map::new();
            branch.insert("type".into(), ty.into());
            branch.into()
        })
        .collect();
    out.insert("anyOf".into(), branches.into());
    append_description(&mut out, "(any JSON value)");
    out
}

fn with_nullable(mut out: Map<String, Value>, nullable: bool) -> Map<String, Value> {
    if nullable && out.get("type").and_then(Value::as_str) != Some("null") {
        out.insert("nullable".into(), true.into());
    }
    out
}

fn copy(from: &Map<String, Value>, to: &mut Map<String, Value>, key: &str) {
    if let Some(value) = from.get(key) {
        to.insert(key.into(), value.clone());
    }
}

fn append_description(out: &mut Map<String, Value>, note: &str) {
    let description = match out.get("description").and_then(Value::as_str) {
        Some(description) => format!("{description} {note}"),
        None => note
            .trim_start_matches('(')
            .trim_end_matches(')')
            .to_owned(),
    };
    out.insert("description".into(), description.into());
}

fn describe_values(out: &mut Map<String, Value>, values: &[Value]) {
    let values: Vec<String> = values.iter().map(Value::to_string).collect();
    append_description(out, &format!("(one of: {})", values.join(", ")));
}

fn exact(value: f64) -> bool {
    value.abs() <= EXACT_DOUBLE
}

fn number(value: f64) -> Value {
    if value.fract() == 0.0 && exact(value) {
        // Exact: |value| ≤ 2^53 fits an i64 without loss.
        Value::from(value as i64)
    } else {
        serde_json::Number::from_f64(value)
            .map(Value::Number)
            .unwrap_or(Value::Null)
    }
}

/// Merges raw (unconverted) `allOf` branch keywords into `into`.
fn merge_raw(into: &mut Map<String, Value>, branch: &Value) {
    let Some(branch) = branch.as_object() else {
        return;
    };
    for (key, value) in branch {
        match (key.as_str(), into.get_mut(key)) {
            ("properties", Some(Value::Object(existing))) => {
                if let Some(properties) = value.as_object() {
                    for (name, schema) in properties {
                        existing
                            .entry(name.clone())
                            .or_insert_with(|| schema.clone());
                    }
                }
            }
            ("required", Some(Value::Array(existing))) => {
                for name in value.as_array().into_iter().flatten() {
                    if !existing.contains(name) {
                        existing.push(name.clone());
                    }
                }
            }
            (_, Some(_)) => {}
            (_, None) => {
                into.insert(key.clone(), value.clone());
            }
        }
    }
}

/// Merges a converted schema's keywords into `into` (properties and required united).
fn merge_converted(into: &mut Map<String, Value>, extra: Map<String, Value>) {
    merge_raw(into, &Value::Object(extra));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nullable_options_and_unit_enums() {
        let canonical = json!({
            "$defs": {"P": {"description": "Urgency.", "oneOf": [
                {"type": "string", "const": "low", "description": "Whenever."},
                {"type": "string", "const": "high", "description": "Now."},
            ]}},
            "type": "object",
            "properties": {
                "limit": {"type": ["integer", "null"], "format": "uint32", "minimum": 0},
                "p": {"anyOf": [{"$ref": "#/$defs/P"}, {"type": "null"}], "description": "Which."},
            },
            "required": [],
        });
        let Parameters::Schema(parameters) = parameters(&canonical) else {
            panic!("the Schema subset says these arguments exactly");
        };
        assert_eq!(
            parameters["properties"]["limit"],
            json!({"type": "integer", "format": "int64", "minimum": 0, "maximum": 4294967295u32, "nullable": true})
        );
        let p = &parameters["properties"]["p"];
        assert_eq!(p["type"], "string");
        assert_eq!(p["enum"], json!(["low", "high"]));
        assert_eq!(p["nullable"], true);
        assert_eq!(
            p["description"],
            "Which.\nUrgency.\n- \"low\": Whenever.\n- \"high\": Now."
        );
        assert!(parameters.get("required").is_none());
    }

    #[test]
    fn recursion_maps_any_values_and_odd_names_get_the_json_schema() {
        let tree = json!({
            "$defs": {"Node": {"type": "object", "properties": {
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            }, "required": ["children"]}},
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node"}},
            "required": ["root"],
        });
        let map = json!({"type": "object", "properties": {
            "m": {"type": "object", "additionalProperties": {"type": "string"}}}});
        let any = json!({"type": "object", "properties": {"v": {"description": "anything"}}});
        let name = json!({"type": "object", "properties": {"dash-name": {"type": "string"}}});
        for (canonical, reason) in [
            (tree, "recursive"),
            (map, "map"),
            (any, "any JSON value"),
            (name, "`dash-name`"),
        ] {
            match parameters(&canonical) {
                Parameters::JsonSchema(schema, why) => {
                    assert!(why.contains(reason), "{why}");
                    assert_eq!(schema, consumer_schema(&canonical));
                }
                other => panic!("{canonical}: {other:?}"),
            }
        }
    }

    #[test]
    fn objects_list_their_declared_order() {
        let canonical = json!({"type": "object", "properties": {
            "zeta": {"type": "string"}, "alpha": {"type": "integer", "format": "int32"}}});
        let Parameters::Schema(parameters) = parameters(&canonical) else {
            panic!("exact");
        };
        assert_eq!(parameters["propertyOrdering"], json!(["zeta", "alpha"]));
        assert_eq!(parameters["properties"]["alpha"]["format"], "int32");
    }

    #[test]
    fn integer_formats_map_by_their_range() {
        for (format, expected) in [
            ("int8", Some("int32")),
            ("uint16", Some("int32")),
            ("int32", Some("int32")),
            ("uint32", Some("int64")),
            ("int64", Some("int64")),
            ("uint64", None),
            ("int128", None),
            ("int", None),
            ("uint", None),
            ("double", None),
        ] {
            assert_eq!(gemini_integer_format(format), expected, "{format}");
        }
    }

    #[test]
    fn no_arguments_means_no_parameters() {
        assert_eq!(
            parameters(&json!({"type": "object", "additionalProperties": false})),
            Parameters::None
        );
    }
}
