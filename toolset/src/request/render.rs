//! A request's tool list: composed from the set's cached per-tool fragments, held to the
//! provider's strict limits.

use super::builder::Request;
use super::layout::{Entry, Layout};
use crate::consumer::callers::allowed_callers;
use crate::consumer::list::Fragment;
use crate::consumer::openai_responses::namespace::{self, has_namespaces};
use crate::consumer::strict_budget::spend;
use crate::consumer::{Format, StrictDowngrade};
use crate::messages;
use crate::search::{search_fragment, search_spec};
use crate::set::ToolSet;
use crate::spec::ToolSpec;
use crate::toolbox::Namespace;
use serde_json::json;
use std::sync::Arc;

impl<'p, T: ToolSet> Request<'p, T> {
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
    pub(super) fn namespaces(
        &self,
        layout: &Layout,
        format: Format,
    ) -> Vec<Option<&Arc<Namespace>>> {
        let mut namespaces = Vec::with_capacity(layout.entries.len());
        // The namespace whose run the previous entry is in, and those whose run ended.
        let mut open: Option<&str> = None;
        let mut ended: Vec<&str> = Vec::new();
        for (at, entry) in layout.entries.iter().enumerate() {
            let namespace = match entry {
                Entry::Tool { index, .. } if has_namespaces(format) && at < layout.offered => {
                    self.runtime_at(*index).and_then(|tool| tool.namespace_of())
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
    pub(super) fn render(&self, layout: &Layout, format: Format) -> String {
        self.render_reporting(layout, format).0
    }

    /// [`render`](Self::render), and the tools the list renders without `strict` because
    /// the strict tools listed before them spent the provider's per-request limits.
    pub(super) fn render_reporting(
        &self,
        layout: &Layout,
        format: Format,
    ) -> (String, Vec<StrictDowngrade>) {
        let cache = T::render_cache();
        let specs = T::specs();
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
                } => Some(match self.runtime_at(*index) {
                    Some(tool) => (tool.fragment(format), tool.spec(), *defer_loading),
                    None => (
                        cache.fragment(specs, *index, format),
                        &specs[*index],
                        *defer_loading,
                    ),
                }),
                Entry::Search => Some((
                    search_fragment(self.search, format),
                    search_spec(self.search.ranking()),
                    false,
                )),
                Entry::StandIn(_) => None,
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
                            Entry::Tool { index, .. } => match self.runtime_at(*index) {
                                Some(tool) => {
                                    let text = match namespaces[at] {
                                        Some(_) => tool.inner_fragment(keep),
                                        None => fragment.as_listed(spec, format, keep),
                                    };
                                    (text, Some(self.code_may_call(*index)))
                                }
                                None => (
                                    fragment.as_listed(spec, format, keep),
                                    Some(self.code_may_call(*index)),
                                ),
                            },
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
