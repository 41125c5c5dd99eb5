//! A proposal: a call the plan withheld for a human, with what the human is shown.
//!
//! Proposals are built by the plan and resolved by an [approval](crate::Approval); they
//! live in their own file so that neither of those stages imports the other backwards.
//! Serializable, since a proposal may wait for hours in a database.

use crate::verify::verify;
use crate::{
    Autonomy, CallProblem, Policy, Tier, ToolCall, ToolOutput, ToolResult, ToolSet, messages,
};
use serde::{Deserialize, Serialize};

/// A call the gate withheld: only a human may let it happen.
///
/// Serializable, so it can wait for hours in a database. Approving it
/// ([`Proposal::approve`] then `Set::approve`) re-verifies the call under the policy in
/// force then and binds to exactly the arguments that were reviewed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    pub(crate) set: String,
    pub(crate) call: ToolCall,
    pub(crate) tier: Tier,
    title: Option<String>,
    preview: Option<String>,
    pub(crate) propose_only: bool,
}

impl Proposal {
    pub(crate) fn new<T: ToolSet>(call: &ToolCall, name: T::Name, typed: &T::Call) -> Self {
        let spec = T::spec_of(name);
        Proposal {
            set: T::NAME.to_owned(),
            call: call.clone(),
            tier: spec.tier(),
            title: spec.title().map(str::to_owned),
            preview: T::preview(typed),
            propose_only: spec.is_propose_only(),
        }
    }

    /// The call as the model made it.
    pub fn call(&self) -> &ToolCall {
        &self.call
    }

    /// The tool's declared tier.
    pub fn tier(&self) -> Tier {
        self.tier
    }

    /// The tool's title, if it declares one.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The tool's preview of what the call would do, if it declares one.
    pub fn preview(&self) -> Option<&str> {
        self.preview.as_deref()
    }

    /// True when the tool has no handler: approving hands the arguments to the host.
    pub fn is_propose_only(&self) -> bool {
        self.propose_only
    }

    /// The name of the set this proposal belongs to.
    pub fn set(&self) -> &str {
        &self.set
    }

    /// The typed arguments, verified again against the set (with no tool denied).
    pub fn typed<T: ToolSet>(&self) -> Result<T::Call, CallProblem> {
        verify::<T>(&self.call, &Policy::new(Autonomy::Off)).map(|verified| verified.typed)
    }

    /// The result to send the model while the proposal waits (the "continue" style).
    pub fn pending_result(&self) -> ToolResult {
        self.result(ToolOutput::text(messages::AWAITING_APPROVAL))
    }

    /// The result to send the model when the human declines the proposal. Records the
    /// decision as a `toolset.proposal.resolved` event (resolution `declined`) in the
    /// current span.
    pub fn declined_result(&self, reason: &str) -> ToolResult {
        crate::trace::proposal_declined(self);
        self.result(ToolOutput::error(messages::declined(reason)))
    }

    fn result(&self, output: ToolOutput) -> ToolResult {
        ToolResult {
            call_id: self.call.id.clone(),
            name: self.call.name.clone(),
            output,
        }
    }
}
