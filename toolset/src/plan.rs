//! What the gate decided: approved calls (in a type only this crate can build) and
//! proposals waiting for a human, which survive serialization and are re-verified when
//! approved.

use crate::gate::{CallProblem, verify};
use crate::{Autonomy, Policy, Tier, ToolCall, ToolName, ToolOutput, ToolResult, ToolSet};
use serde::{Deserialize, Serialize};
use std::fmt;

/// What the model reads for a call that waits for a human: in a report, and as a
/// proposal's pending result.
pub(crate) const AWAITING_APPROVAL: &str = "Awaiting approval: this call was proposed to the user and has not run. \
     Do not assume it happened; carry on with the rest.";

/// Who allowed a call to run; `apply` checks it again against the tool's tier.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Authority {
    /// The request's autonomy level covers the tier.
    Autonomy(Autonomy),
    /// A human approved these exact arguments.
    Human,
}

pub(crate) enum Step<T: ToolSet> {
    /// Run the call at `index` with its typed arguments.
    Run {
        index: usize,
        name: T::Name,
        typed: T::Call,
        authority: Authority,
    },
    /// The call at this position was proposed and does not run.
    AwaitApproval { name: T::Name },
    /// The call at `index` (to the request's tool search) was answered by the gate; apply
    /// records this output as its outcome.
    Answered { index: usize, output: ToolOutput },
}

/// A verified program, split by tier: what may run now, and proposals for a human.
///
/// A `Plan` can only come from the gate (`Set::gate`) or from an approval
/// (`Set::approve`); no code outside this crate can build one, so a proposal cannot be
/// smuggled into `apply`. `apply` re-checks every call's tier anyway.
pub struct Plan<T: ToolSet> {
    calls: Vec<ToolCall>,
    steps: Vec<Step<T>>,
    proposals: Vec<Proposal>,
}

impl<T: ToolSet> Plan<T> {
    pub(crate) fn new(calls: Vec<ToolCall>, steps: Vec<Step<T>>, proposals: Vec<Proposal>) -> Self {
        Plan {
            calls,
            steps,
            proposals,
        }
    }

    pub(crate) fn into_parts(self) -> (Vec<ToolCall>, Vec<Step<T>>) {
        (self.calls, self.steps)
    }

    /// Every call of the program, in the model's order.
    pub fn calls(&self) -> &[ToolCall] {
        &self.calls
    }

    /// The calls approved to run, in order.
    pub fn approved(&self) -> impl Iterator<Item = &ToolCall> + '_ {
        self.steps.iter().filter_map(|step| match step {
            Step::Run { index, .. } | Step::Answered { index, .. } => Some(&self.calls[*index]),
            Step::AwaitApproval { .. } => None,
        })
    }

    /// The calls withheld for a human, with tier and preview.
    pub fn proposals(&self) -> &[Proposal] {
        &self.proposals
    }

    /// True when some call needs a human's approval.
    pub fn has_proposals(&self) -> bool {
        !self.proposals.is_empty()
    }
}

impl<T: ToolSet> fmt::Debug for Plan<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Plan")
            .field("set", &T::NAME)
            .field(
                "approved",
                &self.approved().map(|call| &call.name).collect::<Vec<_>>(),
            )
            .field("proposals", &self.proposals)
            .finish()
    }
}

/// A call the gate withheld: only a human may let it happen.
///
/// Serializable, so it can wait for hours in a database. Approving it
/// ([`Proposal::approve`] then `Set::approve`) re-verifies the call and binds to exactly
/// the arguments that were reviewed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    set: String,
    call: ToolCall,
    tier: Tier,
    title: Option<String>,
    preview: Option<String>,
    propose_only: bool,
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

    /// The typed arguments, verified again against the set.
    pub fn typed<T: ToolSet>(&self) -> Result<T::Call, CallProblem> {
        verify::<T>(&self.call, &Policy::new(Autonomy::Off)).map(|(_, typed)| typed)
    }

    /// A human's approval of this proposal exactly as it is now. Any later change to the
    /// proposal's call makes the approval fail.
    pub fn approve(&self) -> Approval {
        Approval {
            set: self.set.clone(),
            call_id: self.call.id.clone(),
            name: self.call.name.clone(),
            arguments: self.call.arguments.clone(),
        }
    }

    /// The result to send the model while the proposal waits.
    pub fn pending_result(&self) -> ToolResult {
        self.result(ToolOutput::text(AWAITING_APPROVAL))
    }

    /// The result to send the model when the human declines the proposal.
    pub fn declined_result(&self, reason: &str) -> ToolResult {
        self.result(ToolOutput::error(format!(
            "Declined by the user: {reason}. The call did not run."
        )))
    }

    fn result(&self, output: ToolOutput) -> ToolResult {
        ToolResult {
            call_id: self.call.id.clone(),
            name: self.call.name.clone(),
            output,
        }
    }
}

/// A human's approval, bound to the exact call that was reviewed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    set: String,
    call_id: String,
    name: String,
    arguments: String,
}

/// What an approved proposal becomes.
pub enum Approved<T: ToolSet> {
    /// A plan holding the one approved call; run it with `Set::apply`.
    Run(Plan<T>),
    /// A propose-only tool has no handler: here are its typed arguments, for the host to
    /// act on.
    Handoff {
        /// The call as the model made it.
        call: ToolCall,
        /// Its typed arguments.
        args: T::Call,
    },
}

/// Why an approval was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalError {
    /// The proposal is not the one that was reviewed (another call, set, or changed
    /// arguments).
    Mismatch(String),
    /// The call no longer passes verification.
    Invalid(CallProblem),
}

impl fmt::Display for ApprovalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApprovalError::Mismatch(what) => {
                write!(f, "the approval does not match the proposal: {what}")
            }
            ApprovalError::Invalid(problem) => write!(
                f,
                "the approved call is no longer valid: {}",
                problem.message
            ),
        }
    }
}

impl std::error::Error for ApprovalError {}

/// Re-verifies `proposal` against `approval` and the set.
pub fn approve<T: ToolSet>(
    proposal: &Proposal,
    approval: &Approval,
) -> Result<Approved<T>, ApprovalError> {
    let mismatch = |what: &str| Err(ApprovalError::Mismatch(what.to_owned()));
    if proposal.set != T::NAME || approval.set != T::NAME {
        return mismatch("it belongs to another tool set");
    }
    if approval.call_id != proposal.call.id || approval.name != proposal.call.name {
        return mismatch("it approves another call");
    }
    if approval.arguments != proposal.call.arguments {
        return mismatch("the arguments changed after they were reviewed");
    }
    let (name, typed) =
        verify::<T>(&proposal.call, &Policy::new(Autonomy::Off)).map_err(ApprovalError::Invalid)?;
    let spec = T::spec_of(name);
    if spec.tier() != proposal.tier || spec.is_propose_only() != proposal.propose_only {
        return mismatch("the proposal's tier does not match the tool's declared tier");
    }
    if spec.is_propose_only() {
        return Ok(Approved::Handoff {
            call: proposal.call.clone(),
            args: typed,
        });
    }
    let step = Step::Run {
        index: 0,
        name,
        typed,
        authority: Authority::Human,
    };
    debug_assert_eq!(name.as_str(), proposal.call.name);
    Ok(Approved::Run(Plan::new(
        vec![proposal.call.clone()],
        vec![step],
        Vec::new(),
    )))
}
