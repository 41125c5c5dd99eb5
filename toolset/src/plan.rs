//! The plan: a verified program split by tier into calls that may run now (each with the
//! authority that allowed it) and proposals waiting for a human.
//!
//! The fourth stage of the pipeline (call → verify → gate → plan → apply → outcome). A
//! [`Plan`] is a type only this crate can build, from the gate or from an approval, so a
//! proposal cannot be smuggled into `apply`.

use crate::consumer::Format;
use crate::gate::{Checked, Rejected, Route, check_program};
use crate::policy::Concealed;
use crate::proposal::Proposal;
use crate::toolbox::RuntimeTool;
use crate::trace;
use crate::verify::CallProblem;
use crate::verify::Verified;
use crate::{Autonomy, Policy, Request, Tier, ToolCall, ToolOutput, ToolSet};
use std::fmt;
use std::sync::Arc;

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
    /// Run the call at `index` to a runtime tool with its validated JSON arguments.
    RunRuntime {
        index: usize,
        tool: Arc<RuntimeTool>,
        args: serde_json::Value,
        authority: Authority,
    },
    /// The call at this position, to a runtime tool, was proposed and does not run.
    AwaitRuntimeApproval { tool: Arc<RuntimeTool> },
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
    /// The tools the request conceals: apply refuses an output activating one of them as
    /// it refuses an unknown name.
    concealed: Concealed,
}

/// Gates `calls` under `policy`: the gate of the policy's default request (a fresh
/// conversation: nothing activated, injected or in its history). What `Set::gate` and
/// `Set::gate_with` do.
pub(crate) fn plan<T: ToolSet>(
    calls: impl IntoIterator<Item = ToolCall>,
    policy: &Policy<T>,
) -> Result<Plan<T>, Rejected> {
    Request::new(policy, Format::Mcp).gate(calls)
}

/// Gates `calls` as `route` (the request) decides, then splits the verified program:
/// calls whose tier the policy's autonomy allows are approved to run; the rest (and every
/// propose-only tool) become proposals; calls the request answered keep their answer.
pub(crate) fn plan_routed<T: ToolSet>(
    calls: impl IntoIterator<Item = ToolCall>,
    policy: &Policy<T>,
    concealed: Concealed,
    route: impl FnMut(&ToolCall) -> Result<Route<T::Name>, CallProblem>,
) -> Result<Plan<T>, Rejected> {
    let span = trace::gate();
    let _in_gate = span.enter();
    let calls: Vec<ToolCall> = calls.into_iter().collect();
    // One step per call of a good program.
    let mut steps = Vec::with_capacity(calls.len());
    let mut proposals = Vec::new();
    let keep = |index: usize, call: &ToolCall, checked: Checked<T>| {
        let Verified { name, typed } = match checked {
            Checked::Verified(verified) => verified,
            Checked::Answered(output) => {
                steps.push(Step::Answered { index, output });
                return;
            }
            Checked::Runtime { tool, args } => {
                let spec = tool.spec();
                if !spec.is_propose_only() && policy.autonomy().allows(spec.tier()) {
                    steps.push(Step::RunRuntime {
                        index,
                        tool,
                        args,
                        authority: Authority::Autonomy(policy.autonomy()),
                    });
                } else {
                    let proposal = Proposal::runtime::<T>(call, &tool);
                    trace::proposal_created(&proposal);
                    proposals.push(proposal);
                    steps.push(Step::AwaitRuntimeApproval { tool });
                }
                return;
            }
        };
        let spec = T::spec_of(name);
        // A tool may raise its tier for these arguments, never lower it.
        let (tier, escalation) = effective_tier::<T>(name, &typed);
        if !spec.is_propose_only() && policy.autonomy().allows(tier) {
            steps.push(Step::Run {
                index,
                name,
                typed,
                authority: Authority::Autonomy(policy.autonomy()),
            });
        } else {
            let proposal = Proposal::new::<T>(call, name, tier, escalation);
            trace::proposal_created(&proposal);
            proposals.push(proposal);
            steps.push(Step::AwaitApproval { name });
        }
    };
    let calls = check_program::<T>(calls, route, keep).inspect_err(|rejected| {
        trace::record_rejected::<T>(&span, rejected);
    })?;
    trace::record_planned(
        &span,
        calls.len(),
        steps.len() - proposals.len(),
        proposals.len(),
    );
    Ok(Plan {
        calls,
        steps,
        proposals,
        concealed,
    })
}

/// The tier a call runs at: the tool's declared tier, raised (never lowered) by the
/// tool's escalation for these arguments, with the reason when it was raised.
pub(crate) fn effective_tier<T: ToolSet>(name: T::Name, typed: &T::Call) -> (Tier, Option<String>) {
    let declared = T::spec_of(name).tier();
    match T::escalation(typed) {
        Some(escalation) if escalation.tier > declared => {
            (escalation.tier, Some(escalation.reason))
        }
        // A lower or equal tier from an escalation is ignored: it can only tighten.
        _ => (declared, None),
    }
}

impl<T: ToolSet> Plan<T> {
    /// A plan of the one call a human approved, under a policy concealing `concealed`.
    pub(crate) fn approved_by_human(
        call: ToolCall,
        verified: Verified<T>,
        concealed: Concealed,
    ) -> Self {
        Plan {
            calls: vec![call],
            steps: vec![Step::Run {
                index: 0,
                name: verified.name,
                typed: verified.typed,
                authority: Authority::Human,
            }],
            proposals: Vec::new(),
            concealed,
        }
    }

    /// A plan of the one call to a runtime tool a human approved, with its arguments as
    /// the gate validated them, under a policy concealing `concealed`.
    #[cfg(feature = "mcp")]
    pub(crate) fn runtime_approved_by_human(
        call: ToolCall,
        tool: Arc<RuntimeTool>,
        args: serde_json::Value,
        concealed: Concealed,
    ) -> Self {
        Plan {
            calls: vec![call],
            steps: vec![Step::RunRuntime {
                index: 0,
                tool,
                args,
                authority: Authority::Human,
            }],
            proposals: Vec::new(),
            concealed,
        }
    }

    pub(crate) fn into_parts(self) -> (Vec<ToolCall>, Vec<Step<T>>, Concealed) {
        (self.calls, self.steps, self.concealed)
    }

    /// The spec of the tool each step calls, in the steps' order; `None` for a call the
    /// gate answered (the request's tool search).
    #[cfg(feature = "mcp")]
    pub(crate) fn specs(&self) -> impl Iterator<Item = Option<&crate::ToolSpec>> + '_ {
        self.steps.iter().map(|step| match step {
            Step::Run { name, .. } | Step::AwaitApproval { name } => Some(T::spec_of(*name)),
            Step::RunRuntime { tool, .. } | Step::AwaitRuntimeApproval { tool } => {
                Some(tool.spec())
            }
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
            Step::Run { index, .. }
            | Step::Answered { index, .. }
            | Step::RunRuntime { index, .. } => Some(&self.calls[*index]),
            Step::AwaitApproval { .. } | Step::AwaitRuntimeApproval { .. } => None,
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
