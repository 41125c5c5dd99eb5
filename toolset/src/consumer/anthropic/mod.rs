//! Anthropic Messages: tools as `{"name","description","input_schema"}` entries
//! ([`tool`]), calls from `tool_use` content blocks ([`calls`]), results as one user
//! message of `tool_result` blocks ([`results`]).

mod calls;
mod results;
pub(crate) mod stream;
mod tools;

pub use calls::calls;
pub use results::results;
pub use tools::tool;
