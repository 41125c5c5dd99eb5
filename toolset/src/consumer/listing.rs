//! A request's decision as the renderers read it: a [`Listing`], each entry of the list the
//! request decided on resolved to its cached fragment, its spec and what the gate permits
//! of it. The request builds one per rendering (`Request::listing`, from the decision it
//! computed once); the tool list (`compose.rs`), the tool choice and fixed list
//! (`tool_choice.rs`) and Anthropic's tool changes (`tool_changes.rs`) are functions of it
//! and the format, so no renderer reads the policy, the toolbox or the history.

use super::Format;
use super::list::Fragment;
use super::openai_responses::namespace::has_namespaces;
use crate::spec::ToolSpec;

/// What a request renders: its list's entries in order, and how its strict tools and its
/// callers are to be written.
pub(crate) struct Listing<'a> {
    /// The entries, in list order.
    pub(crate) entries: Vec<Listed<'a>>,
    /// How many of `entries` are the offered section (with the search): what follows
    /// (activated, injected, history) is only ever appended.
    pub(crate) offered: usize,
    /// Whether the list may mark tools strict (`Request::strict`).
    pub(crate) strict: bool,
    /// Whether the model runs code that calls tools (`Request::code_execution`).
    pub(crate) code_execution: bool,
}

/// One entry of a [`Listing`].
pub(crate) enum Listed<'a> {
    /// A tool of the set or of the toolbox.
    Tool(ListedTool<'a>),
    /// The search tool.
    Search {
        /// Its cached fragment in the format.
        fragment: &'a Fragment,
        /// What it declares.
        spec: &'a ToolSpec,
        /// The name the list's entry goes by (a hosted search's own name in Anthropic).
        name: &'static str,
        /// Whether a tool choice names it: the model calls it for the host to answer, or
        /// the provider hosts it.
        allowed: bool,
    },
    /// A stand-in declaration for a history name no tool the model may know has.
    StandIn(&'a str),
}

/// A tool entry of a [`Listing`].
pub(crate) struct ListedTool<'a> {
    /// Its cached fragment in the format.
    pub(crate) fragment: &'a Fragment,
    /// What it declares.
    pub(crate) spec: &'a ToolSpec,
    /// Whether it is listed for a native search to load (`defer_loading`).
    pub(crate) defer_loading: bool,
    /// Whether the model's code may call it.
    pub(crate) from_code: bool,
    /// Whether the gate lets a call to it through.
    pub(crate) permitted: bool,
    /// Its namespace, for a runtime tool of one (an MCP server's).
    pub(crate) nested: Option<&'a dyn Nested>,
}

/// Each entry's namespace in one format ([`Listing::namespaces`]): recorded only where the
/// format has namespaces and the offered section holds a tool of one.
pub(crate) struct Namespaces<'a>(Vec<Option<&'a dyn Nested>>);

impl<'a> Namespaces<'a> {
    /// The namespace whose entry lists the entry at `at`, if any.
    pub(crate) fn at(&self, at: usize) -> Option<&'a dyn Nested> {
        self.0.get(at).copied().flatten()
    }
}

/// A tool of a namespace, as a format with namespaces (OpenAI Responses) lists it inside
/// the namespace's entry.
pub(crate) trait Nested {
    /// The namespace's label.
    fn label(&self) -> &str;
    /// The bytes opening the namespace's entry, up to its first tool.
    fn open(&self) -> &str;
    /// The tool as an entry of its namespace, strict when it `keep`s that.
    fn inner(&self, keep: bool) -> &str;
}

impl<'a> Listing<'a> {
    /// For each entry, the namespace whose entry lists it in `format`: a runtime tool of a
    /// namespace, where the format has namespaces (OpenAI Responses); `None` for every
    /// other entry and in every other format.
    ///
    /// A namespace is one entry holding its tools in the offered section, where they come
    /// one after another (the toolbox lists each namespace's tools together, so its
    /// offered and deferred tools are one run). Its tools a later section lists (activated
    /// at [`Autonomy::Off`](crate::Autonomy::Off), where deferred tools are not listed in
    /// place, or declared for the history) are listed flat, under their local names: the
    /// bytes before them never change, and a call to either form is read as the same local
    /// name.
    pub(crate) fn namespaces(&self, format: Format) -> Namespaces<'a> {
        let offered = &self.entries[..self.offered.min(self.entries.len())];
        let nested = |entry: &Listed<'a>| match entry {
            Listed::Tool(tool) => tool.nested,
            _ => None,
        };
        // Most lists have no namespace: nothing to record, no allocation.
        if !has_namespaces(format) || !offered.iter().any(|entry| nested(entry).is_some()) {
            return Namespaces(Vec::new());
        }
        let mut namespaces = Vec::with_capacity(offered.len());
        // The namespace whose run the previous entry is in, and those whose run ended.
        let mut open: Option<&str> = None;
        let mut ended: Vec<&str> = Vec::new();
        for entry in offered {
            let nested = nested(entry);
            let label = nested.map(|nested| nested.label());
            if open.is_some() && open != label {
                ended.extend(open.take());
            }
            namespaces.push(match label {
                Some(label) if open == Some(label) => nested,
                Some(label) if !ended.contains(&label) => {
                    open = Some(label);
                    nested
                }
                _ => None,
            });
        }
        Namespaces(namespaces)
    }

    /// The name of each entry, in list order.
    pub(crate) fn names(&self) -> Vec<&'a str> {
        self.entries
            .iter()
            .map(|entry| match entry {
                Listed::Tool(tool) => tool.spec.name(),
                Listed::Search { name, .. } => name,
                Listed::StandIn(name) => name,
            })
            .collect()
    }

    /// The entries sorted by name (byte order): a set's default list in
    /// [`Order::ByName`](super::Order::ByName).
    pub(crate) fn sort_by_name(&mut self) {
        let names = self.names();
        let mut named: Vec<(&str, Listed<'a>)> =
            names.into_iter().zip(self.entries.drain(..)).collect();
        named.sort_by(|a, b| a.0.cmp(b.0));
        self.entries = named.into_iter().map(|(_, entry)| entry).collect();
    }
}
