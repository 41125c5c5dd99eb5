//! Applying a plan: every approved call runs, in order, and gets an outcome. Nothing
//! aborts the run: a failure, a timeout or a panic is recorded and the next call runs.
//!
//! The fifth stage of the pipeline (call → verify → gate → plan → apply → outcome).

use crate::call::ToolCall;
use crate::context::ToolContext;
use crate::error::ToolError;
use crate::error::ToolErrorKind;
use crate::job::Job;
use crate::messages;
use crate::outcome::Outcome;
use crate::output::ToolOutput;
use crate::plan::{Authority, JournalKeys, Keys, Plan, Step};
use crate::policy::Concealed;
use crate::proposal::now_ms;
use crate::report::{Entry, Journaled, Report};
use crate::set::Access;
use crate::set::ToolSet;
use crate::spec::Labels;
use crate::spec::ToolSpec;
use crate::store::{CallEnd, CallStart, EndOutcome, StartOutcome, Store, auto_key_in};
use crate::tier::Tier;
use crate::trace::{self, CallSpan, ToolType, Untraced};
use futures_util::FutureExt;
use futures_util::future::Either;
use std::any::Any;
use std::future::{Future, poll_fn};
use std::ops::{Deref, DerefMut};
use std::panic::AssertUnwindSafe;
use std::pin::pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
#[cfg(feature = "mcp")]
use tokio::sync::RwLock;
use tracing::Span;

/// How apply reaches the state the calls run against, and the host's limit on each run.
///
/// A plan applied by the agent's loop holds the state itself (`&mut S`: reading and
/// writing never wait); the MCP server shares one state between sessions behind a
/// read/write lock ([`Locked`]), taken per tier and waited for under a time limit and
/// the request's cancellation. Everything else (tiers re-checked, time limits,
/// cancellation, panics, activations, outcomes, spans) is [`apply`]'s, the same for both.
pub(crate) trait StateAccess<S> {
    /// The state to read, shared by read-only calls; the outcome of the calls waiting
    /// for it when it cannot be had (the context was cancelled, or waiting ran past a
    /// limit).
    fn read(
        &mut self,
        ctx: &ToolContext,
    ) -> impl Future<Output = Result<impl Deref<Target = S>, Outcome>>;

    /// The state to write, alone; the outcome of the call waiting for it otherwise.
    fn write(
        &mut self,
        ctx: &ToolContext,
    ) -> impl Future<Output = Result<impl DerefMut<Target = S>, Outcome>>;

    /// The host's limit on each call's run, on top of the tool's own `timeout_ms` (the
    /// shorter applies); `None` for none.
    fn run_limit(&self) -> Option<Duration> {
        None
    }
}

/// The state at hand: a plan applied to `&mut S` never waits for it.
impl<S> StateAccess<S> for &mut S {
    fn read(
        &mut self,
        _ctx: &ToolContext,
    ) -> impl Future<Output = Result<impl Deref<Target = S>, Outcome>> {
        std::future::ready(Ok(&**self))
    }

    fn write(
        &mut self,
        _ctx: &ToolContext,
    ) -> impl Future<Output = Result<impl DerefMut<Target = S>, Outcome>> {
        std::future::ready(Ok(&mut **self))
    }
}

/// A state shared behind a fair read/write lock (the MCP server's, between its sessions):
/// read-only calls take it shared, the others alone. A call waits for it at most `limit`
/// (then its outcome is [`Outcome::TimedOutWaiting`], and it did not run) and not past
/// its context's cancellation ([`Outcome::Cancelled`]); once running, `limit` bounds its
/// run too.
#[cfg(feature = "mcp")]
pub(crate) struct Locked<'l, S> {
    /// The lock.
    pub(crate) lock: &'l RwLock<S>,
    /// The longest a call waits for the state, and then runs.
    pub(crate) limit: Duration,
}

#[cfg(feature = "mcp")]
impl<'l, S> Locked<'l, S> {
    /// Waits for `acquire` under the limit and the context's cancellation.
    async fn wait<G>(
        &self,
        ctx: &ToolContext,
        acquire: impl Future<Output = G>,
    ) -> Result<G, Outcome> {
        // `biased`: a cancelled context wins over a lock that frees at the same time.
        tokio::select! {
            biased;
            () = ctx.cancellation().cancelled() => Err(Outcome::Cancelled),
            held = tokio::time::timeout(self.limit, acquire) => {
                held.map_err(|_| Outcome::TimedOutWaiting { after: self.limit })
            }
        }
    }
}

#[cfg(feature = "mcp")]
impl<S> StateAccess<S> for Locked<'_, S> {
    fn read(
        &mut self,
        ctx: &ToolContext,
    ) -> impl Future<Output = Result<impl Deref<Target = S>, Outcome>> {
        let lock = self.lock;
        async move {
            // A free lock is taken at once: no timer, no wait (the common case).
            match lock.try_read() {
                Ok(held) if !ctx.is_cancelled() => Ok(held),
                _ => self.wait(ctx, lock.read()).await,
            }
        }
    }

    fn write(
        &mut self,
        ctx: &ToolContext,
    ) -> impl Future<Output = Result<impl DerefMut<Target = S>, Outcome>> {
        let lock = self.lock;
        async move {
            match lock.try_write() {
                Ok(held) if !ctx.is_cancelled() => Ok(held),
                _ => self.wait(ctx, lock.write()).await,
            }
        }
    }

    fn run_limit(&self) -> Option<Duration> {
        Some(self.limit)
    }
}

/// The state as one call (or one run of read-only calls) holds it.
enum Held<R, W> {
    /// Not taken: the calls are stateless runtime tools', which take no state.
    Nothing,
    /// Shared.
    Read(R),
    /// Alone.
    Write(W),
}

impl<S, R: Deref<Target = S>, W: DerefMut<Target = S>> Held<R, W> {
    /// The state as a handler takes it; `None` when not taken.
    fn access(&mut self) -> Option<Access<'_, S>> {
        match self {
            Held::Nothing => None,
            Held::Read(state) => Some(Access::Shared(&**state)),
            Held::Write(state) => Some(Access::Exclusive(&mut **state)),
        }
    }
}

/// Runs the approved calls of `plan` against the state `access` reaches.
///
/// Calls run in the model's order. Consecutive read-only calls run concurrently, sharing
/// `&state`; a writing call runs alone with `&mut state` (a runtime tool's as a compiled
/// tool's, when its handler borrows the state); a stateless runtime tool's call takes no
/// state, so it never waits for it. Each call's tier is checked again against what
/// approved it. A handler taking `&ToolContext` gets one carrying its call id; the
/// tool's `timeout_ms` applies (and the host's limit, [`StateAccess::run_limit`], when
/// shorter); cancelling `ctx` stops the current call and skips the rest (each recorded as
/// cancelled).
///
/// Whether the calls are traced is decided once, here ([`trace::calls_traced`]): with no
/// subscriber a call carries no span at all. One clock reading ends a call and starts the
/// next one that runs right after it.
pub(crate) async fn apply<T: ToolSet, A: StateAccess<T::State>>(
    access: A,
    ctx: &ToolContext,
    plan: Plan<T>,
) -> Report {
    apply_journaled(access, ctx, plan, None, None).await
}

/// [`apply`], journaling every call that is not read-only in `journal` (see
/// [`Store`]): its start before its handler runs (for a call a human
/// approved, the start is the effect its approval recorded, so nothing is written), its
/// end after. A call whose start cannot be recorded, or was recorded before, does not run
/// (its outcome is [`Outcome::Refused`]); an end that cannot be recorded leaves the outcome
/// as it is and says so in the entry's [`Journaled::problem`]. The handler's
/// [`ToolContext::idempotency_key`] is the call's key: within the `run` given (the
/// conversation driver's run, an MCP session), each call's
/// [`auto_key_in`](crate::store::auto_key_in) the run, so that two runs' calls never
/// share a key while a call sent again within its run keeps its own; else its
/// [`auto_key`](crate::store::auto_key). A plan of an approval or of a rerun keeps its
/// own key.
pub(crate) async fn apply_journaled<T: ToolSet, A: StateAccess<T::State>>(
    mut access: A,
    ctx: &ToolContext,
    plan: Plan<T>,
    journal: Option<&dyn Store>,
    run: Option<&str>,
) -> Report {
    let (calls, steps, concealed, mut keys) = plan.into_parts();
    let concealed = &concealed;
    let traced = trace::calls_traced();
    let limit = access.run_limit();
    // The plan holds one step per call, in the calls' order: each entry gets its tier now,
    // its outcome and duration as its call ends.
    let mut entries: Vec<Entry> = calls
        .into_iter()
        .zip(&steps)
        .map(|(call, step)| Entry {
            call,
            tier: match step {
                // A proposed call's tier is its tool's declared one.
                Step::Run { job, .. } => job.spec().tier(),
                Step::AwaitApproval { tool } => tool.spec().tier(),
                // The tool search only reads the set's specs.
                Step::Answered { .. } => Tier::ReadOnly,
            },
            labels: match step {
                Step::Run { job, .. } => job.spec().labels(),
                Step::AwaitApproval { tool } => tool.spec().labels(),
                // The tool search reads the set's own descriptions.
                Step::Answered { .. } => Labels::NONE,
            },
            outcome: None,
            duration: None,
            journal: None,
        })
        .collect();
    // The last clock reading, when nothing but bookkeeping happened since: the start of
    // the next call that runs.
    let mut clock: Option<Instant> = None;
    let mut steps = steps.into_iter().peekable();
    while let Some(step) = steps.next() {
        let (index, job, authority) = match step {
            Step::Answered { index, output } => {
                let outcome = Outcome::Done(output);
                trace::answered(&entries[index].call, ctx, &outcome);
                entries[index].outcome = Some(outcome);
                clock = None;
                continue;
            }
            Step::AwaitApproval { .. } => continue,
            step => match runs(step) {
                Some(job) => job,
                None => continue,
            },
        };
        let spec = job.spec();
        if let Some(reason) = refusal(spec, authority) {
            let outcome = Outcome::Refused { reason };
            trace::not_run(spec, &entries[index].call, job.tool_type(), ctx, &outcome);
            entries[index].outcome = Some(outcome);
            clock = None;
            continue;
        }
        let read_only = spec.tier() == Tier::ReadOnly;
        // A read-only call followed by another that may run: the run goes together.
        let batch = read_only
            && steps
                .peek()
                .and_then(peek)
                .is_some_and(|(next, authority)| {
                    next.tier() == Tier::ReadOnly && refusal(next, authority).is_none()
                });
        if !batch {
            let held = match (job.takes_state(), read_only) {
                (false, _) => Ok(Held::Nothing),
                (true, true) => access.read(ctx).await.map(Held::Read),
                (true, false) => access.write(ctx).await.map(Held::Write),
            };
            let mut held = match held {
                Ok(held) => held,
                Err(outcome) => {
                    trace::not_run(spec, &entries[index].call, job.tool_type(), ctx, &outcome);
                    entries[index].outcome = Some(outcome);
                    clock = None;
                    continue;
                }
            };
            // A writing call is journaled before it runs, or does not run.
            let key = match journal.filter(|_| !read_only) {
                None => None,
                Some(journal) => {
                    let call = &entries[index].call;
                    match journal_start(journal, &mut keys, run, spec, call) {
                        Ok(key) => Some((journal, key)),
                        Err((outcome, journaled)) => {
                            trace::not_run(spec, call, job.tool_type(), ctx, &outcome);
                            entries[index].outcome = Some(outcome);
                            entries[index].journal = Some(journaled);
                            clock = None;
                            continue;
                        }
                    }
                }
            };
            let started = clock.unwrap_or_else(Instant::now);
            let call = &entries[index].call;
            let own_ctx = spec.takes_context().then(|| {
                ctx.for_journaled_call(&call.id, key.as_ref().map(|(_, key)| key.as_str()))
            });
            let call_ctx = own_ctx.as_ref().unwrap_or(ctx);
            let state = held.access();
            let (outcome, ended) = if traced {
                job.run::<Span>(state, call_ctx, call, concealed, limit)
                    .await
            } else {
                job.run::<Untraced>(state, call_ctx, call, concealed, limit)
                    .await
            };
            drop(held);
            drop(own_ctx);
            let entry = &mut entries[index];
            if let Some((journal, key)) = key {
                let problem = journal_end(journal, &key, &outcome);
                entry.journal = Some(Journaled::new(key, problem));
            }
            entry.outcome = Some(outcome);
            entry.duration = Some(ended.saturating_duration_since(started));
            clock = Some(ended);
            continue;
        }
        // A run of read-only calls (compiled or runtime): they only read, so they run
        // together.
        let mut batch = vec![(index, job)];
        while let Some(next) = steps.peek().and_then(peek) {
            let (next, authority) = next;
            if next.tier() != Tier::ReadOnly || refusal(next, authority).is_some() {
                break;
            }
            if let Some((index, job, _)) = steps.next().and_then(runs) {
                batch.push((index, job));
            }
        }
        let needs_state = batch.iter().any(|(_, job)| job.takes_state());
        let held = if needs_state {
            access.read(ctx).await.map(Some)
        } else {
            Ok(None)
        };
        let held = match held {
            Ok(held) => held,
            Err(outcome) => {
                for (index, job) in batch {
                    let call = &entries[index].call;
                    trace::not_run(job.spec(), call, job.tool_type(), ctx, &outcome);
                    entries[index].outcome = Some(outcome.clone());
                }
                clock = None;
                continue;
            }
        };
        let started = clock.unwrap_or_else(Instant::now);
        let shared: Option<&T::State> = held.as_deref();
        let calls = &entries;
        let contexts: Vec<Option<ToolContext>> = batch
            .iter()
            .map(|(index, job)| call_context(ctx, job.spec(), &calls[*index].call))
            .collect();
        let runs = batch
            .into_iter()
            .zip(&contexts)
            .map(|((index, job), call_ctx)| async move {
                let call_ctx = call_ctx.as_ref().unwrap_or(ctx);
                let call = &calls[index].call;
                let state = shared.map(Access::Shared);
                let ended = if traced {
                    job.run::<Span>(state, call_ctx, call, concealed, limit)
                        .await
                } else {
                    job.run::<Untraced>(state, call_ctx, call, concealed, limit)
                        .await
                };
                (index, ended)
            });
        let finished = futures_util::future::join_all(runs).await;
        drop(contexts);
        drop(held);
        let mut last = started;
        for (index, (outcome, ended)) in finished {
            let entry = &mut entries[index];
            entry.outcome = Some(outcome);
            entry.duration = Some(ended.saturating_duration_since(started));
            last = last.max(ended);
        }
        clock = Some(last);
    }
    Report::new(entries)
}

/// The call of a step that runs, with its index and authority; `None` for the others.
fn runs<T: ToolSet>(step: Step<T>) -> Option<(usize, Job<T>, Authority)> {
    match step {
        Step::Run {
            index,
            job,
            authority,
        } => Some((index, job, authority)),
        Step::AwaitApproval { .. } | Step::Answered { .. } => None,
    }
}

/// The spec and authority of a step that runs, without taking it.
fn peek<T: ToolSet>(step: &Step<T>) -> Option<(&ToolSpec, Authority)> {
    match step {
        Step::Run { job, authority, .. } => Some((job.spec(), *authority)),
        Step::AwaitApproval { .. } | Step::Answered { .. } => None,
    }
}

// Dispatch is where the two kinds of tool part: the set's through its typed call enum, a
// runtime tool through its handler.
/// A compiled call's handler run, as [`run_handler`] awaits it: the set's dispatch.
///
/// In a debug build it is boxed behind `dyn Future`. The futures wrapped around it
/// (`catch_unwind`, the time limit, the server's tasks) are other crates' generic code
/// instantiated in the user's crate; holding the dispatch by value, they name the set's
/// every handler future, so an edit of the crate made them all again, with their full
/// debug info: 99 MB of a six-tool agent's 143 MB of objects, against 13 MB boxed
/// (BENCHMARKS.md, issue 40 item 2). A release build keeps it by value: no allocation a
/// call where the per-call cost is measured.
#[cfg(debug_assertions)]
fn dispatch<'a, T: ToolSet>(
    state: Access<'a, T::State>,
    ctx: &'a ToolContext,
    typed: T::Call,
) -> std::pin::Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send + 'a>> {
    Box::pin(T::dispatch(state, ctx, typed))
}

/// A compiled call's handler run: the set's dispatch, by value in a release build (see
/// the debug build's `dispatch`).
#[cfg(not(debug_assertions))]
fn dispatch<'a, T: ToolSet>(
    state: Access<'a, T::State>,
    ctx: &'a ToolContext,
    typed: T::Call,
) -> impl Future<Output = Result<ToolOutput, ToolError>> + Send + 'a {
    T::dispatch(state, ctx, typed)
}

impl<T: ToolSet> Job<T> {
    /// Runs the call to its one outcome in span `S`, within `limit` besides the tool's
    /// own, and says when it ended. A compiled tool's call gets `state`, and so does a
    /// runtime tool's handler that borrows it (a stateless one takes none). Not an
    /// `async fn`: the future it returns is the handler's run itself, not one more state
    /// machine around it.
    fn run<'a, S>(
        self,
        state: Option<Access<'a, T::State>>,
        ctx: &'a ToolContext,
        call: &'a ToolCall,
        concealed: &'a Concealed,
        limit: Option<Duration>,
    ) -> impl Future<Output = (Outcome, Instant)> + 'a
    where
        T: 'a,
        S: CallSpan + 'a,
    {
        match (self, state) {
            (Job::Set { name, typed }, Some(state)) => Either::Left(run_handler::<S, _, _>(
                ctx,
                call,
                T::spec_of(name),
                ToolType::Function,
                limit,
                move || dispatch::<T>(state, ctx, typed),
                |output| checked_activations::<T>(output, concealed),
            )),
            (job, state) => Either::Right(async move {
                match job {
                    Job::Runtime { tool, args } => {
                        run_handler::<S, _, _>(
                            ctx,
                            call,
                            tool.spec(),
                            tool.tool_type(),
                            limit,
                            || tool.run(args, state, ctx),
                            |output| checked_activations::<T>(output, concealed),
                        )
                        .await
                    }
                    // Not reached: apply takes the state for every compiled call.
                    Job::Set { name, .. } => {
                        let outcome = Outcome::Failed {
                            message: messages::state_not_taken(T::spec_of(name).name()),
                        };
                        (outcome, Instant::now())
                    }
                }
            }),
        }
    }
}

/// The context of its own, carrying the call's id, for a handler that takes
/// `&ToolContext`; the others run with the request's context, which saves an allocation
/// per call (cancellation is the same token either way).
fn call_context(ctx: &ToolContext, spec: &ToolSpec, call: &ToolCall) -> Option<ToolContext> {
    spec.takes_context().then(|| ctx.for_call(&call.id))
}

/// Journals the start of a writing call under the plan's `keys`: nothing to write for the
/// stored proposal a human approved (its effect is its start), else its start under the
/// key of an in-doubt entry run again, or its automatic key (within its run, for the
/// driver's plans). A one-call key is taken by the first writing call. The key to run it
/// under; or, when it must not run, its outcome and journal record: the call's journaled
/// result when it ran before to its end and the model was never sent it (a request sent
/// again after its host died: the model gets the answer it missed, once), a refusal
/// otherwise (in doubt, delivered already, or a journal that failed).
fn journal_start(
    journal: &dyn Store,
    keys: &mut JournalKeys,
    run: Option<&str>,
    spec: &ToolSpec,
    call: &ToolCall,
) -> Result<String, (Outcome, Journaled)> {
    let at_ms = now_ms();
    let start = match keys.take().map(|keys| *keys) {
        Some(Keys::Approved(id)) => return Ok(id.as_str().to_owned()),
        Some(Keys::Rerun(key)) => CallStart::under(key, call, spec.tier(), at_ms),
        None => match run {
            Some(run) => CallStart::under(auto_key_in(run, call), call, spec.tier(), at_ms),
            None => CallStart::new(call, spec.tier(), at_ms),
        },
    };
    let (reason, problem) = match journal.start(&start) {
        Ok(StartOutcome::Started) => return Ok(start.key),
        Ok(StartOutcome::AlreadyStarted(entry)) => {
            if entry.delivered_at_ms.is_none()
                && !entry.is_declined()
                && let Some(reply) = entry.reply()
            {
                // Its result waits undelivered: this report delivers it.
                return Err((Outcome::Done(reply.output), Journaled::new(start.key, None)));
            }
            (
                messages::already_started(spec.name()),
                "the journal shows this call started before; it was not run again".to_owned(),
            )
        }
        Err(error) => (
            messages::journal_unavailable(spec.name()),
            format!("its start could not be journaled, so it was not run: {error}"),
        ),
    };
    Err((
        Outcome::Refused { reason },
        Journaled::new(start.key, Some(problem)),
    ))
}

/// Journals how a call ended; what went wrong, for the host, if it could not.
fn journal_end(journal: &dyn Store, key: &str, outcome: &Outcome) -> Option<String> {
    match journal.end(key, &CallEnd::of(outcome, now_ms())) {
        Ok(EndOutcome::Ended) => None,
        Ok(other) => Some(format!("its end was not journaled: {other}")),
        Err(error) => Some(format!(
            "its end could not be journaled (the journal lists it in doubt): {error}"
        )),
    }
}

/// Why a call must not run despite being in the plan; `None` when it may.
fn refusal(spec: &ToolSpec, authority: Authority) -> Option<String> {
    if spec.is_propose_only() {
        return Some(messages::refused_propose_only(spec.name()));
    }
    match authority {
        Authority::Autonomy(level) if !level.allows(spec.tier()) => Some(
            messages::refused_above_autonomy(spec.name(), spec.tier(), level),
        ),
        Authority::Autonomy(_) | Authority::Human => None,
    }
}

/// How a handler's run stopped, before its future is dropped.
enum Stopped {
    /// It finished: its result, or the panic of one of its polls.
    Finished(Result<Result<ToolOutput, ToolError>, Box<dyn Any + Send>>),
    /// It ran past this limit.
    TimedOut(Duration),
    /// The context was cancelled while it ran.
    Cancelled,
}

/// Runs one call's handler (a compiled tool's dispatch, a runtime tool's handler, made by
/// `handler` when the run starts) to completion in span `S` (its `execute_tool` span, see
/// [`crate::trace`], or none), turning every way it can end into an outcome, recorded on
/// the span, and says when it ended; `done` turns a finished output into its outcome.
///
/// Never panics: a panic while the handler is polled is caught as it unwinds out of the
/// poll, and a panic while it is dropped (a timeout or a cancellation stops a handler by
/// dropping its future, which runs its locals' `Drop`) is caught here too. That is why
/// the handler lives in a pinned `Option`: stopped, it is dropped by `Pin::set` inside
/// `catch_unwind`, not wherever `select!` or `timeout` would drop it.
///
/// Most handlers finish on their first poll, so the handler is polled once before any
/// timer or cancellation future is set up; the timeout still counts from the start (on
/// tokio's clock, which a test may pause). The span is entered around each poll of the
/// handler (and its drop) rather than by wrapping this future in `Instrument`: a wrapper
/// would move the whole handler future once more per call.
async fn run_handler<S, F, H>(
    ctx: &ToolContext,
    call: &ToolCall,
    spec: &ToolSpec,
    tool_type: ToolType,
    limit: Option<Duration>,
    handler: H,
    done: impl FnOnce(ToolOutput) -> Outcome,
) -> (Outcome, Instant)
where
    S: CallSpan,
    H: FnOnce() -> F,
    F: Future<Output = Result<ToolOutput, ToolError>>,
{
    let span = S::start(spec, call, tool_type, ctx);
    if ctx.is_cancelled() {
        let outcome = Outcome::Cancelled;
        span.record(&outcome, ctx);
        return (outcome, Instant::now());
    }
    let limit = match (spec.timeout(), limit) {
        (Some(own), Some(host)) => Some(own.min(host)),
        (own, host) => own.or(host),
    };
    let deadline = limit.map(|limit| (tokio::time::Instant::now() + limit, limit));
    let mut handler = pin!(Some(AssertUnwindSafe(handler()).catch_unwind()));
    let mut poll = |cx: &mut Context<'_>| {
        span.in_scope(|| match handler.as_mut().as_pin_mut() {
            Some(handler) => handler.poll(cx),
            // Not reached: the handler is only taken out once its polls are over.
            None => Poll::Pending,
        })
    };
    let stopped = match poll_fn(|cx| Poll::Ready(poll(cx))).await {
        Poll::Ready(finished) => Stopped::Finished(finished),
        Poll::Pending => {
            let running = poll_fn(&mut poll);
            let limited = async {
                match deadline {
                    Some((at, limit)) => tokio::time::timeout_at(at, running)
                        .await
                        .map_or(Stopped::TimedOut(limit), Stopped::Finished),
                    None => Stopped::Finished(running.await),
                }
            };
            // `biased`: the handler is polled first, so a call that finishes when it is
            // woken never registers with the cancellation token.
            tokio::select! {
                biased;
                stopped = limited => stopped,
                () = ctx.cancellation().cancelled() => Stopped::Cancelled,
            }
        }
    };
    let outcome = match stopped {
        Stopped::Finished(Ok(Ok(output))) => match unconforming(spec, &output) {
            Some(message) => Outcome::Failed { message },
            None => done(output),
        },
        Stopped::Finished(Ok(Err(error))) => from_error(error),
        Stopped::Finished(Err(panic)) => Outcome::Panicked {
            message: take_panic_message(panic),
        },
        Stopped::TimedOut(after) => Outcome::TimedOut { after },
        Stopped::Cancelled => Outcome::Cancelled,
    };
    // A finished handler's future holds nothing left to drop; a stopped one is dropped
    // now, and a panic in its `Drop` becomes the call's one outcome.
    let dropped =
        span.in_scope(|| std::panic::catch_unwind(AssertUnwindSafe(|| handler.set(None))));
    let ended = Instant::now();
    let outcome = match dropped {
        Ok(()) => outcome,
        Err(panic) => {
            let stopped_by = match &outcome {
                Outcome::TimedOut { after } => {
                    format!("after it ran past its {} ms limit", after.as_millis())
                }
                Outcome::Cancelled => "after the run was cancelled".to_owned(),
                _ => "after it finished".to_owned(),
            };
            Outcome::Panicked {
                message: format!(
                    "the handler panicked while being stopped {stopped_by}: {}",
                    take_panic_message(panic)
                ),
            }
        }
    };
    span.record(&outcome, ctx);
    (outcome, ended)
}

/// Why `output` must not be sent, if so: its structured value breaks the tool's declared
/// output schema (an error's too: MCP sends its `structuredContent` all the same). Here,
/// where every handler's output passes (compiled or runtime, for every consumer and the
/// MCP server alike), so no format sends a value the tool's declaration rules out. The
/// output schema's validator is compiled once per tool (`ToolSpec::output_problems`).
fn unconforming(spec: &ToolSpec, output: &ToolOutput) -> Option<String> {
    let problems = spec.output_problems(output.structured_content()?);
    (!problems.is_empty()).then(|| messages::output_mismatch(&problems.join("; ")))
}

/// A done output, unless it activates a tool the set does not have: then the call failed,
/// so that a misspelled activation is seen instead of silently dropped. A tool the
/// request conceals (hidden by its policy) is a name the set does not have, here as
/// everywhere: the call fails alike, and the message names only the tools the model may
/// know, so no `tool_reference` or list ever names a hidden tool.
fn checked_activations<T: ToolSet>(output: ToolOutput, concealed: &Concealed) -> Outcome {
    let unknown: Vec<&str> = output
        .activates()
        .iter()
        .filter(|name| concealed.resolve::<T>(name).is_none())
        .map(String::as_str)
        .collect();
    if unknown.is_empty() {
        return Outcome::Done(output);
    }
    let known: Vec<&str> = concealed.known::<T>().collect();
    Outcome::Failed {
        message: messages::unknown_activation(&unknown, T::NAME, &known),
    }
}

fn from_error(error: ToolError) -> Outcome {
    match error.kind() {
        ToolErrorKind::Skipped => Outcome::Skipped {
            reason: error.message().to_owned(),
        },
        ToolErrorKind::Failed => Outcome::Failed {
            message: error.message().to_owned(),
        },
        ToolErrorKind::Retry => Outcome::Retry {
            hint: error.message().to_owned(),
        },
    }
}

/// The text of a panic, and the payload disposed of: even a payload whose own `Drop`
/// panics cannot unwind out of `apply` (it is leaked instead).
fn take_panic_message(payload: Box<dyn Any + Send>) -> String {
    let message = if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic with a non-text payload".to_owned()
    };
    if let Err(second) = std::panic::catch_unwind(AssertUnwindSafe(|| drop(payload))) {
        std::mem::forget(second);
    }
    message
}
