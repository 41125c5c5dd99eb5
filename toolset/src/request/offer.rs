//! How a request decides what it offers, declares and permits: each arrangement of its
//! one `Decision` (a [`Layout`]), computed from its inputs at its first use and kept, and
//! the one-tool rules the gate reads without one.

use super::builder::Request;
use super::decision::{Entry, Layout};
use crate::consumer::Format;
use crate::policy::ToolKey;
use crate::policy::{Availability, Ruled};
use crate::search::{SEARCH_TOOL_NAME, ToolSearch, lists_deferred};
use crate::set::ToolName;
use crate::set::ToolSet;
use crate::spec::ToolSpec;
use crate::tier::Autonomy;
use crate::toolbox::RuntimeTool;
use std::sync::Arc;

impl<'p, T: ToolSet> Request<'p, T> {
    /// Whether `tool` is deferred by the policy (and neither hidden nor denied): what a
    /// search may find and an activation may add.
    pub(super) fn searchable(&self, tool: T::Name) -> bool {
        self.policy.availability(Ruled::Set(tool)) == Availability::Deferred
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
    pub(super) fn search_runs_here(&self) -> bool {
        matches!(self.search, ToolSearch::Local(_)) && self.policy.autonomy() != Autonomy::Off
    }

    /// Whether the list in `format` offers a tool search: the local one when it runs here
    /// ([`search_runs_here`](Self::search_runs_here)); a hosted one where `format` has one
    /// (Anthropic, OpenAI Responses), at every autonomy, since it runs at the provider. A
    /// hosted search asked of a format without one offers none: nothing but an activation
    /// or an injection adds a deferred tool there. `None`: the gate's view, no format.
    pub(super) fn lists_search(&self, format: Option<Format>) -> bool {
        format.is_some_and(|format| self.search.hosted_in(format)) || self.search_runs_here()
    }

    /// What the request lists and permits, in the list's order for `format`; `None` is the
    /// gate's view, which no format changes (deferred tools are not listed, activated ones
    /// come after the offered ones).
    pub(super) fn layout(&self, format: Option<Format>) -> Layout {
        self.layout_as(format, false)
    }

    /// The gate's arrangement of the decision: no format.
    pub(super) fn decided(&self) -> &Layout {
        self.decision.gate.get_or_init(|| self.layout(None))
    }

    /// The composed list's arrangement of the decision, in the request's format.
    pub(super) fn listed(&self) -> &Layout {
        self.decision
            .list
            .get_or_init(|| self.layout(Some(self.rendered_as())))
    }

    /// The fixed list's arrangement of the decision, in the request's format.
    pub(super) fn fixed(&self) -> &Layout {
        self.decision
            .fixed
            .get_or_init(|| self.layout_as(Some(self.rendered_as()), true))
    }

    /// [`layout`](Self::layout), or with `fixed` (and a format) the fixed list's: every
    /// tool the policy defers, set's and toolbox's, listed in its declared place whether
    /// activated or not (marked `defer_loading` where the format's native search loads it),
    /// so activating a tool changes what is permitted and not one byte of the list.
    /// What is permitted is the same either way.
    pub(super) fn layout_as(&self, format: Option<Format>, fixed: bool) -> Layout {
        let fixed = fixed && format.is_some();
        let specs = T::specs();
        let lists_search = self.lists_search(format);
        // Anthropic's fixed list marks every deferred tool `defer_loading`: a
        // `tool_addition` block offers it when the gate comes to permit it.
        let native = format.is_some_and(lists_deferred) && lists_search
            || fixed && format == Some(Format::Anthropic);
        let runtime = self.runtime();
        let mut entries = Vec::with_capacity(specs.len() + runtime.len() + 1);
        // One index space: the set's tools, then the runtime ones.
        let set = specs.len();
        let mut permitted = vec![false; set + runtime.len()];
        let mut listed = vec![false; set + runtime.len()];
        let mut any_deferred = false;
        // The policy's one rule decides each tool's place, the set's tools first, then the
        // runtime ones in the order they were added, so the cached prefix of the set's tools
        // stays put; the request only adds to it.
        let mut activated_runtime = Vec::new();
        for index in 0..set + runtime.len() {
            match self.availability_at(index) {
                Availability::Hidden | Availability::Denied => {}
                Availability::Deferred => {
                    any_deferred = true;
                    let activated = self.permits(index);
                    if native || fixed {
                        entries.push(Entry::Tool {
                            index,
                            defer_loading: native,
                        });
                        listed[index] = true;
                        permitted[index] = activated;
                    } else if activated && index >= set {
                        // Listed after the set's activated and injected tools, below.
                        permitted[index] = true;
                        activated_runtime.push(index);
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
        if any_deferred && lists_search {
            entries.push(Entry::Search);
        }
        let offered = entries.len();
        let search_callable = any_deferred && self.search_runs_here();
        let extra = self
            .activated
            .iter()
            .filter_map(|key| match key {
                ToolKey::Set(tool) => Some(tool),
                ToolKey::Named(_) => None,
            })
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
        activated_runtime.sort_by_key(|&index| {
            let name = runtime[index - set].spec().name();
            self.activated
                .iter()
                .filter(|key| matches!(key, ToolKey::Named(_)))
                .position(|key| key.name() == name)
        });
        for index in activated_runtime {
            listed[index] = true;
            entries.push(Entry::Tool {
                index,
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
                    Some((index, _)) if !listed[index] => {
                        listed[index] = true;
                        entries.push(Entry::Tool {
                            index,
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
            search_callable,
        }
    }

    /// The names the model may call in this request, in list order: what the gate lets
    /// through, and what [`tool_choice`](Self::tool_choice) names. A tool declared only for
    /// the history is not among them.
    pub fn offered(&self) -> Vec<&str> {
        self.available(self.listed())
    }

    /// Every name the list declares, in list order: the offered ones, the deferred ones a
    /// native search loads, and the history's.
    pub fn declared(&self) -> Vec<String> {
        self.declared_in(self.listed())
    }

    /// The name of each entry of `layout`, in its order.
    pub(super) fn declared_in(&self, layout: &Layout) -> Vec<String> {
        layout
            .entries
            .iter()
            .map(|entry| match entry {
                Entry::Tool { index, .. } => self.spec_at(*index).name().to_owned(),
                Entry::Search => self.search_name().to_owned(),
                Entry::StandIn(position) => self.history[*position].clone(),
            })
            .collect()
    }

    /// The name the list's search entry goes by in this request's format.
    pub(super) fn search_name(&self) -> &'static str {
        let format = self.rendered_as();
        match (self.search.hosted_in(format), format, self.search.ranking()) {
            (true, Format::Anthropic, crate::search::Ranking::Bm25) => {
                toolset_rules::ANTHROPIC_BM25_SEARCH_NAME
            }
            (true, Format::Anthropic, crate::search::Ranking::Regex) => {
                toolset_rules::ANTHROPIC_REGEX_SEARCH_NAME
            }
            _ => SEARCH_TOOL_NAME,
        }
    }

    /// What the tool at `index` of the request's one index space is in this request: the
    /// policy's one rule ([`Policy::availability`]).
    pub(super) fn availability_at(&self, index: usize) -> Availability {
        self.policy.availability(self.ruled_at(index))
    }

    /// The tool at `index` of the request's one index space, as the policy's rules look
    /// it up.
    pub(super) fn ruled_at(&self, index: usize) -> Ruled<'_, T> {
        match self.runtime_at(index) {
            Some(tool) => Ruled::Runtime(tool.spec()),
            None => Ruled::Set(T::Name::ALL[index]),
        }
    }

    /// The runtime tool at `index` of the request's one index space (the set's tools,
    /// then the toolbox's runtime tools in the request's snapshot): `None` for a tool of
    /// the set.
    pub(super) fn runtime_at(&self, index: usize) -> Option<&Arc<RuntimeTool>> {
        let position = index.checked_sub(T::specs().len())?;
        self.runtime().get(position)
    }

    /// What the tool at `index` of the request's one index space declares.
    pub(super) fn spec_at(&self, index: usize) -> &ToolSpec {
        match self.runtime_at(index) {
            Some(tool) => tool.spec(),
            None => &T::specs()[index],
        }
    }

    /// The names the gate lets through, in list order.
    pub(super) fn available(&self, layout: &Layout) -> Vec<&str> {
        layout
            .entries
            .iter()
            .filter_map(|entry| match entry {
                Entry::Tool { index, .. } if layout.permitted[*index] => {
                    Some(self.spec_at(*index).name())
                }
                Entry::Search if layout.search_callable => Some(SEARCH_TOOL_NAME),
                Entry::Tool { .. } | Entry::Search | Entry::StandIn(_) => None,
            })
            .collect()
    }
}
