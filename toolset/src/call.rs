//! A tool call as a model emits it: id, name and raw JSON arguments, and the one place
//! that reads calls out of each consumer's payload (delegating to
//! [`crate::consumer`]).

use crate::ProviderError;
use crate::consumer::{anthropic, gemini, mcp, openai_chat, openai_responses};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt::Display;

/// One call the model asked for.
///
/// The arguments are kept as the model's raw JSON text: they are verified by the gate and
/// deserialized once, straight into the tool's typed arguments. A call with malformed
/// arguments is still a `ToolCall`, so the gate can reject it with a message while the
/// other calls of the program are checked too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's call id, echoed back with the result.
    pub id: String,
    /// The tool name the model used.
    pub name: String,
    /// The arguments, as JSON text.
    pub arguments: String,
}

impl ToolCall {
    /// A call from its parts.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    /// The calls in an OpenAI Chat Completions assistant message: `message` is the
    /// assistant message object (`{"role": "assistant", "tool_calls": [...]}`) or a whole
    /// `chat.completion` response. See [`openai_chat::calls`].
    pub fn from_openai_chat(message: &Value) -> Result<Vec<ToolCall>, ProviderError> {
        openai_chat::calls(message)
    }

    /// The calls in an OpenAI Responses API response (or its bare `output` array): its
    /// `function_call` items. See [`openai_responses::calls`].
    pub fn from_openai_responses(response: &Value) -> Result<Vec<ToolCall>, ProviderError> {
        openai_responses::calls(response)
    }

    /// The calls in an Anthropic Messages API message: its `tool_use` content blocks. See
    /// [`anthropic::calls`].
    pub fn from_anthropic(message: &Value) -> Result<Vec<ToolCall>, ProviderError> {
        anthropic::calls(message)
    }

    /// The calls in a Gemini `generateContent` response (or a bare `Content`): its
    /// `functionCall` parts, with stable ids synthesized where Gemini omits them. See
    /// [`gemini::calls`].
    pub fn from_gemini(response: &Value) -> Result<Vec<ToolCall>, ProviderError> {
        gemini::calls(response)
    }

    /// The call in the params of an MCP `tools/call` request, its id the JSON-RPC
    /// `request_id` as it displays. See [`mcp::call`]; [`mcp::calls`] reads a whole
    /// request, id included.
    pub fn from_mcp(request_id: impl Display, params: &Value) -> Result<ToolCall, ProviderError> {
        mcp::call(request_id, params)
    }
}
