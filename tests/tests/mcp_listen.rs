//! `subscriptions/listen` (MCP 2026-07-28, SEP-2575): a stateless client's stream of
//! list changes. The server's tool list changes when a namespace of its toolbox refreshes
//! (the remote server said its list changed); each stream that asked for tool list
//! changes gets `notifications/tools/list_changed` then, tagged with its subscription's
//! id, after rmcp's acknowledgment; a stream that asked only for what the server does not
//! have (prompts) is acknowledged with nothing and gets nothing. Driven by rmcp's own
//! client, over an in-memory pipe, against a server proxying the fixture server
//! `tests/src/bin/fixture_mcp.rs` (its `drift` tool changes how it lists `echo`).
#![cfg(feature = "mcp-client")]

use rmcp::model::{
    CallToolRequestParams, ClientConfig, ProtocolVersion, ServerNotification, SubscriptionFilter,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService, Subscription};
use rmcp::{ClientHandler, RoleClient};
use serde_json::json;
use std::time::Duration;
use toolset::mcp::McpServer;
use toolset::prelude::*;
use toolset::toolbox::McpTools;
use toolset::{Autonomy, Tier, tool, toolset};
use toolset_tests::mcp_result::{client_config, complete, text};

/// The host's own state.
#[derive(Default)]
pub struct Log;

/// Say hello.
#[tool(tier = "read_only")]
pub async fn hello(_log: &Log) -> String {
    "hello".to_owned()
}

toolset! { pub Host<Log> = [hello]; }

/// A 2026-07-28 client declaring nothing.
#[derive(Clone)]
struct Client;

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        client_config("2026-07-28", json!({}), "listen-test")
    }
}

/// The fixture server as the namespace `fix`, its tools read-only to the host.
async fn remote() -> McpTools {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_fixture_mcp"));
    command.env("FIXTURE_DRIFT", "");
    McpTools::connect_stdio("fix", command)
        .await
        .expect("the fixture server starts")
        .tier(|_| Tier::ReadOnly)
}

/// A client of a server proxying `remote`.
async fn connect(remote: &McpTools) -> RunningService<RoleClient, Client> {
    let toolbox = Host::toolbox()
        .with_namespace(remote.clone())
        .expect("the fixture's tools register");
    let server = McpServer::<Host>::new(Log)
        .with_toolbox(toolbox)
        .with_autonomy(Autonomy::ReadOnly);
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let _ = server.serve(server_io).await;
    });
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    Client
        .serve_with_lifecycle(client_io, lifecycle)
        .await
        .expect("the client connects")
}

fn filter(tools: bool, prompts: bool) -> SubscriptionFilter {
    let mut filter = SubscriptionFilter::default();
    filter.tools_list_changed = tools.then_some(true);
    filter.prompts_list_changed = prompts.then_some(true);
    filter
}

/// The next notification of `subscription` within `wait`, if any.
async fn next_within(
    subscription: &mut Subscription,
    wait: Duration,
) -> Option<ServerNotification> {
    tokio::time::timeout(wait, subscription.next())
        .await
        .ok()
        .and_then(|next| next.expect("the stream reads"))
}

/// Has the remote change how it lists `echo`, through the proxy's `fix_drift` tool.
async fn drift(client: &RunningService<RoleClient, Client>, change: &str) {
    let call = CallToolRequestParams::new("fix_drift").with_arguments(
        json!({ "text": change })
            .as_object()
            .cloned()
            .unwrap_or_default(),
    );
    let result = complete(
        tokio::time::timeout(Duration::from_secs(20), client.call_tool_once(call))
            .await
            .expect("in time")
            .expect("answered"),
    );
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_listen_stream_gets_each_tool_list_change_tagged_with_its_id_and_nothing_else() {
    let remote = remote().await;
    let client = connect(&remote).await;

    let mut tools = client
        .peer()
        .listen(filter(true, true))
        .await
        .expect("acknowledged");
    assert_eq!(
        tools.acknowledged(),
        &filter(true, false),
        "tool changes accepted; prompts, which the server has none of, not"
    );
    let mut prompts = client
        .peer()
        .listen(filter(false, true))
        .await
        .expect("acknowledged");
    assert_eq!(prompts.acknowledged(), &filter(false, false));
    assert!(
        next_within(&mut tools, Duration::from_millis(300))
            .await
            .is_none(),
        "no change yet"
    );

    drift(&client, "description").await;
    let changed = next_within(&mut tools, Duration::from_secs(10))
        .await
        .expect("the change arrives on the stream");
    assert!(
        matches!(changed, ServerNotification::ToolListChangedNotification(_)),
        "{changed:?}"
    );
    // rmcp's client routes to a subscription only what carries its id; the tag is checked
    // on the wire too, by the conformance suite's `server-stateless`.
    assert!(
        next_within(&mut prompts, Duration::from_millis(500))
            .await
            .is_none(),
        "a stream that asked for prompts gets no tool change"
    );

    drift(&client, "title").await;
    let again = next_within(&mut tools, Duration::from_secs(10)).await;
    assert!(
        matches!(
            again,
            Some(ServerNotification::ToolListChangedNotification(_))
        ),
        "every change: {again:?}"
    );
    let _ = client.cancel().await;
}
