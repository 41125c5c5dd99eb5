//! OpenAI Chat Completions: tools as `{"type":"function","function":{…}}` entries
//! ([`tool`]), calls from the assistant message's `tool_calls` ([`calls`]), results as
//! `role: "tool"` messages ([`results`]).

mod calls;
mod results;
pub(crate) mod stream;
mod tools;

/// Why a tool is rendered with `strict: false`; the same answer for both OpenAI APIs.
pub use crate::consumer::openai_strict::why_not_strict;
pub use calls::calls;
pub use results::results;
pub use tools::tool;
