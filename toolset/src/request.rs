//! One request to a model: the one thing that decides what the model is offered, what the
//! gate permits and therefore what runs (DESIGN.md, "One invariant above all").
//!
//! A [`Request`] is built per provider call from the [`Policy`], the conversation's
//! [`Activations`], the tools a procedure injects, and the tool names the history already
//! uses. Its list is composed in four sections, each appended after the one before, so a
//! growing conversation never changes the bytes a provider has cached:
//!
//! 1. **offered**: the set's tools the policy neither hides, denies nor defers, in declared
//!    order, then the toolbox's runtime tools likewise (the policy names those by name,
//!    checked when the toolbox joins: [`Request::toolbox`]); where the format has native tool search (Anthropic, OpenAI Responses) the
//!    deferred tools stay in their declared place marked `defer_loading: true`; then the
//!    search tool, whenever some tool is deferred (never itself deferred; the local search
//!    not at [`Autonomy::Off`](crate::Autonomy::Off), see `Request::search_runs_here`);
//! 2. **activated**: deferred tools a search (or any tool's output) activated, in the order
//!    they were activated (formats without native search only: the others list them
//!    already);
//! 3. **injected**: tools a procedure adds for this request;
//! 4. **history**: every other tool the history names, declared so the provider accepts the
//!    conversation, but *not* permitted; a name the set does not have gets a minimal
//!    stand-in declaration, and so does a tool the policy hides: to the model a hidden tool
//!    is a name no tool has, everywhere (`Policy::conceals`).
//!
//! Each section is a concatenation of per-tool fragments rendered once per format and kept
//! in the set's render cache: composing a list does no schema work. In OpenAI Responses a
//! toolbox namespace's tools in the offered section are wrapped in one `namespace` entry
//! (its opening bytes rendered once per namespace, each tool's fragment named without
//! `label_`); the later sections list a namespace's tools flat, so nothing before them moves
//! (see `Request::namespaces`).
//! The list holds its
//! strict tools to the provider's per-request limits (Anthropic, OpenAI): a sum of each
//! fragment's cached strict cost, spent in list order; a tool past them is listed by its
//! form without `strict`, rendered once ([`Request::strict_downgrades`] names them).
//!
//! Where the provider has a tool choice naming what may be called (OpenAI Chat and
//! Responses, Gemini), the request renders it from the layout the gate reads
//! ([`Request::tool_choice`]), and a *fixed* list with it ([`Request::fixed_tools`]): every
//! deferred tool in its declared place whether activated or not, so the list's bytes stay
//! put for the whole conversation while the choice follows what the gate permits.
//!
//! Where the model's code calls tools (programmatic tool calling,
//! [`Request::code_execution`]), the list says of each tool who may call it
//! (`allowed_callers`, appended to the cached fragment as `defer_loading` is) from the
//! policy's one rule ([`Policy::allows_from_code`]), and the gate permits calls from code
//! exactly there.
//!
//! The request is also the one gate ([`Request::gate`], and [`Request::check`] for one
//! call): it supplies the route of each call (what it offers), `gate.rs` checks the program
//! through it, and `plan.rs` splits what passed by tier. The gate reads no format: where a
//! format lists deferred tools for its native search, they are listed, not permitted, and
//! a call to one is answered as in every other format.

use crate::consumer::callers::{allowed_callers, allowed_callers_value};
use crate::consumer::list::{Fragment, tool_value_as};
use crate::consumer::openai_responses::namespace::{self, has_namespaces};
use crate::consumer::strict_budget::spend;
use crate::consumer::tool_choice::{Allowed, has_tool_choice, tool_choice};
use crate::consumer::{
    Announced, ChoiceMode, FixedTools, Format, StrictDowngrade, ToolChanges, ToolChoiceError,
};
use crate::exposure::Exposure;
use crate::gate::{Checked, Route, check_one, check_program};
use crate::plan::Split;
use crate::policy::{Availability, PolicyNameError, Trifecta};
use crate::search::{
    SEARCH_TOOL_NAME, SearchArgs, ToolSearch, lists_deferred, nothing_found, search,
    search_fragment, search_spec,
};
use crate::set::ToolName;
use crate::spec::Labels;
use crate::toolbox::{Namespace, RuntimeTool, Toolbox};
use crate::{Autonomy, CallProblem, ProblemKind, messages, trace};
use crate::{Plan, Policy, Rejected, Report, ToolCall, ToolOutput, ToolSet, ToolSpec};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::cell::OnceCell;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// The deferred tools a conversation has activated, in activation order.
///
/// The host keeps one per conversation (it serializes as a JSON array of names) and hands
/// it to every [`Request`] of that conversation. Names are only ever appended, so the
/// activated section of a list only grows at its end.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Activations {
    names: Vec<String>,
}

impl Activations {
    /// No tool activated yet.
    pub fn new() -> Self {
        Activations::default()
    }

    /// Activates `name`; returns false when it already was.
    pub fn activate(&mut self, name: impl Into<String>) -> bool {
        let name = name.into();
        if self.names.contains(&name) {
            return false;
        }
        self.names.push(name);
        true
    }

    /// The activated names, in activation order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Whether `name` was activated.
    pub fn contains(&self, name: &str) -> bool {
        self.names.iter().any(|activated| activated == name)
    }

    /// Records what the calls of `report` activated (a search's finds, or any tool's
    /// [`ToolOutput::activates`]); `apply` has already checked every name against the set
    /// and the policy (a name the set lacks, or a tool the policy hides, failed the call).
    /// Returns how many names were new.
    pub fn record(&mut self, report: &Report) -> usize {
        let mut added = 0;
        for (_, outcome) in report.outcomes() {
            if let crate::Outcome::Done(output) = outcome {
                for name in output.activates() {
                    added += usize::from(self.activate(name.clone()));
                }
            }
        }
        added
    }

    /// Records the tools a provider's *hosted* search loaded in `response`, to call
    /// before gating that response's calls (the model may call a tool in the same
    /// response that found it). Reads Anthropic `tool_search_tool_result` blocks (their
    /// `tool_reference`s) in a message, and OpenAI Responses `tool_search_output` items
    /// (their `tools`; a `namespace` entry's tools by their local names, `label_tool`) in
    /// a response or its `output` array; anything else is ignored.
    /// Returns the names that were new.
    pub fn record_hosted(&mut self, response: &Value) -> Vec<String> {
        let mut found = Vec::new();
        let items = response
            .get("content")
            .or_else(|| response.get("output"))
            .unwrap_or(response);
        for item in items.as_array().into_iter().flatten() {
            match item.get("type").and_then(Value::as_str) {
                Some("tool_search_tool_result") => {
                    let references = item.pointer("/content/tool_references");
                    for reference in references.and_then(Value::as_array).into_iter().flatten() {
                        if let Some(name) = reference.get("tool_name").and_then(Value::as_str) {
                            found.push(name.to_owned());
                        }
                    }
                }
                Some("tool_search_output") => {
                    let tools = item.get("tools").and_then(Value::as_array);
                    for tool in tools.into_iter().flatten() {
                        let Some(name) = tool.get("name").and_then(Value::as_str) else {
                            continue;
                        };
                        if tool.get("type").and_then(Value::as_str) != Some("namespace") {
                            found.push(name.to_owned());
                            continue;
                        }
                        // A namespace's loaded tools, each by its local name `label_tool`.
                        let inner = tool.get("tools").and_then(Value::as_array);
                        for function in inner.into_iter().flatten() {
                            if let Some(inner) = function.get("name").and_then(Value::as_str) {
                                found.push(namespace::local_name(Some(name), inner));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        found.retain(|name| self.activate(name.clone()));
        found
    }
}

/// One request to a model: the gate that permits exactly what its tool list offers, for
/// compiled and runtime tools alike.
///
/// The one gate: build one per provider call, render [`tool_list`](Self::tool_list) into
/// the request body, and pass the model's calls to [`gate`](Self::gate) (or one call, as
/// soon as it is complete, to [`check`](Self::check)). `Set::gate(calls, autonomy)` and
/// `Set::gate_with(calls, &policy)` are `Request::new(&policy).gate(calls)`: a fresh
/// conversation (no activations, nothing injected, no history, no toolbox). Runtime tools
/// join a request by [`toolbox`](Self::toolbox). Where the provider can be told which
/// tools may be called (OpenAI, Gemini), send [`tool_choice`](Self::tool_choice) beside the
/// list, or [`fixed_tools`](Self::fixed_tools) for a list whose bytes never change during
/// the conversation.
///
/// Gating needs no format: what the gate permits, refuses and answers depends on the
/// policy, the conversation (activations, injections, history), the toolbox and the
/// [`ToolSearch`] alone. The format, given by [`format`](Self::format), is what the list is
/// rendered in ([`tool_list`](Self::tool_list), [`declared`](Self::declared), the order of
/// [`offered`](Self::offered)) and the wire shape of a local search's answer (OpenAI
/// Responses loads the definitions it finds); a request given none renders MCP's
/// `tools/list` shape.
///
/// ```
/// use toolset::prelude::*;
/// use toolset::consumer::Format;
/// use toolset::{Activations, Autonomy, Request, ToolCall, tool, toolset};
///
/// /// Tell the time.
/// #[tool(tier = "read_only")]
/// async fn now() -> String { "noon".into() }
///
/// /// Convert an amount between currencies.
/// #[tool(tier = "read_only", deferred)]
/// async fn convert(/// The amount, e.g. "12 EUR".
///     amount: String, /// The currency to convert to.
///     to: String) -> String { format!("{amount} in {to}") }
///
/// toolset! { Tools = [now, convert]; }
///
/// let policy = Tools::policy(Autonomy::ReadOnly);
/// let mut activations = Activations::new();
/// let request = Request::new(&policy).format(Format::OpenAiChat).activated(&activations);
/// assert_eq!(request.offered(), ["now", "tool_search"]);
/// assert!(request.gate([ToolCall::new("c1", "convert", "{}")]).is_err());
///
/// // The model searches; the search activates what it found.
/// let plan = request.gate([ToolCall::new("c2", "tool_search", r#"{"query":"currency"}"#)])?;
/// # let report = futures_executor_free(plan);
/// activations.record(&report);
/// let next = Request::new(&policy).format(Format::OpenAiChat).activated(&activations);
/// assert_eq!(next.offered(), ["now", "tool_search", "convert"]);
/// # fn futures_executor_free(plan: toolset::Plan<Tools>) -> toolset::Report {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap()
/// #         .block_on(Tools::apply(&mut (), &toolset::ToolContext::default(), plan))
/// # }
/// # Ok::<(), toolset::Rejected>(())
/// ```
pub struct Request<'p, T: ToolSet> {
    policy: &'p Policy<T>,
    /// What the list is rendered in; `None`: MCP's shape. Never read by the gate but for
    /// the wire shape of a search's answer.
    format: Option<Format>,
    search: ToolSearch,
    activated: Vec<T::Name>,
    /// Activated names the set does not have: the toolbox's deferred runtime tools a
    /// search found (checked against the toolbox's tools where used).
    activated_runtime: Vec<String>,
    injected: Vec<T::Name>,
    /// Names the history uses, in order of first use.
    history: Vec<String>,
    /// The toolbox the request is for (none for a bare set).
    toolbox: Option<&'p Toolbox<T>>,
    /// Its runtime tools, offered after the set's offered tools in the order they were
    /// added: a snapshot taken at first use (a call to a tool of the set takes none), so
    /// this request's list and gate agree even while a namespace refreshes.
    runtime: OnceLock<Vec<Arc<RuntimeTool>>>,
    /// What [`tool_choice`](Self::tool_choice) asks of the model.
    choice_mode: ChoiceMode,
    /// Whether the model runs code that calls tools in this request (see
    /// [`code_execution`](Self::code_execution)).
    code_execution: bool,
    /// Whether the list may mark tools strict (see [`strict`](Self::strict)).
    strict: bool,
    /// What the run has read so far (see [`exposure`](Self::exposure)).
    exposure: Exposure,
}

/// The tool a human may approve a call to (see `Request::approvable`).
pub(crate) enum Approvable<N> {
    /// A tool of the set.
    Tool(N),
    /// A runtime tool of the request's toolbox.
    Runtime(Arc<RuntimeTool>),
}

/// One entry of a composed list.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    /// A tool of the set; `defer_loading` marks a deferred tool a native search loads.
    Tool { index: usize, defer_loading: bool },
    /// The search tool.
    Search,
    /// A stand-in declaration for a history name the set does not have.
    StandIn(usize),
    /// A runtime tool of the request's toolbox, by its position there; `defer_loading`
    /// marks a deferred one a native search loads.
    Runtime {
        position: usize,
        defer_loading: bool,
    },
}

/// What a request offers and declares, computed from its inputs.
struct Layout {
    entries: Vec<Entry>,
    /// How many of `entries` are the offered section (with the search): what follows
    /// (activated, injected, history) is only ever appended.
    offered: usize,
    /// By tool index: may the gate let a call to it through.
    permitted: Vec<bool>,
    /// Likewise for the runtime tools, by position in the request's snapshot.
    runtime_permitted: Vec<bool>,
    /// Whether the model calls the search by [`SEARCH_TOOL_NAME`] for the host to answer
    /// (not when the provider hosts it).
    search_callable: bool,
}

impl<'p, T: ToolSet> Request<'p, T> {
    /// A request under `policy`, with nothing activated, injected or in its history, and
    /// no toolbox: enough to gate. Give it a [`format`](Self::format) to render its list.
    pub fn new(policy: &'p Policy<T>) -> Self {
        // Every use of a set (a gate, a check, a list) starts here.
        T::render_cache().announce_misdeclared(T::NAME, T::specs());
        Request {
            policy,
            format: None,
            search: ToolSearch::default(),
            activated: Vec::new(),
            activated_runtime: Vec::new(),
            injected: Vec::new(),
            history: Vec::new(),
            toolbox: None,
            runtime: OnceLock::new(),
            choice_mode: ChoiceMode::default(),
            code_execution: false,
            strict: true,
            exposure: Exposure::new(),
        }
    }

    /// The consumer the list is rendered for ([`tool_list`](Self::tool_list),
    /// [`declared`](Self::declared), the order of [`offered`](Self::offered)), and the wire
    /// shape of the local search's answer. What the gate permits does not depend on it.
    pub fn format(mut self, format: Format) -> Self {
        self.format = Some(format);
        self
    }

    /// Offers the runtime tools of `toolbox` too (after the set's offered tools, in the
    /// order they were added) as the policy has them (denied, hidden and deferred by
    /// [`Policy::deny_runtime`] and friends), and gates their calls like the set's: what
    /// the list offers is what the gate permits. What [`Toolbox::request`] does.
    ///
    /// When the policy names runtime tools, the toolbox's runtime tools are read now (the
    /// snapshot this request keeps) and every name the policy gives must be one of them:
    /// [`PolicyNameError`] otherwise, naming each unknown name, the closest tool name and
    /// the toolbox's runtime tools. A misspelled name never leaves a tool unrestricted.
    pub fn toolbox(mut self, toolbox: &'p Toolbox<T>) -> Result<Self, PolicyNameError> {
        self.toolbox = Some(toolbox);
        self.runtime = OnceLock::new();
        if self.policy.names_runtime_tools() {
            let names = self
                .runtime()
                .iter()
                .map(|tool| (tool.spec().name(), tool.spec().tier()));
            self.policy.check_runtime_names(names)?;
        }
        Ok(self)
    }

    /// [`toolbox`](Self::toolbox) without the check of the policy's runtime names: only
    /// for a policy that names none (a fresh one, [`Toolbox::tool_list`]'s).
    pub(crate) fn toolbox_unchecked(mut self, toolbox: &'p Toolbox<T>) -> Self {
        self.toolbox = Some(toolbox);
        self.runtime = OnceLock::new();
        self
    }

    /// The runtime tools of the request's toolbox: a snapshot taken once, at first use, so
    /// a namespace refreshing meanwhile changes the next request, not this one.
    fn runtime(&self) -> &[Arc<RuntimeTool>] {
        self.runtime
            .get_or_init(|| self.toolbox.map(Toolbox::runtime_tools).unwrap_or_default())
    }

    /// The runtime tool called `name`, with its position in the toolbox, as the model may
    /// know it in this request: `None` for a name no runtime tool has and for one the
    /// policy hides alike (as [`lookup`](Self::lookup) for the set's tools).
    fn runtime_tool(&self, name: &str) -> Option<(usize, &Arc<RuntimeTool>)> {
        if self.policy.runtime_availability(name) == Availability::Hidden {
            return None;
        }
        self.runtime()
            .iter()
            .enumerate()
            .find(|(_, tool)| tool.spec().name() == name)
    }

    /// Whether the gate lets a call to the runtime tool `name` through: offered by the
    /// policy, or deferred and activated. The one reading of the policy the layout's
    /// `runtime_permitted` and the gate's route share.
    fn permits_runtime(&self, name: &str) -> bool {
        match self.policy.runtime_availability(name) {
            Availability::Offered => true,
            Availability::Deferred => self.activated_runtime.iter().any(|known| known == name),
            Availability::Hidden | Availability::Denied => false,
        }
    }

    /// The set's tool `name` names, as the model may know it in this request: `None` for a
    /// name the set does not have and for a tool the policy hides (unless injected here)
    /// alike ([`Policy::conceals`], the one rule of what a hidden tool is). Every name the
    /// model or the history brings is looked up through this, so a hidden tool is declared,
    /// refused and suggested exactly as a name no tool has.
    fn lookup(&self, name: &str) -> Option<T::Name> {
        T::Name::from_name(name).filter(|&tool| self.knows(tool))
    }

    /// Whether the model may know the set's `tool` in this request: [`lookup`](Self::lookup)'s
    /// rule, for a name already found.
    fn knows(&self, tool: T::Name) -> bool {
        !self.policy.conceals(tool, &self.injected)
    }

    /// The conversation's activated tools. A name the set does not have activates the
    /// toolbox's runtime tool of that name if the policy defers it (a search found it), and
    /// nothing otherwise; a denied or hidden one stays out.
    pub fn activated(mut self, activations: &Activations) -> Self {
        for name in activations.names() {
            match T::Name::from_name(name) {
                Some(tool) => {
                    if !self.activated.contains(&tool) {
                        self.activated.push(tool);
                    }
                }
                None => {
                    if !self.activated_runtime.contains(name) {
                        self.activated_runtime.push(name.clone());
                    }
                }
            }
        }
        self
    }

    /// What the run has read so far, by its calls that ran ([`Exposure::record`] after each
    /// applied plan): the gate's lethal-trifecta rule. A call to a tool that sends outside
    /// ([`Labels::sends_outside`](crate::Labels::sends_outside)) is held back when the run
    /// has read the user's private data and untrusted content: proposed whatever the
    /// autonomy, with the reason shown to the human, or refused when the policy says
    /// [`Trifecta::Deny`](crate::Trifecta::Deny); a tool the policy
    /// [allows sending](Policy::allow_sending) runs as its tier says.
    ///
    /// Within one program the gate counts what every call of the program reads too (a
    /// program that reads private data and untrusted content and sends is held back as a
    /// whole), whatever their order and whether they run now or are proposed: the gate
    /// decides before anything runs, and a proposed read may be approved before the send.
    /// A request given no exposure judges a run that has read nothing before this program.
    pub fn exposure(mut self, exposure: &Exposure) -> Self {
        self.exposure = exposure.clone();
        self
    }

    /// What a program of `calls` is judged under: the run's exposure, and what each of its
    /// calls reads (by the labels of the tool it names, as the model may know it in this
    /// request: a concealed tool adds nothing, so no message names it). `None` when no
    /// call of the program sends outside: the rule has nothing to hold back.
    fn program_exposure(&self, calls: &[ToolCall]) -> Option<Exposure> {
        // A set none of whose tools sends, with no runtime tools beside it: nothing to
        // hold back, and nothing to look up.
        if self.toolbox.is_none() && !T::render_cache().sends_outside(T::specs()) {
            return None;
        }
        // Most programs send nothing outside: they cost one label lookup a call, and no
        // allocation.
        let sends = |call: &ToolCall| {
            self.labels_of(&call.name)
                .is_some_and(|l| l.sends_outside())
        };
        if !calls.iter().any(sends) {
            return None;
        }
        let mut exposure = self.exposure.clone();
        for call in calls {
            if let Some(labels) = self.labels_of(&call.name) {
                exposure.read(&call.name, labels);
            }
        }
        Some(exposure)
    }

    /// The labels of the tool called `name` as the model may know it in this request.
    fn labels_of(&self, name: &str) -> Option<Labels> {
        match T::Name::from_name(name) {
            // The name found once, then `lookup`'s rule: a concealed tool has no labels here.
            Some(tool) => self.knows(tool).then(|| T::spec_of(tool).labels()),
            None if name == SEARCH_TOOL_NAME => None,
            None => self
                .runtime_tool(name)
                .map(|(_, tool)| tool.spec().labels()),
        }
    }

    /// Whether the trifecta rule holds back a call to `name` (labelled `labels`) in a
    /// program judged under `program`: the reason when it does.
    fn held_back(&self, name: &str, labels: Labels, program: Option<&Exposure>) -> Option<String> {
        let program = program?;
        if !labels.sends_outside() || !program.is_exposed() || !self.policy.holds_back_sending(name)
        {
            return None;
        }
        Some(messages::trifecta_reason(
            name,
            program.private_from(),
            program.untrusted_from(),
        ))
    }

    /// Refuses a held-back call when the policy denies it ([`Trifecta::Deny`]).
    fn refuse_held(
        &self,
        call: &ToolCall,
        labels: Labels,
        program: Option<&Exposure>,
    ) -> Result<(), CallProblem> {
        if self.policy.trifecta_rule() != Trifecta::Deny
            || self.held_back(&call.name, labels, program).is_none()
        {
            return Ok(());
        }
        let Some(program) = program else {
            return Ok(());
        };
        Err(CallProblem {
            call_id: call.id.clone(),
            name: call.name.clone(),
            kind: ProblemKind::Denied,
            message: messages::trifecta_denied(
                &call.name,
                program.private_from(),
                program.untrusted_from(),
            ),
        })
    }

    /// Adds `tool` for this request (a procedure's own tool, say), after the activated
    /// ones; even a hidden or deferred tool, never a denied one.
    pub fn inject(mut self, tool: T::Name) -> Self {
        if !self.injected.contains(&tool) {
            self.injected.push(tool);
        }
        self
    }

    /// The tool names the conversation's history already uses (its calls and results):
    /// each is declared, so the provider accepts the history, but only permitted if the
    /// request offers it anyway. A name the set does not have, and a tool the policy hides,
    /// are declared by the same stand-in, which says nothing of the tool.
    pub fn history<I, N>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = N>,
        N: AsRef<str>,
    {
        for name in names {
            let name = name.as_ref();
            if !self.history.iter().any(|known| known == name) {
                self.history.push(name.to_owned());
            }
        }
        self
    }

    /// Who runs tool search (default: [`ToolSearch::Local`] with BM25).
    pub fn search(mut self, search: ToolSearch) -> Self {
        self.search = search;
        self
    }

    /// What [`tool_choice`](Self::tool_choice) and [`fixed_tools`](Self::fixed_tools) ask
    /// of the model (default: [`ChoiceMode::Auto`], the model may call any permitted tool or
    /// answer in text). What the gate permits does not depend on it.
    pub fn choice_mode(mut self, mode: ChoiceMode) -> Self {
        self.choice_mode = mode;
        self
    }

    /// Whether the model may run code that calls the host's tools in this request
    /// (programmatic tool calling: Anthropic's code execution tool, OpenAI Responses'
    /// `programmatic_tool_calling`; the host adds that tool to the request body itself).
    /// Default: no.
    ///
    /// With it, the list says of every tool it declares (Anthropic and OpenAI Responses,
    /// the formats whose tools have the field) who may call it, `allowed_callers`:
    /// `["direct"]`, or with the code caller too for a tool the policy lets code call
    /// ([`Policy::allows_from_code`]; read-only tools by default, never an irreversible
    /// one), and the gate permits a call from code ([`ToolCall::caller`]) exactly to those.
    /// Without it the list says nothing (the providers' default is `direct` only) and the
    /// gate refuses every call from code. Either way a refused call from code is answered
    /// with a problem of kind [`ProblemKind::NotFromCode`] telling the model to call the
    /// tool directly, and a permitted one is gated, split by tier and approved exactly as
    /// a direct call is.
    ///
    /// ```
    /// use toolset::consumer::Format;
    /// use toolset::{Autonomy, Caller, Policy, ProblemKind, Request, ToolCall, tool, toolset};
    ///
    /// /// Look up an order.
    /// #[tool(tier = "read_only")]
    /// async fn order(/// The order's number.
    ///     number: u32) -> String { format!("order {number}: shipped") }
    ///
    /// /// Refund an order.
    /// #[tool(tier = "external_reversible")]
    /// async fn refund(/// The order's number.
    ///     number: u32) -> String { format!("refunded {number}") }
    ///
    /// toolset! { Shop = [order, refund]; }
    ///
    /// let policy = Policy::<Shop>::new(Autonomy::ExternalReversible);
    /// let request = Request::new(&policy).format(Format::OpenAiResponses).code_execution(true);
    /// let list: serde_json::Value = serde_json::from_str(&request.tool_list()).unwrap();
    /// assert_eq!(list[0]["allowed_callers"], serde_json::json!(["direct", "programmatic"]));
    /// assert_eq!(list[1]["allowed_callers"], serde_json::json!(["direct"]));
    ///
    /// let from_code = Caller::code("program", "call_program_1");
    /// let read = ToolCall::new("c1", "order", r#"{"number":7}"#).with_caller(from_code.clone());
    /// assert!(request.gate([read]).is_ok());
    /// let write = ToolCall::new("c2", "refund", r#"{"number":7}"#).with_caller(from_code);
    /// let refused = request.gate([write]).unwrap_err();
    /// assert_eq!(refused.problems()[0].kind, ProblemKind::NotFromCode);
    /// ```
    pub fn code_execution(mut self, on: bool) -> Self {
        self.code_execution = on;
        self
    }

    /// Whether the model's code may call the set's `tool` in this request: the request
    /// runs code, and the policy lets code call it. What the list renders and the gate
    /// permits.
    fn code_may_call(&self, tool: T::Name) -> bool {
        self.code_execution && self.policy.allows_from_code(tool)
    }

    /// [`code_may_call`](Self::code_may_call) for a runtime tool.
    fn code_may_call_runtime(&self, tool: &RuntimeTool) -> bool {
        let spec = tool.spec();
        self.code_execution
            && self
                .policy
                .runtime_allows_from_code(spec.name(), spec.tier())
    }

    /// `Err` when `call` comes from code and `allowed` says code may not make it: the
    /// problem that tells the model to call the tool directly.
    fn refuse_from_code(&self, call: &ToolCall, allowed: bool) -> Result<(), CallProblem> {
        if call.is_from_code() && !allowed {
            return Err(CallProblem {
                call_id: call.id.clone(),
                name: call.name.clone(),
                kind: ProblemKind::NotFromCode,
                message: messages::not_from_code(&call.name),
            });
        }
        Ok(())
    }

    /// Whether the list may mark tools strict (default: true): each tool whose schema fits
    /// the provider's strict subset, within the provider's per-request limits (see
    /// [`strict_downgrades`](Self::strict_downgrades)). With false no tool is rendered
    /// strict (OpenAI: `strict: false` and the plain schema; Anthropic: no `strict` key),
    /// for a model without strict tool use, and nothing is reported as downgraded. What
    /// the gate permits and checks does not depend on it.
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// The format the list is rendered in: the one given, or MCP's.
    fn rendered_as(&self) -> Format {
        self.format.unwrap_or(Format::Mcp)
    }

    /// The policy in force.
    pub fn policy(&self) -> &Policy<T> {
        self.policy
    }

    /// Whether `tool` is deferred by the policy (and neither hidden nor denied): what a
    /// search may find and an activation may add.
    fn searchable(&self, tool: T::Name) -> bool {
        self.policy.availability(tool) == Availability::Deferred
    }

    /// Whether the host answers a tool search in this request: the search is local
    /// ([`ToolSearch::Local`]) and the policy's autonomy is not [`Autonomy::Off`]. What the
    /// gate answers, in every format.
    ///
    /// At `Off` nothing of the host runs without the user, and the local search would run
    /// here, in the gate, unattended. Making its calls proposals does not fit: what a human
    /// approves is re-verified against the set, which has no search tool, and a human asked
    /// to approve a look through the tool descriptions learns nothing worth the
    /// interruption. So at `Off` the request offers no local search: its list does not
    /// declare it, deferred tools stay out of the list (even in formats that list them for a
    /// native search to load: no search could load them), and a call to `tool_search` is
    /// answered as a call to a name the request does not offer. A deferred tool is still
    /// offered once activated or injected.
    fn search_runs_here(&self) -> bool {
        matches!(self.search, ToolSearch::Local(_)) && self.policy.autonomy() != Autonomy::Off
    }

    /// Whether the list in `format` offers a tool search: the local one when it runs here
    /// ([`search_runs_here`](Self::search_runs_here)); a hosted one where `format` has one
    /// (Anthropic, OpenAI Responses), at every autonomy, since it runs at the provider. A
    /// hosted search asked of a format without one offers none: nothing but an activation
    /// or an injection adds a deferred tool there. `None`: the gate's view, no format.
    fn lists_search(&self, format: Option<Format>) -> bool {
        format.is_some_and(|format| self.search.hosted_in(format)) || self.search_runs_here()
    }

    /// What the request lists and permits, in the list's order for `format`; `None` is the
    /// gate's view, which no format changes (deferred tools are not listed, activated ones
    /// come after the offered ones).
    fn layout(&self, format: Option<Format>) -> Layout {
        self.layout_as(format, false)
    }

    /// [`layout`](Self::layout), or with `fixed` (and a format) the fixed list's: every
    /// tool the policy defers, set's and toolbox's, listed in its declared place whether
    /// activated or not (marked `defer_loading` where the format's native search loads it),
    /// so activating a tool changes what is permitted and not one byte of the list.
    /// What is permitted is the same either way.
    fn layout_as(&self, format: Option<Format>, fixed: bool) -> Layout {
        let fixed = fixed && format.is_some();
        let specs = T::specs();
        let lists_search = self.lists_search(format);
        // Anthropic's fixed list marks every deferred tool `defer_loading`: a
        // `tool_addition` block offers it when the gate comes to permit it.
        let native = format.is_some_and(lists_deferred) && lists_search
            || fixed && format == Some(Format::Anthropic);
        let runtime = self.runtime();
        let mut entries = Vec::with_capacity(specs.len() + runtime.len() + 1);
        let mut permitted = vec![false; specs.len()];
        let mut listed = vec![false; specs.len()];
        let mut runtime_permitted = vec![false; runtime.len()];
        let mut runtime_listed = vec![false; runtime.len()];
        let mut any_deferred = false;
        // The policy's one rule decides each tool's place; the request only adds to it.
        for &tool in T::Name::ALL {
            let index = tool.index();
            match self.policy.availability(tool) {
                Availability::Hidden | Availability::Denied => {}
                Availability::Deferred => {
                    any_deferred = true;
                    if native || fixed {
                        entries.push(Entry::Tool {
                            index,
                            defer_loading: native,
                        });
                        listed[index] = true;
                        permitted[index] = self.activated.contains(&tool);
                    }
                }
                Availability::Offered => {
                    entries.push(Entry::Tool {
                        index,
                        defer_loading: false,
                    });
                    listed[index] = true;
                    permitted[index] = true;
                }
            }
        }
        // Runtime tools after the set's, in the order they were added, so the cached prefix
        // of the set's tools stays put; the policy places each by the same rule as the
        // set's (`Policy::runtime_availability`).
        let mut activated_runtime = Vec::new();
        for (position, tool) in runtime.iter().enumerate() {
            let name = tool.spec().name();
            match self.policy.runtime_availability(name) {
                Availability::Hidden | Availability::Denied => {}
                Availability::Deferred => {
                    any_deferred = true;
                    let activated = self.permits_runtime(name);
                    runtime_permitted[position] = activated;
                    if native || fixed {
                        entries.push(Entry::Runtime {
                            position,
                            defer_loading: native,
                        });
                        runtime_listed[position] = true;
                    } else if activated {
                        activated_runtime.push(position);
                    }
                }
                Availability::Offered => {
                    entries.push(Entry::Runtime {
                        position,
                        defer_loading: false,
                    });
                    runtime_listed[position] = true;
                    runtime_permitted[position] = true;
                }
            }
        }
        if any_deferred && lists_search {
            entries.push(Entry::Search);
        }
        let offered = entries.len();
        let search_callable = any_deferred && self.search_runs_here();
        let extra = self
            .activated
            .iter()
            .filter(|&&tool| self.searchable(tool))
            .chain(
                self.injected
                    .iter()
                    .filter(|&&tool| !self.policy.is_denied(tool)),
            );
        for &tool in extra {
            let index = tool.index();
            permitted[index] = true;
            if !listed[index] {
                listed[index] = true;
                entries.push(Entry::Tool {
                    index,
                    defer_loading: false,
                });
            }
        }
        // Activated runtime tools, in activation order, after the set's.
        activated_runtime.sort_by_key(|&position| {
            let name = runtime[position].spec().name();
            self.activated_runtime
                .iter()
                .position(|known| known == name)
        });
        for position in activated_runtime {
            runtime_listed[position] = true;
            entries.push(Entry::Runtime {
                position,
                defer_loading: false,
            });
        }
        for (position, name) in self.history.iter().enumerate() {
            // A hidden tool the history names gets the stand-in of a name no tool has.
            match self.lookup(name) {
                Some(tool) if listed[tool.index()] => {}
                Some(tool) => {
                    listed[tool.index()] = true;
                    entries.push(Entry::Tool {
                        index: tool.index(),
                        defer_loading: false,
                    });
                }
                None if name == SEARCH_TOOL_NAME && search_callable => {}
                None => match self.runtime_tool(name) {
                    // Declared (a denied or deferred one too), not permitted.
                    Some((at, _)) if !runtime_listed[at] => {
                        runtime_listed[at] = true;
                        entries.push(Entry::Runtime {
                            position: at,
                            defer_loading: false,
                        });
                    }
                    Some(_) => {}
                    None => entries.push(Entry::StandIn(position)),
                },
            }
        }
        Layout {
            entries,
            offered,
            permitted,
            runtime_permitted,
            search_callable,
        }
    }

    /// The names the model may call in this request, in list order: what the gate lets
    /// through, and what [`tool_choice`](Self::tool_choice) names. A tool declared only for
    /// the history is not among them.
    pub fn offered(&self) -> Vec<&str> {
        self.available(&self.layout(Some(self.rendered_as())))
    }

    /// Every name the list declares, in list order: the offered ones, the deferred ones a
    /// native search loads, and the history's.
    pub fn declared(&self) -> Vec<String> {
        self.declared_in(&self.layout(Some(self.rendered_as())))
    }

    /// The name of each entry of `layout`, in its order.
    fn declared_in(&self, layout: &Layout) -> Vec<String> {
        let specs = T::specs();
        layout
            .entries
            .iter()
            .map(|entry| match entry {
                Entry::Tool { index, .. } => specs[*index].name().to_owned(),
                Entry::Search => self.search_name().to_owned(),
                Entry::StandIn(position) => self.history[*position].clone(),
                Entry::Runtime { position, .. } => {
                    self.runtime()[*position].spec().name().to_owned()
                }
            })
            .collect()
    }

    /// The name the list's search entry goes by in this request's format.
    fn search_name(&self) -> &'static str {
        let format = self.rendered_as();
        match (self.search.hosted_in(format), format, self.search.ranking()) {
            (true, Format::Anthropic, crate::search::Ranking::Bm25) => {
                toolset_names::ANTHROPIC_BM25_SEARCH_NAME
            }
            (true, Format::Anthropic, crate::search::Ranking::Regex) => {
                toolset_names::ANTHROPIC_REGEX_SEARCH_NAME
            }
            _ => SEARCH_TOOL_NAME,
        }
    }

    /// The request's tool list in its [`format`](Self::format) (MCP's when none was
    /// given): the JSON formats give a compact JSON array
    /// of the consumer's tool objects (the value of the request body's `tools`, of
    /// Gemini's `functionDeclarations`, of MCP's `tools/list` `tools`); prompt text gives
    /// each tool's text separated by a blank line.
    ///
    /// Identical inputs give identical bytes, and activating a tool only appends.
    pub fn tool_list(&self) -> String {
        self.compose(false)
    }

    /// The tools [`tool_list`](Self::tool_list) renders without `strict` because the
    /// strict tools listed before them reached the provider's per-request limits, in list
    /// order, each with the limit and the counts (empty in the common case). Anthropic
    /// allows 20 strict tools, 24 optional parameters and 16 parameters with a union type
    /// per request; OpenAI 5000 object properties, 1000 enum values and 120 000 characters
    /// of names and enum values (counted across the request's strict tools).
    ///
    /// The budget is spent in list order, first fit: a strict tool keeps `strict` when its
    /// cost fits in what the tools before it left, so a tool's verdict depends only on the
    /// tools listed before it, and activating a tool, which appends to the list, never
    /// changes the bytes before it. A tool that is not strict to begin with (its schema is
    /// outside strict mode's subset: [`anthropic::why_not_strict`],
    /// [`openai_chat::why_not_strict`]) is not listed here.
    ///
    /// Strictness is a rendering hint: a tool without `strict` is offered and gated as
    /// before, and the gate checks every call's arguments whatever the provider did.
    ///
    /// ```
    /// use toolset::consumer::{Format, StrictLimit};
    /// use toolset::{Autonomy, Policy, Request, ToolSet, tool, toolset};
    /// # macro_rules! tools { ($($name:ident)*) => { $(
    /// #     /// Look something up.
    /// #     #[tool(tier = "read_only")]
    /// #     async fn $name(/// What to look up.
    /// #         query: String) -> String { query }
    /// # )* } }
    /// // 21 tools `t00` … `t20`, each with one required string parameter.
    /// # tools!(t00 t01 t02 t03 t04 t05 t06 t07 t08 t09 t10 t11 t12 t13 t14 t15 t16 t17 t18 t19 t20);
    /// toolset! { Tools = [t00, t01, t02, t03, t04, t05, t06, t07, t08, t09, t10,
    ///                     t11, t12, t13, t14, t15, t16, t17, t18, t19, t20]; }
    ///
    /// let policy = Policy::<Tools>::new(Autonomy::ReadOnly);
    /// let request = Request::new(&policy).format(Format::Anthropic);
    /// let downgrades = request.strict_downgrades();
    /// assert_eq!(downgrades.len(), 1);
    /// assert_eq!(downgrades[0].tool, "t20");
    /// assert_eq!(downgrades[0].limit, StrictLimit::Tools);
    /// let list: serde_json::Value = serde_json::from_str(&request.tool_list()).unwrap();
    /// assert_eq!(list[19]["strict"], true);
    /// assert!(list[20].get("strict").is_none());
    /// ```
    ///
    /// [`anthropic::why_not_strict`]: crate::consumer::anthropic::why_not_strict
    /// [`openai_chat::why_not_strict`]: crate::consumer::openai_chat::why_not_strict
    pub fn strict_downgrades(&self) -> Vec<StrictDowngrade> {
        let format = self.rendered_as();
        self.render_reporting(&self.layout(Some(format)), format).1
    }

    /// [`tool_list`](Self::tool_list), optionally with the entries sorted by name (the
    /// default list in [`Order::ByName`](crate::consumer::Order::ByName)).
    pub(crate) fn compose(&self, by_name: bool) -> String {
        let format = self.rendered_as();
        let mut layout = self.layout(Some(format));
        if by_name {
            let names = self.declared();
            let mut named: Vec<(String, Entry)> = names.into_iter().zip(layout.entries).collect();
            named.sort_by(|a, b| a.0.cmp(&b.0));
            layout.entries = named.into_iter().map(|(_, entry)| entry).collect();
        }
        self.render(&layout, format)
    }

    /// The tool choice for this request's list: the provider's value naming exactly what
    /// the gate permits (the names of [`offered`](Self::offered), in list order), in the
    /// [`choice_mode`](Self::choice_mode) asked for. Send it beside
    /// [`tool_list`](Self::tool_list): OpenAI Chat Completions and Responses as the body's
    /// `tool_choice` (`{"type": "allowed_tools", …}`), Gemini as its `toolConfig`
    /// (`{"functionCallingConfig": {"mode": "VALIDATED", "allowedFunctionNames": […]}}`);
    /// [`ChoiceMode`] says what each mode renders, and `"none"` (Gemini: mode `NONE`) is
    /// what a request that permits nothing renders in every mode.
    ///
    /// With it the model is offered exactly what the gate permits even where the list
    /// declares more (the history's tools). Where OpenAI Responses lists a `tool_search`
    /// (the local one the gate answers, or the provider's hosted one), the choice allows it
    /// as `{"type": "tool_search"}`, so the model can still search. The choice names what
    /// the gate permits when the request is built: a tool a hosted search loads during the
    /// response is not in it (the provider may refuse the model a call to it until the next
    /// request names it), and the gate still decides, after
    /// [`Activations::record_hosted`], what runs.
    ///
    /// `Err(`[`ToolChoiceError::Unsupported`]`)` for Anthropic, MCP and prompt text (and a
    /// request given no format), which have no choice that names what may be called.
    pub fn tool_choice(&self) -> Result<Value, ToolChoiceError> {
        let format = self.rendered_as();
        let layout = self.layout(Some(format));
        tool_choice(format, self.choice_mode, &self.allowed(&layout, format))
    }

    /// A fixed tool list and its tool choice, for a conversation whose list must keep the
    /// same bytes from its first request to its last (the provider's prompt cache keeps
    /// matching it) while what is permitted changes.
    ///
    /// The list ([`FixedTools::tools`]) declares every tool the request could ever permit
    /// in this conversation, in declared order: the set's tools and the toolbox's runtime
    /// tools the policy neither denies nor hides, the deferred ones included whether a
    /// search activated them or not (OpenAI Responses marks them `defer_loading: true`
    /// when its search loads them, as its composed list does), then the search tool. After
    /// it come, as in [`tool_list`](Self::tool_list), what this request injects that the
    /// list lacks (a tool the policy hides) and the history's names the list lacks: only
    /// those change the bytes, by appending. The choice ([`FixedTools::tool_choice`]) is
    /// [`tool_choice`](Self::tool_choice)'s, in the fixed list's order: it names exactly
    /// what the gate permits now, which is what changes from request to request. The gate
    /// is the same as for the composed list: a call to a listed tool it does not permit is
    /// refused.
    ///
    /// For OpenAI Chat Completions, OpenAI Responses (the body's `tools` and
    /// `tool_choice`) and Gemini (`functionDeclarations` and `toolConfig`, which names the
    /// tools only in mode `VALIDATED` or `ANY`: [`ChoiceMode::Auto`] or
    /// [`ChoiceMode::Required`]). Always send both: the list alone shows the model tools
    /// the gate refuses as callable.
    ///
    /// `Err` where no choice can restrict the list: [`ToolChoiceError::Unsupported`] for
    /// Anthropic, MCP and prompt text (send [`tool_list`](Self::tool_list)), and
    /// [`ToolChoiceError::FixedNeedsNames`] with [`ChoiceMode::Unrestricted`].
    ///
    /// ```
    /// use toolset::consumer::{ChoiceMode, Format, ToolChoiceError};
    /// use toolset::{Activations, Autonomy, Policy, Request, tool, toolset};
    /// use serde_json::json;
    ///
    /// /// Tell the time.
    /// #[tool(tier = "read_only")]
    /// async fn now() -> String { "noon".into() }
    ///
    /// /// Convert an amount between currencies.
    /// #[tool(tier = "read_only", deferred)]
    /// async fn convert(/// The currency to convert to.
    ///     to: String) -> String { format!("converted to {to}") }
    ///
    /// toolset! { Tools = [now, convert]; }
    ///
    /// let policy = Policy::<Tools>::new(Autonomy::ReadOnly);
    /// let mut activations = Activations::new();
    /// let first = Request::new(&policy).format(Format::OpenAiResponses).fixed_tools()?;
    /// assert_eq!(first.tool_choice["tools"], json!([
    ///     {"type": "function", "name": "now"},
    ///     {"type": "tool_search"},
    /// ]));
    ///
    /// // A search found `convert`: the choice allows it, the list is the same bytes.
    /// activations.activate("convert");
    /// let next = Request::new(&policy)
    ///     .format(Format::OpenAiResponses)
    ///     .activated(&activations)
    ///     .fixed_tools()?;
    /// assert_eq!(next.tools, first.tools);
    /// assert_eq!(next.tool_choice["tools"][1], json!({"type": "function", "name": "convert"}));
    ///
    /// // Gemini names the tools in mode VALIDATED (Auto) or ANY (Required).
    /// let gemini = Request::new(&policy)
    ///     .format(Format::Gemini)
    ///     .choice_mode(ChoiceMode::Required)
    ///     .activated(&activations)
    ///     .fixed_tools()?;
    /// assert_eq!(gemini.tool_choice, json!({"functionCallingConfig": {
    ///     "mode": "ANY", "allowedFunctionNames": ["now", "convert", "tool_search"]}}));
    ///
    /// // Anthropic has no choice to restrict a list: no fixed list there.
    /// let anthropic = Request::new(&policy).format(Format::Anthropic);
    /// assert_eq!(anthropic.fixed_tools(), Err(ToolChoiceError::Unsupported(Format::Anthropic)));
    /// # Ok::<(), ToolChoiceError>(())
    /// ```
    pub fn fixed_tools(&self) -> Result<FixedTools, ToolChoiceError> {
        let format = self.rendered_as();
        if !has_tool_choice(format) {
            return Err(ToolChoiceError::Unsupported(format));
        }
        if self.choice_mode == ChoiceMode::Unrestricted {
            return Err(ToolChoiceError::FixedNeedsNames(format));
        }
        let layout = self.layout_as(Some(format), true);
        let tool_choice = tool_choice(format, self.choice_mode, &self.allowed(&layout, format))?;
        let (tools, strict_downgrades) = self.render_reporting(&layout, format);
        Ok(FixedTools {
            tools,
            tool_choice,
            strict_downgrades,
        })
    }

    /// Anthropic's fixed tool list, and the `tool_removal` / `tool_addition` blocks that
    /// bring what the model may call to exactly what this request's gate permits, from what
    /// the conversation has `announced` (updated here: keep it with the conversation and
    /// hand it to the next request's call).
    ///
    /// The list ([`ToolChanges::tools`]) is [`fixed_tools`](Self::fixed_tools)'s: every
    /// tool the conversation may come to permit, in declared order, each deferred tool
    /// marked `defer_loading: true` whether a search activated it or not, so the bytes
    /// never change while tools are activated. The blocks ([`ToolChanges::blocks`]) name
    /// what changed since the previous request: a `tool_addition` for each tool the gate
    /// now permits that the conversation had not made available (a deferred tool a search
    /// activated), a `tool_removal` for each it had that the gate no longer permits (a
    /// history's name the list declares, a tool a tightened policy now denies). Send them
    /// with the beta header `anthropic-beta: mid-conversation-tool-changes-2026-07-01`, in
    /// the next user message after its `tool_result` blocks. The gate is the same as for
    /// the composed list: a call to a listed tool it does not permit is refused.
    ///
    /// `Err` with [`ToolChoiceError::NoToolChanges`] for every other format (OpenAI and
    /// Gemini keep a list fixed with [`fixed_tools`](Self::fixed_tools)), and
    /// [`ToolChoiceError::HostedSearch`] with Anthropic's hosted search, which loads what
    /// it finds on its own.
    ///
    /// ```
    /// use toolset::consumer::{Announced, Format};
    /// use toolset::{Activations, Autonomy, Policy, Request, tool, toolset};
    /// use serde_json::json;
    ///
    /// /// Tell the time.
    /// #[tool(tier = "read_only")]
    /// async fn now() -> String { "noon".into() }
    ///
    /// /// Convert an amount between currencies.
    /// #[tool(tier = "read_only", deferred)]
    /// async fn convert(/// The currency to convert to.
    ///     to: String) -> String { format!("converted to {to}") }
    ///
    /// toolset! { Tools = [now, convert]; }
    ///
    /// let policy = Policy::<Tools>::new(Autonomy::ReadOnly);
    /// let mut announced = Announced::default();
    /// let first = Request::new(&policy).format(Format::Anthropic).tool_changes(&mut announced)?;
    /// assert!(first.blocks.is_empty());
    ///
    /// // A search found `convert`: the same list, and one block.
    /// let mut activations = Activations::new();
    /// activations.activate("convert");
    /// let next = Request::new(&policy)
    ///     .format(Format::Anthropic)
    ///     .activated(&activations)
    ///     .tool_changes(&mut announced)?;
    /// assert_eq!(next.tools, first.tools);
    /// assert_eq!(next.blocks, [json!(
    ///     {"type": "tool_addition", "tool": {"type": "tool_reference", "name": "convert"}}
    /// )]);
    /// # Ok::<(), toolset::consumer::ToolChoiceError>(())
    /// ```
    pub fn tool_changes(&self, announced: &mut Announced) -> Result<ToolChanges, ToolChoiceError> {
        let format = self.rendered_as();
        if format != Format::Anthropic {
            return Err(ToolChoiceError::NoToolChanges(format));
        }
        if self.search.hosted_in(format) {
            return Err(ToolChoiceError::HostedSearch(format));
        }
        let layout = self.layout_as(Some(format), true);
        let names = self.declared_in(&layout);
        // What the list offers with no block: its entries not marked `defer_loading`.
        let listed: Vec<&str> = layout
            .entries
            .iter()
            .zip(&names)
            .filter(|(entry, _)| {
                !matches!(
                    entry,
                    Entry::Tool {
                        defer_loading: true,
                        ..
                    } | Entry::Runtime {
                        defer_loading: true,
                        ..
                    }
                )
            })
            .map(|(_, name)| name.as_str())
            .collect();
        let allowed = self.allowed(&layout, format);
        let permitted: Vec<&str> = allowed.iter().map(Allowed::name).collect();
        let blocks = announced.advance(&listed, &permitted);
        Ok(ToolChanges {
            tools: self.render(&layout, format),
            blocks,
        })
    }

    /// What a tool choice names for `layout` in `format`: the tools the gate permits, in
    /// list order, and the search entry where the model calls it (the local search) or the
    /// provider runs it (OpenAI Responses' hosted search).
    fn allowed(&self, layout: &Layout, format: Format) -> Vec<Allowed<'_>> {
        let hosted = self.search.hosted_in(format);
        let specs = T::specs();
        let runtime = self.runtime();
        let namespaces = self.namespaces(layout, format);
        layout
            .entries
            .iter()
            .zip(namespaces)
            .filter_map(|(entry, namespace)| match entry {
                Entry::Tool { index, .. } if layout.permitted[*index] => {
                    Some(Allowed::Function(specs[*index].name()))
                }
                Entry::Search if layout.search_callable || hosted => Some(Allowed::Search),
                Entry::Runtime { position, .. } if layout.runtime_permitted[*position] => {
                    let local = runtime[*position].spec().name();
                    Some(match namespace {
                        // Named as the list names it: inside its namespace's entry.
                        Some(namespace) => Allowed::Namespaced {
                            namespace: namespace.label(),
                            local,
                        },
                        None => Allowed::Function(local),
                    })
                }
                Entry::Tool { .. } | Entry::Search | Entry::StandIn(_) | Entry::Runtime { .. } => {
                    None
                }
            })
            .collect()
    }

    /// For each entry of `layout`, the namespace whose entry lists it in `format`: a
    /// runtime tool of a namespace (an MCP server's), where the format has namespaces
    /// (OpenAI Responses); `None` for every other entry and in every other format.
    ///
    /// A namespace is one entry holding its tools in the offered section, where they come
    /// one after another (the toolbox lists each namespace's tools together, so its
    /// offered and deferred tools are one run). Its tools a later section lists (activated
    /// at [`Autonomy::Off`](crate::Autonomy::Off), where deferred tools are not listed in
    /// place, or declared for the history) are listed flat, under their local names: the
    /// bytes before them never change, and a call to either form is read as the same local
    /// name.
    fn namespaces(&self, layout: &Layout, format: Format) -> Vec<Option<&Arc<Namespace>>> {
        let runtime = self.runtime();
        let mut namespaces = Vec::with_capacity(layout.entries.len());
        // The namespace whose run the previous entry is in, and those whose run ended.
        let mut open: Option<&str> = None;
        let mut ended: Vec<&str> = Vec::new();
        for (at, entry) in layout.entries.iter().enumerate() {
            let namespace = match entry {
                Entry::Runtime { position, .. }
                    if has_namespaces(format) && at < layout.offered =>
                {
                    runtime[*position].namespace_of()
                }
                _ => None,
            };
            let label = namespace.map(|namespace| namespace.label());
            if open.is_some() && open != label {
                ended.extend(open.take());
            }
            namespaces.push(match label {
                Some(label) if open == Some(label) => namespace,
                Some(label) if !ended.contains(&label) => {
                    open = Some(label);
                    namespace
                }
                _ => None,
            });
        }
        namespaces
    }

    /// The list `layout` gives in `format`, from the cached fragments.
    fn render(&self, layout: &Layout, format: Format) -> String {
        self.render_reporting(layout, format).0
    }

    /// [`render`](Self::render), and the tools the list renders without `strict` because
    /// the strict tools listed before them spent the provider's per-request limits.
    fn render_reporting(&self, layout: &Layout, format: Format) -> (String, Vec<StrictDowngrade>) {
        let cache = T::render_cache();
        let specs = T::specs();
        let runtime = self.runtime();
        let json = format.is_json();
        // Stand-ins are the only pieces rendered per request (a history name the set does
        // not have); everything else is a cached fragment, borrowed.
        let stand_ins: Vec<String> = layout
            .entries
            .iter()
            .filter_map(|entry| match entry {
                Entry::StandIn(position) => Some(stand_in(&self.history[*position], format)),
                _ => None,
            })
            .collect();
        let namespaces = self.namespaces(layout, format);
        let label = |at: usize| {
            namespaces
                .get(at)
                .copied()
                .flatten()
                .map(|namespace| namespace.label())
        };
        // Each entry's cached fragment and the spec it was rendered from (a stand-in has
        // none), and whether a native search loads it.
        let fragments: Vec<Option<(&Fragment, &ToolSpec, bool)>> = layout
            .entries
            .iter()
            .map(|entry| match entry {
                Entry::Tool {
                    index,
                    defer_loading,
                } => Some((
                    cache.fragment(specs, *index, format),
                    &specs[*index],
                    *defer_loading,
                )),
                Entry::Search => Some((
                    search_fragment(self.search, format),
                    search_spec(self.search.ranking()),
                    false,
                )),
                Entry::StandIn(_) => None,
                Entry::Runtime {
                    position,
                    defer_loading,
                } => {
                    let tool = &runtime[*position];
                    Some((tool.fragment(format), tool.spec(), *defer_loading))
                }
            })
            .collect();
        // The provider's per-request strict limits, spent in list order: a sum of cached
        // costs, no schema read.
        let (keeps, downgrades) = match self.strict {
            true => spend(
                format,
                fragments
                    .iter()
                    .flatten()
                    .map(|(fragment, spec, _)| (spec.name(), fragment.strict())),
            ),
            false => (Vec::new(), Vec::new()),
        };
        let mut keeps = keeps.into_iter();
        let mut stand_ins = stand_ins.iter();
        // Each entry as its parts: its body and the members appended to it (a deferred
        // tool a native search loads is its fragment without the closing brace, then
        // `defer_loading`; with code execution, a tool's `allowed_callers`, what the gate
        // permits from code, likewise), between what opens and closes a namespace's entry
        // (the first tool of a namespace's run opens it, its last closes it; the separator
        // inside is the list's, `,`). A tool's fragment is cached per format; what the
        // request adds is not.
        let callers = |from_code: bool| {
            allowed_callers(format, from_code).filter(|_| self.code_execution && json)
        };
        fn patched<'a>(fragment: &'a str, defer: bool, callers: Option<&'a str>) -> [&'a str; 5] {
            match fragment.strip_suffix('}') {
                Some(open) if defer || callers.is_some() => [
                    open,
                    if defer { ",\"defer_loading\":true" } else { "" },
                    if callers.is_some() { "," } else { "" },
                    callers.unwrap_or(""),
                    "}",
                ],
                _ => [fragment, "", "", "", ""],
            }
        }
        let pieces: Vec<[&str; 7]> = layout
            .entries
            .iter()
            .zip(&fragments)
            .enumerate()
            .map(|(at, (entry, listed))| {
                let [body, defer, comma, allowed, end] = match (entry, listed) {
                    (_, None) => [stand_ins.next().map_or("", String::as_str), "", "", "", ""],
                    (_, Some((fragment, spec, defer_loading))) => {
                        let keep = keeps.next().unwrap_or(false);
                        let (text, from_code) = match entry {
                            Entry::Tool { index, .. } => (
                                fragment.as_listed(spec, format, keep),
                                Some(self.code_may_call(T::Name::ALL[*index])),
                            ),
                            Entry::Runtime { position, .. } => {
                                let tool = &runtime[*position];
                                let text = match namespaces[at] {
                                    Some(_) => tool.inner_fragment(keep),
                                    None => fragment.as_listed(spec, format, keep),
                                };
                                (text, Some(self.code_may_call_runtime(tool)))
                            }
                            Entry::Search | Entry::StandIn(_) => {
                                (fragment.as_listed(spec, format, keep), None)
                            }
                        };
                        patched(text, *defer_loading && json, from_code.and_then(callers))
                    }
                };
                let (opening, closing) = match (namespaces[at], label(at)) {
                    (Some(namespace), Some(this)) => (
                        match at.checked_sub(1).and_then(label) {
                            Some(before) if before == this => "",
                            _ => namespace.open(),
                        },
                        match label(at + 1) {
                            Some(after) if after == this => "",
                            _ => namespace::CLOSE,
                        },
                    ),
                    _ => ("", ""),
                };
                [opening, body, defer, comma, allowed, end, closing]
            })
            .collect();
        let separator = if json { "," } else { "\n\n" };
        let (open, close) = if json { ("[", "]") } else { ("", "") };
        // Sized exactly: one allocation, no copy as the list grows.
        let len = open.len()
            + close.len()
            + separator.len() * pieces.len().saturating_sub(1)
            + pieces
                .iter()
                .flatten()
                .map(|piece| piece.len())
                .sum::<usize>();
        let mut list = String::with_capacity(len);
        list.push_str(open);
        for (position, parts) in pieces.iter().enumerate() {
            if position > 0 {
                list.push_str(separator);
            }
            for part in parts {
                list.push_str(part);
            }
        }
        list.push_str(close);
        debug_assert_eq!(list.len(), len);
        (list, downgrades)
    }

    /// Verifies the model's whole program against what this request offers, then splits it
    /// by tier: calls whose tier the policy's autonomy allows may run, the others (and every
    /// propose-only tool's) become proposals for a human. One bad call rejects the program,
    /// and [`Rejected`] answers every call of it. A call to a tool the request does not
    /// offer is rejected as unknown, its message listing what is offered; a tool declared
    /// only for the history is refused. A call to the local search tool is answered here,
    /// at once.
    ///
    /// The one gate, for the set's tools and the toolbox's alike (the set's own gate is
    /// this, see [`Request`]). A call to a tool the request plainly permits costs no walk
    /// of the set and no snapshot of the toolbox.
    pub fn gate(&self, calls: impl IntoIterator<Item = ToolCall>) -> Result<Plan<T>, Rejected> {
        let span = trace::gate();
        let _in_gate = span.enter();
        let calls: Vec<ToolCall> = calls.into_iter().collect();
        // The gate's layout costs a walk of the whole set: it is built only for a call that
        // is not simply to a permitted tool (see `permits`).
        let layout = OnceCell::new();
        let mut split = Split::new(self.policy, calls.len());
        let program = self.program_exposure(&calls);
        let program = program.as_ref();
        let checked = check_program::<T>(
            calls,
            |call| self.route(&layout, call, program),
            |index, call, checked| {
                let held = match &checked {
                    Checked::Verified(verified) => {
                        self.held_back(&call.name, T::spec_of(verified.name).labels(), program)
                    }
                    Checked::Runtime { tool, .. } => {
                        self.held_back(&call.name, tool.spec().labels(), program)
                    }
                    Checked::Answered(_) => None,
                };
                split.keep(index, call, checked, held)
            },
        );
        let calls = checked.inspect_err(|rejected| trace::record_rejected::<T>(&span, rejected))?;
        let plan = split.into_plan(calls, self.concealed());
        trace::record_planned(
            &span,
            plan.calls().len(),
            plan.approved().count(),
            plan.proposals().len(),
        );
        Ok(plan)
    }

    /// Checks one call as [`gate`](Self::gate) would check it in a program of that call
    /// alone: `Ok` exactly when `gate([call])` builds a plan, and otherwise the very
    /// problems its [`Rejected`] holds (an empty id, then the call's own: a name this
    /// request does not permit, arguments that do not fit). Nothing is split by tier and
    /// nothing is proposed.
    ///
    /// This is the early verdict on a call a stream has just completed (see
    /// [`crate::stream`]): it is for showing while the model is still writing. What runs is
    /// still decided by gating the whole program, where a call that passes here can be
    /// rejected with the others (a call id another call also uses, say). A call to the
    /// local tool search is answered to be checked, as the gate answers it.
    pub fn check(&self, call: &ToolCall) -> Result<(), Vec<CallProblem>> {
        let layout = OnceCell::new();
        let program = self.program_exposure(std::slice::from_ref(call));
        check_one::<T>(call, |call| self.route(&layout, call, program.as_ref()))
    }

    /// What the gate would let a human approve of `call`, under this request's policy now:
    /// a tool of the set the policy neither denies nor conceals (offered or deferred: a human
    /// approving it needs no search to have activated it), or a runtime tool of the
    /// request's toolbox. Its arguments are checked by the caller.
    ///
    /// Under [`Trifecta::Deny`] a send the rule holds back in the run as the request sees
    /// it now ([`exposure`](Self::exposure)) is refused here too: a human's approval does
    /// not lift a policy's refusal, whether the call was proposed for its tier before the
    /// run read both kinds or for the rule under a policy that escalated then.
    pub(crate) fn approvable(&self, call: &ToolCall) -> Result<Approvable<T::Name>, CallProblem> {
        let program = self.program_exposure(std::slice::from_ref(call));
        if let Some(tool) = self.lookup(&call.name)
            && !self.policy.is_denied(tool)
        {
            self.refuse_from_code(call, self.code_may_call(tool))?;
            self.refuse_held(call, T::spec_of(tool).labels(), program.as_ref())?;
            return Ok(Approvable::Tool(tool));
        }
        let runtime = match T::Name::from_name(&call.name) {
            Some(_) => None,
            None => self.runtime_tool(&call.name),
        };
        if let Some((_, tool)) = runtime
            && self.policy.runtime_availability(&call.name) != Availability::Denied
        {
            self.refuse_from_code(call, self.code_may_call_runtime(tool))?;
            self.refuse_held(call, tool.spec().labels(), program.as_ref())?;
            return Ok(Approvable::Runtime(Arc::clone(tool)));
        }
        let known = self.lookup(&call.name).is_some() || runtime.is_some();
        let (kind, message) = if known {
            (ProblemKind::Denied, messages::denied(&call.name))
        } else {
            (
                ProblemKind::UnknownTool,
                self.unknown_tool_message(&call.name, &self.layout(None)),
            )
        };
        Err(CallProblem {
            call_id: call.id.clone(),
            name: call.name.clone(),
            kind,
            message,
        })
    }

    /// What this request conceals (the policy's hidden tools it does not inject): apply
    /// refuses an output activating one as it refuses an unknown name.
    pub(crate) fn concealed(&self) -> crate::policy::Concealed {
        self.policy.concealed(&self.injected)
    }

    /// Whether the gate lets a call to `tool` through: what `Request::layout` marks
    /// `permitted`, decided for one tool without walking the set. Offered by the policy,
    /// or deferred and activated, or injected (unless denied).
    fn permits(&self, tool: T::Name) -> bool {
        match self.policy.availability(tool) {
            Availability::Offered => true,
            Availability::Deferred => {
                self.activated.contains(&tool) || self.injected.contains(&tool)
            }
            Availability::Hidden => !self.policy.conceals(tool, &self.injected),
            Availability::Denied => false,
        }
    }

    /// Routes one call: to a permitted tool, to the search (answered), or a problem.
    fn route(
        &self,
        layout: &OnceCell<Layout>,
        call: &ToolCall,
        program: Option<&Exposure>,
    ) -> Result<Route<T::Name>, CallProblem> {
        let problem = |kind, message| CallProblem {
            call_id: call.id.clone(),
            name: call.name.clone(),
            kind,
            message,
        };
        if let Some(tool) = T::Name::from_name(&call.name) {
            let permitted = self.permits(tool);
            // Every test run checks the one-tool rule against the whole layout's.
            debug_assert_eq!(
                permitted,
                self.layout(None).permitted[tool.index()],
                "permits({}) disagrees with the layout",
                tool.as_str()
            );
            if permitted {
                self.refuse_from_code(call, self.code_may_call(tool))?;
                self.refuse_held(call, T::spec_of(tool).labels(), program)?;
                return Ok(Route::Tool(tool));
            }
        }
        // From here on a concealed tool is the unknown name it looks like to the model:
        // neither "not available" (denied) nor "declared only" (history) may tell it exists.
        let tool = self.lookup(&call.name);
        let layout = layout.get_or_init(|| self.layout(None));
        let runtime = match tool {
            Some(_) => None,
            None => self.runtime_tool(&call.name),
        };
        if let Some((position, runtime)) = runtime {
            if layout.runtime_permitted[position] {
                self.refuse_from_code(call, self.code_may_call_runtime(runtime))?;
                self.refuse_held(call, runtime.spec().labels(), program)?;
                return Ok(Route::Runtime(Arc::clone(runtime)));
            }
            if self.policy.runtime_availability(&call.name) == Availability::Denied {
                return Err(problem(ProblemKind::Denied, messages::denied(&call.name)));
            }
            if self.history.iter().any(|name| name == &call.name) {
                return Err(problem(
                    ProblemKind::Denied,
                    messages::declared_only(&call.name, &self.available(layout)),
                ));
            }
            // Deferred and not activated: unknown, as a compiled deferred tool is.
        }
        if call.name == SEARCH_TOOL_NAME && layout.search_callable {
            // The search's entry has no `allowed_callers`: only the model calls it.
            self.refuse_from_code(call, false)?;
            return self.answer_search(call).map(Route::Answered);
        }
        match tool {
            Some(tool) if self.policy.is_denied(tool) => {
                Err(problem(ProblemKind::Denied, messages::denied(&call.name)))
            }
            Some(tool) if self.history.iter().any(|name| name == tool.as_str()) => Err(problem(
                ProblemKind::Denied,
                messages::declared_only(&call.name, &self.available(layout)),
            )),
            _ => Err(problem(
                ProblemKind::UnknownTool,
                self.unknown_tool_message(&call.name, layout),
            )),
        }
    }

    /// The names the gate lets through, in list order.
    fn available(&self, layout: &Layout) -> Vec<&str> {
        let specs = T::specs();
        let runtime = self.runtime();
        layout
            .entries
            .iter()
            .filter_map(|entry| match entry {
                Entry::Tool { index, .. } if layout.permitted[*index] => Some(specs[*index].name()),
                Entry::Search if layout.search_callable => Some(SEARCH_TOOL_NAME),
                Entry::Runtime { position, .. } if layout.runtime_permitted[*position] => {
                    Some(runtime[*position].spec().name())
                }
                Entry::Tool { .. } | Entry::Search | Entry::StandIn(_) | Entry::Runtime { .. } => {
                    None
                }
            })
            .collect()
    }

    fn unknown_tool_message(&self, name: &str, layout: &Layout) -> String {
        let available = self.available(layout);
        let closest = crate::arguments::closest(name, &available);
        let mut message =
            messages::unknown_tool(&crate::arguments::shortened(name), closest, &available);
        if layout.search_callable {
            message.push_str(&messages::search_hint(SEARCH_TOOL_NAME));
        }
        message
    }

    /// Runs a local search call: its arguments, then the ranking over the tools this
    /// request defers. A bad pattern is an error result for this call only.
    fn answer_search(&self, call: &ToolCall) -> Result<ToolOutput, CallProblem> {
        let args = SearchArgs::parse(&call.arguments.text()).map_err(|message| CallProblem {
            call_id: call.id.clone(),
            name: call.name.clone(),
            kind: ProblemKind::InvalidArguments,
            message,
        })?;
        let set = T::specs();
        let mut candidates: Vec<usize> = T::Name::ALL
            .iter()
            .filter(|&&tool| self.searchable(tool))
            .map(|tool| tool.index())
            .collect();
        // The runtime tools the policy defers, numbered after the set's.
        let runtime = self.runtime();
        let deferred_runtime: Vec<usize> = (0..runtime.len())
            .filter(|&position| {
                self.policy
                    .runtime_availability(runtime[position].spec().name())
                    == Availability::Deferred
            })
            .collect();
        candidates.extend(deferred_runtime.iter().map(|position| set.len() + position));
        // The set's index is cached; one holding runtime tools is built for this search.
        let built;
        let index = if deferred_runtime.is_empty() {
            T::render_cache().search_index(set)
        } else {
            built = crate::search::Index::build_from(
                set.iter().chain(runtime.iter().map(|tool| tool.spec())),
            );
            &built
        };
        let found = match search(index, &candidates, &args) {
            Ok(found) => found,
            Err(message) => return Ok(ToolOutput::error(message)),
        };
        if found.is_empty() {
            return Ok(ToolOutput::text(nothing_found(&args)));
        }
        // Each found tool with its namespace (a runtime tool's, if it has one) and whether
        // the model's code may call it.
        let found: Vec<(&ToolSpec, Option<&Arc<Namespace>>, bool)> = found
            .iter()
            .filter_map(|&index| match index.checked_sub(set.len()) {
                None => set
                    .get(index)
                    .map(|spec| (spec, None, self.code_may_call(T::Name::ALL[index]))),
                Some(position) => runtime.get(position).map(|tool| {
                    (
                        tool.spec(),
                        tool.namespace_of(),
                        self.code_may_call_runtime(tool),
                    )
                }),
            })
            .collect();
        // A client-executed `tool_search_output` carries the loaded definitions, each as
        // this request's list has it (without `strict` where its budget took it away).
        let downgraded: Vec<String> = match self.format {
            Some(Format::OpenAiResponses) if self.strict => self
                .strict_downgrades()
                .into_iter()
                .map(|downgrade| downgrade.tool)
                .collect(),
            _ => Vec::new(),
        };
        let strict_for =
            |spec: &ToolSpec| self.strict && !downgraded.iter().any(|name| name == spec.name());
        let specs: Vec<&ToolSpec> = found.iter().map(|(spec, ..)| *spec).collect();
        let tools: Vec<Value> = match self.format {
            // A client-executed `tool_search_output` carries the loaded definitions, a
            // namespace's tools inside its entry as the list has them, each saying who may
            // call it as the list would.
            Some(format @ Format::OpenAiResponses) => {
                let mut tools: Vec<Value> = Vec::with_capacity(found.len());
                let mut namespaces: Vec<(&str, usize)> = Vec::new();
                for &(spec, namespace, from_code) in &found {
                    let with_callers = |mut tool: Value| {
                        let callers = allowed_callers_value(format, from_code)
                            .filter(|_| self.code_execution);
                        if let (Some(callers), Some(fields)) = (callers, tool.as_object_mut()) {
                            fields.insert("allowed_callers".into(), callers);
                        }
                        tool
                    };
                    let strict = strict_for(spec);
                    let Some(namespace) = namespace else {
                        tools.push(with_callers(tool_value_as(spec, format, strict)));
                        continue;
                    };
                    let label = namespace.label();
                    let inner = with_callers(namespace::inner_tool_as(spec, label, strict));
                    let at = namespaces.iter().find(|(known, _)| *known == label);
                    match at.and_then(|&(_, at)| tools.get_mut(at)) {
                        Some(entry) => {
                            if let Some(list) = entry.get_mut("tools").and_then(Value::as_array_mut)
                            {
                                list.push(inner);
                            }
                        }
                        None => {
                            namespaces.push((label, tools.len()));
                            tools.push(namespace::namespace(
                                label,
                                namespace.description(),
                                vec![inner],
                            ));
                        }
                    }
                }
                tools
            }
            _ => specs
                .iter()
                .map(|spec| json!({"name": spec.name(), "description": spec.description()}))
                .collect(),
        };
        Ok(ToolOutput::text(crate::search::found(&specs))
            .activating(specs.iter().map(|spec| spec.name()))
            .with_structured_content(json!({ "tools": tools })))
    }
}

/// A minimal declaration for a history name the set does not have.
fn stand_in(name: &str, format: Format) -> String {
    const DESCRIPTION: &str = messages::STAND_IN;
    let empty = json!({"type": "object", "properties": {}});
    let tool = match format {
        Format::OpenAiChat => json!({"type": "function", "function": {
            "name": name, "description": DESCRIPTION, "parameters": empty, "strict": false}}),
        Format::OpenAiResponses => json!({"type": "function", "name": name,
            "description": DESCRIPTION, "parameters": empty, "strict": false}),
        Format::Anthropic => {
            json!({"name": name, "description": DESCRIPTION, "input_schema": empty})
        }
        Format::Gemini => json!({"name": name, "description": DESCRIPTION}),
        Format::Mcp => json!({"name": name, "description": DESCRIPTION, "inputSchema": empty}),
        _ => return format!("## {name}\n{DESCRIPTION}"),
    };
    tool.to_string()
}

impl<T: ToolSet> fmt::Debug for Request<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Request")
            .field("set", &T::NAME)
            .field("format", &self.format)
            .field("search", &self.search)
            .field("policy", self.policy)
            .field(
                "activated",
                &self
                    .activated
                    .iter()
                    .map(|tool| tool.as_str())
                    .collect::<Vec<_>>(),
            )
            .field(
                "injected",
                &self
                    .injected
                    .iter()
                    .map(|tool| tool.as_str())
                    .collect::<Vec<_>>(),
            )
            .field("history", &self.history)
            .field("choice_mode", &self.choice_mode)
            .field("code_execution", &self.code_execution)
            .field("exposure", &self.exposure)
            .field("strict", &self.strict)
            .finish()
    }
}

// A toolbox joins a request: these live here, beside `Request::toolbox`, so the toolbox
// (a layer below the request) imports no request.
impl<T: ToolSet> Toolbox<T> {
    /// A request under `policy` offering this toolbox's tools: what its list offers is
    /// what its gate permits. `Request::new(policy).toolbox(self)`; see [`Request`].
    ///
    /// `Err` when the policy names runtime tools this toolbox does not have (see
    /// [`Request::toolbox`]).
    pub fn request<'p>(&'p self, policy: &'p Policy<T>) -> Result<Request<'p, T>, PolicyNameError> {
        Request::new(policy).toolbox(self)
    }

    /// The toolbox's default list for `format` (a fresh conversation's request, at any
    /// autonomy but [`Autonomy::Off`], which offers no local tool search): the set's
    /// tools, then the runtime ones. Built from fragments each rendered once.
    pub fn tool_list(&self, format: Format) -> String {
        let policy = Policy::<T>::new(Autonomy::ExternalReversible);
        // A fresh policy names no runtime tool: nothing to check.
        Request::new(&policy)
            .toolbox_unchecked(self)
            .format(format)
            .tool_list()
    }
}
