//! OpenAI Responses: tools as `{"type":"function","name",…}` entries ([`tool`]), calls
//! from the `function_call` items of a response's `output` ([`calls`]), results as
//! `function_call_output` input items ([`results`]),
//! late results of approved or declined calls as a user message ([`follow_up`]). A
//! toolbox namespace (an MCP server's tools) is one `namespace` entry holding its
//! functions, and a `function_call` naming a namespace is read as the local name
//! `label_tool` (`namespace.rs`).
//!
//! # Async tools: a result that comes later
//!
//! A tool declared `#[tool(late_result)]` (or
//! [`DynamicTool::late_result`](crate::DynamicTool::late_result)) is rendered with
//! `"async": true`. What that means on the wire, read from the pinned openai Python SDK
//! (`openai==3.57.0`, `tests/validators/requirements.txt`) and OpenAI's guide "Async tool
//! calling":
//!
//! - The key is `async`, a boolean on the function tool itself, beside `name` and
//!   `strict` (`openai/types/responses/function_tool_param.py`, `FunctionToolParam`: a
//!   reserved-keyword `TypedDict` field `"async": bool`; the same on a namespace's
//!   function, `namespace_tool_param.py`, `ToolFunction`). Not inside `parameters`.
//! - The model's call of such a tool is a `function_call` output item carrying
//!   `"async": true` (`response_function_tool_call.py`: "Whether the function tool call
//!   runs asynchronously"); sent back as input it keeps the key
//!   (`response_function_tool_call_param.py`).
//! - The model does not wait for the output: a later request may carry that
//!   `function_call` with no `function_call_output` for it (the tool's doc in
//!   `custom_tool.py`: "Whether the tool response can be returned asynchronously versus
//!   immediately returned on next response creation"; the guide: "include its output in a
//!   later Responses request").
//! - The output, once there, is an ordinary `function_call_output` input item with the
//!   original `call_id` (`response_input_item_param.py`, `FunctionCallOutput`:
//!   `{"type": "function_call_output", "call_id", "output"}`), sent once.
//!
//! So the [`Driver`](crate::Driver) answers a withheld call of such a tool on this format
//! with nothing at first (no "awaiting approval" placeholder), and sends its one
//! `function_call_output` ([`results`]) at the first request after the human decided,
//! marked delivered in the journal as every late result is. A call that ran in its turn
//! is answered in that turn, as any call. Every other format has no such key: the tool is
//! rendered as usual, and a withheld call is answered "awaiting approval" with its result
//! sent later as a follow-up ([`follow_up`] and its siblings).

mod calls;
pub(crate) mod namespace;
mod results;
pub(crate) mod stream;
pub(crate) mod tools;

/// Why a tool is rendered with `strict: false`; the same answer for both OpenAI APIs.
pub use crate::consumer::openai_strict::why_not_strict;
pub use calls::calls;
pub use results::{follow_up, results};
pub use tools::tool;
pub(crate) use tools::{DIRECT_ONLY, FROM_CODE};
