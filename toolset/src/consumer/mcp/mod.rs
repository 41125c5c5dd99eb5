//! Model Context Protocol: tools as the `Tool` objects `tools/list` lists ([`tool`]),
//! calls from `tools/call` requests ([`calls`], or [`call`] for a request's params, or
//! [`parsed_call`] for params rmcp has already parsed), results as `CallToolResult`s
//! ([`results`], or [`result`] for one call; `call_tool_result` builds rmcp's type, with
//! feature `mcp`). `toolset::mcp`'s server reads and writes through these.
//!
//! This is MCP's wire format; serving a set over MCP is `toolset::mcp` (cargo feature
//! `mcp`).

mod calls;
mod results;
mod tools;

pub use calls::{call, calls, parsed_call};
#[cfg(feature = "mcp")]
pub use results::call_tool_result;
pub use results::{result, results};
#[cfg(feature = "mcp")]
pub(crate) use tools::lists_output_schema;
pub use tools::tool;
