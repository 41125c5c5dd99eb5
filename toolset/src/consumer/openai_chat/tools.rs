//! Rendering a tool for OpenAI Chat Completions:
//! `{"type":"function","function":{"name","description","parameters","strict"}}`.
//!
//! `strict` is decided per tool exactly as for the Responses API (see
//! [`openai_strict`](crate::consumer::openai_strict)): `true` with the strict form of the
//! schema when the tool's arguments can be expressed in strict mode's subset, `false` with
//! the plain schema otherwise. It is always written out, so the list reads the same
//! whatever the API's default.

use crate::consumer::openai_strict::parameters;
use crate::spec::ToolSpec;
use serde_json::{Map, Value};

/// A tool as a Chat Completions `tools` entry.
pub fn tool(spec: &ToolSpec) -> Value {
    tool_as(spec, true)
}

/// A tool as a Chat Completions `tools` entry; with `strict` false, `strict: false` and the plain
/// schema whatever the tool (a tool a request's budget took `strict` from).
pub(crate) fn tool_as(spec: &ToolSpec, strict: bool) -> Value {
    let (parameters, strict) = parameters(spec, strict);
    let mut function = Map::new();
    function.insert("name".into(), spec.name().into());
    function.insert("description".into(), spec.description().into());
    function.insert("parameters".into(), parameters);
    function.insert("strict".into(), strict.into());
    let mut tool = Map::new();
    tool.insert("type".into(), "function".into());
    tool.insert("function".into(), function.into());
    tool.into()
}
