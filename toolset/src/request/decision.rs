//! What a request decides, as one value: its [`Decision`], what it offers, declares and
//! permits, as data. Computed once per request in `offer.rs`, read by the gate (`gate.rs`)
//! and, resolved into a `consumer::listing::Listing` (`render.rs`), by every renderer
//! (`consumer/compose.rs`, `consumer/tool_choice.rs`, `consumer/tool_changes.rs`).

use std::sync::OnceLock;

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

/// What a request offers and declares in one arrangement of its list, computed from its
/// inputs.
pub(super) struct Layout {
    pub(super) entries: Vec<Entry>,
    /// How many of `entries` are the offered section (with the search): what follows
    /// (activated, injected, history) is only ever appended.
    pub(super) offered: usize,
    /// By tool index (the set's tools, then the runtime ones): may the gate let a call to
    /// it through. The same in every arrangement of one request.
    pub(super) permitted: Vec<bool>,
    /// Whether the model calls the search by [`SEARCH_TOOL_NAME`](crate::search::SEARCH_TOOL_NAME) for the host to answer
    /// (not when the provider hosts it).
    pub(super) search_callable: bool,
}

/// What a request decides (what is offered, permitted, deferred, hidden, callable from
/// code, declared for the history), computed at most once per request and kept: every
/// `gate`, `check`, approval and rendering under the request reads this one value. Every
/// builder method that changes an input of it starts it afresh.
///
/// It has three arrangements, each built at its first use (a gate that needs only the
/// one-tool rule builds none): the gate's, which no format changes; the composed list's
/// in the request's format (deferred tools in place where a native search loads them);
/// and the fixed list's (every deferred tool in its declared place). What is permitted is
/// the same in all three.
#[derive(Default)]
pub(super) struct Decision {
    /// The gate's arrangement: no format.
    pub(super) gate: OnceLock<Layout>,
    /// The composed list's, in the request's format.
    pub(super) list: OnceLock<Layout>,
    /// The fixed list's, in the request's format.
    pub(super) fixed: OnceLock<Layout>,
}
