//! The rmcp `ServerHandler` of [`McpServer`]: `initialize`, `tools/list`, `tools/call`
//! (gate, then the state's read or write lock as the tier decides, under the server's
//! time limit and the client's presence), and the stdio transport.

use super::McpServer;
use super::elicit;
use super::messages;
use super::presence::{Presence, Watched};
use super::progress::Forwarder;
use crate::apply::{call_context, refusal, run_call};
use crate::plan::{Authority, Step};
use crate::{Access, Content, Outcome, Tier, ToolCall, ToolContext, ToolOutput, ToolSet, ToolSpec};
use crate::{Approved, Plan, Proposal};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, ErrorCode, Implementation, ListToolsResult, PaginatedRequestParams, RequestId,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService, ServerInitializeError};
use rmcp::transport::IntoTransport;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use std::io;
use std::time::Duration;
use tokio::sync::{RwLockReadGuard, RwLockWriteGuard};
use tracing::Instrument;

impl<T: ToolSet> McpServer<T> {
    /// Serves the set over stdio (newline-delimited JSON-RPC on stdin/stdout) until the
    /// client closes the connection.
    ///
    /// Nothing else may write to stdout while this runs.
    ///
    /// Reading lines is rmcp's: a line that is not JSON, or not a JSON-RPC message, is
    /// logged and skipped without an answer, and a line over 16 MiB is discarded
    /// unanswered (`rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH`).
    pub async fn serve_stdio(self) -> io::Result<()> {
        self.serve_io(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Serves the set on any pair of byte streams the host owns (newline-delimited
    /// JSON-RPC read from `reader`, written to `writer`) until the client closes the
    /// connection: an accepted socket, a child process's pipes, the two halves of
    /// [`tokio::io::split`] over one stream such as a [`tokio::io::duplex`] end. The host
    /// needs no rmcp dependency of its own, so no matching rmcp version; for rmcp's own
    /// transports use [`serve_on`](McpServer::serve_on) with the re-exported
    /// [`toolset::mcp::rmcp`](crate::mcp::rmcp).
    ///
    /// Reading lines is rmcp's, as for [`serve_stdio`](McpServer::serve_stdio).
    ///
    /// ```
    /// # use toolset::{tool, toolset};
    /// # pub struct Notes(Vec<String>);
    /// # /// List the notes.
    /// # #[tool(tier = "read_only")]
    /// # pub async fn list(notes: &Notes) -> String { notes.0.join("\n") }
    /// # toolset! { /// Notes.
    /// #   pub NoteTools<Notes> = [list]; }
    /// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    /// use toolset::mcp::McpServer;
    ///
    /// # fn main() -> std::io::Result<()> {
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(async {
    /// let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    /// let (reader, writer) = tokio::io::split(server_end);
    /// let server = McpServer::<NoteTools>::new(Notes(vec!["milk".into()]));
    /// let serving = tokio::spawn(server.serve_io(reader, writer));
    ///
    /// // The client's end: one JSON-RPC message a line.
    /// let (from_server, mut to_server) = tokio::io::split(client_end);
    /// let mut lines = BufReader::new(from_server).lines();
    /// to_server.write_all(concat!(
    ///     r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","#,
    ///     r#""capabilities":{},"clientInfo":{"name":"host","version":"1"}}}"#, "\n",
    /// ).as_bytes()).await?;
    /// let initialized = lines.next_line().await?.unwrap_or_default();
    /// assert!(initialized.contains(r#""id":1"#));
    /// to_server.write_all(concat!(
    ///     r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, "\n",
    ///     r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list"}}"#, "\n",
    /// ).as_bytes()).await?;
    /// let answer = lines.next_line().await?.unwrap_or_default();
    /// assert!(answer.contains(r#""text":"milk""#), "{answer}");
    ///
    /// // Closing the connection ends the serving.
    /// drop((lines, to_server));
    /// serving.await.map_err(std::io::Error::other)??;
    /// # Ok(()) })
    /// # }
    /// ```
    pub async fn serve_io<R, W>(self, reader: R, writer: W) -> io::Result<()>
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        let running = self
            .serve_on((reader, writer))
            .await
            .map_err(|error| io::Error::other(format!("MCP initialization failed: {error}")))?;
        running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|error| io::Error::other(format!("the MCP service stopped: {error}")))
    }

    /// Serves the set on any rmcp server transport (a `(reader, writer)` pair, a duplex
    /// stream, a child process's pipes, …) and returns once the client has initialized,
    /// with rmcp's handle on the running session. The types are those of the rmcp this
    /// crate re-exports as [`toolset::mcp::rmcp`](crate::mcp::rmcp); a host that only
    /// needs to serve byte streams uses [`serve_io`](McpServer::serve_io) instead.
    ///
    /// Use this rather than rmcp's `ServiceExt::serve`: it also watches the connection,
    /// so calls still waiting when it ends do not start, and running ones are cancelled.
    pub async fn serve_on<Tr, E, A>(
        self,
        transport: Tr,
    ) -> Result<RunningService<RoleServer, Self>, ServerInitializeError>
    where
        Tr: IntoTransport<RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        self.for_new_session()
            .serve(Watched::new(transport.into_transport()))
            .await
    }

    /// Answers one `tools/call`: gate, then run or withhold, as a `CallToolResult`.
    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let output = self.answer(request, &context).await?;
        if self.session.activate(&self.base, &output.activate) {
            // Before the result, so the client lists the new tools before it reads it.
            let _ = context.peer.notify_tool_list_changed().await;
        }
        Ok(to_call_tool_result(output))
    }

    /// What the model reads for one `tools/call`, with the tools it activates.
    async fn answer(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<ToolOutput, ErrorData> {
        let call = tool_call(&context.id, &request)?;
        let plan = match self.session.gate(&self.base, call) {
            Ok(plan) => plan,
            Err(rejected) => {
                let output = rejected
                    .results()
                    .into_iter()
                    .next()
                    .map_or_else(|| ToolOutput::error(rejected.to_string()), |r| r.output);
                return Ok(output);
            }
        };
        let plan = match plan.proposals().first().cloned() {
            None => plan,
            Some(proposal) => match self.approved_by_human(&proposal, context).await {
                Some(approved) => approved,
                None => {
                    let text = self.withheld_text(&proposal.call().name, proposal.tier());
                    return Ok(ToolOutput::error(text));
                }
            },
        };
        let (calls, steps, _) = plan.into_parts();
        let (call, step) = match (calls.first(), steps.into_iter().next()) {
            (Some(call), Some(step)) => (call, step),
            // The gate plans one step per call; one call in, one step out.
            _ => return Ok(ToolOutput::empty()),
        };
        let (name, typed, authority) = match step {
            Step::Run {
                name,
                typed,
                authority,
                ..
            } => (name, typed, authority),
            // The search, answered by the gate.
            Step::Answered { output, .. } => return Ok(output),
            // Withheld steps were put to the human above; an approved plan has none.
            Step::AwaitApproval { name } => {
                let spec = T::spec_of(name);
                return Ok(ToolOutput::error(
                    self.withheld_text(spec.name(), spec.tier()),
                ));
            }
            // A runtime tool of the toolbox served: its handler, no state.
            Step::RunRuntime {
                tool,
                args,
                authority,
                ..
            } => {
                return Ok(self
                    .run_runtime(call, &tool, args, authority, context)
                    .await);
            }
            // As for the set's: put to the human above; an approved plan has none.
            Step::AwaitRuntimeApproval { tool } => {
                let spec = tool.spec();
                return Ok(ToolOutput::error(
                    self.withheld_text(spec.name(), spec.tier()),
                ));
            }
        };
        let spec = T::spec_of(name);
        let mut output = self.run(call, spec, typed, authority, context).await;
        // A tool with an output schema must answer with a conforming object (clients
        // check it); an answer without one (a skip) can only be sent as an error.
        let conforms = matches!(output.structured, Some(serde_json::Value::Object(_)));
        if !output.is_error && !conforms && has_output_schema(spec) {
            output.is_error = true;
        }
        Ok(output)
    }

    /// The one-call plan of `proposal` if the human approved it by elicitation; `None`
    /// when not asked (disabled, a propose-only tool, a client that cannot be asked) or
    /// when the answer is anything but an explicit approval.
    async fn approved_by_human(
        &self,
        proposal: &Proposal,
        context: &RequestContext<RoleServer>,
    ) -> Option<Plan<T>> {
        let limit = self.approval_timeout?;
        if proposal.is_propose_only() || !elicit::client_can_ask(&context.peer) {
            return None;
        }
        let client = Client::of(context);
        let runtime = self.base.toolbox.runtime_tool(&proposal.call().name);
        let shown = elicit::Shown {
            title: match &runtime {
                Some(tool) => tool.spec().title(),
                None => proposal.title::<T>(),
            },
            preview: self.base.toolbox.preview(proposal),
        };
        let approved = tokio::select! {
            biased;
            () = client.gone() => false,
            approved = elicit::human_approves(&context.peer, proposal, shown, limit) => approved,
        };
        if !approved || client.is_gone() {
            return None;
        }
        // Bound to the very call shown: approving re-verifies it under the session's
        // request now, for the set's tools and the toolbox's alike.
        match self.session.approve_in_flight(&self.base, proposal) {
            Ok(Approved::Run(plan)) => Some(plan),
            Ok(Approved::Handoff { .. } | Approved::RuntimeHandoff { .. }) | Err(_) => None,
        }
    }

    /// Runs one approved call against the state, with its progress forwarded, and says
    /// what the model reads about it.
    async fn run(
        &self,
        call: &ToolCall,
        spec: &'static ToolSpec,
        typed: T::Call,
        authority: Authority,
        context: &RequestContext<RoleServer>,
    ) -> ToolOutput {
        if let Some(reason) = refusal(spec, authority) {
            let outcome = Outcome::Refused { reason };
            let ctx = &self.context;
            crate::trace::not_run(spec, call, crate::trace::ToolType::Function, ctx, &outcome);
            return outcome.to_tool_output();
        }
        let client = Client {
            presence: context.extensions.get::<Presence>().cloned(),
            request: context.ct.clone(),
        };
        let (ctx, forwarder) = self.request_context(context);
        let own_ctx = call_context(&ctx, spec, call);
        let output = match self
            .run_locked(call, spec, typed, own_ctx.as_ref().unwrap_or(&ctx), &client)
            .await
        {
            Ok(outcome) => outcome.to_tool_output(),
            Err(NotStarted::ClientGone) => ToolOutput::error(crate::messages::GONE_BEFORE_START),
            Err(NotStarted::Busy(waited)) => {
                ToolOutput::error(crate::messages::waited_too_long(waited))
            }
        };
        // Every progress notification goes out before the result.
        drop(own_ctx);
        drop(ctx);
        if let Some(forwarder) = forwarder {
            forwarder.finish().await;
        }
        output
    }

    /// The context a call of this request runs with: the server's, cancelled with the
    /// request, and reporting progress to the client when the request carries a progress
    /// token; with the forwarder to finish before the result is sent. rmcp's client sends
    /// a token with every request, so the forwarding task is spawned only by a first
    /// report (see `progress`).
    pub(super) fn request_context(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> (ToolContext, Option<Forwarder>) {
        let progress = context
            .meta
            .get_progress_token()
            .and_then(|token| Forwarder::start(context.peer.clone(), token));
        let ctx = self.context.clone().with_cancellation(context.ct.clone());
        match progress {
            Some((sink, forwarder)) => (ctx.with_progress(sink), Some(forwarder)),
            None => (ctx, None),
        }
    }

    /// Takes the state as the tool's tier needs it (shared for `read_only`, exclusive
    /// otherwise) and runs the call, unless its client leaves first or it waits longer
    /// than the time limit.
    async fn run_locked(
        &self,
        call: &ToolCall,
        spec: &'static ToolSpec,
        typed: T::Call,
        ctx: &ToolContext,
        client: &Client,
    ) -> Result<Outcome, NotStarted> {
        let limit = self.call_timeout;
        let acquire = async {
            if spec.tier() == Tier::ReadOnly {
                Held::Read(self.state.read().await)
            } else {
                Held::Write(self.state.write().await)
            }
        };
        // `biased`: a client that has gone wins over a lock that frees at the same time.
        let mut held = tokio::select! {
            biased;
            () = client.gone() => return Err(NotStarted::ClientGone),
            held = tokio::time::timeout(limit, acquire) => held.map_err(|_| NotStarted::Busy(limit))?,
        };
        if client.is_gone() {
            return Err(NotStarted::ClientGone);
        }
        let access = match &mut held {
            Held::Read(state) => Access::Shared(&**state),
            Held::Write(state) => Access::Exclusive(&mut **state),
        };
        // A session never injects: what its policy hides is concealed.
        let concealed = self.base.policy.concealed(&[]);
        let running = tokio::time::timeout(
            limit,
            run_call::<T>(access, ctx, call, typed, spec, &concealed),
        );
        let outcome = tokio::select! {
            biased;
            finished = running => finished.map_or(Outcome::TimedOut { after: limit }, |(outcome, _)| outcome),
            // Dropping the handler's future stops it; its context says so too.
            () = client.gone() => {
                ctx.cancellation().cancel();
                Outcome::Cancelled
            }
        };
        Ok(outcome)
    }
}

/// Whether the tool of `spec` is listed with an `outputSchema`: read from the spec the
/// gate's plan names, as the MCP rendering decides it, instead of searching the list.
pub(super) fn has_output_schema(spec: &ToolSpec) -> bool {
    crate::consumer::mcp::lists_output_schema(spec)
}

/// The call of one `tools/call`, from the params rmcp has parsed: its id the request's,
/// its arguments as JSON text (missing ones as `{}`), which is what the gate reads.
fn tool_call(id: &RequestId, request: &CallToolRequestParams) -> Result<ToolCall, ErrorData> {
    let arguments = match &request.arguments {
        Some(arguments) => serde_json::to_string(arguments).map_err(|error| {
            ErrorData::invalid_params(messages::unreadable_params(&error.to_string()), None)
        })?,
        None => "{}".to_owned(),
    };
    Ok(ToolCall::new(
        id.to_string(),
        request.name.as_ref(),
        arguments,
    ))
}

/// The state as one call holds it.
enum Held<'a, S> {
    /// Shared with the other read-only calls.
    Read(RwLockReadGuard<'a, S>),
    /// Alone.
    Write(RwLockWriteGuard<'a, S>),
}

/// Why a call did not start.
enum NotStarted {
    /// Its client went away (request cancelled, connection ended) while it waited.
    ClientGone,
    /// It waited this long for the state.
    Busy(Duration),
}

/// What tells that the client of a call has gone.
pub(super) struct Client {
    /// The connection's presence; `None` when served through rmcp's own `serve`,
    /// bypassing [`McpServer::serve_on`].
    presence: Option<Presence>,
    /// The request's token, cancelled by `notifications/cancelled`.
    request: tokio_util::sync::CancellationToken,
}

impl Client {
    /// The client of the request `context`.
    pub(super) fn of(context: &RequestContext<RoleServer>) -> Self {
        Client {
            presence: context.extensions.get::<Presence>().cloned(),
            request: context.ct.clone(),
        }
    }

    pub(super) fn is_gone(&self) -> bool {
        self.request.is_cancelled() || self.presence.as_ref().is_some_and(Presence::is_gone)
    }

    pub(super) async fn gone(&self) {
        match &self.presence {
            Some(presence) => tokio::select! {
                () = presence.gone() => {}
                () = self.request.cancelled() => {}
            },
            None => self.request.cancelled().await,
        }
    }
}

/// The rmcp form of an output, built directly: the same result as the provider-neutral
/// MCP rendering ([`crate::consumer::mcp::result`]; the test below holds them equal), with
/// host-only metadata left out, `structuredContent` only for an object, and
/// `resultType: "complete"` (2026-07-28 requires it; rmcp leaves it out for older peers).
fn to_call_tool_result(output: ToolOutput) -> CallToolResult {
    let has_parts = output.content.iter().any(|part| match part {
        Content::Text { text } => !text.is_empty(),
        Content::Image { .. } => true,
    });
    let content = if has_parts {
        None
    } else {
        // Without content: the structured value's JSON, else the fallback sentence.
        Some(crate::consumer::result_content::text(
            &output,
            crate::consumer::result_content::Images::Skip,
        ))
    };
    let ToolOutput {
        content: parts,
        structured,
        is_error,
        ..
    } = output;
    let blocks = match content {
        Some(text) => vec![ContentBlock::text(text)],
        None => parts
            .into_iter()
            .filter_map(|part| match part {
                Content::Text { text } if text.is_empty() => None,
                Content::Text { text } => Some(ContentBlock::text(text)),
                Content::Image { data, mime_type } => Some(ContentBlock::image(data, mime_type)),
            })
            .collect(),
    };
    let mut result = if is_error {
        CallToolResult::error(blocks)
    } else {
        CallToolResult::success(blocks)
    };
    if let Some(structured @ serde_json::Value::Object(_)) = structured {
        result.structured_content = Some(structured);
    }
    result
}

/// The methods rmcp parses into typed requests: a request for one of them that reaches
/// `on_custom_request` had params that did not parse.
const KNOWN_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "server/discover",
];

impl<T: ToolSet> ServerHandler for McpServer<T> {
    fn get_info(&self) -> ServerConfig {
        // `listChanged`: a search activates tools for the session that ran it.
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        let config = ServerConfig::new(capabilities).with_server_info(Implementation::new(
            self.name.to_string(),
            self.version.to_string(),
        ));
        match &self.instructions {
            Some(instructions) => config.with_instructions(instructions.to_string()),
            None => config,
        }
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // A namespace of the toolbox refreshing changes this session's list.
        self.forward_refreshes(context.peer);
    }

    async fn initialize(
        &self,
        request: rmcp::model::InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::InitializeResult, ErrorData> {
        self.initialize_in_span(request, context)
    }

    async fn ping(&self, context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        self.ping_in_span(&context);
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let span = self.request_span("tools/list", None, &context);
        let _in_request = span.enter();
        // rmcp takes the tools by value: a copy of the shared list, whose schemas are
        // `Arc`s and whose names and descriptions borrow the specs.
        match self.session.listed(&self.base) {
            Ok(tools) => Ok(ListToolsResult::with_all_items(tools.to_vec())),
            Err(error) => {
                super::trace::record_error(&span, &ErrorCode::INTERNAL_ERROR.0.to_string());
                Err(ErrorData::internal_error(error.to_string(), None))
            }
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let span = self.request_span("tools/call", Some(&request.name), &context);
        // Answering is a large future (gate, elicitation, lock, time limits) and rmcp
        // moves each request's future into a task of its own: boxed, it is one allocation
        // instead of its whole state copied at every move (callgrind: 87,000 of a round
        // trip's 267,000 instructions).
        let answer = Box::pin(self.call(request, context).instrument(span.clone())).await;
        super::trace::record_call(&span, &answer);
        answer.map(CallToolResponse::from)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let tools = self.session.listed(&self.base).ok()?;
        tools.iter().find(|tool| tool.name == name).cloned()
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let method = request.method.as_str();
        if KNOWN_METHODS.contains(&method) {
            let error = malformed_params_error(method, request.params.as_ref());
            return Err(ErrorData::invalid_params(
                messages::malformed_params(method, &error),
                None,
            ));
        }
        Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            messages::unknown_method(method),
            None,
        ))
    }
}

/// What is wrong with the params of a known method, as serde says it.
fn malformed_params_error(method: &str, params: Option<&serde_json::Value>) -> String {
    let params = params.cloned().unwrap_or(serde_json::Value::Null);
    let parsed = match method {
        "tools/call" => serde_json::from_value::<CallToolRequestParams>(params).map(|_| ()),
        "tools/list" => {
            serde_json::from_value::<Option<PaginatedRequestParams>>(params).map(|_| ())
        }
        _ => return "they do not have the method's shape".to_owned(),
    };
    match parsed {
        Ok(()) => "they do not have the method's shape".to_owned(),
        Err(error) => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The result is built without going through JSON; it must still be exactly what the
    /// MCP rendering writes (plus `resultType`), for every shape of output.
    #[test]
    fn a_call_tool_result_is_the_mcp_rendering_of_the_output() {
        let outputs = [
            ToolOutput::text("noon"),
            ToolOutput::error("Error: boom"),
            ToolOutput::empty(),
            ToolOutput::error(""),
            ToolOutput::structured(json!({"hits": 2})),
            ToolOutput::structured(json!([1, 2])),
            ToolOutput::structured(json!({"hits": 2}))
                .with_image("iVBOR", "image/png")
                .with_metadata(json!({"host": "only"})),
            ToolOutput::text("").with_image("iVBOR", "image/png"),
        ];
        for output in outputs {
            let mut expected = crate::consumer::mcp::result(&output);
            if let serde_json::Value::Object(map) = &mut expected {
                map.insert("resultType".into(), json!("complete"));
            }
            let built = serde_json::to_value(to_call_tool_result(output.clone()))
                .expect("a CallToolResult serializes");
            assert_eq!(built, expected, "for {output:?}");
        }
    }

    #[test]
    fn a_call_reads_rmcps_parsed_arguments_as_the_mcp_call_parser_does() {
        let params = json!({"name": "search", "arguments": {"limit": 3, "query": "x"}});
        let request: CallToolRequestParams =
            serde_json::from_value(params.clone()).expect("valid params");
        let id = RequestId::Number(7);
        let call = tool_call(&id, &request).expect("readable params");
        assert_eq!(
            call,
            crate::consumer::mcp::call(&id, &params).expect("valid params")
        );
        let bare: CallToolRequestParams =
            serde_json::from_value(json!({"name": "now"})).expect("valid params");
        let id = RequestId::String("req-1".into());
        assert_eq!(
            tool_call(&id, &bare).expect("readable params"),
            ToolCall::new("req-1", "now", "{}")
        );
    }
}
