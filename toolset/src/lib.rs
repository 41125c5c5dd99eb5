//! # toolset
//!
//! Declare each tool an LLM agent may call once, as `#[tool]` on an async handler, and
//! list the tools in `toolset!`. From that one declaration the compiler produces the spec
//! the model reads, the JSON schema of the arguments, a typed call enum, the dispatch
//! table and the risk-tier gate. A tool without a tier, a description or a handler, two
//! tools with one name, or a state type that does not fit is a compile error.
//!
//! ```
//! use toolset::prelude::*;
//! use toolset::{tool, toolset, Json, ToolError};
//!
//! pub struct Inbox { items: Vec<String> }
//!
//! /// Search the inbox by free text.
//! #[tool(tier = "read_only")]
//! pub async fn search(state: &Inbox, /// Words to look for.
//!     query: String) -> Json<Vec<String>> {
//!     Json(state.items.iter().filter(|i| i.contains(&query)).cloned().collect())
//! }
//!
//! /// Archive every item containing the words.
//! #[tool(tier = "reversible")]
//! pub async fn archive(state: &mut Inbox, query: String) -> Result<String, ToolError> {
//!     let before = state.items.len();
//!     state.items.retain(|i| !i.contains(&query));
//!     Ok(format!("archived {}", before - state.items.len()))
//! }
//!
//! toolset! {
//!     /// The inbox agent's tools.
//!     pub InboxTools<Inbox> = [search, archive];
//! }
//!
//! assert_eq!(InboxTools::specs()[0].name(), "search");
//! ```
//!
//! # Cargo features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `constraints` | yes | the gate also checks schema constraints serde cannot (ranges, lengths, patterns declared with `#[schemars(...)]`), with the `jsonschema` crate, for the tools that declare any |
//! | `mcp` | no | `toolset::mcp`: serve any set (and a toolbox) over MCP, stdio or streamable HTTP, with rmcp |
//! | `mcp-client` | no | `toolbox::McpTools`: another MCP server's tools in a toolbox, over a child's stdio or streamable HTTP (implies `mcp`) |
//! | `sqlite` | no | `SqliteStore`: an embedded SQLite proposal store (SQLite is compiled in) |
//! | `postgres` | no | `PostgresStore`: a PostgreSQL proposal store, one database for every replica of a host (tokio-postgres) |
//!
//! The design and its guarantees are in the repository's `DESIGN.md`; where each piece
//! lives, in its `ARCHITECTURE.md`.
#![cfg_attr(docsrs, feature(doc_cfg))]

// The run-time pipeline, one stage per file, each importing only the stages before it:
// call → verify (one call) → gate (the whole program) → plan (split by tier) → apply →
// outcome; a proposal is what the plan withholds, and approval turns one back into a plan.
// Every stage speaks of a tool, the set's or a runtime one, in one form (`job.rs`).
// No import cycle between files: `tests/tests/layers.rs` checks every file of this crate.
mod apply;
pub mod approval;
mod arguments;
mod call;
mod conversation;
pub mod driver;
mod gate;
mod job;
mod outcome;
mod plan;
mod proposal;
mod request;
mod run;
pub mod testing;
mod verify;

// What the stages share: the set's traits and specs, the policy, the pieces of a result,
// and every sentence the model reads; and what a user calls beside them (running blocking
// code, checking a set's declarations).
mod action_key;
mod blocking;
mod check;
pub mod context;
mod declaration;
mod describe;
mod digest;
mod error;
mod exposure;
mod ignored_keys;
mod integer_format;
mod non_finite;
use __private::messages;
pub mod output;
pub mod policy;
pub mod set;
mod spec;
pub mod stream;
mod tier;
pub mod toolbox;
mod trace;

// After the whole pipeline: the methods a caller calls on a set (gate, apply, approve).
mod pipeline;

pub mod consumer;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod report;
pub mod schema;
pub mod search;
pub mod store;

pub use approval::{ApprovalError, Approvals, Approved, ApprovedCall, Signed};
pub use blocking::blocking;
pub use call::{Arguments, Caller, ToolCall};
pub use check::check_declarations;
pub use consumer::error::ProviderError;
pub use context::ToolContext;
pub use declaration::DeclarationProblem;
pub use digest::{SealKey, SealKeyTooShort};
pub use driver::Driver;
pub use error::{ToolError, ToolErrorKind};
pub use exposure::Exposure;
pub use gate::Rejected;
pub use outcome::Outcome;
pub use output::{Content, IntoToolOutput, Json, ToolOutput, ToolOutputParts, ToolReply};
pub use pipeline::Pipeline;
pub use plan::Plan;
pub use policy::{FromCode, FromCodeError, Policy, PolicyNameError, Trifecta};
pub use proposal::{Proposal, ProposalId};
pub use report::Report;
pub use request::{Activations, Request};
pub use run::{LateResult, PendingCall, Run, RunError, Runs};
pub use search::ToolSearch;
pub use set::{Escalation, ToolSet};
pub use spec::{Labels, ToolSpec};
#[cfg(feature = "postgres")]
pub use store::PostgresStore;
#[cfg(feature = "sqlite")]
pub use store::SqliteStore;
pub use store::{MemoryStore, RunId};
pub use tier::{Autonomy, Tier};
pub use toolbox::{DynamicTool, Toolbox};
pub use verify::{CallProblem, ProblemKind};

#[doc = include_str!("../docs/tool.md")]
pub use toolset_macros::tool;
#[doc = include_str!("../docs/toolset.md")]
pub use toolset_macros::toolset;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

/// The traits a caller of a set needs in scope, so that `InboxTools::specs()`,
/// `InboxTools::gate(calls, Autonomy::ReadOnly)` and `InboxTools::apply(..)` resolve:
/// `use toolset::prelude::*;`. (The set's methods are the traits' provided methods, not
/// an inherent block the macro writes for every set.)
pub mod prelude {
    pub use crate::set::ToolName;
    pub use crate::{Pipeline, ToolSet};
}
