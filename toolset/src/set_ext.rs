//! What a caller does with a set: gate the model's calls and apply the plan (a proposal
//! is approved in [`Approvals`](crate::Approvals)). The methods every `toolset!` set has, written once here as provided methods
//! of [`ToolSetExt`] (implemented for every [`ToolSet`]) instead of once per set by the
//! macro.
//!
//! This file comes after the whole pipeline (it calls the request's gate and apply), so
//! `set.rs`, which the stages import, imports none of them. Bring the methods into scope
//! with `use toolset::prelude::*;` (or `use toolset::prelude::ToolSetExt;`).

use crate::call::ToolCall;
use crate::context::ToolContext;
use crate::gate::Rejected;
use crate::plan::Plan;
use crate::policy::Policy;
use crate::report::Report;
use crate::request::Request;
use crate::set::ToolSet;
use crate::store::Store;
use crate::tier::Autonomy;
use crate::toolbox::Toolbox;
use std::future::Future;

/// The methods every set of tools has: gate the model's calls, apply the plan, and the
/// policy and toolbox to start a request from. Implemented for every [`ToolSet`]; call
/// them on the set's type, as `InboxTools::gate(calls, Autonomy::ReadOnly)`, with the
/// trait in scope (`use toolset::prelude::*;`).
pub trait ToolSetExt: ToolSet {
    /// Verifies the model's whole program and splits it by tier: calls at or below
    /// `autonomy` are approved, the rest become proposals. One bad call rejects all. The
    /// gate of a fresh [`Request`] (nothing activated, injected, in its history or from a
    /// toolbox): `Request::new(&Policy::new(autonomy)).gate(calls)`.
    fn gate(
        calls: impl IntoIterator<Item = ToolCall>,
        autonomy: Autonomy,
    ) -> Result<Plan<Self>, Rejected> {
        Request::new(&Policy::new(autonomy)).gate(calls)
    }

    /// Like [`gate`](Self::gate), under a per-request policy that can only tighten.
    fn gate_with(
        calls: impl IntoIterator<Item = ToolCall>,
        policy: &Policy<Self>,
    ) -> Result<Plan<Self>, Rejected> {
        Request::new(policy).gate(calls)
    }

    /// Runs the plan's approved calls against `state`: an outcome for every call.
    fn apply<'a>(
        state: &'a mut Self::State,
        ctx: &'a ToolContext,
        plan: Plan<Self>,
    ) -> impl Future<Output = Report> + Send + 'a {
        crate::apply::apply(state, ctx, plan)
    }

    /// [`apply`](Self::apply), journaling every call that is not read-only in `store`
    /// (the one the host's [`Approvals`](crate::Approvals) keep, for a plan a human
    /// approved): its start before its handler runs, its end after, under its idempotency
    /// key ([`ToolContext::idempotency_key`]). A call whose start cannot be journaled, or
    /// was journaled before (the same call sent again), does not run. After sending the
    /// report's results, mark them delivered
    /// ([`Report::journaled_keys`], [`Store::mark_delivered`]). See
    /// [`Store::in_doubt`] for what to do after a crash.
    fn apply_journaled<'a>(
        state: &'a mut Self::State,
        ctx: &'a ToolContext,
        plan: Plan<Self>,
        store: &'a dyn Store,
    ) -> impl Future<Output = Report> + Send + 'a {
        crate::apply::apply_journaled(state, ctx, plan, Some(store), None)
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

impl<T: ToolSet> ToolSetExt for T {}
