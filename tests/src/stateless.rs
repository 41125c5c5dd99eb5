//! Requests of MCP's stateless revision (2026-07-28) over raw HTTP, as a client that is
//! no SDK sends them: for the tests that read the HTTP status and the JSON-RPC message
//! themselves.

use serde_json::{Value, json};
use std::time::Duration;

/// One stateless 2026-07-28 request of `method` with `params` from a client declaring
/// `capabilities`, with the `Mcp-Method` and `Mcp-Name` headers it needs and `extra`
/// headers: the HTTP status and the JSON-RPC message answered (from a JSON body or the
/// first SSE event).
pub async fn post(
    addr: std::net::SocketAddr,
    method: &str,
    mut params: Value,
    capabilities: Value,
    extra: &[(&str, &str)],
) -> (u16, Value) {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    let mut request = reqwest::Client::new()
        .post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = params["name"].as_str() {
        request = request.header("mcp-name", name);
    }
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    let response = tokio::time::timeout(
        Duration::from_secs(20),
        request.body(body.to_string()).send(),
    )
    .await
    .expect("answered in time")
    .expect("the server answers");
    let status = response.status().as_u16();
    let text = response.text().await.expect("the answer reads");
    let message = serde_json::from_str::<Value>(&text).ok().or_else(|| {
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .find_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
    });
    (
        status,
        message.unwrap_or_else(|| panic!("no JSON-RPC message in {text}")),
    )
}
