//! What the server does for the runtime tools of the toolbox it serves
//! ([`McpServer::with_toolbox`]) beyond running them (apply runs them as it runs any
//! plan's: no state, so no lock): re-gates a call a human approved by elicitation against
//! the session's request as it is then, and tells the session's client when a namespace
//! of the toolbox refreshed.

use super::McpServer;
use crate::plan::Step;
use crate::verify::verify_runtime_arguments;
use crate::{Plan, Proposal, ToolSet};
use rmcp::{Peer, RoleServer};
use std::sync::Arc;

impl<T: ToolSet> McpServer<T> {
    /// The one-call plan of a proposal of a runtime tool a human approved, re-gated
    /// against the session's request now: the tool must still be offered, at the tier the
    /// human saw, and the arguments still valid; `None` otherwise.
    pub(super) fn runtime_approved(&self, proposal: &Proposal) -> Option<Plan<T>> {
        let call = proposal.call().clone();
        let plan = self.session.gate(&self.base, call).ok()?;
        let (mut calls, steps, concealed) = plan.into_parts();
        let tool = match steps.into_iter().next()? {
            Step::AwaitRuntimeApproval { tool } | Step::RunRuntime { tool, .. } => tool,
            Step::Run { .. } | Step::AwaitApproval { .. } | Step::Answered { .. } => return None,
        };
        let spec = tool.spec();
        if spec.tier() != proposal.tier() || spec.is_propose_only() {
            return None;
        }
        let call = calls.pop()?;
        let args = verify_runtime_arguments(&call, spec).ok()?;
        Some(Plan::runtime_approved_by_human(
            call,
            Arc::clone(&tool),
            args,
            concealed,
        ))
    }

    /// Sends the session's client `notifications/tools/list_changed` after every refresh
    /// of a namespace of the toolbox, until the session ends or the client is gone.
    pub(super) fn forward_refreshes(&self, peer: Peer<RoleServer>) {
        if !self.base.toolbox.can_change() {
            return;
        }
        let mut refreshes = self.base.toolbox.refreshes();
        let ended = self.session.ended();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    biased;
                    () = ended.cancelled() => return,
                    () = refreshes.next() => {}
                }
                if peer.is_transport_closed() || peer.notify_tool_list_changed().await.is_err() {
                    return;
                }
            }
        });
    }
}
