//! Writing the results of one batch for Anthropic Messages: one user message of
//! `tool_result` blocks.

use crate::consumer::result_content::{Part, follow_up_text, parts};
use crate::output::ToolReply;
use crate::search::SEARCH_TOOL_NAME;
use serde_json::{Map, Value, json};

/// The results of one batch: the one user message answering the calls, a `tool_result`
/// block per result, in order.
///
/// `{"role": "user", "content": [{"type": "tool_result", "tool_use_id": …, "content":
/// [text and image blocks], "is_error": true}]}`; `is_error` appears only on errors.
/// Images are sent as base64 image blocks. Anthropic requires every `tool_use` of the
/// previous assistant message to be answered in this one message, so pass all the results
/// together (an empty slice gives a message with no content, which the API rejects).
///
/// A call the model's code made (a `tool_use` whose `caller` is a code execution tool)
/// is answered the same way, by its `tool_use_id`: the API hands the result to the code
/// that is waiting for it. Such a message must hold `tool_result` blocks only, which this
/// one does.
///
/// An output that activates tools ([`ToolOutput::activates`](crate::ToolOutput::activates))
/// adds a `{"type": "tool_reference", "tool_name": …}` block per tool, which loads that
/// deferred tool; the answer of the local tool search ([`SEARCH_TOOL_NAME`]) carries only
/// those blocks, as Anthropic's client-side tool search expects.
pub fn results(results: &[ToolReply]) -> Value {
    let blocks: Vec<Value> = results.iter().map(tool_result_block).collect();
    json!({"role": "user", "content": blocks})
}

fn tool_result_block(result: &ToolReply) -> Value {
    let references = result
        .output
        .activates()
        .iter()
        .map(|name| json!({"type": "tool_reference", "tool_name": name}));
    let only_references = result.name == SEARCH_TOOL_NAME && !result.output.activates().is_empty();
    let parts = if only_references {
        Vec::new()
    } else {
        parts(&result.output)
    };
    let content: Vec<Value> = parts
        .into_iter()
        .map(|part| match part {
            Part::Text(text) => json!({"type": "text", "text": text}),
            Part::Image { data, mime_type } => json!({
                "type": "image",
                "source": {"type": "base64", "media_type": mime_type, "data": data},
            }),
        })
        .chain(references)
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

/// The continue style's follow-up: after the model was answered "awaiting approval" for
/// calls and the conversation went on, one message telling it how they ended, to append
/// to the conversation before the next request. `late` is each resolved call's late
/// result (from applying its approved plan, or [`Approvals::decline`](crate::Approvals::decline));
/// each paragraph names the call id and tool it answers.
///
/// `{"role": "user", "content": [{"type": "text", "text": "<text>"}]}`.
pub fn follow_up(late: &[ToolReply]) -> Value {
    json!({"role": "user", "content": [{"type": "text", "text": follow_up_text(late)}]})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::ToolOutput;

    #[test]
    fn results_form_one_user_message_with_error_flag_only_on_errors() {
        let batch = [
            ToolReply {
                caller: crate::call::Caller::Direct,
                late: None,
                call_id: "toolu_a".into(),
                name: "search".into(),
                output: ToolOutput::text("chart:")
                    .with_image("iVBORw0K", "image/png")
                    .with_metadata(json!({"host": "only"})),
            },
            ToolReply {
                caller: crate::call::Caller::Direct,
                late: None,
                call_id: "toolu_b".into(),
                name: "now".into(),
                output: ToolOutput::error("Error: boom"),
            },
            ToolReply {
                caller: crate::call::Caller::Direct,
                late: None,
                call_id: "toolu_c".into(),
                name: "archive".into(),
                output: ToolOutput::empty(),
            },
        ];
        assert_eq!(
            results(&batch),
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
