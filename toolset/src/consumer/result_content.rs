//! What a tool result carries on the wire, shared by every consumer's `results`: an
//! output's parts (text and images, never empty) and its single-text form.
//!
//! Its `metadata` is host-only and appears nowhere here. An output without content is
//! sent as its structured value's JSON text if it has one, else as `"Done."` (or a generic
//! error sentence when it is an error), because several providers reject empty results.

use crate::output::Content;
use crate::output::ToolOutput;
use std::borrow::Cow;

/// One part of a result as the wire carries it.
pub(crate) enum Part<'a> {
    Text(Cow<'a, str>),
    Image { data: &'a str, mime_type: &'a str },
}

/// The output's parts, in order, without empty text parts; when nothing is left, a single
/// text part: the structured value's JSON, else the fallback sentence.
pub(crate) fn parts(output: &ToolOutput) -> Vec<Part<'_>> {
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

/// The text of a follow-up (continue style) delivering `late` results: a paragraph per
/// result, each naming its call id and tool and how it came to be late, images as
/// placeholder lines.
pub(crate) fn follow_up_text(late: &[crate::output::ToolReply]) -> String {
    late.iter()
        .map(|result| {
            crate::messages::late_result(
                &result.call_id,
                &result.name,
                // A reply without the fact (a host's own, or saved before it): it was
                // late because it awaited approval, the one way before.
                result.late.unwrap_or(crate::messages::Late::Approval),
                &text(&result.output, Images::Placeholder),
            )
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// How [`text`] treats image parts.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Images {
    /// A placeholder line naming the MIME type (the format cannot carry images).
    Placeholder,
    /// Left out (the caller sends them separately).
    Skip,
}

/// The output as one text: text parts joined by newlines; without any, the structured
/// value's JSON, else the fallback sentence.
pub(crate) fn text(output: &ToolOutput, images: Images) -> String {
    let mut lines: Vec<String> = Vec::new();
    for part in output.content() {
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
    match output.structured_content() {
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
        let output = ToolOutput::empty().with_structured_content(json!({"n": 1}));
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
        let mut output = ToolOutput::empty();
        output.set_error(true);
        assert_eq!(
            text(&output, Images::Skip),
            "The tool failed without a message."
        );
    }

    #[test]
    fn an_output_with_only_empty_text_still_has_one_part() {
        let output = ToolOutput::text("");
        let parts = parts(&output);
        assert!(matches!(parts.as_slice(), [Part::Text(text)] if text == "Done."));
    }
}
