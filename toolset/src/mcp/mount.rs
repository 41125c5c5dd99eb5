//! A set mounted in an rmcp server the host already has ([`McpServer::mount_in`]): the
//! [`Mounted`] server, what it is built from, the names it refuses to serve twice
//! ([`NameCollision`]), which side answers a `tools/call` and serving it. Its rmcp
//! `ServerHandler` (`mount_handler.rs`) hands every tool of the set to `McpServer`'s own
//! handler, so a mounted set is gated, approved, journaled and traced by the one path
//! `McpServer` serves it by.

use super::{HttpConfig, Listen, McpServer};
use crate::request::{Activations, Request};
use crate::set::ToolName;
use crate::set::ToolSet;
use rmcp::ServerHandler;
use rmcp::model::ServerCapabilities;
use rmcp::transport::IntoTransport;
use std::collections::BTreeSet;
use std::fmt;
use std::io;

/// An rmcp server of the host's with a tool set mounted in it: its tools, prompts,
/// resources and everything else it answers stay its own, and the set's tools are listed
/// after its own and answered by toolset, exactly as [`McpServer`] answers them.
///
/// Built by [`McpServer::mount_in`]; it is itself an rmcp [`ServerHandler`], so it is
/// served as the handler was, or as toolset serves a set: [`serve`](Mounted::serve) on any
/// rmcp transport (which also notices a client that went away), over streamable HTTP with
/// [`serve_http`](Mounted::serve_http) or [`http_service`](Mounted::http_service) (a
/// session of the set's and a clone of the handler per HTTP session), or with rmcp's own
/// `ServiceExt::serve` and `StreamableHttpService`.
///
/// What each side answers:
/// - `tools/list`: the handler's tools, then the set's (the session's list, as
///   `McpServer` lists it: the policy applied, deferred tools once activated). A
///   handler that pages its tools keeps its pages; the set's come on the first.
/// - `tools/call`: a tool the set lists for this session goes through toolset's gate,
///   the human's approval (elicitation, or `input_required` from 2026-07-28 on), the
///   effect journal and the request span; any other name is the handler's, untouched.
///   A tool the policy hides is not listed, so a call to it is the handler's to answer,
///   exactly as a name nobody has.
/// - `initialize`: the handler's answer, in toolset's request span, with the tools
///   capability (`listChanged`, for activations) and the Tasks extension (when some tool
///   of the set runs as a task) added to its capabilities; `serverInfo` and
///   `instructions` are the handler's (the `McpServer`'s own are not used).
/// - `tasks/*`: toolset's for a task of the set's, the handler's otherwise.
/// - Everything else (prompts, resources, completions, subscriptions, ...): the
///   handler's.
///
/// ```no_run
/// # use toolset::{tool, toolset, Autonomy};
/// # pub struct Notes(Vec<String>);
/// # /// List the notes.
/// # #[tool(tier = "read_only")]
/// # pub async fn list(notes: &Notes) -> String { notes.0.join("\n") }
/// # toolset! { /// Notes.
/// #   pub NoteTools<Notes> = [list]; }
/// # #[derive(Clone)]
/// # struct MyServer;
/// # impl toolset::mcp::rmcp::ServerHandler for MyServer {}
/// use toolset::mcp::{McpServer, stdio};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// McpServer::<NoteTools>::new(Notes(Vec::new()))
///     .with_autonomy(Autonomy::Reversible)
///     .mount_in(MyServer)?
///     .serve(stdio())
///     .await?;
/// # Ok(()) }
/// ```
pub struct Mounted<H, T: ToolSet> {
    pub(super) handler: H,
    pub(super) toolset: McpServer<T>,
}

impl<T: ToolSet> McpServer<T> {
    /// Mounts this server's set (and toolbox) in `handler`, an rmcp server of the host's
    /// (`#[tool_router]` tools, prompts, resources, ...): see [`Mounted`]. Configure the
    /// server first: what it was built with (autonomy, policy, toolbox, proposal store,
    /// tasks, ...) is what the mounted set is served with.
    ///
    /// Fails when a tool of `handler` has the name of a tool this server may list (a tool
    /// of the set or of the toolbox the policy neither hides nor denies, deferred ones
    /// included, and `tool_search` when some are deferred): the error names each. The
    /// handler's tools are asked by name through `ServerHandler::get_tool`, which rmcp's
    /// `#[tool_handler]` writes; a handler that answers `tools/list` by hand should
    /// implement it too, or its names are not checked (and a name listed by both is then
    /// answered by toolset).
    pub fn mount_in<H: ServerHandler>(self, handler: H) -> Result<Mounted<H, T>, NameCollision> {
        let names: Vec<String> = self
            .ever_listed()
            .into_iter()
            .filter(|name| handler.get_tool(name).is_some())
            .collect();
        if !names.is_empty() {
            return Err(NameCollision {
                set: T::NAME,
                names,
            });
        }
        Ok(Mounted {
            handler,
            toolset: self,
        })
    }

    /// Every name this server may list to some session: its list now, and the list of a
    /// session that activated every tool of the toolbox (what a deferred tool becomes once
    /// found). A policy naming a runtime tool the toolbox lacks lists nothing (every
    /// session's `tools/list` fails), so it leaves the set's names alone.
    fn ever_listed(&self) -> BTreeSet<String> {
        let toolbox = &self.base.toolbox;
        let mut everything = Activations::new();
        for name in toolbox.names() {
            everything.activate(name);
        }
        let mut names: BTreeSet<String> = match self.base.listed() {
            Ok(tools) => tools.iter().map(|tool| tool.name.to_string()).collect(),
            Err(_) => BTreeSet::new(),
        };
        if let Ok(request) = Request::new(&self.policy).toolbox(toolbox) {
            let request = request
                .format(crate::consumer::Format::Mcp)
                .activated(&everything);
            names.extend(request.offered().into_iter().map(str::to_owned));
        }
        names
    }
}

impl<H: ServerHandler, T: ToolSet> Mounted<H, T> {
    /// The host's rmcp server the set is mounted in.
    pub fn handler(&self) -> &H {
        &self.handler
    }

    /// The toolset server answering the set's tools: its state, policy and toolbox.
    pub fn toolset(&self) -> &McpServer<T> {
        &self.toolset
    }

    /// Serves the handler with the set mounted on `transport`, until the client closes the
    /// connection: as [`McpServer::serve`] serves a set alone (any rmcp server transport;
    /// stdio is `serve(toolset::mcp::stdio())`), a new session of the set's (nothing
    /// activated, its own exposure) and the connection watched, so the set's calls still
    /// waiting when it ends do not start and running ones are cancelled.
    ///
    /// Fails when the client's `initialize` fails, or when the session ends in an error.
    pub async fn serve<Tr, E, A>(self, transport: Tr) -> io::Result<()>
    where
        Tr: IntoTransport<rmcp::RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let session = Mounted {
            toolset: self.toolset.for_new_session(),
            handler: self.handler,
        };
        super::server::serve_session(session, transport).await
    }

    /// Whether the set answers a `tools/call` of `name`: the set lists it to this session
    /// (or, when its policy names a runtime tool the toolbox lacks and so nothing is
    /// listed, the toolbox has it: toolset answers with that error).
    pub(super) fn serves(&self, name: &str) -> bool {
        match self.toolset.session.listed(&self.toolset.base) {
            Ok(tools) => tools.iter().any(|tool| tool.name == name),
            Err(_) => {
                T::Name::from_name(name).is_some()
                    || self.toolset.base.toolbox.runtime_tool(name).is_some()
            }
        }
    }

    /// `capabilities`, the handler's, with what the set needs declared: tools (with
    /// `listChanged`, for activations), logging (its handlers log through their context)
    /// and the Tasks extension when the set runs some tool as a task. Taken from `McpServer`'s own capabilities, so both declare alike.
    pub(super) fn widen(&self, capabilities: &mut ServerCapabilities) {
        let ours = ServerHandler::get_info(&self.toolset).capabilities;
        if capabilities.logging.is_none() {
            capabilities.logging = ours.logging.clone();
        }
        let tools = capabilities.tools.get_or_insert_with(Default::default);
        if let Some(listed) = ours.tools.and_then(|tools| tools.list_changed) {
            tools.list_changed = Some(tools.list_changed.unwrap_or(false) || listed);
        }
        for (extension, settings) in ours.extensions.into_iter().flatten() {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .entry(extension)
                .or_insert(settings);
        }
    }
}

impl<H: ServerHandler + Clone, T: ToolSet> Mounted<H, T> {
    /// Serves the handler with the set mounted over streamable HTTP at `/mcp`
    /// ([`DEFAULT_HTTP_PATH`](super::DEFAULT_HTTP_PATH)) on `listen`, under `config`, as
    /// [`McpServer::serve_http`] serves a set alone (the same caps, deadlines, `Host`,
    /// `Origin` and authentication checks): each HTTP session gets a clone of the handler
    /// and a new session of the set's, all sharing the set's state.
    ///
    /// Fails at once, with [`io::ErrorKind::PermissionDenied`], when the listener is bound
    /// to a non-loopback address and `config` has no authentication, unless it
    /// [allows that](HttpConfig::allow_unauthenticated_remote).
    pub async fn serve_http(self, listen: impl Listen, config: HttpConfig) -> io::Result<()> {
        super::http::serve_sessions(move || self.for_new_session(), listen, config).await
    }

    /// The handler with the set mounted as a tower service speaking MCP streamable HTTP,
    /// to mount in a router of your own, as [`McpServer::http_service`] gives a set alone
    /// (serve it with axum's `into_make_service_with_connect_info::<SocketAddr>()`).
    pub fn http_service(self, config: HttpConfig) -> axum::Router {
        super::http::sessions_service(move || self.for_new_session(), &config)
    }

    /// This server for a new session (an HTTP session): a clone of the handler, and the
    /// set's server with nothing activated yet.
    fn for_new_session(&self) -> Self {
        Mounted {
            handler: self.handler.clone(),
            toolset: self.toolset.for_new_session(),
        }
    }
}

impl<H: Clone, T: ToolSet> Clone for Mounted<H, T> {
    /// The same handler (cloned) and the same set's server: its state, and its session
    /// (each connection [`serve`](Mounted::serve) serves gets a new one).
    fn clone(&self) -> Self {
        Mounted {
            handler: self.handler.clone(),
            toolset: self.toolset.clone(),
        }
    }
}

impl<H, T: ToolSet> fmt::Debug for Mounted<H, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mounted")
            .field("handler", &std::any::type_name::<H>())
            .field("toolset", &self.toolset)
            .finish()
    }
}

/// Tools of the host's rmcp server and of the mounted set with the same names, refused by
/// [`McpServer::mount_in`]: a client could not tell which one it calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameCollision {
    set: &'static str,
    names: Vec<String>,
}

impl NameCollision {
    /// The names both have, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

impl fmt::Display for NameCollision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = self
            .names
            .iter()
            .map(|name| format!("`{name}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let (noun, verb) = match self.names.len() {
            1 => ("a tool", "is"),
            _ => ("tools", "are"),
        };
        write!(
            f,
            "the rmcp server and the tool set `{}` both have {noun} named {names}, which {verb} \
             then listed twice; rename one side (`#[tool(name = \"...\")]` on either), or hide \
             the set's with `Policy::hide` in the `McpServer`'s policy",
            self.set
        )
    }
}

impl std::error::Error for NameCollision {}
