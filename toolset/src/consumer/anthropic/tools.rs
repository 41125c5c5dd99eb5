//! Rendering a tool for the Anthropic Messages API:
//! `{"name","description","input_schema","input_examples"?}`.
//!
//! Anthropic takes JSON Schema 2020-12 with `$defs`/`$ref`, so `input_schema` is the
//! canonical schema with integer bounds and an object root (Anthropic rejects a root
//! `oneOf`/`anyOf`/`allOf`; see [`schema_adapt`](crate::consumer::schema_adapt)).

use crate::ToolSpec;
use crate::consumer::schema_adapt::consumer_schema;
use serde_json::{Map, Value};

/// A tool as an Anthropic `tools` entry.
pub fn tool(spec: &ToolSpec) -> Value {
    let mut tool = Map::new();
    tool.insert("name".into(), spec.name().into());
    tool.insert("description".into(), spec.description().into());
    tool.insert("input_schema".into(), consumer_schema(spec.input_schema()));
    let examples = spec.examples();
    if !examples.is_empty() {
        tool.insert("input_examples".into(), examples.to_vec().into());
    }
    tool.into()
}
