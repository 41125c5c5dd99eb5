//! A tool call as a model emits it: id, name, raw JSON arguments, and who made it (the
//! model directly, or code the model wrote and a provider's code execution runs). A leaf:
//! the readers of each consumer's payload (`ToolCall::from_openai_chat`, ...) are inherent
//! methods written beside each consumer's parser (`consumer/*/calls.rs`), so this file
//! imports no consumer.

use serde::{Deserialize, Serialize};

/// One call the model asked for.
///
/// The arguments are kept as the model's raw JSON text: they are verified by the gate and
/// deserialized once, straight into the tool's typed arguments. A call with malformed
/// arguments is still a `ToolCall`, so the gate can reject it with a message while the
/// other calls of the program are checked too.
///
/// Build one with [`ToolCall::new`] (a direct call) and, for a call made by the model's
/// code, [`with_caller`](Self::with_caller). The `caller` field is new in this release: a
/// struct literal must name it (`caller: Caller::Direct` for what it meant before).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's call id, echoed back with the result.
    pub id: String,
    /// The tool name the model used.
    pub name: String,
    /// The arguments, as JSON text.
    pub arguments: String,
    /// Who made the call: the model itself, or its code (programmatic tool calling). The
    /// gate permits a call from code only to a tool the policy lets code call
    /// ([`Policy::allows_from_code`](crate::Policy::allows_from_code)). Absent from the
    /// serialized form of a direct call, so calls serialized before it existed read as
    /// direct.
    #[serde(default, skip_serializing_if = "Caller::is_direct")]
    pub caller: Caller,
}

/// Who made a tool call: the model directly, or code the model wrote, run by the
/// provider's code execution (Anthropic's `code_execution_*` tools, OpenAI Responses'
/// programmatic tool calling), which calls the host's tools as functions.
///
/// What a consumer reads from the provider's call, kept so the result can name it again:
/// Anthropic's `tool_use.caller` (`{"type": "code_execution_20260120", "tool_id": …}`),
/// OpenAI Responses' `function_call.caller` (`{"type": "program", "caller_id": …}`). A
/// caller the consumer does not know, other than `direct`, is read as code: a call whose
/// maker is unknown gets the narrower permission.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Caller {
    /// The model called the tool itself.
    #[default]
    Direct,
    /// Code the model wrote called the tool.
    Code {
        /// The provider's name for what ran the code, as it wrote it: Anthropic's code
        /// execution tool version (`code_execution_20260120`), OpenAI's `program`.
        kind: String,
        /// The provider's id of what ran the code, echoed back unchanged where the
        /// result names it: Anthropic's code execution `tool_id` (a `server_tool_use`
        /// id), OpenAI's `caller_id` (the `call_id` of the `program` item); empty when the
        /// provider gave none.
        id: String,
    },
}

impl Caller {
    /// A call from code run by `kind` (the provider's name for it), whose id is `id`.
    pub fn code(kind: impl Into<String>, id: impl Into<String>) -> Self {
        Caller::Code {
            kind: kind.into(),
            id: id.into(),
        }
    }

    /// Whether the model called the tool itself.
    pub fn is_direct(&self) -> bool {
        matches!(self, Caller::Direct)
    }

    /// Whether code the model wrote called the tool.
    pub fn is_code(&self) -> bool {
        !self.is_direct()
    }
}

impl ToolCall {
    /// A direct call from its parts.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
            caller: Caller::Direct,
        }
    }

    /// This call, made by `caller`: `ToolCall::new(..).with_caller(Caller::code("program",
    /// "call_p1"))` is a call from OpenAI's programmatic tool calling.
    pub fn with_caller(mut self, caller: Caller) -> Self {
        self.caller = caller;
        self
    }

    /// Whether code the model wrote made this call.
    pub fn is_from_code(&self) -> bool {
        self.caller.is_code()
    }
}
