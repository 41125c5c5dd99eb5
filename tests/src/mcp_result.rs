//! Reading what an MCP server answered a `tools/call`, as the tests' clients read it, and
//! what those clients declare when they connect.

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult};
use serde_json::Value;
use std::time::Duration;
use toolset::mcp::McpServer;
use toolset::prelude::ToolSet;

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

/// What `server` answers one `tools/call` of `name` with `arguments` (an object), from a
/// client of its own over an in-memory pipe; panics on anything but an answer in time.
pub async fn call_served<T: ToolSet>(
    server: McpServer<T>,
    name: &str,
    arguments: Value,
) -> CallToolResult {
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let _ = server.serve(server_io).await;
    });
    let client = ().serve(client_io).await.expect("the client connects");
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object");
    };
    let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
    let result = tokio::time::timeout(Duration::from_secs(20), client.call_tool(params))
        .await
        .expect("the call answers in time")
        .expect("the call succeeds at the protocol level");
    let _ = client.cancel().await;
    result
}

/// What a test client named `name` declares at `initialize`: `protocol` and
/// `capabilities` (a JSON object, such as `{"elicitation": {}}`).
pub fn client_config(protocol: &str, capabilities: Value, name: &str) -> rmcp::model::ClientConfig {
    serde_json::from_value(serde_json::json!({
        "protocolVersion": protocol,
        "capabilities": capabilities,
        "clientInfo": {"name": name, "version": "0.1.0"},
    }))
    .expect("a client config")
}
