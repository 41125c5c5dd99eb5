//! Serve any tool set over the Model Context Protocol, through [rmcp].
//!
//! [`McpServer`] wraps a set's per-run state (and, with [`McpServer::with_toolbox`], the
//! runtime tools of a [`Toolbox`], other MCP servers' included, so one gated, namespaced
//! server can aggregate several) and answers MCP `tools/list` and `tools/call` on any
//! rmcp transport ([`McpServer::serve`]: stdio is `serve(toolset::mcp::stdio())`, any
//! byte streams the host owns `serve(LineTransport::new(reader, writer))`, both answering
//! every line that is not a JSON-RPC message (see "Malformed input" below); rmcp is
//! re-exported as [`rmcp`] so the host needs no matching version of its own) or over
//! streamable HTTP ([`McpServer::serve_http`] under an [`HttpConfig`], or
//! [`McpServer::http_service`] to mount it in your own router).
//!
//! - `tools/list` is the list of the session's [`Request`](crate::request::Request) (the server's
//!   policy, the served toolbox's runtime tools as they are now, and what the session
//!   activated) in the MCP rendering ([`crate::consumer`]):
//!   names, descriptions, input and output schemas, and annotations derived from each
//!   tool's tier (`read_only` → `readOnlyHint`, `irreversible` → `destructiveHint`, …).
//!   It is composed once per server, and again per session only when an activation
//!   changes it, and handed out shared.
//! - Deferred tools (`#[tool(deferred)]`, [`Policy::defer`]) are not listed; the read-only
//!   search tool `tool_search` is, whenever some are (but at [`Autonomy::Off`], where it
//!   would run unattended in the gate: then nothing finds them). A search activates what
//!   it found for its session: the server sends `notifications/tools/list_changed` (the
//!   capability says `listChanged: true`) before the search's result, and lists them from then on,
//!   after the others. Any tool's output may activate tools the same way
//!   ([`ToolOutput::activating`](crate::ToolOutput::activating)). Each connection (each
//!   HTTP session) starts with nothing activated; without a session (a 2026-07-28
//!   request over HTTP) nothing stays activated: such a request's result says so to the
//!   model instead of announcing the tools, and no `list_changed` is sent.
//! - `tools/call` is read by the MCP call reader ([`crate::consumer::mcp::parsed_call`]) and goes
//!   through the gate of the same request: a tool not listed (hidden, denied, or deferred
//!   and not activated) is unknown, and its message names only the listed tools; an
//!   unknown tool or arguments that do not fit the schema come back as a result with
//!   `isError: true` and a message the model can act on; a call above the server's [`Autonomy`] is put
//!   to the human by elicitation when the client supports it
//!   ([`McpServer::with_approval_timeout`]; from 2026-07-28 on, by `input_required`
//!   with [`McpServer::with_proposal_store`]: see "Human approval over MCP" below), and otherwise (or on anything but an
//!   explicit approval) is not run, and comes back with `isError: true` and the "needs
//!   human approval" message saying what held it (see [`McpServer::with_withheld_message`]),
//!   or, when the human said no, "Declined by the user"; anything else runs against the shared
//!   state through the same `apply` as `Set::apply`, and its outcome becomes the
//!   `CallToolResult` written by [`crate::consumer::mcp::result`]'s writer (text and image content, `structuredContent` for an object
//!   result, `isError`). Host-only [`ToolOutput::metadata`](crate::ToolOutput) never
//!   goes on the wire. A tool that declares an `outputSchema` must answer with a
//!   conforming object, which clients check; when it answers without one (a skip, say)
//!   the result is sent with `isError: true`, its text unchanged.
//! - A request's `progressToken` turns [`ToolContext::report_progress`] into MCP
//!   `notifications/progress`, in bounded memory: up to 32 reports wait for a slow
//!   client, and beyond that the latest replaces the newest one waiting.
//! - [`ToolContext::log`] becomes MCP `notifications/message` (the server declares the
//!   `logging` capability), written before the result, at or above the level the client
//!   asked for: `logging/setLevel` for its session (every level until it asks), or a
//!   request's `_meta` `io.modelcontextprotocol/logLevel` for that request; a request on
//!   2026-07-28 or later without one gets none, as that revision requires. Up to 64
//!   messages wait for a slow client; beyond that they are dropped, and a last warning
//!   says how many. Over streamable HTTP with a session, rmcp writes them on the
//!   session's standalone stream (its GET), not the request's: it routes only progress
//!   and cancellation to a request's stream. A request on 2026-07-28 or later whose
//!   `_meta` level is none of MCP's eight is refused with `-32602`, naming them.
//! - A handler's asks through its context, per revision:
//!   - [`ToolContext::elicit`] (a form for the user, with defaults and enums),
//!     [`ToolContext::sample`] (a completion from the client's model) and
//!     [`ToolContext::roots`] (the client's roots) are, before 2026-07-28, server requests
//!     over the session (`elicitation/create` in form mode, `sampling/createMessage`,
//!     `roots/list`), sent only to a client that declared the capability (`elicitation`
//!     with the form mode, `sampling`, `roots`) at `initialize`; to one that did not, the
//!     handler reads [`AskError::NotDeclared`](crate::context::AskError::NotDeclared)
//!     naming it, and nothing is sent. The call's time limit runs while the client
//!     answers; a client going away cancels the call as always. Over streamable HTTP
//!     with a session, rmcp writes the request on the session's standalone stream.
//!   - On 2026-07-28 and later, which forbids server requests, a `tools/call` whose
//!     handler asks what nobody answered yet is answered `input_required` (SEP-2322):
//!     the asks of that poll (asks awaited together are one round), each under its key,
//!     and a `requestState` holding the answers so far, sealed for this very call with a
//!     key derived from [`McpServer::with_proposal_store`]'s (random per server without
//!     one) and expiring after the approval timeout. The handler is stopped as a
//!     cancellation stops it (its journal entry ends, nothing is left in doubt); the retry
//!     runs it again from its start with the answers. A state that does not open is
//!     refused with `-32602`. A call run as a task or approved by a human reads
//!     [`AskError::NotAvailable`](crate::context::AskError::NotAvailable).
//!   - Outside MCP (a provider loop, the driver, a test's `ToolContext::default()`) each
//!     answers `AskError::NotAvailable` too, so a handler written once handles the error
//!     and works everywhere.
//! - `tools/list` carries `ttlMs` and `cacheScope` for a client on 2026-07-28 or later
//!   ([`McpServer::with_list_caching`]).
//! - The stateless revision (2026-07-28): a request for a method it removed
//!   (`initialize`, `logging/setLevel`, ...) is answered `-32601`, HTTP `404`; a handler
//!   that fails with the error of an ask whose capability the request did not declare is
//!   answered `-32021` (MissingRequiredClientCapability) naming it; `subscriptions/listen`
//!   streams `notifications/tools/list_changed` after each refresh of a namespace of the
//!   toolbox, the only change a stateless client's list has.
//!
//! ```no_run
//! # use toolset::{tool, toolset, Autonomy};
//! # pub struct Notes(Vec<String>);
//! # /// List the notes.
//! # #[tool(tier = "read_only")]
//! # pub async fn list(notes: &Notes) -> String { notes.0.join("\n") }
//! # toolset! { /// Notes.
//! #   pub NoteTools<Notes> = [list]; }
//! use toolset::mcp::{McpServer, stdio};
//!
//! # async fn run() -> std::io::Result<()> {
//! McpServer::<NoteTools>::new(Notes(Vec::new()))
//!     .with_autonomy(Autonomy::Reversible)
//!     .serve(stdio())
//!     .await
//! # }
//! ```
//!
//! ## Mounted in an rmcp server you already have
//!
//! A host whose rmcp server has tools of its own (`#[tool_router]`), prompts and resources
//! keeps it and mounts the set in it: [`McpServer::mount_in`] takes the server's
//! `ServerHandler` and gives a [`Mounted`] one, served as either would be
//! ([`Mounted::serve`], [`Mounted::serve_http`], or rmcp's own serving). The set's tools
//! are listed after the server's and answered exactly as above (the gate, the human's
//! approval, the journal, the spans); everything else is the server's. A tool name both
//! would list is refused there ([`NameCollision`]).
//!
//! ## Many sessions, one state
//!
//! Every session (every stdio connection, every HTTP session) shares the server's state,
//! behind a [`tokio::sync::RwLock`]: read-only calls, from any number of sessions, run
//! together on `&S`; a call of any other tier runs alone with `&mut S`. The lock is
//! fair: a waiting write holds back the reads that come after it, so reads cannot starve
//! it.
//!
//! No call holds the others forever: a call waits for the state at most the server's
//! time limit ([`McpServer::with_call_timeout`], [`DEFAULT_CALL_TIMEOUT`] unless set),
//! and is then answered as timed out without having run; once running it gets the same
//! limit (on top of its own `timeout_ms`), after which it is stopped (its future dropped)
//! and answered as timed out. A handler that blocks its thread instead of awaiting cannot
//! be stopped this way; keep blocking work in `spawn_blocking` with its own limit.
//!
//! A call whose client has gone is not started: its request was cancelled
//! (`notifications/cancelled`), or its connection ended (stdin closed, HTTP session
//! deleted or expired). One that has started is cancelled, through its
//! [`ToolContext`]'s token and by dropping it. So a write queued behind a long read does
//! not run late for a client that gave up (and may retry it).
//!
//! ## Long calls as tasks
//!
//! A tool the host names with [`McpServer::run_as_task`] (the set's by its typed name, a
//! runtime tool by its name) runs as a task of the MCP Tasks extension
//! (SEP-2663, `io.modelcontextprotocol/tasks`) for a client that declared it: the call is
//! gated as any call is (a refused one is answered at once, exactly as without tasks), and
//! a call the gate passed is answered at once with a task (`CreateTaskResult`, a 128-bit
//! random id); its approval by a human when withheld, and its run through the same
//! `apply`, go on in the task. `tasks/get` reports `working`, `input_required` while a
//! withheld call waits for the human (asked by the session's elicitation, as without tasks:
//! the task's `inputRequests` is empty, its status message says so, and `tasks/update` has
//! nothing to answer), then `completed` with the very `CallToolResult` the call would have
//! been answered with, `cancelled`, or `failed` when the result was too large to keep.
//! `tasks/cancel` cancels the call's [`ToolContext`] token (as the client's going does):
//! the handler sees it, or is stopped at its next `.await`, and the task ends `cancelled`.
//!
//! What is kept is bounded ([`TaskLimits`], [`McpServer::with_task_limits`]): an ended
//! task's result for a time to live ([`DEFAULT_TASK_TTL`]), and at most
//! [`DEFAULT_MAX_TASKS`] tasks and [`DEFAULT_MAX_TASK_BYTES`] of results at once, the oldest
//! ended first released; a released or unknown id is answered `-32602` saying so. When every
//! task kept is still running, a new call is answered the ordinary way. A task's call keeps
//! the server's time limit ([`McpServer::with_call_timeout`]): raise it for long calls.
//!
//! Clients that did not declare the extension, and tools not named, are answered as
//! before; a server that names no tool does not declare the extension, and its answers are
//! unchanged byte for byte.
//!
//! ## Over HTTP
//!
//! [`McpServer::serve_http`] serves under an [`HttpConfig`]: capped connections and
//! sessions, header and body read timeouts, idle sessions expired (their memory freed),
//! `Host` checked per connection (a loopback name only from a loopback peer, so binding
//! `0.0.0.0` does not let `Host: localhost` in from another machine), `Origin` the
//! server's own unless allowed, a bearer token or any `tower` layer for authentication,
//! and no unauthenticated serving on a non-loopback address unless asked for.
//! Requests of the 2026-07-28 protocol have no session: a call of theirs is not watched
//! for its connection (the spec does not make a dropped connection a cancellation) and is
//! bounded by the time limit alone.
//!
//! ## Malformed input: what is rmcp's, what is ours
//!
//! - A `tools/call` (or `tools/list`, `initialize`, `ping`) whose params do not have the
//!   method's shape is answered `-32602 Invalid params`, with serde's reason. (rmcp parses
//!   such a request as a custom one, whose default answer is `-32601 Method not found`;
//!   this server answers it.)
//! - Reading the wire is toolset's on the transports it provides, and rmcp's parse of each
//!   message stays rmcp's: what rmcp cannot parse is answered, never skipped. Over stdio
//!   ([`stdio`], [`LineTransport`]): bytes that are not UTF-8, text that is not JSON, or
//!   JSON nested more than 127 deep (serde_json's limit) are answered `-32700 Parse error`;
//!   JSON that is not a JSON-RPC message (another `jsonrpc`, `params` that are neither an
//!   object nor an array, a batch) `-32600 Invalid Request`; a line longer than
//!   [`DEFAULT_MAX_LINE_LENGTH`] `-32600`, and it is skipped to its end as it arrives,
//!   never held whole. Each answer says what was wrong and what to send instead, and
//!   carries the request's `id` when it can be read from the line before what is wrong
//!   (`null` otherwise). Blank lines, and JSON shaped as a notification, are not answered,
//!   as JSON-RPC asks. Over HTTP ([`McpServer::serve_http`], [`McpServer::http_service`]),
//!   a POSTed `application/json` body that is no message gets the same error with status
//!   `400`; the streamable HTTP transport's rules stand (rmcp's `415` for another
//!   `Content-Type`, `406` for an `Accept` without JSON and event streams), and a body
//!   past [`HttpConfig::with_max_body_bytes`] is `413`.
//! - A number JSON can write and no reader can hold (`1e400`, beyond every double) in a
//!   `tools/call`'s arguments is the gate's to judge, not junk: serde_json refuses the
//!   whole request for it, so toolset reads that request again with its arguments kept as
//!   text, passes it to rmcp without them, and the gate reads the text as it reads any
//!   provider's text arguments. The answer is a result with `isError: true` naming the
//!   field (`/count: a number cannot be read …`), over stdio and HTTP alike. Elsewhere in
//!   a message (its `_meta`, its `id`) such a number is `-32700`.
//! - rmcp's own transports, which [`McpServer::serve`] still takes
//!   (`rmcp::transport::stdio()`, `serve((reader, writer))`), read lines as rmcp does (as
//!   of rmcp 3.11): a line that is not JSON (`1e400` in arguments included) is logged and
//!   skipped without an answer, so the client's call waits (give requests a timeout);
//!   JSON that is no message is answered `-32600` without its id; a line over 16 MiB is
//!   skipped unanswered.
//!
#![doc = include_str!("../../docs/mcp-approval.md")]

mod as_task;
mod ask;
mod elicit;
mod handler;
mod http;
pub(crate) mod incoming;
mod input_required;
mod line_transport;
pub(crate) mod lines;
mod messages;
mod mount;
mod mount_handler;
mod presence;
mod progress;
mod request_span;
mod rounds;
mod runtime;
mod server;
mod session;
mod tasks;
mod trace;

use crate::context::ToolContext;
use crate::digest::SealKey;
use crate::policy::Policy;
use crate::proposal::Proposal;
use crate::set::{ToolName, ToolSet};
use crate::store::{ProposalLimits, Store};
use crate::tier::Autonomy;
use crate::toolbox::Toolbox;
use rmcp::model::Tool;
use session::{Base, Session};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::RwLock;

pub use crate::messages::DEFAULT_WITHHELD_MESSAGE;
pub use http::{DEFAULT_HTTP_PATH, HttpConfig, Listen};
pub use line_transport::{DEFAULT_MAX_LINE_LENGTH, LineTransport, stdio};
pub use mount::{Mounted, NameCollision};
/// The rmcp this server is built on, for [`McpServer::serve`]'s transports: a host naming
/// rmcp types through this path cannot mismatch versions.
pub use rmcp;
/// Who may keep a `tools/list` result ([`McpServer::with_list_caching`]).
pub use rmcp::model::CacheScope;
pub use tasks::{
    DEFAULT_MAX_TASK_BYTES, DEFAULT_MAX_TASKS, DEFAULT_TASK_POLL_INTERVAL, DEFAULT_TASK_TTL,
    TaskLimits,
};
pub use trace::TraceParent;

/// How long a call may wait for the state, and then run, unless
/// [`McpServer::with_call_timeout`] says otherwise.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a withheld call waits for the human's answer to an elicitation, unless
/// [`McpServer::with_approval_timeout`] says otherwise.
pub const DEFAULT_APPROVAL_TIMEOUT: Duration = Duration::from_secs(600);

/// An MCP server for the tool set `T`, holding its per-run state.
///
/// Cloning is cheap and every clone shares the same state (behind a
/// [`tokio::sync::RwLock`]: read-only calls run together, writes alone; see the
/// [module docs](self)). Every connection served (every HTTP session) is a session of its
/// own, with its own activated tools. Built with [`McpServer::new`] and the `with_*` methods, which
/// can only tighten what runs unattended; served with [`serve`](McpServer::serve) on any
/// rmcp transport (stdio, byte streams) or [`serve_http`](McpServer::serve_http) over
/// streamable HTTP.
pub struct McpServer<T: ToolSet> {
    state: Arc<RwLock<T::State>>,
    policy: Arc<Policy<T>>,
    /// Whether an autonomy level was set (by `with_autonomy` or `with_policy`); until
    /// then the policy's level is the default, which the first one set replaces.
    autonomy_set: bool,
    call_timeout: Duration,
    /// How many retries a tool's handler may ask for within one session
    /// ([`McpServer::with_retries`]).
    retries: u32,
    /// How long to wait for a human's approval by elicitation, and how long an
    /// `input_required` question stays answerable; `None`: never ask.
    approval_timeout: Option<Duration>,
    /// The store and key of approvals by `input_required` (2026-07-28 clients); `None`:
    /// such clients' withheld calls are answered withheld.
    input_required: Option<input_required::InputRequired>,
    /// The key a handler's asks' `requestState` is sealed with (2026-07-28 clients).
    rounds: rounds::Rounds,
    /// The most the proposal store may hold per session and for all
    /// ([`McpServer::with_proposal_limits`]).
    proposal_limits: ProposalLimits,
    withheld_message: Arc<str>,
    context: ToolContext,
    name: Arc<str>,
    version: Arc<str>,
    instructions: Option<Arc<str>>,
    /// The policy and the toolbox every session starts from, with the `tools/list` of a
    /// session that activated nothing: composed once, again when a namespace of the toolbox
    /// refreshes, and shared by every session.
    base: Arc<Base<T>>,
    /// This session's activations and its list; a fresh one per connection served.
    session: Arc<Session>,
    /// The host's hook continuing a caller's trace ([`McpServer::with_trace_parent`]).
    continue_trace: Option<trace::ContinueTrace>,
    /// The tools run as tasks and the server's task table, shared by every session.
    tasks: tasks::Tasks,
    /// The caching hints of `tools/list` ([`McpServer::with_list_caching`]): `ttlMs`, and
    /// who may keep it.
    list_caching: (u64, CacheScope),
}

impl<T: ToolSet> McpServer<T> {
    /// A server over `state`, running only read-only tools unattended
    /// ([`Autonomy::ReadOnly`]), named after the set (`T::NAME`) with this crate's
    /// version.
    pub fn new(state: T::State) -> Self {
        let policy = Arc::new(Policy::new(Autonomy::ReadOnly));
        McpServer {
            state: Arc::new(RwLock::new(state)),
            base: Arc::new(Base::new(Arc::clone(&policy), Toolbox::new())),
            policy,
            session: Arc::default(),
            autonomy_set: false,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            retries: crate::run::DEFAULT_RETRIES,
            approval_timeout: Some(DEFAULT_APPROVAL_TIMEOUT),
            input_required: None,
            rounds: rounds::Rounds::random(),
            proposal_limits: ProposalLimits::default(),
            withheld_message: Arc::from(DEFAULT_WITHHELD_MESSAGE),
            context: ToolContext::default(),
            name: Arc::from(T::NAME),
            version: Arc::from(env!("CARGO_PKG_VERSION")),
            instructions: None,
            continue_trace: None,
            tasks: tasks::Tasks::default(),
            list_caching: (0, CacheScope::Private),
        }
    }

    /// Lets calls up to `autonomy` run without a human. Calls above it (and every
    /// `irreversible` or propose-only tool, whatever the level) are answered with the
    /// withheld message instead of running.
    ///
    /// The builder only tightens: the first level set (here or by
    /// [`with_policy`](McpServer::with_policy)) replaces the default `read_only`, and every
    /// later one can only lower it. What a policy hid, denied or deferred stays so.
    pub fn with_autonomy(self, autonomy: Autonomy) -> Self {
        self.tightened(autonomy, None)
    }

    /// Serves under `policy` too: its autonomy lowers the server's (the first level set
    /// replaces the default `read_only`), and the tools it hides or denies are left out of
    /// `tools/list` and rejected when called, on top of those hidden or denied before.
    /// Its deferred marks are kept as well, and the runtime tools it names
    /// (by name: [`ToolKey`](crate::policy::ToolKey)): each must be one of the served toolbox's, or
    /// `tools/list` and every `tools/call` fail with the [`PolicyNameError`](crate::policy::PolicyNameError)
    /// and nothing runs (also after a namespace's refresh dropped the tool: fail closed,
    /// never a restriction silently lost).
    ///
    /// Nothing is ever loosened: `with_policy` and [`with_autonomy`](McpServer::with_autonomy),
    /// in any order and any number of times, leave the lowest autonomy level set and
    /// every denial, hiding and deferral.
    pub fn with_policy(self, policy: Policy<T>) -> Self {
        let level = policy.autonomy();
        self.tightened(level, Some(&policy))
    }

    /// The policy at `level` (the minimum with what was set before), carrying every
    /// restriction of the current policy and of `more`.
    fn tightened(mut self, level: Autonomy, more: Option<&Policy<T>>) -> Self {
        let level = if self.autonomy_set {
            self.policy.autonomy().tightened_to(level)
        } else {
            level
        };
        let mut merged = Policy::new(level);
        for &tool in T::Name::ALL {
            let either = |check: fn(&Policy<T>, T::Name) -> bool| {
                check(&self.policy, tool) || more.is_some_and(|policy| check(policy, tool))
            };
            if either(Policy::is_hidden) {
                merged = merged.hide(tool);
            }
            if either(Policy::is_denied) {
                merged = merged.deny(tool);
            }
            if either(Policy::is_deferred) {
                merged = merged.defer(tool);
            }
        }
        // The runtime tools either names are restricted too (and checked against the
        // toolbox on every path of a session: `session.rs`).
        merged = merged.with_runtime_rules_of(&self.policy);
        if let Some(more) = more {
            merged = merged.with_runtime_rules_of(more);
        }
        self.autonomy_set = true;
        self.policy = Arc::new(merged);
        self.base = Arc::new(Base::new(
            Arc::clone(&self.policy),
            self.base.toolbox.clone(),
        ));
        self
    }

    /// Serves `toolbox`: the set's tools and, after them, the toolbox's runtime tools
    /// (those added with [`Toolbox::with`] and every namespace's, such as another MCP
    /// server's `McpTools`), under the same policy.
    ///
    /// `tools/list` lists them and `tools/call` gates them through the same request as
    /// the set's; a runtime call the autonomy level allows runs its handler under the
    /// server's time limit, with the client's cancellation and progress (it takes no
    /// state, so no lock), and one above it is put to the human or withheld like a
    /// compiled one. When a namespace refreshes (its server sent `tools/list_changed`),
    /// every connected client is sent `notifications/tools/list_changed`, and from then on
    /// lists and is gated against the new tools: a tool that vanished is unknown.
    ///
    /// ```no_run
    /// # use toolset::prelude::*;
    /// # use toolset::{tool, toolset, Autonomy, DynamicTool, Tier, ToolContext};
    /// # pub struct Notes(Vec<String>);
    /// # /// List the notes.
    /// # #[tool(tier = "read_only")]
    /// # pub async fn list(notes: &Notes) -> String { notes.0.join("\n") }
    /// # toolset! { /// Notes.
    /// #   pub NoteTools<Notes> = [list]; }
    /// use toolset::mcp::McpServer;
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// async fn now(_args: serde_json::Value, _ctx: &ToolContext) -> String {
    ///     "noon".to_owned()
    /// }
    /// let toolbox = NoteTools::toolbox()
    ///     .with(DynamicTool::new("now", Tier::ReadOnly, "The time of day.").handler(now))?;
    /// McpServer::<NoteTools>::new(Notes(Vec::new()))
    ///     .with_toolbox(toolbox)
    ///     .with_autonomy(Autonomy::ReadOnly)
    ///     .serve(toolset::mcp::stdio())
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn with_toolbox(mut self, toolbox: Toolbox<T>) -> Self {
        self.base = Arc::new(Base::new(Arc::clone(&self.policy), toolbox));
        self
    }

    /// The toolbox served: the set's tools and the runtime ones (see
    /// [`with_toolbox`](McpServer::with_toolbox)); the set's alone unless one was given.
    pub fn toolbox(&self) -> &Toolbox<T> {
        &self.base.toolbox
    }

    /// The longest a call may wait for the state (other calls hold it) and then run;
    /// [`DEFAULT_CALL_TIMEOUT`] unless set. A call that waited this long is answered as
    /// timed out without running; one that ran this long is stopped and answered as timed
    /// out. A tool's own `timeout_ms` still applies when shorter.
    ///
    /// It bounds how long one call can keep the others out: a write waits for the reads
    /// running before it, and the reads after it wait for the write.
    pub fn with_call_timeout(mut self, limit: Duration) -> Self {
        self.call_timeout = limit;
        self
    }

    /// How many times a tool's handler may ask the model to retry
    /// ([`ToolError::retry`](crate::ToolError::retry)) within one session, three unless
    /// set; the next retry fails the call with a message saying the limit, as the
    /// conversation driver's [`retries`](crate::Driver::retries) does within a
    /// conversation. A request that stands alone (2026-07-28 over HTTP, without a session)
    /// is a session of its own.
    pub fn with_retries(mut self, retries: u32) -> Self {
        self.retries = retries;
        self
    }

    /// How long a withheld call waits for the human to answer the approval request
    /// ([`DEFAULT_APPROVAL_TIMEOUT`] unless set); no answer in time means no.
    ///
    /// A call the gate withholds (above the autonomy level or held by the lethal-trifecta
    /// rule, not propose-only) is put to the human by MCP elicitation when the client
    /// declared that capability: the tool, what held it back, its title, preview and exact
    /// arguments, with a box to tick. It runs only on an accept with the box ticked, once,
    /// with exactly those arguments; a decline, cancel or unticked box is answered as the
    /// user's decline, and no answer or a client without elicitation get the withheld
    /// message; nothing runs.
    ///
    /// A client on 2026-07-28 or later is asked by `input_required` instead (see
    /// [`with_proposal_store`](Self::with_proposal_store)): `limit` is then how long its
    /// `requestState` and the stored proposal stay answerable.
    pub fn with_approval_timeout(mut self, limit: Duration) -> Self {
        if self.approval_timeout.is_some() {
            self.approval_timeout = Some(limit);
        }
        self
    }

    /// Approves withheld calls of clients on the 2026-07-28 protocol (or later) by
    /// `input_required`, through `store`, sealed with `key`: the way such a client's human
    /// is asked, since the server may no longer send it requests of its own. Without it,
    /// their withheld calls get the withheld message (fail closed).
    ///
    /// The first `tools/call` is answered `input_required`, with the same approval form
    /// as an elicitation (tool, tier, title, preview, exact arguments) and a
    /// `requestState` naming the proposal submitted to `store` (its id and digest),
    /// sealed with a key derived from `key`, bound to the call (tool and arguments) and
    /// expiring after the approval timeout ([`with_approval_timeout`](Self::with_approval_timeout)).
    /// The client's retry with an explicit accept (the box ticked) runs the call once,
    /// approved as [`Approvals::approve`](crate::Approvals::approve) approves, under the
    /// session's policy in force then; the store resolves it exactly once, so a replay
    /// (here, or on another replica serving with the same store and key) runs nothing. A
    /// decline, a cancel, an unticked box, or a state that is edited, expired, another
    /// call's or another key's: the withheld message, and nothing runs.
    ///
    /// Replicas behind one address share a store that every one reaches (`SqliteStore`
    /// on one machine, `PostgresStore` across machines) and one key. Clients before
    /// 2026-07-28 are still asked by elicitation, on their connection. Both paths are
    /// described together in the [module docs](self), "Human approval over MCP".
    ///
    /// What waits in `store` is limited ([`with_proposal_limits`](Self::with_proposal_limits)):
    /// each session has its share, and requests without a session (2026-07-28 over HTTP)
    /// share one; a call beyond is answered that too many calls wait for the user ("Not
    /// run: this call needs the user's approval, and too many calls already wait…"), and
    /// stored nowhere.
    /// Expired proposals are swept from the store before each new one is counted.
    ///
    /// Every call the server runs that is not read-only is journaled in `store`, as the
    /// conversation driver journals its calls: started before its handler runs, ended with
    /// its result, which is marked delivered as it is sent. An approved call is keyed by its
    /// proposal's id, any other by a key scoped to its session. A server that dies inside a
    /// handler leaves the call in doubt ([`Store::in_doubt`]), for the host to resolve; it
    /// never runs again on its own.
    pub fn with_proposal_store(mut self, store: impl Store + 'static, key: SealKey) -> Self {
        self.rounds = rounds::Rounds::sealed_with(&key);
        self.input_required = Some(input_required::InputRequired::new(Arc::new(store), key));
        self
    }

    /// The most proposals (and bytes) the proposal store may hold for one session and for
    /// all ([`ProposalLimits`]; its default unless set): a client flooding the server with
    /// calls that need a human fills its own share, and the server's memory and database
    /// stay bounded.
    pub fn with_proposal_limits(mut self, limits: ProposalLimits) -> Self {
        self.proposal_limits = limits;
        self
    }

    /// Never asks the human by elicitation: every withheld call gets the withheld
    /// message. Later builder calls do not turn asking back on.
    pub fn without_elicitation(mut self) -> Self {
        self.approval_timeout = None;
        self
    }

    /// The text of the result sent for a call the gate withheld for a human, when nobody
    /// decided on it here: the human was not asked (or did not answer), or nothing here
    /// can approve it (a propose-only tool). A call the human declined is answered as
    /// declined instead ("Declined by the user: …"), whatever this message.
    ///
    /// Its placeholders:
    /// - `{tool}`: the tool's name;
    /// - `{tier}`: the call's risk tier (after the tool's escalation);
    /// - `{autonomy}`: the server's autonomy level (`read_only`, …, or `off`);
    /// - `{reason}`: what held the call back, in words: its tier above the autonomy (with
    ///   the tool's reason when it raised this call's tier), the lethal-trifecta rule with
    ///   what the session read, a propose-only tool; a call within the autonomy held by the
    ///   trifecta rule is held for the rule alone, whatever its `{tier}`;
    /// - `{next}`: what the model should do now: ask the user to approve it or to carry it
    ///   out, or, when nothing here can approve it, not ask and tell the user instead.
    ///
    /// The reason is always part of the message: when `message` has no `{reason}`,
    /// ` (why: …)` is appended; so is the next step, when it is not to ask the user and
    /// `message` has no `{next}`. The default is [`DEFAULT_WITHHELD_MESSAGE`].
    pub fn with_withheld_message(mut self, message: impl Into<String>) -> Self {
        self.withheld_message = Arc::from(message.into());
        self
    }

    /// The context every call starts from, e.g. carrying host services as extensions.
    /// Each request replaces its cancellation with the request's own and adds progress
    /// reporting when the client asked for it.
    pub fn with_context(mut self, context: ToolContext) -> Self {
        self.context = context;
        self
    }

    /// The `serverInfo` the client sees; by default the set's name and this crate's
    /// version.
    pub fn with_server_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.name = Arc::from(name.into());
        self.version = Arc::from(version.into());
        self
    }

    /// How long a client may keep a `tools/list` result before it lists again, and who may
    /// keep it: the `ttlMs` and `cacheScope` a result carries for a client on 2026-07-28 or
    /// later, which that revision requires (SEP-2549; older clients are sent neither).
    /// Unless set, `0` ms and [`CacheScope::Private`]: always listed afresh, kept by the
    /// one client.
    ///
    /// The list is a session's: a tool search's activations and a toolbox namespace's
    /// refresh change it, and the client is then sent `notifications/tools/list_changed`,
    /// so a longer time is safe for a client that reads those. [`CacheScope::Public`]
    /// (shared across users, by intermediaries too) only where every user is listed the
    /// same tools: no deferred tools, one policy and toolbox for all. A `ttl` past
    /// `u64::MAX` milliseconds is written as `u64::MAX`.
    ///
    /// ```
    /// # use toolset::{tool, toolset};
    /// # /// Say hello.
    /// # #[tool(tier = "read_only")]
    /// # pub async fn hello() -> &'static str { "hello" }
    /// # toolset! { /// Greetings.
    /// #   pub Greetings = [hello]; }
    /// use std::time::Duration;
    /// use toolset::mcp::{CacheScope, McpServer};
    ///
    /// let server = McpServer::<Greetings>::new(())
    ///     .with_list_caching(Duration::from_secs(300), CacheScope::Private);
    /// # drop(server);
    /// ```
    pub fn with_list_caching(mut self, ttl: Duration, scope: CacheScope) -> Self {
        self.list_caching = (u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX), scope);
        self
    }

    /// Instructions for the client's model, sent in the `initialize` result.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(Arc::from(instructions.into()));
        self
    }

    /// The shared state the tools run against, e.g. to inspect it after calls.
    pub fn state(&self) -> &Arc<RwLock<T::State>> {
        &self.state
    }

    /// The autonomy level in force.
    pub fn autonomy(&self) -> Autonomy {
        self.policy.autonomy()
    }

    /// The policy in force: the autonomy level and every tool hidden, denied or deferred.
    pub fn policy(&self) -> &Policy<T> {
        &self.policy
    }

    /// The per-call time limit in force; see [`McpServer::with_call_timeout`].
    pub fn call_timeout(&self) -> Duration {
        self.call_timeout
    }

    /// The tools `tools/list` answers a new session with now: the tools the policy offers,
    /// in declared order, then the toolbox's runtime tools as they are now, then the search
    /// tool `tool_search` when some are deferred. A
    /// session's search (or any tool's output) activates deferred tools: they are listed
    /// after these, for that session only, once it was sent
    /// `notifications/tools/list_changed`.
    ///
    /// Fails only if the set's MCP rendering does not parse as MCP tools (a renderer
    /// bug), with the parse error.
    pub fn tools(&self) -> Result<Arc<[Tool]>, Arc<str>> {
        self.base.listed()
    }

    /// What held `proposal` back from running without the human, at this server's
    /// autonomy.
    fn held<'p>(&self, proposal: &'p Proposal) -> crate::messages::Held<'p> {
        crate::messages::Held::of(
            proposal.tier(),
            self.policy.autonomy(),
            proposal.escalated_because(),
            proposal.is_propose_only(),
        )
    }

    /// What the model reads of `proposal` withheld, and what it should do `next`: the
    /// withheld message, placeholders filled in, or the decline.
    fn withheld_text(&self, proposal: &Proposal, next: crate::messages::Next<'_>) -> String {
        crate::messages::withheld(
            &self.withheld_message,
            &proposal.call().name,
            &self.held(proposal),
            autonomy_name(self.policy.autonomy()),
            next,
        )
    }

    /// This server for a new session (a connection, an HTTP session): the same state and
    /// configuration, nothing activated yet.
    fn for_new_session(&self) -> Self {
        McpServer {
            session: Arc::default(),
            ..self.clone()
        }
    }
}

impl<T: ToolSet> Clone for McpServer<T> {
    fn clone(&self) -> Self {
        McpServer {
            state: Arc::clone(&self.state),
            policy: Arc::clone(&self.policy),
            autonomy_set: self.autonomy_set,
            call_timeout: self.call_timeout,
            retries: self.retries,
            approval_timeout: self.approval_timeout,
            input_required: self.input_required.clone(),
            rounds: self.rounds.clone(),
            proposal_limits: self.proposal_limits,
            withheld_message: Arc::clone(&self.withheld_message),
            context: self.context.clone(),
            name: Arc::clone(&self.name),
            version: Arc::clone(&self.version),
            instructions: self.instructions.clone(),
            base: Arc::clone(&self.base),
            session: Arc::clone(&self.session),
            continue_trace: self.continue_trace.clone(),
            tasks: self.tasks.clone(),
            list_caching: self.list_caching,
        }
    }
}

impl<T: ToolSet> fmt::Debug for McpServer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServer")
            .field("set", &T::NAME)
            .field("policy", &self.policy)
            .field("call_timeout", &self.call_timeout)
            .field("approval_timeout", &self.approval_timeout)
            .field("approves_by_input_required", &self.input_required.is_some())
            .field("name", &self.name)
            .field("version", &self.version)
            .field("continues_traces", &self.continue_trace.is_some())
            .finish_non_exhaustive()
    }
}

/// The autonomy level as the tier names spell it.
fn autonomy_name(autonomy: Autonomy) -> &'static str {
    match autonomy {
        Autonomy::Off => "off",
        Autonomy::ReadOnly => "read_only",
        Autonomy::Reversible => "reversible",
        Autonomy::ExternalReversible => "external_reversible",
    }
}
