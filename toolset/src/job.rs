//! One form of a tool and of a call to it, whoever declared the tool: the compiler (a tool
//! of the set, dispatched through its typed call enum) or the host (a toolbox's runtime
//! tool, run by its handler on validated JSON).
//!
//! Every stage after the request's route speaks of tools through these two types: the gate
//! verifies a [`ToolRef`] into a [`Job`], the plan splits jobs by their tier, a proposal
//! remembers the tool it waits for, approval verifies it again, and apply runs the job.
//! What differs between the two kinds (where the spec lives, how arguments are checked,
//! whether an escalation can raise the tier, how the call is dispatched) is answered here
//! and in apply's dispatch, once; no stage has a branch, variant or method per kind.

use crate::call::ToolCall;
use crate::set::ToolSet;
use crate::spec::ToolSpec;
use crate::tier::Tier;
use crate::toolbox::RuntimeTool;
use crate::trace::ToolType;
use crate::verify::{CallProblem, arguments_value, verify_arguments, verify_runtime_arguments};
use serde_json::Value;
use std::sync::Arc;

/// A tool a request offers: one of the set's, or a runtime tool of its toolbox.
pub(crate) enum ToolRef<T: ToolSet> {
    /// A tool of the set.
    Set(T::Name),
    /// A runtime tool of the request's toolbox.
    Runtime(Arc<RuntimeTool>),
}

impl<T: ToolSet> ToolRef<T> {
    /// What the tool declares.
    pub(crate) fn spec(&self) -> &ToolSpec {
        match self {
            ToolRef::Set(name) => T::spec_of(*name),
            ToolRef::Runtime(tool) => tool.spec(),
        }
    }

    /// `call`, its arguments checked against this tool: the set's typed arguments, or JSON
    /// the runtime tool's schema accepts.
    pub(crate) fn verify(self, call: &ToolCall) -> Result<Job<T>, CallProblem> {
        match self {
            ToolRef::Set(name) => verify_arguments::<T>(call, name).map(|verified| Job::Set {
                name: verified.name,
                typed: verified.typed,
            }),
            ToolRef::Runtime(tool) => {
                verify_runtime_arguments(call, tool.spec()).map(|args| Job::Runtime { tool, args })
            }
        }
    }
}

/// A verified call: its tool and its arguments in the form the tool runs on.
pub(crate) enum Job<T: ToolSet> {
    /// A tool of the set, with its typed arguments.
    Set { name: T::Name, typed: T::Call },
    /// A runtime tool, with arguments its schema accepted.
    Runtime { tool: Arc<RuntimeTool>, args: Value },
}

impl<T: ToolSet> Job<T> {
    /// What the tool declares.
    pub(crate) fn spec(&self) -> &ToolSpec {
        match self {
            Job::Set { name, .. } => T::spec_of(*name),
            Job::Runtime { tool, .. } => tool.spec(),
        }
    }

    /// The tier the call runs at: the tool's declared tier, raised (never lowered) by the
    /// set's escalation for these arguments, with the reason when it was raised. A
    /// runtime tool has no escalation.
    pub(crate) fn tier(&self) -> (Tier, Option<String>) {
        match self {
            Job::Set { name, typed } => effective_tier::<T>(*name, typed),
            Job::Runtime { tool, .. } => (tool.spec().tier(), None),
        }
    }

    /// What a handoff gives the host (the tool has no handler): the arguments as JSON, and
    /// the set's typed ones for a tool of the set. `Err` when the arguments are not JSON
    /// this crate can read.
    pub(crate) fn into_handoff(
        self,
        call: &ToolCall,
    ) -> Result<(Value, Option<T::Call>), CallProblem> {
        match self {
            Job::Set { typed, .. } => Ok((arguments_value(call)?, Some(typed))),
            Job::Runtime { args, .. } => Ok((args, None)),
        }
    }

    /// The tool, for what waits on it (a proposal's step).
    pub(crate) fn into_tool(self) -> ToolRef<T> {
        match self {
            Job::Set { name, .. } => ToolRef::Set(name),
            Job::Runtime { tool, .. } => ToolRef::Runtime(tool),
        }
    }

    /// Whether the call borrows the state: every set tool's (the dispatch takes it), and
    /// a runtime tool's whose handler reads or writes it.
    pub(crate) fn takes_state(&self) -> bool {
        match self {
            Job::Set { .. } => true,
            Job::Runtime { tool, .. } => tool.takes_state(),
        }
    }

    /// What the call's span says the tool is: a function run here (the set's or a runtime
    /// tool's own handler), or an extension (a tool proxied from another MCP server).
    pub(crate) fn tool_type(&self) -> ToolType {
        match self {
            Job::Set { .. } => ToolType::Function,
            Job::Runtime { tool, .. } => tool.tool_type(),
        }
    }
}

/// The tier a call to the set's tool `name` runs at: its declared tier, raised (never
/// lowered) by the tool's escalation for these arguments, with the reason when it was
/// raised.
fn effective_tier<T: ToolSet>(name: T::Name, typed: &T::Call) -> (Tier, Option<String>) {
    let declared = T::spec_of(name).tier();
    match T::escalation(typed) {
        Some(escalation) if escalation.tier > declared => {
            (escalation.tier, Some(escalation.reason))
        }
        // A lower or equal tier from an escalation is ignored: it can only tighten.
        _ => (declared, None),
    }
}
