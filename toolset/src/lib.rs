//! # toolset
//!
//! Declare each tool an LLM agent may call once, as `#[tool]` on an async handler, and
//! list the tools in `toolset!`. From that one declaration the compiler produces the spec
//! the model reads, the JSON schema of the arguments, a typed call enum, the dispatch
//! table and the risk-tier gate. A tool without a tier, a description or a handler, two
//! tools with one name, or a state type that does not fit is a compile error.
//!
//! ```
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

mod apply;
mod call;
mod context;
mod error;
mod gate;
mod outcome;
mod output;
mod plan;
mod policy;
pub mod render;
pub mod schema;
mod set;
mod spec;
mod tier;

pub use apply::{Entry, Report, apply};
pub use call::ToolCall;
pub use context::{Extensions, Progress, ProgressSink, ToolContext};
pub use error::{ToolError, ToolErrorKind};
pub use gate::{CallProblem, ProblemKind, Rejected, gate};
pub use outcome::{Outcome, ToolResult};
pub use output::{Content, IntoToolOutput, Json, ToolOutput};
pub use plan::{Approval, ApprovalError, Approved, Plan, Proposal, approve};
pub use policy::Policy;
pub use set::{Access, Tool, ToolHandler, ToolName, ToolSet};
pub use spec::ToolSpec;
pub use tier::{Autonomy, Tier};
pub use tokio_util::sync::CancellationToken;

pub use toolset_macros::{tool, toolset};

/// Items the macros' generated code uses. Not public API: no stability promise.
#[doc(hidden)]
pub mod __private {
    pub use crate::render::RenderCache;
    pub use crate::schema::input_schema_for;
    pub use crate::spec::ToolMeta;
    pub use schemars;
    pub use serde;
    pub use serde_json;

    use crate::IntoToolOutput;
    use serde_json::Value;

    /// The output schema of a handler returning `R`.
    pub fn output_schema_of<R: IntoToolOutput>() -> Option<Value> {
        R::output_schema()
    }

    /// Marks the types a model-facing argument may have; its error explains the fix.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a tool argument",
        label = "the model's JSON cannot be turned into this type",
        note = "a tool argument must implement `serde::Deserialize` and `schemars::JsonSchema`: add `#[derive(serde::Deserialize, schemars::JsonSchema)]` to it"
    )]
    pub trait Argument {}
    impl<T: serde::de::DeserializeOwned + schemars::JsonSchema> Argument for T {}

    /// Compiles only when `T` can be a tool argument.
    pub const fn assert_argument<T: Argument>() {}

    /// Compiles only when `R` can be returned from a handler.
    pub const fn assert_output<R: IntoToolOutput>() {}

    /// The error of a writing tool handed shared state; `apply` never does this.
    pub fn exclusive_access_required(tool: &str) -> crate::ToolError {
        crate::ToolError::failed(format!(
            "internal error: the tool `{tool}` writes state but was run with shared access"
        ))
    }

    /// The error of running a propose-only tool; the gate never approves one.
    pub fn propose_only_has_no_handler(tool: &str) -> crate::ToolError {
        crate::ToolError::failed(format!(
            "the tool `{tool}` can only be proposed to a human; it has no handler to run"
        ))
    }

    /// Metadata of a tool whose declaration failed to compile; never used at run time.
    pub const PLACEHOLDER_META: ToolMeta = ToolMeta {
        name: "",
        title: None,
        description: "",
        tier: crate::Tier::Irreversible,
        propose_only: true,
        deferred: false,
        idempotent: false,
        has_preview: false,
        timeout_ms: None,
        input_schema: || Value::Null,
        output_schema: || None,
    };

    /// Whether two names are equal, usable in constant evaluation (duplicate-name checks).
    pub const fn same_name(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Whether `names[index]` also appears before `index`.
    pub const fn repeats_earlier_name(names: &[&str], index: usize) -> bool {
        let mut i = 0;
        while i < index {
            if same_name(names[i], names[index]) {
                return true;
            }
            i += 1;
        }
        false
    }
}
