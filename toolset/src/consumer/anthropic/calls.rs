//! Reading the calls of an Anthropic Messages API message: its `tool_use` content blocks.

use crate::call::ToolCall;
use crate::consumer::wire::{Node, NullCaller, Payload, caller, json_text, reject_api_error};
use crate::consumer::{Format, ProviderError};
use serde_json::Value;

// `ToolCall`'s reader for this consumer lives here, beside the parser, so `call.rs` imports
// no consumer.
impl ToolCall {
    /// The calls in an Anthropic Messages API message: its `tool_use` content blocks. See
    /// [`anthropic::calls`](crate::consumer::anthropic::calls).
    pub fn from_anthropic(message: &Value) -> Result<Vec<ToolCall>, ProviderError> {
        calls(message)
    }
}

const PAYLOAD: Payload = Payload {
    format: Format::Anthropic,
    subject: "Anthropic message",
};

/// The calls in an Anthropic Messages API response (or any message of the
/// conversation): its `tool_use` content blocks, in order
/// ([`ToolCall::from_anthropic`] delegates here).
///
/// Each block's `id` and `name` are taken as they are; its `input` object becomes the
/// arguments, serialized as compact JSON text. Its `caller` says who made the call:
/// absent or `{"type": "direct"}`, the model; a code execution tool
/// (`{"type": "code_execution_20260120", "tool_id": "srvtoolu_…"}`), code the model wrote
/// ([`Caller::Code`](crate::call::Caller::Code), its `type` and `tool_id` kept), which the gate
/// permits only where the request lets code call the tool; `null`, no caller Anthropic
/// writes, is a maker not recognized, so code too (kind `unnamed`). Other blocks (text, thinking, the hosted
/// tool search's `server_tool_use` and `tool_search_tool_result`, other server tools and
/// their results) are skipped, and a message whose `content` is a plain string has no
/// calls. What a hosted search loaded is read by
/// [`Activations::record_hosted`](crate::request::Activations::record_hosted).
pub fn calls(message: &Value) -> Result<Vec<ToolCall>, ProviderError> {
    let root = Node::root(PAYLOAD, message);
    reject_api_error(&root)?;
    root.object("a message object with a `content` array")?;
    let content = root.required("content", "the message's array of content blocks")?;
    if content.value().is_string() {
        return Ok(Vec::new());
    }
    let mut calls = Vec::new();
    for block in content.items("the message's array of content blocks")? {
        block.object("a content block object")?;
        if block.required_str("type")? != "tool_use" {
            continue;
        }
        let id = block.required_str("id")?;
        let name = block.required_str("name")?;
        let input = block.required("input", "an object holding the tool's arguments")?;
        input.object("an object holding the tool's arguments")?;
        let caller = caller(&block, "tool_id", NullCaller::Unrecognized)?;
        calls.push(ToolCall::new(id, name, json_text(input.value())).with_caller(caller));
    }
    Ok(calls)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::Caller;
    use serde_json::json;

    #[test]
    fn hosted_tool_search_blocks_are_skipped() {
        let message = json!({"role": "assistant", "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25",
             "input": {"query": "weather"}},
            {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
             "content": {"type": "tool_search_tool_search_result",
                         "tool_references": [{"type": "tool_reference", "tool_name": "get_weather"}]}},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}},
        ]});
        let calls = calls(&message).expect("a valid message");
        assert_eq!(calls, vec![ToolCall::new("toolu_1", "get_weather", "{}")]);
    }

    #[test]
    fn reads_tool_use_blocks_in_order() {
        let message = json!({
            "id": "msg_1", "type": "message", "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "toolu_a", "name": "search",
                 "input": {"limit": 3, "query": "x"}},
                {"type": "tool_use", "id": "toolu_b", "name": "now", "input": {}},
            ],
            "stop_reason": "tool_use"
        });
        let calls = calls(&message).expect("a valid message");
        assert_eq!(
            calls,
            vec![
                ToolCall::new("toolu_a", "search", r#"{"limit":3,"query":"x"}"#),
                ToolCall::new("toolu_b", "now", "{}"),
            ]
        );
    }

    #[test]
    fn the_caller_says_who_made_the_call_and_an_unknown_one_is_code() {
        let block = |caller: Value| {
            json!({"content": [{"type": "tool_use", "id": "toolu_1", "name": "now",
                                "input": {}, "caller": caller}]})
        };
        let read = |caller: Value| calls(&block(caller)).map(|mut calls| calls.remove(0).caller);
        // `null` names no maker: not recognized, so code (DESIGN.md).
        assert_eq!(read(Value::Null), Ok(Caller::code("unnamed", "")));
        assert_eq!(read(json!({"type": "direct"})), Ok(Caller::Direct));
        assert_eq!(
            read(json!({"type": "code_execution_20250825", "tool_id": "srvtoolu_1"})),
            Ok(Caller::code("code_execution_20250825", "srvtoolu_1"))
        );
        assert_eq!(
            read(json!({"type": "some_future_runner"})),
            Ok(Caller::code("some_future_runner", ""))
        );
        let error = read(json!("code")).expect_err("a caller is an object");
        assert_eq!(
            error.to_string(),
            "Anthropic message: content[0].caller has the wrong type: expected an object saying who made the call, found a string"
        );
        let error = read(json!({"type": "code_execution_20260120", "tool_id": 7}))
            .expect_err("a tool id is a string");
        assert!(
            error.to_string().contains("content[0].caller.tool_id"),
            "{error}"
        );
    }

    #[test]
    fn string_content_has_no_calls() {
        let message = json!({"role": "user", "content": "hello"});
        let calls = calls(&message).expect("a valid message");
        assert!(calls.is_empty());
    }

    #[test]
    fn envelope_errors_name_the_path() {
        let cases = [
            (
                json!({"content": [{"type": "text", "text": "x"}, {"type": "tool_use", "id": "t", "name": "a", "input": "q=1"}]}),
                "Anthropic message: content[1].input has the wrong type: expected an object holding the tool's arguments, found a string",
            ),
            (
                json!({"content": [{"type": "tool_use", "name": "a", "input": {}}]}),
                "Anthropic message: content[0].id is missing (expected a string)",
            ),
            (
                json!({"content": [{"type": "tool_use", "id": "t", "name": "a"}]}),
                "Anthropic message: content[0].input is missing (expected an object holding the tool's arguments)",
            ),
            (
                json!({"role": "assistant"}),
                "Anthropic message: content is missing (expected the message's array of content blocks)",
            ),
            (
                json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
                "Anthropic message: the top-level value is an API error response, not a message (the API said: Overloaded)",
            ),
        ];
        for (input, expected) in cases {
            let error = calls(&input).expect_err("a malformed message");
            assert_eq!(error.to_string(), expected);
        }
    }
}
