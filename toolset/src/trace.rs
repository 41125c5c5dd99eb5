//! What the pipeline records: the `tracing` spans and events of every stage, with the
//! names and attributes of the OpenTelemetry GenAI semantic conventions. Every span shape
//! and attribute name lives here; the stages only call these functions.
//!
//! - each applied call is a span `execute_tool {gen_ai.tool.name}` (the name in
//!   `otel.name`, which `tracing-opentelemetry` uses as the span's name; `otel.kind =
//!   "internal"`), with `gen_ai.operation.name`, `gen_ai.tool.name`,
//!   `gen_ai.tool.call.id`, `gen_ai.tool.description`, `gen_ai.tool.type`, the outcome
//!   kind in `toolset.outcome`, and `error.type` (plus `otel.status_code = "error"`)
//!   when the call did not succeed (a call to a request's tool search, answered by the
//!   gate, gets one too, without a description);
//! - the gate is a span `gate` with the counts of approved, proposed and rejected calls,
//!   one event `toolset.call.rejected` per problem of a rejected call, and an
//!   `execute_tool` span per rejected call (outcome `rejected`, `error.type` its problem
//!   kind), so that a call the model made but that never ran is still seen;
//! - proposals: events `toolset.proposal.created`, `toolset.proposal.resolved` and
//!   `toolset.proposal.declined`;
//! - a proxied tool withheld because its server changed it after it was pinned: a warning
//!   `toolset.mcp.tool_withheld` (`toolset.mcp.tool_accepted` when the host accepts it,
//!   an error `toolset.mcp.pins_failed` when its pins could not be compared).
//!
//! Arguments and results (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`) and the
//! handler's own error text (`otel.status_description`) may hold secrets: they are
//! recorded only when the host opts in with [`ToolContext::with_traced_content`]. rmcp,
//! under the MCP server, logs whole requests (arguments included) at `DEBUG` on its own
//! targets, out of toolset's reach: the directive `rmcp=info` silences them (see that
//! method; `tests/tests/tracing_rmcp.rs` shows both the leak and the filter).
//!
//! Cost with no subscriber: `apply` checks the maximum level once per program
//! ([`calls_traced`]) and, when nothing records `INFO` spans, runs every call with
//! [`Untraced`], which holds no span, enters nothing and records nothing; the gate's span
//! is one level check. With a subscriber that filters these spans out, a call's span is
//! disabled and every function below returns at once on it (measured in BENCHMARKS.md,
//! "Tracing").

// A leaf: what it records of the stages' values it reads through the small traits below
// (`RejectedProgram`, `ProposalFacts`, `ApprovalResult`), which the stages implement, so
// every stage can call it and it imports none.
use crate::call::ToolCall;
use crate::context::ToolContext;
use crate::outcome::Outcome;
use crate::output::ToolOutput;
use crate::spec::ToolSpec;
use tracing::Span;
use tracing::field::Empty;

/// `gen_ai.tool.type`: what kind of tool a call is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToolType {
    /// A tool run here: compiled into the set (`#[tool]`), or a runtime tool's own handler.
    Function,
    /// A tool run by another system on the agent's behalf (a proxied MCP tool).
    // Only tools proxied through `McpTools` (feature `mcp-client`) are extensions.
    #[cfg_attr(not(feature = "mcp-client"), allow(dead_code))]
    Extension,
}

impl ToolType {
    fn as_str(self) -> &'static str {
        match self {
            ToolType::Function => "function",
            ToolType::Extension => "extension",
        }
    }
}

/// Whether anything may record a call's span: one check of the maximum level, which
/// `apply` makes once per program to pick a call's [`CallSpan`].
#[inline]
pub(crate) fn calls_traced() -> bool {
    tracing::level_enabled!(tracing::Level::INFO)
}

/// What a running call carries for tracing: its `execute_tool` span ([`Span`]), or
/// nothing at all ([`Untraced`]) when no subscriber could record it, so that an
/// untraced call's future holds no span and its polls enter none.
pub(crate) trait CallSpan {
    /// The span of a call about to run (see [`execute_tool`]).
    fn start(spec: &ToolSpec, call: &ToolCall, tool_type: ToolType, ctx: &ToolContext) -> Self;
    /// Runs `work` (a poll of the handler, its drop) inside the span.
    fn in_scope<R>(&self, work: impl FnOnce() -> R) -> R;
    /// Records how the call ended (see [`record_outcome`]).
    fn record(&self, outcome: &Outcome, ctx: &ToolContext);
}

impl CallSpan for Span {
    #[inline]
    fn start(spec: &ToolSpec, call: &ToolCall, tool_type: ToolType, ctx: &ToolContext) -> Self {
        execute_tool(spec, call, tool_type, ctx)
    }

    #[inline]
    fn in_scope<R>(&self, work: impl FnOnce() -> R) -> R {
        Span::in_scope(self, work)
    }

    #[inline]
    fn record(&self, outcome: &Outcome, ctx: &ToolContext) {
        record_outcome(self, outcome, ctx);
    }
}

/// The [`CallSpan`] of a call nothing records: no span, no work.
pub(crate) struct Untraced;

impl CallSpan for Untraced {
    #[inline(always)]
    fn start(_: &ToolSpec, _: &ToolCall, _: ToolType, _: &ToolContext) -> Self {
        Untraced
    }

    #[inline(always)]
    fn in_scope<R>(&self, work: impl FnOnce() -> R) -> R {
        work()
    }

    #[inline(always)]
    fn record(&self, _: &Outcome, _: &ToolContext) {}
}

/// The span of one call: `execute_tool {name}`, entered while the handler runs.
/// The arguments are recorded only when `ctx` opts in.
///
/// Inlined down to one check of the maximum level when nothing records `INFO` spans, so
/// that a call pays neither a function call nor the span's construction.
#[inline]
pub(crate) fn execute_tool(
    spec: &ToolSpec,
    call: &ToolCall,
    tool_type: ToolType,
    ctx: &ToolContext,
) -> Span {
    if !tracing::level_enabled!(tracing::Level::INFO) {
        return Span::none();
    }
    recorded_execute_tool(spec, call, tool_type, ctx)
}

/// [`execute_tool`] when something may record it.
#[inline(never)]
fn recorded_execute_tool(
    spec: &ToolSpec,
    call: &ToolCall,
    tool_type: ToolType,
    ctx: &ToolContext,
) -> Span {
    let span = call_span(call, Some(spec.description()), tool_type);
    if ctx.traces_content() && !span.is_disabled() {
        span.record("gen_ai.tool.call.arguments", &*call.arguments.text());
    }
    span
}

/// A span for a call by the model's tool name, described when the tool is known.
fn call_span(call: &ToolCall, description: Option<&str>, tool_type: ToolType) -> Span {
    tracing::info_span!(
        "execute_tool",
        otel.name = %format_args!("execute_tool {}", call.name),
        otel.kind = "internal",
        otel.status_code = Empty,
        otel.status_description = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = call.name.as_str(),
        gen_ai.tool.call.id = call.id.as_str(),
        gen_ai.tool.description = description,
        "gen_ai.tool.type" = tool_type.as_str(),
        gen_ai.tool.call.arguments = Empty,
        gen_ai.tool.call.result = Empty,
        toolset.outcome = Empty,
        "error.type" = Empty,
    )
}

/// The span of a call that was not started (refused at apply time), closed at once
/// with its outcome.
pub(crate) fn not_run(
    spec: &ToolSpec,
    call: &ToolCall,
    tool_type: ToolType,
    ctx: &ToolContext,
    outcome: &Outcome,
) {
    record_outcome(&execute_tool(spec, call, tool_type, ctx), outcome, ctx);
}

/// The span of a call the gate answered itself (the request's tool search), closed at
/// once with its outcome.
pub(crate) fn answered(call: &ToolCall, ctx: &ToolContext, outcome: &Outcome) {
    let span = call_span(call, None, ToolType::Function);
    if ctx.traces_content() && !span.is_disabled() {
        span.record("gen_ai.tool.call.arguments", &*call.arguments.text());
    }
    record_outcome(&span, outcome, ctx);
}

/// Records how the call ended on its span: the outcome kind, `error.type` and the error
/// status when it did not succeed, and (when `ctx` opts in) the result the model reads
/// and the handler's error text.
#[inline]
pub(crate) fn record_outcome(span: &Span, outcome: &Outcome, ctx: &ToolContext) {
    if !span.is_disabled() {
        record_enabled_outcome(span, outcome, ctx);
    }
}

/// [`record_outcome`] on a span something records.
#[inline(never)]
fn record_enabled_outcome(span: &Span, outcome: &Outcome, ctx: &ToolContext) {
    span.record("toolset.outcome", outcome.kind());
    if let Some(error) = error_type(outcome) {
        span.record("error.type", error);
        span.record("otel.status_code", "error");
    }
    if ctx.traces_content() {
        if let Some(text) = error_text(outcome) {
            span.record("otel.status_description", text);
        }
        span.record(
            "gen_ai.tool.call.result",
            result_text(&outcome.to_tool_output()).as_str(),
        );
    }
}

/// The `error.type` of an outcome: its kind for every way a call fails, `tool_error`
/// for a handler's output marked as an error; `None` for a call that went well (a skip
/// is a deliberate answer, not an error).
fn error_type(outcome: &Outcome) -> Option<&'static str> {
    match outcome {
        Outcome::Done(output) if output.is_error => Some("tool_error"),
        Outcome::Done(_) | Outcome::Skipped { .. } => None,
        Outcome::Failed { .. }
        | Outcome::Retry { .. }
        | Outcome::Refused { .. }
        | Outcome::TimedOut { .. }
        | Outcome::TimedOutWaiting { .. }
        | Outcome::Cancelled
        | Outcome::Panicked { .. } => Some(outcome.kind()),
    }
}

/// The host-side text of why a call did not succeed.
fn error_text(outcome: &Outcome) -> Option<&str> {
    match outcome {
        Outcome::Failed { message } | Outcome::Panicked { message } => Some(message),
        Outcome::Refused { reason } => Some(reason),
        Outcome::Retry { hint } => Some(hint),
        _ => None,
    }
}

/// A result as recorded: its structured JSON when it has one, else its text.
fn result_text(output: &ToolOutput) -> String {
    match output.structured_content() {
        Some(value) => value.to_string(),
        None => output.text_content(),
    }
}

/// The span of the gate: what it decided about a program, recorded when it is done.
#[inline]
pub(crate) fn gate() -> Span {
    if !tracing::level_enabled!(tracing::Level::INFO) {
        return Span::none();
    }
    gate_span()
}

/// [`gate`] when something may record it.
#[inline(never)]
fn gate_span() -> Span {
    tracing::info_span!(
        "gate",
        otel.name = "gate",
        otel.kind = "internal",
        otel.status_code = Empty,
        toolset.gate.calls = Empty,
        toolset.gate.approved = Empty,
        toolset.gate.proposed = Empty,
        toolset.gate.rejected = Empty,
    )
}

/// Records a program the gate let through: how many calls run and how many wait.
pub(crate) fn record_planned(span: &Span, calls: usize, approved: usize, proposed: usize) {
    if span.is_disabled() {
        return;
    }
    span.record("toolset.gate.calls", calls);
    span.record("toolset.gate.approved", approved);
    span.record("toolset.gate.proposed", proposed);
    span.record("toolset.gate.rejected", 0_usize);
}

/// Records a rejected program on the gate's span (called inside it): nothing approved,
/// one event per problem, and an `execute_tool` span per rejected call with `error.type`
/// set to its (first) problem's kind. The problem messages are not recorded: they may
/// quote the arguments; the kinds say what went wrong.
pub(crate) fn record_rejected<T: Described>(span: &Span, rejected: &impl RejectedProgram) {
    if span.is_disabled() {
        return;
    }
    let calls = rejected.rejected_calls();
    let mut bad = vec![false; calls.len()];
    for problem in rejected.rejected_problems() {
        let index = problem.call;
        tracing::info!(
            gen_ai.tool.name = problem.name,
            gen_ai.tool.call.id = problem.call_id,
            toolset.problem = problem.kind,
            "toolset.call.rejected"
        );
        let Some(call) = calls.get(index) else {
            continue;
        };
        if std::mem::replace(&mut bad[index], true) {
            continue;
        }
        let description = T::description(&call.name);
        let call_span = call_span(call, description, ToolType::Function);
        call_span.record("toolset.outcome", "rejected");
        call_span.record("error.type", problem.kind);
        call_span.record("otel.status_code", "error");
    }
    span.record("toolset.gate.calls", calls.len());
    span.record("toolset.gate.approved", 0_usize);
    span.record("toolset.gate.proposed", 0_usize);
    span.record(
        "toolset.gate.rejected",
        bad.iter().filter(|bad| **bad).count(),
    );
    span.record("otel.status_code", "error");
}

/// The tools a rejected call's span is described from: every `ToolSet` (a blanket impl in
/// `set.rs`).
pub(crate) trait Described {
    /// The description of the tool named `name`, if there is one.
    fn description(name: &str) -> Option<&'static str>;
}

/// A program the gate rejected, as its span records it (implemented by `gate::Rejected`).
pub(crate) trait RejectedProgram {
    /// The program's calls, in the model's order.
    fn rejected_calls(&self) -> &[ToolCall];
    /// Each problem found, in order.
    fn rejected_problems(&self) -> impl Iterator<Item = RejectedCall<'_>>;
}

/// One problem of a rejected program, as recorded.
pub(crate) struct RejectedCall<'a> {
    /// The tool name the model used.
    pub(crate) name: &'a str,
    /// The call's id.
    pub(crate) call_id: &'a str,
    /// The problem's kind, as `error.type` records it (`unknown_tool`, ...).
    pub(crate) kind: &'static str,
    /// The position of its call in the program.
    pub(crate) call: usize,
}

/// A proposal, as its events record it (implemented by `Proposal`).
pub(crate) trait ProposalFacts {
    /// The withheld call.
    fn proposed_call(&self) -> &ToolCall;
    /// The tier it was withheld at, as recorded.
    fn tier_name(&self) -> &'static str;
    /// Whether the tool only ever proposes.
    fn propose_only(&self) -> bool;
}

/// What acting on a human's approval gave, as its event records it (implemented by the
/// result of `approval::approve`).
pub(crate) trait ApprovalResult {
    /// `run`, `handoff` or `refused`; the kind of refusal; the approved call, if any.
    fn resolution(&self) -> (&'static str, Option<&'static str>, Option<&ToolCall>);
}

/// An error event: the set `set` has tools whose declarations are broken (`problems` says
/// which and why), found at its first use in a release build.
pub(crate) fn misdeclared_set(set: &str, problems: &str) {
    tracing::error!(
        toolset.set = set,
        toolset.problems = problems,
        "toolset.set.misdeclared"
    );
}

/// A warning event: the proxied tool `tool` of the namespace `namespace` is withheld,
/// changed since it was pinned (`changed` names the fields) or, `new`, added while the
/// host holds new tools.
#[cfg_attr(not(feature = "mcp-client"), allow(dead_code))]
pub(crate) fn proxied_tool_withheld(namespace: &str, tool: &str, new: bool, changed: &str) {
    tracing::warn!(
        toolset.namespace = namespace,
        gen_ai.tool.name = tool,
        toolset.new = new,
        toolset.changed = changed,
        "toolset.mcp.tool_withheld"
    );
}

/// An event: the host accepted the changed or new definition of the proxied tool `tool`.
#[cfg_attr(not(feature = "mcp-client"), allow(dead_code))]
pub(crate) fn proxied_tool_accepted(namespace: &str, tool: &str) {
    tracing::info!(
        toolset.namespace = namespace,
        gen_ai.tool.name = tool,
        "toolset.mcp.tool_accepted"
    );
}

/// An error event: the pins of the namespace `namespace` could not be compared (the
/// store failed), so every tool of it is withheld.
#[cfg_attr(not(feature = "mcp-client"), allow(dead_code))]
pub(crate) fn pins_failed(namespace: &str, error: &dyn std::fmt::Display) {
    tracing::error!(
        toolset.namespace = namespace,
        toolset.error = %error,
        "toolset.mcp.pins_failed"
    );
}

/// An event: the plan withheld this call for a human.
pub(crate) fn proposal_created(proposal: &impl ProposalFacts) {
    tracing::info!(
        gen_ai.tool.name = proposal.proposed_call().name.as_str(),
        gen_ai.tool.call.id = proposal.proposed_call().id.as_str(),
        toolset.tier = proposal.tier_name(),
        toolset.propose_only = proposal.propose_only(),
        "toolset.proposal.created"
    );
}

/// An event: a human's approval of a proposal was acted on, and with what result
/// (`run`, `handoff`, or `refused` with the kind of refusal). The tool and call are named
/// when the approval held; a refused one names only the proposal it was for.
pub(crate) fn proposal_resolved(proposal_id: &str, approved: &impl ApprovalResult) {
    let (resolution, refusal, call) = approved.resolution();
    tracing::info!(
        toolset.proposal.id = proposal_id,
        gen_ai.tool.name = call.map(|call| call.name.as_str()),
        gen_ai.tool.call.id = call.map(|call| call.id.as_str()),
        toolset.resolution = resolution,
        "error.type" = refusal,
        "toolset.proposal.resolved"
    );
}

/// An event: a human declined a proposal.
pub(crate) fn proposal_declined(proposal: &impl ProposalFacts) {
    tracing::info!(
        gen_ai.tool.name = proposal.proposed_call().name.as_str(),
        gen_ai.tool.call.id = proposal.proposed_call().id.as_str(),
        toolset.resolution = "declined",
        "toolset.proposal.resolved"
    );
}
