//! What a request offers, declares and permits, as data: its [`Layout`] (computed in
//! `offer.rs`, kept by the request once decided, read by the list, the tool choice and the
//! gate).

/// One entry of a composed list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Entry {
    /// A tool of the request by its index (the set's tools, then the toolbox's runtime
    /// tools: `Request::runtime_at`); `defer_loading` marks a deferred tool a native
    /// search loads.
    Tool { index: usize, defer_loading: bool },
    /// The search tool.
    Search,
    /// A stand-in declaration for a history name the set does not have.
    StandIn(usize),
}

/// What a request offers and declares, computed from its inputs.
pub(super) struct Layout {
    pub(super) entries: Vec<Entry>,
    /// How many of `entries` are the offered section (with the search): what follows
    /// (activated, injected, history) is only ever appended.
    pub(super) offered: usize,
    /// By tool index (the set's tools, then the runtime ones): may the gate let a call to
    /// it through.
    pub(super) permitted: Vec<bool>,
    /// Whether the model calls the search by [`SEARCH_TOOL_NAME`](crate::search::SEARCH_TOOL_NAME) for the host to answer
    /// (not when the provider hosts it).
    pub(super) search_callable: bool,
}
