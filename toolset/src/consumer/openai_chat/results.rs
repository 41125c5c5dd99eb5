//! Writing the results of one batch for OpenAI Chat Completions: a `role: "tool"` message
//! per result.

use crate::consumer::result_content::{Images, follow_up_text, text};
use crate::output::ToolReply;
use serde_json::{Value, json};

/// The results of one batch: a JSON array of `role: "tool"` messages, one per result, in
/// order, to append to the conversation after the assistant message that made the calls:
/// `[{"role": "tool", "tool_call_id": …, "content": "<text>"}, …]`.
///
/// Chat Completions tool messages carry text only: images become a placeholder line, and
/// an error output is sent as its text (the format has no error flag).
pub fn results(results: &[ToolReply]) -> Value {
    results
        .iter()
        .map(|result| {
            json!({
                "role": "tool",
                "tool_call_id": result.call_id,
                "content": text(&result.output, Images::Placeholder),
            })
        })
        .collect()
}

/// The continue style's follow-up: after the model was answered "awaiting approval" for
/// calls and the conversation went on, one message telling it how they ended, to append
/// to the conversation before the next request. `late` is each resolved call's late
/// result (from applying its approved plan, or [`Approvals::decline`](crate::Approvals::decline));
/// each paragraph names the call id and tool it answers.
///
/// `{"role": "user", "content": "<text>"}`.
pub fn follow_up(late: &[ToolReply]) -> Value {
    json!({"role": "user", "content": follow_up_text(late)})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::ToolOutput;

    #[test]
    fn each_call_is_answered_by_a_tool_message_with_text() {
        let batch = [
            ToolReply {
                caller: crate::call::Caller::Direct,
                late: None,
                call_id: "c1".into(),
                name: "search".into(),
                output: ToolOutput::text("2 hits").with_metadata(json!({"secret": 1})),
            },
            ToolReply {
                caller: crate::call::Caller::Direct,
                late: None,
                call_id: "c2".into(),
                name: "now".into(),
                output: ToolOutput::empty(),
            },
        ];
        assert_eq!(
            results(&batch),
            json!([
                {"role": "tool", "tool_call_id": "c1", "content": "2 hits"},
                {"role": "tool", "tool_call_id": "c2", "content": "Done."},
            ])
        );
    }
}
