//! One request to a model: the one thing that decides what the model is offered, what the
//! gate permits and therefore what runs (DESIGN.md, "One invariant above all").
//!
//! A [`Request`] is built per provider call from the [`Policy`], the conversation's
//! [`Activations`], the tools a procedure injects, and the tool names the history already
//! uses. Its list is composed in four sections, each appended after the one before, so a
//! growing conversation never changes the bytes a provider has cached:
//!
//! 1. **offered**: the set's tools the policy neither hides, denies nor defers, in declared
//!    order; where the format has native tool search (Anthropic, OpenAI Responses) the
//!    deferred tools stay in their declared place marked `defer_loading: true`; then the
//!    search tool, whenever some tool is deferred (never itself deferred; the local search
//!    not at [`Autonomy::Off`](crate::Autonomy::Off), see `Request::offers_search`);
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
//! in the set's render cache: composing a list does no schema work.

use crate::consumer::{Format, tool_value};
use crate::gate::Route;
use crate::policy::Availability;
use crate::search::{
    SEARCH_TOOL_NAME, SearchArgs, ToolSearch, lists_deferred, nothing_found, search,
    search_fragment,
};
use crate::toolbox::{RuntimeTool, Toolbox};
use crate::{Autonomy, CallProblem, ProblemKind, messages};
use crate::{Plan, Policy, Rejected, Report, ToolCall, ToolName, ToolOutput, ToolSet, ToolSpec};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::cell::OnceCell;
use std::fmt;
use std::sync::Arc;

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
    /// [`ToolOutput::activate`]); `apply` has already checked every name against the set
    /// and the policy (a name the set lacks, or a tool the policy hides, failed the call).
    /// Returns how many names were new.
    pub fn record(&mut self, report: &Report) -> usize {
        let mut added = 0;
        for (_, outcome) in report.outcomes() {
            if let crate::Outcome::Done(output) = outcome {
                for name in &output.activate {
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
    /// (their `tools`) in a response or its `output` array; anything else is ignored.
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
                        if let Some(name) = tool.get("name").and_then(Value::as_str) {
                            found.push(name.to_owned());
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

/// One request to one consumer: its tool list, and the gate that permits exactly what the
/// list offers.
///
/// The primary API: build one per provider call, render [`tool_list`](Self::tool_list)
/// into the request body, and pass the model's calls to [`gate`](Self::gate). `Set::gate`,
/// `Set::gate_with` and `Set::gate` are this with an empty conversation (no
/// activations, nothing injected, no history).
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
/// let request = Request::new(&policy, Format::OpenAiChat).activated(&activations);
/// assert_eq!(request.offered(), ["now", "tool_search"]);
/// assert!(request.gate([ToolCall::new("c1", "convert", "{}")]).is_err());
///
/// // The model searches; the search activates what it found.
/// let plan = request.gate([ToolCall::new("c2", "tool_search", r#"{"query":"currency"}"#)])?;
/// # let report = futures_executor_free(plan);
/// activations.record(&report);
/// let next = Request::new(&policy, Format::OpenAiChat).activated(&activations);
/// assert_eq!(next.offered(), ["now", "tool_search", "convert"]);
/// # fn futures_executor_free(plan: toolset::Plan<Tools>) -> toolset::Report {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap()
/// #         .block_on(Tools::apply(&mut (), &toolset::ToolContext::default(), plan))
/// # }
/// # Ok::<(), toolset::Rejected>(())
/// ```
pub struct Request<'p, T: ToolSet> {
    policy: &'p Policy<T>,
    format: Format,
    search: ToolSearch,
    activated: Vec<T::Name>,
    injected: Vec<T::Name>,
    /// Names the history uses, in order of first use.
    history: Vec<String>,
    /// The runtime tools of the toolbox the request is for (none for a bare set): offered
    /// after the set's offered tools, in the order they were added.
    runtime: Vec<Arc<RuntimeTool>>,
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
    /// A runtime tool of the request's toolbox, by its position there.
    Runtime(usize),
}

/// What a request offers and declares, computed from its inputs.
struct Layout {
    entries: Vec<Entry>,
    /// By tool index: may the gate let a call to it through.
    permitted: Vec<bool>,
    /// Whether the model calls the search by [`SEARCH_TOOL_NAME`] for the host to answer
    /// (not when the provider hosts it).
    search_callable: bool,
}

impl<'p, T: ToolSet> Request<'p, T> {
    /// A request under `policy` to the consumer `format`, with nothing activated, injected
    /// or in its history.
    pub fn new(policy: &'p Policy<T>, format: Format) -> Self {
        Request {
            policy,
            format,
            search: ToolSearch::default(),
            activated: Vec::new(),
            injected: Vec::new(),
            history: Vec::new(),
            runtime: Vec::new(),
        }
    }

    /// Offers the runtime tools of `toolbox` too (after the set's offered tools, in the
    /// order they were added), and gates their calls like the set's: what the list offers
    /// is what the gate permits. What [`Toolbox::request`] does.
    pub fn toolbox(mut self, toolbox: &'p Toolbox<T>) -> Self {
        // A snapshot: a namespace refreshing meanwhile changes the next request, not this
        // one, so this list and this gate agree.
        self.runtime = toolbox.runtime_tools();
        self
    }

    /// The runtime tool called `name`, with its position in the toolbox.
    fn runtime_tool(&self, name: &str) -> Option<(usize, &Arc<RuntimeTool>)> {
        self.runtime
            .iter()
            .enumerate()
            .find(|(_, tool)| tool.spec().name() == name)
    }

    /// The set's tool `name` names, as the model may know it in this request: `None` for a
    /// name the set does not have and for a tool the policy hides (unless injected here)
    /// alike ([`Policy::conceals`], the one rule of what a hidden tool is). Every name the
    /// model or the history brings is looked up through this, so a hidden tool is declared,
    /// refused and suggested exactly as a name no tool has.
    fn lookup(&self, name: &str) -> Option<T::Name> {
        T::Name::from_name(name).filter(|&tool| !self.policy.conceals(tool, &self.injected))
    }

    /// The conversation's activated tools. Names the set does not have are ignored (they
    /// cannot come from `apply`, which refuses them); a denied or hidden one stays out.
    pub fn activated(mut self, activations: &Activations) -> Self {
        for name in activations.names() {
            if let Some(tool) = T::Name::from_name(name)
                && !self.activated.contains(&tool)
            {
                self.activated.push(tool);
            }
        }
        self
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

    /// The consumer this request is for.
    pub fn format(&self) -> Format {
        self.format
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

    /// Whether this request offers a tool search at all: the provider's hosted one
    /// always; the local one unless the policy's autonomy is [`Autonomy::Off`].
    ///
    /// At `Off` nothing of the host runs without the user, and the local search would run
    /// here, in the gate, unattended. Making its calls proposals does not fit: what a human
    /// approves is re-verified against the set (`approve`), which has no search tool, and a
    /// human asked to approve a look through the tool descriptions learns nothing worth
    /// the interruption. So at `Off` the request offers no local search: its list does not
    /// declare it, deferred tools stay out of the list (even in formats that list them for a
    /// native search to load: no search could load them), and a call to `tool_search` is
    /// answered as a call to a name the request does not offer. A deferred tool is still
    /// offered once activated or injected. A hosted search runs at the provider, not here,
    /// so it is offered at every level.
    fn offers_search(&self) -> bool {
        self.search.hosted_in(self.format) || self.policy.autonomy() != Autonomy::Off
    }

    fn layout(&self) -> Layout {
        let specs = T::specs();
        let offers_search = self.offers_search();
        let native = lists_deferred(self.format) && offers_search;
        let mut entries = Vec::with_capacity(specs.len() + 1);
        let mut permitted = vec![false; specs.len()];
        let mut listed = vec![false; specs.len()];
        let mut any_deferred = false;
        // The policy's one rule decides each tool's place; the request only adds to it.
        for &tool in T::Name::ALL {
            let index = tool.index();
            match self.policy.availability(tool) {
                Availability::Hidden | Availability::Denied => {}
                Availability::Deferred => {
                    any_deferred = true;
                    if native {
                        entries.push(Entry::Tool {
                            index,
                            defer_loading: true,
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
        // Runtime tools are always offered (no policy names them): after the set's, in
        // the order they were added, so the cached prefix of the set's tools stays put.
        entries.extend((0..self.runtime.len()).map(Entry::Runtime));
        if any_deferred && offers_search {
            entries.push(Entry::Search);
        }
        let search_callable = any_deferred && offers_search && !self.search.hosted_in(self.format);
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
                None if self.runtime_tool(name).is_some() => {}
                None => entries.push(Entry::StandIn(position)),
            }
        }
        Layout {
            entries,
            permitted,
            search_callable,
        }
    }

    /// The names the model may call in this request, in list order: what the gate lets
    /// through. A tool declared only for the history is not among them.
    pub fn offered(&self) -> Vec<&str> {
        self.available(&self.layout())
    }

    /// Every name the list declares, in list order: the offered ones, the deferred ones a
    /// native search loads, and the history's.
    pub fn declared(&self) -> Vec<String> {
        let layout = self.layout();
        let specs = T::specs();
        layout
            .entries
            .iter()
            .map(|entry| match entry {
                Entry::Tool { index, .. } => specs[*index].name().to_owned(),
                Entry::Search => self.search_name().to_owned(),
                Entry::StandIn(position) => self.history[*position].clone(),
                Entry::Runtime(position) => self.runtime[*position].spec().name().to_owned(),
            })
            .collect()
    }

    /// The name the list's search entry goes by in this request's format.
    fn search_name(&self) -> &'static str {
        match (
            self.search.hosted_in(self.format),
            self.format,
            self.search.ranking(),
        ) {
            (true, Format::Anthropic, crate::search::Ranking::Bm25) => {
                toolset_names::ANTHROPIC_BM25_SEARCH_NAME
            }
            (true, Format::Anthropic, crate::search::Ranking::Regex) => {
                toolset_names::ANTHROPIC_REGEX_SEARCH_NAME
            }
            _ => SEARCH_TOOL_NAME,
        }
    }

    /// The request's tool list in its format: the JSON formats give a compact JSON array
    /// of the consumer's tool objects (the value of the request body's `tools`, of
    /// Gemini's `functionDeclarations`, of MCP's `tools/list` `tools`); prompt text gives
    /// each tool's text separated by a blank line.
    ///
    /// Identical inputs give identical bytes, and activating a tool only appends.
    pub fn tool_list(&self) -> String {
        self.compose(false)
    }

    /// [`tool_list`](Self::tool_list), optionally with the entries sorted by name (the
    /// default list in [`Order::ByName`](crate::consumer::Order::ByName)).
    pub(crate) fn compose(&self, by_name: bool) -> String {
        let mut layout = self.layout();
        if by_name {
            let names = self.declared();
            let mut named: Vec<(String, Entry)> = names.into_iter().zip(layout.entries).collect();
            named.sort_by(|a, b| a.0.cmp(&b.0));
            layout.entries = named.into_iter().map(|(_, entry)| entry).collect();
        }
        let cache = T::render_cache();
        let specs = T::specs();
        let json = self.format.is_json();
        // Stand-ins are the only pieces rendered per request (a history name the set does
        // not have); everything else is a cached fragment, borrowed.
        let stand_ins: Vec<String> = layout
            .entries
            .iter()
            .filter_map(|entry| match entry {
                Entry::StandIn(position) => Some(stand_in(&self.history[*position], self.format)),
                _ => None,
            })
            .collect();
        let mut stand_in_at = 0;
        // Each entry as (body, tail): a deferred tool a native search loads is its
        // fragment without the closing brace, then `defer_loading`.
        let pieces: Vec<(&str, &str)> = layout
            .entries
            .iter()
            .map(|entry| match entry {
                Entry::Tool {
                    index,
                    defer_loading,
                } => {
                    let fragment = cache.fragment(specs, *index, self.format);
                    match fragment.strip_suffix('}') {
                        Some(open) if *defer_loading && json => (open, ",\"defer_loading\":true}"),
                        _ => (fragment, ""),
                    }
                }
                Entry::Search => (search_fragment(self.search, self.format), ""),
                Entry::StandIn(_) => {
                    stand_in_at += 1;
                    (stand_ins[stand_in_at - 1].as_str(), "")
                }
                Entry::Runtime(position) => (self.runtime[*position].fragment(self.format), ""),
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
                .map(|(body, tail)| body.len() + tail.len())
                .sum::<usize>();
        let mut list = String::with_capacity(len);
        list.push_str(open);
        for (position, (body, tail)) in pieces.iter().enumerate() {
            if position > 0 {
                list.push_str(separator);
            }
            list.push_str(body);
            list.push_str(tail);
        }
        list.push_str(close);
        debug_assert_eq!(list.len(), len);
        list
    }

    /// Verifies the model's whole program against what this request offers, then splits it
    /// by tier (see `Set::gate`). A call to a tool the request does not offer is
    /// rejected as unknown, its message listing what is offered; a tool declared only for
    /// the history is refused. A call to the search tool is answered here, at once.
    pub fn gate(&self, calls: impl IntoIterator<Item = ToolCall>) -> Result<Plan<T>, Rejected> {
        // The list's layout costs a walk of the whole set: it is built only for a call
        // that is not simply to a permitted tool (see `permits`).
        let layout = OnceCell::new();
        let concealed = self.policy.concealed(&self.injected);
        crate::plan::plan_routed(calls, self.policy, concealed, |call| {
            self.route(&layout, call)
        })
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
        crate::gate::check_one::<T>(call, |call| self.route(&layout, call))
    }

    /// What [`gate`](Self::gate) makes of one `call` to `tool` (the name `call` names),
    /// which `policy` offers: permitted by every request under `policy` whatever it
    /// activated, injected or took from a toolbox (see `permits`; a runtime tool cannot
    /// take a compiled tool's name, and the route asks the set first), so it is gated
    /// without composing one. For a server that looked the name up to know this.
    #[cfg(feature = "mcp")]
    pub(crate) fn gate_offered(
        policy: &Policy<T>,
        tool: T::Name,
        call: ToolCall,
    ) -> Result<Plan<T>, Rejected> {
        debug_assert!(policy.offers(tool) && T::Name::from_name(&call.name) == Some(tool));
        crate::plan::plan_routed([call], policy, policy.concealed(&[]), |_| {
            Ok(Route::Tool(tool))
        })
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
                self.layout().permitted[tool.index()],
                "permits({}) disagrees with the layout",
                tool.as_str()
            );
            if permitted {
                return Ok(Route::Tool(tool));
            }
        }
        // From here on a concealed tool is the unknown name it looks like to the model:
        // neither "not available" (denied) nor "declared only" (history) may tell it exists.
        let tool = self.lookup(&call.name);
        let layout = layout.get_or_init(|| self.layout());
        if let Some((_, tool)) = self.runtime_tool(&call.name) {
            return Ok(Route::Runtime(Arc::clone(tool)));
        }
        if call.name == SEARCH_TOOL_NAME && layout.search_callable {
            return self.answer_search(call).map(Route::Answered);
        }
        match tool {
            Some(tool) if self.policy.is_denied(tool) => {
                Err(problem(ProblemKind::Denied, messages::denied(&call.name)))
            }
            Some(tool)
                if self.history.iter().any(|name| name == tool.as_str())
                    || (layout.entries.contains(&Entry::Tool {
                        index: tool.index(),
                        defer_loading: true,
                    })) =>
            {
                Err(problem(
                    ProblemKind::Denied,
                    messages::declared_only(&call.name, &self.available(layout)),
                ))
            }
            _ => Err(problem(
                ProblemKind::UnknownTool,
                self.unknown_tool_message(&call.name, layout),
            )),
        }
    }

    /// The names the gate lets through, in list order.
    fn available(&self, layout: &Layout) -> Vec<&str> {
        let specs = T::specs();
        let runtime = &self.runtime;
        layout
            .entries
            .iter()
            .filter_map(|entry| match entry {
                Entry::Tool { index, .. } if layout.permitted[*index] => Some(specs[*index].name()),
                Entry::Search if layout.search_callable => Some(SEARCH_TOOL_NAME),
                Entry::Runtime(position) => Some(runtime[*position].spec().name()),
                Entry::Tool { .. } | Entry::Search | Entry::StandIn(_) => None,
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
        let args = SearchArgs::parse(&call.arguments).map_err(|message| CallProblem {
            call_id: call.id.clone(),
            name: call.name.clone(),
            kind: ProblemKind::InvalidArguments,
            message,
        })?;
        let candidates: Vec<usize> = T::Name::ALL
            .iter()
            .filter(|&&tool| self.searchable(tool))
            .map(|tool| tool.index())
            .collect();
        let index = T::render_cache().search_index(T::specs());
        let found = match search(index, &candidates, &args) {
            Ok(found) => found,
            Err(message) => return Ok(ToolOutput::error(message)),
        };
        if found.is_empty() {
            return Ok(ToolOutput::text(nothing_found(&args)));
        }
        let specs: Vec<&'static ToolSpec> = found.iter().map(|&index| &T::specs()[index]).collect();
        let tools: Vec<Value> = specs
            .iter()
            .map(|spec| match self.format {
                // A client-executed `tool_search_output` carries the loaded definitions.
                Format::OpenAiResponses => tool_value(spec, self.format),
                _ => json!({"name": spec.name(), "description": spec.description()}),
            })
            .collect();
        let mut output = ToolOutput::text(crate::search::found(&specs))
            .activating(specs.iter().map(|spec| spec.name()));
        output.structured = Some(json!({ "tools": tools }));
        Ok(output)
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
            .finish()
    }
}
