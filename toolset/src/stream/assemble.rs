//! What every provider's stream assembler (`consumer/<provider>/stream.rs`) shares: the
//! names it works with (`use crate::stream::assemble::*`), reading an event's members, and
//! the errors every stream gives the same way.

pub(crate) use super::{PartialCall, Protocol, Sealed, StreamError, StreamErrorKind};
pub(crate) use crate::call::ToolCall;
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

/// Whether argument text is a whole JSON object, followed as fragments are appended, at a
/// cost in proportion to each fragment rather than to the text so far.
///
/// A scan of the new bytes (strings, escapes, nesting depth; the bytes that structure JSON
/// are ASCII, which never occur inside a multi-byte UTF-8 character) finds where the
/// top-level object would end, and only there is the text parsed, once. On JSON text the
/// scan is exact, so text that goes on past that point with anything but whitespace can
/// never be a JSON object again, and is not parsed again: [`is_whole`](Self::is_whole)
/// always says what [`is_json_object`] would say of the text.
#[derive(Debug, Clone, Default)]
pub(crate) struct ObjectScan {
    state: ScanState,
    /// Open objects and arrays, while `Inside`.
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// `Closed`: whether the text parsed as a JSON object when its top level closed
    /// (whitespace after it changes nothing).
    whole: bool,
    /// The bytes scanned and parsed, to test that the work stays linear.
    #[cfg(test)]
    pub(crate) examined: usize,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum ScanState {
    /// Only whitespace so far.
    #[default]
    Before,
    /// Inside the top-level object.
    Inside,
    /// The top-level object closed; only whitespace since.
    Closed,
    /// Not a JSON object, whatever may follow.
    Never,
}

impl ObjectScan {
    /// Appends `fragment` to `text` (the text this scan has followed so far) and follows it.
    pub(crate) fn push(&mut self, text: &mut String, fragment: &str) {
        text.push_str(fragment);
        let mut closed_here = false;
        for &byte in fragment.as_bytes() {
            #[cfg(test)]
            {
                self.examined += 1;
            }
            let whitespace = matches!(byte, b' ' | b'\t' | b'\n' | b'\r');
            match self.state {
                ScanState::Never => break,
                ScanState::Before if whitespace => {}
                ScanState::Before if byte == b'{' => {
                    self.state = ScanState::Inside;
                    self.depth = 1;
                }
                ScanState::Closed if whitespace => {}
                ScanState::Before | ScanState::Closed => self.state = ScanState::Never,
                ScanState::Inside if self.in_string => {
                    if self.escaped {
                        self.escaped = false;
                    } else if byte == b'\\' {
                        self.escaped = true;
                    } else if byte == b'"' {
                        self.in_string = false;
                    }
                }
                ScanState::Inside => match byte {
                    b'"' => self.in_string = true,
                    b'{' | b'[' => self.depth += 1,
                    b'}' | b']' => {
                        self.depth -= 1;
                        if self.depth == 0 {
                            self.state = ScanState::Closed;
                            closed_here = true;
                        }
                    }
                    _ => {}
                },
            }
        }
        if closed_here && self.state == ScanState::Closed {
            #[cfg(test)]
            {
                self.examined += text.len();
            }
            self.whole = is_json_object(text);
        }
    }

    /// Whether the text followed so far is a whole JSON object (surrounding whitespace
    /// allowed), as [`is_json_object`] says.
    pub(crate) fn is_whole(&self) -> bool {
        self.state == ScanState::Closed && self.whole
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Follows `text` cut at every split into two and three pieces.
    fn agrees_at_every_cut(text: &str) {
        for first in 0..=text.len() {
            for second in first..=text.len() {
                // Fragments are UTF-8 text: cut only between characters.
                if !text.is_char_boundary(first) || !text.is_char_boundary(second) {
                    continue;
                }
                let pieces = [&text[..first], &text[first..second], &text[second..]];
                let mut scan = ObjectScan::default();
                let mut followed = String::new();
                for piece in pieces {
                    scan.push(&mut followed, piece);
                    assert_eq!(
                        scan.is_whole(),
                        is_json_object(&followed),
                        "{followed:?} (cut at {first}, {second})"
                    );
                }
            }
        }
    }

    #[test]
    fn the_scan_says_what_a_parse_says_of_every_prefix() {
        for text in [
            r#"{"query":"invoice from Société Générale 🧾","limit":5}"#,
            r#" {"a":[1,{"b":"}]\"{"}],"c":{}}  "#,
            r#"{"a":"\\"}"#,
            r#"{"a":"\\\"}"}"#,
            r#"{}"#,
            r#"{} x"#,
            r#"{}}"#,
            r#"{]"#,
            r#"{"a":1,}"#,
            r#"[{}]"#,
            r#""{}""#,
            r#"  {"a" : [ ] }"#,
            "{\"a\":\"\u{FEFF}\"}\n",
            "\u{FEFF}{}",
            r#"{"a":"b" "c"}"#,
            r#"{"a":}"#,
        ] {
            agrees_at_every_cut(text);
        }
    }

    proptest::proptest! {
        /// Random text over JSON's structural characters, and random objects, cut into
        /// random pieces: after every piece the scan says what a parse says.
        #[test]
        fn the_scan_agrees_with_a_parse_on_random_text_cut_anywhere(
            text in proptest::string::string_regex(r#"[ {}\[\]":,\\a1é]{0,24}"#).expect("a regex"),
            object in proptest::collection::vec(("[a-z\"\\\\{}]{0,4}", 0u32..3), 0..4),
            cuts in proptest::collection::vec(0usize..64, 0..6),
        ) {
            let object = serde_json::Value::Object(
                object.into_iter().map(|(key, n)| (key.clone(), serde_json::json!([n, {key: n}]))).collect(),
            );
            for text in [text, object.to_string(), format!(" {object}\n"), format!("{object}{object}")] {
                let mut points: Vec<usize> = cuts.iter().map(|cut| cut % (text.len() + 1)).collect();
                points.retain(|point| text.is_char_boundary(*point));
                points.push(0);
                points.push(text.len());
                points.sort_unstable();
                points.dedup();
                let mut scan = ObjectScan::default();
                let mut followed = String::new();
                for pair in points.windows(2) {
                    scan.push(&mut followed, &text[pair[0]..pair[1]]);
                    proptest::prop_assert_eq!(scan.is_whole(), is_json_object(&followed), "{:?}", followed);
                }
            }
        }
    }
}
