//! Google Gemini: tools as function declarations whose parameters are in the OpenAPI 3.0
//! subset Gemini accepts ([`tool`]), calls from `functionCall` parts ([`calls`]), results
//! as one user `Content` of `functionResponse` parts ([`results`]),
//! late results of approved or declined calls as a user message ([`follow_up`]).

mod calls;
mod results;
mod schema;
pub(crate) mod stream;
mod tools;

pub use calls::calls;
pub use results::{follow_up, results};
pub use tools::{tool, why_parameters_json_schema};
