//! What a caller does with a set: gate the model's calls, apply the plan, approve a
//! proposal. The methods every `toolset!` set has, written once here as provided methods
//! of [`Pipeline`] (implemented for every [`ToolSet`]) instead of once per set by the
//! macro.
//!
//! This file comes after the whole pipeline (it calls the gate, apply and approval), so
//! `set.rs`, which the stages import, imports none of them. Bring the methods into scope
//! with `use toolset::prelude::*;` (or `use toolset::Pipeline;`).

use crate::{
    Approval, ApprovalError, Approvals, Approved, Autonomy, Plan, Policy, ProposalStore, Rejected,
    Report, ToolCall, ToolContext, ToolSet, Toolbox,
};
use std::future::Future;

/// The pipeline of a set of tools: gate the model's calls, apply the plan, approve a
/// proposal. Implemented for every [`ToolSet`]; call it on the set's type, as
/// `InboxTools::gate(calls, Autonomy::ReadOnly)`, with the trait in scope
/// (`use toolset::prelude::*;`).
pub trait Pipeline: ToolSet {
    /// Verifies the model's whole program and splits it by tier: calls at or below
    /// `autonomy` are approved, the rest become proposals. One bad call rejects all.
    fn gate(
        calls: impl IntoIterator<Item = ToolCall>,
        autonomy: Autonomy,
    ) -> Result<Plan<Self>, Rejected> {
        crate::__private::gate::<Self>(calls, &Policy::new(autonomy))
    }

    /// Like [`gate`](Self::gate), under a per-request policy that can only tighten.
    fn gate_with(
        calls: impl IntoIterator<Item = ToolCall>,
        policy: &Policy<Self>,
    ) -> Result<Plan<Self>, Rejected> {
        crate::__private::gate::<Self>(calls, policy)
    }

    /// Runs the plan's approved calls against `state`: an outcome for every call.
    fn apply<'a>(
        state: &'a mut Self::State,
        ctx: &'a ToolContext,
        plan: Plan<Self>,
    ) -> impl Future<Output = Report> + Send + 'a {
        crate::__private::apply::<Self>(state, ctx, plan)
    }

    /// Approves the proposal `approval` names, once, into a runnable plan (or typed
    /// arguments for the host when the tool is propose-only). Checks its seal and expiry,
    /// that it is what was reviewed, and the call under `policy`, the one in force now;
    /// only the one resolver that wins the store gets the call.
    fn approve<S: ProposalStore>(
        approvals: &Approvals<S>,
        approval: &Approval,
        policy: &Policy<Self>,
    ) -> Result<Approved<Self>, ApprovalError> {
        crate::__private::approve::<Self, S>(approvals, approval, policy)
    }

    /// A per-request policy starting at `autonomy`.
    fn policy(autonomy: Autonomy) -> Policy<Self> {
        Policy::new(autonomy)
    }

    /// A toolbox holding this set's tools, to add tools defined at run time to
    /// (`.with(DynamicTool::new(..))?`): one gate, plan and apply for both.
    fn toolbox() -> Toolbox<Self> {
        Toolbox::new()
    }
}

impl<T: ToolSet> Pipeline for T {}
