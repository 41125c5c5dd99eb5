//! What a request hands the model beside its gate, as its methods: the tool list, its
//! strict downgrades, the tool choice, the fixed list and Anthropic's tool changes. Each is
//! a delegation to the consumer module that renders it (`consumer/compose.rs`,
//! `consumer/tool_choice.rs`, `consumer/tool_changes.rs`) from the request's one
//! `Decision`, resolved into the consumers' `Listing` here (`Request::listing`: each
//! entry's cached fragment and spec, from the set's render cache or a runtime tool); nothing
//! here decides or renders.

use super::builder::Request;
use super::decision::{Entry, Layout};
use crate::consumer::compose::compose;
use crate::consumer::listing::{Listed, ListedTool, Listing, Nested};
use crate::consumer::{
    Announced, FixedTools, StrictDowngrade, ToolChanges, ToolChoiceError, tool_changes, tool_choice,
};
use crate::search::{search_fragment, search_spec};
use crate::set::ToolSet;
use serde_json::Value;

impl<'p, T: ToolSet> Request<'p, T> {
    /// The request's tool list in its [`format`](Self::format) (MCP's when none was
    /// given): the JSON formats give a compact JSON array
    /// of the consumer's tool objects (the value of the request body's `tools`, of
    /// Gemini's `functionDeclarations`, of MCP's `tools/list` `tools`); prompt text gives
    /// each tool's text separated by a blank line.
    ///
    /// Identical inputs give identical bytes, and activating a tool only appends.
    pub fn tool_list(&self) -> String {
        compose(&self.listing(self.listed()), self.rendered_as()).0
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
    /// use toolset::{Autonomy, Policy, tool, toolset};
    /// use toolset::request::Request;
    /// use toolset::prelude::ToolSet;
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
        compose(&self.listing(self.listed()), self.rendered_as()).1
    }

    /// The tool choice for this request's list: the provider's value naming exactly what
    /// the gate permits (the names of [`offered`](Self::offered), in list order), in the
    /// [`choice_mode`](Self::choice_mode) asked for. Send it beside
    /// [`tool_list`](Self::tool_list): OpenAI Chat Completions and Responses as the body's
    /// `tool_choice` (`{"type": "allowed_tools", …}`), Gemini as its `toolConfig`
    /// (`{"functionCallingConfig": {"mode": "VALIDATED", "allowedFunctionNames": […]}}`);
    /// [`ChoiceMode`](crate::consumer::ChoiceMode) says what each mode renders, and `"none"` (Gemini: mode `NONE`) is
    /// what a request that permits nothing renders in every mode.
    ///
    /// With it the model is offered exactly what the gate permits even where the list
    /// declares more (the history's tools). Where OpenAI Responses lists a `tool_search`
    /// (the local one the gate answers, or the provider's hosted one), the choice allows it
    /// as `{"type": "tool_search"}`, so the model can still search. The choice names what
    /// the gate permits when the request is built: a tool a hosted search loads during the
    /// response is not in it (the provider may refuse the model a call to it until the next
    /// request names it), and the gate still decides, after
    /// [`Activations::record_hosted`](crate::request::Activations::record_hosted), what runs.
    ///
    /// `Err(`[`ToolChoiceError::Unsupported`]`)` for Anthropic, MCP and prompt text (and a
    /// request given no format), which have no choice that names what may be called.
    pub fn tool_choice(&self) -> Result<Value, ToolChoiceError> {
        tool_choice::choice(
            &self.listing(self.listed()),
            self.rendered_as(),
            self.choice_mode,
        )
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
    /// tools only in mode `VALIDATED` or `ANY`: [`ChoiceMode::Auto`](crate::consumer::ChoiceMode::Auto) or
    /// [`ChoiceMode::Required`](crate::consumer::ChoiceMode::Required)). Always send both: the list alone shows the model tools
    /// the gate refuses as callable.
    ///
    /// `Err` where no choice can restrict the list: [`ToolChoiceError::Unsupported`] for
    /// Anthropic, MCP and prompt text (send [`tool_list`](Self::tool_list)), and
    /// [`ToolChoiceError::FixedNeedsNames`] with [`ChoiceMode::Unrestricted`](crate::consumer::ChoiceMode::Unrestricted).
    ///
    /// ```
    /// use toolset::consumer::{ChoiceMode, Format, ToolChoiceError};
    /// use toolset::{Autonomy, Policy, tool, toolset};
    /// use toolset::request::{Activations, Request};
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
        let listing = || self.listing(self.fixed());
        tool_choice::fixed_tools(self.rendered_as(), self.choice_mode, listing)
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
    /// use toolset::{Autonomy, Policy, tool, toolset};
    /// use toolset::request::{Activations, Request};
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
        let hosted = self.search.hosted_in(format);
        tool_changes::tool_changes(format, hosted, announced, || self.listing(self.fixed()))
    }

    /// [`tool_list`](Self::tool_list), optionally with the entries sorted by name (the
    /// default list in [`Order::ByName`](crate::consumer::Order::ByName)).
    pub(crate) fn compose(&self, by_name: bool) -> String {
        let mut listing = self.listing(self.listed());
        if by_name {
            listing.sort_by_name();
        }
        compose(&listing, self.rendered_as()).0
    }

    /// `layout` as the renderers read it, in the request's format: each entry's cached
    /// fragment (the set's render cache, a runtime tool's own), its spec, and what the
    /// request decided of it.
    pub(super) fn listing<'a>(&'a self, layout: &'a Layout) -> Listing<'a> {
        let format = self.rendered_as();
        let cache = T::render_cache();
        let specs = T::specs();
        let hosted = self.search.hosted_in(format);
        let entries = layout
            .entries
            .iter()
            .map(|entry| match *entry {
                Entry::Tool {
                    index,
                    defer_loading,
                } => {
                    let (fragment, spec, nested) = match self.runtime_at(index) {
                        Some(tool) => (
                            tool.fragment(format),
                            tool.spec(),
                            tool.namespace_of().map(|_| &**tool as &dyn Nested),
                        ),
                        None => (cache.fragment(specs, index, format), &specs[index], None),
                    };
                    Listed::Tool(ListedTool {
                        fragment,
                        spec,
                        defer_loading,
                        from_code: self.code_may_call(index),
                        permitted: layout.permitted[index],
                        nested,
                    })
                }
                Entry::Search => Listed::Search {
                    fragment: search_fragment(self.search, format),
                    spec: search_spec(self.search.ranking()),
                    name: self.search_name(),
                    allowed: layout.search_callable || hosted,
                },
                Entry::StandIn(position) => Listed::StandIn(&self.history[position]),
            })
            .collect();
        Listing {
            entries,
            offered: layout.offered,
            strict: self.strict,
            code_execution: self.code_execution,
        }
    }
}
