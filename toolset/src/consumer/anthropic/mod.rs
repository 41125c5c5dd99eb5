//! Anthropic Messages: tools as `{"name","description","input_schema","strict"}` entries
//! ([`tool`]; which are strict: [`why_not_strict`]), calls from `tool_use` content blocks
//! ([`calls`]), results as one user message of `tool_result` blocks ([`results`]),
//! late results of approved or declined calls as a user message ([`follow_up`]).

mod calls;
mod results;
pub(crate) mod stream;
pub(crate) mod strict;
pub(crate) mod tools;

pub use calls::calls;
pub use results::{follow_up, results};
pub use strict::why_not_strict;
pub use tools::tool;
pub(crate) use tools::{DIRECT_ONLY, FROM_CODE};
