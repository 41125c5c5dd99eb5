//! `toolset::mcp::McpServer` driven by rmcp's own client over an in-memory pipe: progress
//! notifications, cancellation, image content, host-only metadata and output schemas.

#[path = "support/client.rs"]
mod client;

use client::{call, params, text};
use rmcp::model::{CallToolRequest, ClientRequest, ProgressNotificationParam};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::{ClientHandler, RoleClient};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;
use std::time::Duration;
use tokio::sync::mpsc;
use toolset::mcp::McpServer;
use toolset::{Autonomy, Json, ToolContext, ToolError, ToolOutput, tool, toolset};

/// The test server's state.
#[derive(Default)]
pub struct Desk {
    log: Vec<String>,
}

/// Report progress `steps` times, then wait long before writing to the log.
#[tool(tier = "reversible")]
pub async fn slow_write(desk: &mut Desk, ctx: &ToolContext, steps: u32) -> String {
    for step in 1..=steps {
        ctx.report_progress(f64::from(step), Some(f64::from(steps)), Some("working"));
    }
    tokio::time::sleep(Duration::from_secs(60)).await;
    desk.log.push("slow_write finished".into());
    "finished".into()
}

/// Read the log.
#[tool(tier = "read_only")]
pub async fn read_log(desk: &Desk) -> Json<Vec<String>> {
    Json(desk.log.clone())
}

/// Draw a picture.
#[tool(tier = "read_only")]
pub async fn picture() -> ToolOutput {
    ToolOutput::text("a dot")
        .with_image("iVBORw0KGgo=", "image/png")
        .with_metadata(json!({"secret": "host-only metadata"}))
}

/// The desk's status.
#[derive(Serialize, JsonSchema)]
pub struct Status {
    /// How many entries the log has.
    pub entries: usize,
}

/// Tell the desk's status, or skip when asked to.
#[tool(tier = "read_only")]
pub async fn status(desk: &Desk, skip: bool) -> Result<Json<Status>, ToolError> {
    if skip {
        return Err(ToolError::skipped("nothing new"));
    }
    Ok(Json(Status {
        entries: desk.log.len(),
    }))
}

toolset! {
    /// Tools of the test desk.
    pub DeskTools<Desk> = [slow_write, read_log, picture, status];
}

/// A client that forwards every progress notification to the test.
#[derive(Clone)]
struct ProgressClient(mpsc::UnboundedSender<ProgressNotificationParam>);

impl ClientHandler for ProgressClient {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(params);
    }
}

type Client = RunningService<RoleClient, ProgressClient>;

/// A client connected to `server`, and its progress reports.
async fn connect(
    server: McpServer<DeskTools>,
) -> (Client, mpsc::UnboundedReceiver<ProgressNotificationParam>) {
    let (sender, receiver) = mpsc::unbounded_channel();
    (
        client::connect(server, ProgressClient(sender)).await,
        receiver,
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn progress_reaches_the_client_and_cancellation_stops_the_call() {
    let server = McpServer::<DeskTools>::new(Desk::default()).with_autonomy(Autonomy::Reversible);
    let state = server.state().clone();
    let (client, mut progress) = connect(server).await;

    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params(
        "slow_write",
        json!({"steps": 2}),
    )));
    let handle = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .expect("the request is sent");
    let token = handle.progress_token.clone();
    // The server sends them in order; rmcp's client runs one task per notification, so
    // `on_progress` may see them in either order.
    let mut reports = Vec::new();
    for _ in 0..2 {
        let report = tokio::time::timeout(Duration::from_secs(10), progress.recv())
            .await
            .expect("progress arrives in time")
            .expect("the client is still connected");
        assert_eq!(report.progress_token, token);
        assert_eq!(report.total, Some(2.0));
        assert_eq!(report.message.as_deref(), Some("working"));
        reports.push(report.progress);
    }
    reports.sort_by(f64::total_cmp);
    assert_eq!(reports, [1.0, 2.0]);

    handle
        .cancel(Some("the user changed their mind".into()))
        .await
        .expect("the cancellation is sent");
    // The cancelled call released the state at once: the next call runs now, not in a
    // minute, and the write never happened.
    let log = call(&client, "read_log", json!({})).await;
    assert_eq!(log.is_error, Some(false), "{}", text(&log));
    assert_eq!(text(&log), "[]");
    assert!(state.read().await.log.is_empty());
    let _ = client.cancel().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn images_go_on_the_wire_and_metadata_never_does() {
    let (client, _progress) = connect(McpServer::new(Desk::default())).await;
    let result = call(&client, "picture", json!({})).await;
    assert_eq!(result.is_error, Some(false));
    let image = result.content.get(1).and_then(|part| part.as_image());
    assert!(
        image.is_some_and(|image| image.data == "iVBORw0KGgo=" && image.mime_type == "image/png"),
        "{:?}",
        result.content
    );
    let wire = serde_json::to_string(&result).expect("the result serializes");
    assert!(!wire.contains("host-only"), "{wire}");
    let _ = client.cancel().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_that_cannot_match_the_output_schema_is_an_error() {
    let server = McpServer::<DeskTools>::new(Desk::default());
    let listed = server.tools().expect("the tool list renders");
    let status_tool = listed.iter().find(|tool| tool.name == "status");
    assert!(status_tool.is_some_and(|tool| tool.output_schema.is_some()));

    let (client, _progress) = connect(server).await;
    let ok = call(&client, "status", json!({"skip": false})).await;
    assert_eq!(ok.is_error, Some(false));
    assert_eq!(ok.structured_content, Some(json!({"entries": 0})));
    let skipped = call(&client, "status", json!({"skip": true})).await;
    assert_eq!(skipped.is_error, Some(true));
    assert_eq!(text(&skipped), "Skipped: nothing new");
    let _ = client.cancel().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn withheld_calls_carry_the_configured_message_and_the_reason() {
    let server = McpServer::<DeskTools>::new(Desk::default())
        .with_autonomy(Autonomy::Off)
        .with_withheld_message("Ask a human first ({tool}).");
    let (client, _progress) = connect(server).await;
    let result = call(&client, "read_log", json!({})).await;
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        text(&result),
        "Ask a human first (read_log). (why: \"read_log\" has the risk tier read_only, and here nothing runs without the user)"
    );
    let server_name = client
        .peer_info()
        .and_then(|info| info.server_info.clone())
        .map(|info| info.name);
    assert_eq!(server_name.as_deref(), Some("DeskTools"));
    let _ = client.cancel().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn lists_the_rendered_tools() {
    let (client, _progress) = connect(McpServer::new(Desk::default())).await;
    let tools = client.list_all_tools().await.expect("tools/list answers");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, ["slow_write", "read_log", "picture", "status"]);
    let read_only = |name: &str| {
        tools
            .iter()
            .find(|tool| tool.name == name)
            .and_then(|tool| tool.annotations.as_ref())
            .and_then(|hints| hints.read_only_hint)
    };
    assert_eq!(read_only("read_log"), Some(true));
    assert_eq!(read_only("slow_write"), Some(false));
    let _ = client.cancel().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_policy_hides_and_denies_tools_and_autonomy_keeps_them_so() {
    let policy = toolset::Policy::<DeskTools>::new(Autonomy::ReadOnly)
        .hide(DeskToolsName::Picture)
        .deny(DeskToolsName::SlowWrite);
    // Asking for more autonomy afterwards neither raises it above the policy's nor
    // undoes what the policy hid and denied.
    let server = McpServer::<DeskTools>::new(Desk::default())
        .with_policy(policy)
        .with_autonomy(Autonomy::Reversible);
    assert_eq!(server.autonomy(), Autonomy::ReadOnly);
    let (client, _progress) = connect(server).await;
    let tools = client.list_all_tools().await.expect("tools/list answers");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, ["read_log", "status"]);

    let hidden = call(&client, "picture", json!({})).await;
    assert_eq!(hidden.is_error, Some(true));
    assert!(text(&hidden).contains("no tool named"), "{}", text(&hidden));
    let denied = call(&client, "slow_write", json!({"steps": 1})).await;
    assert_eq!(denied.is_error, Some(true));
    assert!(text(&denied).contains("not available"), "{}", text(&denied));
    let _ = client.cancel().await;
}
