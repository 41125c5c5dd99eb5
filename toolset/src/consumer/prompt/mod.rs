//! Plain prompt text, for models without native tool calling: each tool as a Markdown
//! section naming its tier, description, arguments and the types they use ([`tool`]).
//! A model reading text has no call or result format of its own, so this consumer renders
//! tools only; a tool with a late result (`#[tool(late_result)]`) is rendered as any tool.

mod tools;

pub use tools::tool;
