//! A [`Request`] and what it is built from: the policy, the toolbox, the conversation's
//! activations, injections, history and exposure, and how its list is to be rendered.

use super::activations::Activations;
use super::decision::Decision;
use crate::consumer::{ChoiceMode, Format};
use crate::exposure::Exposure;
use crate::policy::{Availability, PolicyNameError};
use crate::policy::{Policy, Ruled, ToolKey};
use crate::search::ToolSearch;
use crate::set::{ToolName, ToolSet};
use crate::tier::Autonomy;
use crate::toolbox::{RuntimeTool, Toolbox};
use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};

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
/// use toolset::{Autonomy, ToolCall, tool, toolset};
/// use toolset::request::{Activations, Request};
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
/// # fn futures_executor_free(plan: toolset::plan::Plan<Tools>) -> toolset::report::Report {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap()
/// #         .block_on(Tools::apply(&mut (), &toolset::ToolContext::default(), plan))
/// # }
/// # Ok::<(), toolset::report::Rejected>(())
/// ```
pub struct Request<'p, T: ToolSet> {
    pub(super) policy: &'p Policy<T>,
    /// What the list is rendered in; `None`: MCP's shape. Never read by the gate but for
    /// the wire shape of a search's answer.
    pub(super) format: Option<Format>,
    pub(super) search: ToolSearch,
    /// The tools the conversation activated, the set's and runtime ones, in activation
    /// order.
    pub(super) activated: Vec<ToolKey<T>>,
    pub(super) injected: Vec<T::Name>,
    /// Names the history uses, in order of first use: borrowed from a run's history
    /// when that is all there is (a conversation's every request), owned once added to.
    pub(super) history: Cow<'p, [String]>,
    /// The toolbox the request is for (none for a bare set).
    pub(super) toolbox: Option<&'p Toolbox<T>>,
    /// Its runtime tools, offered after the set's offered tools in the order they were
    /// added: a snapshot taken at first use (a call to a tool of the set takes none), so
    /// this request's list and gate agree even while a namespace refreshes.
    pub(super) runtime: OnceLock<Vec<Arc<RuntimeTool>>>,
    /// What the request decides, computed once at its first use (a gate that needs more
    /// than the one-tool rule, `Request::permits`, or a rendering) and read by every
    /// `gate`, `check`, approval and rendering under this request. Every builder method
    /// that changes one of its inputs starts it afresh.
    pub(super) decision: Decision,
    /// What [`tool_choice`](Self::tool_choice) asks of the model.
    pub(super) choice_mode: ChoiceMode,
    /// Whether the model runs code that calls tools in this request (see
    /// [`code_execution`](Self::code_execution)).
    pub(super) code_execution: bool,
    /// Whether the list may mark tools strict (see [`strict`](Self::strict)).
    pub(super) strict: bool,
    /// What the run has read so far (see [`exposure`](Self::exposure)).
    pub(super) exposure: Cow<'p, Exposure>,
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
            injected: Vec::new(),
            history: Cow::Borrowed(&[]),
            toolbox: None,
            runtime: OnceLock::new(),
            decision: Decision::default(),
            choice_mode: ChoiceMode::default(),
            code_execution: false,
            strict: true,
            exposure: Cow::Owned(Exposure::new()),
        }
    }

    /// The consumer the list is rendered for ([`tool_list`](Self::tool_list),
    /// [`declared`](Self::declared), the order of [`offered`](Self::offered)), and the wire
    /// shape of the local search's answer. What the gate permits does not depend on it.
    pub fn format(mut self, format: Format) -> Self {
        self.set_format(format);
        self
    }

    /// [`format`](Self::format) in place: a `Request` is large, and a caller building one
    /// per call (the MCP server's session) would copy it at every by-value step.
    pub(crate) fn set_format(&mut self, format: Format) {
        // The gate's arrangement reads no format; the lists' do.
        self.decision = Decision::default();
        self.format = Some(format);
    }

    /// Offers the runtime tools of `toolbox` too (after the set's offered tools, in the
    /// order they were added) as the policy has them (denied, hidden and deferred by
    /// by name: [`ToolKey`](crate::policy::ToolKey)), and gates their calls like the set's: what
    /// the list offers is what the gate permits. What [`Toolbox::request`] does.
    ///
    /// When the policy names runtime tools, the toolbox's runtime tools are read now (the
    /// snapshot this request keeps) and every name the policy gives must be one of them:
    /// [`PolicyNameError`] otherwise, naming each unknown name, the closest tool name and
    /// the toolbox's runtime tools. A misspelled name never leaves a tool unrestricted.
    pub fn toolbox(mut self, toolbox: &'p Toolbox<T>) -> Result<Self, PolicyNameError> {
        self.set_toolbox(toolbox)?;
        Ok(self)
    }

    /// [`toolbox`](Self::toolbox) in place (see [`set_format`](Self::set_format)).
    pub(crate) fn set_toolbox(&mut self, toolbox: &'p Toolbox<T>) -> Result<(), PolicyNameError> {
        self.decision = Decision::default();
        self.toolbox = Some(toolbox);
        self.runtime = OnceLock::new();
        if self.policy.names_runtime_tools() {
            let names = self
                .runtime()
                .iter()
                .map(|tool| (tool.spec().name(), tool.spec().tier()));
            self.policy.check_runtime_names(names)?;
        }
        Ok(())
    }

    /// [`toolbox`](Self::toolbox) without the check of the policy's runtime names: only
    /// for a policy that names none (a fresh one, [`Toolbox::tool_list`]'s).
    pub(crate) fn toolbox_unchecked(mut self, toolbox: &'p Toolbox<T>) -> Self {
        self.decision = Decision::default();
        self.toolbox = Some(toolbox);
        self.runtime = OnceLock::new();
        self
    }

    /// The runtime tools of the request's toolbox: a snapshot taken once, at first use, so
    /// a namespace refreshing meanwhile changes the next request, not this one.
    pub(super) fn runtime(&self) -> &[Arc<RuntimeTool>] {
        self.runtime
            .get_or_init(|| self.toolbox.map(Toolbox::runtime_tools).unwrap_or_default())
    }

    /// The runtime tool called `name`, with its index in the request's one index space
    /// ([`runtime_at`](Self::runtime_at)), as the model may know it in this request: `None` for a name no runtime tool has and for one the
    /// policy hides alike (as [`lookup`](Self::lookup) for the set's tools).
    pub(super) fn runtime_tool(&self, name: &str) -> Option<(usize, &Arc<RuntimeTool>)> {
        let set = T::specs().len();
        self.runtime()
            .iter()
            .enumerate()
            .find(|(_, tool)| tool.spec().name() == name)
            .filter(|(_, tool)| self.runtime_availability(tool) != Availability::Hidden)
            .map(|(position, tool)| (set + position, tool))
    }

    /// What the runtime tool `tool` is in this request: the policy's one rule
    /// ([`Policy::availability`]), which reads its spec as it reads a tool of the set's.
    pub(super) fn runtime_availability(&self, tool: &RuntimeTool) -> Availability {
        self.policy.availability(Ruled::Runtime(tool.spec()))
    }

    /// The set's tool `name` names, as the model may know it in this request: `None` for a
    /// name the set does not have and for a tool the policy hides (unless injected here)
    /// alike ([`Policy::conceals`], the one rule of what a hidden tool is). Every name the
    /// model or the history brings is looked up through this, so a hidden tool is declared,
    /// refused and suggested exactly as a name no tool has.
    pub(super) fn lookup(&self, name: &str) -> Option<T::Name> {
        T::Name::from_name(name).filter(|&tool| self.knows(tool))
    }

    /// Whether the model may know the set's `tool` in this request: [`lookup`](Self::lookup)'s
    /// rule, for a name already found.
    pub(super) fn knows(&self, tool: T::Name) -> bool {
        !self.policy.conceals(tool, &self.injected)
    }

    /// The conversation's activated tools. A name the set does not have activates the
    /// toolbox's runtime tool of that name if the policy defers it (a search found it), and
    /// nothing otherwise; a denied or hidden one stays out.
    pub fn activated(mut self, activations: &Activations) -> Self {
        self.set_activated(activations);
        self
    }

    /// [`activated`](Self::activated) in place (see [`set_format`](Self::set_format)).
    pub(crate) fn set_activated(&mut self, activations: &Activations) {
        self.decision = Decision::default();
        for name in activations.names() {
            let key = ToolKey::named(name.as_str());
            if !self.activated.contains(&key) {
                self.activated.push(key);
            }
        }
    }

    /// What the run has read so far, by its calls that ran ([`Exposure::record`] after each
    /// applied plan): the gate's lethal-trifecta rule. A call to a tool that sends outside
    /// ([`Labels::sends_outside`](crate::Labels::sends_outside)) is held back when the run
    /// has read the user's private data and untrusted content: proposed whatever the
    /// autonomy, with the reason shown to the human, or refused when the policy says
    /// [`Trifecta::Deny`](crate::policy::Trifecta::Deny); a tool the policy
    /// [allows sending](Policy::allow_sending) runs as its tier says.
    ///
    /// Within one program the gate counts what every call of the program reads too (a
    /// program that reads private data and untrusted content and sends is held back as a
    /// whole), whatever their order and whether they run now or are proposed: the gate
    /// decides before anything runs, and a proposed read may be approved before the send.
    /// A request given no exposure judges a run that has read nothing before this program.
    pub fn exposure(mut self, exposure: &'p Exposure) -> Self {
        self.set_exposure(exposure);
        self
    }

    /// [`exposure`](Self::exposure) in place (see [`set_format`](Self::set_format)).
    pub(crate) fn set_exposure(&mut self, exposure: &'p Exposure) {
        self.exposure = Cow::Borrowed(exposure);
    }

    /// Adds `tool` for this request (a procedure's own tool, say), after the activated
    /// ones; even a hidden or deferred tool, never a denied one.
    pub fn inject(mut self, tool: T::Name) -> Self {
        self.decision = Decision::default();
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
        self.decision = Decision::default();
        for name in names {
            let name = name.as_ref();
            if !self.history.iter().any(|known| known == name) {
                self.history.to_mut().push(name.to_owned());
            }
        }
        self
    }

    /// [`history`](Self::history) of a run's names, borrowed rather than copied when the
    /// request has no history yet and the names are each once (as
    /// [`Run::history`](crate::run::Run::history) keeps them).
    pub(crate) fn history_of(self, names: &'p [String]) -> Self {
        let once = || {
            names
                .iter()
                .enumerate()
                .all(|(at, name)| !names[..at].contains(name))
        };
        if !self.history.is_empty() || !once() {
            return self.history(names);
        }
        Request {
            history: Cow::Borrowed(names),
            decision: Decision::default(),
            ..self
        }
    }

    /// Who runs tool search (default: [`ToolSearch::Local`] with BM25).
    pub fn search(mut self, search: ToolSearch) -> Self {
        self.decision = Decision::default();
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
    /// one), and the gate permits a call from code ([`ToolCall::caller`](crate::ToolCall::caller)) exactly to those.
    /// Without it the list says nothing (the providers' default is `direct` only) and the
    /// gate refuses every call from code. Either way a refused call from code is answered
    /// with a problem of kind [`ProblemKind::NotFromCode`](crate::report::ProblemKind::NotFromCode) telling the model to call the
    /// tool directly, and a permitted one is gated, split by tier and approved exactly as
    /// a direct call is.
    ///
    /// ```
    /// use toolset::consumer::Format;
    /// use toolset::{Autonomy, Policy, ToolCall, tool, toolset};
    /// use toolset::call::Caller;
    /// use toolset::report::ProblemKind;
    /// use toolset::request::Request;
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
    pub(super) fn rendered_as(&self) -> Format {
        self.format.unwrap_or(Format::Mcp)
    }

    /// The policy in force.
    pub fn policy(&self) -> &Policy<T> {
        self.policy
    }
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
                &self.activated.iter().map(ToolKey::name).collect::<Vec<_>>(),
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
