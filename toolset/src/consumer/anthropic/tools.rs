//! Rendering a tool for the Anthropic Messages API:
//! `{"name","description","input_schema","input_examples"?}`.
//!
//! Anthropic takes JSON Schema 2020-12 with `$defs`/`$ref`, so `input_schema` is the
//! canonical schema with integer bounds and an object root (Anthropic rejects a root
//! `oneOf`/`anyOf`/`allOf`; see [`schema_adapt`](crate::consumer::schema_adapt)).

use crate::ToolSpec;
use crate::consumer::schema_adapt::consumer_schema;
use serde_json::{Map, Value};

/// What a tool's `allowed_callers` says when only the model may call it (a
/// [`Request`](crate::Request) with code execution appends it: see
/// [`Request::code_execution`](crate::Request::code_execution)).
pub(crate) const DIRECT_ONLY: &str = r#""allowed_callers":["direct"]"#;

/// What a tool's `allowed_callers` says when the model's code may call it too: every code
/// execution version the SDK knows (anthropic 2.14.0's `ToolParam.allowed_callers`). The
/// gate reads any caller but `direct` as code, whatever its version, so naming them all
/// says exactly what it permits, and the host's choice of code execution tool needs no
/// setting here.
pub(crate) const FROM_CODE: &str = r#""allowed_callers":["direct","code_execution_20250825","code_execution_20260120","code_execution_20260521"]"#;

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
