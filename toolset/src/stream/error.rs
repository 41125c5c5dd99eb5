//! The error of assembling tool calls from a stream: what went wrong, which call(s) it is
//! about, and the calls that were complete before it.

use crate::call::ToolCall;
use crate::consumer::Format;
use std::fmt;

/// What kind of problem broke a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StreamErrorKind {
    /// An event is not JSON, or lacks a field the provider documents.
    MalformedEvent,
    /// The API sent an error event (overloaded, rate limited, ...) or a failed response.
    Api,
    /// A fragment for a call (index or item) the stream never started.
    UnknownCall,
    /// A second start for an index or item that already has a call.
    DuplicateStart,
    /// A fragment for a call that was already complete.
    AfterComplete,
    /// A call's arguments, once complete, are not JSON (for Anthropic: not a JSON object).
    MalformedArguments,
    /// The stream ended, or the response stopped (token limit, filter), in the middle of
    /// a call.
    Truncated,
    /// The stream ended without the provider's stop event: more calls may have followed.
    MissingStop,
    /// Two accounts of one call disagree (a `done` event's arguments and its deltas, or
    /// an id the stream already gave to another call).
    Inconsistent,
    /// Content after the end of the stream (`[DONE]` or the stop event).
    AfterEnd,
}

/// What the stream had said about a call an error is about, as far as it got: enough to
/// name the call to a person, and to answer its id with an error result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartialCall {
    /// Where the call sits in the response: the tool call `index` (OpenAI Chat), the
    /// `output_index` (OpenAI Responses), the content block `index` (Anthropic), or the
    /// position among the response's function calls (Gemini).
    pub position: usize,
    /// The call id, if the stream had sent it.
    pub id: Option<String>,
    /// The tool name, if the stream had sent it.
    pub name: Option<String>,
    /// The argument text received so far.
    pub arguments: String,
}

impl PartialCall {
    /// What the stream had sent of the call at `position`: its id and name where it had
    /// sent them, and the argument text so far.
    pub(crate) fn seen(
        position: usize,
        id: Option<&str>,
        name: Option<&str>,
        arguments: &str,
    ) -> Self {
        PartialCall {
            position,
            id: id.map(str::to_owned),
            name: name.map(str::to_owned),
            arguments: arguments.to_owned(),
        }
    }
}

/// A stream of tool calls that cannot be assembled faithfully.
///
/// It says what is wrong ([`kind`](Self::kind), and the message), names the call(s)
/// concerned ([`calls`](Self::calls): id, name and position, as far as the stream had
/// sent them) and keeps every call that was complete before the problem
/// ([`completed`](Self::completed)), so nothing already received is lost. A truncated or
/// malformed call is never turned into a shorter call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamError {
    provider: Format,
    kind: StreamErrorKind,
    calls: Vec<PartialCall>,
    problem: String,
    completed: Vec<ToolCall>,
}

impl StreamError {
    /// An error about the stream as a whole.
    pub(crate) fn new(provider: Format, kind: StreamErrorKind, problem: impl Into<String>) -> Self {
        StreamError {
            provider,
            kind,
            calls: Vec::new(),
            problem: problem.into(),
            completed: Vec::new(),
        }
    }

    /// An error about the call(s) `calls`.
    pub(crate) fn about(
        provider: Format,
        kind: StreamErrorKind,
        calls: Vec<PartialCall>,
        problem: impl Into<String>,
    ) -> Self {
        StreamError {
            calls,
            ..StreamError::new(provider, kind, problem)
        }
    }

    /// The same error, carrying the calls completed before it.
    pub(crate) fn with_completed(mut self, completed: &[ToolCall]) -> Self {
        self.completed = completed.to_vec();
        self
    }

    /// The same error, with `note` (how the stream was cut) added to its problem.
    pub(crate) fn with_note(mut self, note: &str) -> Self {
        self.problem = format!("{} ({note})", self.problem);
        self
    }

    /// The provider whose stream this is.
    pub fn provider(&self) -> Format {
        self.provider
    }

    /// What kind of problem it is.
    pub fn kind(&self) -> StreamErrorKind {
        self.kind
    }

    /// The call(s) the problem is about; empty when it concerns the stream as a whole
    /// (an API error event, an event that is not JSON).
    pub fn calls(&self) -> &[PartialCall] {
        &self.calls
    }

    /// What is wrong, without the provider and call prefix of the `Display` text.
    pub fn problem(&self) -> &str {
        &self.problem
    }

    /// The calls that were complete before the problem, in the order they completed.
    pub fn completed(&self) -> &[ToolCall] {
        &self.completed
    }

    /// The calls that were complete before the problem, owned.
    pub fn into_completed(self) -> Vec<ToolCall> {
        self.completed
    }
}

/// How a call's position is called in the provider's own terms.
fn position_label(provider: Format) -> &'static str {
    match provider {
        Format::OpenAiChat => "index",
        Format::OpenAiResponses => "output_index",
        Format::Anthropic => "content block",
        _ => "function call",
    }
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} stream: ", self.provider)?;
        for (i, call) in self.calls.iter().enumerate() {
            f.write_str(if i == 0 { "call " } else { " and call " })?;
            if let Some(id) = &call.id {
                write!(f, "{id} ")?;
            }
            let label = position_label(self.provider);
            match &call.name {
                Some(name) => write!(f, "({name}, {label} {})", call.position)?,
                None => write!(f, "({label} {})", call.position)?,
            }
        }
        if !self.calls.is_empty() {
            f.write_str(": ")?;
        }
        f.write_str(&self.problem)
    }
}

impl std::error::Error for StreamError {}
