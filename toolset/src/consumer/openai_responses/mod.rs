//! OpenAI Responses: tools as `{"type":"function","name",…}` entries ([`tool`]), calls
//! from the `function_call` items of a response's `output` ([`calls`]), results as
//! `function_call_output` input items ([`results`]),
//! late results of approved or declined calls as a user message ([`follow_up`]). A
//! toolbox namespace (an MCP server's tools) is one `namespace` entry holding its
//! functions, and a `function_call` naming a namespace is read as the local name
//! `label_tool` (`namespace.rs`).

mod calls;
pub(crate) mod namespace;
mod results;
pub(crate) mod stream;
pub(crate) mod tools;

/// Why a tool is rendered with `strict: false`; the same answer for both OpenAI APIs.
pub use crate::consumer::openai_strict::why_not_strict;
pub use calls::calls;
pub use results::{follow_up, results};
pub use tools::tool;
pub(crate) use tools::{DIRECT_ONLY, FROM_CODE};
