//! Google Gemini: tools as function declarations whose parameters are in the OpenAPI 3.0
//! subset Gemini accepts ([`tool`]), calls from `functionCall` parts ([`calls`]), results
//! as one user `Content` of `functionResponse` parts ([`results`]),
//! late results of approved or declined calls as a user message ([`follow_up`]).
//!
//! A tool with a late result (`#[tool(late_result)]`, OpenAI Responses' `"async": true`) is
//! rendered as any tool: the Gemini API has no such key. A call of it withheld for a human is
//! answered "awaiting approval" in its turn, and its result comes later as a
//! [`follow_up`] (continue style) or with the held batch (pause style), as for any tool.

mod calls;
mod results;
mod schema;
pub(crate) mod stream;
mod tools;

pub use calls::calls;
pub use results::{follow_up, results};
pub use tools::{tool, why_parameters_json_schema};
