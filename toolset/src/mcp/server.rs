//! The rmcp `ServerHandler` of [`McpServer`]: `initialize`, `tools/list`, `tools/call`,
//! and the stdio transport.

use super::McpServer;
use crate::consumer::mcp;
use crate::{Progress, ProgressSink, ToolCall, ToolOutput, ToolSet};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ResultType,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler, ServiceExt};
use std::io;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

impl<T: ToolSet> McpServer<T> {
    /// Serves the set over stdio (newline-delimited JSON-RPC on stdin/stdout) until the
    /// client closes the connection.
    ///
    /// Nothing else may write to stdout while this runs.
    pub async fn serve_stdio(self) -> io::Result<()> {
        let running = self
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|error| io::Error::other(format!("MCP initialization failed: {error}")))?;
        running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|error| io::Error::other(format!("the MCP service stopped: {error}")))
    }

    /// Answers one `tools/call`: gate, then run or withhold, as a `CallToolResult`.
    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let arguments = match &request.arguments {
            Some(arguments) => serde_json::to_string(arguments).map_err(|error| {
                ErrorData::invalid_params(format!("unreadable arguments: {error}"), None)
            })?,
            None => "{}".to_owned(),
        };
        let call = ToolCall::new(context.id.to_string(), request.name.as_ref(), arguments);
        let plan = match crate::gate::<T>([call], &self.policy) {
            Ok(plan) => plan,
            Err(rejected) => {
                let output = rejected
                    .results()
                    .into_iter()
                    .next()
                    .map_or_else(|| ToolOutput::error(rejected.to_string()), |r| r.output);
                return to_call_tool_result(&output);
            }
        };
        if let Some(proposal) = plan.proposals().first() {
            let text = self.withheld_text(&proposal.call().name, proposal.tier());
            return to_call_tool_result(&ToolOutput::error(text));
        }

        let (progress, forwarder) = match context.meta.get_progress_token() {
            Some(token) => {
                let (sink, forwarder) = PeerProgress::start(context.peer.clone(), token);
                (Some(sink), Some(forwarder))
            }
            None => (None, None),
        };
        let mut ctx = self.context.clone().with_cancellation(context.ct.clone());
        if let Some(sink) = progress {
            ctx = ctx.with_progress(sink);
        }
        let report = {
            // A call cancelled while it waits for the state never runs.
            let mut state = tokio::select! {
                biased;
                state = self.state.lock() => state,
                () = context.ct.cancelled() => {
                    return to_call_tool_result(&ToolOutput::error(
                        "Cancelled: the call was cancelled before it started",
                    ));
                }
            };
            crate::apply::<T>(&mut state, &ctx, plan).await
        };
        // Every progress notification goes out before the result.
        drop(ctx);
        if let Some(forwarder) = forwarder {
            forwarder.finish().await;
        }
        let mut output = report
            .results()
            .into_iter()
            .next()
            .map_or_else(ToolOutput::empty, |result| result.output);
        // A tool with an output schema must answer with a conforming object (clients
        // check it); an answer without one (a skip) can only be sent as an error.
        let conforms = matches!(output.structured, Some(serde_json::Value::Object(_)));
        if !output.is_error && !conforms && self.has_output_schema(&request.name) {
            output.is_error = true;
        }
        to_call_tool_result(&output)
    }

    /// Whether the listed tool `name` declares an `outputSchema`.
    fn has_output_schema(&self, name: &str) -> bool {
        self.tools.as_ref().is_ok_and(|tools| {
            tools
                .iter()
                .any(|tool| tool.name == name && tool.output_schema.is_some())
        })
    }
}

/// The rmcp form of an output, through the provider-neutral MCP rendering (which leaves
/// host-only metadata out).
fn to_call_tool_result(output: &ToolOutput) -> Result<CallToolResult, ErrorData> {
    let mut result: CallToolResult =
        serde_json::from_value(mcp::result(output)).map_err(|error| {
            ErrorData::internal_error(format!("could not build the tool result: {error}"), None)
        })?;
    // 2026-07-28 requires `resultType`; rmcp leaves it out for peers on older versions.
    result.result_type = Some(ResultType::COMPLETE);
    Ok(result)
}

/// Forwards a call's progress reports to the client as `notifications/progress`, in
/// order, through one task per request.
struct PeerProgress {
    sender: mpsc::UnboundedSender<Progress>,
}

/// The task forwarding one request's progress.
struct Forwarder {
    task: tokio::task::JoinHandle<()>,
    done: CancellationToken,
}

impl Forwarder {
    /// Sends what was reported so far, then stops, even if a handler kept a context.
    async fn finish(self) {
        self.done.cancel();
        let _ = self.task.await;
    }
}

impl PeerProgress {
    /// A sink and the task draining it.
    fn start(peer: Peer<RoleServer>, token: ProgressToken) -> (Arc<dyn ProgressSink>, Forwarder) {
        let (sender, mut receiver) = mpsc::unbounded_channel::<Progress>();
        let done = CancellationToken::new();
        let finished = done.clone();
        let task = tokio::spawn(async move {
            loop {
                let progress = tokio::select! {
                    biased;
                    progress = receiver.recv() => progress,
                    () = finished.cancelled() => receiver.try_recv().ok(),
                };
                let Some(progress) = progress else { break };
                let mut params = ProgressNotificationParam::new(token.clone(), progress.progress);
                params.total = progress.total;
                params.message = progress.message;
                // The client may be gone; the call goes on regardless.
                if peer.notify_progress(params).await.is_err() {
                    break;
                }
            }
        });
        (Arc::new(PeerProgress { sender }), Forwarder { task, done })
    }
}

impl ProgressSink for PeerProgress {
    fn report(&self, _call_id: &str, progress: Progress) {
        // The receiver only goes away when the client is gone.
        let _ = self.sender.send(progress);
    }
}

impl<T: ToolSet> ServerHandler for McpServer<T> {
    fn get_info(&self) -> ServerConfig {
        let config = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                self.name.to_string(),
                self.version.to_string(),
            ));
        match &self.instructions {
            Some(instructions) => config.with_instructions(instructions.to_string()),
            None => config,
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        match &self.tools {
            Ok(tools) => Ok(ListToolsResult::with_all_items(tools.to_vec())),
            Err(error) => Err(ErrorData::internal_error(error.to_string(), None)),
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.call(request, context)
            .await
            .map(CallToolResponse::from)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let tools = self.tools.as_ref().ok()?;
        tools.iter().find(|tool| tool.name == name).cloned()
    }
}
