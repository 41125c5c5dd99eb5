//! The toolbox: a compiled set plus tools defined at run time (DESIGN.md, "Tools defined at
//! run time"), passing the same gate, plan, apply, proposals and renderers.
//!
//! A [`Toolbox`] owns its runtime tools ([`RuntimeTool`], registered from a
//! [`DynamicTool`] by [`Toolbox::with`]); a [`Request`](crate::request::Request) built from it offers them after the
//! set's tools, routes their calls to the gate's JSON Schema check (`verify.rs`) and puts
//! them in the same [`Plan`](crate::plan::Plan), so a program mixing both is gated as one and
//! applied as one, outcomes in the model's order. What a runtime tool is made of lives in
//! `dynamic.rs`, what registration checks in `register.rs`.

mod dynamic;
#[cfg(feature = "mcp-client")]
mod local_name;
#[cfg(feature = "mcp-client")]
mod mcp_source;
#[cfg(feature = "mcp-client")]
mod mcp_stdio;
#[cfg(feature = "mcp-client")]
mod pin;
mod register;
mod runtime_tool;

pub use dynamic::{DynamicHandler, DynamicTool, HandlerFn, ReadStateFn, WriteStateFn};
#[cfg(feature = "mcp-client")]
pub use mcp_source::{
    AcceptError, DEFAULT_CALL_TIMEOUT, Hints, McpSourceError, McpTools, RemoteTool, Renamed,
};
#[cfg(feature = "mcp-client")]
pub use pin::{Drift, PINNED_FIELDS, ToolDefinition};
pub use register::RegistrationError;
pub(crate) use runtime_tool::Namespace;
pub use runtime_tool::RuntimeTool;

use crate::declaration::DeclarationProblem;
use crate::proposal::Proposal;
use crate::set::{ToolName, ToolSet};
use serde_json::Value;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

/// The compiled set `T` plus tools defined at run time: one gate, plan and apply for a
/// program mixing both, one tool list, one MCP server.
///
/// A toolbox joins a [`Request`](crate::request::Request) ([`Request::toolbox`](crate::request::Request::toolbox), or [`Toolbox::request`](Toolbox::request)), which
/// gates a program mixing both; `Set::apply` runs the plan, the runtime calls included.
/// Built with `Set::toolbox()` (or [`Toolbox::new`]) and [`with`](Self::with); cloning is
/// cheap (the runtime tools are shared).
///
/// ```
/// use serde_json::{json, Value};
/// use toolset::prelude::*;
/// use toolset::consumer::Format;
/// use toolset::{Autonomy, DynamicTool, Tier, ToolCall, ToolContext, tool, toolset};
///
/// /// Tell the time.
/// #[tool(tier = "read_only")]
/// async fn now() -> String { "noon".into() }
///
/// toolset! { Clock = [now]; }
///
/// async fn weather(args: Value, _ctx: &ToolContext) -> String {
///     format!("Sunny in {}.", args["city"].as_str().unwrap_or("?"))
/// }
///
/// let toolbox = Clock::toolbox().with(
///     DynamicTool::new("weather", Tier::ReadOnly, "Today's weather for a city.")
///         .input_schema(json!({"type": "object", "properties": {"city": {"type": "string"}},
///                              "required": ["city"]}))
///         .handler(weather),
/// )?;
/// let policy = Clock::policy(Autonomy::ReadOnly);
/// let request = toolbox.request(&policy)?.format(Format::OpenAiChat);
/// assert_eq!(request.offered(), ["now", "weather"]);
/// let plan = request.gate([
///     ToolCall::new("1", "now", "{}"),
///     ToolCall::new("2", "weather", r#"{"city":"Oslo"}"#),
/// ])?;
/// let report = tokio::runtime::Builder::new_current_thread().build()?
///     .block_on(Clock::apply(&mut (), &ToolContext::default(), plan));
/// assert!(report.outcomes().all(|(_, outcome)| outcome.is_done()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Toolbox<T: ToolSet> {
    tools: Vec<Arc<RuntimeTool>>,
    /// Namespaces whose tools change while the toolbox lives (an MCP server's, refreshed on
    /// `tools/list_changed`), after the runtime tools added one by one.
    sources: Vec<Arc<dyn Source>>,
    set: PhantomData<fn() -> T>,
}

/// A namespace of runtime tools that can change: every tool is `label_tool`, and the
/// prefix `label_` belongs to it alone, so a refresh never collides with another tool.
pub(crate) trait Source: Send + Sync {
    /// The namespace's label, `[a-z0-9]+`.
    fn label(&self) -> &str;
    /// Its tools now, in the order the source lists them.
    fn tools(&self) -> Arc<[Arc<RuntimeTool>]>;
    #[cfg(feature = "mcp")]
    /// How many times its tools were re-listed: grows by one with every refresh.
    fn generation(&self) -> u64;
    #[cfg(feature = "mcp")]
    /// A receiver told of every refresh (its value is the generation).
    fn refreshes(&self) -> tokio::sync::watch::Receiver<u64>;
    /// Why its tool `name` is withheld (a pinned tool its server changed), as the model
    /// reads it; `None` when it is not.
    fn withheld(&self, name: &str) -> Option<String>;
}

impl<T: ToolSet> Toolbox<T> {
    /// The set's tools alone; add runtime ones with [`with`](Self::with).
    pub fn new() -> Self {
        Toolbox {
            tools: Vec::new(),
            sources: Vec::new(),
            set: PhantomData,
        }
    }

    /// The toolbox with `tool` added, once registration checked it: name grammar, a name
    /// no other tool has (the compiled set's included), a description, a handler, and
    /// schemas the gate can check. `Err` lists every problem of the tool.
    pub fn with(self, tool: DynamicTool) -> Result<Self, RegistrationError> {
        self.with_all([tool])
    }

    /// The toolbox with every one of `tools` added, or none of them: `Err` lists every
    /// problem of every tool (two of them sharing a name included).
    pub fn with_all(
        mut self,
        tools: impl IntoIterator<Item = DynamicTool>,
    ) -> Result<Self, RegistrationError> {
        let mut problems = Vec::new();
        let mut added: Vec<Arc<RuntimeTool>> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for tool in tools {
            let name = tool.name.clone();
            if let Some(label) = self.namespace_of(&name) {
                problems.push(DeclarationProblem {
                    tool: name.clone(),
                    message: format!(
                        "the prefix `{label}_` belongs to the namespace `{label}` (an MCP server's \
                         tools); rename the tool"
                    ),
                });
            }
            let taken = |candidate: &str| {
                T::Name::from_name(candidate).is_some()
                    || self.runtime(candidate).is_some()
                    || names.iter().any(|earlier| earlier == candidate)
            };
            let state = register::StateType {
                id: std::any::TypeId::of::<T::State>(),
                name: std::any::type_name::<T::State>(),
                set: T::NAME,
            };
            match register::register(tool, taken, Some(state)) {
                Ok(tool) => added.push(Arc::new(tool)),
                Err(found) => problems.extend(found),
            }
            names.push(name);
        }
        if !problems.is_empty() {
            return Err(RegistrationError::new(problems));
        }
        self.tools.extend(added);
        Ok(self)
    }

    /// The toolbox without the runtime tool `name` (from then on unknown to the gate);
    /// unchanged when it has no such runtime tool. Compiled tools cannot be removed: hide
    /// or deny them with the policy.
    pub fn without(mut self, name: &str) -> Self {
        // A namespace's tools come and go with its server; only `tools` can be dropped.
        self.tools.retain(|tool| tool.spec().name() != name);
        self
    }

    /// The namespace whose prefix `name` starts with, if any.
    fn namespace_of(&self, name: &str) -> Option<&str> {
        self.sources
            .iter()
            .map(|source| source.label())
            .find(|label| {
                name.strip_prefix(label)
                    .is_some_and(|rest| rest.starts_with('_'))
            })
    }

    /// The runtime tool `name` as the toolbox has it now, if any.
    fn runtime(&self, name: &str) -> Option<Arc<RuntimeTool>> {
        self.runtime_tools()
            .into_iter()
            .find(|tool| tool.spec().name() == name)
    }

    /// The runtime tools as they are now: those added one by one, in the order they were
    /// added, then each namespace's current tools. A request takes this snapshot once, so
    /// its list and its gate agree even while a namespace refreshes.
    pub fn runtime_tools(&self) -> Vec<Arc<RuntimeTool>> {
        let mut tools = self.tools.clone();
        for source in &self.sources {
            tools.extend(source.tools().iter().cloned());
        }
        tools
    }

    #[cfg(feature = "mcp")]
    /// Which version of its namespaces' tools the toolbox holds: grows with every refresh
    /// of any of them, so a list composed at one generation is stale at a later one.
    pub(crate) fn generation(&self) -> u64 {
        self.sources.iter().map(|source| source.generation()).sum()
    }

    #[cfg(feature = "mcp")]
    /// Whether some of the toolbox's tools can change while it lives (it has namespaces).
    pub(crate) fn can_change(&self) -> bool {
        !self.sources.is_empty()
    }

    #[cfg(feature = "mcp")]
    /// What tells of the refreshes of the toolbox's namespaces, from now on.
    pub(crate) fn refreshes(&self) -> Refreshes {
        Refreshes(
            self.sources
                .iter()
                .map(|source| source.refreshes())
                .collect(),
        )
    }

    /// Why the tool `name` of one of the toolbox's namespaces is withheld now (its server
    /// changed it since it was pinned), as the model reads it; `None` when it is not.
    pub(crate) fn withheld(&self, name: &str) -> Option<String> {
        self.sources.iter().find_map(|source| source.withheld(name))
    }

    /// The runtime tool `name`, if the toolbox has one now: its spec and what renders it.
    pub fn runtime_tool(&self, name: &str) -> Option<Arc<RuntimeTool>> {
        self.runtime(name)
    }

    /// The preview of a proposal's call, computed now from its arguments: the runtime
    /// tool's when the proposal is for one, else the set's (see [`Proposal::preview`]).
    /// A stored preview is never trusted; `None` when the tool declares none or the
    /// arguments are not JSON.
    pub fn preview(&self, proposal: &Proposal) -> Option<String> {
        let call = proposal.call();
        match self.runtime(&call.name) {
            Some(tool) => {
                let args: Value = serde_json::from_str(match call.arguments.text().trim() {
                    "" => "{}",
                    text => text,
                })
                .ok()?;
                tool.preview(&args)
            }
            None => proposal.preview::<T>(),
        }
    }

    /// The names of every tool the toolbox offers by default, in list order: the set's
    /// (declared order), then the runtime ones.
    pub fn names(&self) -> Vec<String> {
        T::specs()
            .iter()
            .map(|spec| spec.name().to_owned())
            .chain(
                self.runtime_tools()
                    .iter()
                    .map(|tool| tool.spec().name().to_owned()),
            )
            .collect()
    }
}

#[cfg(feature = "mcp")]
/// The refreshes of a toolbox's namespaces ([`Toolbox::refreshes`]); several refreshes
/// between two waits are one.
pub(crate) struct Refreshes(Vec<tokio::sync::watch::Receiver<u64>>);

#[cfg(feature = "mcp")]
impl Refreshes {
    /// Completes at the next refresh of any namespace not waited for yet; never, when the
    /// toolbox has none.
    pub(crate) async fn next(&mut self) {
        if self.0.is_empty() {
            return std::future::pending().await;
        }
        let waits = self
            .0
            .iter_mut()
            .map(|receiver| Box::pin(receiver.changed()));
        if futures_util::future::select_all(waits).await.0.is_err() {
            // A namespace's sender lives as long as the toolbox holding it; gone, it never
            // refreshes again.
            std::future::pending::<()>().await;
        }
    }
}

impl<T: ToolSet> Default for Toolbox<T> {
    fn default() -> Self {
        Toolbox::new()
    }
}

impl<T: ToolSet> Clone for Toolbox<T> {
    fn clone(&self) -> Self {
        Toolbox {
            tools: self.tools.clone(),
            sources: self.sources.clone(),
            set: PhantomData,
        }
    }
}

impl<T: ToolSet> fmt::Debug for Toolbox<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolbox")
            .field("set", &T::NAME)
            .field(
                "runtime",
                &self
                    .runtime_tools()
                    .iter()
                    .map(|tool| tool.spec().name().to_owned())
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}
