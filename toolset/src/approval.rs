//! Approval: a human's decision on a [`Proposal`], checked again when it is acted on.
//!
//! Comes after the plan in the pipeline (call → verify → gate → plan → apply → outcome):
//! an approved call becomes a [`Plan`] of its own, with a human's authority. Approving
//! re-verifies the call under the policy in force *at approval time* (a tool denied or
//! hidden since the proposal was made is not run) and against the tool's current
//! declaration (a changed tier refuses the approval).

use crate::plan::Plan;
use crate::proposal::Proposal;
use crate::verify::verify;
use crate::{CallProblem, Policy, Tier, ToolCall, ToolSet};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A human's approval, bound to the exact call that was reviewed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    set: String,
    call_id: String,
    name: String,
    arguments: String,
}

impl Proposal {
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
}

/// What an approved proposal becomes.
///
/// Deliberately exhaustive: a host must handle every way an approved call can go on, and
/// a wildcard arm here would silently drop one.
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

impl<T: ToolSet> fmt::Debug for Approved<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Approved::Run(plan) => f.debug_tuple("Run").field(plan).finish(),
            Approved::Handoff { call, .. } => f
                .debug_struct("Handoff")
                .field("call", call)
                .finish_non_exhaustive(),
        }
    }
}

/// Why an approval was refused. Nothing ran.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApprovalError {
    /// The proposal or the approval belongs to another tool set than the one approving.
    OtherSet {
        /// The set that was asked to approve.
        expected: &'static str,
        /// The set the proposal or approval names.
        found: String,
    },
    /// The approval was given for another call (another call id or tool).
    OtherCall,
    /// The proposal's arguments changed after the human reviewed them.
    ArgumentsChanged,
    /// The tool's declared tier (or its propose-only flag) is no longer what the proposal
    /// recorded: the human reviewed a call of another risk.
    TierChanged {
        /// The tier the proposal recorded.
        reviewed: Tier,
        /// The tool's tier as declared now.
        declared: Tier,
    },
    /// The call no longer passes verification under the policy in force (the tool is
    /// unknown, hidden or denied now, or its arguments no longer fit).
    Invalid(CallProblem),
}

impl fmt::Display for ApprovalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApprovalError::OtherSet { expected, found } => write!(
                f,
                "the proposal belongs to the tool set `{found}`, not `{expected}`: approve it with the set that made it"
            ),
            ApprovalError::OtherCall => f.write_str(
                "the approval was given for another call: ask the human to review this proposal",
            ),
            ApprovalError::ArgumentsChanged => f.write_str(
                "the arguments changed after they were reviewed: show the proposal again and ask for a new approval",
            ),
            ApprovalError::TierChanged { reviewed, declared } => write!(
                f,
                "the tool's tier is `{declared}` now, but the proposal was reviewed as `{reviewed}`: ask for a new approval"
            ),
            ApprovalError::Invalid(problem) => write!(
                f,
                "the approved call is no longer valid: {}",
                problem.message
            ),
        }
    }
}

impl std::error::Error for ApprovalError {}

/// Checks `approval` against `proposal`, then re-verifies the call under `policy` (its
/// deny and hide rules; its autonomy does not matter, since a human approved) and against
/// the tool's current declaration. What `Set::approve` does.
pub(crate) fn approve<T: ToolSet>(
    proposal: &Proposal,
    approval: &Approval,
    policy: &Policy<T>,
) -> Result<Approved<T>, ApprovalError> {
    for set in [&proposal.set, &approval.set] {
        if set != T::NAME {
            return Err(ApprovalError::OtherSet {
                expected: T::NAME,
                found: set.clone(),
            });
        }
    }
    if approval.call_id != proposal.call.id || approval.name != proposal.call.name {
        return Err(ApprovalError::OtherCall);
    }
    if approval.arguments != proposal.call.arguments {
        return Err(ApprovalError::ArgumentsChanged);
    }
    let verified = verify::<T>(&proposal.call, policy).map_err(ApprovalError::Invalid)?;
    let spec = T::spec_of(verified.name);
    if spec.tier() != proposal.tier || spec.is_propose_only() != proposal.propose_only {
        return Err(ApprovalError::TierChanged {
            reviewed: proposal.tier,
            declared: spec.tier(),
        });
    }
    if spec.is_propose_only() {
        return Ok(Approved::Handoff {
            call: proposal.call.clone(),
            args: verified.typed,
        });
    }
    Ok(Approved::Run(Plan::approved_by_human(
        proposal.call.clone(),
        verified,
    )))
}
