//! Rendering a tool for the OpenAI Responses API:
//! `{"type":"function","name","description","parameters","strict"}`.
//!
//! The Responses API treats a function as strict unless told otherwise, so `strict` is
//! always written: `true` with the strict form of the schema when the tool's arguments
//! can be expressed in strict mode's subset (see
//! [`openai_strict`](crate::consumer::openai_strict)), `false` with the plain schema
//! (canonical, integer bounds added, object root) otherwise.

use crate::ToolSpec;
use crate::consumer::openai_strict::parameters;
use serde_json::{Map, Value};

/// A tool as a Responses API `tools` entry.
pub fn tool(spec: &ToolSpec) -> Value {
    tool_as(spec, true)
}

/// A tool as a Responses API `tools` entry; with `strict` false, `strict: false` and the plain
/// schema whatever the tool (a tool a request's budget took `strict` from).
pub(crate) fn tool_as(spec: &ToolSpec, strict: bool) -> Value {
    let (parameters, strict) = parameters(spec, strict);
    let mut tool = Map::new();
    tool.insert("type".into(), "function".into());
    tool.insert("name".into(), spec.name().into());
    tool.insert("description".into(), spec.description().into());
    tool.insert("parameters".into(), parameters);
    tool.insert("strict".into(), strict.into());
    tool.into()
}
