//! What a request asks of the model beside its list: the tool choice, the fixed list and
//! Anthropic's tool changes, rendered from the layout the gate reads.

use super::builder::Request;
use super::layout::{Entry, Layout};
use crate::consumer::tool_choice::{Allowed, has_tool_choice, tool_choice};
use crate::consumer::{Announced, ChoiceMode, FixedTools, Format, ToolChanges, ToolChoiceError};
use crate::set::ToolSet;
use serde_json::Value;

impl<'p, T: ToolSet> Request<'p, T> {
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
    /// [`Activations::record_hosted`](crate::request::Activations::record_hosted), what runs.
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
    pub(super) fn allowed(&self, layout: &Layout, format: Format) -> Vec<Allowed<'_>> {
        let hosted = self.search.hosted_in(format);
        let namespaces = self.namespaces(layout, format);
        layout
            .entries
            .iter()
            .zip(namespaces)
            .filter_map(|(entry, namespace)| match entry {
                Entry::Tool { index, .. } if layout.permitted[*index] => {
                    let name = self.spec_at(*index).name();
                    Some(match namespace {
                        // Named as the list names it: inside its namespace's entry (a
                        // runtime tool of a namespace).
                        Some(namespace) => Allowed::Namespaced {
                            namespace: namespace.label(),
                            local: name,
                        },
                        None => Allowed::Function(name),
                    })
                }
                Entry::Search if layout.search_callable || hosted => Some(Allowed::Search),
                Entry::Tool { .. } | Entry::Search | Entry::StandIn(_) => None,
            })
            .collect()
    }
}
