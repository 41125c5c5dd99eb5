//! Provider wire formats for tool calls and tool results.
//!
//! A model asks for tools in its provider's message format, and expects the results back
//! in that format too. This module reads the calls out of each provider's payload into
//! provider-neutral [`ToolCall`]s, and writes provider-neutral
//! [`ToolResult`](crate::ToolResult)s back out. One submodule per provider holds both
//! directions:
//!
//! | provider | calls in | results out |
//! |---|---|---|
//! | OpenAI Chat Completions | [`ToolCall::from_openai_chat`] | [`openai_chat::tool_messages`] |
//! | OpenAI Responses | [`ToolCall::from_openai_responses`] | [`openai_responses::function_call_outputs`] |
//! | Anthropic Messages | [`ToolCall::from_anthropic`] | [`anthropic::tool_result_message`] |
//! | Google Gemini | [`ToolCall::from_gemini`] | [`gemini::function_response_content`] |
//! | MCP `tools/call` | [`ToolCall::from_mcp`] | [`mcp::call_tool_result`] |
//!
//! ```
//! use serde_json::json;
//! use toolset::{ToolCall, ToolOutput, ToolResult, provider::openai_chat};
//!
//! let message = json!({
//!     "role": "assistant",
//!     "content": null,
//!     "tool_calls": [{
//!         "id": "call_1",
//!         "type": "function",
//!         "function": {"name": "search", "arguments": "{\"query\":\"invoice\"}"}
//!     }]
//! });
//! let calls = ToolCall::from_openai_chat(&message)?;
//! assert_eq!(calls[0].name, "search");
//!
//! let results = [ToolResult {
//!     call_id: calls[0].id.clone(),
//!     name: calls[0].name.clone(),
//!     output: ToolOutput::text("2 hits"),
//! }];
//! let messages = openai_chat::tool_messages(&results);
//! assert_eq!(messages[0]["tool_call_id"], "call_1");
//! # Ok::<(), toolset::ProviderError>(())
//! ```
//!
//! # Parsing
//!
//! Parsing checks the *envelope* strictly: a missing or mistyped field is a
//! [`ProviderError`] that names the provider, the JSON path of the problem relative to the
//! value passed in, and what was expected there. Parsing never panics.
//!
//! The *arguments* are not checked here: they are kept as the model's raw JSON text (for
//! Anthropic, Gemini and MCP, whose arguments arrive as JSON objects, as that object
//! serialized compactly). A call whose arguments are malformed JSON still parses, so the
//! gate can reject it with a message the model can act on, while it checks the other
//! calls of the same program.
//!
//! # Rendering
//!
//! Results render from [`ToolOutput`]: its text and image content, its
//! structured value and its error flag. Its `metadata` is host-only and never appears on
//! the wire. An output without content is sent as its structured value's JSON text if it
//! has one, else as `"Done."` (or a generic error sentence when it is an error), because
//! several providers reject empty tool results. Formats that carry only text (OpenAI)
//! replace each image with a short placeholder naming its MIME type.

pub mod anthropic;
mod error;
pub mod gemini;
pub mod mcp;
pub mod openai_chat;
pub mod openai_responses;

pub use error::{Provider, ProviderError};

#[cfg(doc)]
use crate::ToolCall;
use crate::{Content, ToolOutput};
use error::Node;
use serde_json::Value;
use std::borrow::Cow;

/// Fails with the API's own error message when `value` is an API error body
/// (`{"error": {"message": …}}` or `{"type": "error", "error": {…}}`) instead of a
/// message, so the caller learns what the API said instead of "field missing".
fn reject_api_error(root: &Node<'_>) -> Result<(), error::ProviderError> {
    let Some(error) = root.value().get("error").filter(|error| error.is_object()) else {
        return Ok(());
    };
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("no message");
    Err(root.error(format!(
        "is an API error response, not a message (the API said: {message})"
    )))
}

/// Compact JSON text of an arguments object.
fn json_text(value: &Value) -> String {
    value.to_string()
}

/// One part of a result as the wire carries it.
enum Part<'a> {
    Text(Cow<'a, str>),
    Image { data: &'a str, mime_type: &'a str },
}

/// The output's parts, in order, without empty text parts; when nothing is left, a single
/// text part: the structured value's JSON, else the fallback sentence.
fn parts(output: &ToolOutput) -> Vec<Part<'_>> {
    let mut parts: Vec<Part<'_>> = output
        .content
        .iter()
        .filter_map(|part| match part {
            Content::Text { text } if text.is_empty() => None,
            Content::Text { text } => Some(Part::Text(Cow::Borrowed(text))),
            Content::Image { data, mime_type } => Some(Part::Image { data, mime_type }),
        })
        .collect();
    if parts.is_empty() {
        parts.push(Part::Text(Cow::Owned(text(output, Images::Skip))));
    }
    parts
}

/// What is sent for an output with neither content nor a structured value.
fn fallback_text(output: &ToolOutput) -> &'static str {
    if output.is_error {
        "The tool failed without a message."
    } else {
        "Done."
    }
}

/// How [`text`] treats image parts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Images {
    /// A placeholder line naming the MIME type (the format cannot carry images).
    Placeholder,
    /// Left out (the caller sends them separately).
    Skip,
}

/// The output as one text: text parts joined by newlines; without any, the structured
/// value's JSON, else the fallback sentence.
fn text(output: &ToolOutput, images: Images) -> String {
    let mut lines: Vec<String> = Vec::new();
    for part in &output.content {
        match part {
            Content::Text { text } if text.is_empty() => {}
            Content::Text { text } => lines.push(text.clone()),
            Content::Image { mime_type, .. } => {
                if images == Images::Placeholder {
                    lines.push(format!(
                        "[{mime_type} image omitted: this API carries text only]"
                    ));
                }
            }
        }
    }
    if !lines.is_empty() {
        return lines.join("\n");
    }
    match &output.structured {
        Some(value) if !value.is_null() => value.to_string(),
        _ => fallback_text(output).to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn output_without_content_reads_done() {
        assert_eq!(text(&ToolOutput::empty(), Images::Placeholder), "Done.");
        assert_eq!(text(&ToolOutput::text(""), Images::Skip), "Done.");
    }

    #[test]
    fn structured_output_without_content_is_sent_as_its_json() {
        let output = ToolOutput {
            structured: Some(json!({"n": 1})),
            ..ToolOutput::default()
        };
        assert_eq!(text(&output, Images::Skip), r#"{"n":1}"#);
    }

    #[test]
    fn images_become_placeholders_only_where_asked() {
        let output = ToolOutput::text("chart:").with_image("AAAA", "image/png");
        assert_eq!(
            text(&output, Images::Placeholder),
            "chart:\n[image/png image omitted: this API carries text only]"
        );
        assert_eq!(text(&output, Images::Skip), "chart:");
    }

    #[test]
    fn empty_error_output_still_reads_as_an_error() {
        let output = ToolOutput {
            is_error: true,
            ..ToolOutput::default()
        };
        assert_eq!(
            text(&output, Images::Skip),
            "The tool failed without a message."
        );
    }

    #[test]
    fn api_error_bodies_are_reported_with_the_apis_message() {
        let body = json!({"error": {"message": "Rate limit reached", "type": "requests"}});
        let error = reject_api_error(&Node::root(error::Provider::OpenAiChat, &body))
            .expect_err("an error body is not a message");
        assert!(error.to_string().contains("Rate limit reached"), "{error}");
    }
}
