//! Applying a plan: every approved call runs, in order, and gets an outcome. Nothing
//! aborts the run: a failure, a timeout or a panic is recorded and the next call runs.
//!
//! The fifth stage of the pipeline (call → verify → gate → plan → apply → outcome).

use crate::outcome::Outcome;
use crate::plan::{Authority, Plan, Step};
use crate::toolbox::RuntimeTool;
use crate::trace::{self, ToolType};
use crate::{
    Access, Tier, ToolCall, ToolContext, ToolError, ToolErrorKind, ToolName, ToolOutput,
    ToolResult, ToolSet, ToolSpec, messages,
};
use futures_util::FutureExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::any::Any;
use std::future::{Future, poll_fn};
use std::panic::AssertUnwindSafe;
use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

/// What happened to one call of the program.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The call as the model made it.
    pub call: ToolCall,
    /// The tool's declared tier.
    pub tier: Tier,
    /// Its outcome; `None` when the call was proposed to a human and did not run.
    pub outcome: Option<Outcome>,
    /// How long the call took, from the start of its handler to its outcome (a
    /// timeout or a cancellation included); `None` when no handler was started: the
    /// call was proposed, refused, or answered by the gate (a tool search).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Duration>,
}

/// The outcome of every call of an applied plan, in the model's order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    entries: Vec<Entry>,
}

impl Report {
    /// Every call with what happened to it.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The calls that ran (or were refused at apply time) with their outcomes.
    pub fn outcomes(&self) -> impl Iterator<Item = (&ToolCall, &Outcome)> + '_ {
        self.entries
            .iter()
            .filter_map(|entry| entry.outcome.as_ref().map(|outcome| (&entry.call, outcome)))
    }

    /// A tool result for every call, to send back to the model: each outcome, and a
    /// note for each call still awaiting approval.
    pub fn results(&self) -> Vec<ToolResult> {
        self.entries
            .iter()
            .map(|entry| ToolResult {
                call_id: entry.call.id.clone(),
                name: entry.call.name.clone(),
                output: match &entry.outcome {
                    Some(outcome) => outcome.to_tool_output(),
                    None => ToolOutput::text(messages::AWAITING_APPROVAL),
                },
            })
            .collect()
    }
}

/// Runs the approved calls of `plan` against `state`.
///
/// Calls run in the model's order. Consecutive read-only calls run concurrently, sharing
/// `&state`; a writing call runs alone with `&mut state`. Each call's tier is checked
/// again against what approved it. A handler taking `&ToolContext` gets one carrying its
/// call id; the tool's `timeout_ms` applies; cancelling `ctx` stops the current call and
/// skips the rest (each recorded as cancelled).
pub(crate) async fn apply<T: ToolSet>(
    state: &mut T::State,
    ctx: &ToolContext,
    plan: Plan<T>,
) -> Report {
    let (calls, steps) = plan.into_parts();
    // The plan holds one step per call, in the calls' order.
    let tiers: Vec<Tier> = steps
        .iter()
        .map(|step| match step {
            Step::Run { name, .. } | Step::AwaitApproval { name } => T::spec_of(*name).tier(),
            Step::RunRuntime { tool, .. } | Step::AwaitRuntimeApproval { tool } => {
                tool.spec().tier()
            }
            // The tool search only reads the set's specs.
            Step::Answered { .. } => Tier::ReadOnly,
        })
        .collect();
    let mut outcomes: Vec<Option<Outcome>> = vec![None; calls.len()];
    let mut durations: Vec<Option<Duration>> = vec![None; calls.len()];
    let mut steps = steps.into_iter().peekable();
    while let Some(step) = steps.next() {
        let (index, job, authority) = match step {
            Step::Answered { index, output } => {
                let outcome = Outcome::Done(output);
                trace::answered(&calls[index], ctx, &outcome);
                outcomes[index] = Some(outcome);
                continue;
            }
            Step::AwaitApproval { .. } | Step::AwaitRuntimeApproval { .. } => continue,
            step => match Job::from_step(step) {
                Some(job) => job,
                None => continue,
            },
        };
        let spec = job.spec();
        if let Some(reason) = refusal(spec, authority) {
            let outcome = Outcome::Refused { reason };
            trace::not_run(spec, &calls[index], job.tool_type(), ctx, &outcome);
            outcomes[index] = Some(outcome);
            continue;
        }
        if spec.tier() != Tier::ReadOnly {
            let own_ctx = call_context(ctx, spec, &calls[index]);
            let call_ctx = own_ctx.as_ref().unwrap_or(ctx);
            let (outcome, took) = job
                .run(Access::Exclusive(state), call_ctx, &calls[index])
                .await;
            outcomes[index] = Some(outcome);
            durations[index] = Some(took);
            continue;
        }
        // A run of read-only calls (compiled or runtime): they only read, so they run
        // together.
        let mut batch = vec![(index, job)];
        while let Some(next) = steps.peek().and_then(Job::peek) {
            let (next, authority) = next;
            if next.tier() != Tier::ReadOnly || refusal(next, authority).is_some() {
                break;
            }
            if let Some((index, job, _)) = steps.next().and_then(Job::from_step) {
                batch.push((index, job));
            }
        }
        let shared: &T::State = state;
        let contexts: Vec<Option<ToolContext>> = batch
            .iter()
            .map(|(index, job)| call_context(ctx, job.spec(), &calls[*index]))
            .collect();
        let calls = &calls;
        let runs = batch
            .into_iter()
            .zip(&contexts)
            .map(|((index, job), call_ctx)| async move {
                let call_ctx = call_ctx.as_ref().unwrap_or(ctx);
                (
                    index,
                    job.run(Access::Shared(shared), call_ctx, &calls[index])
                        .await,
                )
            });
        for (index, (outcome, took)) in futures_util::future::join_all(runs).await {
            outcomes[index] = Some(outcome);
            durations[index] = Some(took);
        }
    }
    let entries = calls
        .into_iter()
        .zip(outcomes)
        .zip(tiers)
        .zip(durations)
        .map(|(((call, outcome), tier), duration)| Entry {
            call,
            tier,
            outcome,
            duration,
        })
        .collect();
    Report { entries }
}

/// One approved call as apply runs it: a compiled tool's typed call, or a runtime tool's
/// validated JSON arguments.
enum Job<T: ToolSet> {
    Compiled { name: T::Name, typed: T::Call },
    Runtime { tool: Arc<RuntimeTool>, args: Value },
}

impl<T: ToolSet> Job<T> {
    /// The call of a step that runs, with its index and authority; `None` for the others.
    fn from_step(step: Step<T>) -> Option<(usize, Self, Authority)> {
        match step {
            Step::Run {
                index,
                name,
                typed,
                authority,
            } => Some((index, Job::Compiled { name, typed }, authority)),
            Step::RunRuntime {
                index,
                tool,
                args,
                authority,
            } => Some((index, Job::Runtime { tool, args }, authority)),
            Step::AwaitApproval { .. }
            | Step::AwaitRuntimeApproval { .. }
            | Step::Answered { .. } => None,
        }
    }

    /// The spec and authority of a step that runs, without taking it.
    fn peek(step: &Step<T>) -> Option<(&ToolSpec, Authority)> {
        match step {
            Step::Run {
                name, authority, ..
            } => Some((T::spec_of(*name), *authority)),
            Step::RunRuntime {
                tool, authority, ..
            } => Some((tool.spec(), *authority)),
            Step::AwaitApproval { .. }
            | Step::AwaitRuntimeApproval { .. }
            | Step::Answered { .. } => None,
        }
    }

    fn spec(&self) -> &ToolSpec {
        match self {
            Job::Compiled { name, .. } => T::spec_of(*name),
            Job::Runtime { tool, .. } => tool.spec(),
        }
    }

    /// What the call's span says the tool is: a function run here (compiled or a runtime
    /// tool's own handler), or an extension (a tool proxied from another MCP server).
    fn tool_type(&self) -> ToolType {
        match self {
            Job::Compiled { .. } => ToolType::Function,
            Job::Runtime { tool, .. } => tool.tool_type(),
        }
    }

    /// Runs the call to its one outcome, and says how long it took. A runtime tool's
    /// handler takes no state.
    async fn run(
        self,
        state: Access<'_, T::State>,
        ctx: &ToolContext,
        call: &ToolCall,
    ) -> (Outcome, Duration) {
        match self {
            Job::Compiled { name, typed } => {
                run_call::<T>(state, ctx, call, typed, T::spec_of(name)).await
            }
            Job::Runtime { tool, args } => run_runtime::<T>(ctx, call, &tool, args).await,
        }
    }
}

/// The context of its own, carrying the call's id, for a handler that takes
/// `&ToolContext`; the others run with the request's context, which saves an allocation
/// per call (cancellation is the same token either way).
pub(crate) fn call_context(
    ctx: &ToolContext,
    spec: &ToolSpec,
    call: &ToolCall,
) -> Option<ToolContext> {
    spec.takes_context().then(|| ctx.for_call(&call.id))
}

/// Why a call must not run despite being in the plan; `None` when it may.
pub(crate) fn refusal(spec: &ToolSpec, authority: Authority) -> Option<String> {
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

/// Runs one call of a compiled tool to its outcome (see [`run_handler`]), and says how long
/// it took.
pub(crate) async fn run_call<T: ToolSet>(
    state: Access<'_, T::State>,
    ctx: &ToolContext,
    call: &ToolCall,
    typed: T::Call,
    spec: &ToolSpec,
) -> (Outcome, Duration) {
    run_handler(
        ctx,
        call,
        spec,
        ToolType::Function,
        T::dispatch(state, ctx, typed),
        checked_activations::<T>,
    )
    .await
}

/// Runs one call of a runtime tool of a toolbox over `T` to its outcome (see
/// [`run_handler`]), and says how long it took.
pub(crate) async fn run_runtime<T: ToolSet>(
    ctx: &ToolContext,
    call: &ToolCall,
    tool: &RuntimeTool,
    args: Value,
) -> (Outcome, Duration) {
    run_handler(
        ctx,
        call,
        tool.spec(),
        tool.tool_type(),
        tool.run(args, ctx),
        checked_activations::<T>,
    )
    .await
}

/// Runs one call's handler (a compiled tool's dispatch, a runtime tool's handler) to
/// completion in its `execute_tool` span (see [`crate::trace`]), turning every way it can
/// end into an outcome, recorded on the span, and says how long it took; `done` turns a
/// finished output into its outcome.
///
/// Never panics: a panic while the handler is polled is caught as it unwinds out of the
/// poll, and a panic while it is dropped (a timeout or a cancellation stops a handler by
/// dropping its future, which runs its locals' `Drop`) is caught here too. That is why
/// the handler lives in a pinned `Option`: stopped, it is dropped by `Pin::set` inside
/// `catch_unwind`, not wherever `select!` or `timeout` would drop it.
///
/// The span is entered around each poll of the handler (and its drop) rather than by
/// wrapping this future in `Instrument`: a wrapper would move the whole handler future
/// once more per call, which costs more than the span itself when nobody records it.
pub(crate) async fn run_handler(
    ctx: &ToolContext,
    call: &ToolCall,
    spec: &ToolSpec,
    tool_type: ToolType,
    handler: impl Future<Output = Result<ToolOutput, ToolError>>,
    done: impl FnOnce(ToolOutput) -> Outcome,
) -> (Outcome, Duration) {
    let span = trace::execute_tool(spec, call, tool_type, ctx);
    let started = Instant::now();
    if ctx.is_cancelled() {
        let outcome = Outcome::Cancelled;
        trace::record_outcome(&span, &outcome, ctx);
        return (outcome, started.elapsed());
    }
    let mut handler = pin!(Some(AssertUnwindSafe(handler).catch_unwind()));
    let running = poll_fn(|cx| {
        let _in_span = span.enter();
        match handler.as_mut().as_pin_mut() {
            Some(handler) => handler.poll(cx),
            // Not reached: the handler is only taken out once this future is gone.
            None => Poll::Pending,
        }
    });
    let limited = async {
        match spec.timeout() {
            Some(limit) => tokio::time::timeout(limit, running)
                .await
                .map_err(|_| limit),
            None => Ok(running.await),
        }
    };
    // `biased`: the handler is polled first, so a call that finishes at once never
    // registers with the cancellation token.
    let outcome = tokio::select! {
        biased;
        finished = limited => match finished {
            Ok(Ok(Ok(output))) => done(output),
            Ok(Ok(Err(error))) => from_error(error),
            Ok(Err(panic)) => Outcome::Panicked { message: take_panic_message(panic) },
            Err(after) => Outcome::TimedOut { after },
        },
        () = ctx.cancellation().cancelled() => Outcome::Cancelled,
    };
    // A finished handler's future holds nothing left to drop; a stopped one is dropped
    // now, and a panic in its `Drop` becomes the call's one outcome.
    let dropped =
        span.in_scope(|| std::panic::catch_unwind(AssertUnwindSafe(|| handler.set(None))));
    let took = started.elapsed();
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
    trace::record_outcome(&span, &outcome, ctx);
    (outcome, took)
}

/// A done output, unless it activates a tool the set does not have: then the call failed,
/// so that a misspelled activation is seen instead of silently dropped.
fn checked_activations<T: ToolSet>(output: ToolOutput) -> Outcome {
    let unknown: Vec<&str> = output
        .activate
        .iter()
        .filter(|name| T::Name::from_name(name).is_none())
        .map(String::as_str)
        .collect();
    if unknown.is_empty() {
        return Outcome::Done(output);
    }
    let known: Vec<&str> = T::Name::ALL.iter().map(|tool| tool.as_str()).collect();
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
