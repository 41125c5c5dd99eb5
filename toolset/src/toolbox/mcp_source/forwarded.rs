//! What travels with a call forwarded to the server: its progress token as text, the
//! `notifications/cancelled` a call dropped before its answer sends, and the server's
//! result read back as the call's [`ToolOutput`].

use crate::error::ToolError;
use crate::messages;
use crate::output::ResourceContents as Contents;
use crate::output::ToolOutput;
use crate::output::{Audio, Content, EmbeddedResource, ResourceLink};
use rmcp::RoleClient;
use rmcp::model::{
    CallToolResult, CancelledNotificationParam, ContentBlock, NumberOrString, ProgressToken,
    RequestId, ResourceContents,
};
use rmcp::service::Peer;

/// The text of a request's progress token, the key its progress notifications are routed
/// by.
pub(super) fn token_text(token: &ProgressToken) -> String {
    match &token.0 {
        NumberOrString::Number(number) => number.to_string(),
        NumberOrString::String(text) => text.to_string(),
    }
}

/// Sends `notifications/cancelled` for a forwarded request dropped before its answer.
pub(super) struct CancelOnDrop {
    pub(super) peer: Peer<RoleClient>,
    pub(super) request: Option<RequestId>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(request) = self.request.take() else {
            return;
        };
        // Drop cannot await: the notification goes out on the runtime, if there is one.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let peer = self.peer.clone();
            runtime.spawn(async move {
                let reason = Some("the agent's call was cancelled or timed out".to_owned());
                let _ = peer
                    .notify_cancelled(CancelledNotificationParam::new(Some(request), reason))
                    .await;
            });
        }
    }
}

/// A server's result as the call's output; an error result is a failed call.
pub(super) fn output(label: &str, result: CallToolResult) -> Result<ToolOutput, ToolError> {
    let content: Vec<Content> = result
        .content
        .into_iter()
        .map(|block| match block {
            ContentBlock::Text(text) => Content::Text { text: text.text },
            ContentBlock::Image(image) => Content::Image {
                data: image.data,
                mime_type: image.mime_type,
            },
            ContentBlock::Audio(audio) => Content::Audio(Box::new(Audio {
                data: audio.data,
                mime_type: audio.mime_type,
            })),
            ContentBlock::Resource(embedded) => match embedded.resource {
                ResourceContents::TextResourceContents {
                    uri,
                    mime_type,
                    text,
                    ..
                } => Content::Resource(Box::new(EmbeddedResource {
                    uri,
                    mime_type,
                    contents: Contents::Text(text),
                })),
                ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob,
                    ..
                } => Content::Resource(Box::new(EmbeddedResource {
                    uri,
                    mime_type,
                    contents: Contents::Blob(blob),
                })),
                // A kind of contents this crate does not know: its JSON, as text.
                other => Content::Text {
                    text: serde_json::to_string(&other).unwrap_or_default(),
                },
            },
            ContentBlock::ResourceLink(link) => Content::ResourceLink(Box::new(ResourceLink {
                uri: link.uri,
                name: link.name,
                mime_type: link.mime_type,
                description: link.description,
            })),
            // A kind of block this crate does not know: its JSON, as text.
            other => Content::Text {
                text: serde_json::to_string(&other).unwrap_or_default(),
            },
        })
        .collect();
    if result.is_error == Some(true) {
        let text: Vec<&str> = content
            .iter()
            .filter_map(|part| match part {
                Content::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        return Err(ToolError::failed(if text.is_empty() {
            messages::proxy_error_without_text(label)
        } else {
            text.join("\n")
        }));
    }
    Ok(ToolOutput::from(crate::output::ToolOutputParts {
        content,
        structured: result.structured_content,
        ..crate::output::ToolOutputParts::default()
    }))
}

#[cfg(all(test, feature = "mcp"))]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_part_a_proxied_tool_sends_arrives_as_it_was_sent() {
        let sent = ToolOutput::text("all kinds:")
            .with_image("iVBOR", "image/png")
            .with_audio("UklGR", "audio/wav")
            .with_resource("test://a", Some("text/plain"), "a text")
            .with_resource_blob("test://b", None, "JVBER")
            .with_resource_link("file:///c.md", "c");
        // What toolset's own MCP server writes, read back as a proxied tool's answer.
        let received = output("hub", crate::consumer::mcp::call_tool_result(sent.clone()))
            .expect("not an error result");
        assert_eq!(received.content(), sent.content());
    }
}
