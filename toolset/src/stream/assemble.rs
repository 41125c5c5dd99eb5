//! What every provider's stream assembler (`consumer/<provider>/stream.rs`) shares: the
//! names it works with (`use crate::stream::assemble::*`), reading an event's members, and
//! the errors every stream gives the same way.

pub(crate) use super::{PartialCall, Protocol, Sealed, StreamError, StreamErrorKind};
pub(crate) use crate::ToolCall;
pub(crate) use crate::consumer::Format;
pub(crate) use serde_json::Value;

/// The `type` of an event of a typed stream (Anthropic, OpenAI Responses); an event that
/// carries an API error object (`{"error": {…}}`) is that error.
pub(crate) fn event_type(provider: Format, event: &Value) -> Result<&str, StreamError> {
    if let Some(error) = api_error(provider, event) {
        return Err(error);
    }
    event
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| malformed(provider, "stream", "event has no string `type`"))
}

/// The error of a stream that ended before its stop event: cut in the middle of the
/// `open` calls (`truncated` says where), or, none open, with more calls possibly on their
/// way (`missing_stop`).
pub(crate) fn ended_early(
    provider: Format,
    open: Vec<PartialCall>,
    missing_stop: &str,
    truncated: &str,
) -> StreamError {
    if open.is_empty() {
        StreamError::new(provider, StreamErrorKind::MissingStop, missing_stop)
    } else {
        StreamError::about(provider, StreamErrorKind::Truncated, open, truncated)
    }
}

/// The required object member `key` of the event of type `kind`.
pub(crate) fn required_object<'a>(
    provider: Format,
    kind: &str,
    event: &'a Value,
    key: &str,
) -> Result<&'a Value, StreamError> {
    event
        .get(key)
        .filter(|value| value.is_object())
        .ok_or_else(|| malformed(provider, kind, &format!("has no `{key}` object")))
}

/// An event of type `kind` that arrived after the stream's stop event `stop`.
pub(crate) fn after_stop(provider: Format, kind: &str, stop: &str) -> StreamError {
    StreamError::new(
        provider,
        StreamErrorKind::AfterEnd,
        format!("a `{kind}` event arrived after `{stop}`"),
    )
}

/// The start of a long text, for an error message.
pub(crate) fn snippet(text: &str) -> String {
    const MAX: usize = 80;
    match text.char_indices().nth(MAX) {
        Some((end, _)) => format!("`{}…`", &text[..end]),
        None => format!("`{text}`"),
    }
}

/// The error of an API error object inside a stream (`{"error": {"message": …}}`), if
/// `event` carries one.
pub(crate) fn api_error(provider: Format, event: &Value) -> Option<StreamError> {
    let error = event.get("error").filter(|error| error.is_object())?;
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("no message");
    let kind = error
        .get("type")
        .or_else(|| error.get("status"))
        .or_else(|| error.get("code"))
        .map(|kind| match kind {
            Value::String(kind) => format!(" ({kind})"),
            other => format!(" ({other})"),
        })
        .unwrap_or_default();
    Some(StreamError::new(
        provider,
        StreamErrorKind::Api,
        format!(
            "the API sent an error{kind}: {message}; the response is incomplete, retry the request"
        ),
    ))
}

/// A malformed-event error: `what` is missing or mistyped in the event of type `kind`.
pub(crate) fn malformed(provider: Format, kind: &str, what: &str) -> StreamError {
    StreamError::new(
        provider,
        StreamErrorKind::MalformedEvent,
        format!("a `{kind}` event {what}"),
    )
}

/// The required string member `key` of `value`.
pub(crate) fn required_str<'a>(
    provider: Format,
    kind: &str,
    value: &'a Value,
    key: &str,
) -> Result<&'a str, StreamError> {
    value
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| malformed(provider, kind, &format!("has no string `{key}`")))
}

/// The required non-negative integer member `key` of `value` (an index).
pub(crate) fn required_index(
    provider: Format,
    kind: &str,
    value: &Value,
    key: &str,
) -> Result<usize, StreamError> {
    value
        .get(key)
        .and_then(Value::as_u64)
        .and_then(|index| usize::try_from(index).ok())
        .ok_or_else(|| malformed(provider, kind, &format!("has no integer `{key}`")))
}

/// Whether argument text is a whole JSON object: nothing more can follow it.
pub(crate) fn is_json_object(text: &str) -> bool {
    matches!(serde_json::from_str::<Value>(text), Ok(Value::Object(_)))
}
