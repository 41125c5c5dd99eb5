//! What the driver answered each call of a turn, in rig's shapes: a call that ran answers
//! with a rig tool result, one that did not run with the words the model reads.

use rig_core::tool::{ToolExecutionError, ToolOutput, ToolResult};
use serde_json::Value;
use toolset::driver::Turn;
use toolset::output::Content;
use toolset::report::Outcome;

/// The answer to one call of a turn.
#[derive(Debug, Clone)]
pub(crate) enum Answer {
    /// A handler ran (or was started): its result.
    Ran(ToolResult),
    /// Nothing ran: withheld for a human, refused, or the program was rejected. What the
    /// model reads.
    NotRun(String),
}

/// Each call's answer in `turn`, by call id.
pub(crate) fn answers(turn: &Turn) -> Vec<(String, Answer)> {
    match &turn.report {
        Some(report) => report
            .entries()
            .iter()
            .zip(report.results())
            .map(|(entry, reply)| {
                let answer = match &entry.outcome {
                    // Proposed to a human, or not run at all: the model reads toolset's words.
                    None
                    | Some(Outcome::Refused { .. })
                    | Some(Outcome::TimedOutWaiting { .. }) => {
                        Answer::NotRun(reply.output.text_content())
                    }
                    Some(_) => Answer::Ran(result(&reply.output)),
                };
                (reply.call_id, answer)
            })
            .collect(),
        // A rejected program: the driver's messages (OpenAI Chat, its format here) answer
        // every call id with the problems.
        None => turn
            .messages
            .iter()
            .filter_map(Value::as_array)
            .flatten()
            .filter_map(|message| {
                let id = message.get("tool_call_id")?.as_str()?;
                let text = message.get("content")?.as_str()?;
                Some((id.to_owned(), Answer::NotRun(text.to_owned())))
            })
            .collect(),
    }
}

/// A toolset output as a rig result: an error as a failed result whose model output is
/// toolset's text; a structured result as JSON content; else its parts, text as text and
/// every other part described in words (rig's results hold text, JSON and images, and
/// toolset's images are named by MIME type only here).
fn result(output: &toolset::ToolOutput) -> ToolResult {
    if output.is_error() {
        return ToolResult::failed(ToolExecutionError::other(output.text_content()));
    }
    if let Some(value) = output.structured_content() {
        return ToolResult::success(ToolOutput::json(value.clone()));
    }
    let texts: Vec<String> = output
        .content()
        .iter()
        .map(|part| match part {
            Content::Text { text } => text.clone(),
            other => describe(other),
        })
        .collect();
    ToolResult::success(ToolOutput::text(texts.join("\n")))
}

/// A part that is not text, in words.
fn describe(part: &Content) -> String {
    match serde_json::to_value(part) {
        Ok(value) => match value.get("type").and_then(Value::as_str) {
            Some(kind) => format!("[{kind} content not shown]"),
            None => "[content not shown]".to_owned(),
        },
        Err(_) => "[content not shown]".to_owned(),
    }
}
