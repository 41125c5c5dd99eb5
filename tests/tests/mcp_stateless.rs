//! What MCP's stateless revision (2026-07-28) asks of a server beyond its tools, over raw
//! HTTP: the methods it removed are answered `404` and `-32601` whatever their params; a
//! tool that cannot do without a capability the request did not declare is answered `400`
//! and `-32021` naming it, while one that goes on without it answers as usual; and a
//! client before the revision still initializes. `subscriptions/listen` is
//! `mcp_listen.rs`'s.

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use toolset::context::Sampling;
use toolset::mcp::{HttpConfig, McpServer};
use toolset::{ToolContext, ToolError, tool, toolset};
use toolset_tests::loopback::{Loopback, serve_http};
use toolset_tests::stateless::post;

/// How often a handler went on past its ask.
#[derive(Default)]
pub struct Count(Arc<AtomicUsize>);

/// Summarize with the client's model, which this tool cannot do without.
#[tool(tier = "read_only")]
pub async fn summarize(count: &Count, ctx: &ToolContext) -> Result<String, ToolError> {
    let sampled = ctx.sample(Sampling::new("Summarize", 20)).await?;
    count.0.fetch_add(1, Ordering::SeqCst);
    Ok(sampled.text.unwrap_or_default())
}

/// Summarize with the client's model when it can, else say so.
#[tool(tier = "read_only")]
pub async fn summarize_if_you_can(count: &Count, ctx: &ToolContext) -> String {
    let said = match ctx.sample(Sampling::new("Summarize", 20)).await {
        Ok(sampled) => sampled.text.unwrap_or_default(),
        Err(error) => format!("no summary: {error}"),
    };
    count.0.fetch_add(1, Ordering::SeqCst);
    said
}

toolset! { pub Summaries<Count> = [summarize, summarize_if_you_can]; }

/// The server on a loopback port until dropped, and the handlers' count.
struct Served {
    loopback: Loopback,
    count: Arc<AtomicUsize>,
}

async fn serve() -> Served {
    let count = Count::default();
    let counted = Arc::clone(&count.0);
    let server = McpServer::<Summaries>::new(count);
    Served {
        loopback: serve_http(HttpConfig::new(), |listener, config| {
            server.serve_http(listener, config)
        })
        .await,
        count: counted,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_methods_2026_07_28_removed_are_not_found_whatever_their_params() {
    let served = serve().await;
    // Well formed, naming the revision (rmcp refuses one whose version differs from the
    // request's header, with 400, before the server sees it).
    let initialize = json!({
        "protocolVersion": "2026-07-28",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    });
    for (method, params) in [
        ("initialize", json!({})),
        ("initialize", initialize),
        ("logging/setLevel", json!({})),
        ("logging/setLevel", json!({"level": "info"})),
        ("resources/subscribe", json!({"uri": "file:///a"})),
    ] {
        let (status, answer) =
            post(served.loopback.addr, method, params.clone(), json!({}), &[]).await;
        assert_eq!(status, 404, "{method} {params}: {answer}");
        assert_eq!(
            answer["error"]["code"], -32601,
            "{method} {params}: {answer}"
        );
        assert_eq!(answer["id"], 7, "the error answers the request: {answer}");
        if method != "resources/subscribe" {
            let message = answer["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains("removed in MCP 2026-07-28"), "{answer}");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_before_2026_07_28_still_initializes() {
    let served = serve().await;
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    });
    let response = reqwest::Client::new()
        .post(format!("http://{}/mcp", served.loopback.addr))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string())
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status().as_u16(), 200);
    let text = response.text().await.expect("reads");
    assert!(
        text.contains("\"protocolVersion\":\"2025-11-25\""),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_that_cannot_do_without_an_undeclared_capability_is_refused_naming_it() {
    let served = serve().await;
    let call = |name: &str| json!({"name": name, "arguments": {}});

    let (status, answer) = post(
        served.loopback.addr,
        "tools/call",
        call("summarize"),
        json!({}),
        &[],
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["error"]["code"], -32021, "{answer}");
    assert_eq!(
        answer["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}}),
        "a ClientCapabilities object naming what was missing: {answer}"
    );
    assert_eq!(served.count.load(Ordering::SeqCst), 0, "it went no further");

    // One that goes on without the answer is answered as usual.
    let (status, answer) = post(
        served.loopback.addr,
        "tools/call",
        call("summarize_if_you_can"),
        json!({}),
        &[],
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.starts_with("no summary:") && text.contains("did not declare the `sampling`"),
        "{answer}"
    );
    assert_eq!(served.count.load(Ordering::SeqCst), 1);

    // Declared, the same tool asks by a round instead.
    let (status, answer) = post(
        served.loopback.addr,
        "tools/call",
        call("summarize"),
        json!({"sampling": {}}),
        &[],
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["resultType"], "input_required", "{answer}");
    let requests: &Value = &answer["result"]["inputRequests"];
    assert_eq!(
        requests["sampling"]["method"], "sampling/createMessage",
        "{answer}"
    );
}
