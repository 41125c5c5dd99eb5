//! Reading the calls of an OpenAI Chat Completions assistant message: its `tool_calls`.

use crate::call::ToolCall;
use crate::consumer::wire::{Node, Payload, reject_api_error};
use crate::consumer::{Format, ProviderError};
use serde_json::Value;

// `ToolCall`'s reader for this consumer lives here, beside the parser, so `call.rs` imports
// no consumer.
impl ToolCall {
    /// The calls in an OpenAI Chat Completions assistant message: `message` is the
    /// assistant message object (`{"role": "assistant", "tool_calls": [...]}`) or a whole
    /// `chat.completion` response. See [`openai_chat::calls`](crate::consumer::openai_chat::calls).
    pub fn from_openai_chat(message: &Value) -> Result<Vec<ToolCall>, ProviderError> {
        calls(message)
    }
}

const PAYLOAD: Payload = Payload {
    format: Format::OpenAiChat,
    subject: "OpenAI chat message",
};

/// The calls in an OpenAI Chat Completions assistant message
/// ([`ToolCall::from_openai_chat`] delegates here).
///
/// `message` is the assistant message object,
/// `{"role": "assistant", "content": null, "tool_calls": [{"id", "type": "function",
/// "function": {"name", "arguments"}}]}`; a whole `chat.completion` response is accepted
/// too, and its `choices[0].message` is read. A message without `tool_calls` (or with
/// `null`) has no calls.
///
/// `arguments` is kept verbatim, even when it is not valid JSON: the gate reports that
/// to the model. Errors name the JSON path of the problem, e.g.
/// `tool_calls[1].function.name is missing (expected a string)`; a tool call whose
/// `type` is not `"function"` (e.g. a custom tool) and a message using the deprecated
/// `function_call` field are errors rather than silently dropped calls.
pub fn calls(message: &Value) -> Result<Vec<ToolCall>, ProviderError> {
    let root = Node::root(PAYLOAD, message);
    reject_api_error(&root)?;
    root.object("the assistant message object or a chat.completion response object")?;
    if let Some(choices) = root.field("choices") {
        let choices = choices.items("an array of choices")?;
        let Some(choice) = choices.first() else {
            return Err(root.error(
                "is a chat.completion response with an empty `choices` array (expected at least one choice)",
            ));
        };
        choice.object("a choice object")?;
        let message = choice.required("message", "the assistant message object")?;
        return calls_of_message(&message);
    }
    calls_of_message(&root)
}

fn calls_of_message(message: &Node<'_>) -> Result<Vec<ToolCall>, ProviderError> {
    message.object("the assistant message object")?;
    let Some(tool_calls) = message.field("tool_calls") else {
        if let Some(legacy) = message.field("function_call") {
            return Err(legacy.error(
                "uses the deprecated `functions` API, which has no call ids; send `tools` in the request instead",
            ));
        }
        return Ok(Vec::new());
    };
    tool_calls
        .items("an array of tool calls")?
        .iter()
        .map(tool_call)
        .collect()
}

fn tool_call(call: &Node<'_>) -> Result<ToolCall, ProviderError> {
    call.object("a tool call object")?;
    if let Some(kind_node) = call.field("type") {
        let kind = kind_node.str("a string")?;
        if kind != "function" {
            return Err(kind_node.error(format!(
                "is {kind:?}; only \"function\" tool calls can be run as tools"
            )));
        }
    }
    let id = call.required_str("id")?;
    let function = call.required("function", "an object with `name` and `arguments`")?;
    function.object("an object with `name` and `arguments`")?;
    let name = function.required_str("name")?;
    let arguments = function
        .required("arguments", "a string holding the arguments as JSON text")?
        .str("a string holding the arguments as JSON text")?;
    Ok(ToolCall::new(id, name, arguments))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(tool_calls: Value) -> Value {
        json!({"role": "assistant", "content": null, "tool_calls": tool_calls})
    }

    fn function_call(id: &str, name: &str, arguments: &str) -> Value {
        json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
    }

    #[test]
    fn reads_every_call_of_the_message_in_order() {
        let message = message(json!([
            function_call("call_a", "search", r#"{"query":"x"}"#),
            function_call("call_b", "now", "{}"),
        ]));
        let calls = calls(&message).expect("a valid message");
        assert_eq!(
            calls,
            vec![
                ToolCall::new("call_a", "search", r#"{"query":"x"}"#),
                ToolCall::new("call_b", "now", "{}"),
            ]
        );
    }

    #[test]
    fn reads_the_first_choice_of_a_completion() {
        let completion = json!({
            "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": "tool_calls",
                         "message": message(json!([function_call("c1", "now", "{}")]))}]
        });
        let calls = calls(&completion).expect("a valid completion");
        assert_eq!(calls, vec![ToolCall::new("c1", "now", "{}")]);
    }

    #[test]
    fn message_without_tool_calls_has_no_calls() {
        for message in [
            json!({"role": "assistant", "content": "Hi"}),
            json!({"role": "assistant", "content": "Hi", "tool_calls": null}),
            json!({"role": "assistant", "content": null, "tool_calls": []}),
        ] {
            let calls = calls(&message).expect("a valid message");
            assert!(calls.is_empty(), "{message}");
        }
    }

    #[test]
    fn malformed_arguments_are_kept_verbatim() {
        let message = message(json!([function_call("c1", "search", r#"{"query": "inv"#)]));
        let calls = calls(&message).expect("the envelope is valid");
        assert_eq!(calls[0].arguments, r#"{"query": "inv"#);
    }

    #[test]
    fn envelope_errors_name_the_path() {
        let cases = [
            (
                message(
                    json!([function_call("c1", "a", "{}"), {"id": "c2", "type": "function", "function": {"arguments": "{}"}}]),
                ),
                "OpenAI chat message: tool_calls[1].function.name is missing (expected a string)",
            ),
            (
                message(
                    json!([{"id": "c1", "type": "function", "function": {"name": "a", "arguments": {"q": 1}}}]),
                ),
                "OpenAI chat message: tool_calls[0].function.arguments has the wrong type: expected a string holding the arguments as JSON text, found an object",
            ),
            (
                message(
                    json!([{"type": "function", "function": {"name": "a", "arguments": "{}"}}]),
                ),
                "OpenAI chat message: tool_calls[0].id is missing (expected a string)",
            ),
            (
                message(json!({"id": "c1"})),
                "OpenAI chat message: tool_calls has the wrong type: expected an array of tool calls, found an object",
            ),
            (
                message(
                    json!([{"id": "c1", "type": "custom", "custom": {"name": "a", "input": "x"}}]),
                ),
                "OpenAI chat message: tool_calls[0].type is \"custom\"; only \"function\" tool calls can be run as tools",
            ),
            (
                json!({"choices": []}),
                "OpenAI chat message: the top-level value is a chat.completion response with an empty `choices` array (expected at least one choice)",
            ),
            (
                json!({"choices": [{"message": message(json!([7]))}]}),
                "OpenAI chat message: choices[0].message.tool_calls[0] has the wrong type: expected a tool call object, found a number",
            ),
            (
                json!("hello"),
                "OpenAI chat message: the top-level value has the wrong type: expected the assistant message object or a chat.completion response object, found a string",
            ),
        ];
        for (input, expected) in cases {
            let error = calls(&input).expect_err("a malformed message");
            assert_eq!(error.to_string(), expected);
        }
    }

    #[test]
    fn deprecated_function_call_is_an_error_not_a_lost_call() {
        let message =
            json!({"role": "assistant", "function_call": {"name": "a", "arguments": "{}"}});
        let error = calls(&message).expect_err("legacy shape");
        assert_eq!(error.path(), "function_call");
    }
}
