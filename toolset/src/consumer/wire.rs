//! Reading a consumer's JSON payload: a [`Node`] is a value with its JSON path, whose
//! accessors fail with a [`ProviderError`] naming that path; plus the checks every
//! parser shares (an API error body instead of a message, arguments as JSON text).

// `Payload` lives with the error that names it; each parser imports it from here.
use super::ProviderError;
pub(crate) use super::error::Payload;
use crate::call::Caller;
use serde_json::{Map, Value};

/// A value inside a payload, with its path for error messages.
pub(crate) struct Node<'a> {
    payload: Payload,
    value: &'a Value,
    path: String,
}

impl<'a> Node<'a> {
    /// The top-level value.
    pub(crate) fn root(payload: Payload, value: &'a Value) -> Self {
        Node {
            payload,
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
        ProviderError::new(self.payload, self.path.clone(), problem)
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
            payload: self.payload,
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
                self.payload,
                self.key_path(key),
                format!("is null (expected {expected})"),
            )),
            Some(value) => Ok(self.child(value, self.key_path(key))),
            None => Err(ProviderError::new(
                self.payload,
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

/// Fails with the API's own error message when `root` is an API error body
/// (`{"error": {"message": …}}` or `{"type": "error", "error": {…}}`) instead of a
/// message, so the caller learns what the API said instead of "field missing".
pub(crate) fn reject_api_error(root: &Node<'_>) -> Result<(), ProviderError> {
    let Some(error) = root.value().get("error").filter(|error| error.is_object()) else {
        return Ok(());
    };
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("no message");
    Err(root.error(format!(
        "is an API error response, not a message (the API said: {message})"
    )))
}

/// Compact JSON text of an arguments object.
pub(crate) fn json_text(value: &Value) -> String {
    value.to_string()
}

/// What a format's `"caller": null` says: whether its API declares `null` as a caller of
/// its own, or `null` names no maker it knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NullCaller {
    /// The API declares `null` as the caller of a call no program made (OpenAI Responses:
    /// its `function_call.caller` is `direct`, `program` or `null`): the model itself.
    Direct,
    /// The API's callers are objects (Anthropic: `direct` and the code execution tools),
    /// so `null` names no maker it knows: code of the kind [`UNNAMED_CALLER`] (DESIGN.md:
    /// a call whose maker the consumer does not recognize counts as code).
    Unrecognized,
}

/// The kind of code a `"caller": null` is read as, where `null` is no caller the format
/// knows ([`NullCaller::Unrecognized`]).
const UNNAMED_CALLER: &str = "unnamed";

/// Who made the call `call` (a `tool_use` block, a `function_call` item): its `caller`
/// member, read the same way by a consumer's parser and its stream. Absent or
/// `{"type": "direct"}` is the model itself; any other `type` is code the model wrote
/// ([`Caller::Code`]: a caller this crate does not know gets the narrower permission),
/// with the string at `id_key` (Anthropic's `tool_id`, OpenAI's `caller_id`) as its id,
/// empty when absent; `null` is what the format says it is (`null_is`). A `caller` that is
/// not an object, or has no string `type`, is an error naming its path.
pub(crate) fn caller(
    call: &Node<'_>,
    id_key: &str,
    null_is: NullCaller,
) -> Result<Caller, ProviderError> {
    let Some(caller) = call.field("caller") else {
        let null = call.value().get("caller").is_some_and(Value::is_null);
        return Ok(match (null, null_is) {
            (true, NullCaller::Unrecognized) => Caller::code(UNNAMED_CALLER, ""),
            _ => Caller::Direct,
        });
    };
    caller.object("an object saying who made the call")?;
    let kind = caller.required_str("type")?;
    if kind == "direct" {
        return Ok(Caller::Direct);
    }
    let id = match caller.field(id_key) {
        Some(id) => id.str("a string naming what ran the code")?,
        None => "",
    };
    Ok(Caller::code(kind, id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consumer::Format;
    use serde_json::json;

    const CHAT: Payload = Payload {
        format: Format::OpenAiChat,
        subject: "OpenAI chat message",
    };

    fn payload(format: Format, subject: &'static str) -> Payload {
        Payload { format, subject }
    }

    #[test]
    fn message_names_payload_path_and_expectation() {
        let value = json!({"tool_calls": [{}, {"function": {}}]});
        let root = Node::root(CHAT, &value);
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
        assert_eq!(error.format(), Format::OpenAiChat);
    }

    #[test]
    fn wrong_type_says_what_was_found() {
        let value = json!({"name": 7});
        let error = Node::root(payload(Format::Mcp, "MCP tools/call params"), &value)
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
        let error = Node::root(payload(Format::Anthropic, "Anthropic message"), &value)
            .required_str("id")
            .expect_err("the payload is malformed");
        assert_eq!(error.problem(), "is null (expected a string)");
    }

    #[test]
    fn top_level_problem_has_a_readable_subject() {
        let value = json!([1]);
        let error = Node::root(payload(Format::Gemini, "Gemini response"), &value)
            .object("an object")
            .expect_err("the payload is malformed");
        assert_eq!(
            error.to_string(),
            "Gemini response: the top-level value has the wrong type: expected an object, found an array"
        );
    }

    #[test]
    fn api_error_bodies_are_reported_with_the_apis_message() {
        let body = json!({"error": {"message": "Rate limit reached", "type": "requests"}});
        let error =
            reject_api_error(&Node::root(CHAT, &body)).expect_err("an error body is not a message");
        assert!(error.to_string().contains("Rate limit reached"), "{error}");
    }
}
