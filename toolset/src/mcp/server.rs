//! What [`McpServer`] does for a request: a `tools/call` (gate, then the state's read or
//! write lock as the tier decides, under the server's time limit and the client's
//! presence, by the one `apply`), its proposals and asks, and serving on any rmcp
//! transport. Which request reaches which of these is rmcp's `ServerHandler`, in
//! `handler.rs`.

use super::McpServer;
use super::elicit;
use super::incoming::ArgumentsText;
use super::input_required;
use super::presence::{Presence, Watched};
use super::progress::Forwarder;
use super::rounds::{Round, StateRefused};
use crate::apply::Locked;
use crate::approval::Approved;
use crate::call::ToolCall;
use crate::context::{LogLevel, ToolContext};
use crate::messages::Next;
use crate::outcome::Outcome;
use crate::output::ToolOutput;
use crate::plan::Plan;
use crate::proposal::Proposal;
use crate::set::ToolSet;
use crate::spec::ToolSpec;
use futures_util::FutureExt;
use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult, InputRequiredResult};
use rmcp::service::RequestContext;
use rmcp::transport::IntoTransport;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use std::future::{Future, poll_fn};
use std::io;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::Poll;

impl<T: ToolSet> McpServer<T> {
    /// Serves the set on `transport` until the client closes the connection: any rmcp
    /// server transport, that is anything rmcp's `IntoTransport` takes. Stdio is
    /// `serve(toolset::mcp::stdio())` (newline-delimited JSON-RPC on stdin/stdout;
    /// nothing else may write to stdout meanwhile); any pair of byte streams the host
    /// owns is `serve(LineTransport::new(reader, writer))` (an accepted socket's halves, a
    /// child process's pipes, [`tokio::io::split`] of a [`tokio::io::duplex`] end). rmcp
    /// is re-exported as [`toolset::mcp::rmcp`](crate::mcp::rmcp), so a host names rmcp's
    /// transports without a matching rmcp dependency of its own.
    ///
    /// Fails when the client's `initialize` fails, or when the session ends in an error.
    /// Unlike rmcp's `ServiceExt::serve` (which this inherent method shadows), it also
    /// watches the connection, so calls still waiting when it ends do not start and
    /// running ones are cancelled.
    ///
    /// [`stdio`](crate::mcp::stdio) and [`LineTransport`](crate::mcp::LineTransport)
    /// answer every line that is not a JSON-RPC message (`-32700`, `-32600`, a line over
    /// [`DEFAULT_MAX_LINE_LENGTH`](crate::mcp::DEFAULT_MAX_LINE_LENGTH) too), and let the
    /// gate judge a number no reader can hold in a call's arguments (see the
    /// [module docs](crate::mcp), "Malformed input"). rmcp's own, which this takes as well
    /// (`rmcp::transport::stdio()`, `serve((reader, writer))`, `serve(stream)`), skip a
    /// line that is not JSON without an answer.
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
    /// use toolset::mcp::{LineTransport, McpServer};
    ///
    /// # fn main() -> std::io::Result<()> {
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(async {
    /// // Over stdio: McpServer::<NoteTools>::new(notes).serve(toolset::mcp::stdio())
    /// let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    /// let (reader, writer) = tokio::io::split(server_end);
    /// let server = McpServer::<NoteTools>::new(Notes(vec!["milk".into()]));
    /// let serving = tokio::spawn(server.serve(LineTransport::new(reader, writer)));
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
    pub async fn serve<Tr, E, A>(self, transport: Tr) -> io::Result<()>
    where
        Tr: IntoTransport<RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        serve_session(self.for_new_session(), transport).await
    }

    /// Answers one `tools/call`: gate, then run or withhold, as a `CallToolResult`; or,
    /// for a client on 2026-07-28 or later, `input_required` asking the human first; or,
    /// for a tool run as a task, a task that does the same and keeps the result
    /// (`as_task.rs` starts it, `tasks.rs` keeps it).
    pub(super) async fn call(
        &self,
        mut request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        super::progress::check_log_level(&context)?;
        let plan = match self.gated(&mut request, &context)? {
            Ok(plan) => plan,
            Err(refused) => return Ok(self.written(refused, &context).await.into()),
        };
        // A task changes only when the result is delivered, not what runs.
        let plan = match self.started_as_task(plan, &context) {
            Ok(task) => return Ok(CallToolResponse::Task(task)),
            Err(plan) => plan,
        };
        // The common call runs at once; one withheld for the human takes the longer way
        // (elicitation, `input_required`), boxed: an `async fn` holds what it awaits twice
        // over (rust-lang/rust#62958), so this one stays small. The common run is held in
        // place: `call_tool` boxes this whole future, which rmcp then moves as a pointer,
        // so a box of the run's own would only add an allocation a call.
        let output = if plan.proposals().is_empty() {
            // A handler that asks, on 2026-07-28 and later: its asks are rounds.
            let round = match self.round(&plan, &request, &context) {
                Ok(round) => round,
                Err(refused) => return Err(ErrorData::invalid_params(refused.to_string(), None)),
            };
            let Some((call, round)) = round else {
                return Ok(self
                    .written(self.run(plan, &context).await, &context)
                    .await
                    .into());
            };
            context.extensions.insert(Arc::clone(&round));
            let output = Box::pin(self.run(plan, &context)).await;
            if let Some(asking) = round.required() {
                return Err(super::rounds::missing_capability(asking));
            }
            let limit = self
                .approval_timeout
                .unwrap_or(super::DEFAULT_APPROVAL_TIMEOUT);
            if let Some(asking) = self.rounds.input_required::<T>(&call, &round, limit) {
                return Ok(CallToolResponse::from(asking));
            }
            output
        } else {
            match Box::pin(self.answer(plan, Some(&request), &context)).await {
                Answered::Output(output) => output,
                Answered::InputRequired(asking) => return Ok(CallToolResponse::from(asking)),
            }
        };
        Ok(self.written(output, &context).await.into())
    }

    /// For a call of 2026-07-28 or later to a handler that takes its context, the round its
    /// asks are answered in (`rounds.rs`), with the call it is bound to; `None` for any
    /// other; `Err` when the request's `requestState` does not open for this call.
    fn round(
        &self,
        plan: &Plan<T>,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<Option<(ToolCall, Arc<Round>)>, StateRefused> {
        let asks = plan.specs().flatten().any(ToolSpec::takes_context);
        let call = plan.calls().first();
        let (Some(call), true) = (call, asks) else {
            return Ok(None);
        };
        if !input_required::speaks(context.protocol_version().as_ref()) {
            return Ok(None);
        }
        let round = self.rounds.round::<T>(
            call,
            context.client_capabilities(),
            request.request_state.as_deref(),
            request.input_responses.as_ref(),
            context.ct.child_token(),
        )?;
        Ok(Some((call.clone(), Arc::new(round))))
    }

    /// The `CallToolResult` of `output`, after telling the client of the tools it
    /// activates.
    pub(super) async fn written(
        &self,
        mut output: ToolOutput,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        if stands_alone(context) && !output.activates().is_empty() {
            // Its session ends with this request: what it activates is gone with it, and
            // the model is told so rather than that the tools are there from now on.
            output.take_activations();
            output.push(crate::output::Content::Text {
                text: crate::messages::NOT_KEPT_WITHOUT_SESSION.to_owned(),
            });
        }
        if self.session.activate(&self.base, output.activates()) {
            // Before the result, so the client lists the new tools before it reads it.
            // Boxed: sending a notification is a large future, and a rare one; inline, it
            // would grow every call's answer, which is moved on each request.
            let _ = Box::pin(context.peer.notify_tool_list_changed()).await;
        }
        crate::consumer::mcp::call_tool_result(output)
    }

    /// One `tools/call` read by the MCP consumer's reader and gated through the session's
    /// request: the plan, or what the model reads of a refused call. The arguments rmcp
    /// parsed move into the call (the gate reads them as they are), taken out of `request`;
    /// arguments rmcp could not parse (a number no reader can hold), which toolset's
    /// transports kept as text beside the request, are read by the gate as text, as any
    /// provider's are.
    fn gated(
        &self,
        request: &mut CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<Result<Plan<T>, ToolOutput>, ErrorData> {
        let call = match arguments_text(context) {
            Some(text) => ToolCall::new(context.id.to_string(), &*request.name, &*text.0),
            None => crate::consumer::mcp::parsed_call(
                &context.id,
                &request.name,
                request.arguments.take(),
            ),
        };
        if stands_alone(context) {
            self.session.presume_exposed();
        }
        let gated = self
            .session
            .gate(&self.base, call)
            // The policy names a runtime tool the toolbox lacks: the host's mistake,
            // answered as `tools/list` answers it, and nothing runs.
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        Ok(gated.map_err(|rejected| {
            rejected
                .results()
                .into_iter()
                .next()
                .map_or_else(|| ToolOutput::error(rejected.to_string()), |r| r.output)
        }))
    }

    /// What the model reads of the gated call `plan`, with the tools it activates: put to
    /// the human when withheld (by elicitation, or by `input_required` from 2026-07-28 on
    /// when the call's `request` is answered directly; a task's call, `request` `None`, is
    /// asked by elicitation), then run by [`crate::apply::apply`] like any plan.
    pub(super) async fn answer(
        &self,
        plan: Plan<T>,
        request: Option<&CallToolRequestParams>,
        context: &RequestContext<RoleServer>,
    ) -> Answered {
        let plan = match plan.proposals().first().cloned() {
            None => plan,
            Some(proposal) => {
                let by_input =
                    request.filter(|_| input_required::speaks(context.protocol_version().as_ref()));
                let decided = if let Some(request) = by_input {
                    match self.approved_by_input(&proposal, request, context) {
                        ByInput::Asking(asking) => return Answered::InputRequired(asking),
                        ByInput::Decided(decided) => decided,
                    }
                } else {
                    // Boxed, as the rare path it is (see `written`).
                    Box::pin(self.approved_by_human(&proposal, context)).await
                };
                match decided {
                    Decided::Approved(approved) => approved,
                    decided => {
                        let next = match decided {
                            Decided::Declined => {
                                Next::Declined(crate::messages::DECLINED_WHEN_ASKED)
                            }
                            Decided::NotProposed => {
                                let text = crate::messages::NOT_PROPOSED_FULL;
                                return Answered::Output(ToolOutput::error(text));
                            }
                            // Nothing on the server can approve a call without a handler.
                            _ if proposal.is_propose_only() => Next::NobodyCanApprove,
                            _ => Next::Ask,
                        };
                        let text = self.withheld_text(&proposal, next);
                        return Answered::Output(ToolOutput::error(text));
                    }
                }
            }
        };
        Answered::Output(self.run(plan, context).await)
    }

    /// What the model reads of the approved one-call `plan`, run by [`apply`](Self::apply).
    /// A tool with an output schema must answer with a conforming object (clients check
    /// it); an answer without one (a skip) can only be sent as an error.
    ///
    /// Not an `async fn`: the apply future is mapped, not awaited inside another state
    /// machine that would hold it twice.
    fn run<'a>(
        &'a self,
        plan: Plan<T>,
        context: &'a RequestContext<RoleServer>,
    ) -> impl Future<Output = ToolOutput> + 'a {
        let must_conform = plan
            .specs()
            .next()
            .flatten()
            .is_some_and(crate::consumer::mcp::lists_output_schema);
        self.apply(plan, context).map(move |mut output| {
            let conforms = matches!(
                output.structured_content(),
                Some(serde_json::Value::Object(_))
            );
            if must_conform && !output.is_error && !conforms {
                output.is_error = true;
            }
            output
        })
    }

    /// For a client on 2026-07-28 or later, the withheld `proposal` put to the human by
    /// `input_required` (`input_required.rs`): the first call is answered with the
    /// question; its retry (carrying `requestState`) is approved through the server's
    /// store under the session's request in force now, or refused. Refused, too, when the
    /// server has no store, never asks ([`McpServer::without_elicitation`]), the tool is
    /// propose-only, or the client declared no elicitation.
    fn approved_by_input(
        &self,
        proposal: &Proposal,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> ByInput<T> {
        let withheld = ByInput::Decided(Decided::Withheld);
        let (Some(limit), Some(input)) = (self.approval_timeout, &self.input_required) else {
            return withheld;
        };
        if proposal.is_propose_only() {
            return withheld;
        }
        let Some(state) = request.request_state.as_deref() else {
            if !input_required::can_ask(context.client_capabilities().as_ref()) {
                return withheld;
            }
            let owner = self.session.owner(context);
            let limits = self.proposal_limits;
            return match input.ask::<T>(proposal, owner, limits, self.shown(proposal), limit) {
                input_required::Asked::Asking(asking) => ByInput::Asking(asking),
                input_required::Asked::Full(why) => {
                    tracing::warn!(owner, "a withheld call was not proposed: {why}");
                    ByInput::Decided(Decided::NotProposed)
                }
                input_required::Asked::Not => withheld,
            };
        };
        // A retry: never asked again, so a refusal ends the exchange.
        let responses = request.input_responses.as_ref();
        let Some(answer) = input.answer::<T>(proposal.call(), state, responses) else {
            return withheld;
        };
        if !answer.approved {
            input.decline(&answer.reviewed, limit);
            return ByInput::Decided(Decided::Declined);
        }
        let approved = self.session.approve_submitted(&self.base, |request| {
            input.approve(&answer.reviewed, request, limit)
        });
        match approved {
            Some(Ok(plan)) => ByInput::Decided(Decided::Approved(plan)),
            // An accept after the human's no: still the no.
            Some(Err(true)) => ByInput::Decided(Decided::Declined),
            Some(Err(false)) | None => withheld,
        }
    }

    /// What the human is shown of `proposal`'s tool: its title and the preview of these
    /// arguments, computed now by the tool (the set's, or the toolbox's runtime tool).
    fn shown(&self, proposal: &Proposal) -> elicit::Shown {
        let title = match self.base.toolbox.runtime_tool(&proposal.call().name) {
            Some(tool) => tool.spec().title().map(str::to_owned),
            None => proposal.title::<T>().map(str::to_owned),
        };
        elicit::Shown {
            title,
            preview: self.base.toolbox.preview(proposal),
            why: crate::messages::why_withheld(&proposal.call().name, &self.held(proposal)),
        }
    }

    /// Applies the one-call `plan` as every plan is applied ([`crate::apply::apply`]),
    /// against the shared state behind its lock (taken per tier, waited for at most the
    /// server's time limit, which bounds the run too), with the request's context: its
    /// cancellation, cancelled too when the client goes away, and its progress, forwarded
    /// before the result. Says what the model reads about the call.
    async fn apply(&self, plan: Plan<T>, context: &RequestContext<RoleServer>) -> ToolOutput {
        let client = Client::of(context);
        // Only a handler given its context can report progress or log, so only its
        // logger is named (one allocation a call saved for the others).
        let reports = plan.specs().flatten().any(ToolSpec::takes_context);
        let logger = plan
            .specs()
            .flatten()
            .next()
            .filter(|_| reports)
            .map(|spec| spec.name().to_owned());
        let (ctx, forwarder) = self.request_context(context, reports, logger);
        if client.is_gone() {
            ctx.cancellation().cancel();
        }
        let state = Locked {
            lock: &self.state,
            limit: self.call_timeout,
        };
        // With a store (approvals by `input_required`), every call that is not read-only
        // is journaled there, as the conversation driver journals its calls: one a human
        // approved by `input_required` under its proposal's id (its start is the approval's
        // effect), any other under a key scoped to this session (a JSON-RPC id is unique
        // only within its session). A process that dies inside a handler leaves the call in
        // doubt in the store (`Store::in_doubt`), never run again on its own.
        let journal = self
            .input_required
            .as_ref()
            .map(|input_required| input_required.journal());
        let run = journal.map(|_| self.session.scope());
        let mut report = {
            let mut applying = pin!(crate::apply::apply_journaled(
                state, &ctx, plan, journal, run
            ));
            // Most calls finish on their first poll: only one that waits watches the client
            // (boxed, so that the watch does not grow every call's future).
            match poll_fn(|cx| Poll::Ready(applying.as_mut().poll(cx))).await {
                Poll::Ready(report) => report,
                Poll::Pending => Box::pin(watched(applying, &client, &ctx)).await,
            }
        };
        // Every progress notification and log message goes out before the result.
        drop(ctx);
        if let Some(forwarder) = forwarder {
            Box::pin(forwarder.finish()).await;
        }
        // A retry past the limit fails, and what the call read joins the session's
        // exposure (the trifecta rule's memory), as in the driver's turns.
        self.session.record(&mut report, self.retries);
        // Its result goes to the client in this answer, the only delivery MCP has.
        if let Some(journal) = journal {
            for key in report.journaled_keys() {
                let _ = journal.mark_delivered(key, crate::proposal::now_ms());
            }
        }
        // One call in, one result out: its output moved out of the report, not copied.
        let entry = report.into_entries().into_iter().next();
        // A handler that failed with its ask's refusal could not do without the capability.
        if let Some(Outcome::Failed { message }) = entry.as_ref().and_then(|e| e.outcome.as_ref())
            && let Some(round) = context.extensions.get::<Arc<Round>>()
        {
            round.failed(message);
        }
        match entry {
            Some(entry) => entry.outcome.map_or_else(
                || ToolOutput::text(crate::messages::AWAITING_APPROVAL),
                Outcome::into_tool_output,
            ),
            None => ToolOutput::empty(),
        }
    }

    /// What the human decided of `proposal` by elicitation: its one-call plan on an
    /// explicit approval that holds on its re-check; declined on the human's no; withheld
    /// when not asked (disabled, a propose-only tool, a client that cannot be asked), when
    /// nobody answered, or when the approval did not hold.
    async fn approved_by_human(
        &self,
        proposal: &Proposal,
        context: &RequestContext<RoleServer>,
    ) -> Decided<T> {
        let Some(limit) = self.approval_timeout else {
            return Decided::Withheld;
        };
        if proposal.is_propose_only() || !elicit::client_can_ask(&context.peer) {
            return Decided::Withheld;
        }
        let client = Client::of(context);
        // A task waiting for the answer reports `input_required`.
        let _asking = super::tasks::asking_human(context);
        let shown = self.shown(proposal);
        let approved = tokio::select! {
            biased;
            () = client.gone() => None,
            approved = elicit::human_approves(&context.peer, proposal, shown, limit) => approved,
        };
        match approved {
            Some(true) if !client.is_gone() => {}
            Some(false) => return Decided::Declined,
            Some(true) | None => return Decided::Withheld,
        }
        // Bound to the very call shown: approving re-verifies it under the session's
        // request now, for the set's tools and the toolbox's alike.
        match self.session.approve_in_flight(&self.base, proposal) {
            // Approved in flight: never stored, so nothing is journaled for it.
            Some(Ok(Approved::Run(call))) => Decided::Approved(call.into_plan()),
            Some(Ok(Approved::Handoff(_)) | Err(_)) | None => Decided::Withheld,
        }
    }

    /// The context a call of this request runs with: the server's, cancelled with the
    /// request, reporting progress to the client when the request carries a progress
    /// token, and logging to it at the level it asked for ([`log_level`](Self::log_level)),
    /// as `logger` (the tool's name), when the handler can (it takes its context); with
    /// the forwarder to finish before the result is sent. rmcp's client sends a token with
    /// every request, so the forwarding task is spawned only by a first report or message
    /// (see `progress`).
    pub(super) fn request_context(
        &self,
        context: &RequestContext<RoleServer>,
        reports: bool,
        logger: Option<String>,
    ) -> (ToolContext, Option<Forwarder>) {
        let ctx = self.context.clone().with_cancellation(context.ct.clone());
        if !reports {
            return (ctx, None);
        }
        // A handler given its context may ask the client too: by server requests, or on
        // 2026-07-28 and later by the call's rounds, which stop the handler at an ask
        // nobody answered yet.
        let ctx = match context.extensions.get::<Arc<Round>>() {
            Some(round) => ctx
                .with_cancellation(round.stop().clone())
                .with_asker(Arc::clone(round) as Arc<dyn crate::ask::Asker>),
            None => ctx.with_asker(Arc::new(super::ask::ClientAsker::of(context))),
        };
        let token = context.meta.get_progress_token();
        let level = self.log_level(context);
        match Forwarder::start(context.peer.clone(), token, level, logger) {
            Some((sinks, forwarder)) => {
                let ctx = match sinks.progress {
                    Some(sink) => ctx.with_progress(sink),
                    None => ctx,
                };
                let ctx = match sinks.log {
                    Some(sink) => ctx.with_log(sink),
                    None => ctx,
                };
                (ctx, Some(forwarder))
            }
            None => (ctx, None),
        }
    }

    /// The least severe level of the log messages the client of `context` wants; `None`:
    /// none. A request's `_meta` `io.modelcontextprotocol/logLevel` decides for that
    /// request; without it, a client on 2026-07-28 or later wants none (that revision
    /// forbids messages the request did not ask for), an older one what its session set
    /// by `logging/setLevel` (every level until it sets one).
    fn log_level(&self, context: &RequestContext<RoleServer>) -> Option<LogLevel> {
        #[allow(deprecated, reason = "MCP logging is deprecated from 2026-07-28 on")]
        if let Some(level) = context.meta.log_level() {
            return Some(super::progress::log_level(level));
        }
        if input_required::speaks(context.protocol_version().as_ref()) {
            return None;
        }
        Some(self.session.log_level())
    }
}

/// Serves `session`, a new session's handler (a set's server, or a host's server with a
/// set mounted in it), on `transport` until the client closes the connection, the
/// connection watched (`presence.rs`) so calls still waiting when it ends do not start.
pub(super) async fn serve_session<S, Tr, E, A>(session: S, transport: Tr) -> io::Result<()>
where
    S: ServerHandler,
    Tr: IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let running = ServiceExt::serve(session, Watched::new(transport.into_transport()))
        .await
        .map_err(|error| io::Error::other(format!("MCP initialization failed: {error}")))?;
    running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|error| io::Error::other(format!("the MCP service stopped: {error}")))
}

/// Waits for `applying`, the run of a call that did not finish on its first poll, while
/// watching `client`: its going cancels the call's context `ctx`, so apply stops what runs
/// (its future dropped) and starts nothing more, each recorded as cancelled.
async fn watched<F: Future>(
    mut applying: Pin<&mut F>,
    client: &Client<'_>,
    ctx: &ToolContext,
) -> F::Output {
    // `biased`: a call that finishes when it is woken is not cancelled.
    tokio::select! {
        biased;
        report = applying.as_mut() => report,
        () = client.gone() => {
            ctx.cancellation().cancel();
            applying.await
        }
    }
}

/// What one `tools/call` is answered with.
pub(super) enum Answered {
    /// The call's result, for the model.
    Output(ToolOutput),
    /// A question for the human first (2026-07-28 and later).
    InputRequired(InputRequiredResult),
}

/// Where the approval of a withheld call by `input_required` stands.
enum ByInput<T: ToolSet> {
    /// The human is asked: the first call's answer.
    Asking(InputRequiredResult),
    /// What became of it.
    Decided(Decided<T>),
}

/// What became of a withheld call put to the human (by elicitation or `input_required`).
pub(super) enum Decided<T: ToolSet> {
    /// The human approved, and the approval held: the one-call plan to run.
    Approved(Plan<T>),
    /// The human answered no: declined, cancelled, or accepted with the box unticked.
    Declined,
    /// Not asked, no answer, or the approval refused on its re-check: the call stays
    /// withheld, and the user can still approve it another way.
    Withheld,
    /// Not asked because the proposal store holds as many of this client's (or everyone's)
    /// proposals as its limits allow: nothing was stored.
    NotProposed,
}

/// What tells that the client of a call has gone, borrowed from the request: a clone of
/// a cancellation token locks its tree node twice (cloned, then dropped), on every call.
pub(super) struct Client<'a> {
    /// The connection's presence; `None` when served through rmcp's own
    /// `ServiceExt::serve`, bypassing [`McpServer::serve`] (and over HTTP without a
    /// session).
    presence: Option<&'a Presence>,
    /// The request's token, cancelled by `notifications/cancelled`.
    request: &'a tokio_util::sync::CancellationToken,
}

impl<'a> Client<'a> {
    /// The client of the request `context`.
    pub(super) fn of(context: &'a RequestContext<RoleServer>) -> Self {
        Client {
            presence: context.extensions.get::<Presence>(),
            request: &context.ct,
        }
    }

    pub(super) fn is_gone(&self) -> bool {
        self.request.is_cancelled() || self.presence.is_some_and(Presence::is_gone)
    }

    pub(super) async fn gone(&self) {
        match self.presence {
            Some(presence) => tokio::select! {
                () = presence.gone() => {}
                () = self.request.cancelled() => {}
            },
            None => self.request.cancelled().await,
        }
    }
}

/// The text of the request's `tools/call` arguments when a toolset transport kept them as
/// text (they hold a number no reader can hold): on the request over stdio
/// ([`LineTransport`](super::LineTransport)), on the HTTP request over HTTP.
fn arguments_text(context: &RequestContext<RoleServer>) -> Option<&ArgumentsText> {
    context.extensions.get::<ArgumentsText>().or_else(|| {
        context
            .extensions
            .get::<axum::http::request::Parts>()?
            .extensions
            .get::<ArgumentsText>()
    })
}

/// Whether `context` is a request that stands alone: streamable HTTP without a session (a
/// 2026-07-28 client), whose session lives for this one request. A stdio connection and an
/// HTTP session are conversations the server sees whole.
fn stands_alone(context: &RequestContext<RoleServer>) -> bool {
    context
        .extensions
        .get::<axum::http::request::Parts>()
        .is_some()
        && super::trace::session_id(context).is_none()
}
