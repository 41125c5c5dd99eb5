//! Reading what an MCP server answered a `tools/call`, as the tests' clients read it.

use rmcp::model::{CallToolResponse, CallToolResult};

/// The text parts of `result`, one a line.
pub fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|part| part.as_text().map(|text| text.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The ordinary result of `response`; panics, naming what came instead, on a task or an
/// `input_required`.
pub fn complete(response: CallToolResponse) -> CallToolResult {
    match response {
        CallToolResponse::Complete(result) => result,
        other => panic!("expected an ordinary result, got {other:?}"),
    }
}
