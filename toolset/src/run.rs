//! A run: a conversation's tool state in one serializable value, saved and resumed through
//! a store with a compare-and-set on its generation, sealed like proposals.
//!
//! What a host keeps between two requests of one conversation is a [`Run`]: the deferred
//! tools it activated, what it has read (the trifecta guard's memory), the proposals it
//! waits on, the late results not yet given to the model, and the idempotency keys of its
//! journaled calls whose results were not yet marked delivered. [`Runs`] keeps runs in a
//! [`Store`] (memory, SQLite, PostgreSQL): [`save`](Runs::save) writes a copy only over
//! the generation it was loaded at, [`resume`](Runs::resume) claims the newest copy, so a
//! run resumed twice, or an old copy saved or resumed after a newer one, is refused
//! ([`RunError::Superseded`]), never replayed. A resumed run gathers the answers other
//! processes left in the effect journal ([`Run::collect`]: an approved call's result, a
//! declined call's refusal), gives each to the model once in either conversation style,
//! and marks it delivered in the journal ([`Run::delivered`]), so no later resume gives
//! it again.

use crate::call::ToolCall;
use crate::digest::SealKey;
use crate::messages;
use crate::messages::Late;
use crate::outcome::Outcome;
use crate::output::{ToolOutput, ToolReply};
use crate::proposal::{Proposal, ProposalId, now_ms};
use crate::report::Report;
use crate::request::Activations;
use crate::spec::Labels;
use crate::store::{Decision, RunId, SaveRunOutcome, Store, StoreError, Stored, StoredRun};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

pub use crate::exposure::Exposure;

/// A call of the run that waits for a human: its proposal, by id, and the call it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PendingCall {
    /// The proposal's id: the call's idempotency key in the effect journal once approved.
    pub proposal: ProposalId,
    /// The id of the call the model made.
    pub call_id: String,
    /// The tool it called.
    pub tool: String,
    /// The tool's labels when proposed: what its result brings into the run once it ran
    /// ([`Run::collect`] records them in the run's exposure). A copy saved without them
    /// reads as reading everything (fail closed).
    #[serde(default = "Labels::reading_anything")]
    pub labels: Labels,
    /// The model was given no answer for the call, not even "awaiting approval": a tool
    /// with a late result on OpenAI Responses (`"async": true`), whose one answer is its
    /// own `function_call_output`, sent when the human decided ([`LateResult::unanswered`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unanswered: bool,
}

/// An answer the model has not read yet: a proposal's late result (the call's journaled
/// result once approved and applied, or the human's refusal), or the result of one of the
/// run's own journaled calls that was never marked delivered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LateResult {
    /// The journal key to mark delivered once the model has it; `None` for a decline a
    /// store without decline records reported (it has no journal entry).
    pub key: Option<String>,
    /// The answer, under the call's id.
    pub reply: ToolReply,
    /// The labels of the tool whose text the answer is ([`Labels::NONE`] for toolset's
    /// own words: a decline, an expiry). Gathering it records them in the run's exposure.
    #[serde(default = "Labels::reading_anything")]
    pub labels: Labels,
    /// The call was never answered ([`PendingCall::unanswered`]): this is its one answer,
    /// sent as the call's own result under its id (OpenAI Responses' `function_call_output`),
    /// not as a follow-up about it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unanswered: bool,
}

/// How many retries a tool's handler may ask for within one run (one MCP session) unless
/// the host says otherwise ([`Driver::retries`](crate::Driver::retries),
/// `McpServer::with_retries`).
pub(crate) const DEFAULT_RETRIES: u32 = 3;

/// A conversation's tool state, in one serializable value: its activations, what it has
/// read ([`Exposure`]), the proposals it waits on, its late results not yet delivered and
/// its journaled calls, with an id and a generation.
///
/// Hand its parts to each [`Request`](crate::request::Request) as before
/// (`.activated(run.activations()).exposure(run.exposure())`), and tell it what happened:
/// [`await_approval`](Self::await_approval) for each proposal submitted,
/// [`record`](Self::record) for each report sent to the model (continue style) or
/// [`hold`](Self::hold) for the batch held back (pause style). Keep it in a store with
/// [`Runs`]; a resumed run [`collect`](Self::collect)s the answers other processes left,
/// gives them to the model ([`late_results`](Self::late_results) as a follow-up, or
/// [`pause_results`](Self::pause_results) for the held batch), then marks them
/// [`delivered`](Self::delivered) and is saved again.
///
/// ```
/// use toolset::store::MemoryStore;
/// use toolset::run::{Run, Runs};
///
/// let runs = Runs::new(MemoryStore::new());
/// let mut run = Run::new();
/// runs.save(&mut run)?;
/// assert_eq!(run.generation(), 1);
/// // Another request of the conversation, maybe in another process:
/// let resumed = runs.resume(run.id())?;
/// assert_eq!(resumed.generation(), 2);
/// // The copy from before the resume is stale now.
/// assert!(runs.save(&mut run).is_err());
/// # Ok::<(), toolset::run::RunError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    id: RunId,
    generation: u64,
    #[serde(default)]
    activations: Activations,
    #[serde(default)]
    exposure: Exposure,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pending: Vec<PendingCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    held: Option<Report>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    late: Vec<LateResult>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    journaled: Vec<String>,
    /// Until when a request of the conversation holds the run (ms since the Unix epoch):
    /// the [`Driver`](crate::Driver) refuses a second request meanwhile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lease_until_ms: Option<u64>,
    /// How many times each tool's handler asked the model to retry within the run.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    retries: BTreeMap<String, u32>,
    /// The tool names the conversation's history uses (the model's calls so far).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    history: Vec<String>,
}

impl Default for Run {
    fn default() -> Self {
        Run::new()
    }
}

/// What a pending call's proposal has become, as the store shows it.
enum Found {
    /// Still waiting, or approved and not ended (running, or in doubt).
    Waiting,
    /// Ended, and its answer not delivered.
    Late(Box<LateResult>),
    /// Ended, and its answer delivered already (by an earlier copy of the run).
    Delivered,
}

impl Run {
    /// A new run with a random id, never saved (generation 0).
    pub fn new() -> Run {
        Run::with_id(RunId::random())
    }

    /// A new run under the host's own id (a conversation's), never saved.
    pub fn with_id(id: RunId) -> Run {
        Run {
            id,
            generation: 0,
            activations: Activations::new(),
            exposure: Exposure::new(),
            pending: Vec::new(),
            held: None,
            late: Vec::new(),
            journaled: Vec::new(),
            lease_until_ms: None,
            retries: BTreeMap::new(),
            history: Vec::new(),
        }
    }

    /// The run's id.
    pub fn id(&self) -> &RunId {
        &self.id
    }

    /// The generation of the stored copy this value was saved as or resumed from: 0 until
    /// it is first saved. A save or a resume raises it by one.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The deferred tools the run activated: hand them to
    /// [`Request::activated`](crate::request::Request::activated).
    pub fn activations(&self) -> &Activations {
        &self.activations
    }

    /// The activations, to change by hand (a hosted search's finds:
    /// [`Activations::record_hosted`]).
    pub fn activations_mut(&mut self) -> &mut Activations {
        &mut self.activations
    }

    /// What the run has read: hand it to [`Request::exposure`](crate::request::Request::exposure).
    pub fn exposure(&self) -> &Exposure {
        &self.exposure
    }

    /// The exposure, to change by hand (what a host's own step read).
    pub fn exposure_mut(&mut self) -> &mut Exposure {
        &mut self.exposure
    }

    /// The calls waiting for a human, in the order they were proposed.
    pub fn pending(&self) -> &[PendingCall] {
        &self.pending
    }

    /// The idempotency keys of the run's journaled calls whose results are not yet marked
    /// delivered.
    pub fn journaled(&self) -> &[String] {
        &self.journaled
    }

    /// The batch held back in the pause style ([`hold`](Self::hold)), if any.
    pub fn held(&self) -> Option<&Report> {
        self.held.as_ref()
    }

    /// The answers gathered and not yet delivered, with their journal keys.
    pub fn late(&self) -> &[LateResult] {
        &self.late
    }

    /// Until when a request of the conversation holds the run, if one does (ms since the
    /// Unix epoch): see [`Driver`](crate::Driver).
    pub fn leased_until_ms(&self) -> Option<u64> {
        self.lease_until_ms
    }

    /// Holds the run for a request until `until_ms` (`None`: released).
    pub(crate) fn lease(&mut self, until_ms: Option<u64>) {
        self.lease_until_ms = until_ms;
    }

    /// The tool names the conversation's history uses (every tool the model called in
    /// it): hand them to [`Request::history`](crate::request::Request::history), so the provider
    /// accepts the history whatever is offered now.
    pub fn history(&self) -> &[String] {
        &self.history
    }

    /// Records the tool names of `calls` in the history.
    pub(crate) fn called(&mut self, calls: &[ToolCall]) {
        for call in calls {
            if !self.history.contains(&call.name) {
                self.history.push(call.name.clone());
            }
        }
    }

    /// How many times `tool`'s handler has asked the model to retry within the run.
    pub fn retries(&self, tool: &str) -> u32 {
        self.retries.get(tool).copied().unwrap_or(0)
    }

    /// Counts each retry `report`'s handlers asked for against their tool's count within
    /// the run, and fails each past `limit` with a message that says the limit (the model
    /// is told to stop rather than asked again without end). The driver's turns and an
    /// MCP session's calls are capped here alike.
    pub(crate) fn cap_retries(&mut self, report: &mut Report, limit: u32) {
        for entry in report.entries_mut() {
            let Some(Outcome::Retry { hint }) = &entry.outcome else {
                continue;
            };
            let count = self.retries.entry(entry.call.name.clone()).or_insert(0);
            *count = count.saturating_add(1);
            if *count > limit {
                let message = messages::retries_exhausted(&entry.call.name, limit, hint);
                entry.outcome = Some(Outcome::Failed { message });
            }
        }
    }

    /// Records that the run waits for a human on `proposal` (submitted to
    /// [`Approvals`](crate::Approvals)): [`collect`](Self::collect) looks for its answer.
    /// Returns false when the run waited on it already.
    pub fn await_approval(&mut self, proposal: &Proposal) -> bool {
        if self
            .pending
            .iter()
            .any(|pending| pending.proposal == *proposal.id())
        {
            return false;
        }
        self.pending.push(PendingCall {
            proposal: proposal.id().clone(),
            call_id: proposal.call().id.clone(),
            tool: proposal.call().name.clone(),
            labels: proposal.labels(),
            unanswered: false,
        });
        true
    }

    /// Records that the model was given no answer for the pending call `call_id`, not even
    /// "awaiting approval" (a tool with a late result on OpenAI Responses): its late result
    /// is then the call's own answer ([`LateResult::unanswered`]). Returns false when the
    /// run waits on no such call.
    pub(crate) fn leave_unanswered(&mut self, call_id: &str) -> bool {
        let pending = self
            .pending
            .iter_mut()
            .find(|pending| pending.call_id == call_id);
        pending.map(|pending| pending.unanswered = true).is_some()
    }

    /// Records what an applied plan did, for a report whose results the model is sent now
    /// (the continue style): the tools its calls activated ([`Activations::record`]), what
    /// the calls that ran have read ([`Exposure::record`]) and the journal keys of its
    /// calls, to mark delivered once sent ([`delivered`](Self::delivered)). Its calls that
    /// were proposed are recorded by [`await_approval`](Self::await_approval).
    pub fn record(&mut self, report: &Report) {
        self.activations.record(report);
        self.exposure.record(report);
        for key in report.journaled_keys() {
            if !self.journaled.iter().any(|known| known == key) {
                self.journaled.push(key.to_owned());
            }
        }
    }

    /// Holds back `report` until its proposals are resolved (the pause style: the model is
    /// sent nothing for the batch until every call has its answer). Records its activations
    /// and exposure (its calls that ran did run); its results, with the late ones, come
    /// back from [`pause_results`](Self::pause_results). Replaces a batch held before.
    pub fn hold(&mut self, report: Report) {
        self.activations.record(&report);
        self.exposure.record(&report);
        self.held = Some(report);
    }

    /// Gathers the answers the store holds for the run: each pending call whose proposal
    /// was approved and whose call ended (its journaled result), was declined (the
    /// human's refusal, recorded with the decline) or expired unanswered, and each
    /// journaled call of the run that ended and was never marked delivered. An answer
    /// already marked delivered (by an earlier copy of the run) is dropped, never gathered
    /// again; a call approved and not ended (running elsewhere, or in doubt:
    /// [`Store::in_doubt`]) stays pending. Returns how many answers were added to
    /// [`late`](Self::late).
    ///
    /// What a gathered answer brings into the run joins its [`exposure`](Self::exposure)
    /// now, before any later gate: the labels of the tool whose text it is (none for a
    /// decline or an expiry, which are toolset's words).
    ///
    /// An expired proposal ends here, like a decline: the store records it declined, with
    /// the expiry as the model's answer ([`Store::decline`]), so it can never be
    /// approved after all and its answer is delivered once. Nothing else changes in the
    /// store: mark the answers [`delivered`](Self::delivered) once the model has them.
    pub fn collect<S>(&mut self, store: &S) -> Result<usize, StoreError>
    where
        S: Store + ?Sized,
    {
        // Everything is read first: a store error leaves the run as it was.
        let mut pending = Vec::new();
        for call in &self.pending {
            pending.push(found_pending(store, call)?);
        }
        let mut journaled = Vec::new();
        for key in &self.journaled {
            journaled.push(found_journaled(store, key)?);
        }
        let mut added = 0;
        let mut still = Vec::new();
        let mut released = false;
        for (call, found) in std::mem::take(&mut self.pending).into_iter().zip(pending) {
            match found {
                Found::Waiting => still.push(call),
                Found::Late(mut late) => {
                    late.unanswered = call.unanswered;
                    added += usize::from(self.add_late(*late));
                }
                Found::Delivered => {
                    // The held batch goes out whole, its answers marked together: one of
                    // them delivered means an earlier copy of the run sent the batch.
                    released |= self
                        .held
                        .as_ref()
                        .is_some_and(|held| awaited(held, &call.call_id));
                }
            }
        }
        self.pending = still;
        if released {
            self.held = None;
        }
        let mut still = Vec::new();
        for (key, found) in std::mem::take(&mut self.journaled)
            .into_iter()
            .zip(journaled)
        {
            match found {
                Found::Waiting => still.push(key),
                Found::Late(late) => added += usize::from(self.add_late(*late)),
                Found::Delivered => {}
            }
        }
        self.journaled = still;
        Ok(added)
    }

    /// Adds `late` unless an answer to its call is there already; what its text brings in
    /// joins the exposure.
    fn add_late(&mut self, late: LateResult) -> bool {
        if self
            .late
            .iter()
            .any(|known| known.reply.call_id == late.reply.call_id)
        {
            return false;
        }
        self.exposure.read(&late.reply.name, late.labels);
        self.late.push(late);
        true
    }

    /// The answers gathered and not yet delivered, each under its call's id: what the
    /// continue style sends as a follow-up (the format's `follow_up` writer, e.g.
    /// `consumer::openai_chat::follow_up`).
    pub fn late_results(&self) -> Vec<ToolReply> {
        self.late.iter().map(|late| late.reply.clone()).collect()
    }

    /// The held batch's results (the pause style), each call that was awaiting approval
    /// answered by its late result ([`Report::results_with_late`]), once none of its calls
    /// is still pending; `None` while one is, or when no batch is held.
    pub fn pause_results(&self) -> Option<Vec<ToolReply>> {
        let held = self.held.as_ref()?;
        if self.waits_on(held) {
            return None;
        }
        Some(held.results_with_late(&self.late_results()))
    }

    /// Whether a call of `report` that awaited approval is still pending.
    fn waits_on(&self, report: &Report) -> bool {
        self.pending
            .iter()
            .any(|pending| awaited(report, &pending.call_id))
    }

    /// Marks delivered, once the model has them: every gathered answer (its journal
    /// entry: [`Store::mark_delivered`]), every journaled call of the run that ended, and
    /// the held batch's calls once none of it is pending (the batch is released). Clears
    /// what it marked. While the held batch still waits, the answers to its calls stay
    /// gathered, unmarked: they go out with the batch.
    ///
    /// Returns the keys of gathered answers someone had marked already: answers the model
    /// has now been given twice. Only two copies of the run held at once cause it: another
    /// process resumed the run after this one did and before this one marked (this copy's
    /// save is then refused, [`RunError::Superseded`]), or a copy was used without
    /// [`Runs`]. Let one request of a conversation run at a time; the generation refuses
    /// the overlap, it cannot take back what was sent. (The run's own results the host
    /// marked itself, from [`Report::journaled_keys`], are not counted.)
    pub fn delivered<S: Store + ?Sized>(&mut self, store: &S) -> Result<Vec<String>, StoreError> {
        let at_ms = now_ms();
        let mut twice = Vec::new();
        // A gathered answer found marked was given by someone else too; the run's own
        // results may have been marked by the host itself (`Report::journaled_keys`).
        let mut mark = |key: &str, gathered: bool| -> Result<(), StoreError> {
            if !store.mark_delivered(key, at_ms)? && gathered {
                twice.push(key.to_owned());
            }
            Ok(())
        };
        let waiting = self.held.as_ref().filter(|held| self.waits_on(held));
        let mut kept = Vec::new();
        for late in &self.late {
            let held_back = waiting.is_some_and(|held| awaited(held, &late.reply.call_id));
            if held_back {
                kept.push(late.clone());
            } else if let Some(key) = &late.key {
                mark(key, true)?;
            }
        }
        self.late = kept;
        let mut still = Vec::new();
        for key in &self.journaled {
            match store.entry(key)? {
                Some(entry) if entry.in_doubt() => still.push(key.clone()),
                Some(_) => mark(key, false)?,
                None => {}
            }
        }
        self.journaled = still;
        if let Some(held) = &self.held
            && !self.waits_on(held)
        {
            for key in held.journaled_keys() {
                mark(key, false)?;
            }
            self.held = None;
        }
        Ok(twice)
    }
}

/// Whether `report` holds the call `call_id` awaiting approval (no outcome yet).
fn awaited(report: &Report, call_id: &str) -> bool {
    report
        .entries()
        .iter()
        .any(|entry| entry.outcome.is_none() && entry.call.id == call_id)
}

/// What the store shows of a pending call's proposal. An expired one is ended here, as a
/// decline whose answer is the expiry.
fn found_pending<S>(store: &S, call: &PendingCall) -> Result<Found, StoreError>
where
    S: Store + ?Sized,
{
    if let Some(found) = found_entry(store, call.proposal.as_str(), call.labels)? {
        return Ok(found);
    }
    // No journal entry: waiting, expired, or declined in a store that records no decline.
    let stored = stored_proposal(store, call)?;
    let expired = stored.resolution.is_none()
        && stored
            .proposal
            .expires_ms
            .is_some_and(|expires_ms| now_ms() >= expires_ms);
    if !expired {
        return Ok(declined_unrecorded(
            &stored,
            messages::declined("no reason was recorded"),
        ));
    }
    // Ended once, in the store: an approval racing the expiry either won (the call is
    // the approver's, and the journal shows it) or is refused from now on.
    let answer = ToolOutput::error(messages::EXPIRED);
    store.decline(&call.proposal, now_ms(), &answer)?;
    if let Some(found) = found_entry(store, call.proposal.as_str(), call.labels)? {
        return Ok(found);
    }
    let stored = stored_proposal(store, call)?;
    Ok(declined_unrecorded(&stored, messages::EXPIRED.to_owned()))
}

/// The stored proposal a pending call waits on; an error when the store does not have it.
fn stored_proposal<S>(store: &S, call: &PendingCall) -> Result<Stored, StoreError>
where
    S: Store + ?Sized,
{
    store.get(&call.proposal)?.ok_or_else(|| {
        StoreError::new(format!(
            "the run waits on the proposal {}, which the store does not have: \
             resume the run with the store its proposals were submitted to",
            call.proposal
        ))
    })
}

/// A proposal without a journal entry: its answer when the store says it was declined (a
/// store that records no decline), `why` being what the model reads; waiting otherwise.
fn declined_unrecorded(stored: &Stored, why: String) -> Found {
    match &stored.resolution {
        Some(resolution) if resolution.decision == Decision::Declined => {
            let mut reply = ToolReply::to(&stored.proposal.call, ToolOutput::error(why));
            reply.late = Some(Late::Approval);
            Found::Late(Box::new(LateResult {
                key: None,
                reply,
                labels: Labels::NONE,
                unanswered: false,
            }))
        }
        _ => Found::Waiting,
    }
}

/// What the journal shows of one of the run's own calls. Its text entered the run when
/// its report was recorded ([`Run::record`]), so giving it again brings nothing new in.
fn found_journaled<S: Store + ?Sized>(store: &S, key: &str) -> Result<Found, StoreError> {
    // A key the journal does not have has nothing to deliver.
    Ok(found_entry(store, key, Labels::NONE)?.unwrap_or(Found::Delivered))
}

/// The journal entry `key` as a [`Found`]; `None` when the journal has none. `labels` are
/// the tool's, for a result its handler wrote; a declined call's answer is toolset's.
/// Its reply says how it came to be late ([`JournalEntry::late_reply`](crate::store::JournalEntry::late_reply)).
fn found_entry<S: Store + ?Sized>(
    store: &S,
    key: &str,
    labels: Labels,
) -> Result<Option<Found>, StoreError> {
    let Some(entry) = store.entry(key)? else {
        return Ok(None);
    };
    if entry.in_doubt() {
        return Ok(Some(Found::Waiting));
    }
    if entry.delivered_at_ms.is_some() {
        return Ok(Some(Found::Delivered));
    }
    let reply = entry.late_reply().ok_or_else(|| {
        StoreError::new(format!(
            "the journaled result of {key} is not readable: the store was written by something else"
        ))
    })?;
    // A call that started wrote what the model reads (whatever way it ended: failing,
    // its words are still the tool's); a declined one never started.
    let labels = if entry.is_declined() {
        Labels::NONE
    } else {
        labels
    };
    Ok(Some(Found::Late(Box::new(LateResult {
        key: Some(key.to_owned()),
        reply,
        labels,
        unanswered: false,
    }))))
}

/// Why a run could not be saved or resumed. Nothing was written.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunError {
    /// The store has no run with this id.
    NotFound(RunId),
    /// The run moved on since this copy: it was saved or resumed elsewhere (a run resumed
    /// twice: the other resume won), or the copy is older than the stored one. It is
    /// refused, never replayed.
    Superseded {
        /// The generation of the refused copy (0: never saved; for
        /// [`Runs::resume_at`], the generation asked for).
        copy: u64,
        /// The generation stored now; `None` when the store has no copy.
        stored: Option<u64>,
    },
    /// The stored copy is older than the newest the store ever saved of the run (its
    /// mark, [`Store::newest_generation`]): a row put back whole, or a run whose mark
    /// is missing. It is refused, never replayed; put the newest copy back (from where
    /// the old one came, e.g. the backup it was restored from).
    RolledBack {
        /// The generation of the stored copy.
        copy: u64,
        /// The newest generation the store saved; `None` when it keeps no mark of the
        /// run.
        newest: Option<u64>,
    },
    /// The runs are sealed and the stored copy carries no seal: it was written (or its
    /// seal stripped) outside this host.
    Forged,
    /// The runs are sealed and the stored copy's seal does not match it (it was altered
    /// after this host sealed it, or sealed with another key), or the copy does not match
    /// its row (another run's copy, or another generation's).
    Altered,
    /// The stored copy is not a run this toolset reads.
    Unreadable(String),
    /// The store failed; nothing was written.
    Store(StoreError),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::NotFound(id) => write!(
                f,
                "no run {id} is stored: check the id, and that this host uses the store it was saved to"
            ),
            RunError::Superseded {
                copy,
                stored: Some(stored),
            } => write!(
                f,
                "the run was saved or resumed elsewhere since this copy (copy at generation {copy}, stored at {stored}): a run is resumed once and an old copy never replaces a newer one, so this one is refused; resume the newest copy"
            ),
            RunError::Superseded { copy, stored: None } => write!(
                f,
                "the store has no copy of the run, but this copy (generation {copy}) was saved before: the run was removed or this is another store; it is refused"
            ),
            RunError::RolledBack {
                copy,
                newest: Some(newest),
            } => write!(
                f,
                "the stored run is an old copy put back (generation {copy}, but the store saved generation {newest} of it): an old copy is never replayed, so it is refused; put the newest copy back"
            ),
            RunError::RolledBack { copy, newest: None } => write!(
                f,
                "the stored run (generation {copy}) has no mark of the newest generation the store saved, so it cannot be told from an old copy put back; it is refused: restore the store's toolset_run_marks with its runs"
            ),
            RunError::Forged => f.write_str(
                "the stored run carries no seal of this host's key: it was written or altered elsewhere, and is refused",
            ),
            RunError::Altered => f.write_str(
                "the stored run was altered: it is not what this host sealed (or was sealed with another key), or it is another run's or another generation's copy; it is refused",
            ),
            RunError::Unreadable(why) => {
                write!(f, "the stored run is not readable: {why}")
            }
            RunError::Store(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RunError::Store(error) => Some(error),
            _ => None,
        }
    }
}

impl From<StoreError> for RunError {
    fn from(error: StoreError) -> Self {
        RunError::Store(error)
    }
}

/// Where a host's runs are saved and resumed: a [`Store`] and an optional [`SealKey`].
///
/// [`save`](Self::save) writes a run over the generation it was loaded at, and only then
/// (raising its generation); [`resume`](Self::resume) claims the newest copy (a save of it,
/// one generation up), so two processes resuming one copy cannot both go on, and a copy
/// from before a resume or a save is refused ([`RunError::Superseded`]). Sealed with a key
/// ([`sealed_with`](Self::sealed_with)), every copy written carries an HMAC of its id and
/// its exact JSON, and a copy without it, or altered, or sealed with another key, is
/// refused. Use a key whenever someone other than this host can write the store (the same
/// key as the [`Approvals`](crate::Approvals)' is fine: a run's seal can never pass for a
/// proposal's).
///
/// What a seal cannot tell: a whole row put back as it was (the run, its seal and its
/// generation) by someone with write access. The store's mark can: each save raises the
/// run's mark, kept apart from its row ([`Store::newest_generation`]), and a copy below
/// it is refused ([`RunError::RolledBack`]). What neither can tell: the rows and the marks
/// put back together, a whole database restored from a backup; keep the store's backups
/// where only the host can restore them.
///
/// A conversation in the continue style, over three requests that could each run in
/// another process (the store a `SqliteStore` or a `PostgresStore` then):
///
/// ```
/// use toolset::prelude::*;
/// use toolset::store::MemoryStore;
/// use toolset::{Approvals, Autonomy, ToolCall, tool, toolset};
/// use toolset::approval::Approved;
/// use toolset::request::Request;
/// use toolset::run::{Run, Runs};
/// # use toolset::ToolContext;
///
/// /// Send an email.
/// #[tool(tier = "irreversible")]
/// async fn send(/// Who to.
///     to: String) -> String { format!("sent to {to}") }
///
/// toolset! { Mail = [send]; }
///
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let store = MemoryStore::new();
/// let (approvals, runs) = (Approvals::new(&store), Runs::new(&store));
/// let policy = Mail::policy(Autonomy::ReadOnly);
/// # let ctx = ToolContext::default();
///
/// // 1. The model calls `send`: the call is proposed, the run waits on it.
/// let mut run = Run::new();
/// let request = Request::new(&policy).activated(run.activations()).exposure(run.exposure());
/// let plan = request.gate([ToolCall::new("c1", "send", r#"{"to":"ann"}"#)])?;
/// for proposal in plan.proposals() {
///     approvals.submit(proposal)?;
///     run.await_approval(proposal);
/// }
/// let report = Mail::apply_journaled(&mut (), &ctx, plan, &store).await;
/// run.record(&report);
/// // … send `report.results()` to the model ("awaiting approval"), then:
/// run.delivered(&store)?;
/// runs.save(&mut run)?;
///
/// // 2. A human approves, and the call runs, journaled.
/// let id = run.pending()[0].proposal.clone();
/// let reviewed = approvals.pending(&id)?.reviewed();
/// let Approved::Run(call) = approvals.approve(&reviewed, &Request::new(&policy))? else {
///     unreachable!("send has a handler")
/// };
/// call.apply(&mut (), &ctx).await; // its end journaled in the store that approved it
///
/// // 3. The next request resumes the run and gives the model the late result, once.
/// let mut run = runs.resume(run.id())?;
/// run.collect(&store)?;
/// let late = run.late_results();
/// assert_eq!(late[0].call_id, "c1");
/// assert_eq!(late[0].output.text_content(), "sent to ann");
/// let _message = toolset::consumer::openai_chat::follow_up(&late);
/// run.delivered(&store)?;
/// runs.save(&mut run)?;
/// assert!(run.pending().is_empty() && run.late().is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Runs<S: Store> {
    store: S,
    key: Option<SealKey>,
}

impl<S: Store> Runs<S> {
    /// Runs kept in `store`, unsealed.
    pub fn new(store: S) -> Self {
        Runs { store, key: None }
    }

    /// Seals every copy written with `key`, and refuses any copy read that is not sealed
    /// with it.
    pub fn sealed_with(mut self, key: SealKey) -> Self {
        self.key = Some(key);
        self
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Saves `run` over the copy it was loaded at (or as a new run, at generation 0), and
    /// raises its generation. Refused with [`RunError::Superseded`] when the stored
    /// generation is another: the run was saved or resumed elsewhere since (this copy is
    /// stale), or, for a new run, its id is taken. `run` is unchanged when refused.
    pub fn save(&self, run: &mut Run) -> Result<(), RunError> {
        let expected = (run.generation > 0).then_some(run.generation);
        let mut copy = run.clone();
        copy.generation = run.generation.saturating_add(1);
        let json = serde_json::to_string(&copy)
            .map_err(|error| RunError::Unreadable(format!("it does not serialize: {error}")))?;
        let seal = self
            .key
            .as_ref()
            .map(|key| key.seal_run(copy.id.as_str(), &json));
        let stored = StoredRun::new(copy.id.clone(), copy.generation, json, seal);
        match self.store.save_run(&stored, expected)? {
            SaveRunOutcome::Saved => {
                run.generation = copy.generation;
                Ok(())
            }
            SaveRunOutcome::Conflict { stored } => Err(RunError::Superseded {
                copy: run.generation,
                stored,
            }),
        }
    }

    /// The newest copy of the run `id`, its seal checked, *not* claimed: to look at. A
    /// save of it succeeds only if nobody saved or resumed the run since; to go on with
    /// the conversation, [`resume`](Self::resume) it.
    ///
    /// A copy older than the newest the store saved (a row put back whole) is refused with
    /// [`RunError::RolledBack`].
    pub fn load(&self, id: &RunId) -> Result<Run, RunError> {
        // The mark first: a save between the two reads raises the row too, never above it.
        let newest = self.store.newest_generation(id)?;
        let stored = self
            .store
            .load_run(id)?
            .ok_or_else(|| RunError::NotFound(id.clone()))?;
        if newest.is_none_or(|newest| stored.generation < newest) {
            return Err(RunError::RolledBack {
                copy: stored.generation,
                newest,
            });
        }
        self.open(id, &stored)
    }

    /// Claims the newest copy of the run `id`: checks it (seal, id, generation) and saves
    /// it one generation up, so every other copy is stale from now on. Of two processes
    /// resuming the same copy, one gets it, and the other
    /// [`RunError::Superseded`]. Then [`collect`](Run::collect) the answers that came in.
    pub fn resume(&self, id: &RunId) -> Result<Run, RunError> {
        let mut run = self.load(id)?;
        self.save(&mut run)?;
        Ok(run)
    }

    /// [`resume`](Self::resume), only if the newest copy is at `generation` (the copy the
    /// host handed out, e.g. with the page the human answers): a copy resumed or saved
    /// since, or an older one, is refused with [`RunError::Superseded`].
    pub fn resume_at(&self, id: &RunId, generation: u64) -> Result<Run, RunError> {
        let mut run = self.load(id)?;
        if run.generation != generation {
            return Err(RunError::Superseded {
                copy: generation,
                stored: Some(run.generation),
            });
        }
        self.save(&mut run)?;
        Ok(run)
    }

    /// The run a stored copy holds, checked: its seal (when sealed), that it is the run
    /// `id` at the row's generation.
    fn open(&self, id: &RunId, stored: &StoredRun) -> Result<Run, RunError> {
        if let Some(key) = &self.key {
            let Some(seal) = stored.seal.as_deref() else {
                return Err(RunError::Forged);
            };
            if !key.verifies_run(seal, id.as_str(), &stored.run) {
                return Err(RunError::Altered);
            }
        }
        let run: Run = serde_json::from_str(&stored.run)
            .map_err(|error| RunError::Unreadable(error.to_string()))?;
        if run.id != *id || stored.id != *id || run.generation != stored.generation {
            return Err(RunError::Altered);
        }
        Ok(run)
    }
}
