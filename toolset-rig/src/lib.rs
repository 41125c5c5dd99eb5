//! # toolset-rig
//!
//! A toolset set as a [rig](https://crates.io/crates/rig-agent) agent's tools: every call
//! the model makes in one turn gated by toolset as one program, a withheld call answered as
//! awaiting approval with its proposal submitted to the store, and its result told to the
//! model once, at the start of the agent's next run, after a human approved or declined it.
//!
//! ```no_run
//! use rig_agent::AgentBuilder;
//! use rig_core::DynModel;
//! use rig_core::operation::Completion;
//! use toolset::prelude::*;
//! use toolset::{Autonomy, Driver, MemoryStore, ToolContext, tool, toolset};
//! use toolset_rig::{RigTools, WithToolset};
//!
//! pub struct Inbox { items: Vec<String> }
//!
//! /// Search the inbox by free text.
//! #[tool(tier = "read_only")]
//! async fn search(inbox: &Inbox, /** Words to look for. */ query: String) -> String {
//!     inbox.items.iter().filter(|item| item.contains(&query)).cloned().collect::<Vec<_>>().join("\n")
//! }
//!
//! toolset! { pub InboxTools<Inbox> = [search]; }
//!
//! # async fn run(model: DynModel<Completion>) -> Result<(), Box<dyn std::error::Error>> {
//! let driver = Driver::new(InboxTools::policy(Autonomy::Reversible), MemoryStore::new());
//! let tools = RigTools::new(driver, Inbox { items: vec![] }, ToolContext::default())?;
//! let agent = AgentBuilder::new(model).toolset(&tools)?.build();
//! let answer = agent.prompt("What came from Ana?").await?;
//! for proposal in tools.take_proposals() {
//!     // show proposal.call() and proposal.tier() to the user, then:
//!     tools.approve(&proposal.reviewed()).await?; // runs once; the model is told at its next run
//! }
//! # let _ = answer;
//! # Ok(())
//! # }
//! ```
//!
//! How it fits rig (0.44; see the repository's `docs/coming-from-rig.md`):
//!
//! - **The tools** are registered as rig [`DynamicTool`](rig_core::tool::DynamicTool)s, one
//!   per tool the driver's policy offers a fresh conversation, with toolset's description
//!   and argument schema. A deferred tool and the tool search are not listed: rig's list is
//!   fixed when the agent is built.
//! - **The gate** runs in the agent's hook, [`ToolsetHook`], when rig accepts a model turn
//!   (`AgentHook::on_model_turn_finished`): rig hands a hook the whole turn there, so the
//!   turn's calls to the set's tools are one program, gated, proposed, applied (journaled)
//!   and answered by the [`Driver`] before rig dispatches any of them.
//!   Calls to the agent's other rig tools are not part of the program and run as rig runs
//!   them.
//! - **The answers** reach the model in rig's tool result shape: a call that ran answers
//!   with its output (a structured result as JSON content, an error as a failed result),
//!   and a call that did not run (withheld, refused, or the whole program rejected) as a
//!   skipped result with toolset's words ("awaiting approval", what to fix).
//! - **Late results** (a withheld call approved or declined later) are put before the
//!   prompt of the agent's next run (`AgentHook::on_run_start`), once.
//! - **One conversation**: a `RigTools` is one toolset conversation
//!   ([`RigTools::conversation`]), and the agent's runs go on it, one request at a time
//!   (a turn gated while another holds the conversation stops its run, saying so). Give
//!   each conversation of yours its own `RigTools` and agent.
//! - **State and context**: the handlers borrow the set's state, held here
//!   ([`RigTools::state`]), and read the toolset
//!   [`ToolContext`] given to [`RigTools::new`] (put services in
//!   it with `with_extension`). rig's own per-call `ToolContext` is not read: the
//!   program runs before rig dispatches its calls one by one.

mod answer;
mod hook;
mod tools;

pub use hook::ToolsetHook;

use answer::Answer;
use rig_agent::agent::{AgentBuilder, NoToolConfig, WithBuilderTools};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use toolset::approval::Reviewed;
use toolset::consumer::Format;
use toolset::driver::{DriverError, Resolved, Style};
use toolset::set::ToolSet;
use toolset::store::{RunId, Store};
use toolset::{Driver, Proposal, ToolContext};

/// A set's tools for a rig agent, over a toolset [`Driver`] and one conversation of it:
/// the tools to register ([`WithToolset::toolset`]), the hook that gates their calls
/// ([`ToolsetHook`]), the set's state, and the human's side ([`approve`](Self::approve),
/// [`decline`](Self::decline)).
///
/// Cloning is cheap and shares everything: the agent's hook and tools hold clones.
pub struct RigTools<T: ToolSet, S> {
    shared: Arc<Shared<T, S>>,
}

impl<T: ToolSet, S> Clone for RigTools<T, S> {
    fn clone(&self) -> Self {
        RigTools {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<T: ToolSet, S> fmt::Debug for RigTools<T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RigTools")
            .field("set", &T::NAME)
            .field("conversation", &self.shared.run)
            .field("tools", &self.shared.definitions.len())
            .finish_non_exhaustive()
    }
}

/// What the hook, the tools and the host share.
pub(crate) struct Shared<T: ToolSet, S> {
    driver: Driver<T, S>,
    run: RunId,
    state: tokio::sync::Mutex<T::State>,
    ctx: ToolContext,
    definitions: Vec<tools::Definition>,
    /// Each gated turn's answers, by rig run and call id, until rig dispatches each call.
    answers: Mutex<HashMap<(rig_core::id::RunId, String), Answer>>,
    /// Proposals submitted since the host last took them.
    proposals: Mutex<Vec<Proposal>>,
    /// Late results the driver handed over in the middle of a run, for the next run's
    /// prompt (rig has no place to add a message to a run under way).
    late: Mutex<Vec<String>>,
}

/// A lock, whatever a panicking holder left: each value here is replaced whole.
fn lock<V>(mutex: &Mutex<V>) -> MutexGuard<'_, V> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<T: ToolSet, S: Store + Send + Sync + 'static> RigTools<T, S> {
    /// The set's tools over `driver`, in a new conversation, with the set's `state` and
    /// the `ctx` its handlers read. The driver is set to OpenAI Chat and the continue style:
    /// rig answers every call in its turn, so a withheld call is answered "awaiting
    /// approval" and its result comes later.
    pub fn new(
        driver: Driver<T, S>,
        state: T::State,
        ctx: ToolContext,
    ) -> Result<Self, DriverError> {
        let driver = Self::configured(driver);
        let run = driver.start()?.id().clone();
        Self::over(driver, run, state, ctx)
    }

    /// The set's tools over `driver`, going on with the conversation `run`
    /// ([`conversation`](Self::conversation) of an earlier `RigTools`, in this process or
    /// another): its late results reach the model at the agent's next run.
    pub fn resume(
        driver: Driver<T, S>,
        run: &RunId,
        state: T::State,
        ctx: ToolContext,
    ) -> Result<Self, DriverError> {
        let driver = Self::configured(driver);
        Self::over(driver, run.clone(), state, ctx)
    }

    fn configured(driver: Driver<T, S>) -> Driver<T, S> {
        driver.format(Format::OpenAiChat).style(Style::Continue)
    }

    fn over(
        driver: Driver<T, S>,
        run: RunId,
        state: T::State,
        ctx: ToolContext,
    ) -> Result<Self, DriverError> {
        let definitions = {
            let conversation = driver.resume(&run)?;
            tools::definitions(&conversation.request()?.strict(false).tool_list())
        };
        Ok(RigTools {
            shared: Arc::new(Shared {
                driver,
                run,
                state: tokio::sync::Mutex::new(state),
                ctx,
                definitions,
                answers: Mutex::new(HashMap::new()),
                proposals: Mutex::new(Vec::new()),
                late: Mutex::new(Vec::new()),
            }),
        })
    }

    /// The conversation's id: give it to [`resume`](Self::resume) to go on elsewhere.
    pub fn conversation(&self) -> &RunId {
        &self.shared.run
    }

    /// The driver: its store, its approvals ([`Driver::approvals`]), a proposal's preview
    /// ([`Driver::preview`]).
    pub fn driver(&self) -> &Driver<T, S> {
        &self.shared.driver
    }

    /// The names of the tools given to rig, in the set's order.
    pub fn names(&self) -> Vec<&str> {
        self.shared
            .definitions
            .iter()
            .map(|definition| definition.name.as_str())
            .collect()
    }

    /// The tools, as rig tools to register (what [`WithToolset::toolset`] registers). Each
    /// answers its call with what the hook decided; without the hook on the agent, each
    /// call is answered that it was not gated, and nothing runs.
    pub fn tools(&self) -> Result<Vec<rig_core::tool::DynamicTool>, tools::ToolNameError> {
        tools::rig_tools(&self.shared.definitions)
    }

    /// The hook that gates the tools' calls (what [`WithToolset::toolset`] adds).
    pub fn hook(&self) -> ToolsetHook<T, S> {
        ToolsetHook::new(Arc::clone(&self.shared))
    }

    /// The proposals submitted since the last call: the withheld calls, each waiting for a
    /// human. Show each (its `call()`, `tier()`, [`Driver::preview`]) and answer it with
    /// [`approve`](Self::approve) or [`decline`](Self::decline).
    pub fn take_proposals(&self) -> Vec<Proposal> {
        std::mem::take(&mut *lock(&self.shared.proposals))
    }

    /// The set's state, locked (the agent's calls wait while it is held).
    pub async fn state(&self) -> tokio::sync::MutexGuard<'_, T::State> {
        self.shared.state.lock().await
    }

    /// The human approves what they reviewed: checked again under the policy in force, run
    /// once against the state, journaled ([`Driver::approve`]); the model is told the result
    /// at the start of the agent's next run.
    pub async fn approve(&self, reviewed: &Reviewed) -> Result<Resolved<T>, DriverError> {
        let mut state = self.shared.state.lock().await;
        self.shared
            .driver
            .approve(reviewed, &mut state, &self.shared.ctx)
            .await
    }

    /// The human declines what they reviewed, with a reason the model is told at the start of
    /// the agent's next run ([`Driver::decline`]).
    pub fn decline(&self, reviewed: &Reviewed, reason: &str) -> Result<(), DriverError> {
        self.shared.driver.decline(reviewed, reason)
    }
}

/// Gives an [`AgentBuilder`] a set's tools and the hook that gates them, in one step (a
/// tool registered without its hook would answer every call that it was not gated).
pub trait WithToolset {
    /// The builder with `tools`' tools registered and their [`ToolsetHook`] added.
    fn toolset<T: ToolSet, S: Store + Send + Sync + 'static>(
        self,
        tools: &RigTools<T, S>,
    ) -> Result<AgentBuilder<WithBuilderTools>, tools::ToolNameError>;
}

impl WithToolset for AgentBuilder<NoToolConfig> {
    fn toolset<T: ToolSet, S: Store + Send + Sync + 'static>(
        self,
        tools: &RigTools<T, S>,
    ) -> Result<AgentBuilder<WithBuilderTools>, tools::ToolNameError> {
        // A builder with tools, none yet: one place registers a set's.
        self.dynamic_tools(Vec::new()).toolset(tools)
    }
}

impl WithToolset for AgentBuilder<WithBuilderTools> {
    fn toolset<T: ToolSet, S: Store + Send + Sync + 'static>(
        self,
        tools: &RigTools<T, S>,
    ) -> Result<AgentBuilder<WithBuilderTools>, tools::ToolNameError> {
        Ok(self.dynamic_tools(tools.tools()?).add_hook(tools.hook()))
    }
}

pub use tools::ToolNameError;

// The "coming from rig" page's code, compiled as this crate's doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/coming-from-rig.md")]
pub struct ComingFromRig;
