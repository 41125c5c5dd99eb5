//! The plan: a verified program split by tier into calls that may run now (each with the
//! authority that allowed it) and proposals waiting for a human.
//!
//! The stage after the gate (call → verify → gate → plan → apply → outcome): it splits
//! a verified program by tier, and nothing else; the request's gate hands it each call
//! as it is verified (`Split`). A [`Plan`] is a type only this crate can build, from the
//! gate or from an approval, so a proposal cannot be smuggled into `apply`.

use crate::call::ToolCall;
use crate::gate::Checked;
use crate::job::{Job, ToolRef};
use crate::output::ToolOutput;
use crate::policy::{Concealed, Policy};
use crate::proposal::{Proposal, ProposalId};
use crate::set::ToolSet;
use crate::tier::Autonomy;
use crate::trace;
use std::fmt;

/// Who allowed a call to run; `apply` checks it again against the tool's tier.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Authority {
    /// The request's autonomy level covers the tier.
    Autonomy(Autonomy),
    /// A human approved these exact arguments.
    Human,
}

pub(crate) enum Step<T: ToolSet> {
    /// Run the verified call at `index`.
    Run {
        index: usize,
        job: Job<T>,
        authority: Authority,
    },
    /// The call at this position, to `tool`, was proposed and does not run.
    AwaitApproval { tool: ToolRef<T> },
    /// The call at `index` (to the request's tool search) was answered by the gate; apply
    /// records this output as its outcome.
    Answered { index: usize, output: ToolOutput },
}

/// A verified program, split by tier: what may run now, and proposals for a human.
///
/// A `Plan` can only come from the gate ([`Request::gate`](crate::request::Request::gate), or
/// `Set::gate`) or from an approval ([`Approvals::approve`](crate::Approvals::approve)); no
/// code outside this crate can build one, so a proposal cannot be smuggled into `apply`.
/// `apply` re-checks every call's tier anyway.
pub struct Plan<T: ToolSet> {
    calls: Vec<ToolCall>,
    steps: Vec<Step<T>>,
    proposals: Vec<Proposal>,
    /// The tools the request conceals: apply refuses an output activating one of them as
    /// it refuses an unknown name.
    concealed: Concealed,
    /// Under which idempotency keys the journal records the plan's calls: `None` for
    /// each call's automatic key (the gate's plans, an approval in flight), the common
    /// case, which costs no allocation.
    keys: JournalKeys,
}

/// Under which idempotency keys a plan's calls are journaled: `None` for each call's
/// automatic key ([`auto_key`](crate::store::auto_key), or within a run
/// [`auto_key_in`](crate::store::auto_key_in)).
pub(crate) type JournalKeys = Option<Box<Keys>>;

/// Under which idempotency keys a plan's calls are journaled, when not each call's
/// automatic key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Keys {
    /// The one call of the stored proposal a human approved: its id (its effect, recorded
    /// when it was approved, is the call's journaled start).
    Approved(ProposalId),
    /// The one call of an in-doubt entry run again: the key it was journaled under.
    Rerun(String),
}

/// A verified program being split by tier, one call at a time as the gate verifies it
/// (so a program costs no vector of checked calls in between): calls whose tier the
/// policy's autonomy allows are approved to run; the rest (and every propose-only tool)
/// become proposals; calls the request answered keep their answer.
pub(crate) struct Split<'p, T: ToolSet> {
    policy: &'p Policy<T>,
    steps: Vec<Step<T>>,
    proposals: Vec<Proposal>,
}

impl<'p, T: ToolSet> Split<'p, T> {
    /// An empty split under `policy`, for a program of `calls` calls.
    pub(crate) fn new(policy: &'p Policy<T>, calls: usize) -> Self {
        Split {
            policy,
            // One step per call of a good program.
            steps: Vec::with_capacity(calls),
            proposals: Vec::new(),
        }
    }

    /// Places the verified call at `index`: to run now, or proposed. `held` is the
    /// request's reason to hold the call back whatever its tier (the lethal-trifecta rule,
    /// see `Request::exposure`): such a call is proposed, the reason shown to the human.
    pub(crate) fn keep(
        &mut self,
        index: usize,
        call: &ToolCall,
        checked: Checked<T>,
        held: Option<String>,
    ) {
        let autonomy = self.policy.autonomy();
        let job = match checked {
            Checked::Call(job) => job,
            Checked::Answered(output) => {
                self.steps.push(Step::Answered { index, output });
                return;
            }
        };
        let spec = job.spec();
        // A tool of the set may raise its tier for these arguments, never lower it.
        let (tier, escalation) = job.tier();
        if held.is_none() && !spec.is_propose_only() && autonomy.allows(tier) {
            self.steps.push(Step::Run {
                index,
                job,
                authority: Authority::Autonomy(autonomy),
            });
        } else {
            let escalation = with_held(escalation, held);
            let proposal = Proposal::new::<T>(call, spec, tier, escalation);
            trace::proposal_created(&proposal);
            self.proposals.push(proposal);
            self.steps.push(Step::AwaitApproval {
                tool: job.into_tool(),
            });
        }
    }

    /// The plan of the program `calls`, every one of them kept, under a request
    /// concealing `concealed`.
    pub(crate) fn into_plan(self, calls: Vec<ToolCall>, concealed: Concealed) -> Plan<T> {
        Plan {
            calls,
            steps: self.steps,
            proposals: self.proposals,
            concealed,
            keys: None,
        }
    }
}

/// The reason a proposal shows: the tool's escalation reason, the gate's reason to hold
/// the call back (the trifecta rule), or both, in that order.
pub(crate) fn with_held(raised: Option<String>, held: Option<String>) -> Option<String> {
    match (raised, held) {
        (Some(raised), Some(held)) => Some(format!("{raised}; {held}")),
        (raised, held) => raised.or(held),
    }
}

/// The reason `shown` gives now, for a tool whose escalation gives `raised` now: `shown`'s
/// held-back part (the trifecta rule's, recorded when the gate proposed the call: the
/// run's reads then are not the request's now) kept when the tool sends outside.
pub(crate) fn reason_now(
    raised: Option<String>,
    shown: Option<&str>,
    sends: bool,
) -> Option<String> {
    let held = shown
        .filter(|_| sends)
        .and_then(crate::messages::held_part)
        .map(str::to_owned);
    with_held(raised, held)
}

impl<T: ToolSet> Plan<T> {
    /// This one-call plan, its call journaled under `key` (an in-doubt entry's, run again).
    pub(crate) fn rerun_as(mut self, key: String) -> Self {
        self.keys = Some(Box::new(Keys::Rerun(key)));
        self
    }

    /// A plan of the one verified call a human approved (the stored proposal `approved`,
    /// if it was stored), under a policy concealing `concealed`.
    pub(crate) fn approved_by_human(
        call: ToolCall,
        job: Job<T>,
        concealed: Concealed,
        approved: Option<ProposalId>,
    ) -> Self {
        Plan {
            calls: vec![call],
            steps: vec![Step::Run {
                index: 0,
                job,
                authority: Authority::Human,
            }],
            proposals: Vec::new(),
            concealed,
            keys: approved.map(|id| Box::new(Keys::Approved(id))),
        }
    }

    /// The plan taken apart: its calls, steps, concealed tools and journal keys.
    pub(crate) fn into_parts(self) -> (Vec<ToolCall>, Vec<Step<T>>, Concealed, JournalKeys) {
        (self.calls, self.steps, self.concealed, self.keys)
    }

    /// The spec of the tool each step calls, in the steps' order, which is the calls'
    /// (the gate keeps one step per call: `Split::keep`); `None` for a call the gate
    /// answered (the request's tool search).
    pub(crate) fn specs(&self) -> impl Iterator<Item = Option<&crate::spec::ToolSpec>> + '_ {
        self.steps.iter().map(|step| match step {
            Step::Run { job, .. } => Some(job.spec()),
            Step::AwaitApproval { tool } => Some(tool.spec()),
            Step::Answered { .. } => None,
        })
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
