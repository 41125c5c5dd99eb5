//! Another MCP server's tools as a toolbox namespace ([`McpTools`], feature `mcp-client`):
//! rmcp's client over a child process's stdio, streamable HTTP or any rmcp client transport, each remote
//! tool registered as the runtime tool `label_tool`, with the tier the host maps it to.
//! A remote name that would make `label_tool` too long or invalid for a provider (MCP
//! allows 128 characters and `.`; providers take 64 of `[A-Za-z0-9_-]`) is shortened
//! deterministically and kept unique (see `local_name.rs`); [`McpTools::renamed`] lists
//! those when the namespace is registered.
//!
//! The server's annotations are hints a host may read to decide; they never decide
//! alone: a tool the host's mapping says nothing about is `irreversible`. Calls are
//! forwarded with a progress token (its notifications reach the call's
//! [`ToolContext`]) and cancelled with the call (dropping rmcp's request sends
//! `notifications/cancelled`); a remote error result and a broken transport are failed
//! outcomes. Every call gets one outcome in bounded time whatever the server does: each
//! proxied tool has the namespace's time limit ([`McpTools::with_call_timeout`], applied by
//! `apply` as any tool's), and over stdio a line that is not JSON-RPC fails the calls
//! waiting for an answer at once (`mcp_stdio.rs`).
//! `notifications/tools/list_changed` re-lists the tools: a tool that vanished is unknown
//! to the next request's gate. The namespace has a description (the server's words from
//! its `initialize` answer, or the host's, [`McpTools::describe`]), which OpenAI Responses
//! shows on the namespace's one `namespace` entry.
//!
//! Every tool is pinned when the namespace is registered (`pin.rs`): a later listing that
//! changes a tool's name, title, description, schemas or annotations withholds it (not
//! offered, its calls refused naming the change, a `toolset.mcp.tool_withheld` event)
//! until the host accepts the new definition ([`McpTools::drift`], [`McpTools::accept`]).

mod error;
mod forwarded;

pub use self::error::{AcceptError, McpSourceError};
use self::forwarded::{CancelOnDrop, output, token_text};
use super::dynamic::{DynamicHandler, DynamicTool};
use super::local_name::local_name;
use super::mcp_stdio::{ChildStdio, NOT_JSON_RPC};
use super::pin::{self, Drift};
use super::register::{RegistrationError, register};
use super::{Namespace, RuntimeTool, Source, Toolbox};
use crate::context::ToolContext;
use crate::declaration::DeclarationProblem;
use crate::error::ToolError;
use crate::messages;
use crate::output::ToolOutput;
use crate::set::{ToolName, ToolSet};
use crate::spec::Labels;
use crate::store::{MemoryStore, Store};
use crate::tier::Tier;
use futures_util::future::BoxFuture;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, ProgressNotificationParam, ServerResult,
    Tool,
};
use rmcp::service::{NotificationContext, Peer, PeerRequestOptions, RunningService, ServiceError};
use rmcp::transport::{IntoTransport, StreamableHttpClientTransport};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError, RwLock, Weak};
use std::time::Duration;

/// The time limit of a proxied call unless the host sets one with
/// [`McpTools::with_call_timeout`]: 60 s.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// What the MCP server says about one of its tools, for the host's tier mapping.
#[derive(Debug, Clone)]
pub struct RemoteTool {
    /// The tool's name on its server (without the namespace).
    pub name: String,
    /// Its description.
    pub description: String,
    /// Its annotations: hints, from a server the host may not trust.
    pub annotations: Hints,
}

/// A remote tool whose local name is not `label_tool`: that name would be longer than a
/// provider accepts (64 characters) or hold a character outside `[A-Za-z0-9_-]`, so it
/// was shortened (see [`McpTools::renamed`]). Name it by [`local`](Self::local) in a
/// policy (`deny("label_tool")`, ..) and in the calls the model sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Renamed {
    /// The tool's name on its server.
    pub remote: String,
    /// Its name in the toolbox, the one the model is offered.
    pub local: String,
}

/// A remote tool's MCP annotations, as untrusted hints. Each method is true only when the
/// server states it; an absent hint is false.
#[derive(Debug, Clone, Default)]
pub struct Hints {
    read_only: Option<bool>,
    destructive: Option<bool>,
    idempotent: Option<bool>,
    open_world: Option<bool>,
}

impl Hints {
    /// The server says the tool does not modify its environment (`readOnlyHint: true`).
    pub fn read_only(&self) -> bool {
        self.read_only == Some(true)
    }

    /// The server says the tool may destroy (`destructiveHint: true`).
    pub fn destructive(&self) -> bool {
        self.destructive == Some(true)
    }

    /// The server says repeated calls with the same arguments have no further effect.
    pub fn idempotent(&self) -> bool {
        self.idempotent == Some(true)
    }

    /// The server says the tool reaches an open world (`openWorldHint: true`).
    pub fn open_world(&self) -> bool {
        self.open_world == Some(true)
    }
}

/// The host's mapping of remote tools to tiers.
type TierFn = Arc<dyn Fn(&RemoteTool) -> Option<Tier> + Send + Sync>;

/// The host's labelling of remote tools.
type LabelFn = Arc<dyn Fn(&RemoteTool) -> Labels + Send + Sync>;

/// An MCP server's tools, to add to a toolbox with
/// [`Toolbox::with_namespace`](crate::Toolbox::with_namespace).
///
/// Its tools are pinned when it is added: a tool whose name, title, description, schemas
/// or annotations the server changes afterwards is withheld (not offered, its calls
/// refused naming the change) until the host reviews [`drift`](Self::drift) and
/// [`accept`](Self::accept)s the new definition. The pins are kept in the host's store
/// with [`pinned_in`](Self::pinned_in), so restarts and replicas agree; without one they
/// live in memory for the process, and a restarted host pins what the server lists then.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use toolset::{Tier, toolbox::McpTools};
/// let github = McpTools::connect_stdio("github", tokio::process::Command::new("github-mcp"))
///     .await?
///     .tier(|tool| if tool.annotations.read_only() { Tier::ReadOnly } else { Tier::Irreversible });
/// # Ok(()) }
/// ```
pub struct McpTools {
    shared: Arc<Shared>,
}

/// What the toolbox's namespace, the forwarding handlers and rmcp's client handler share.
struct Shared {
    label: String,
    /// What the model is told of the namespace as a whole (OpenAI Responses shows it on
    /// the namespace's entry): the host's words, or the server's (see `McpTools::describe`).
    description: RwLock<String>,
    tiers: RwLock<Option<TierFn>>,
    /// The host's labels; `None`: every tool reads untrusted content and sends outside.
    labels: RwLock<Option<LabelFn>>,
    explicit: RwLock<HashMap<String, Tier>>,
    /// Every proxied call's time limit.
    call_timeout: RwLock<Duration>,
    /// The connection; dropping it (with the last toolbox) stops the server.
    service: Mutex<Option<RunningService<RoleClient, Listener>>>,
    peer: Peer<RoleClient>,
    /// The server's last listing, as it sent it.
    listed: RwLock<Vec<Tool>>,
    /// The tools as registered now, and what registration refused on the last listing.
    current: RwLock<Arc<[Arc<RuntimeTool>]>>,
    problems: RwLock<Vec<DeclarationProblem>>,
    /// The tools of the last listing whose local name was shortened.
    renamed: RwLock<Vec<Renamed>>,
    /// Incremented after every refresh, for hosts (and tests) waiting for one.
    generation: tokio::sync::watch::Sender<u64>,
    /// The context of each forwarded call, by its progress token.
    progress: Mutex<HashMap<String, ToolContext>>,
    /// Where the tools' pins are kept and whether new tools are held.
    pinning: RwLock<Pinning>,
    /// The tools the last listing withheld.
    withheld: RwLock<Withheld>,
}

/// How the namespace's tools are pinned.
#[derive(Default)]
struct Pinning {
    /// The host's store; `None`: a `MemoryStore` of the namespace's own, once registered.
    store: Option<Arc<dyn Store>>,
    /// Whether a tool first listed after the first listing is held until accepted.
    hold_new: bool,
    /// Whether the tools are pinned: from the namespace's registration in a toolbox on.
    active: bool,
}

/// The tools the last listing withheld, or why every tool was.
#[derive(Default)]
struct Withheld {
    drift: Vec<Drift>,
    /// The store keeping the pins failed: every tool is withheld (its pins could not be compared).
    failure: Option<String>,
}

/// rmcp's client handler: routes progress to the calls, refreshes on `list_changed`.
struct Listener {
    shared: Arc<std::sync::OnceLock<Weak<Shared>>>,
}

impl ClientHandler for Listener {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let Some(shared) = self.shared.get().and_then(Weak::upgrade) else {
            return;
        };
        let token = token_text(&params.progress_token);
        let ctx = shared
            .progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&token)
            .cloned();
        if let Some(ctx) = ctx {
            ctx.report_progress(params.progress, params.total, params.message.as_deref());
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(shared) = self.shared.get().and_then(Weak::upgrade) {
            // A listing that fails keeps the tools as they were; the next change retries.
            let _ = shared.refresh().await;
        }
    }
}

impl McpTools {
    /// Starts `command` as an MCP server on its stdio (its stdin and stdout piped, its
    /// stderr inherited) and lists its tools, to be namespaced `label_tool`. The process
    /// is killed when the last toolbox holding it is dropped.
    ///
    /// A line the server writes on its stdout that is not a JSON-RPC message (the MCP
    /// stdio transport allows nothing else there) fails at once every call waiting for an
    /// answer: its answer may be the garbled line. Calls made after it go on.
    pub async fn connect_stdio(
        label: &str,
        command: tokio::process::Command,
    ) -> Result<McpTools, McpSourceError> {
        let transport = ChildStdio::spawn(command)
            .map_err(|error| McpSourceError::Connect(error.to_string()))?;
        McpTools::connect(label, transport).await
    }

    /// Connects to the MCP server at `url` over streamable HTTP (rmcp's reqwest client)
    /// and lists its tools, to be namespaced `label_tool`. `url` is the server's MCP
    /// endpoint, e.g. `http://127.0.0.1:8931/mcp`.
    ///
    /// Plain `http://` works as built; for `https://`, enable rmcp's `reqwest` (rustls)
    /// or `reqwest-native-tls` feature in your crate. For headers, authentication or a
    /// client of your own, build rmcp's `StreamableHttpClientTransport` and pass it to
    /// [`connect`](Self::connect).
    pub async fn connect_http(label: &str, url: &str) -> Result<McpTools, McpSourceError> {
        let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
        McpTools::connect(label, transport).await
    }

    /// Connects over any rmcp client transport (for streamable HTTP with settings of your
    /// own, rmcp's `StreamableHttpClientTransport`) and lists the server's tools.
    ///
    /// What the transport does with a message it cannot read is its own affair: rmcp's
    /// streamable HTTP client fails a request answered with an unreadable JSON body but
    /// skips an unreadable SSE event, and a call whose answer is lost that way ends at the
    /// [time limit](Self::with_call_timeout).
    pub async fn connect<Tr, E, A>(label: &str, transport: Tr) -> Result<McpTools, McpSourceError>
    where
        Tr: IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        if label.is_empty()
            || !label
                .bytes()
                .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit())
        {
            return Err(McpSourceError::BadLabel(label.to_owned()));
        }
        let cell = Arc::new(std::sync::OnceLock::new());
        let service = Listener {
            shared: Arc::clone(&cell),
        }
        .serve(transport)
        .await
        .map_err(|error| McpSourceError::Connect(error.to_string()))?;
        let (generation, _) = tokio::sync::watch::channel(0);
        let description = server_description(service.peer().peer_info().as_deref());
        let shared = Arc::new(Shared {
            label: label.to_owned(),
            description: RwLock::new(description),
            tiers: RwLock::new(None),
            labels: RwLock::new(None),
            explicit: RwLock::new(HashMap::new()),
            call_timeout: RwLock::new(DEFAULT_CALL_TIMEOUT),
            peer: service.peer().clone(),
            service: Mutex::new(Some(service)),
            listed: RwLock::new(Vec::new()),
            current: RwLock::new(Arc::from(Vec::new())),
            problems: RwLock::new(Vec::new()),
            renamed: RwLock::new(Vec::new()),
            generation,
            progress: Mutex::new(HashMap::new()),
            pinning: RwLock::new(Pinning::default()),
            withheld: RwLock::new(Withheld::default()),
        });
        let _ = cell.set(Arc::downgrade(&shared));
        shared.refresh().await?;
        Ok(McpTools { shared })
    }

    /// The host's tier for each remote tool. Annotations are the server's hints
    /// ([`RemoteTool::annotations`]); what this returns is the tier. Without a mapping
    /// every tool is `irreversible`: it is only ever proposed.
    pub fn tier(self, tier: impl Fn(&RemoteTool) -> Tier + Send + Sync + 'static) -> Self {
        *self
            .shared
            .tiers
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(Arc::new(move |tool| Some(tier(tool))));
        self
    }

    /// The host's labels for each remote tool ([`Labels`]: what it reads, whether it
    /// sends outside), which the gate's trifecta rule reads ([`Exposure`](crate::run::Exposure)).
    /// Without a mapping every tool counts as reading untrusted content and sending
    /// outside ([`Labels::UNKNOWN_REMOTE`]): another party's server wrote its output, and
    /// it may reach anywhere. Fail closed: label only what you know. Read, like the tiers,
    /// when the namespace is added to a toolbox and at every refresh.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use toolset::{Labels, toolbox::McpTools};
    /// let notes = McpTools::connect_stdio("notes", tokio::process::Command::new("notes-mcp"))
    ///     .await?
    ///     .labels(|tool| match tool.name.as_str() {
    ///         "read_note" => Labels::NONE.reading_private(),
    ///         _ => Labels::UNKNOWN_REMOTE,
    ///     });
    /// # Ok(()) }
    /// ```
    pub fn labels(self, labels: impl Fn(&RemoteTool) -> Labels + Send + Sync + 'static) -> Self {
        *self
            .shared
            .labels
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(Arc::new(labels));
        self
    }

    /// The tier of the remote tool `name` (its name on the server), which wins over
    /// [`tier`](Self::tier).
    pub fn tier_of(self, name: &str, tier: Tier) -> Self {
        self.shared
            .explicit
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name.to_owned(), tier);
        self
    }

    /// The time limit of every call to this server's tools ([`DEFAULT_CALL_TIMEOUT`], 60 s,
    /// unless set): a call the server has not answered by then ends with a timed-out
    /// outcome naming the limit, and the server is sent `notifications/cancelled`. Like
    /// the tiers, it is read when the namespace is added to a toolbox and at every
    /// re-listing. A zero limit is refused then, as for any runtime tool.
    pub fn with_call_timeout(self, limit: Duration) -> Self {
        *self
            .shared
            .call_timeout
            .write()
            .unwrap_or_else(PoisonError::into_inner) = limit;
        self
    }

    /// Keeps the pins of this namespace's tools in `store` (the host's SQLite or
    /// PostgreSQL store, shared by its replicas), under the namespace's label and each
    /// tool's name on its server: a process restarted, or another replica, compares the
    /// server's listing against the same pins, and a tool changed while it was down is
    /// withheld from its first listing. Without it the pins are kept in memory and last as
    /// long as the process: a restart pins whatever the server lists then.
    ///
    /// Read when the namespace is added to a toolbox, which pins every tool the server
    /// lists then that has no pin yet.
    pub fn pinned_in(self, store: impl Store + 'static) -> Self {
        self.shared
            .pinning
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .store = Some(Arc::new(store));
        self
    }

    /// Holds a tool the server adds after its first listing as a changed one is held:
    /// withheld, with a [`Drift`] whose `pinned` is `None`, until the host accepts it.
    /// Without it a new tool is pinned as it is first listed and offered at once. The
    /// first listing (no tool of the namespace pinned in the store yet) is always pinned
    /// as it comes: that is when the host approves the server.
    pub fn hold_new_tools(self) -> Self {
        self.shared
            .pinning
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .hold_new = true;
        self
    }

    /// The tools the last listing withheld, each with its pinned and listed definitions
    /// and the fields that changed: not offered to the model, their calls refused, until
    /// [`accept`](Self::accept)ed. Empty before the namespace is registered.
    pub fn drift(&self) -> Vec<Drift> {
        self.shared
            .withheld
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .drift
            .clone()
    }

    /// Accepts the definition `drift` lists (read from [`drift`](Self::drift) and reviewed):
    /// it becomes the tool's pin, in the store, and the tool is offered again, as the
    /// server lists it now. Only that definition is accepted: when the tool is no longer
    /// withheld as `drift` says (accepted already, here or by a replica sharing the store,
    /// changed again, or gone), nothing changes and [`AcceptError::Stale`] says to read
    /// the drift again. Replicas sharing the store offer it at their next listing.
    pub fn accept(&self, drift: &Drift) -> Result<(), AcceptError> {
        let store = self.shared.pin_store().ok_or(AcceptError::NotRegistered)?;
        let current = self.drift().into_iter().any(|withheld| withheld == *drift);
        if !current {
            return Err(AcceptError::Stale(drift.tool.clone()));
        }
        let accepted =
            pin::accept(&*store, &self.shared.label, drift).map_err(AcceptError::Store)?;
        // Compared again either way: a pin someone else wrote is read back.
        self.shared.rebuild();
        if !accepted {
            return Err(AcceptError::Stale(drift.tool.clone()));
        }
        crate::trace::proxied_tool_accepted(&self.shared.label, &drift.tool);
        Ok(())
    }

    /// The namespace's label.
    pub fn label(&self) -> &str {
        &self.shared.label
    }

    /// What the model is told of the namespace as a whole, instead of what the server
    /// says of itself. A format with namespaces (OpenAI Responses) lists the server's
    /// tools inside one `namespace` entry with this description; the other formats list
    /// them flat, as `label_tool`, and do not show it. Like the tiers, it is read when the
    /// namespace is added to a toolbox ([`Toolbox::with_namespace`] refuses an empty one)
    /// and at every re-listing.
    ///
    /// Without it the description is the server's own words from its `initialize`
    /// answer: `serverInfo.description`, else its `instructions`, else
    /// `serverInfo.title`, else `The tools of the MCP server <serverInfo.name>.`. Those
    /// are a server's words, shown to the model like its tools' descriptions: describe a
    /// server you do not trust yourself.
    pub fn describe(self, description: impl Into<String>) -> Self {
        *self
            .shared
            .description
            .write()
            .unwrap_or_else(PoisonError::into_inner) = description.into();
        self
    }

    /// The namespace's description as it is now (see [`describe`](Self::describe)).
    pub fn description(&self) -> String {
        self.shared
            .description
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// What registration refused on the last listing (a refresh drops such a tool
    /// instead of failing).
    pub fn problems(&self) -> Vec<DeclarationProblem> {
        self.shared
            .problems
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The tools of the last listing whose local name is not `label_tool`, because that
    /// would be longer than 64 characters or hold a character outside `[A-Za-z0-9_-]`:
    /// each with its shortened name, the same in every process and on every refresh.
    pub fn renamed(&self) -> Vec<Renamed> {
        self.shared
            .renamed
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The local name (the one the model is offered) of the server's tool `remote`:
    /// `label_remote`, or its shortened form (see [`renamed`](Self::renamed)).
    pub fn local_name(&self, remote: &str) -> String {
        local_name(&self.shared.label, remote)
    }

    /// A receiver whose value grows by one after every refresh of the tools.
    pub fn refreshes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.shared.generation.subscribe()
    }

    /// Closes the connection (the child process ends); calls from then on fail.
    pub async fn close(&self) {
        let service = self
            .shared
            .service
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(service) = service {
            let _ = service.cancel().await;
        }
    }
}

impl Clone for McpTools {
    fn clone(&self) -> Self {
        McpTools {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl fmt::Debug for McpTools {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpTools")
            .field("label", &self.shared.label)
            .finish_non_exhaustive()
    }
}

impl Shared {
    /// Lists the server's tools and registers each as `label_tool`: the tools the
    /// registration accepts replace the current ones; the problems are kept.
    async fn refresh(self: &Arc<Self>) -> Result<Vec<DeclarationProblem>, McpSourceError> {
        let listed = self
            .peer
            .list_all_tools()
            .await
            .map_err(|error| McpSourceError::List(error.to_string()))?;
        *self.listed.write().unwrap_or_else(PoisonError::into_inner) = listed;
        Ok(self.rebuild())
    }

    /// Registers the last listing's tools as `label_tool` with the host's tiers, replacing
    /// the current ones; returns what registration refused.
    fn rebuild(self: &Arc<Self>) -> Vec<DeclarationProblem> {
        let listed = self
            .listed
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let mut tools: Vec<Arc<RuntimeTool>> = Vec::with_capacity(listed.len());
        let mut problems = Vec::new();
        let mut names: Vec<String> = Vec::new();
        let mut renamed = Vec::new();
        let description = self
            .description
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let namespace = Arc::new(Namespace::new(self.label.clone(), description));
        let withheld = self.check_pins(&listed);
        if let Some(failure) = &withheld.failure {
            problems.push(DeclarationProblem {
                tool: format!("{}_", self.label),
                message: failure.clone(),
            });
        }
        for remote in listed {
            if withheld.failure.is_some()
                || withheld
                    .drift
                    .iter()
                    .any(|drift| drift.tool == *remote.name)
            {
                continue;
            }
            let local = local_name(&self.label, &remote.name);
            if local != format!("{}_{}", self.label, remote.name) {
                tracing::info!(
                    namespace = %self.label,
                    remote = %remote.name,
                    local = %local,
                    "a proxied tool's name was shortened to fit the providers' tool-name rule"
                );
                renamed.push(Renamed {
                    remote: remote.name.to_string(),
                    local,
                });
            }
            let tool = self.runtime_tool(remote);
            let name = tool.name().to_owned();
            let taken = |candidate: &str| names.iter().any(|known| known == candidate);
            match register(tool, taken, None) {
                Ok(tool) => tools.push(Arc::new(
                    tool.proxied().in_namespace(Arc::clone(&namespace)),
                )),
                Err(found) => problems.extend(found),
            }
            names.push(name);
        }
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = Arc::from(tools);
        *self
            .problems
            .write()
            .unwrap_or_else(PoisonError::into_inner) = problems.clone();
        *self.renamed.write().unwrap_or_else(PoisonError::into_inner) = renamed;
        *self
            .withheld
            .write()
            .unwrap_or_else(PoisonError::into_inner) = withheld;
        self.generation.send_modify(|generation| *generation += 1);
        problems
    }

    /// The store keeping the pins, once the namespace is registered.
    fn pin_store(&self) -> Option<Arc<dyn Store>> {
        let pinning = self.pinning.read().unwrap_or_else(PoisonError::into_inner);
        pinning.active.then(|| pinning.store.clone()).flatten()
    }

    /// Pins the tools from now on (the namespace is being registered): in the host's
    /// store, or in one of the namespace's own.
    fn start_pinning(&self) {
        let mut pinning = self.pinning.write().unwrap_or_else(PoisonError::into_inner);
        if pinning.store.is_none() {
            pinning.store = Some(Arc::new(MemoryStore::new()));
        }
        pinning.active = true;
    }

    /// Which tools of `listed` are withheld against their pins; each one newly withheld
    /// is reported by an event. Fails closed: a store that fails withholds every tool.
    fn check_pins(&self, listed: &[Tool]) -> Withheld {
        let Some(store) = self.pin_store() else {
            return Withheld::default();
        };
        let hold_new = self
            .pinning
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .hold_new;
        let checked = pin::withheld(&*store, &self.label, listed, hold_new, |name| {
            local_name(&self.label, name)
        });
        let drift = match checked {
            Ok(drift) => drift,
            Err(error) => {
                crate::trace::pins_failed(&self.label, &error);
                return Withheld {
                    drift: Vec::new(),
                    failure: Some(format!(
                        "every tool of the namespace `{}` is withheld: its pins could not be \
                         compared ({error}); check the store, then re-list the tools",
                        self.label
                    )),
                };
            }
        };
        let before = self.withheld.read().unwrap_or_else(PoisonError::into_inner);
        for found in &drift {
            if !before.drift.contains(found) {
                crate::trace::proxied_tool_withheld(
                    &self.label,
                    &found.tool,
                    found.is_new(),
                    &found.changed.join(", "),
                );
            }
        }
        Withheld {
            drift,
            failure: None,
        }
    }

    /// Why the tool `local` (its name in the toolbox) is withheld, as the model reads it;
    /// `None` when it is not.
    fn withheld_reason(&self, local: &str) -> Option<String> {
        let withheld = self.withheld.read().unwrap_or_else(PoisonError::into_inner);
        if withheld.failure.is_some() && local.starts_with(&format!("{}_", self.label)) {
            return Some(messages::proxied_tool_unverified(local));
        }
        withheld
            .drift
            .iter()
            .find(|drift| drift.local == local)
            .map(|drift| messages::proxied_tool_withheld(local, drift.is_new(), &drift.changed))
    }

    /// The remote tool as a runtime tool of this namespace, with the host's tier.
    fn runtime_tool(self: &Arc<Self>, remote: Tool) -> DynamicTool {
        let hints = remote
            .annotations
            .as_ref()
            .map_or_else(Hints::default, |hints| Hints {
                read_only: hints.read_only_hint,
                destructive: hints.destructive_hint,
                idempotent: hints.idempotent_hint,
                open_world: hints.open_world_hint,
            });
        let description = remote.description.as_deref().unwrap_or_default().to_owned();
        let info = RemoteTool {
            name: remote.name.to_string(),
            description: description.clone(),
            annotations: hints,
        };
        let explicit = self
            .explicit
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&info.name)
            .copied();
        let mapped = self
            .tiers
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .and_then(|tier| tier(&info));
        // A tool the host says nothing about is only ever proposed.
        let tier = explicit.or(mapped).unwrap_or(Tier::Irreversible);
        let limit = *self
            .call_timeout
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        let mut tool = DynamicTool::new(local_name(&self.label, &info.name), tier, description)
            .timeout_ms(u64::try_from(limit.as_millis()).unwrap_or(u64::MAX))
            .input_schema(Value::Object((*remote.input_schema).clone()))
            .boxed_handler(Arc::new(Forward {
                shared: Arc::downgrade(self),
                label: self.label.clone(),
                remote: info.name.clone(),
            }));
        if let Some(title) = remote.title.or(remote.annotations.and_then(|a| a.title)) {
            tool = tool.title(title);
        }
        if let Some(output) = remote.output_schema {
            tool = tool.output_schema(Value::Object((*output).clone()));
        }
        if info.annotations.idempotent() {
            tool = tool.idempotent();
        }
        // A tool the host says nothing about reads untrusted content and sends outside.
        let labels = self
            .labels
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map_or(Labels::UNKNOWN_REMOTE, |labels| labels(&info));
        tool.labels(labels)
    }
}

impl Source for Shared {
    fn label(&self) -> &str {
        &self.label
    }

    fn tools(&self) -> Arc<[Arc<RuntimeTool>]> {
        Arc::clone(&self.current.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn generation(&self) -> u64 {
        *self.generation.borrow()
    }

    fn refreshes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.generation.subscribe()
    }

    fn withheld(&self, name: &str) -> Option<String> {
        self.withheld_reason(name)
    }
}

/// The handler of a proxied tool: forwards the call to the server.
struct Forward {
    shared: Weak<Shared>,
    label: String,
    remote: String,
}

/// Removes a call's progress route when the call ends, however it ends.
struct Route<'a> {
    shared: &'a Shared,
    token: String,
}

impl Drop for Route<'_> {
    fn drop(&mut self) {
        self.shared
            .progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.token);
    }
}

impl DynamicHandler for Forward {
    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let Some(shared) = self.shared.upgrade() else {
                return Err(ToolError::failed(messages::proxy_unreachable(
                    &self.label,
                    &"the connection was closed",
                )));
            };
            // Gated before its server changed it, the call still never reaches the server.
            if let Some(reason) = shared.withheld_reason(&local_name(&self.label, &self.remote)) {
                return Err(ToolError::failed(reason));
            }
            let mut params = CallToolRequestParams::new(self.remote.clone());
            params.arguments = match args {
                Value::Object(map) => Some(map),
                _ => None,
            };
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
            let unreachable = |error: &dyn fmt::Display| {
                ToolError::failed(messages::proxy_unreachable(&shared.label, error))
            };
            // rmcp gives every request a progress token of its own: route that one.
            let handle = shared
                .peer
                .send_request_with_option(request, PeerRequestOptions::no_options())
                .await
                .map_err(|error| unreachable(&error))?;
            let token = token_text(&handle.progress_token);
            shared
                .progress
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(token.clone(), ctx.clone());
            let _route = Route {
                shared: &shared,
                token,
            };
            // Dropped before the answer (a timeout, a cancellation), the call tells the
            // server with `notifications/cancelled`.
            let mut cancel = CancelOnDrop {
                peer: shared.peer.clone(),
                request: Some(handle.id.clone()),
            };
            let response = handle.await_response().await;
            cancel.request = None;
            match response {
                Ok(ServerResult::CallToolResult(result)) => output(&shared.label, result),
                Ok(_) => Err(unreachable(
                    &"it answered with something else than a tool result",
                )),
                Err(ServiceError::McpError(error)) if error.code == NOT_JSON_RPC => Err(
                    ToolError::failed(messages::proxy_not_json_rpc(&shared.label)),
                ),
                Err(error) => Err(unreachable(&error)),
            }
        })
    }
}

/// The namespace's description from the server's `initialize` answer, when the host
/// gives none (see [`McpTools::describe`]): the first of `serverInfo.description`,
/// `instructions` and `serverInfo.title` that holds text, else a sentence naming the
/// server.
fn server_description(info: Option<&rmcp::model::ServerPeerInfo>) -> String {
    let server = info.and_then(|info| info.server_info.as_ref());
    [
        server.and_then(|server| server.description.as_deref()),
        info.and_then(|info| info.instructions.as_deref()),
        server.and_then(|server| server.title.as_deref()),
    ]
    .into_iter()
    .flatten()
    .map(str::trim)
    .find(|text| !text.is_empty())
    .map_or_else(
        || match server {
            Some(server) => format!("The tools of the MCP server {}.", server.name),
            None => "The tools of an MCP server.".to_owned(),
        },
        str::to_owned,
    )
}

impl<T: ToolSet> Toolbox<T> {
    /// The toolbox with an MCP server's tools, each named `label_tool` (shortened where
    /// that would be too long or invalid for a provider: [`McpTools::renamed`] lists
    /// those), listed now and re-listed on every `tools/list_changed`. OpenAI Responses
    /// lists them as one `namespace` entry described by [`McpTools::description`]. `Err`
    /// lists every tool registration refused (a schema the gate cannot check, a label so
    /// long that no name fits, ..), a label already used or whose `label_` prefix a tool of
    /// the toolbox has, and an empty description ([`McpTools::describe`]).
    pub fn with_namespace(mut self, tools: McpTools) -> Result<Self, RegistrationError> {
        let label = tools.shared.label.clone();
        let prefix = format!("{label}_");
        let mut problems = Vec::new();
        if self.sources.iter().any(|source| source.label() == label) {
            problems.push(DeclarationProblem {
                tool: prefix.clone(),
                message: format!(
                    "the label `{label}` is used by another namespace; give each server its own"
                ),
            });
        }
        let clashing = T::Name::ALL
            .iter()
            .map(|tool| tool.as_str().to_owned())
            .chain(self.tools.iter().map(|tool| tool.spec().name().to_owned()))
            .filter(|name| name.starts_with(&prefix));
        if tools.description().trim().is_empty() {
            problems.push(DeclarationProblem {
                tool: prefix.clone(),
                message: format!(
                    "the namespace `{label}` has an empty description, which the model reads for \
                     all its tools; give it one with `McpTools::describe`"
                ),
            });
        }
        for name in clashing {
            problems.push(DeclarationProblem {
                tool: name,
                message: format!(
                    "this tool's name starts with `{prefix}`, the prefix of the namespace `{label}`; \
                     rename the tool or choose another label"
                ),
            });
        }
        // The tiers are final now: pin the listing and register it with them.
        tools.shared.start_pinning();
        problems.extend(tools.shared.rebuild());
        if !problems.is_empty() {
            return Err(RegistrationError::new(problems));
        }
        self.sources.push(tools.shared);
        Ok(self)
    }
}
