//! Writing the results of one batch for Gemini: one user `Content` of `functionResponse`
//! parts, images after them as `inlineData` parts.

use crate::consumer::result_content::{Images, follow_up_text, text};
use crate::output::Content;
use crate::output::ToolReply;
use serde_json::{Map, Value, json};

/// The results of one batch: the one user `Content` answering the calls, a
/// `functionResponse` part per result, in order.
///
/// `{"role": "user", "parts": [{"functionResponse": {"name": …, "id": …, "response":
/// {…}}}]}`. `response` is the structured output when it is a JSON object, `{"output":
/// text}` otherwise, and `{"error": text}` for an error output. The call id is always
/// included (Gemini ignores ids it did not issue). Images follow the function responses
/// as `inlineData` parts, each group introduced by a text part naming the call it belongs
/// to, which every Gemini model accepts.
pub fn results(results: &[ToolReply]) -> Value {
    let mut parts: Vec<Value> = results.iter().map(function_response_part).collect();
    for result in results {
        let images: Vec<Value> = result
            .output
            .content
            .iter()
            .filter_map(|part| match part {
                Content::Image { data, mime_type } => {
                    Some(json!({"inlineData": {"mimeType": mime_type, "data": data}}))
                }
                _ => None,
            })
            .collect();
        if !images.is_empty() {
            parts.push(json!({"text": format!(
                "Image output of the `{}` call {}:",
                result.name, result.call_id
            )}));
            parts.extend(images);
        }
    }
    json!({"role": "user", "parts": parts})
}

fn function_response_part(result: &ToolReply) -> Value {
    let output = &result.output;
    let response = match output.structured_content() {
        _ if output.is_error => json!({"error": text(output, Images::Skip)}),
        Some(Value::Object(object)) => Value::Object(object.clone()),
        _ => json!({"output": text(output, Images::Skip)}),
    };
    let mut function_response = Map::new();
    function_response.insert("name".into(), json!(result.name));
    function_response.insert("id".into(), json!(result.call_id));
    function_response.insert("response".into(), response);
    json!({"functionResponse": function_response})
}

/// The continue style's follow-up: after the model was answered "awaiting approval" for
/// calls and the conversation went on, one message telling it how they ended, to append
/// to the conversation before the next request. `late` is each resolved call's late
/// result (from applying its approved plan, or [`Approvals::decline`](crate::Approvals::decline));
/// each paragraph names the call id and tool it answers.
///
/// `{"role": "user", "parts": [{"text": "<text>"}]}`.
pub fn follow_up(late: &[ToolReply]) -> Value {
    json!({"role": "user", "parts": [{"text": follow_up_text(late)}]})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::ToolOutput;

    #[test]
    fn response_is_structured_object_else_output_or_error_text() {
        let batch = [
            ToolReply {
                caller: crate::call::Caller::Direct,
                late: None,
                call_id: "call_0".into(),
                name: "search".into(),
                output: ToolOutput::structured(json!({"hits": [1]})).with_metadata(json!(1)),
            },
            ToolReply {
                caller: crate::call::Caller::Direct,
                late: None,
                call_id: "call_1".into(),
                name: "list".into(),
                output: ToolOutput::structured(json!([1, 2])),
            },
            ToolReply {
                caller: crate::call::Caller::Direct,
                late: None,
                call_id: "call_2".into(),
                name: "now".into(),
                output: ToolOutput::error("Error: boom"),
            },
            ToolReply {
                caller: crate::call::Caller::Direct,
                late: None,
                call_id: "call_3".into(),
                name: "archive".into(),
                output: ToolOutput::empty(),
            },
        ];
        assert_eq!(
            results(&batch),
            json!({"role": "user", "parts": [
                {"functionResponse": {"name": "search", "id": "call_0", "response": {"hits": [1]}}},
                {"functionResponse": {"name": "list", "id": "call_1", "response": {"output": "[1,2]"}}},
                {"functionResponse": {"name": "now", "id": "call_2", "response": {"error": "Error: boom"}}},
                {"functionResponse": {"name": "archive", "id": "call_3", "response": {"output": "Done."}}},
            ]})
        );
    }

    #[test]
    fn images_follow_the_function_responses_as_inline_data() {
        let batch = [ToolReply {
            caller: crate::call::Caller::Direct,
            late: None,
            call_id: "call_0".into(),
            name: "screenshot".into(),
            output: ToolOutput::text("taken").with_image("iVBOR", "image/png"),
        }];
        let content = results(&batch);
        assert_eq!(
            content["parts"][0]["functionResponse"]["response"],
            json!({"output": "taken"})
        );
        assert_eq!(
            content["parts"][2],
            json!({"inlineData": {"mimeType": "image/png", "data": "iVBOR"}})
        );
    }
}
