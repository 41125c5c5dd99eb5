//! OpenAI Chat Completions: tools as `{"type":"function","function":{…}}` entries
//! ([`tool`]), calls from the assistant message's `tool_calls` ([`calls`]), results as
//! `role: "tool"` messages ([`results`]),
//! late results of approved or declined calls as a user message ([`follow_up`]).
//!
//! A tool with a late result (`#[tool(late_result)]`, OpenAI Responses' `"async": true`) is
//! rendered as any tool: Chat Completions has no such key. A call of it withheld for a human is
//! answered "awaiting approval" in its turn, and its result comes later as a
//! [`follow_up`] (continue style) or with the held batch (pause style), as for any tool.

mod calls;
mod results;
pub(crate) mod stream;
pub(crate) mod tools;

/// Why a tool is rendered with `strict: false`; the same answer for both OpenAI APIs.
pub use crate::consumer::openai_strict::why_not_strict;
pub use calls::calls;
pub use results::{follow_up, results};
pub use tools::tool;
