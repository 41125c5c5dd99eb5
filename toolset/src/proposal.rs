//! A proposal: a call the plan withheld for a human, with what the human is shown.
//!
//! Proposals are built by the plan and resolved in [`Approvals`](crate::Approvals); they
//! live in their own file so that neither of those stages imports the other backwards.
//! Serializable, since a proposal may wait for hours in a database. What the human is
//! shown of the tool (title, preview) is recomputed from the arguments every time, never
//! stored, so a stored proposal cannot show one thing and do another; everything it does
//! store and show (the call, tier, escalation reason) is under its digest and seal.

use crate::call::ToolCall;
use crate::digest::{Reviewed, proposal_digest, set_fingerprint};
use crate::messages;
use crate::output::{ToolOutput, ToolReply};
use crate::set::{ToolName, ToolSet};
use crate::spec::{Labels, ToolSpec};
use crate::tier::Tier;
use crate::verify::{CallProblem, ProblemKind, verify_arguments};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

/// The unique, unguessable id of a proposal: 128 random bits from the operating system,
/// as 32 lowercase hex digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ProposalId(String);

impl ProposalId {
    pub(crate) fn random() -> ProposalId {
        ProposalId(crate::digest::random_hex::<16>("a proposal id"))
    }

    /// Parses an id as printed by [`Display`](fmt::Display) (e.g. from a command line).
    pub fn parse(text: &str) -> Option<ProposalId> {
        let valid = text.len() == 32
            && text
                .bytes()
                .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte));
        valid.then(|| ProposalId(text.to_owned()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ProposalId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

/// A call the gate withheld: only a human may let it happen.
///
/// Serializable, so it can wait for hours in a [`Store`](crate::store::Store).
/// Approving it ([`Approvals::approve`](crate::Approvals::approve) with what the human
/// [reviewed](Proposal::reviewed)) re-verifies the call under the request in force then, against
/// the tool's current declaration, and binds to exactly what was reviewed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    pub(crate) id: ProposalId,
    pub(crate) set: String,
    pub(crate) set_fingerprint: String,
    pub(crate) call: ToolCall,
    pub(crate) tier: Tier,
    /// Why the tool raised its tier for these arguments, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) escalation: Option<String>,
    pub(crate) propose_only: bool,
    pub(crate) created_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) expires_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) seal: Option<String>,
    /// The tool's labels when proposed: what its text brings into the run once it runs.
    /// A copy stored without them reads as reading everything (fail closed).
    #[serde(default = "Labels::reading_anything")]
    pub(crate) labels: Labels,
    /// Who submitted it, for the store's limits ([`ProposalLimits`](crate::store::ProposalLimits)):
    /// a run, an MCP session or client; empty for the host's own.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub(crate) owner: String,
}

impl crate::trace::ProposalFacts for Proposal {
    fn proposed_call(&self) -> &ToolCall {
        self.call()
    }

    fn tier_name(&self) -> &'static str {
        self.tier().as_str()
    }

    fn propose_only(&self) -> bool {
        self.is_propose_only()
    }
}

impl Proposal {
    /// A proposal of `call` to the tool `spec` declares (the set's, or a runtime tool of
    /// a toolbox over the set `T`), at `tier` (its declared tier, or the higher one its
    /// escalation chose for these arguments). `escalation` is why: the escalation's
    /// reason, the gate's reason to hold it back whatever its tier, or both. A runtime
    /// tool's title and preview are the toolbox's to compute, from the arguments, when
    /// shown ([`Toolbox::preview`](crate::toolbox::Toolbox::preview)).
    pub(crate) fn new<T: ToolSet>(
        call: &ToolCall,
        spec: &ToolSpec,
        tier: Tier,
        escalation: Option<String>,
    ) -> Self {
        Proposal {
            id: ProposalId::random(),
            set: T::NAME.to_owned(),
            set_fingerprint: set_fingerprint::<T>(),
            call: call.clone(),
            tier,
            escalation,
            propose_only: spec.is_propose_only(),
            created_ms: now_ms(),
            expires_ms: None,
            seal: None,
            labels: spec.labels(),
            owner: String::new(),
        }
    }

    /// The proposal's unique id; what a human [reviewed](Proposal::reviewed) names it.
    pub fn id(&self) -> &ProposalId {
        &self.id
    }

    /// Who submitted it ([`Approvals::submit_for`](crate::Approvals::submit_for)), whose
    /// share of the store's limits it takes: a run's id, an MCP session or client; empty
    /// for a proposal the host submitted itself ([`Approvals::submit`](crate::Approvals::submit)).
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// The call as the model made it.
    pub fn call(&self) -> &ToolCall {
        &self.call
    }

    /// The call's tier when it was proposed: the tool's declared tier, or the higher one
    /// its escalation chose for these arguments.
    pub fn tier(&self) -> Tier {
        self.tier
    }

    /// Why the tool raised its tier for these arguments (see [`Escalation`](crate::Escalation)),
    /// when it did.
    pub fn escalated_because(&self) -> Option<&str> {
        self.escalation.as_deref()
    }

    /// The tool's own reason for raising its tier (its [`Escalation`](crate::Escalation)),
    /// without the gate's: what [`escalated_because`](Self::escalated_because) says before
    /// the lethal-trifecta rule's reason, when both held the call.
    pub fn raised_because(&self) -> Option<&str> {
        let shown = self.escalation.as_deref()?;
        match messages::held_part(shown) {
            Some(held) => {
                let raised = shown[..shown.len() - held.len()].trim_end_matches("; ");
                (!raised.is_empty()).then_some(raised)
            }
            None => Some(shown),
        }
    }

    /// The gate's lethal-trifecta rule's reason for holding the call (what the run has read,
    /// and that the tool sends data outside), when the rule held it.
    pub fn held_by_trifecta(&self) -> Option<&str> {
        self.escalation.as_deref().and_then(messages::held_part)
    }

    /// The tool's title in the set `T` as declared now, if it declares one.
    pub fn title<T: ToolSet>(&self) -> Option<&'static str> {
        let name = <T::Name as ToolName>::from_name(&self.call.name)?;
        T::spec_of(name).title()
    }

    /// The tool's preview of what the call would do, computed now from the arguments (a
    /// stored preview could say one thing while the arguments say another). `None` when
    /// the tool declares no preview or the arguments no longer fit.
    pub fn preview<T: ToolSet>(&self) -> Option<String> {
        self.typed::<T>().ok().and_then(|typed| T::preview(&typed))
    }

    /// The tool's labels when the call was proposed: what its result brings into the run
    /// (a [`Run`](crate::run::Run) waiting on the proposal records them in its exposure when it
    /// gathers the result).
    pub fn labels(&self) -> Labels {
        self.labels
    }

    /// True when the tool has no handler: approving hands the arguments to the host.
    pub fn is_propose_only(&self) -> bool {
        self.propose_only
    }

    /// The name of the set this proposal belongs to.
    pub fn set(&self) -> &str {
        &self.set
    }

    /// When the proposal stops being approvable (ms since the Unix epoch), if it expires.
    pub fn expires_at_ms(&self) -> Option<u64> {
        self.expires_ms
    }

    /// The digest of what a human reviews: set name and fingerprint, call id, tool, the
    /// arguments (canonical, and as the exact text shown), tier, the escalation's reason
    /// and the propose-only flag, as hex. An approval carries it; a seal covers it with
    /// the id and times, so every field a reviewer is shown is under the seal.
    pub fn digest(&self) -> String {
        // Destructured, so a field added to a proposal is a compile error here until it
        // is either digested or covered by the seal.
        let Proposal {
            id: _,         // sealed
            created_ms: _, // sealed
            expires_ms: _, // sealed
            seal: _,
            // Never read back from a store: a run keeps the labels of the proposals it
            // waits on itself, under its own seal (`PendingCall::labels`).
            labels: _,
            // Who asked, for the store's limits: not what is approved, so not reviewed.
            owner: _,
            set,
            set_fingerprint,
            call,
            tier,
            escalation,
            propose_only,
        } = self;
        proposal_digest(&Reviewed {
            set,
            fingerprint: set_fingerprint,
            call,
            tier: tier.as_str(),
            escalation: escalation.as_deref(),
            propose_only: *propose_only,
        })
    }

    /// The typed arguments, verified again against the set's tool (whatever a policy
    /// says of it); a problem when the set has no such tool (a runtime tool's proposal).
    pub fn typed<T: ToolSet>(&self) -> Result<T::Call, CallProblem> {
        let Some(name) = T::Name::from_name(&self.call.name) else {
            let names: Vec<&str> = T::Name::ALL.iter().map(|name| name.as_str()).collect();
            return Err(CallProblem {
                call_id: self.call.id.clone(),
                name: self.call.name.clone(),
                kind: ProblemKind::UnknownTool,
                message: messages::unknown_tool(
                    &crate::arguments::shortened(&self.call.name),
                    crate::arguments::closest(&self.call.name, &names),
                    &names,
                ),
            });
        };
        verify_arguments::<T>(&self.call, name).map(|verified| verified.typed)
    }

    /// The result to send the model while the proposal waits (the "continue" style).
    pub fn pending_result(&self) -> ToolReply {
        self.result(ToolOutput::text(messages::AWAITING_APPROVAL))
    }

    fn result(&self, output: ToolOutput) -> ToolReply {
        ToolReply::to(&self.call, output)
    }
}
