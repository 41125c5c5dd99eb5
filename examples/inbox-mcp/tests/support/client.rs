//! An rmcp client session with an `McpServer` over an in-memory pipe, and the one way the
//! client tests call a tool through it. Included by path (`#[path = "support/client.rs"]`)
//! by the tests that drive the server through rmcp's own client.

use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::{Peer, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use std::time::Duration;
use toolset::mcp::McpServer;
use toolset::prelude::ToolSet;

/// How long a call may take before the test fails as hung: a guard, not a measurement.
const ANSWER_WITHIN: Duration = Duration::from_secs(20);

/// A new session of `server` (its own task, at the other end of a duplex pipe) with
/// `client` handling what the server sends.
pub async fn connect<T: ToolSet, C: ClientHandler>(
    server: McpServer<T>,
    client: C,
) -> RunningService<RoleClient, C> {
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let _ = server.serve(server_io).await;
    });
    client.serve(client_io).await.expect("the client connects")
}

/// A JSON object as MCP arguments.
pub fn arguments(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("arguments must be an object, got {other}"),
    }
}

/// `tools/call` params naming `name` with `args`.
pub fn params(name: &str, args: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned()).with_arguments(arguments(args))
}

/// Calls `name` with `args` and returns the result; fails the test if no answer comes or
/// the answer is a protocol error rather than a tool result.
pub async fn call(client: &Peer<RoleClient>, name: &str, args: Value) -> CallToolResult {
    tokio::time::timeout(ANSWER_WITHIN, client.call_tool(params(name, args)))
        .await
        .expect("the call answers in time")
        .expect("the call succeeds at the protocol level")
}

/// The text parts of a result, one per line.
pub fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|part| part.as_text().map(|text| text.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}
