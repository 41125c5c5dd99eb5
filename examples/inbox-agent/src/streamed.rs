//! Replaying a streamed response: the calls are assembled from the SSE body as it
//! arrives, and each one is checked by the gate the moment it is complete, long before
//! the stream ends. What runs is still decided by gating the whole program afterwards.

use inbox_agent::InboxTools;
use serde_json::{Value, json};
use toolset::prelude::*;
use toolset::stream::{CallStream, OpenAiChat};
use toolset::{Autonomy, ToolCall};

/// How many bytes the replay hands over at a time, as a network delivers them.
const PIECE: usize = 97;

/// Feeds the recorded SSE `body` piece by piece, printing each call as it completes with
/// the gate's verdict on it alone; returns the whole program.
pub fn replay(file: &str, body: &str, autonomy: Autonomy) -> Result<Vec<ToolCall>, String> {
    let mut stream = CallStream::<OpenAiChat>::new();
    let bytes = body.as_bytes();
    for (piece, chunk) in bytes.chunks(PIECE).enumerate() {
        let calls = stream
            .feed_bytes(chunk)
            .map_err(|error| format!("script/{file}: {error}"))?;
        let received = (piece * PIECE + chunk.len()).min(bytes.len());
        for call in calls {
            println!(
                "[{received:>5} of {} bytes] {} {}({}): {}",
                bytes.len(),
                call.id,
                call.name,
                call.arguments,
                verdict(&call, autonomy)
            );
        }
    }
    stream
        .finish()
        .map_err(|error| format!("script/{file}: {error}"))
}

/// The gate's verdict on one call alone: for showing, not for running.
fn verdict(call: &ToolCall, autonomy: Autonomy) -> String {
    match InboxTools::gate([call.clone()], autonomy) {
        Ok(plan) if plan.has_proposals() => "valid, needs approval".to_owned(),
        Ok(_) => "valid, may run".to_owned(),
        Err(rejected) => match rejected.problems().first() {
            Some(problem) => format!("REJECTED: {}", problem.message),
            None => "REJECTED".to_owned(),
        },
    }
}

/// The assistant message the streamed calls form, for the conversation history.
pub fn assistant_message(calls: &[ToolCall]) -> Value {
    let tool_calls: Vec<Value> = calls
        .iter()
        .map(|call| {
            json!({"id": call.id, "type": "function",
                   "function": {"name": call.name, "arguments": call.arguments}})
        })
        .collect();
    json!({"role": "assistant", "content": null, "tool_calls": tool_calls})
}
