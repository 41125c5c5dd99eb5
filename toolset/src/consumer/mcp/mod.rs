//! Model Context Protocol: tools as the `Tool` objects `tools/list` lists ([`tool`]),
//! calls from `tools/call` requests ([`calls`], or [`call`] for a request's params),
//! results as `CallToolResult`s ([`results`], or [`result`] for one call).
//!
//! This is MCP's wire format; serving a set over MCP is `toolset::mcp` (cargo feature
//! `mcp`).

mod calls;
mod results;
mod tools;

pub use calls::{call, calls};
pub use results::{result, results};
#[cfg(feature = "mcp")]
pub(crate) use tools::lists_output_schema;
pub use tools::tool;
