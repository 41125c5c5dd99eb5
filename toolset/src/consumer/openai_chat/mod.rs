//! OpenAI Chat Completions: tools as `{"type":"function","function":{…}}` entries
//! ([`tool`]), calls from the assistant message's `tool_calls` ([`calls`]), results as
//! `role: "tool"` messages ([`results`]).

mod calls;
mod results;
mod tools;

pub use calls::calls;
pub use results::results;
pub use tools::tool;
