//! Writing MCP results: the `CallToolResult` answering one `tools/call` request, and
//! those of one batch.

use crate::consumer::result_content::{Part, parts};
use crate::{ToolOutput, ToolResult};
use serde_json::{Map, Value, json};

/// The MCP `CallToolResult` of one call's output, the `result` of the response to its
/// `tools/call` request:
/// `{"content": [{"type": "text", "text"} | {"type": "image", "data", "mimeType"}],
/// "structuredContent": {…}, "isError": bool}`.
///
/// `structuredContent` appears only when the structured value is a JSON object (MCP
/// requires an object); an output without content carries its structured value's JSON as
/// text, as MCP recommends for clients that read only text.
pub fn result(output: &ToolOutput) -> Value {
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

/// The results of one batch: a JSON array of `CallToolResult`s ([`result`]), one per
/// result, in order. MCP answers each `tools/call` request on its own, so each element is
/// the `result` of the response to the request whose id is that result's `call_id`.
pub fn results(results: &[ToolResult]) -> Value {
    results
        .iter()
        .map(|result| self::result(&result.output))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_each_calls_result_in_order() {
        let batch = [
            ToolResult {
                call_id: "1".into(),
                name: "now".into(),
                output: ToolOutput::text("noon"),
            },
            ToolResult {
                call_id: "2".into(),
                name: "archive".into(),
                output: ToolOutput::error("Error: boom"),
            },
        ];
        assert_eq!(
            results(&batch),
            json!([result(&batch[0].output), result(&batch[1].output)])
        );
    }

    #[test]
    fn result_carries_content_structured_object_and_error_flag() {
        let output = ToolOutput::structured(json!({"hits": 2}))
            .with_image("iVBOR", "image/png")
            .with_metadata(json!({"host": "only"}));
        assert_eq!(
            result(&output),
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
        let result = result(&ToolOutput::structured(json!([1, 2])));
        assert_eq!(
            result,
            json!({"content": [{"type": "text", "text": "[1,2]"}], "isError": false})
        );
    }

    #[test]
    fn error_and_empty_outputs() {
        assert_eq!(
            result(&ToolOutput::error("Error: boom")),
            json!({"content": [{"type": "text", "text": "Error: boom"}], "isError": true})
        );
        assert_eq!(
            result(&ToolOutput::empty()),
            json!({"content": [{"type": "text", "text": "Done."}], "isError": false})
        );
    }
}
