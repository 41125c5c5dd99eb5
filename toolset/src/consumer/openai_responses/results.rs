//! Writing the results of one batch for OpenAI Responses: a `function_call_output` input
//! item per result.

use crate::call::Caller;
use crate::consumer::result_content::{Images, follow_up_text, text};
use crate::output::ToolReply;
use crate::search::SEARCH_TOOL_NAME;
use serde_json::{Value, json};

/// The results of one batch: a JSON array of `function_call_output` input items, one per
/// result, in order, to send as (part of) the next request's `input`:
/// `[{"type": "function_call_output", "call_id": …, "output": "<text>"}, …]`.
///
/// The output is sent as text: images become a placeholder line, and an error output is
/// sent as its text (the format has no error flag).
///
/// The result of a call the model's program made (programmatic tool calling: the call's
/// [`Caller::Code`]) goes back to that program: its item names the caller as the call
/// did, `"caller": {"type": "program", "caller_id": …}`, the `caller_id` unchanged. The
/// `program` item the call came from (with its `fingerprint`) is the host's to send back
/// unchanged, with the rest of the response's output.
///
/// The answer of a client-executed tool search (a result for [`SEARCH_TOOL_NAME`] that
/// activates tools, as [`crate::request::Request::gate`] makes it) is a `tool_search_output` item
/// instead, `{"type": "tool_search_output", "call_id": …, "execution": "client",
/// "tools": [the found tools' definitions]}`; a search that found nothing, or failed,
/// answers with an empty `tools` array.
pub fn results(results: &[ToolReply]) -> Value {
    results
        .iter()
        .map(|result| {
            if result.name == SEARCH_TOOL_NAME {
                let tools = result
                    .output
                    .structured_content()
                    .and_then(|structured| structured.get("tools"))
                    .filter(|_| !result.output.activates().is_empty())
                    .cloned()
                    .unwrap_or_else(|| json!([]));
                return json!({
                    "type": "tool_search_output",
                    "call_id": result.call_id,
                    "execution": "client",
                    "tools": tools,
                });
            }
            let mut item = json!({
                "type": "function_call_output",
                "call_id": result.call_id,
                "output": text(&result.output, Images::Placeholder),
            });
            if let (Caller::Code { kind, id }, Some(fields)) =
                (&result.caller, item.as_object_mut())
            {
                fields.insert("caller".into(), json!({"type": kind, "caller_id": id}));
            }
            item
        })
        .collect()
}

/// The continue style's follow-up: after the model was answered "awaiting approval" for
/// calls and the conversation went on, one message telling it how they ended, to append
/// to the conversation before the next request. `late` is each resolved call's late
/// result (from applying its approved plan, or [`Approvals::decline`](crate::Approvals::decline));
/// each paragraph names the call id and tool it answers.
///
/// A user message input item: `{"type": "message", "role": "user", "content":
/// [{"type": "input_text", "text": "<text>"}]}`.
pub fn follow_up(late: &[ToolReply]) -> Value {
    json!({
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": follow_up_text(late)}],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::ToolOutput;

    #[test]
    fn outputs_echo_the_call_id_with_text() {
        let batch = [ToolReply {
            caller: crate::call::Caller::Direct,
            late: None,
            call_id: "call_a".into(),
            name: "search".into(),
            output: ToolOutput::error("Error: no such item").with_metadata(json!(1)),
        }];
        assert_eq!(
            results(&batch),
            json!([{"type": "function_call_output", "call_id": "call_a",
                     "output": "Error: no such item"}])
        );
    }
}
