//! A tiny MCP server for the toolbox's proxy tests, on stdio: a tool that echoes (and
//! reports progress), one that answers with an error result, one that kills the server
//! mid-call, one that adds or removes a tool and says so with `list_changed`, one that
//! never answers, and one that writes a line that is not JSON-RPC (its `text`, or a
//! sentence) on stdout instead of answering; and three whose names no provider takes
//! with a namespace prefix ([`LONG_NAMES`], `files.read`), which answer with their name.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    Implementation, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};

/// Two tools whose names, prefixed with a namespace, are past 64 characters, and alike
/// but for their ends.
const LONG_NAMES: [&str; 2] = [
    "summarize_every_open_ticket_in_the_support_queue_by_priority_and_age_then_by_owner",
    "summarize_every_open_ticket_in_the_support_queue_by_priority_and_age_then_by_team",
];

/// A tool name MCP allows and the providers do not (the `.`).
const DOTTED_NAME: &str = "files.read";

#[derive(Default)]
struct Fixture {
    /// Whether the tool `extra` is listed.
    extra: AtomicBool,
}

fn tool(name: &str, description: &str, read_only: bool) -> Tool {
    let value = json!({
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
        "annotations": {"readOnlyHint": read_only},
    });
    serde_json::from_value(value).unwrap_or_else(|error| panic!("a fixture tool: {error}"))
}

impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new("fixture", "0.1.0"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = vec![
            tool("echo", "Echo the text back.", true),
            tool("fail", "Always answer with an error.", true),
            tool("die", "Kill the server while answering.", false),
            tool("toggle", "Add or remove the tool `extra`.", false),
            tool("hang", "Never answer.", true),
            tool(
                "garbage",
                "Write a line that is not JSON-RPC, never answer.",
                true,
            ),
        ];
        for name in LONG_NAMES.into_iter().chain([DOTTED_NAME]) {
            tools.push(tool(name, "Answer with this tool's name.", true));
        }
        if self.extra.load(Ordering::SeqCst) {
            tools.push(tool("extra", "Exists only after a toggle.", true));
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let text = request
            .arguments
            .as_ref()
            .and_then(|arguments| arguments.get("text"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let result = match request.name.as_ref() {
            "echo" => {
                if let Some(token) = context.meta.get_progress_token() {
                    let _ = context
                        .peer
                        .notify_progress(ProgressNotificationParam::new(token, 1.0).with_total(2.0))
                        .await;
                    // Progress is reported mid-work: the rest of the work takes a moment.
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                CallToolResult::success(vec![ContentBlock::text(format!("echo: {text}"))])
            }
            "fail" => CallToolResult::error(vec![ContentBlock::text("the remote tool failed")]),
            "die" => std::process::exit(3),
            "toggle" => {
                let now = !self.extra.fetch_xor(true, Ordering::SeqCst);
                let _ = context.peer.notify_tool_list_changed().await;
                CallToolResult::success(vec![ContentBlock::text(format!("extra listed: {now}"))])
            }
            "hang" => std::future::pending().await,
            "garbage" => {
                let line = if text.is_empty() {
                    "this line is not JSON-RPC"
                } else {
                    text.as_str()
                };
                {
                    let mut stdout = std::io::stdout().lock();
                    let _ = writeln!(stdout, "{line}");
                    let _ = stdout.flush();
                }
                std::future::pending().await
            }
            name if LONG_NAMES.contains(&name) || name == DOTTED_NAME => {
                CallToolResult::success(vec![ContentBlock::text(format!("ran {name}"))])
            }
            "extra" if self.extra.load(Ordering::SeqCst) => {
                CallToolResult::success(vec![ContentBlock::text("extra ran")])
            }
            other => {
                return Err(ErrorData::invalid_params(format!("no tool {other}"), None));
            }
        };
        Ok(CallToolResponse::from(result))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let service = match Fixture::default().serve(rmcp::transport::stdio()).await {
        Ok(service) => service,
        Err(error) => {
            eprintln!("fixture_mcp: {error}");
            std::process::exit(1);
        }
    };
    let _ = service.waiting().await;
}
