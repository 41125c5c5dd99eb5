//! A handler logs through its context (`ToolContext::log`), and an MCP client gets
//! exactly the messages at or above the level it asked for, as `notifications/message`
//! naming the tool, on the wire before the call's result: by `logging/setLevel` for its
//! session, by the request's `_meta` `io.modelcontextprotocol/logLevel` for one request,
//! every level until it asks. Read as raw JSON-RPC lines, so the order checked is the
//! order written.

use rmcp::model::{CallToolRequestParams, ProtocolVersion, RequestMetaObject};
#[allow(
    deprecated,
    reason = "MCP logging is deprecated from 2026-07-28 on, still served"
)]
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam, SetLevelRequestParams};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, NotificationContext, RunningService};
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines, ReadHalf, WriteHalf};
use toolset::context::LogLevel;
use toolset::mcp::{LineTransport, McpServer};
use toolset::{ToolContext, tool, toolset};

/// Log one message at every level, least severe first, then a JSON value at `notice`.
#[tool(tier = "read_only")]
pub async fn chatty(ctx: &ToolContext) -> &'static str {
    for level in LogLevel::ALL {
        ctx.log(level, level.as_str());
        // Let the forwarding task write between messages, as a real handler would.
        tokio::task::yield_now().await;
    }
    ctx.log(LogLevel::Notice, json!({ "scanned": 3 }));
    "done"
}

/// Return without logging.
#[tool(tier = "read_only")]
pub async fn quiet() -> &'static str {
    "quiet"
}

toolset! { pub ChattyTools = [chatty, quiet]; }

/// A client's end of one session: JSON-RPC lines written and read in order.
struct Wire {
    lines: Lines<BufReader<ReadHalf<tokio::io::DuplexStream>>>,
    to_server: WriteHalf<tokio::io::DuplexStream>,
    next_id: u64,
}

impl Wire {
    /// A session on a fresh server, initialized at protocol 2025-11-25.
    async fn connect() -> (Wire, Value) {
        let (server_end, client_end) = tokio::io::duplex(256 * 1024);
        let (reader, writer) = tokio::io::split(server_end);
        tokio::spawn(McpServer::<ChattyTools>::new(()).serve(LineTransport::new(reader, writer)));
        let (from_server, to_server) = tokio::io::split(client_end);
        let mut wire = Wire {
            lines: BufReader::new(from_server).lines(),
            to_server,
            next_id: 1,
        };
        let (initialized, _) = wire
            .request(
                "initialize",
                json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "logging-test", "version": "1"}
                }),
            )
            .await;
        wire.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        (wire, initialized)
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.to_server
            .write_all(line.as_bytes())
            .await
            .expect("the server reads");
    }

    /// Sends a request and reads until its answer: the answer, and every notification
    /// written before it, in order.
    async fn request(&mut self, method: &str, params: Value) -> (Value, Vec<Value>) {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let mut before = Vec::new();
        loop {
            let line = tokio::time::timeout(Duration::from_secs(20), self.lines.next_line())
                .await
                .expect("the server answers in time")
                .expect("the pipe reads")
                .expect("the server keeps the pipe open");
            let message: Value = serde_json::from_str(&line).expect("a JSON line");
            if message["id"] == json!(id) {
                return (message, before);
            }
            before.push(message);
        }
    }

    /// Calls `tool` with `meta` as the request's `_meta`: the result, and the log messages
    /// written before it as `(level, logger, data)`.
    async fn call(&mut self, tool: &str, meta: Value) -> (Value, Vec<(String, String, Value)>) {
        let (answer, before) = self
            .request(
                "tools/call",
                json!({"name": tool, "arguments": {}, "_meta": meta}),
            )
            .await;
        let logs = before
            .into_iter()
            .filter(|message| message["method"] == "notifications/message")
            .map(|message| {
                let params = &message["params"];
                (
                    params["level"].as_str().unwrap_or_default().to_owned(),
                    params["logger"].as_str().unwrap_or_default().to_owned(),
                    params["data"].clone(),
                )
            })
            .collect();
        (answer["result"].clone(), logs)
    }
}

/// The messages `chatty` logs at or above `least`, as the client reads them.
fn chatty_from(least: &str) -> Vec<(String, String, Value)> {
    let from = LogLevel::ALL
        .iter()
        .position(|level| level.as_str() == least)
        .expect("a level");
    let mut expected: Vec<_> = LogLevel::ALL[from..]
        .iter()
        .map(|level| ("chatty".to_owned(), level.as_str()))
        .map(|(logger, level)| (level.to_owned(), logger, json!(level)))
        .collect();
    if from <= 2 {
        expected.push(("notice".into(), "chatty".into(), json!({"scanned": 3})));
    }
    expected
}

#[tokio::test]
async fn the_server_declares_logging_and_answers_set_level_with_an_empty_result() {
    let (mut wire, initialized) = Wire::connect().await;
    assert_eq!(
        initialized["result"]["capabilities"]["logging"],
        json!({}),
        "{initialized}"
    );
    let (answer, _) = wire
        .request("logging/setLevel", json!({"level": "info"}))
        .await;
    assert_eq!(answer["result"], json!({}), "{answer}");
}

#[tokio::test]
async fn a_client_gets_exactly_the_messages_at_or_above_its_level_before_the_result() {
    let (mut wire, _) = Wire::connect().await;
    wire.request("logging/setLevel", json!({"level": "warning"}))
        .await;
    let (result, logs) = wire.call("chatty", json!({})).await;
    assert_eq!(result["content"][0]["text"], "done", "{result}");
    assert_eq!(logs, chatty_from("warning"));

    // The level holds for the session until the client changes it.
    wire.request("logging/setLevel", json!({"level": "debug"}))
        .await;
    let (_, logs) = wire.call("chatty", json!({})).await;
    assert_eq!(logs, chatty_from("debug"));
}

#[tokio::test]
async fn until_the_client_sets_a_level_every_message_is_sent() {
    let (mut wire, _) = Wire::connect().await;
    let (_, logs) = wire.call("chatty", json!({})).await;
    assert_eq!(logs, chatty_from("debug"));
}

#[tokio::test]
async fn a_request_that_names_a_level_in_its_meta_gets_that_level_for_itself_alone() {
    let (mut wire, _) = Wire::connect().await;
    wire.request("logging/setLevel", json!({"level": "debug"}))
        .await;
    let (_, logs) = wire
        .call(
            "chatty",
            json!({"io.modelcontextprotocol/logLevel": "critical"}),
        )
        .await;
    assert_eq!(logs, chatty_from("critical"));
    let (_, logs) = wire.call("chatty", json!({})).await;
    assert_eq!(logs, chatty_from("debug"), "the session's level again");
}

#[tokio::test]
async fn a_tool_that_does_not_log_sends_nothing_before_its_result() {
    let (mut wire, _) = Wire::connect().await;
    let (answer, before) = wire
        .request("tools/call", json!({"name": "quiet", "arguments": {}}))
        .await;
    assert_eq!(answer["result"]["content"][0]["text"], "quiet", "{answer}");
    assert_eq!(before, Vec::<Value>::new());
}

/// A client on 2026-07-28 (no session level): the levels of the messages it received.
#[derive(Clone, Default)]
struct Received(Arc<Mutex<Vec<String>>>);

#[allow(
    deprecated,
    reason = "MCP logging is deprecated from 2026-07-28 on, still served"
)]
impl ClientHandler for Received {
    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let level = serde_json::to_value(params.level).expect("a level serializes");
        self.0
            .lock()
            .expect("not poisoned")
            .push(level.as_str().unwrap_or_default().to_owned());
    }
}

/// A 2026-07-28 client (`server/discover`, no `initialize`) of a fresh server.
async fn modern() -> (RunningService<RoleClient, Received>, Received) {
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(McpServer::<ChattyTools>::new(()).serve(server_io));
    let received = Received::default();
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client = received
        .clone()
        .serve_with_lifecycle(client_io, lifecycle)
        .await
        .expect("the client connects");
    (client, received)
}

#[tokio::test]
async fn on_2026_07_28_a_request_gets_messages_only_when_its_meta_asks_for_a_level() {
    let (client, received) = modern().await;
    let plain = CallToolRequestParams::new("chatty");
    client.call_tool(plain).await.expect("the call answers");
    // Notifications are handled in tasks of their own: give them the time to land.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        *received.0.lock().expect("not poisoned"),
        Vec::<String>::new()
    );

    let mut asking = CallToolRequestParams::new("chatty");
    let mut meta = RequestMetaObject::new();
    #[allow(deprecated, reason = "MCP logging is deprecated from 2026-07-28 on")]
    meta.set_log_level(LoggingLevel::Error);
    asking.meta = Some(meta);
    client.call_tool(asking).await.expect("the call answers");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut got = received.0.lock().expect("not poisoned").clone();
    got.sort();
    assert_eq!(got, ["alert", "critical", "emergency", "error"]);

    // logging/setLevel is gone from that revision: an unknown method.
    #[allow(deprecated, reason = "MCP logging is deprecated from 2026-07-28 on")]
    let set = client
        .set_level(SetLevelRequestParams::new(LoggingLevel::Debug))
        .await;
    assert!(set.is_err(), "{set:?}");
}

#[tokio::test]
async fn on_2026_07_28_a_log_level_that_is_none_of_mcps_is_refused_naming_the_valid_ones() {
    let (client, _) = modern().await;
    let mut asking = CallToolRequestParams::new("chatty");
    let mut meta = RequestMetaObject::new();
    meta.insert("io.modelcontextprotocol/logLevel".to_owned(), json!("loud"));
    asking.meta = Some(meta);
    let refused = client.call_tool(asking).await;
    let Err(rmcp::ServiceError::McpError(error)) = refused else {
        panic!("a level that is none of MCP's is refused, not taken as absent: {refused:?}");
    };
    assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
    assert!(
        error.message.contains(r#"is "loud""#)
            && error
                .message
                .contains("debug, info, notice, warning, error, critical, alert, emergency"),
        "the refusal names the level sent and the valid ones: {}",
        error.message
    );
}
