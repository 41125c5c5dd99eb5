//! OpenAI Responses: tools as `{"type":"function","name",…}` entries ([`tool`]), calls
//! from the `function_call` items of a response's `output` ([`calls`]), results as
//! `function_call_output` input items ([`results`]).

mod calls;
mod results;
mod tools;

pub use calls::calls;
pub use results::results;
pub use tools::tool;
