//! Writing the results of one batch for OpenAI Responses: a `function_call_output` input
//! item per result.

use crate::ToolResult;
use crate::consumer::result_content::{Images, text};
use crate::search::SEARCH_TOOL_NAME;
use serde_json::{Value, json};

/// The results of one batch: a JSON array of `function_call_output` input items, one per
/// result, in order, to send as (part of) the next request's `input`:
/// `[{"type": "function_call_output", "call_id": …, "output": "<text>"}, …]`.
///
/// The output is sent as text: images become a placeholder line, and an error output is
/// sent as its text (the format has no error flag).
///
/// The answer of a client-executed tool search (a result for [`SEARCH_TOOL_NAME`] that
/// activates tools, as [`crate::Request::gate`] makes it) is a `tool_search_output` item
/// instead, `{"type": "tool_search_output", "call_id": …, "execution": "client",
/// "tools": [the found tools' definitions]}`; a search that found nothing, or failed,
/// answers with an empty `tools` array.
pub fn results(results: &[ToolResult]) -> Value {
    results
        .iter()
        .map(|result| {
            if result.name == SEARCH_TOOL_NAME {
                let tools = result
                    .output
                    .structured
                    .as_ref()
                    .and_then(|structured| structured.get("tools"))
                    .filter(|_| !result.output.activate.is_empty())
                    .cloned()
                    .unwrap_or_else(|| json!([]));
                return json!({
                    "type": "tool_search_output",
                    "call_id": result.call_id,
                    "execution": "client",
                    "tools": tools,
                });
            }
            json!({
                "type": "function_call_output",
                "call_id": result.call_id,
                "output": text(&result.output, Images::Placeholder),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolOutput;

    #[test]
    fn outputs_echo_the_call_id_with_text() {
        let batch = [ToolResult {
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
