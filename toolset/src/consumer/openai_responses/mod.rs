//! OpenAI Responses: tools as `{"type":"function","name",…}` entries ([`tool`]), calls
//! from the `function_call` items of a response's `output` ([`calls`]), results as
//! `function_call_output` input items ([`results`]).

mod calls;
mod results;
pub(crate) mod stream;
mod tools;

/// Why a tool is rendered with `strict: false`; the same answer for both OpenAI APIs.
pub use crate::consumer::openai_strict::why_not_strict;
pub use calls::calls;
pub use results::results;
pub use tools::tool;
