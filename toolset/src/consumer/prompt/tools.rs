//! Rendering a tool as plain text for a system prompt: its name, tier, description and a
//! compact argument list, then the named types the arguments use.
//!
//! ```text
//! ## move_item
//! Tier: reversible.
//! Move an item somewhere else.
//! Arguments:
//! - id (integer, required): The item to move.
//! - target (Location, required): Where to.
//! Types:
//! - Location = {folder: string, position?: Position | null}: Where an item lives.
//!   - folder: The folder's name.
//! - Position = {row: integer, col: integer}: A cell in a grid.
//!   - row: Zero-based row.
//! ```
//!
//! A description declared below an argument or a type (a field's, a variant's) is listed
//! under it, indented, with its path: none is left out.

use crate::consumer::schema_adapt::{consumer_schema, resolve, types_of};
use crate::spec::ToolSpec;
use serde_json::{Map, Value};
use std::fmt::Write;

/// How deep object shapes are spelled out inline before they read `object`.
const INLINE_DEPTH: usize = 2;

/// A tool as prompt text (no trailing newline): a `## name` heading, its tier, its
/// description, its arguments and the named types they use.
pub fn tool(spec: &ToolSpec) -> String {
    let schema = consumer_schema(spec.input_schema());
    let mut text = String::new();
    let _ = write!(text, "## {}", spec.name());
    if let Some(title) = spec.title() {
        let _ = write!(text, " ({title})");
    }
    let _ = write!(text, "\nTier: {}.", spec.tier());
    if spec.is_idempotent() {
        text.push_str(" Idempotent.");
    }
    if spec.is_propose_only() {
        text.push_str(" Propose only: you prepare the call; a human decides whether it runs.");
    }
    text.push('\n');
    text.push_str(spec.description().trim_end());

    let mut labeler = Labeler { used: Vec::new() };
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = required_of(schema.as_object());
    match properties {
        Some(properties) if !properties.is_empty() => {
            text.push_str("\nArguments:");
            for (name, property) in ordered(properties) {
                let presence = if required.contains(&name) {
                    "required"
                } else {
                    "optional"
                };
                let _ = write!(
                    text,
                    "\n- {name} ({}, {presence})",
                    labeler.label(property, 0)
                );
                if let Some(description) = property.get("description").and_then(Value::as_str) {
                    let _ = write!(text, ": {}", one_line(description));
                }
                labeler.field_docs(property, name, 0, true, &mut text);
            }
            // A flattened union's root description says which shapes are allowed.
            if let Some(description) = schema.get("description").and_then(Value::as_str) {
                let _ = write!(text, "\n{description}");
            }
        }
        Some(_) => text.push_str("\nArguments: none."),
        None => {
            let _ = write!(text, "\nArguments: {}", labeler.label(&schema, 0));
        }
    }

    // Named types, in order of first use; a type used only by another is listed after it.
    let mut listed = 0;
    let mut types = String::new();
    while listed < labeler.used.len() {
        let name = labeler.used[listed].clone();
        listed += 1;
        let Some(def) = resolve(&schema, &format!("#/$defs/{name}")) else {
            continue;
        };
        let shape = labeler.label_expanded(def);
        let _ = write!(types, "\n- {name} = {shape}");
        if let Some(description) = def.get("description").and_then(Value::as_str) {
            let _ = write!(types, ": {}", one_line(description));
        }
        labeler.field_docs(def, "", 0, true, &mut types);
    }
    if !types.is_empty() {
        text.push_str("\nTypes:");
        text.push_str(&types);
    }
    text
}

/// The properties in declared order, each with whether it is required.
fn ordered(properties: &Map<String, Value>) -> Vec<(&str, &Value)> {
    properties
        .iter()
        .map(|(name, value)| (name.as_str(), value))
        .collect()
}

fn required_of(map: Option<&Map<String, Value>>) -> Vec<&str> {
    map.and_then(|map| map.get("required"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

struct Labeler {
    /// The `$defs` names referenced so far, in order of first use.
    used: Vec<String>,
}

impl Labeler {
    /// Notes that the type `name` is used, so it is listed under `Types:`.
    fn use_def(&mut self, name: &str) {
        if !self.used.iter().any(|used| used == name) {
            self.used.push(name.to_owned());
        }
    }

    /// Writes, one indented line each (`  - place.folder: …`), the descriptions declared
    /// below `schema` that its label does not show: every nested property's and array
    /// item's, and a union branch's where the label spelled no union out. `path` names `schema` (an argument,
    /// or empty for a type); `depth` is its label's depth, `shown` whether its label was
    /// written out. A `$ref` is not followed: its type is listed under `Types:`, with its
    /// own descriptions (and noted as used here, for one nested too deep to be spelled
    /// out). So no declared description is left out of the prompt.
    fn field_docs(
        &mut self,
        schema: &Value,
        path: &str,
        depth: usize,
        shown: bool,
        out: &mut String,
    ) {
        let Some(map) = schema.as_object() else {
            return;
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            if let Some(name) = reference.strip_prefix("#/$defs/") {
                self.use_def(name);
            }
            return;
        }
        let inline = shown && depth < INLINE_DEPTH;
        if let Some(Value::Object(properties)) = map.get("properties") {
            for (name, property) in properties {
                let at = match path {
                    "" => name.clone(),
                    path => format!("{path}.{name}"),
                };
                if let Some(description) = property.get("description").and_then(Value::as_str) {
                    let _ = write!(out, "\n  - {at}: {}", one_line(description));
                }
                self.field_docs(property, &at, depth + 1, inline, out);
            }
        }
        if let Some(items) = map.get("items") {
            let at = format!("{path}[]");
            if let Some(description) = items.get("description").and_then(Value::as_str)
                && items.get("$ref").is_none()
            {
                let _ = write!(out, "\n  - {at}: {}", one_line(description));
            }
            self.field_docs(items, &at, depth, shown, out);
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            let Some(Value::Array(branches)) = map.get(key) else {
                continue;
            };
            // The label writes an `anyOf`/`oneOf` branch's description beside it when the
            // union is written out; an `allOf` branch's, never.
            let labelled = shown && key != "allOf";
            for branch in branches {
                if let Some(description) = branch.get("description").and_then(Value::as_str)
                    && branch.get("$ref").is_none()
                    && !labelled
                {
                    let _ = write!(out, "\n  - {path}: {}", one_line(description));
                }
                self.field_docs(branch, path, depth, shown, out);
            }
        }
    }

    /// A definition's own shape (not its name).
    fn label_expanded(&mut self, def: &Value) -> String {
        self.label(def, 0)
    }

    /// A compact type label: `string`, `array of Node`, `{a: integer, b?: string}`, ….
    fn label(&mut self, schema: &Value, depth: usize) -> String {
        let map = match schema {
            Value::Bool(true) => return "any JSON value".into(),
            Value::Bool(false) => return "nothing".into(),
            Value::Object(map) => map,
            _ => return "any JSON value".into(),
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            return match reference.strip_prefix("#/$defs/") {
                Some(name) => {
                    self.use_def(name);
                    name.to_owned()
                }
                None => "object".into(),
            };
        }
        if let Some(value) = map.get("const") {
            return value.to_string();
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            let values: Vec<String> = values.iter().map(Value::to_string).collect();
            return values.join(" | ");
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                let labels: Vec<String> = branches
                    .iter()
                    .map(|branch| {
                        let label = self.label(branch, depth);
                        let described = branch
                            .get("description")
                            .and_then(Value::as_str)
                            .filter(|_| branch.get("$ref").is_none());
                        match described {
                            Some(description) => format!("{label} ({})", one_line(description)),
                            None => label,
                        }
                    })
                    .collect();
                return labels.join(" | ");
            }
        }
        if let Some(Value::Array(branches)) = map.get("allOf") {
            let labels: Vec<String> = branches
                .iter()
                .map(|branch| self.label(branch, depth))
                .collect();
            return labels.join(" & ");
        }
        let types = types_of(map);
        if types.is_empty() {
            if map.contains_key("properties") {
                return self.label_typed(map, "object", depth);
            }
            return "any JSON value".into();
        }
        let labels: Vec<String> = types
            .iter()
            .map(|ty| self.label_typed(map, ty, depth))
            .collect();
        labels.join(" | ")
    }

    fn label_typed(&mut self, map: &Map<String, Value>, ty: &str, depth: usize) -> String {
        match ty {
            "array" => {
                if let Some(Value::Array(prefix)) = map.get("prefixItems") {
                    let items: Vec<String> =
                        prefix.iter().map(|item| self.label(item, depth)).collect();
                    return format!("[{}]", items.join(", "));
                }
                match map.get("items") {
                    Some(items) => {
                        let item = self.label(items, depth);
                        if item.contains(" | ") {
                            format!("array of ({item})")
                        } else {
                            format!("array of {item}")
                        }
                    }
                    None => "array".into(),
                }
            }
            "object" => {
                let properties = map.get("properties").and_then(Value::as_object);
                match properties {
                    Some(properties) if !properties.is_empty() && depth < INLINE_DEPTH => {
                        let required = required_of(Some(map));
                        let fields: Vec<String> = ordered(properties)
                            .into_iter()
                            .map(|(name, property)| {
                                let mark = if required.contains(&name) { "" } else { "?" };
                                format!("{name}{mark}: {}", self.label(property, depth + 1))
                            })
                            .collect();
                        format!("{{{}}}", fields.join(", "))
                    }
                    Some(properties) if !properties.is_empty() => "object".into(),
                    _ => match map.get("additionalProperties") {
                        Some(values @ Value::Object(_)) => {
                            format!("map of string to {}", self.label(values, depth + 1))
                        }
                        Some(Value::Bool(false)) => "{}".into(),
                        _ => "object".into(),
                    },
                }
            }
            other => other.to_owned(),
        }
    }
}
