//! Model Context Protocol: `tools/call` request params in, `CallToolResult` out.

use super::error::{Node, Provider, ProviderError};
use super::{Part, json_text, parts};
use crate::{ToolCall, ToolOutput};
use serde_json::{Map, Value, json};
use std::fmt::Display;

const PROVIDER: Provider = Provider::Mcp;

impl ToolCall {
    /// The call in the params of an MCP `tools/call` request: `{"name": …, "arguments":
    /// {…}}`.
    ///
    /// The id is `request_id` as it displays: pass the JSON-RPC request id (a number or a
    /// string; pass a `serde_json::Value` string through `as_str()` first, or it displays
    /// with its quotes). Missing or `null` arguments become `"{}"`; present ones must be an
    /// object, which becomes the arguments as compact JSON text. `_meta` is ignored.
    pub fn from_mcp(request_id: impl Display, params: &Value) -> Result<ToolCall, ProviderError> {
        let root = Node::root(PROVIDER, params);
        root.object("an object with `name` and `arguments`")?;
        let name = root.required_str("name")?;
        let arguments = match root.field("arguments") {
            Some(arguments) => {
                arguments.object("an object holding the tool's arguments")?;
                json_text(arguments.value())
            }
            None => "{}".to_owned(),
        };
        Ok(ToolCall::new(request_id.to_string(), name, arguments))
    }
}

/// The MCP `CallToolResult` of an output:
/// `{"content": [{"type": "text", "text"} | {"type": "image", "data", "mimeType"}],
/// "structuredContent": {…}, "isError": bool}`.
///
/// `structuredContent` appears only when the structured value is a JSON object (MCP
/// requires an object); an output without content carries its structured value's JSON as
/// text, as MCP recommends for clients that read only text.
pub fn call_tool_result(output: &ToolOutput) -> Value {
    let content: Vec<Value> = parts(output)
        .into_iter()
        .map(|part| match part {
            Part::Text(text) => json!({"type": "text", "text": text}),
            Part::Image { data, mime_type } => {
                json!({"type": "image", "data": data, "mimeType": mime_type})
            }
        })
        .collect();
    let mut result = Map::new();
    result.insert("content".into(), Value::Array(content));
    if let Some(Value::Object(structured)) = &output.structured {
        result.insert(
            "structuredContent".into(),
            Value::Object(structured.clone()),
        );
    }
    result.insert("isError".into(), Value::Bool(output.is_error));
    Value::Object(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_name_and_arguments_with_the_request_id() {
        let params = json!({"name": "search", "arguments": {"limit": 3, "query": "x"}});
        let call = ToolCall::from_mcp(7, &params).expect("valid params");
        assert_eq!(
            call,
            ToolCall::new("7", "search", r#"{"limit":3,"query":"x"}"#)
        );
    }

    #[test]
    fn missing_or_null_arguments_are_an_empty_object() {
        for params in [
            json!({"name": "now"}),
            json!({"name": "now", "arguments": null}),
        ] {
            let call = ToolCall::from_mcp("req-1", &params).expect("valid params");
            assert_eq!(call, ToolCall::new("req-1", "now", "{}"));
        }
    }

    #[test]
    fn envelope_errors_name_the_path() {
        let cases = [
            (
                json!({"arguments": {}}),
                "MCP tools/call params: name is missing (expected a string)",
            ),
            (
                json!({"name": 3}),
                "MCP tools/call params: name has the wrong type: expected a string, found a number",
            ),
            (
                json!({"name": "a", "arguments": "q=1"}),
                "MCP tools/call params: arguments has the wrong type: expected an object holding the tool's arguments, found a string",
            ),
            (
                json!(null),
                "MCP tools/call params: the top-level value has the wrong type: expected an object with `name` and `arguments`, found null",
            ),
        ];
        for (input, expected) in cases {
            let error = ToolCall::from_mcp(1, &input).expect_err("malformed params");
            assert_eq!(error.to_string(), expected);
        }
    }

    #[test]
    fn result_carries_content_structured_object_and_error_flag() {
        let output = ToolOutput::structured(json!({"hits": 2}))
            .with_image("iVBOR", "image/png")
            .with_metadata(json!({"host": "only"}));
        assert_eq!(
            call_tool_result(&output),
            json!({
                "content": [
                    {"type": "text", "text": r#"{"hits":2}"#},
                    {"type": "image", "data": "iVBOR", "mimeType": "image/png"},
                ],
                "structuredContent": {"hits": 2},
                "isError": false,
            })
        );
    }

    #[test]
    fn non_object_structured_values_are_sent_as_text_only() {
        let result = call_tool_result(&ToolOutput::structured(json!([1, 2])));
        assert_eq!(
            result,
            json!({"content": [{"type": "text", "text": "[1,2]"}], "isError": false})
        );
    }

    #[test]
    fn error_and_empty_outputs() {
        assert_eq!(
            call_tool_result(&ToolOutput::error("Error: boom")),
            json!({"content": [{"type": "text", "text": "Error: boom"}], "isError": true})
        );
        assert_eq!(
            call_tool_result(&ToolOutput::empty()),
            json!({"content": [{"type": "text", "text": "Done."}], "isError": false})
        );
    }
}
