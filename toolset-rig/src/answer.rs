//! What the driver answered each call of a turn, in rig's shapes: a call that ran answers
//! with a rig tool result, one that did not run with the words the model reads.

use rig_core::message::{ImageMediaType, MimeType, ToolResultContent};
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
/// toolset's text; a structured result as JSON content; else its parts, text as text,
/// images as images, and the parts rig's results cannot hold (audio, resources) named in
/// words.
fn result(output: &toolset::ToolOutput) -> ToolResult {
    if output.is_error() {
        return ToolResult::failed(ToolExecutionError::other(output.text_content()));
    }
    if let Some(value) = output.structured_content() {
        return ToolResult::success(ToolOutput::json(value.clone()));
    }
    let parts: Vec<ToolResultContent> = output.content().iter().map(part).collect();
    // rig holds no empty output: a handler that returned nothing answers with empty text.
    let output = ToolOutput::content(parts).unwrap_or_else(|_| ToolOutput::text(""));
    ToolResult::success(output)
}

/// One part of a toolset output as rig's.
fn part(part: &Content) -> ToolResultContent {
    match part {
        Content::Text { text } => ToolResultContent::text(text.clone()),
        Content::Image { data, mime_type } => ToolResultContent::image_base64(
            data.clone(),
            ImageMediaType::from_mime_type(mime_type),
            None,
        ),
        other => ToolResultContent::text(describe(other)),
    }
}

/// A part rig's results cannot hold, in words.
fn describe(part: &Content) -> String {
    match serde_json::to_value(part) {
        Ok(value) => match value.get("type").and_then(Value::as_str) {
            Some(kind) => format!("[{kind} content not shown]"),
            None => "[content not shown]".to_owned(),
        },
        Err(_) => "[content not shown]".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_images_and_what_rig_cannot_hold_keep_their_order() {
        let output = toolset::ToolOutput::text("a chart")
            .with_image("aGk=", "image/png")
            .with_audio("aGk=", "audio/wav");
        let result = result(&output);
        assert!(!result.is_error());
        let parts = result.output().as_content();
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[0].as_text(), Some("a chart"));
        assert!(matches!(&parts[1], ToolResultContent::Image(image)
            if image.media_type == Some(ImageMediaType::PNG)));
        assert_eq!(parts[2].as_text(), Some("[audio content not shown]"));
    }

    #[test]
    fn an_empty_output_is_empty_text_and_an_error_a_failed_result() {
        let empty = result(&toolset::ToolOutput::empty());
        assert_eq!(empty.output().as_text(), Some(""));
        let failed = result(&toolset::ToolOutput::error("Failed: no such item"));
        assert!(failed.is_error());
        assert_eq!(failed.output().as_text(), Some("Failed: no such item"));
    }
}
