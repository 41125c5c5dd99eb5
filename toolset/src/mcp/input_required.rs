//! Approval by `input_required`: the MCP 2026-07-28 way (multi round-trip requests,
//! SEP-2322) to put a withheld call to the human, where the server may no longer send the
//! client requests of its own.
//!
//! The first `tools/call` is answered `input_required`: an elicitation showing the call
//! (the same form as `elicit.rs`'s: tool, tier, title, preview, arguments) and a
//! `requestState`. The proposal is submitted to the server's
//! [`Store`](crate::store::Store) through
//! [`Approvals`], sealed with the server's [`SealKey`] and expiring with the approval
//! timeout; the `requestState` names it (its id and digest, what [`Proposal::reviewed`]
//! gives) sealed by rmcp's [`RequestStateCodec`] under a key derived from the same
//! secret, with the same expiry, and bound to the call (the set, the tool, the canonical
//! arguments). The client retries the call with the human's answer and the state:
//!
//! - the state must open for this very call with this server's key, before it expired;
//! - an explicit accept (the box ticked) is approved by [`Approvals::approve`] under the
//!   session's request in force then, which resolves the proposal in the store once: a
//!   replay, here or on another replica sharing the store, finds it resolved;
//! - anything else declines it in the store, so no later answer can run it.
//!
//! Nothing runs on a refusal: the human's no (and an accept sent after it) is answered as
//! declined, every other refusal with the withheld message. Without a store (or a key),
//! or for a client that declared no elicitation, a withheld call is answered withheld at
//! once.

use super::elicit::{self, Shown};
use crate::approval::ApprovalError;
use crate::approval::Approvals;
use crate::approval::Approved;
use crate::approval::Reviewed;
use crate::call::ToolCall;
use crate::digest::SealKey;
use crate::plan::Plan;
use crate::proposal::Proposal;
use crate::proposal::now_ms;
use crate::request::Request;
use crate::set::ToolSet;
use crate::store::{Decision, ProposalLimits, Store};
use rmcp::model::{
    ClientCapabilities, ElicitResult, InputRequest, InputRequests, InputRequiredResult,
    InputResponses, ProtocolVersion, RequestStateCodec, SealOptions,
};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// The key of the approval form in `inputRequests` and `inputResponses`.
const APPROVAL: &str = "approval";

/// What the `requestState`'s key is derived for, from the server's [`SealKey`].
const STATE_KEY_PURPOSE: &str = "mcp tools/call requestState v1";

/// Whether a request of `version` is approved by `input_required` (2026-07-28 and later)
/// rather than by an elicitation the server sends.
pub(super) fn speaks(version: Option<&ProtocolVersion>) -> bool {
    // ISO dates compare as text in calendar order.
    version.is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// Whether the request's client capabilities (2026-07-28: in its `_meta`) let it be
/// asked by an elicitation form.
pub(super) fn can_ask(capabilities: Option<&ClientCapabilities>) -> bool {
    capabilities.is_some_and(elicit::declares_form)
}

/// The server's store and key for approvals by `input_required`
/// ([`McpServer::with_proposal_store`](super::McpServer::with_proposal_store)).
#[derive(Clone)]
pub(super) struct InputRequired {
    store: Arc<dyn Store>,
    key: SealKey,
    codec: RequestStateCodec,
}

impl fmt::Debug for InputRequired {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InputRequired").finish_non_exhaustive()
    }
}

/// What the retry of a call carried, once its state opened for it.
pub(super) struct Answer {
    /// The proposal the human was shown, as the state names it.
    pub(super) reviewed: Reviewed,
    /// Whether the human explicitly approved it.
    pub(super) approved: bool,
}

/// What became of putting a withheld call to the human by `input_required`.
pub(super) enum Asked {
    /// The question to answer the call with.
    Asking(InputRequiredResult),
    /// Not asked: the proposal store is full (its limits' message, for the server's log).
    Full(String),
    /// Not asked: the store failed, or the question could not be built.
    Not,
}

impl InputRequired {
    pub(super) fn new(store: Arc<dyn Store>, key: SealKey) -> Self {
        // 32 bytes derived by HMAC-SHA256: the codec's minimum length.
        let codec = RequestStateCodec::new_unchecked(key.derived(STATE_KEY_PURPOSE));
        InputRequired { store, key, codec }
    }

    /// The approvals over the server's store: sealed with its key, expiring after `limit`.
    fn approvals(&self, limit: Duration) -> Approvals<Arc<dyn Store>> {
        Approvals::new(Arc::clone(&self.store))
            .sealed_with(self.key.clone())
            .expiring_after(limit)
    }

    /// Submits `proposal` to the store, in `owner`'s share of its `limits`, and returns the
    /// `input_required` result asking the human about it, its state expiring after `limit`;
    /// [`Asked::Full`] when the store holds as many proposals as its limits allow (nobody is
    /// asked, nothing is stored); [`Asked::Not`] when the store fails (or the form cannot be
    /// built): then nobody is asked, and the call is withheld.
    pub(super) fn ask<T: ToolSet>(
        &self,
        proposal: &Proposal,
        owner: &str,
        limits: ProposalLimits,
        shown: Shown,
        limit: Duration,
    ) -> Asked {
        let Some(form) = elicit::request(proposal, shown) else {
            return Asked::Not;
        };
        match self
            .approvals(limit)
            .limited_to(limits)
            .submit_for(owner, proposal)
        {
            Ok(_) => {}
            Err(error) if error.is_full() => return Asked::Full(error.to_string()),
            Err(_) => return Asked::Not,
        }
        let options = SealOptions::new().ttl(limit);
        let binding = binding::<T>(APPROVAL_BINDING, proposal.call());
        let Ok(state) = self
            .codec
            .seal_json_with(&proposal.reviewed(), &options.associated_data(&binding))
        else {
            return Asked::Not;
        };
        let requests =
            InputRequests::from([(APPROVAL.to_owned(), InputRequest::Elicitation(form))]);
        Asked::Asking(InputRequiredResult::new(Some(requests), Some(state)))
    }

    /// Reads the retry of `call`: its `state` opened with this server's key for this very
    /// call (set, tool, arguments), unexpired, and the human's answer in `responses`.
    /// `None` when the state does not open: forged, edited, another call's, another
    /// server's, or expired.
    pub(super) fn answer<T: ToolSet>(
        &self,
        call: &ToolCall,
        state: &str,
        responses: Option<&InputResponses>,
    ) -> Option<Answer> {
        let reviewed: Reviewed = self
            .codec
            .open_json_with(state, &binding::<T>(APPROVAL_BINDING, call))
            .ok()?;
        let approved = responses
            .and_then(|responses| responses.get(APPROVAL))
            .and_then(|answer| serde_json::from_value::<ElicitResult>(answer.clone()).ok())
            .is_some_and(|answer| elicit::approves(&answer));
        Some(Answer { reviewed, approved })
    }

    /// Approves what the human approved, through [`Approvals::approve`] under `request`
    /// (the session's, in force now): resolved in the store once, or refused (`Err`, and
    /// for a propose-only tool, which has nothing to run here), `Err(true)` when the
    /// proposal was declined before (an accept sent after the human's no). The plan is the
    /// server's to apply, journaled in [`journal`](Self::journal).
    pub(super) fn approve<T: ToolSet>(
        &self,
        reviewed: &Reviewed,
        request: &Request<'_, T>,
        limit: Duration,
    ) -> Result<Plan<T>, bool> {
        match self.approvals(limit).approve(reviewed, request) {
            Ok(Approved::Run(call)) => Ok(call.into_plan()),
            Err(ApprovalError::AlreadyResolved(resolution)) => {
                Err(resolution.decision == Decision::Declined)
            }
            Ok(Approved::Handoff(_)) | Err(_) => Err(false),
        }
    }

    /// Declines what the human did not approve, so that no later answer runs it. A
    /// proposal already resolved (a replay) stays as it was. The model reads the decline
    /// message in this very answer, so the decline's journal entry is delivered at once
    /// (it never waits among [`Store::undelivered`]).
    pub(super) fn decline(&self, reviewed: &Reviewed, limit: Duration) {
        let declined = self
            .approvals(limit)
            .decline(reviewed, "the human did not approve the call");
        if declined.is_ok() {
            let _ = self
                .store
                .mark_delivered(reviewed.proposal.as_str(), now_ms());
        }
    }

    /// The server's store, as the effect journal: every call that is not read-only is
    /// journaled there, an approved one under its proposal's id.
    pub(super) fn journal(&self) -> &dyn Store {
        &*self.store
    }
}

/// What an approval's `requestState` is bound to, before the call ([`binding`]).
const APPROVAL_BINDING: &[u8] = b"toolset tools/call\0";

/// What a `requestState` of `domain` (an approval's, [`APPROVAL_BINDING`], or a handler's
/// asks', `rounds.rs`) is bound to: the domain, the set and the call's tool and canonical
/// arguments, so that a state opens for no other call, and never as one of another domain.
pub(super) fn binding<T: ToolSet>(domain: &[u8], call: &ToolCall) -> Vec<u8> {
    let mut binding = domain.to_vec();
    binding.extend_from_slice(T::NAME.as_bytes());
    binding.push(0);
    binding.extend_from_slice(&call.action_key());
    binding
}
