//! The conversation driver: the tool side of a conversation, in the right order, by
//! construction.
//!
//! Every guarantee of the pipeline holds only when its pieces are called in order, on every
//! request and on every resume: compose the request from the run (activations, exposure),
//! gate the whole program, submit each proposal and wait on it, apply with the journal,
//! record what the calls read, answer every call id once in the chosen style, mark what
//! was sent delivered, save the run; and before the next request, gather what humans and
//! other processes decided meanwhile. A [`Driver`] owns that sequence for a set (and its
//! toolbox) over one store; a host supplies the model's responses and the state, and never
//! sequences the pieces. The pieces stay public for hosts that need them.
//!
//! One place reaches the model: every text a [`Conversation`] hands the host for the model
//! ([`NextRequest::messages`], [`Turn::messages`]) has entered the run's exposure first
//! (`Run::record`, `Run::hold`, `Run::collect`), so the next gate of the run sees what the
//! model has read.

use crate::approval::ApprovalError;
use crate::approval::Reviewed;
use crate::approval::{Approvals, Approved, Handoff};
use crate::call::ToolCall;
use crate::consumer::Format;
use crate::consumer::error::ProviderError;
use crate::consumer::{anthropic, gemini, openai_chat, openai_responses};
use crate::context::ToolContext;
use crate::digest::SealKey;
use crate::messages;
use crate::outcome::Outcome;
use crate::output::ToolReply;
use crate::policy::{Policy, PolicyNameError};
use crate::proposal::{Proposal, ProposalId, now_ms};
use crate::report::Report;
use crate::request::Request;
use crate::run::{DEFAULT_RETRIES, LateResult, Run, RunError, Runs};
use crate::set::ToolSet;
use crate::store::{EndOutcome, JournalEntry, ProposalLimits, RunId, Store, StoreError};
use crate::toolbox::Toolbox;
use serde_json::Value;
use std::fmt;
use std::time::Duration;

/// How the model is told about a call that waits for a human.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    /// Answer "awaiting approval" now and let the conversation go on; the real result
    /// comes later, as a follow-up message before a next request.
    #[default]
    Continue,
    /// Answer nothing for the batch until every call of it has its answer: the model's
    /// next request waits for the human, then gets the whole batch at once, each call
    /// under its own id.
    Pause,
}

/// The tool side of conversations with one set (and its toolbox) over one store: every
/// request's tools, the model's calls gated as one program, proposals submitted, calls
/// applied with the effect journal, every call answered once in the chosen [`Style`],
/// each conversation's [`Run`] saved; and the human's side (approve, decline), whose
/// answers reach the model once, in whatever process the conversation goes on.
///
/// `S` is a store of proposals, journal and runs: [`MemoryStore`](crate::MemoryStore),
/// `SqliteStore`, `PostgresStore` (or a reference to one).
///
/// ```
/// use toolset::prelude::*;
/// use toolset::consumer::Format;
/// use toolset::{Autonomy, Driver, MemoryStore, ToolContext, tool, toolset};
/// use serde_json::json;
///
/// /// Look a word up.
/// #[tool(tier = "read_only")]
/// async fn define(/// The word.
///     word: String) -> String { format!("{word}: a word") }
///
/// toolset! { Words = [define]; }
///
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let driver = Driver::new(Words::policy(Autonomy::ReadOnly), MemoryStore::new())
///     .format(Format::OpenAiChat);
/// let mut conversation = driver.start()?;
/// let next = conversation.next_request()?;   // tools to send, messages to append first
/// assert!(next.tools.contains("define"));
/// // … the host calls the model with `next.tools`; the model answers:
/// let response = json!({"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
///     "function": {"name": "define", "arguments": "{\"word\":\"tool\"}"}}]});
/// let turn = conversation.respond(&response, &mut (), &ToolContext::default()).await?;
/// assert_eq!(turn.messages[0][0]["content"], "tool: a word"); // `role: "tool"` messages
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Driver<T: ToolSet, S> {
    toolbox: Toolbox<T>,
    policy: Policy<T>,
    store: S,
    key: Option<SealKey>,
    lifetime: Option<Duration>,
    style: Style,
    format: Format,
    lease: Duration,
    retries: u32,
    limits: ProposalLimits,
}

impl<T: ToolSet, S> fmt::Debug for Driver<T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Driver")
            .field("set", &T::NAME)
            .field("style", &self.style)
            .field("format", &self.format)
            .field("lease", &self.lease)
            .field("retries", &self.retries)
            .finish_non_exhaustive()
    }
}

/// How long a request holds its conversation unless the host says otherwise
/// ([`Driver::lease`]).
const DEFAULT_LEASE: Duration = Duration::from_secs(600);

impl<T: ToolSet, S: Store> Driver<T, S> {
    /// A driver for the set's tools under `policy`, keeping proposals, the journal and
    /// runs in `store`. OpenAI Chat, the continue style, unsealed, proposals that never
    /// expire, a request holding its conversation for at most ten minutes, three retries
    /// per tool and run: change them with the builder methods.
    pub fn new(policy: Policy<T>, store: S) -> Self {
        Driver {
            toolbox: Toolbox::new(),
            policy,
            store,
            key: None,
            lifetime: None,
            style: Style::Continue,
            format: Format::OpenAiChat,
            lease: DEFAULT_LEASE,
            retries: DEFAULT_RETRIES,
            limits: ProposalLimits::default(),
        }
    }

    /// Offers `toolbox`'s runtime tools too. Refused when the policy names a runtime tool
    /// the toolbox does not have (a misspelled name never leaves a tool unrestricted).
    pub fn with_toolbox(mut self, toolbox: Toolbox<T>) -> Result<Self, PolicyNameError> {
        toolbox.request(&self.policy)?;
        self.toolbox = toolbox;
        Ok(self)
    }

    /// The provider format the model speaks: OpenAI Chat or Responses, Anthropic or
    /// Gemini. (MCP clients are served by `McpServer`, prompt text has no calls.)
    pub fn format(mut self, format: Format) -> Self {
        self.format = format;
        self
    }

    /// How the model is told about a call that waits for a human.
    pub fn style(mut self, style: Style) -> Self {
        self.style = style;
        self
    }

    /// Seals proposals and runs with `key`, refusing any copy not sealed with it: for a
    /// store others can write.
    pub fn sealed_with(mut self, key: SealKey) -> Self {
        self.key = Some(key);
        self
    }

    /// Proposals can be approved for `lifetime`; afterwards they end, like a decline.
    pub fn expiring_after(mut self, lifetime: Duration) -> Self {
        self.lifetime = Some(lifetime);
        self
    }

    /// The most proposals the store may hold for one conversation and for all
    /// ([`ProposalLimits`], counted per run). When a response's calls that need a human
    /// would go beyond, none of them is proposed: each is answered that too many calls
    /// wait for the user ("Not run: …"), and the rest of the response runs as it would.
    pub fn limited_to(mut self, limits: ProposalLimits) -> Self {
        self.limits = limits;
        self
    }

    /// How long one request may hold its conversation: a second request of the same
    /// conversation is refused ([`DriverError::Busy`]) until the first ends or this much
    /// time has passed since it began (a process that died holding it).
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }

    /// How many times a tool's handler may ask the model to retry
    /// ([`ToolError::retry`](crate::ToolError::retry)) within one conversation; the next
    /// retry fails the call with a message saying the limit.
    pub fn retries(mut self, retries: u32) -> Self {
        self.retries = retries;
        self
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// The policy in force: what the agent may do alone, and what it may not do at all.
    pub fn policy(&self) -> &Policy<T> {
        &self.policy
    }

    /// The approvals over the store, for what the driver does not do itself (listing and
    /// showing proposals; [`Approvals::pending`]).
    pub fn approvals(&self) -> Approvals<&S> {
        let approvals = Approvals::new(&self.store).limited_to(self.limits);
        let approvals = match &self.key {
            Some(key) => approvals.sealed_with(key.clone()),
            None => approvals,
        };
        match self.lifetime {
            Some(lifetime) => approvals.expiring_after(lifetime),
            None => approvals,
        }
    }

    /// The runs over the store.
    fn runs(&self) -> Runs<&S> {
        let runs = Runs::new(&self.store);
        match &self.key {
            Some(key) => runs.sealed_with(key.clone()),
            None => runs,
        }
    }

    /// A new conversation, saved.
    pub fn start(&self) -> Result<Conversation<'_, T, S>, DriverError> {
        self.start_with_id(RunId::random())
    }

    /// A new conversation under the host's own id, saved; refused when the id is taken.
    pub fn start_with_id(&self, id: RunId) -> Result<Conversation<'_, T, S>, DriverError> {
        let mut run = Run::with_id(id);
        self.runs().save(&mut run)?;
        Ok(Conversation {
            driver: self,
            run,
            prepared: false,
        })
    }

    /// Goes on with the conversation `id`, in this process or any other: claims its newest
    /// copy, so every other copy is stale. Refused while another request holds it
    /// ([`DriverError::Busy`]), and for a copy altered, forged or superseded.
    pub fn resume(&self, id: &RunId) -> Result<Conversation<'_, T, S>, DriverError> {
        let runs = self.runs();
        let mut run = runs.load(id)?;
        if let Some(until_ms) = run.leased_until_ms()
            && now_ms() < until_ms
        {
            return Err(DriverError::Busy { until_ms });
        }
        // Claimed by a save over the generation loaded: of two resumes, one wins.
        run.lease(None);
        runs.save(&mut run)?;
        Ok(Conversation {
            driver: self,
            run,
            prepared: false,
        })
    }

    /// The proposal `id`, checked as approving would, to show the human with
    /// [`preview`](Self::preview).
    pub fn pending(&self, id: &ProposalId) -> Result<Proposal, ApprovalError> {
        self.approvals().pending(id)
    }

    /// The tool's preview of what the proposal's call would do, computed now from its
    /// arguments (a runtime tool's too).
    pub fn preview(&self, proposal: &Proposal) -> Option<String> {
        self.toolbox.preview(proposal)
    }

    /// The human approves what they reviewed: checked again under the policy and toolbox
    /// in force (as [`Approvals::approve`] checks it), run once against `state`, its end
    /// journaled; its result reaches the model once, in the conversation that made the
    /// call, at its next request (wherever it goes on). A tool without a handler is handed
    /// to the host instead, and the model told it was.
    pub async fn approve(
        &self,
        reviewed: &Reviewed,
        state: &mut T::State,
        ctx: &ToolContext,
    ) -> Result<Resolved<T>, DriverError> {
        let approvals = self.approvals();
        let request = self.toolbox.request(&self.policy)?;
        let resolved = match approvals.approve(reviewed, &request)? {
            Approved::Run(call) => Resolved::Ran(call.apply(state, ctx).await),
            Approved::Handoff(handoff) => Resolved::HandedOff(handoff),
        };
        Ok(resolved)
    }

    /// The human declines what they reviewed, with a reason the model is told, once, in the
    /// conversation that made the call, at its next request.
    pub fn decline(&self, reviewed: &Reviewed, reason: &str) -> Result<(), DriverError> {
        self.approvals().decline(reviewed, reason)?;
        Ok(())
    }

    /// The human decides a call in doubt (started, never ended: a crash cut it off), as
    /// the journal listed it ([`Store::in_doubt`]), once: its effect happened
    /// ([`Verdict::Done`]), it did not ([`Verdict::Failed`]), or run it again under the same
    /// idempotency key ([`Verdict::Rerun`]: checked again first, under the policy and
    /// toolbox in force, as [`Approvals::rerun`] checks it, then run against `state`).
    /// Refused ([`ApprovalError::NotInDoubt`]) when the journal no longer shows it in doubt
    /// as listed (decided elsewhere, or re-run since). Returns what the model will be
    /// told, late, at the next request of the conversation that made the call, and the
    /// re-run's report.
    pub async fn resolve_in_doubt(
        &self,
        entry: &JournalEntry,
        verdict: Verdict,
        state: &mut T::State,
        ctx: &ToolContext,
    ) -> Result<Settled, DriverError> {
        let store = &self.store;
        let not_in_doubt = || DriverError::Approval(ApprovalError::NotInDoubt(entry.key.clone()));
        let now = store.entry(&entry.key)?.ok_or_else(not_in_doubt)?;
        if !now.in_doubt() || now.rerun || now.attempts != entry.attempts {
            return Err(not_in_doubt());
        }
        let mut report = None;
        let ended = match verdict {
            Verdict::Done => store.mark_done(&entry.key, now_ms())?,
            Verdict::Failed => store.mark_failed(&entry.key, now_ms())?,
            Verdict::Rerun => {
                let approvals = self.approvals();
                let request = self.toolbox.request(&self.policy)?;
                // A handed-off call was ended in the journal as handed to the host.
                if let Approved::Run(call) = approvals.rerun(&now, &request)? {
                    report = Some(call.apply(state, ctx).await);
                }
                EndOutcome::Ended
            }
        };
        if ended != EndOutcome::Ended {
            return Err(not_in_doubt());
        }
        let told = store
            .entry(&entry.key)?
            .and_then(|entry| entry.late_reply())
            .ok_or_else(not_in_doubt)?;
        Ok(Settled { told, report })
    }

    /// The conversation `id` as its next request would find it, read without claiming it
    /// (for a review screen): its saved copy, checked as [`resume`](Self::resume) checks
    /// it, with what was decided since gathered ([`Run::collect`]: what still waits,
    /// the late results the model gets next, what they bring into its exposure). Never
    /// saved back; the only write is the one `collect` makes of any proposal expired by
    /// now, which it ends as declined.
    pub fn run(&self, id: &RunId) -> Result<Run, DriverError> {
        let mut run = self.runs().load(id)?;
        run.collect(&self.store)?;
        Ok(run)
    }
}

/// What deciding a call in doubt did ([`Driver::resolve_in_doubt`]).
#[derive(Debug)]
#[non_exhaustive]
pub struct Settled {
    /// What the model will be told, late, under the call's id (the run delivers it once).
    pub told: ToolReply,
    /// The re-run's report, when the call ran again ([`Verdict::Rerun`] of a tool with a
    /// handler).
    pub report: Option<Report>,
}

/// What a human decides for a call in doubt ([`Driver::resolve_in_doubt`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Its effect happened: end it as done; the model reads that it ran and its result was
    /// lost.
    Done,
    /// Its effect did not happen: end it as failed; the model reads that it did not
    /// complete.
    Failed,
    /// Run it again under the same idempotency key, checked again first.
    Rerun,
}

impl Verdict {
    /// `done`, `failed` or `rerun`.
    pub fn parse(text: &str) -> Option<Verdict> {
        match text {
            "done" => Some(Verdict::Done),
            "failed" => Some(Verdict::Failed),
            "rerun" => Some(Verdict::Rerun),
            _ => None,
        }
    }
}

/// What a human's approval did.
#[derive(Debug)]
#[non_exhaustive]
#[allow(
    clippy::large_enum_variant,
    reason = "one value per human approval, matched on at once: a box would cost every \
              host a deref in its pattern and save nothing measurable"
)]
pub enum Resolved<T: ToolSet> {
    /// The call ran: its report (the model gets its result at the conversation's next
    /// request).
    Ran(Report),
    /// A propose-only tool (no handler): the call, for the host to carry out.
    HandedOff(Handoff<T>),
}

/// One conversation, as a request of it sees it: its [`Run`], claimed for this process.
/// Call [`next_request`](Self::next_request) before each model request and
/// [`respond`](Self::respond) with each model response.
pub struct Conversation<'d, T: ToolSet, S> {
    driver: &'d Driver<T, S>,
    run: Run,
    /// Whether `next_request` was called since the last response: a response to a
    /// request the driver did not prepare could answer calls to tools it never offered,
    /// or skip late results the model should have read.
    prepared: bool,
}

impl<T: ToolSet, S> fmt::Debug for Conversation<'_, T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Conversation")
            .field("run", &self.run)
            .field("prepared", &self.prepared)
            .finish_non_exhaustive()
    }
}

/// What to send the model next.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct NextRequest {
    /// Messages to append to the conversation before the request, in order: late results
    /// (continue style: one follow-up; pause style: the held batch's answers, each call
    /// under its id). A call left unanswered in its turn (an async tool's call withheld
    /// for a human, OpenAI Responses: see [`Turn::messages`]) gets its own result instead,
    /// under its id, before any follow-up. Each was marked delivered, and its text entered
    /// the run's exposure.
    pub messages: Vec<Value>,
    /// The request's tools, as JSON text in the format's shape (what the policy offers,
    /// with the conversation's activations).
    pub tools: String,
    /// Pause style: a batch waits for a human, so there is nothing to send the model yet
    /// (call [`Conversation::next_request`] again once a human decided).
    pub waiting: bool,
}

/// What one model response came to.
#[derive(Debug)]
#[non_exhaustive]
pub struct Turn {
    /// Messages to append to the conversation, in the format's shape: the results of the
    /// response's calls (every call id answered once; a rejected program's every call
    /// answered with the problems). Empty when the response made no calls, and in the
    /// pause style while a call of the batch waits for a human.
    ///
    /// On OpenAI Responses, a call of a tool with a late result (`#[tool(late_result)]`,
    /// rendered `"async": true`) withheld for a human is not answered here at all, in
    /// either style (no "awaiting approval"): the model does not wait for it, and its one
    /// `function_call_output`, under its call id, comes with the first
    /// [`NextRequest::messages`] after the human decided. Such calls alone hold no batch
    /// in the pause style.
    pub messages: Vec<Value>,
    /// The calls proposed to a human, submitted to the store (show them, with
    /// [`Driver::preview`], and act with [`Driver::approve`] or [`Driver::decline`]).
    pub proposals: Vec<Proposal>,
    /// Whether the gate rejected the whole program (nothing ran).
    pub rejected: bool,
    /// Whether the response made tool calls (none: the model's final answer).
    pub called: bool,
    /// The report of what ran, when something was applied.
    pub report: Option<Report>,
}

impl<T: ToolSet, S: Store> Conversation<'_, T, S> {
    /// The conversation's id: resume it with [`Driver::resume`].
    pub fn id(&self) -> &RunId {
        self.run.id()
    }

    /// The conversation's tool state, as saved.
    pub fn run(&self) -> &Run {
        &self.run
    }

    /// The request a model call of this conversation is composed from: the policy, the
    /// toolbox, the run's activations, exposure and history, the format.
    pub fn request(&self) -> Result<Request<'_, T>, DriverError> {
        Ok(self
            .driver
            .toolbox
            .request(&self.driver.policy)?
            .format(self.driver.format)
            .activated(self.run.activations())
            .exposure(self.run.exposure())
            .history_of(self.run.history()))
    }

    /// Prepares the next model request: gathers what was decided since (approvals run
    /// elsewhere, declines, expiries) into the messages to append first, marks them
    /// delivered, saves the run, and gives the tools to send. Call it before every model
    /// request, the first included.
    pub fn next_request(&mut self) -> Result<NextRequest, DriverError> {
        let store = &self.driver.store;
        self.run.collect(store)?;
        let mut messages = Vec::new();
        let mut waiting = false;
        match self.driver.style {
            Style::Continue => {
                // A held batch only exists in the pause style; late results go as one
                // follow-up, but a call never answered gets its own result.
                messages.extend(late_messages(self.driver.format, self.run.late())?);
            }
            Style::Pause => match self.run.pause_results() {
                Some(results) => {
                    messages.push(results_message(self.driver.format, &results)?);
                    // A call of an earlier turn left unanswered (a tool with a late result)
                    // is answered beside the batch, by its own result.
                    let held = self.run.held();
                    let late = self.run.late().iter().filter(|late| {
                        late.unanswered
                            && !held.is_some_and(|held| {
                                held.entries()
                                    .iter()
                                    .any(|entry| entry.call.id == late.reply.call_id)
                            })
                    });
                    messages.extend(late_messages(self.driver.format, late)?);
                }
                None if self.run.held().is_some() => waiting = true,
                None => {
                    // No batch held: what came late answers calls of earlier turns.
                    messages.extend(late_messages(self.driver.format, self.run.late())?);
                }
            },
        }
        self.run.delivered(store)?;
        self.driver.runs().save(&mut self.run)?;
        self.prepared = !waiting;
        let tools = self.request()?.tool_list();
        Ok(NextRequest {
            messages,
            tools,
            waiting,
        })
    }

    /// Reads the model's `response` (a message or response body in the driver's format),
    /// gates its calls as one program, submits what needs a human, applies the rest to
    /// `state` with the journal, and answers every call once. See
    /// [`respond_calls`](Self::respond_calls).
    pub async fn respond(
        &mut self,
        response: &Value,
        state: &mut T::State,
        ctx: &ToolContext,
    ) -> Result<Turn, DriverError> {
        let calls = calls(self.driver.format, response)?;
        self.respond_calls(calls, state, ctx).await
    }

    /// [`respond`](Self::respond) for calls read already (a streamed response assembled
    /// with [`toolset::stream`](crate::stream)).
    ///
    /// Holds the conversation while it runs (a second request of it, here or elsewhere, is
    /// refused: [`DriverError::Busy`]), and refuses before anything runs when this copy of
    /// the run is stale. Every call is answered once: a rejected program with its
    /// problems, a proposed call "awaiting approval" (continue style) or not until the
    /// human decided (pause style), the rest with their outcomes. What the calls brought
    /// in joins the run's exposure before the answers are handed out, and the run is saved
    /// with them marked delivered.
    pub async fn respond_calls(
        &mut self,
        calls: Vec<ToolCall>,
        state: &mut T::State,
        ctx: &ToolContext,
    ) -> Result<Turn, DriverError> {
        if !self.prepared {
            return Err(DriverError::NotPrepared);
        }
        self.prepared = false;
        let runs = self.driver.runs();
        if calls.is_empty() {
            return Ok(Turn {
                messages: Vec::new(),
                proposals: Vec::new(),
                rejected: false,
                called: false,
                report: None,
            });
        }
        // Held before anything runs: a stale copy is refused here, and a concurrent
        // resume is refused while this request holds the run.
        let lease = u64::try_from(self.driver.lease.as_millis()).unwrap_or(u64::MAX);
        self.run.lease(Some(now_ms().saturating_add(lease)));
        runs.save(&mut self.run)?;
        let turn = self.run_program(calls, state, ctx).await;
        self.run.lease(None);
        let turn = turn?;
        self.run.delivered(&self.driver.store)?;
        runs.save(&mut self.run)?;
        Ok(turn)
    }

    /// Gates, submits, applies and records one program; the run not yet saved.
    async fn run_program(
        &mut self,
        calls: Vec<ToolCall>,
        state: &mut T::State,
        ctx: &ToolContext,
    ) -> Result<Turn, DriverError> {
        let driver = self.driver;
        // In the transcript from now on, whatever the gate says of them.
        self.run.called(&calls);
        let gated = self.request()?.gate(calls);
        let plan = match gated {
            Ok(plan) => plan,
            Err(rejected) => {
                let message = results_message(driver.format, &rejected.results())?;
                return Ok(Turn {
                    messages: vec![message],
                    proposals: Vec::new(),
                    rejected: true,
                    called: true,
                    report: None,
                });
            }
        };
        let approvals = driver.approvals();
        // A call the run waits on already (the same response sent again after a host died)
        // is not proposed twice: two approvals of one call would run it twice.
        let proposals: Vec<Proposal> = plan
            .proposals()
            .iter()
            .filter(|proposal| {
                !self.run.pending().iter().any(|pending| {
                    pending.call_id == proposal.call().id && pending.tool == proposal.call().name
                })
            })
            .cloned()
            .collect();
        // A response is proposed whole or not at all. When the store holds as many as its
        // limits allow, none is stored, and each is answered that it was not put to the
        // user; the rest of the response runs as it would.
        let submitted = if proposals.is_empty() {
            Ok(Vec::new())
        } else {
            approvals.submit_all_for(self.run.id().as_str(), &proposals)
        };
        let (proposals, unproposed) = match submitted {
            Ok(_) => (proposals, Vec::new()),
            Err(error) if error.is_full() => {
                tracing::warn!(run = %self.run.id(), "calls not proposed: {error}");
                (Vec::new(), proposals)
            }
            Err(error) => return Err(error.into()),
        };
        for proposal in &proposals {
            self.run.await_approval(proposal);
        }
        if !proposals.is_empty() {
            // The run waits on them before anything runs: a process dying from here on
            // leaves a run that gathers their answers.
            driver.runs().save(&mut self.run)?;
        }
        // OpenAI Responses' async tools (`late_result`): the model does not wait for their
        // output, so a withheld call of one is left unanswered until the human decided.
        let late_ids: Vec<String> = if driver.format == Format::OpenAiResponses {
            plan.calls()
                .iter()
                .zip(plan.specs())
                .filter(|(_, spec)| spec.is_some_and(|spec| spec.has_late_result()))
                .map(|(call, _)| call.id.clone())
                .collect()
        } else {
            Vec::new()
        };
        let journal: &dyn Store = &driver.store;
        let run = Some(self.run.id().as_str());
        let mut report = crate::apply::apply_journaled(state, ctx, plan, Some(journal), run).await;
        self.run.cap_retries(&mut report, driver.retries);
        for entry in report.entries_mut() {
            let unanswered = entry.outcome.is_none()
                && unproposed
                    .iter()
                    .any(|proposal| proposal.call().id == entry.call.id);
            if unanswered {
                entry.outcome = Some(Outcome::Refused {
                    reason: messages::NOT_PROPOSED_FULL.to_owned(),
                });
            }
        }
        // The pause style holds the batch for a call the model waits on; a call of an async
        // tool it does not wait on.
        let hold = driver.style == Style::Pause
            && proposals
                .iter()
                .any(|proposal| !late_ids.contains(&proposal.call().id));
        let messages = if hold {
            self.run.hold(report.clone());
            Vec::new()
        } else {
            self.run.record(&report);
            let mut results = Vec::new();
            for (result, entry) in report.results().into_iter().zip(report.entries()) {
                if entry.outcome.is_none() && late_ids.contains(&entry.call.id) {
                    // No placeholder: its one answer is its own output, once decided.
                    self.run.leave_unanswered(&entry.call.id);
                } else {
                    results.push(result);
                }
            }
            if results.is_empty() {
                Vec::new()
            } else {
                vec![results_message(driver.format, &results)?]
            }
        };
        Ok(Turn {
            messages,
            proposals,
            rejected: false,
            called: true,
            report: Some(report),
        })
    }
}

/// The calls of a response in `format`.
fn calls(format: Format, response: &Value) -> Result<Vec<ToolCall>, DriverError> {
    let calls = match format {
        Format::OpenAiChat => openai_chat::calls(response),
        Format::OpenAiResponses => openai_responses::calls(response),
        Format::Anthropic => anthropic::calls(response),
        Format::Gemini => gemini::calls(response),
        other => return Err(DriverError::Format(other)),
    };
    Ok(calls?)
}

/// One batch's results as the message(s) `format` sends them in.
fn results_message(format: Format, results: &[ToolReply]) -> Result<Value, DriverError> {
    match format {
        Format::OpenAiChat => Ok(openai_chat::results(results)),
        Format::OpenAiResponses => Ok(openai_responses::results(results)),
        Format::Anthropic => Ok(anthropic::results(results)),
        Format::Gemini => Ok(gemini::results(results)),
        other => Err(DriverError::Format(other)),
    }
}

/// The late results `late` as the messages `format` sends them in: the calls the model was
/// never answered ([`LateResult::unanswered`]: OpenAI Responses' async tools) by their own
/// results, under their ids, then the rest as one follow-up about them. Nothing when
/// `late` is empty.
fn late_messages<'a>(
    format: Format,
    late: impl IntoIterator<Item = &'a LateResult>,
) -> Result<Vec<Value>, DriverError> {
    let (mut own, mut about) = (Vec::new(), Vec::new());
    for late in late {
        let list = if late.unanswered {
            &mut own
        } else {
            &mut about
        };
        list.push(late.reply.clone());
    }
    let mut messages = Vec::new();
    if !own.is_empty() {
        messages.push(results_message(format, &own)?);
    }
    if !about.is_empty() {
        messages.push(follow_up(format, &about)?);
    }
    Ok(messages)
}

/// Late results as `format`'s follow-up message.
fn follow_up(format: Format, late: &[ToolReply]) -> Result<Value, DriverError> {
    match format {
        Format::OpenAiChat => Ok(openai_chat::follow_up(late)),
        Format::OpenAiResponses => Ok(openai_responses::follow_up(late)),
        Format::Anthropic => Ok(anthropic::follow_up(late)),
        Format::Gemini => Ok(gemini::follow_up(late)),
        other => Err(DriverError::Format(other)),
    }
}

/// Why a conversation step was refused. Nothing ran unless it says so.
#[derive(Debug)]
#[non_exhaustive]
pub enum DriverError {
    /// Another request of the conversation holds it (here or in another process) until
    /// `until_ms` (ms since the Unix epoch): one request of a conversation at a time.
    Busy {
        /// When its hold ends at the latest.
        until_ms: u64,
    },
    /// [`Conversation::respond`] without [`Conversation::next_request`] before the model
    /// request (or again for the same request), or while a batch waits for a human.
    NotPrepared,
    /// The model's response is not one in the driver's format.
    Provider(ProviderError),
    /// The driver speaks OpenAI Chat and Responses, Anthropic and Gemini.
    Format(Format),
    /// The run could not be saved or resumed (a stale copy is refused before anything
    /// runs).
    Run(RunError),
    /// The store failed.
    Store(StoreError),
    /// An approval or decline was refused.
    Approval(ApprovalError),
    /// The policy names a runtime tool the toolbox does not have.
    PolicyName(PolicyNameError),
}

impl fmt::Display for DriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DriverError::Busy { until_ms } => write!(
                f,
                "another request of this conversation is running (it holds the conversation until {until_ms} ms since the Unix epoch at the latest): one request of a conversation at a time; retry when it ends"
            ),
            DriverError::NotPrepared => f.write_str(
                "call Conversation::next_request before each model request and give its response to respond once (in the pause style, not while a batch waits for a human): the request's tools and the late results come from it",
            ),
            DriverError::Provider(error) => write!(f, "{error}"),
            DriverError::Format(format) => write!(
                f,
                "the driver reads and writes OpenAI Chat, OpenAI Responses, Anthropic and Gemini, not {format}: serve MCP clients with McpServer"
            ),
            DriverError::Run(error) => write!(f, "{error}"),
            DriverError::Store(error) => write!(f, "{error}"),
            DriverError::Approval(error) => write!(f, "{error}"),
            DriverError::PolicyName(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for DriverError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DriverError::Provider(error) => Some(error),
            DriverError::Run(error) => Some(error),
            DriverError::Store(error) => Some(error),
            DriverError::Approval(error) => Some(error),
            DriverError::PolicyName(error) => Some(error),
            DriverError::Busy { .. } | DriverError::NotPrepared | DriverError::Format(_) => None,
        }
    }
}

impl From<ProviderError> for DriverError {
    fn from(error: ProviderError) -> Self {
        DriverError::Provider(error)
    }
}

impl From<RunError> for DriverError {
    fn from(error: RunError) -> Self {
        DriverError::Run(error)
    }
}

impl From<StoreError> for DriverError {
    fn from(error: StoreError) -> Self {
        DriverError::Store(error)
    }
}

impl From<ApprovalError> for DriverError {
    fn from(error: ApprovalError) -> Self {
        DriverError::Approval(error)
    }
}

impl From<PolicyNameError> for DriverError {
    fn from(error: PolicyNameError) -> Self {
        DriverError::PolicyName(error)
    }
}
