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

/// What a function tool's `allowed_callers` says when only the model may call it (a
/// [`Request`](crate::Request) with code execution appends it: see
/// [`Request::code_execution`](crate::Request::code_execution)).
pub(crate) const DIRECT_ONLY: &str = r#""allowed_callers":["direct"]"#;

/// What a function tool's `allowed_callers` says when the model's program (programmatic
/// tool calling) may call it too.
pub(crate) const FROM_CODE: &str = r#""allowed_callers":["direct","programmatic"]"#;

/// A tool as a Responses API `tools` entry.
pub fn tool(spec: &ToolSpec) -> Value {
    let (parameters, strict) = parameters(spec);
    let mut tool = Map::new();
    tool.insert("type".into(), "function".into());
    tool.insert("name".into(), spec.name().into());
    tool.insert("description".into(), spec.description().into());
    tool.insert("parameters".into(), parameters);
    tool.insert("strict".into(), strict.into());
    tool.into()
}
