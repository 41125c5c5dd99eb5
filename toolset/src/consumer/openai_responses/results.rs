//! Writing the results of one batch for OpenAI Responses: a `function_call_output` input
//! item per result.

use crate::ToolResult;
use crate::consumer::result_content::{Images, text};
use serde_json::{Value, json};

/// The results of one batch: a JSON array of `function_call_output` input items, one per
/// result, in order, to send as (part of) the next request's `input`:
/// `[{"type": "function_call_output", "call_id": …, "output": "<text>"}, …]`.
///
/// The output is sent as text: images become a placeholder line, and an error output is
/// sent as its text (the format has no error flag).
pub fn results(results: &[ToolResult]) -> Value {
    results
        .iter()
        .map(|result| {
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
