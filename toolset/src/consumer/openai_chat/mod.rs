//! OpenAI Chat Completions: tools as `{"type":"function","function":{…}}` entries
//! ([`tool`]), calls from the assistant message's `tool_calls` ([`calls`]), results as
//! `role: "tool"` messages ([`results`]),
//! late results of approved or declined calls as a user message ([`follow_up`]).

mod calls;
mod results;
pub(crate) mod stream;
pub(crate) mod tools;

/// Why a tool is rendered with `strict: false`; the same answer for both OpenAI APIs.
pub use crate::consumer::openai_strict::why_not_strict;
pub use calls::calls;
pub use results::{follow_up, results};
pub use tools::tool;
