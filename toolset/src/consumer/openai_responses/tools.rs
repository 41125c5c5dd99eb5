//! Rendering a tool for the OpenAI Responses API:
//! `{"type":"function","name","description","parameters","strict","output_schema"?}`.
//!
//! The Responses API treats a function as strict unless told otherwise, so `strict` is
//! always written: `true` with the strict form of the schema when the tool's arguments
//! can be expressed in strict mode's subset (see
//! [`openai_strict`](crate::consumer::openai_strict)), `false` with the plain schema
//! (canonical, integer bounds added, object root) otherwise.
//!
//! `output_schema` ("the JSON value encoded in string outputs", the SDK's
//! `FunctionToolParam`) is written for a tool returning `Json<T>`, whose output text is
//! that JSON: `T`'s schema as MCP's `outputSchema` has it, but for any root (an array or a
//! scalar too; MCP alone needs an object). `strict` is about the arguments the model
//! writes, not about the output, so the schema is not put in strict form. (Chat
//! Completions' function has no such field, so its tools carry none.)
//!
//! `"async": true` is written for a tool whose result may come after the model's turn
//! ([`ToolSpec::has_late_result`]; the SDK's `FunctionToolParam` and a namespace's
//! `ToolFunction` both have the key): see the [module docs](super) for what follows.

use crate::consumer::openai_strict::parameters;
use crate::consumer::schema_adapt::result_schema;
use crate::spec::ToolSpec;
use serde_json::{Map, Value};

/// What a function tool's `allowed_callers` says when only the model may call it (a
/// [`Request`](crate::request::Request) with code execution appends it: see
/// [`Request::code_execution`](crate::request::Request::code_execution)).
pub(crate) const DIRECT_ONLY: &str = r#""allowed_callers":["direct"]"#;

/// What a function tool's `allowed_callers` says when the model's program (programmatic
/// tool calling) may call it too.
pub(crate) const FROM_CODE: &str = r#""allowed_callers":["direct","programmatic"]"#;

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
    if let Some(output) = spec.output_schema() {
        tool.insert("output_schema".into(), result_schema(output));
    }
    if spec.has_late_result() {
        tool.insert("async".into(), true.into());
    }
    tool.into()
}
