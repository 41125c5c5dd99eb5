//! What a tool result carries on the wire, shared by every consumer's `results`: an
//! output's parts (text and images, never empty) and its single-text form. The providers'
//! APIs take text and images in a tool result; audio and resources reach them as the
//! lines [`as_line`] writes (MCP carries every part as it is).
//!
//! Its `metadata` is host-only and appears nowhere here. An output without content is
//! sent as its structured value's JSON text if it has one, else as `"Done."` (or a generic
//! error sentence when it is an error), because several providers reject empty results.

use crate::output::ToolOutput;
use crate::output::{Content, EmbeddedResource, ResourceContents};
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
            other => as_line(other).map(|line| Part::Text(Cow::Owned(line))),
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

/// What a provider's API (text and images only) is sent for a part it cannot carry: an
/// embedded text resource's text under a line naming it, and a line saying what was left
/// out for audio, a binary resource and a link. `None` for text and images.
pub(crate) fn as_line(part: &Content) -> Option<String> {
    let mime = |mime_type: &Option<String>| {
        mime_type
            .as_deref()
            .map_or(String::new(), |mime_type| format!(" ({mime_type})"))
    };
    Some(match part {
        Content::Text { .. } | Content::Image { .. } => return None,
        Content::Audio(audio) => format!(
            "[{} audio omitted: this API carries text and images only]",
            audio.mime_type
        ),
        Content::Resource(resource) => {
            let EmbeddedResource {
                uri,
                mime_type,
                contents,
            } = &**resource;
            match contents {
                ResourceContents::Text(text) => {
                    format!("[resource {uri}{}]\n{text}", mime(mime_type))
                }
                ResourceContents::Blob(_) => format!(
                    "[resource {uri}{} omitted: binary content, which this API does not carry]",
                    mime(mime_type)
                ),
            }
        }
        Content::ResourceLink(link) => match &link.description {
            Some(description) => {
                format!(
                    "[resource link: {} at {}: {description}]",
                    link.name, link.uri
                )
            }
            None => format!("[resource link: {} at {}]", link.name, link.uri),
        },
    })
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
            other => lines.extend(as_line(other)),
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
    fn parts_a_provider_cannot_carry_reach_it_as_lines() {
        let output = ToolOutput::text("found:")
            .with_audio("UklGR", "audio/wav")
            .with_resource("file:///a.md", Some("text/markdown"), "# A")
            .with_resource_blob("file:///b.pdf", None, "JVBER")
            .with_resource_link("file:///c.md", "c");
        let expected = "found:\n\
            [audio/wav audio omitted: this API carries text and images only]\n\
            [resource file:///a.md (text/markdown)]\n# A\n\
            [resource file:///b.pdf omitted: binary content, which this API does not carry]\n\
            [resource link: c at file:///c.md]";
        assert_eq!(text(&output, Images::Placeholder), expected);
        // Where images go as images, the others are text parts in their place.
        let texts: Vec<String> = parts(&output)
            .into_iter()
            .map(|part| match part {
                Part::Text(text) => text.into_owned(),
                Part::Image { .. } => "image".to_owned(),
            })
            .collect();
        assert_eq!(texts.join("\n"), expected);
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
