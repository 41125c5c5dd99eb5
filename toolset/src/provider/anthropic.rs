//! Anthropic Messages: `tool_use` content blocks in, one user message of `tool_result`
//! blocks out.

use super::error::{Node, Provider, ProviderError};
use super::{Part, json_text, parts, reject_api_error};
use crate::{ToolCall, ToolResult};
use serde_json::{Map, Value, json};

const PROVIDER: Provider = Provider::Anthropic;

impl ToolCall {
    /// The calls in an Anthropic Messages API response (or any message of the
    /// conversation): its `tool_use` content blocks, in order.
    ///
    /// Each block's `id` and `name` are taken as they are; its `input` object becomes the
    /// arguments, serialized as compact JSON text. Other blocks (text, thinking, server
    /// tool use and its results) are skipped, and a message whose `content` is a plain
    /// string has no calls.
    pub fn from_anthropic(message: &Value) -> Result<Vec<ToolCall>, ProviderError> {
        let root = Node::root(PROVIDER, message);
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
            calls.push(ToolCall::new(id, name, json_text(input.value())));
        }
        Ok(calls)
    }
}

/// The one user message answering the calls: a `tool_result` block per result, in order.
///
/// `{"role": "user", "content": [{"type": "tool_result", "tool_use_id": …, "content":
/// [text and image blocks], "is_error": true}]}`; `is_error` appears only on errors.
/// Images are sent as base64 image blocks. Anthropic requires every `tool_use` of the
/// previous assistant message to be answered in this one message, so pass all the results
/// together (an empty slice gives a message with no content, which the API rejects).
pub fn tool_result_message(results: &[ToolResult]) -> Value {
    let blocks: Vec<Value> = results.iter().map(tool_result_block).collect();
    json!({"role": "user", "content": blocks})
}

fn tool_result_block(result: &ToolResult) -> Value {
    let content: Vec<Value> = parts(&result.output)
        .into_iter()
        .map(|part| match part {
            Part::Text(text) => json!({"type": "text", "text": text}),
            Part::Image { data, mime_type } => json!({
                "type": "image",
                "source": {"type": "base64", "media_type": mime_type, "data": data},
            }),
        })
        .collect();
    let mut block = Map::new();
    block.insert("type".into(), json!("tool_result"));
    block.insert("tool_use_id".into(), json!(result.call_id));
    block.insert("content".into(), Value::Array(content));
    if result.output.is_error {
        block.insert("is_error".into(), Value::Bool(true));
    }
    Value::Object(block)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolOutput;

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
        let calls = ToolCall::from_anthropic(&message).expect("a valid message");
        assert_eq!(
            calls,
            vec![
                ToolCall::new("toolu_a", "search", r#"{"limit":3,"query":"x"}"#),
                ToolCall::new("toolu_b", "now", "{}"),
            ]
        );
    }

    #[test]
    fn string_content_has_no_calls() {
        let message = json!({"role": "user", "content": "hello"});
        let calls = ToolCall::from_anthropic(&message).expect("a valid message");
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
            let error = ToolCall::from_anthropic(&input).expect_err("a malformed message");
            assert_eq!(error.to_string(), expected);
        }
    }

    #[test]
    fn results_form_one_user_message_with_error_flag_only_on_errors() {
        let results = [
            ToolResult {
                call_id: "toolu_a".into(),
                name: "search".into(),
                output: ToolOutput::text("chart:")
                    .with_image("iVBORw0K", "image/png")
                    .with_metadata(json!({"host": "only"})),
            },
            ToolResult {
                call_id: "toolu_b".into(),
                name: "now".into(),
                output: ToolOutput::error("Error: boom"),
            },
            ToolResult {
                call_id: "toolu_c".into(),
                name: "archive".into(),
                output: ToolOutput::empty(),
            },
        ];
        assert_eq!(
            tool_result_message(&results),
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_a", "content": [
                    {"type": "text", "text": "chart:"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                 "data": "iVBORw0K"}},
                ]},
                {"type": "tool_result", "tool_use_id": "toolu_b", "is_error": true,
                 "content": [{"type": "text", "text": "Error: boom"}]},
                {"type": "tool_result", "tool_use_id": "toolu_c",
                 "content": [{"type": "text", "text": "Done."}]},
            ]})
        );
    }
}
