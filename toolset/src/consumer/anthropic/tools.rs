//! Rendering a tool for the Anthropic Messages API:
//! `{"name","description","input_schema","strict"?,"input_examples"?}`.
//!
//! Anthropic takes JSON Schema 2020-12 with `$defs`/`$ref`, so `input_schema` is the
//! canonical schema with integer bounds and an object root (Anthropic rejects a root
//! `oneOf`/`anyOf`/`allOf`; see [`schema_adapt`](crate::consumer::schema_adapt)).
//!
//! A tool whose arguments fit strict tool use's subset is rendered with `strict: true` and
//! the strict form of its schema (see [`why_not_strict`](super::why_not_strict)); any other
//! carries no `strict` key and the plain schema. A request whose strict tools would exceed
//! Anthropic's per-request limits renders the ones past them without `strict` (see
//! [`Request::strict_downgrades`](crate::request::Request::strict_downgrades)).

use super::strict::input_schema;
use crate::consumer::schema_adapt::consumer_schema;
use crate::spec::ToolSpec;
use serde_json::{Map, Value};

/// What a tool's `allowed_callers` says when only the model may call it (a
/// [`Request`](crate::request::Request) with code execution appends it: see
/// [`Request::code_execution`](crate::request::Request::code_execution)).
pub(crate) const DIRECT_ONLY: &str = r#""allowed_callers":["direct"]"#;

/// What a tool's `allowed_callers` says when the model's code may call it too: every code
/// execution version the SDK knows (anthropic 2.14.0's `ToolParam.allowed_callers`). The
/// gate reads any caller but `direct` as code, whatever its version, so naming them all
/// says exactly what it permits, and the host's choice of code execution tool needs no
/// setting here.
pub(crate) const FROM_CODE: &str = r#""allowed_callers":["direct","code_execution_20250825","code_execution_20260120","code_execution_20260521"]"#;

/// A tool as an Anthropic `tools` entry: `strict: true` when its arguments fit strict
/// tool use's subset and its strict form alone is within a request's limits.
pub fn tool(spec: &ToolSpec) -> Value {
    tool_as(spec, true)
}

/// A tool as an Anthropic `tools` entry; with `strict` false, never strict (the plain
/// schema and no `strict` key: a tool a request's budget took `strict` from).
pub(crate) fn tool_as(spec: &ToolSpec, strict: bool) -> Value {
    let (schema, strict) = match strict {
        true => {
            let (schema, cost) = input_schema(spec);
            (schema, cost.is_some())
        }
        false => (consumer_schema(spec.input_schema()), false),
    };
    let mut tool = Map::new();
    tool.insert("name".into(), spec.name().into());
    tool.insert("description".into(), spec.description().into());
    tool.insert("input_schema".into(), schema);
    if strict {
        tool.insert("strict".into(), true.into());
    }
    let examples = spec.examples();
    if !examples.is_empty() {
        tool.insert("input_examples".into(), examples.to_vec().into());
    }
    tool.into()
}
