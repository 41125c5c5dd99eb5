//! One request to a model: the one thing that decides what the model is offered, what the
//! gate permits and therefore what runs (DESIGN.md, "One invariant above all").
//!
//! A [`Request`] is built per provider call from the [`Policy`](crate::Policy), the conversation's
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
//! What the request decides is one value, its `Decision` (`decision.rs`): what is offered,
//! permitted, deferred, hidden, callable from code and declared for the history, computed
//! once per request at its first use and read by the gate and by every rendering. The
//! renderers live with the consumers and read the decision resolved into a
//! `consumer::listing::Listing` (each entry's cached fragment, spec and verdicts), never
//! the policy: the tool list and its strict downgrades (`consumer/compose.rs`), the tool
//! choice and the fixed list (`consumer/tool_choice.rs`), Anthropic's tool changes
//! (`consumer/tool_changes.rs`). [`Request::tool_list`], [`Request::strict_downgrades`],
//! [`Request::tool_choice`], [`Request::fixed_tools`] and [`Request::tool_changes`] are
//! one-line delegations to them (`render.rs`).
//!
//! Each section is a concatenation of per-tool fragments rendered once per format and kept
//! in the set's render cache: composing a list does no schema work. In OpenAI Responses a
//! toolbox namespace's tools in the offered section are wrapped in one `namespace` entry
//! (its opening bytes rendered once per namespace, each tool's fragment named without
//! `label_`); the later sections list a namespace's tools flat, so nothing before them moves
//! (`Listing::namespaces`). The list holds its strict tools to the provider's per-request
//! limits (Anthropic, OpenAI): a sum of each fragment's cached strict cost, spent in list
//! order; a tool past them is listed by its form without `strict`, rendered once
//! ([`Request::strict_downgrades`] names them).
//!
//! Where the provider has a tool choice naming what may be called (OpenAI Chat and
//! Responses, Gemini), it is rendered from the decision the gate reads
//! ([`Request::tool_choice`]), and a *fixed* list with it ([`Request::fixed_tools`]): every
//! deferred tool in its declared place whether activated or not, so the list's bytes stay
//! put for the whole conversation while the choice follows what the gate permits.
//!
//! Where the model's code calls tools (programmatic tool calling,
//! [`Request::code_execution`]), the list says of each tool who may call it
//! (`allowed_callers`, appended to the cached fragment as `defer_loading` is) from the
//! policy's one rule ([`Policy::allows_from_code`](crate::Policy::allows_from_code)), and the gate permits calls from code
//! exactly there.
//!
//! The request is also the one gate ([`Request::gate`], and [`Request::check`] for one
//! call): it supplies the route of each call (what its decision permits), `gate.rs` checks the program
//! through it, and `plan.rs` splits what passed by tier. The gate reads no format: where a
//! format lists deferred tools for its native search, they are listed, not permitted, and
//! a call to one is answered as in every other format.

mod activations;
mod builder;
mod decision;
mod gate;
mod offer;
mod render;

pub use activations::Activations;
pub use builder::Request;
