//! Anthropic Messages API tools: `{"name","description","input_schema"}`.
//!
//! Anthropic takes JSON Schema 2020-12 with `$defs`/`$ref`, so `input_schema` is the
//! canonical schema with integer bounds and an object root (Anthropic rejects a root
//! `oneOf`/`anyOf`/`allOf`; see [`super::schema_adapt`]).

use super::schema_adapt::consumer_schema;
use crate::ToolSpec;
use serde_json::{Map, Value};

/// A tool as an Anthropic `tools` entry.
pub(crate) fn tool(spec: &ToolSpec) -> Value {
    let mut tool = Map::new();
    tool.insert("name".into(), spec.name().into());
    tool.insert("description".into(), spec.description().into());
    tool.insert("input_schema".into(), consumer_schema(spec.input_schema()));
    tool.into()
}
