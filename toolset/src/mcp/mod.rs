//! Serve any tool set over the Model Context Protocol, through [rmcp].
//!
//! [`McpServer`] wraps a set's per-run state and answers MCP `tools/list` and `tools/call`
//! over stdio ([`McpServer::serve_stdio`]) or streamable HTTP ([`McpServer::serve_http`],
//! or [`McpServer::http_service`] to mount it in your own router).
//!
//! - `tools/list` is the set's MCP rendering ([`crate::consumer::mcp`]), built once per server:
//!   names, descriptions, input and output schemas, and annotations derived from each
//!   tool's tier (`read_only` → `readOnlyHint`, `irreversible` → `destructiveHint`, …).
//! - `tools/call` goes through the same gate as every other call: an unknown tool or
//!   arguments that do not fit the schema come back as a result with `isError: true`
//!   and a message the model can act on; a call above the server's [`Autonomy`] is not
//!   run, and comes back with `isError: true` and the "needs human approval" message
//!   (see [`McpServer::with_withheld_message`]); anything else runs with
//!   `Set::apply` against the shared state, and its outcome becomes the
//!   `CallToolResult` (text and image content, `structuredContent` for an object
//!   result, `isError`). Host-only [`ToolOutput::metadata`](crate::ToolOutput) never
//!   goes on the wire. A tool that declares an `outputSchema` must answer with a
//!   conforming object, which clients check; when it answers without one (a skip, say)
//!   the result is sent with `isError: true`, its text unchanged.
//! - A request's `progressToken` turns [`ToolContext::report_progress`] into MCP
//!   `notifications/progress`; a client's `notifications/cancelled` cancels the call's
//!   [`ToolContext`].
//!
//! ```no_run
//! # use toolset::{tool, toolset, Autonomy};
//! # pub struct Notes(Vec<String>);
//! # /// List the notes.
//! # #[tool(tier = "read_only")]
//! # pub async fn list(notes: &Notes) -> String { notes.0.join("\n") }
//! # toolset! { /// Notes.
//! #   pub NoteTools<Notes> = [list]; }
//! use toolset::mcp::McpServer;
//!
//! # async fn run() -> std::io::Result<()> {
//! McpServer::<NoteTools>::new(Notes(Vec::new()))
//!     .with_autonomy(Autonomy::Reversible)
//!     .serve_stdio()
//!     .await
//! # }
//! ```

mod http;
mod server;

use crate::{Autonomy, Policy, ToolContext, ToolName, ToolSet};
use rmcp::model::Tool;
use std::fmt;
use std::sync::Arc;
use tokio::sync::Mutex;

pub use http::DEFAULT_HTTP_PATH;

/// The message of a withheld call when none is configured; see
/// [`McpServer::with_withheld_message`].
pub const DEFAULT_WITHHELD_MESSAGE: &str = "Needs human approval: \"{tool}\" is a tool of tier \
     {tier}, and this server runs tools only up to tier {autonomy} without a human. The call \
     was not run; ask the user to carry it out or to approve it.";

/// An MCP server for the tool set `T`, holding its per-run state.
///
/// Cloning is cheap and every clone shares the same state (behind a
/// [`tokio::sync::Mutex`]: calls run one request at a time, as `apply` needs `&mut`).
/// Built with [`McpServer::new`] and the `with_*` methods; served with
/// [`serve_stdio`](McpServer::serve_stdio) or [`serve_http`](McpServer::serve_http).
pub struct McpServer<T: ToolSet> {
    state: Arc<Mutex<T::State>>,
    policy: Arc<Policy<T>>,
    withheld_message: Arc<str>,
    context: ToolContext,
    name: Arc<str>,
    version: Arc<str>,
    instructions: Option<Arc<str>>,
    tools: Tools,
}

/// The `tools/list` result, rendered once; an `Err` only if the MCP rendering of the set
/// does not parse as MCP tools, which would be a bug of the renderer.
type Tools = Result<Arc<[Tool]>, Arc<str>>;

impl<T: ToolSet> McpServer<T> {
    /// A server over `state`, running only read-only tools unattended
    /// ([`Autonomy::ReadOnly`]), named after the set (`T::NAME`) with this crate's
    /// version.
    pub fn new(state: T::State) -> Self {
        let policy = Policy::new(Autonomy::ReadOnly);
        McpServer {
            state: Arc::new(Mutex::new(state)),
            tools: listed_tools(&policy),
            policy: Arc::new(policy),
            withheld_message: Arc::from(DEFAULT_WITHHELD_MESSAGE),
            context: ToolContext::default(),
            name: Arc::from(T::NAME),
            version: Arc::from(env!("CARGO_PKG_VERSION")),
            instructions: None,
        }
    }

    /// Lets calls up to `autonomy` run without a human. Calls above it (and every
    /// `irreversible` or propose-only tool, whatever the level) are answered with the
    /// withheld message instead of running.
    pub fn with_autonomy(self, autonomy: Autonomy) -> Self {
        let policy = (*self.policy).clone();
        // A fresh policy at `autonomy`, keeping what the old one hid or denied.
        let mut fresh = Policy::new(autonomy);
        for &tool in T::Name::ALL {
            if policy.is_hidden(tool) {
                fresh = fresh.hide(tool);
            }
            if policy.is_denied(tool) {
                fresh = fresh.deny(tool);
            }
        }
        self.with_policy(fresh)
    }

    /// Serves under `policy`: its autonomy decides what runs unattended; tools it hides
    /// or denies are left out of `tools/list` and rejected when called.
    pub fn with_policy(mut self, policy: Policy<T>) -> Self {
        self.tools = listed_tools(&policy);
        self.policy = Arc::new(policy);
        self
    }

    /// The text of the result sent for a call the gate withheld for a human.
    ///
    /// `{tool}`, `{tier}` and `{autonomy}` are replaced by the tool's name, its tier and
    /// the server's autonomy level (`read_only`, …, or `off`). The tier is always part of
    /// the message: when `message` has no `{tier}`, ` (tool tier: …)` is appended.
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

    /// Instructions for the client's model, sent in the `initialize` result.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(Arc::from(instructions.into()));
        self
    }

    /// The shared state the tools run against, e.g. to inspect it after calls.
    pub fn state(&self) -> &Arc<Mutex<T::State>> {
        &self.state
    }

    /// The autonomy level in force.
    pub fn autonomy(&self) -> Autonomy {
        self.policy.autonomy()
    }

    /// The tools `tools/list` answers with, in declared order.
    ///
    /// Fails only if the set's MCP rendering does not parse as MCP tools (a renderer
    /// bug), with the parse error.
    pub fn tools(&self) -> Result<&[Tool], &str> {
        match &self.tools {
            Ok(tools) => Ok(tools),
            Err(error) => Err(error),
        }
    }

    /// The withheld message for a call to `tool` of `tier`, placeholders filled in.
    fn withheld_text(&self, tool: &str, tier: crate::Tier) -> String {
        let autonomy = autonomy_name(self.policy.autonomy());
        let text = self
            .withheld_message
            .replace("{tool}", tool)
            .replace("{autonomy}", autonomy);
        if text.contains("{tier}") {
            text.replace("{tier}", tier.as_str())
        } else {
            format!("{text} (tool tier: {tier})")
        }
    }
}

impl<T: ToolSet> Clone for McpServer<T> {
    fn clone(&self) -> Self {
        McpServer {
            state: Arc::clone(&self.state),
            policy: Arc::clone(&self.policy),
            withheld_message: Arc::clone(&self.withheld_message),
            context: self.context.clone(),
            name: Arc::clone(&self.name),
            version: Arc::clone(&self.version),
            instructions: self.instructions.clone(),
            tools: self.tools.clone(),
        }
    }
}

impl<T: ToolSet> fmt::Debug for McpServer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServer")
            .field("set", &T::NAME)
            .field("policy", &self.policy)
            .field("name", &self.name)
            .field("version", &self.version)
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

/// The set's MCP tool list, without the tools `policy` hides or denies.
fn listed_tools<T: ToolSet>(policy: &Policy<T>) -> Tools {
    use crate::consumer::{Format, Order, tool_list};
    let rendered = tool_list::<T>(Format::Mcp, Order::Declared);
    let tools: Vec<Tool> = serde_json::from_str(rendered).map_err(|error| {
        Arc::<str>::from(format!(
            "the MCP rendering of the tool set {} is not a list of MCP tools: {error}",
            T::NAME
        ))
    })?;
    let listed = tools
        .into_iter()
        .filter(|tool| {
            T::Name::from_name(&tool.name)
                .is_some_and(|name| !policy.is_hidden(name) && !policy.is_denied(name))
        })
        .collect();
    Ok(listed)
}
