//! Writing MCP results: the `CallToolResult` answering one `tools/call` request (as JSON,
//! or as rmcp's type for the server), and those of one batch. One writer decides what goes
//! on the wire ([`written`]); the JSON and the rmcp forms only build it.

use crate::consumer::result_content::{self, Images};
use crate::output::ToolOutput;
use crate::output::ToolReply;
use crate::output::{Content, EmbeddedResource, ResourceContents, ResourceLink};
use serde_json::{Map, Value, json};

/// The MCP `CallToolResult` of one call's output, the `result` of the response to its
/// `tools/call` request:
/// `{"content": [{"type": "text", "text"} | {"type": "image" | "audio", "data",
/// "mimeType"} | {"type": "resource", "resource": {"uri", "mimeType", "text" | "blob"}} |
/// {"type": "resource_link", "uri", "name", …}], "structuredContent": {…},
/// "isError": bool}`.
///
/// `structuredContent` appears only when the structured value is a JSON object (MCP
/// requires an object); an output without content carries its structured value's JSON as
/// text, as MCP recommends for clients that read only text. Host-only
/// [`ToolOutput::metadata`] never goes on the wire.
pub fn result(output: &ToolOutput) -> Value {
    let written = written(output.clone(), block);
    let mut result = Map::new();
    result.insert("content".into(), Value::Array(written.content));
    if let Some(structured) = written.structured {
        result.insert("structuredContent".into(), Value::Object(structured));
    }
    result.insert("isError".into(), Value::Bool(written.is_error));
    Value::Object(result)
}

/// The same result as [`result`], as rmcp's `CallToolResult` (what `toolset::mcp`'s
/// server answers `tools/call` with), built without going through JSON; rmcp adds
/// `resultType: "complete"` for the peers whose protocol requires it.
#[cfg(feature = "mcp")]
pub fn call_tool_result(output: ToolOutput) -> rmcp::model::CallToolResult {
    use rmcp::model::{CallToolResult, ContentBlock};
    let written = written(output, |part| match part {
        Content::Text { text } => ContentBlock::text(text),
        Content::Image { data, mime_type } => ContentBlock::image(data, mime_type),
        // The rarer kinds through their JSON, the one shape both forms share.
        other => {
            let json = block(other);
            serde_json::from_value(json.clone())
                .unwrap_or_else(|_| ContentBlock::text(json.to_string()))
        }
    });
    let mut result = if written.is_error {
        CallToolResult::error(written.content)
    } else {
        CallToolResult::success(written.content)
    };
    result.structured_content = written.structured.map(Value::Object);
    result
}

/// What a result carries, whatever builds it.
struct Written<B> {
    content: Vec<B>,
    structured: Option<Map<String, Value>>,
    is_error: bool,
}

/// One part as its MCP content block.
fn block(part: Content) -> Value {
    match part {
        Content::Text { text } => json!({"type": "text", "text": text}),
        Content::Image { data, mime_type } => {
            json!({"type": "image", "data": data, "mimeType": mime_type})
        }
        Content::Audio(audio) => {
            json!({"type": "audio", "data": audio.data, "mimeType": audio.mime_type})
        }
        Content::Resource(resource) => {
            let EmbeddedResource {
                uri,
                mime_type,
                contents,
            } = *resource;
            let mut fields = Map::new();
            fields.insert("uri".into(), json!(uri));
            if let Some(mime_type) = mime_type {
                fields.insert("mimeType".into(), json!(mime_type));
            }
            match contents {
                ResourceContents::Text(text) => fields.insert("text".into(), json!(text)),
                ResourceContents::Blob(blob) => fields.insert("blob".into(), json!(blob)),
            };
            json!({"type": "resource", "resource": fields})
        }
        Content::ResourceLink(link) => {
            let ResourceLink {
                uri,
                name,
                mime_type,
                description,
            } = *link;
            let mut fields = Map::new();
            fields.insert("type".into(), json!("resource_link"));
            fields.insert("uri".into(), json!(uri));
            fields.insert("name".into(), json!(name));
            if let Some(mime_type) = mime_type {
                fields.insert("mimeType".into(), json!(mime_type));
            }
            if let Some(description) = description {
                fields.insert("description".into(), json!(description));
            }
            Value::Object(fields)
        }
    }
}

/// The one decision of what goes on the wire for `output`: its parts as content blocks
/// (`block` builds one; empty texts left out; without any part, the structured value's
/// JSON or the fallback sentence as the one text), the structured value when it is an
/// object, and the error flag.
fn written<B>(output: ToolOutput, block: impl Fn(Content) -> B) -> Written<B> {
    let kept = output.content.iter().filter(|part| is_sent(part)).count();
    let content = if kept > 0 {
        None
    } else {
        // Without content: the structured value's JSON, else the fallback sentence.
        Some(result_content::text(&output, Images::Skip))
    };
    let (parts, structured, is_error) = output.into_sent();
    let content = match content {
        Some(only) => vec![block(Content::Text { text: only })],
        None => {
            // Sized exactly: collected through the filter, the `Vec` would start at four
            // blocks, over a kilobyte of rmcp's, which makes glibc consolidate its fast
            // bins on every call (callgrind: ~500 instructions of a one-part result).
            let mut content = Vec::with_capacity(kept);
            content.extend(parts.into_iter().filter(is_sent).map(block));
            content
        }
    };
    let structured = match structured {
        Some(Value::Object(structured)) => Some(structured),
        _ => None,
    };
    Written {
        content,
        structured,
        is_error,
    }
}

/// Whether `part` goes on the wire: every part but an empty text.
fn is_sent(part: &Content) -> bool {
    !matches!(part, Content::Text { text } if text.is_empty())
}

/// The results of one batch: a JSON array of `CallToolResult`s ([`result`]), one per
/// result, in order. MCP answers each `tools/call` request on its own, so each element is
/// the `result` of the response to the request whose id is that result's `call_id`.
pub fn results(results: &[ToolReply]) -> Value {
    results
        .iter()
        .map(|result| self::result(&result.output))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rmcp form is the JSON one (plus the `resultType` rmcp writes), for every shape
    /// of output.
    #[cfg(feature = "mcp")]
    #[test]
    fn the_rmcp_result_is_the_json_result() {
        let outputs = [
            ToolOutput::text("noon"),
            ToolOutput::error("Error: boom"),
            ToolOutput::empty(),
            ToolOutput::error(""),
            ToolOutput::structured(json!({"hits": 2})),
            ToolOutput::structured(json!([1, 2])),
            ToolOutput::structured(json!({"hits": 2}))
                .with_image("iVBOR", "image/png")
                .with_metadata(json!({"host": "only"})),
            ToolOutput::text("").with_image("iVBOR", "image/png"),
            ToolOutput::empty().with_audio("UklGR", "audio/wav"),
            ToolOutput::text("both:")
                .with_resource("test://a", Some("text/plain"), "a text")
                .with_resource("test://b", None, "no type")
                .with_resource_blob("test://c", Some("application/pdf"), "JVBER")
                .with_resource_link("file:///notes/today.md", "today"),
        ];
        for output in outputs {
            let mut expected = result(&output);
            if let Value::Object(map) = &mut expected {
                map.insert("resultType".into(), json!("complete"));
            }
            let built = serde_json::to_value(call_tool_result(output.clone()))
                .expect("a CallToolResult serializes");
            assert_eq!(built, expected, "for {output:?}");
        }
    }

    #[test]
    fn every_kind_of_part_is_its_mcp_block() {
        let output = ToolOutput::empty()
            .with_audio("UklGR", "audio/wav")
            .with_resource("test://a", Some("text/plain"), "a text")
            .with_resource_blob("test://c", None, "JVBER")
            .with_resource_link("file:///notes/today.md", "today");
        assert_eq!(
            result(&output)["content"],
            json!([
                {"type": "audio", "data": "UklGR", "mimeType": "audio/wav"},
                {"type": "resource", "resource":
                    {"uri": "test://a", "mimeType": "text/plain", "text": "a text"}},
                {"type": "resource", "resource": {"uri": "test://c", "blob": "JVBER"}},
                {"type": "resource_link", "uri": "file:///notes/today.md", "name": "today"},
            ])
        );
    }

    #[test]
    fn a_batch_is_each_calls_result_in_order() {
        let batch = [
            ToolReply {
                caller: crate::call::Caller::Direct,
                late: None,
                call_id: "1".into(),
                name: "now".into(),
                output: ToolOutput::text("noon"),
            },
            ToolReply {
                caller: crate::call::Caller::Direct,
                late: None,
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
