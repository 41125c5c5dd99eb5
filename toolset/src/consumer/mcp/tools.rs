//! Rendering a tool for MCP: a `Tool` object, as listed by `tools/list`:
//! `{"name","title"?,"description","inputSchema","outputSchema"?,"annotations"}`.
//!
//! - `inputSchema` is the canonical schema with integer bounds and an object root (see
//!   [`schema_adapt`](crate::consumer::schema_adapt)); a `#[tool]`'s carries no `$schema`,
//!   so clients read it as 2020-12, MCP's default dialect, and a runtime tool's keeps
//!   the `$schema` and every other keyword it was registered with (`$defs`, `$anchor`,
//!   `allOf`, `if`/`then`/`else`, ...).
//!   Its `format`s are the standard ones only (numeric bounds instead of `uint32`, …), as
//!   in `outputSchema`. A property's `x-mcp-header` (`#[mcp_header("...")]`, or written
//!   into a runtime tool's schema) is listed here alone: the other consumers drop it.
//! - `outputSchema` is given only for tools returning `Json<T>`, and only when `T`'s
//!   schema is an object schema (root `type: "object"`), which MCP requires because
//!   `structuredContent` is a JSON object. A tool returning `Json<Vec<_>>` or a scalar
//!   has no `outputSchema`; its structured result still reaches the client as text.
//! - `annotations` come from the tier, `idempotentHint` from `#[tool(idempotent)]` and
//!   `title` from `#[tool(title = "...")]`:
//!
//!   | tier                  | readOnlyHint | destructiveHint | openWorldHint |
//!   |-----------------------|--------------|-----------------|---------------|
//!   | `read_only`           | true         | –               | –             |
//!   | `reversible`          | false        | false           | false         |
//!   | `external_reversible` | false        | false           | true          |
//!   | `irreversible`        | false        | true            | –             |
//!
//!   (– : not stated; MCP's defaults apply.) A reversible tool changes only the agent's
//!   own state, so it says `openWorldHint: false`, where MCP's default would claim an
//!   open world.

use crate::consumer::schema_adapt::{mcp_input_schema, result_schema};
use crate::spec::ToolSpec;
use crate::tier::Tier;
use serde_json::{Map, Value};

/// A tool as an MCP `Tool` object.
pub fn tool(spec: &ToolSpec) -> Value {
    let mut tool = Map::new();
    tool.insert("name".into(), spec.name().into());
    if let Some(title) = spec.title() {
        tool.insert("title".into(), title.into());
    }
    tool.insert("description".into(), spec.description().into());
    tool.insert("inputSchema".into(), mcp_input_schema(spec.input_schema()));
    if let Some(output) = output_schema(spec) {
        tool.insert("outputSchema".into(), output);
    }
    tool.insert("annotations".into(), annotations(spec).into());
    tool.into()
}

/// Whether the tool's MCP listing carries an `outputSchema` (MCP allows only an object
/// schema there).
pub(crate) fn lists_output_schema(spec: &ToolSpec) -> bool {
    spec.output_schema()
        .is_some_and(|schema| schema.get("type").and_then(Value::as_str) == Some("object"))
}

/// The output schema MCP may carry: an object schema, or nothing.
fn output_schema(spec: &ToolSpec) -> Option<Value> {
    if !lists_output_schema(spec) {
        return None;
    }
    spec.output_schema().map(result_schema)
}

/// The MCP `ToolAnnotations` of a tool.
fn annotations(spec: &ToolSpec) -> Map<String, Value> {
    let mut hints = Map::new();
    if let Some(title) = spec.title() {
        hints.insert("title".into(), title.into());
    }
    let (read_only, destructive, open_world) = match spec.tier() {
        Tier::ReadOnly => (true, None, None),
        Tier::Reversible => (false, Some(false), Some(false)),
        Tier::ExternalReversible => (false, Some(false), Some(true)),
        Tier::Irreversible => (false, Some(true), None),
    };
    hints.insert("readOnlyHint".into(), read_only.into());
    if let Some(destructive) = destructive {
        hints.insert("destructiveHint".into(), destructive.into());
    }
    if let Some(open_world) = open_world {
        hints.insert("openWorldHint".into(), open_world.into());
    }
    hints.insert("idempotentHint".into(), spec.is_idempotent().into());
    hints
}
