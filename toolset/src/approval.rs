//! Approval: a human's decision on a [`Proposal`], checked again when it is acted on.
//!
//! Comes after the plan in the pipeline (call → verify → gate → plan → approval → apply →
//! outcome). [`Approvals`] is the one place proposals wait and are resolved: a host
//! submits a plan's proposals there, and a human's decision comes back as a [`Reviewed`]
//! token that [`Approvals::approve`] or [`Approvals::decline`] acts on, once. Approving
//! re-verifies the call under the [`Request`] in force *at approval time* (its policy: a
//! tool denied or hidden since the proposal was made is not run; its toolbox: a runtime
//! tool gone since is unknown) and against the tool's current declaration (a changed tier
//! refuses the approval); an approved call becomes a [`Plan`] of its own, with a human's
//! authority, for compiled and runtime tools alike.

use crate::call::ToolCall;
use crate::context::ToolContext;
use crate::digest::{SealKey, set_fingerprint};
use crate::output::{ToolOutput, ToolReply};
use crate::plan::{Plan, reason_now};
use crate::proposal::{Proposal, now_ms};
use crate::report::Report;
use crate::request::Request;
use crate::set::ToolSet;
use crate::store::{
    CallEnd, CallStart, Decision, Effect, Ending, JournalEntry, ProposalLimits, Resolution,
    ResolveOutcome, StartOutcome, Store, StoreError, Stored, Tally,
};
use crate::tier::Tier;
use crate::verify::{CallProblem, ProblemKind};
use crate::{messages, trace};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use std::time::Duration;

pub use crate::digest::SealKeyTooShort;
pub use crate::proposal::ProposalId;

/// What a human reviewed: their decision on one proposal exactly as it was shown to them,
/// by its id and the digest of what they reviewed.
///
/// Made by [`Proposal::reviewed`] when the human decides, and acted on by
/// [`Approvals::approve`] or [`Approvals::decline`]. Serializable, so it can come back from
/// a review screen; approving fails unless the stored proposal still has that digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reviewed {
    /// The proposal decided on.
    pub proposal: ProposalId,
    /// The digest of the proposal as the human reviewed it ([`Proposal::digest`]).
    pub digest: String,
}

impl Proposal {
    /// What the human reviewed, deciding on this proposal exactly as it is now. Any later
    /// change to what the digest covers (set, call, tool, arguments, tier, escalation
    /// reason) makes approving it fail.
    pub fn reviewed(&self) -> Reviewed {
        Reviewed {
            proposal: self.id.clone(),
            digest: self.digest(),
        }
    }
}

/// What an approved proposal becomes.
///
/// Deliberately exhaustive: a host must handle every way an approved call can go on, and
/// a wildcard arm here would silently drop one.
///
/// Every variant leaves the effect journal whole by construction: an approved call runs
/// only through [`ApprovedCall::apply`], which journals its end in the store that
/// recorded its start (the approval), and a handoff is ended in the journal when it is
/// approved (the host carries it out; toolset's part is over). Neither is ever left in
/// doubt because a host applied it the wrong way.
pub enum Approved<'s, T: ToolSet> {
    /// The one approved call (to a tool of the set or a runtime tool of the request's
    /// toolbox), ready to run once: [`ApprovedCall::apply`].
    Run(ApprovedCall<'s, T>),
    /// A propose-only tool (the set's or a runtime one) has no handler: here is the call,
    /// for the host to act on. The journal records the call handed over: the model is
    /// told it was approved and left to the host.
    Handoff(Handoff<T>),
}

impl<T: ToolSet> fmt::Debug for Approved<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Approved::Run(call) => f.debug_tuple("Run").field(&call.plan).finish(),
            Approved::Handoff(handoff) => f.debug_tuple("Handoff").field(handoff).finish(),
        }
    }
}

/// An approved call to a propose-only tool, which has no handler: the host carries it out
/// (toolset's part is over, and the journal says so).
#[non_exhaustive]
pub struct Handoff<T: ToolSet> {
    /// The call as the model made it.
    pub call: ToolCall,
    /// Its arguments, as the tool's schema accepted them when it was approved.
    pub args: Value,
    /// Its typed arguments, for a tool of the set (`None` for a runtime tool).
    pub typed: Option<T::Call>,
}

impl<T: ToolSet> fmt::Debug for Handoff<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handoff")
            .field("call", &self.call)
            .field("args", &self.args)
            .finish_non_exhaustive()
    }
}

/// An approved call, to run once: a plan holding it and the journal its approval's start
/// is in. [`apply`](Self::apply) is the only way to run it, and it journals the call's end
/// there, so a call a human approved is never left in doubt by the host's choice of
/// `apply`; its result waits in the journal, for [`Run::collect`](crate::run::Run::collect)
/// (or the host's own delivery) like any journaled result.
pub struct ApprovedCall<'s, T: ToolSet> {
    plan: Plan<T>,
    journal: Option<&'s dyn Store>,
}

impl<'s, T: ToolSet> ApprovedCall<'s, T> {
    /// The one-call plan, to look at (its call: [`Plan::approved`]).
    pub fn plan(&self) -> &Plan<T> {
        &self.plan
    }

    /// Runs the call against `state` with `ctx`, its end journaled in the store that
    /// approved it (a call approved in flight, never stored, has no journal entry),
    /// and reports its outcome. The report's result is the model's answer; it also waits
    /// in the journal, undelivered, until marked
    /// ([`Report::journaled_keys`](crate::report::Report::journaled_keys)).
    pub fn apply<'a>(
        self,
        state: &'a mut T::State,
        ctx: &'a ToolContext,
    ) -> impl Future<Output = Report> + Send + 'a
    where
        's: 'a,
    {
        crate::apply::apply_journaled(state, ctx, self.plan, self.journal, None)
    }

    /// The plan, for a path of this crate that journals it itself (the MCP server).
    #[cfg(feature = "mcp")]
    pub(crate) fn into_plan(self) -> Plan<T> {
        self.plan
    }
}

impl<T: ToolSet> fmt::Debug for ApprovedCall<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApprovedCall")
            .field("plan", &self.plan)
            .field("journaled", &self.journal.is_some())
            .finish()
    }
}

/// The handoff of `call`, ended in `journal` under its stored proposal `key`: approved,
/// and the host's to carry out. An end that cannot be written leaves the call in doubt
/// (the host decides), never lost: the handoff is still returned.
fn hand_off<'s, T: ToolSet>(
    journal: Option<&dyn Store>,
    key: Option<ProposalId>,
    call: ToolCall,
    args: Value,
    typed: Option<T::Call>,
) -> Approved<'s, T> {
    if let (Some(journal), Some(key)) = (journal, key) {
        let output = ToolOutput::text(messages::handed_off(&call.name));
        if let Err(error) = journal.end(
            key.as_str(),
            &CallEnd::with_output(Ending::Done, &output, now_ms()),
        ) {
            tracing::warn!(
                proposal = key.as_str(),
                %error,
                "the approved handoff could not be ended in the journal; it is listed in doubt"
            );
        }
    }
    Approved::Handoff(Handoff { call, args, typed })
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
    /// A re-run was asked of a call the journal does not show in doubt as the host saw it:
    /// no such key, it ended (someone marked it), it is handed back already, or it was
    /// re-run since. Nothing ran.
    NotInDoubt(String),
    /// A re-run of a call that ran without a proposal: under the request in force its
    /// tier is above the autonomy now, so it needs a human's approval; the gate proposed
    /// it instead, and nothing ran.
    NeedsApproval,
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
                Resolution { decision: Decision::Approved, at_ms: *at_ms }.time()
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
            ApprovalError::Invalid(problem) => invalid(f, problem),
            ApprovalError::Store(error) => write!(f, "{error}"),
            ApprovalError::NotInDoubt(key) => write!(
                f,
                "the journal does not show the call {key} in doubt as it was listed (unknown key, ended, handed back already, or re-run since): list the calls in doubt again"
            ),
            ApprovalError::NeedsApproval => f.write_str(
                "the call ran without a proposal, but the request in force would propose it now (its tier is above the autonomy): mark it done or failed, or have the model propose it",
            ),
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
            ApprovalError::NotInDoubt(_) => "not_in_doubt",
            ApprovalError::NeedsApproval => "needs_approval",
        }
    }
}

impl<T: ToolSet> crate::trace::ApprovalResult for Result<Approved<'_, T>, ApprovalError> {
    fn resolution(&self) -> (&'static str, Option<&'static str>, Option<&ToolCall>) {
        match self {
            Ok(Approved::Run(call)) => ("run", None, call.plan.calls().first()),
            Ok(Approved::Handoff(handoff)) => ("handoff", None, Some(&handoff.call)),
            Err(error) => ("refused", Some(error.kind()), None),
        }
    }
}

/// Why an approved call no longer passes, in the host's terms: the problem's message is
/// the sentence the model would read ("There is no tool named ..."), so only the
/// arguments' description, which names the fault, is quoted from it.
fn invalid(f: &mut fmt::Formatter<'_>, problem: &CallProblem) -> fmt::Result {
    let name = &problem.name;
    match problem.kind {
        ProblemKind::UnknownTool => write!(
            f,
            "the request in force has no tool `{name}` to approve (neither the set nor its \
             toolbox has it, or its policy hides it): the approval is refused and the proposal \
             stays pending; approve it under a request whose toolbox holds the tool, or decline it"
        ),
        ProblemKind::Denied => write!(
            f,
            "the policy in force denies the tool `{name}`: the approval is refused and the \
             proposal stays pending; lift the deny to approve it, or decline it"
        ),
        ProblemKind::MalformedJson | ProblemKind::InvalidArguments => write!(
            f,
            "the proposal's arguments no longer fit the tool `{name}` as it is declared now \
             ({}): the approval is refused; decline it and have the model propose the call again",
            problem.message
        ),
        ProblemKind::Misdeclared => write!(
            f,
            "the tool `{name}`'s declaration is broken, so none of its calls can be checked \
             ({}): the approval is refused; fix the declaration (`check_declarations` names \
             the fault)",
            problem.message
        ),
        ProblemKind::InvalidCallId => write!(
            f,
            "the proposal's call to `{name}` has no usable call id: the approval is refused; \
             decline it and have the model propose the call again"
        ),
        ProblemKind::NotFromCode => write!(
            f,
            "the proposal's call to `{name}` came from the model's code, which the request in \
             force does not let call it ({}): the approval is refused and the proposal stays \
             pending; approve it under a request whose policy lets code call the tool \
             (`Request::code_execution`, `Policy::allow_from_code`), or decline it",
            problem.message
        ),
    }
}

/// A reason in quotes, or "none" when there is no escalation.
fn quoted(reason: Option<&str>) -> String {
    reason.map_or_else(|| "none".to_owned(), |reason| format!("{reason:?}"))
}

/// Where a host's proposals wait for a human, and where the human's decisions are acted
/// on, once: a [`Store`], an optional [`SealKey`] and an optional expiry.
///
/// Submit each proposal of a plan ([`submit`](Self::submit)); show it
/// ([`pending`](Self::pending)); act on what the human reviewed ([`Proposal::reviewed`]) with
/// [`approve`](Self::approve), under the request in force then (its policy and toolbox), or
/// [`decline`](Self::decline). The same for a tool of the set and a runtime tool.
///
/// ```
/// use toolset::prelude::*;
/// use toolset::{Approvals, Autonomy, MemoryStore, ToolCall, tool, toolset};
/// use toolset::approval::Approved;
/// use toolset::request::Request;
///
/// /// Send an email.
/// #[tool(tier = "irreversible")]
/// async fn send(/// Who to.
///     to: String) -> String { format!("sent to {to}") }
///
/// toolset! { Mail = [send]; }
///
/// let policy = Mail::policy(Autonomy::ReadOnly);
/// let plan = Request::new(&policy).gate([ToolCall::new("1", "send", r#"{"to":"ann"}"#)])?;
/// let approvals = Approvals::new(MemoryStore::new());
/// let proposal = &plan.proposals()[0];
/// approvals.submit(proposal)?;
/// // Later, the human approves what they were shown.
/// let reviewed = proposal.reviewed();
/// let Approved::Run(call) = approvals.approve(&reviewed, &Request::new(&policy))? else {
///     unreachable!("send has a handler")
/// };
/// assert_eq!(call.plan().approved().count(), 1);
/// // `call.apply(&mut state, &ctx).await` runs it, its end journaled in the store.
/// // Never twice.
/// assert!(approvals.approve(&reviewed, &Request::new(&policy)).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Approvals<S: Store> {
    store: S,
    key: Option<SealKey>,
    lifetime: Option<Duration>,
    limits: ProposalLimits,
}

impl<S: Store> Approvals<S> {
    /// Approvals kept in `store`, unsealed, never expiring, under the default
    /// [`ProposalLimits`].
    pub fn new(store: S) -> Self {
        Approvals {
            store,
            key: None,
            lifetime: None,
            limits: ProposalLimits::default(),
        }
    }

    /// Refuses a proposal beyond `limits` ([`ProposalLimits`]) instead of storing it.
    pub fn limited_to(mut self, limits: ProposalLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Seals every submitted proposal with `key` and refuses, at approval, any proposal
    /// that is not sealed with it: for stores others can write (see [`SealKey`]).
    pub fn sealed_with(mut self, key: SealKey) -> Self {
        self.key = Some(key);
        self
    }

    /// Proposals submitted from now on can be approved for `lifetime` after they were
    /// made, and are refused as expired afterwards.
    pub fn expiring_after(mut self, lifetime: Duration) -> Self {
        self.lifetime = Some(lifetime);
        self
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Stores `proposal` (with its expiry and seal) to wait for a human, as the host's
    /// own ([`submit_for`](Self::submit_for) with no owner); returns its id.
    pub fn submit(&self, proposal: &Proposal) -> Result<ProposalId, StoreError> {
        self.submit_for("", proposal)
    }

    /// Stores `proposal` (with its expiry and seal) to wait for a human, in `owner`'s share
    /// of the store's [`ProposalLimits`] (a run's id, an MCP session or client); returns
    /// its id. First [`sweep`](crate::store::sweep)s the expired proposals away; a
    /// proposal beyond the limits is refused ([`StoreError::is_full`]), not stored.
    pub fn submit_for(&self, owner: &str, proposal: &Proposal) -> Result<ProposalId, StoreError> {
        let ids = self.submit_all_for(owner, std::slice::from_ref(proposal))?;
        ids.into_iter()
            .next()
            .ok_or_else(|| StoreError::new("the store kept no id for the proposal"))
    }

    /// Stores `proposals` together (each with its expiry and seal), in `owner`'s share of
    /// the store's [`ProposalLimits`], or none of them when they do not all fit
    /// ([`StoreError::is_full`]); returns their ids in order. First
    /// [`sweep`](crate::store::sweep)s the expired proposals away. What the conversation
    /// driver submits of one response.
    pub fn submit_all_for(
        &self,
        owner: &str,
        proposals: &[Proposal],
    ) -> Result<Vec<ProposalId>, StoreError> {
        let mut asked = Tally::default();
        let mut prepared = Vec::with_capacity(proposals.len());
        for proposal in proposals {
            let proposal = self.prepared(owner, proposal);
            let json = serde_json::to_string(&proposal).map_err(|error| {
                StoreError::new(format!("could not serialize the proposal: {error}"))
            })?;
            asked.proposals += 1;
            asked.bytes = asked.bytes.saturating_add(json.len() as u64);
            prepared.push(proposal);
        }
        // Counted and stored one at a time in this process: concurrent submissions (a
        // client's calls in flight together) cannot each pass the same count.
        static ADMISSION: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _admitting = ADMISSION
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let now = now_ms();
        crate::store::sweep(&self.store, now)?;
        let usage = self.store.usage(owner, now)?;
        if let Some(refusal) = self.limits.refusal(owner, usage, asked) {
            return Err(StoreError::full(refusal));
        }
        let mut ids = Vec::with_capacity(prepared.len());
        for proposal in prepared {
            self.store.insert(&proposal)?;
            ids.push(proposal.id);
        }
        Ok(ids)
    }

    /// `proposal` as stored for `owner`: with its expiry and, when sealing, its seal.
    fn prepared(&self, owner: &str, proposal: &Proposal) -> Proposal {
        let mut proposal = proposal.clone();
        proposal.owner = owner.to_owned();
        proposal.expires_ms = self.lifetime.map(|lifetime| {
            let lifetime = u64::try_from(lifetime.as_millis()).unwrap_or(u64::MAX);
            proposal.created_ms.saturating_add(lifetime)
        });
        proposal.seal = self.key.as_ref().map(|key| {
            key.seal(
                proposal.id.as_str(),
                &proposal.digest(),
                proposal.created_ms,
                proposal.expires_ms,
            )
        });
        proposal
    }

    /// Ends the proposals expired by now and frees what they held
    /// ([`sweep`](crate::store::sweep)); returns how many were removed.
    /// [`submit`](Self::submit) does it too, before it counts a new proposal.
    pub fn sweep(&self) -> Result<usize, StoreError> {
        crate::store::sweep(&self.store, now_ms())
    }

    /// The proposal `id`, checked (seal, expiry, pending) as approval would, to show the
    /// human. Show its preview, computed from the arguments ([`Proposal::preview`], or
    /// [`Toolbox::preview`](crate::Toolbox::preview) for a runtime tool's).
    pub fn pending(&self, id: &ProposalId) -> Result<Proposal, ApprovalError> {
        let stored = self.checked(id)?;
        match stored.resolution {
            Some(resolution) => Err(ApprovalError::AlreadyResolved(resolution)),
            None => Ok(stored.proposal),
        }
    }

    /// Every proposal that waits for a human, checked as [`pending`](Self::pending) checks
    /// one, oldest first: what a review screen lists. One that fails its checks (altered,
    /// forged, expired, resolved meanwhile) is left out of the list and logged: it can
    /// never be approved, and showing it would invite the attempt.
    pub fn waiting(&self) -> Result<Vec<Proposal>, StoreError> {
        let mut waiting = Vec::new();
        for id in self.store.waiting()? {
            match self.pending(&id) {
                Ok(proposal) => waiting.push(proposal),
                Err(ApprovalError::Store(error)) => return Err(error),
                Err(refused) => {
                    tracing::debug!(proposal = id.as_str(), %refused, "not listed as waiting");
                }
            }
        }
        waiting.sort_by(|a, b| (a.created_ms, a.id.as_str()).cmp(&(b.created_ms, b.id.as_str())));
        Ok(waiting)
    }

    /// Approves the proposal `reviewed` names, once, into a runnable plan (or the arguments
    /// for the host, when the tool is propose-only). Checks its seal and expiry, that its
    /// effect is not on record, that it is what the human reviewed, of this set as it is
    /// now, at the tier (and with the escalation reason) the tool gives these arguments
    /// now, and valid under `request`, the one in force now: its policy's deny and hide
    /// rules (not its autonomy, since a human approved; a deferred tool needs no
    /// activation) and, for a runtime tool, its toolbox. Only the resolver that wins the
    /// store gets the call. Records the resolution as a `toolset.proposal.resolved` event
    /// in the current span.
    pub fn approve<T: ToolSet>(
        &self,
        reviewed: &Reviewed,
        request: &Request<'_, T>,
    ) -> Result<Approved<'_, T>, ApprovalError> {
        let approved = approve(self, reviewed, request);
        trace::proposal_resolved(reviewed.proposal.as_str(), &approved);
        approved
    }

    /// Declines the proposal `reviewed` names, once, as the human saw it (its seal, expiry
    /// and digest checked as approving checks them); returns the result to send the model
    /// under the call's id (or as a follow-up). The store records the decline with that
    /// result in its effect journal, in the same atomic step ([`Store::decline`]),
    /// where it waits undelivered: a run resumed elsewhere gathers it
    /// ([`Run::collect`](crate::run::Run::collect)); a host that sends the returned result
    /// itself marks it delivered under the proposal's id ([`Store::mark_delivered`]). A proposal already resolved answers
    /// [`AlreadyResolved`](ApprovalError::AlreadyResolved). Records the decision as a
    /// `toolset.proposal.resolved` event (resolution `declined`) in the current span.
    pub fn decline(&self, reviewed: &Reviewed, reason: &str) -> Result<ToolReply, ApprovalError> {
        let proposal = self.pending(&reviewed.proposal)?;
        if reviewed.digest != proposal.digest() {
            return Err(ApprovalError::ArgumentsChanged);
        }
        let output = ToolOutput::error(messages::declined(reason));
        let outcome = self
            .store
            .decline(&proposal.id, now_ms(), &output)
            .map_err(ApprovalError::Store)?;
        resolved(outcome)?;
        trace::proposal_declined(&proposal);
        Ok(ToolReply::to(&proposal.call, output))
    }

    /// The stored proposal, its seal checked when a key is set, its expiry, and that its
    /// effect is not on record while it says it waits.
    fn checked(&self, id: &ProposalId) -> Result<Stored, ApprovalError> {
        let stored = self
            .store
            .get(id)
            .map_err(ApprovalError::Store)?
            .ok_or_else(|| ApprovalError::UnknownProposal(id.clone()))?;
        let proposal = &stored.proposal;
        if proposal.id != *id {
            return Err(ApprovalError::Forged);
        }
        if let Some(key) = &self.key {
            let Some(seal) = proposal.seal.as_deref() else {
                return Err(ApprovalError::Forged);
            };
            if !key.verifies(
                seal,
                proposal.id.as_str(),
                &proposal.digest(),
                proposal.created_ms,
                proposal.expires_ms,
            ) {
                return Err(ApprovalError::Altered);
            }
        }
        if stored.resolution.is_none()
            && let Some(effect) = &stored.effect
        {
            return Err(ApprovalError::AlreadyRan(effect.clone()));
        }
        if stored.resolution.is_none()
            && let Some(expires_ms) = proposal.expires_ms
            && now_ms() >= expires_ms
        {
            return Err(ApprovalError::Expired { at_ms: expires_ms });
        }
        Ok(stored)
    }

    /// Resolves `id` as `decision`, once.
    fn resolve(&self, id: &ProposalId, decision: Decision) -> Result<(), ApprovalError> {
        let resolution = Resolution {
            decision,
            at_ms: now_ms(),
        };
        resolved(
            self.store
                .resolve(id, &resolution)
                .map_err(ApprovalError::Store)?,
        )
    }
}

/// A store's resolution as the approval's answer: this resolver won, or why not.
fn resolved(outcome: ResolveOutcome) -> Result<(), ApprovalError> {
    match outcome {
        ResolveOutcome::Resolved => Ok(()),
        ResolveOutcome::AlreadyResolved(earlier) => Err(ApprovalError::AlreadyResolved(earlier)),
        ResolveOutcome::EffectRecorded(effect) => Err(ApprovalError::AlreadyRan(effect)),
    }
}

impl<S: Store> Approvals<S> {
    /// Runs the in-doubt call `entry` (as [`Store::in_doubt`] listed it) again, under the
    /// same idempotency key, once the host decided its effect did not happen (or that the
    /// tool's external API deduplicates the key). Never a bypass: a call a human approved
    /// is checked again as [`approve`](Self::approve) checks it (seal, set, tier, escalation
    /// reason, validity under `request`, the one in force now); a call that ran without a
    /// proposal goes through `request`'s gate again, and must still be within its autonomy
    /// ([`NeedsApproval`](ApprovalError::NeedsApproval) otherwise). Of concurrent re-runs
    /// one wins ([`NotInDoubt`](ApprovalError::NotInDoubt) for the others). The call runs
    /// by [`ApprovedCall::apply`], journaled in this store under the same key.
    pub fn rerun<T: ToolSet>(
        &self,
        entry: &JournalEntry,
        request: &Request<'_, T>,
    ) -> Result<Approved<'_, T>, ApprovalError> {
        let not_in_doubt = || ApprovalError::NotInDoubt(entry.key.clone());
        let now = self
            .store
            .entry(&entry.key)
            .map_err(ApprovalError::Store)?
            .ok_or_else(not_in_doubt)?;
        if !now.in_doubt() || now.rerun || now.attempts != entry.attempts {
            return Err(not_in_doubt());
        }
        if let Some(id) = ProposalId::parse(&entry.key) {
            let stored = self.checked(&id)?;
            // Handed back and started again in one go, once every check passed: the call
            // is this resolver's alone.
            return decide(stored.proposal, request, Some(&self.store), |id| {
                let start = CallStart {
                    key: id.as_str().to_owned(),
                    call: now.call.clone(),
                    tier: now.tier,
                    at_ms: now_ms(),
                };
                let claimed = self
                    .store
                    .rerun(&now.key, now.attempts)
                    .map_err(ApprovalError::Store)?
                    && self.store.start(&start).map_err(ApprovalError::Store)?
                        == StartOutcome::Started;
                claimed.then(|| Some(id.clone())).ok_or_else(not_in_doubt)
            });
        }
        let plan = request.gate([now.call.clone()]).map_err(|rejected| {
            match rejected.problems().first() {
                Some(problem) => ApprovalError::Invalid(problem.clone()),
                None => not_in_doubt(),
            }
        })?;
        if plan.has_proposals() {
            return Err(ApprovalError::NeedsApproval);
        }
        // Apply's start of the key runs it: handed back now, it starts there once, under
        // the key it had (an automatic key within a run is not the gate's again).
        if !self
            .store
            .rerun(&now.key, now.attempts)
            .map_err(ApprovalError::Store)?
        {
            return Err(not_in_doubt());
        }
        Ok(Approved::Run(ApprovedCall {
            plan: plan.rerun_as(now.key.clone()),
            journal: Some(&self.store),
        }))
    }
}

/// [`Approvals::approve`], without the trace event.
fn approve<'s, T: ToolSet, S: Store>(
    approvals: &'s Approvals<S>,
    reviewed: &Reviewed,
    request: &Request<'_, T>,
) -> Result<Approved<'s, T>, ApprovalError> {
    let stored = approvals.checked(&reviewed.proposal)?;
    if let Some(resolution) = stored.resolution {
        return Err(ApprovalError::AlreadyResolved(resolution));
    }
    let proposal = stored.proposal;
    if reviewed.digest != proposal.digest() {
        return Err(ApprovalError::ArgumentsChanged);
    }
    // Resolve before running, recording the effect as started in the same step: a crash
    // after this leaves it approved and not run, never run twice, and a resolution reset
    // to pending later finds the effect on record.
    decide(proposal, request, Some(&approvals.store), |id| {
        approvals.resolve(id, Decision::Approved)?;
        Ok(Some(id.clone()))
    })
}

/// Approves `proposal` where the human saw it in flight (an MCP elicitation answered on
/// the same connection, once): the checks of [`Approvals::approve`] on the very call
/// shown, under `request`, the one in force now. Nothing to resolve: the proposal never
/// waited anywhere another resolver could reach.
#[cfg(feature = "mcp")]
pub(crate) fn approve_in_flight<T: ToolSet>(
    proposal: &Proposal,
    request: &Request<'_, T>,
) -> Result<Approved<'static, T>, ApprovalError> {
    decide(proposal.clone(), request, None, |_| Ok(None))
}

/// What the approval of `proposal` becomes under `request`: it must be of this set as it
/// is now, valid under the request (see [`Request::approvable`]), at the tier, propose-only
/// flag and escalation reason it recorded. `resolve` runs once every check passed, before
/// the call is handed out, and says which stored proposal the plan runs (its id is the
/// call's idempotency key), `None` when it was never stored. `journal` is where the
/// stored proposal's start is: the approved call's end is written there, and a handoff's
/// at once.
fn decide<'s, T: ToolSet>(
    proposal: Proposal,
    request: &Request<'_, T>,
    journal: Option<&'s dyn Store>,
    resolve: impl FnOnce(&ProposalId) -> Result<Option<ProposalId>, ApprovalError>,
) -> Result<Approved<'s, T>, ApprovalError> {
    if proposal.set != T::NAME {
        return Err(ApprovalError::OtherSet {
            expected: T::NAME,
            found: proposal.set.clone(),
        });
    }
    if proposal.set_fingerprint != set_fingerprint::<T>() {
        return Err(ApprovalError::SetChanged);
    }
    let tool = request
        .approvable(&proposal.call)
        .map_err(ApprovalError::Invalid)?;
    let concealed = request.concealed();
    let job = tool
        .verify(&proposal.call)
        .map_err(ApprovalError::Invalid)?;
    let spec = job.spec();
    let propose_only = spec.is_propose_only();
    let sends = spec.labels().sends_outside();
    let (tier, reason) = job.tier();
    if proposal.call.is_from_code() && tier == Tier::Irreversible {
        // The gate never proposes such a call; one in the store was not its.
        return Err(ApprovalError::Invalid(CallProblem {
            call_id: proposal.call.id.clone(),
            name: proposal.call.name.clone(),
            kind: ProblemKind::NotFromCode,
            message: messages::irreversible_from_code(
                &proposal.call.name,
                reason.as_deref().unwrap_or("its declared tier"),
            ),
        }));
    }
    // A send the trifecta rule held back shows why; the human's approval is for this call
    // whatever the run has read since.
    let reason = reason_now(reason, proposal.escalation.as_deref(), sends);
    unchanged(&proposal, tier, propose_only, reason)?;
    if propose_only {
        // What the host reads of a handoff, read before anything is resolved.
        let (args, typed) = job
            .into_handoff(&proposal.call)
            .map_err(ApprovalError::Invalid)?;
        let stored = resolve(&proposal.id)?;
        return Ok(hand_off(journal, stored, proposal.call, args, typed));
    }
    let stored = resolve(&proposal.id)?;
    Ok(Approved::Run(ApprovedCall {
        journal: stored.as_ref().and(journal),
        plan: Plan::approved_by_human(proposal.call, job, concealed, stored),
    }))
}

/// Whether the call's tier, propose-only flag and escalation reason now are what the
/// proposal recorded (what the human reviewed).
fn unchanged(
    proposal: &Proposal,
    tier: Tier,
    propose_only: bool,
    reason: Option<String>,
) -> Result<(), ApprovalError> {
    if tier != proposal.tier || propose_only != proposal.propose_only {
        return Err(ApprovalError::TierChanged {
            reviewed: proposal.tier,
            declared: tier,
        });
    }
    if reason != proposal.escalation {
        return Err(ApprovalError::ReasonChanged {
            shown: proposal.escalation.clone(),
            now: reason,
        });
    }
    Ok(())
}
