//! Anthropic Messages: tools as `{"name","description","input_schema","strict"}` entries
//! ([`tool`]; which are strict: [`why_not_strict`]), calls from `tool_use` content blocks
//! ([`calls`]), results as one user message of `tool_result` blocks ([`results`]),
//! late results of approved or declined calls as a user message ([`follow_up`]).
//!
//! A tool with a late result (`#[tool(late_result)]`, OpenAI Responses' `"async": true`) is
//! rendered as any tool: the Messages API has no such key. A call of it withheld for a human is
//! answered "awaiting approval" in its turn, and its result comes later as a
//! [`follow_up`] (continue style) or with the held batch (pause style), as for any tool.

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
