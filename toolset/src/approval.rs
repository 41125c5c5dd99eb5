//! Approval: a human's decision on a [`Proposal`], checked again when it is acted on.
//!
//! Comes after the plan in the pipeline (call → verify → gate → plan → apply → outcome):
//! an approved call becomes a [`Plan`] of its own, with a human's authority. Approving
//! re-verifies the call under the policy in force *at approval time* (a tool denied or
//! hidden since the proposal was made is not run) and against the tool's current
//! declaration (a changed tier refuses the approval).

use crate::digest::set_fingerprint;
use crate::plan::{Plan, effective_tier};
use crate::proposal::{Proposal, ProposalId};
use crate::verify::verify;
use crate::{
    Approvals, CallProblem, Decision, Effect, Policy, ProposalStore, Resolution, StoreError, Tier,
    ToolCall, ToolSet,
};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A human's approval of one proposal: its id and the digest of what was reviewed.
///
/// Serializable, so it can come back from a review screen; it names the proposal, and
/// approving fails unless the stored proposal still has that digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    /// The approved proposal.
    pub proposal: ProposalId,
    /// The digest of the proposal as the human reviewed it ([`Proposal::digest`]).
    pub digest: String,
}

impl Proposal {
    /// A human's approval of this proposal exactly as it is now. Any later change to what
    /// the digest covers (set, call, tool, arguments, tier, escalation reason) makes the
    /// approval fail.
    pub fn approve(&self) -> Approval {
        Approval {
            proposal: self.id.clone(),
            digest: self.digest(),
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

/// Why an approval (or a decline) was refused. Nothing ran.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApprovalError {
    /// The store has no proposal with the approval's id.
    UnknownProposal(ProposalId),
    /// The proposal was already resolved; it never runs twice.
    AlreadyResolved(Resolution),
    /// The proposal's call already ran (or was handed to the host): its effect is on
    /// record, though the store says it waits. The store was altered (a resolution reset
    /// to pending, a row written again); it never runs twice.
    AlreadyRan(Effect),
    /// The proposal expired before it was approved.
    Expired {
        /// When it expired, in milliseconds since the Unix epoch.
        at_ms: u64,
    },
    /// The approvals are sealed and this proposal carries no seal: it was written (or its
    /// seal stripped) outside this host.
    Forged,
    /// The approvals are sealed and this proposal's seal does not match what it shows
    /// (its call, arguments, tier, escalation reason, set or times): the stored proposal
    /// was altered after this host sealed it (or it was sealed with another key).
    Altered,
    /// The proposal belongs to another tool set than the one approving.
    OtherSet {
        /// The set that was asked to approve.
        expected: &'static str,
        /// The set the proposal names.
        found: String,
    },
    /// A set of this name made the proposal, but not this set as it is now (another crate's
    /// set with the same name, or this one before its tools changed).
    SetChanged,
    /// The proposal is not what the human reviewed (its arguments, call or tool changed).
    ArgumentsChanged,
    /// The call's tier now (declared, or raised by the tool's escalation) is not what the
    /// proposal recorded: the human reviewed a call of another risk.
    TierChanged {
        /// The tier the proposal recorded.
        reviewed: Tier,
        /// The call's tier now.
        declared: Tier,
    },
    /// The reason the proposal shows for its escalation is not the one the tool gives its
    /// arguments now: the stored proposal was altered, or the tool's escalation changed.
    /// The human read another reason than the tool's.
    ReasonChanged {
        /// The reason the proposal shows (`None`: no escalation).
        shown: Option<String>,
        /// The tool's reason for these arguments now.
        now: Option<String>,
    },
    /// The call no longer passes verification under the policy in force (the tool is
    /// unknown, hidden or denied now, or its arguments no longer fit).
    Invalid(CallProblem),
    /// The store failed; nothing was resolved.
    Store(StoreError),
}

impl fmt::Display for ApprovalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApprovalError::UnknownProposal(id) => write!(
                f,
                "no proposal {id} is waiting: check the id, and that this host uses the store it was submitted to"
            ),
            ApprovalError::AlreadyResolved(resolution) => write!(
                f,
                "the proposal was already {resolution}; it is never resolved twice"
            ),
            ApprovalError::Expired { at_ms } => write!(
                f,
                "the proposal expired at {}; the model must propose the call again",
                Resolution { decision: crate::Decision::Approved, at_ms: *at_ms }.time()
            ),
            ApprovalError::AlreadyRan(effect) => write!(
                f,
                "the proposal's call already ran (its effect was recorded at {}), yet the store says it waits: the stored proposal was altered, and it never runs twice",
                effect.time()
            ),
            ApprovalError::Forged => f.write_str(
                "the proposal carries no seal of this host's key: it was written or altered elsewhere, and is refused",
            ),
            ApprovalError::Altered => f.write_str(
                "the stored proposal was altered: what it shows (call, arguments, tier, escalation reason, set or times) is not what this host sealed, or it was sealed with another key; it is refused: have the model propose the call again",
            ),
            ApprovalError::OtherSet { expected, found } => write!(
                f,
                "the proposal belongs to the tool set `{found}`, not `{expected}`: approve it with the set that made it"
            ),
            ApprovalError::SetChanged => f.write_str(
                "the proposal was made by another tool set of this name, or by this set before its tools changed: it is refused",
            ),
            ApprovalError::ArgumentsChanged => f.write_str(
                "the proposal is not what was reviewed (its call or arguments changed): show it again and ask for a new approval",
            ),
            ApprovalError::TierChanged { reviewed, declared } => write!(
                f,
                "the call's tier is `{declared}` now, but the proposal was reviewed as `{reviewed}`: ask for a new approval"
            ),
            ApprovalError::ReasonChanged { shown, now } => write!(
                f,
                "the proposal shows the escalation reason {}, but the tool gives these arguments {} now: the stored proposal was altered, or the tool changed; ask for a new approval",
                quoted(shown.as_deref()),
                quoted(now.as_deref())
            ),
            ApprovalError::Invalid(problem) => write!(
                f,
                "the approved call is no longer valid: {}",
                problem.message
            ),
            ApprovalError::Store(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for ApprovalError {}

impl ApprovalError {
    /// The name of a refused approval's reason.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            ApprovalError::UnknownProposal(_) => "unknown_proposal",
            ApprovalError::AlreadyResolved(_) => "already_resolved",
            ApprovalError::Expired { .. } => "expired",
            ApprovalError::AlreadyRan(_) => "already_ran",
            ApprovalError::Forged => "forged",
            ApprovalError::Altered => "altered",
            ApprovalError::OtherSet { .. } => "other_set",
            ApprovalError::SetChanged => "set_changed",
            ApprovalError::ArgumentsChanged => "arguments_changed",
            ApprovalError::TierChanged { .. } => "tier_changed",
            ApprovalError::ReasonChanged { .. } => "reason_changed",
            ApprovalError::Invalid(problem) => problem.kind.as_str(),
            ApprovalError::Store(_) => "store",
        }
    }
}

impl<T: ToolSet> crate::trace::ApprovalResult for Result<Approved<T>, ApprovalError> {
    fn resolution(&self) -> (&'static str, Option<&'static str>, Option<&ToolCall>) {
        match self {
            Ok(Approved::Run(plan)) => ("run", None, plan.calls().first()),
            Ok(Approved::Handoff { call, .. }) => ("handoff", None, Some(call)),
            Err(error) => ("refused", Some(error.kind()), None),
        }
    }
}

/// A reason in quotes, or "none" when there is no escalation.
fn quoted(reason: Option<&str>) -> String {
    reason.map_or_else(|| "none".to_owned(), |reason| format!("{reason:?}"))
}

/// Approves the proposal `approval` names, once: checks its seal and expiry, that its
/// effect is not on record, that it is what the human reviewed, of this set as it is now,
/// at the tier (and with the escalation reason) the tool gives these arguments now, and
/// valid under `policy` (its deny and hide rules; not its autonomy, since a human
/// approved); then resolves it in the store, recording its effect, and only the resolver
/// that wins gets the call to run. What `Set::approve` does.
pub(crate) fn approve<T: ToolSet, S: ProposalStore>(
    approvals: &Approvals<S>,
    approval: &Approval,
    policy: &Policy<T>,
) -> Result<Approved<T>, ApprovalError> {
    let stored = approvals.checked(&approval.proposal)?;
    if let Some(resolution) = stored.resolution {
        return Err(ApprovalError::AlreadyResolved(resolution));
    }
    let proposal = stored.proposal;
    if proposal.set != T::NAME {
        return Err(ApprovalError::OtherSet {
            expected: T::NAME,
            found: proposal.set.clone(),
        });
    }
    if proposal.set_fingerprint != set_fingerprint::<T>() {
        return Err(ApprovalError::SetChanged);
    }
    if approval.digest != proposal.digest() {
        return Err(ApprovalError::ArgumentsChanged);
    }
    let verified = verify::<T>(&proposal.call, policy).map_err(ApprovalError::Invalid)?;
    let spec = T::spec_of(verified.name);
    let (tier, reason) = effective_tier::<T>(verified.name, &verified.typed);
    if tier != proposal.tier || spec.is_propose_only() != proposal.propose_only {
        return Err(ApprovalError::TierChanged {
            reviewed: proposal.tier,
            declared: tier,
        });
    }
    if reason != proposal.escalation {
        return Err(ApprovalError::ReasonChanged {
            shown: proposal.escalation,
            now: reason,
        });
    }
    // Resolve before running, recording the effect as started in the same step: a crash
    // after this leaves it approved and not run, never run twice, and a resolution reset
    // to pending later finds the effect on record.
    approvals.resolve(&proposal.id, Decision::Approved)?;
    if spec.is_propose_only() {
        return Ok(Approved::Handoff {
            call: proposal.call,
            args: verified.typed,
        });
    }
    Ok(Approved::Run(Plan::approved_by_human(
        proposal.call,
        verified,
        policy.concealed(&[]),
    )))
}

/// Approves `proposal` where the human saw it in flight (an MCP elicitation answered on
/// the same connection): the same checks as [`approve`], through a one-use store of its
/// own, since the proposal never waited anywhere another process could reach.
#[cfg(feature = "mcp")]
pub(crate) fn approve_in_flight<T: ToolSet>(
    proposal: &Proposal,
    policy: &Policy<T>,
) -> Result<Approved<T>, ApprovalError> {
    let approvals = Approvals::new(crate::MemoryStore::new());
    approvals.submit(proposal).map_err(ApprovalError::Store)?;
    approve(&approvals, &proposal.approve(), policy)
}
