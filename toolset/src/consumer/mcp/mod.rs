//! Model Context Protocol: tools as the `Tool` objects `tools/list` lists ([`tool`]),
//! calls from `tools/call` requests ([`calls`], or [`call`] for a request's params, or
//! [`parsed_call`] for params rmcp has already parsed), results as `CallToolResult`s
//! ([`results`], or [`result`] for one call; `call_tool_result` builds rmcp's type, with
//! feature `mcp`). `toolset::mcp`'s server reads and writes through these.
//!
//! This is MCP's wire format; serving a set over MCP is `toolset::mcp` (cargo feature
//! `mcp`).
//!
//! A tool with a late result (`#[tool(late_result)]`, OpenAI Responses' `"async": true`) is
//! rendered as any tool: MCP's `Tool` has no such key (a long call is a task instead,
//! `McpServer::run_as_task`). A call of it withheld for a human is asked by elicitation or
//! `input_required`, or answered as withheld, as for any tool.

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
