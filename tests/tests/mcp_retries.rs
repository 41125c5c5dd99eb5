//! An MCP session caps a handler's retries as the conversation driver caps a
//! conversation's (issue 37, item 7): the session's state is the driver's `Run`, so a
//! tool that keeps asking the model to call it again is answered, past the limit, with a
//! failure that says the limit, and the count is the session's own (another session
//! starts at zero).

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use toolset::mcp::{LineTransport, McpServer};
use toolset::{Autonomy, ToolError, tool, toolset};

/// The server's state (the flaky tool keeps none).
#[derive(Default)]
pub struct Counter;

/// Fetch the page (it is always busy).
#[tool(tier = "read_only")]
pub async fn fetch_page() -> Result<String, ToolError> {
    Err(ToolError::retry("the page is busy; try again"))
}

/// Say hello.
#[tool(tier = "read_only")]
pub async fn hello() -> String {
    "hello".to_owned()
}

toolset! {
    /// The flaky page's tools.
    pub PageTools<Counter> = [fetch_page, hello];
}

/// A server over a fresh counter, retries capped at `retries` when given.
fn server(retries: Option<u32>) -> McpServer<PageTools> {
    let server = McpServer::<PageTools>::new(Counter).with_autonomy(Autonomy::ReadOnly);
    match retries {
        Some(retries) => server.with_retries(retries),
        None => server,
    }
}

/// A client of a session of its own on `server`.
async fn client(server: &McpServer<PageTools>) -> RunningService<RoleClient, ()> {
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    let (reader, writer) = tokio::io::split(server_end);
    tokio::spawn(server.clone().serve(LineTransport::new(reader, writer)));
    ().serve(client_end).await.expect("connects")
}

/// The text of a result's content, as it is on the wire.
fn text(result: &CallToolResult) -> String {
    let wire = serde_json::to_value(result).expect("a result serializes");
    wire["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|block| block["text"].as_str())
        .collect()
}

/// The texts of `calls` calls of `tool` in one session.
async fn called(
    client: &RunningService<RoleClient, ()>,
    tool: &'static str,
    calls: usize,
) -> Vec<String> {
    let mut texts = Vec::new();
    for _ in 0..calls {
        let result = client
            .call_tool(CallToolRequestParams::new(tool))
            .await
            .expect("answered");
        assert_eq!(result.is_error, Some(true), "{result:?}");
        texts.push(text(&result));
    }
    texts
}

#[tokio::test]
async fn a_session_caps_a_tools_retries_at_three_by_default() {
    let client = client(&server(None)).await;
    let texts = called(&client, "fetch_page", 4).await;
    for asked in &texts[..3] {
        assert!(asked.contains("try again"), "{texts:#?}");
        assert!(!asked.contains("its limit"), "{texts:#?}");
    }
    assert!(
        texts[3].contains("more than 3 times") && texts[3].contains("its limit"),
        "{texts:#?}"
    );
    // Another tool of the session is not capped by the first one's retries.
    let hello = client
        .call_tool(CallToolRequestParams::new("hello"))
        .await
        .expect("answered");
    assert_eq!(text(&hello), "hello");
    client.cancel().await.expect("closed");
}

#[tokio::test]
async fn the_limit_is_the_servers_and_the_count_the_sessions() {
    let server = server(Some(1));
    let first = client(&server).await;
    let texts = called(&first, "fetch_page", 2).await;
    assert!(!texts[0].contains("its limit"), "{texts:#?}");
    assert!(texts[1].contains("more than 1 times"), "{texts:#?}");
    // Another session of the same server counts from zero, while the first one's
    // count stays: its next retry fails again.
    let second = client(&server).await;
    let texts = called(&second, "fetch_page", 1).await;
    assert!(!texts[0].contains("its limit"), "{texts:#?}");
    let texts = called(&first, "fetch_page", 1).await;
    assert!(texts[0].contains("more than 1 times"), "{texts:#?}");
    first.cancel().await.expect("closed");
    second.cancel().await.expect("closed");
}
