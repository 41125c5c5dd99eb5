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
//! | `constraints` | no | the gate also checks schema constraints serde cannot (ranges, lengths, patterns declared with `#[schemars(...)]`, a set's `uniqueItems`), with the `jsonschema` crate, for the tools that declare any; runtime tools (a toolbox, `DynamicTool`, rig's tools) need it. Off, a tool whose schema has a constraint is refused, never run unchecked: `#[tool]` makes one declared on an argument a compile error, and [`check_declarations`] names the rest (a constraint from the argument's type). Off by default because the validator's ~40 packages double a clean build of toolset and bring a second `syn` |
//! | `mcp` | no | `toolset::mcp`: serve any set (and a toolbox) over MCP, stdio or streamable HTTP, with rmcp |
//! | `mcp-client` | no | `toolbox::McpTools`: another MCP server's tools in a toolbox, over a child's stdio or streamable HTTP (implies `mcp` and `constraints`) |
//! | `console` | no | `toolset::console`: the approval console, one web page over the driver's store, served by axum |
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
pub mod call;
mod conversation;
pub mod driver;
mod gate;
mod job;
mod outcome;
pub mod plan;
mod proposal;
pub mod request;
pub mod run;
pub mod testing;
mod verify;

// What the stages share: the set's traits and specs, the policy, the pieces of a result,
// and every sentence the model reads; and what a user calls beside them (running blocking
// code, checking a set's declarations).
mod action_key;
mod ask;
mod blocking;
mod check;
pub mod context;
pub mod declaration;
mod describe;
mod digest;
pub mod error;
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

// After the whole pipeline: the methods a caller calls on a set (gate, apply, policy).
mod set_ext;

pub mod consumer;
// Host and Origin checks, shared by the MCP server and the console.
#[cfg(any(feature = "mcp", feature = "console"))]
mod http_checks;
#[cfg(feature = "mcp")]
pub mod mcp;
// After the driver: the human's side of it, as a web page.
#[cfg(feature = "console")]
pub mod console;
pub mod report;
pub mod schema;
pub mod search;
pub mod store;

pub use approval::Approvals;
pub use blocking::blocking;
pub use call::ToolCall;
pub use check::check_declarations;
pub use context::ToolContext;
pub use digest::SealKey;
pub use driver::Driver;
pub use error::ToolError;
pub use output::{Json, ToolOutput};
pub use policy::Policy;
pub use proposal::Proposal;
pub use set::Escalation;
pub use spec::{Labels, ToolSpec};
pub use store::MemoryStore;
#[cfg(feature = "postgres")]
pub use store::PostgresStore;
#[cfg(feature = "sqlite")]
pub use store::SqliteStore;
pub use tier::{Autonomy, Tier};
pub use toolbox::{DynamicTool, Toolbox};

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
    pub use crate::set::{ToolName, ToolSet};
    pub use crate::set_ext::ToolSetExt;
}
