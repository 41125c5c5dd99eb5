//! The error of reading a provider's payload, naming the provider and the JSON path of the
//! problem.

use serde_json::{Map, Value};
use std::fmt;

/// The wire format a payload was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Provider {
    /// OpenAI Chat Completions (`tool_calls` on the assistant message).
    OpenAiChat,
    /// OpenAI Responses (`function_call` items in `output`).
    OpenAiResponses,
    /// Anthropic Messages (`tool_use` content blocks).
    Anthropic,
    /// Google Gemini `generateContent` (`functionCall` parts).
    Gemini,
    /// Model Context Protocol (`tools/call` request params).
    Mcp,
}

impl Provider {
    /// What the payload of this provider is called in error messages, e.g.
    /// `"OpenAI chat message"`.
    pub fn subject(self) -> &'static str {
        match self {
            Provider::OpenAiChat => "OpenAI chat message",
            Provider::OpenAiResponses => "OpenAI Responses output",
            Provider::Anthropic => "Anthropic message",
            Provider::Gemini => "Gemini response",
            Provider::Mcp => "MCP tools/call params",
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Provider::OpenAiChat => "OpenAI Chat Completions",
            Provider::OpenAiResponses => "OpenAI Responses",
            Provider::Anthropic => "Anthropic Messages",
            Provider::Gemini => "Google Gemini",
            Provider::Mcp => "MCP",
        })
    }
}

/// A provider payload that does not have the documented shape.
///
/// The message names the provider, the JSON path of the offending value (relative to the
/// value that was passed in) and what was expected there, e.g.
/// `OpenAI chat message: tool_calls[1].function.name is missing (expected a string)`.
///
/// Malformed *arguments* JSON is not a `ProviderError`: the arguments text is kept
/// verbatim in the [`ToolCall`](crate::ToolCall) so the gate can answer the model about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderError {
    provider: Provider,
    path: String,
    problem: String,
}

impl ProviderError {
    pub(crate) fn new(
        provider: Provider,
        path: impl Into<String>,
        problem: impl Into<String>,
    ) -> Self {
        ProviderError {
            provider,
            path: path.into(),
            problem: problem.into(),
        }
    }

    /// The wire format the payload was read as.
    pub fn provider(&self) -> Provider {
        self.provider
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
        write!(f, "{}: {} {}", self.provider.subject(), path, self.problem)
    }
}

impl std::error::Error for ProviderError {}

/// A value inside a provider payload, with its path for error messages.
pub(crate) struct Node<'a> {
    provider: Provider,
    value: &'a Value,
    path: String,
}

impl<'a> Node<'a> {
    /// The top-level value.
    pub(crate) fn root(provider: Provider, value: &'a Value) -> Self {
        Node {
            provider,
            value,
            path: String::new(),
        }
    }

    /// The JSON value.
    pub(crate) fn value(&self) -> &'a Value {
        self.value
    }

    /// An error about this value.
    pub(crate) fn error(&self, problem: impl Into<String>) -> ProviderError {
        ProviderError::new(self.provider, self.path.clone(), problem)
    }

    /// An error about this value having the wrong type.
    pub(crate) fn wrong_type(&self, expected: &str) -> ProviderError {
        self.error(format!(
            "has the wrong type: expected {expected}, found {}",
            kind(self.value)
        ))
    }

    fn child(&self, value: &'a Value, path: String) -> Node<'a> {
        Node {
            provider: self.provider,
            value,
            path,
        }
    }

    fn key_path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// The member `key` of this object; `None` when it is absent or `null` (or when this
    /// is not an object: check with [`Node::object`] first).
    pub(crate) fn field(&self, key: &str) -> Option<Node<'a>> {
        match self.value.get(key) {
            None | Some(Value::Null) => None,
            Some(value) => Some(self.child(value, self.key_path(key))),
        }
    }

    /// The member `key` of this object, which must be present and not `null`.
    pub(crate) fn required(&self, key: &str, expected: &str) -> Result<Node<'a>, ProviderError> {
        match self.value.get(key) {
            Some(Value::Null) => Err(ProviderError::new(
                self.provider,
                self.key_path(key),
                format!("is null (expected {expected})"),
            )),
            Some(value) => Ok(self.child(value, self.key_path(key))),
            None => Err(ProviderError::new(
                self.provider,
                self.key_path(key),
                format!("is missing (expected {expected})"),
            )),
        }
    }

    /// This value as an object.
    pub(crate) fn object(&self, expected: &str) -> Result<&'a Map<String, Value>, ProviderError> {
        self.value
            .as_object()
            .ok_or_else(|| self.wrong_type(expected))
    }

    /// This value as a string.
    pub(crate) fn str(&self, expected: &str) -> Result<&'a str, ProviderError> {
        self.value.as_str().ok_or_else(|| self.wrong_type(expected))
    }

    /// The elements of this array.
    pub(crate) fn items(&self, expected: &str) -> Result<Vec<Node<'a>>, ProviderError> {
        let items = self
            .value
            .as_array()
            .ok_or_else(|| self.wrong_type(expected))?;
        Ok(items
            .iter()
            .enumerate()
            .map(|(index, value)| self.child(value, format!("{}[{index}]", self.path)))
            .collect())
    }

    /// The required string member `key`.
    pub(crate) fn required_str(&self, key: &str) -> Result<&'a str, ProviderError> {
        self.required(key, "a string")?.str("a string")
    }
}

/// The JSON type of a value, as an error message says it.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn message_names_provider_path_and_expectation() {
        let value = json!({"tool_calls": [{}, {"function": {}}]});
        let root = Node::root(Provider::OpenAiChat, &value);
        let calls = root
            .required("tool_calls", "an array")
            .expect("the payload is well-formed");
        let second = calls
            .items("an array")
            .expect("the payload is well-formed")
            .remove(1);
        let function = second
            .required("function", "an object")
            .expect("the payload is well-formed");
        let error = function
            .required_str("name")
            .expect_err("the payload is malformed");
        assert_eq!(
            error.to_string(),
            "OpenAI chat message: tool_calls[1].function.name is missing (expected a string)"
        );
        assert_eq!(error.path(), "tool_calls[1].function.name");
        assert_eq!(error.provider(), Provider::OpenAiChat);
    }

    #[test]
    fn wrong_type_says_what_was_found() {
        let value = json!({"name": 7});
        let error = Node::root(Provider::Mcp, &value)
            .required_str("name")
            .expect_err("the payload is malformed");
        assert_eq!(
            error.to_string(),
            "MCP tools/call params: name has the wrong type: expected a string, found a number"
        );
    }

    #[test]
    fn null_member_is_reported_as_null_not_missing() {
        let value = json!({"id": null});
        let error = Node::root(Provider::Anthropic, &value)
            .required_str("id")
            .expect_err("the payload is malformed");
        assert_eq!(error.problem(), "is null (expected a string)");
    }

    #[test]
    fn top_level_problem_has_a_readable_subject() {
        let value = json!([1]);
        let error = Node::root(Provider::Gemini, &value)
            .object("an object")
            .expect_err("the payload is malformed");
        assert_eq!(
            error.to_string(),
            "Gemini response: the top-level value has the wrong type: expected an object, found an array"
        );
    }
}
