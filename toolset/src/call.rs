//! A tool call as a model emits it: id, name and raw JSON arguments. A leaf: the readers
//! of each consumer's payload (`ToolCall::from_openai_chat`, ...) are inherent methods
//! written beside each consumer's parser (`consumer/*/calls.rs`), so this file imports
//! no consumer.

use serde::{Deserialize, Serialize};

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
}
