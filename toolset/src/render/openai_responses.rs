//! OpenAI Responses API tools:
//! `{"type":"function","name","description","parameters","strict"}`.
//!
//! The Responses API treats a function as strict unless told otherwise, so `strict` is
//! always written: `true` with the strict form of the schema when the tool's arguments
//! can be expressed in strict mode's subset (see [`super::strict`]), `false` with the
//! plain schema (canonical, integer bounds added, object root) otherwise.

use super::schema_adapt::consumer_schema;
use super::strict::strict_schema;
use crate::ToolSpec;
use serde_json::{Map, Value};

/// A tool as a Responses API `tools` entry.
pub(crate) fn tool(spec: &ToolSpec) -> Value {
    let (parameters, strict) = parameters(spec);
    let mut tool = Map::new();
    tool.insert("type".into(), "function".into());
    tool.insert("name".into(), spec.name().into());
    tool.insert("description".into(), spec.description().into());
    tool.insert("parameters".into(), parameters);
    tool.insert("strict".into(), strict.into());
    tool.into()
}

/// The `parameters` of an OpenAI function, and whether they are strict.
pub(crate) fn parameters(spec: &ToolSpec) -> (Value, bool) {
    let canonical = spec.input_schema();
    let plain = consumer_schema(canonical);
    // A root union flattened into one object is looser than the arguments; requiring all
    // of its properties could force keys a variant refuses.
    let flattened = canonical.get("type").and_then(Value::as_str) != Some("object");
    match strict_schema(&plain).filter(|_| !flattened) {
        Some(strict) => (strict, true),
        None => (plain, false),
    }
}
