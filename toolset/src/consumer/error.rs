//! The error of reading a consumer's payload: which consumer, the JSON path of the
//! problem, and what was expected there.

use super::Format;
use std::fmt;

/// What a parser reads: the consumer, and what its payload is called in error messages
/// (`"OpenAI chat message"`). Each consumer's `calls.rs` declares its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Payload {
    /// The consumer.
    pub(crate) format: Format,
    /// The payload's name, the subject of every error message about it.
    pub(crate) subject: &'static str,
}

/// A consumer's payload that does not have the documented shape.
///
/// The message names the payload, the JSON path of the offending value (relative to the
/// value that was passed in) and what was expected there, e.g.
/// `OpenAI chat message: tool_calls[1].function.name is missing (expected a string)`.
///
/// Malformed *arguments* JSON is not a `ProviderError`: the arguments text is kept
/// verbatim in the [`ToolCall`](crate::ToolCall) so the gate can answer the model about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderError {
    payload: Payload,
    path: String,
    problem: String,
}

impl ProviderError {
    pub(crate) fn new(
        payload: Payload,
        path: impl Into<String>,
        problem: impl Into<String>,
    ) -> Self {
        ProviderError {
            payload,
            path: path.into(),
            problem: problem.into(),
        }
    }

    /// The consumer whose payload was being read.
    pub fn format(&self) -> Format {
        self.payload.format
    }

    /// The JSON path of the problem, relative to the value passed in (e.g.
    /// `tool_calls[1].function.name`); empty when the top-level value itself is wrong.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What is wrong at [`path`](Self::path), e.g. `is missing (expected a string)`.
    pub fn problem(&self) -> &str {
        &self.problem
    }
}

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "the top-level value"
        } else {
            self.path.as_str()
        };
        write!(f, "{}: {} {}", self.payload.subject, path, self.problem)
    }
}

impl std::error::Error for ProviderError {}
