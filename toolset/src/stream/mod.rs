//! Tool calls from streamed responses, for every provider.
//!
//! This module holds what every provider shares ([`CallStream`], SSE reading, the
//! errors, the assemblers' helpers in `assemble.rs`); each provider's assembler lives in
//! its consumer folder (`consumer/<provider>/stream.rs`), re-exported here.
//!
//! A [`CallStream`] is fed a provider's stream as it arrives (raw SSE text or bytes cut
//! anywhere, or events already decoded to JSON) and hands out each [`ToolCall`] as soon
//! as the stream has sent all of it. At the end, [`CallStream::finish`] gives the whole
//! program: the very calls (ids, names, argument text) that the non-streamed parser gives
//! for the same response, in the same order, ready for the gate.
//!
//! | provider | stream | the non-streamed parser it agrees with |
//! |---|---|---|
//! | OpenAI Chat Completions | [`CallStream<OpenAiChat>`](OpenAiChat) | [`ToolCall::from_openai_chat`] |
//! | OpenAI Responses | [`CallStream<OpenAiResponses>`](OpenAiResponses) | [`ToolCall::from_openai_responses`] |
//! | Anthropic Messages | [`CallStream<Anthropic>`](Anthropic) | [`ToolCall::from_anthropic`] |
//! | Google Gemini (`streamGenerateContent?alt=sse`) | [`CallStream<Gemini>`](Gemini) | [`ToolCall::from_gemini`] |
//!
//! ```
//! use toolset::stream::{CallStream, OpenAiChat};
//!
//! // Two pieces of an OpenAI Chat Completions SSE body, cut mid-event as a network does.
//! let pieces = [
//!     "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\
//!      \"type\":\"function\",\"function\":{\"name\":\"search\",\"arguments\":\"\"}}]}}]}\n\n\
//!      data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\
//!      \"function\":{\"arguments\":\"{\\\"query\\\":\\\"invo",
//!     "ice\\\"}\"}}]}}]}\n\n\
//!      data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n\
//!      data: [DONE]\n\n",
//! ];
//! let mut stream = CallStream::<OpenAiChat>::new();
//! let mut seen = Vec::new();
//! for piece in pieces {
//!     for call in stream.feed_sse(piece)? {
//!         seen.push(call); // complete: show it, check it (see below)
//!     }
//! }
//! let program = stream.finish()?;
//! assert_eq!(program[0].arguments, r#"{"query":"invoice"}"#);
//! assert_eq!(seen, program);
//! # Ok::<(), toolset::stream::StreamError>(())
//! ```
//!
//! # When a call is complete
//!
//! - **OpenAI Chat**: calls carry no stop event of their own. A call is complete when its
//!   argument text is a whole JSON object and a fragment of another call arrives, or at
//!   the choice's `finish_reason` (where empty arguments, which the gate reads as none,
//!   count too). Waiting for the stream to move on keeps the argument text
//!   byte-identical to the non-streamed message even if the model sends whitespace after
//!   the object; interleaved calls are fine.
//! - **OpenAI Responses**: at `response.function_call_arguments.done` (or the item's
//!   `response.output_item.done`, whichever comes first); the other one must agree. A
//!   client-executed `tool_search_call` (a call of the search tool, `tool_search`, as the
//!   non-streamed parser reads it) at its `response.output_item.done`, which carries it
//!   whole.
//! - **Anthropic**: at the block's `content_block_stop`. A `tool_use` block without
//!   `input_json_delta` fragments (or with only empty ones) has the input of its
//!   `content_block_start`, `{}`.
//! - **Gemini**: every `functionCall` part arrives whole, so at once. Ids missing in the
//!   response are synthesized by the non-streamed parser's rule (`call_<n>`) from what
//!   the stream has shown so far; a later call carrying an id already given away is an
//!   error rather than two calls with one id.
//!
//! Calls come out in the order they complete; [`CallStream::finish`] returns the program
//! in the response's order (the one the non-streamed parser gives).
//!
//! # A hosted tool search
//!
//! When the provider runs the tool search itself (Anthropic's `tool_search_tool_*`,
//! OpenAI Responses' hosted `tool_search`), what it loaded is not a call:
//! [`CallStream::hosted_search`] gives its results as the non-streamed response holds
//! them, for [`Activations::record_hosted`](crate::request::Activations::record_hosted) to record
//! before the program is gated, exactly as it records them from the non-streamed response.
//!
//! # Checking a call before the stream ends
//!
//! A complete call can be verified at once, so a host can show a problem or a proposal
//! while the model is still writing: [`Request::check(&call)`](crate::request::Request::check) gives
//! exactly the verdict the request's gate, [`Request::gate`](crate::request::Request::gate), gives a
//! program of that call alone (the same route: what the request offers, activated and
//! injected tools, the toolbox's runtime tools, the arguments' schema; a property test in
//! `tests/tests/request.rs` holds them equal); the verdict is for showing. There is no
//! other one-call check: the request is the one gate. What runs is decided only by
//! gating the whole program from [`CallStream::finish`] through the same request: one bad
//! call still rejects the whole program.
//!
//! ```
//! use toolset::prelude::*;
//! use toolset::stream::{Anthropic, CallStream};
//! use toolset::consumer::Format;
//! use toolset::{Autonomy, tool, toolset};
//! use toolset::request::Request;
//!
//! /// Search the inbox by free text.
//! #[tool(tier = "read_only")]
//! pub async fn search(query: String) -> String { query }
//!
//! toolset! { pub Tools = [search]; }
//!
//! let body = concat!(
//!     "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"content\":[]}}\n\n",
//!     "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,",
//!     "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"search\",\"input\":{}}}\n\n",
//!     "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,",
//!     "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"query\\\": 7}\"}}\n\n",
//!     "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
//! );
//! let policy = Tools::policy(Autonomy::ReadOnly);
//! let request = Request::new(&policy).format(Format::Anthropic);
//! let mut stream = CallStream::<Anthropic>::new();
//! for call in stream.feed_sse(body)? {
//!     // The stream has not ended, and the call can already be answered.
//!     let problems = request.check(&call).expect_err("7 is not a string");
//!     assert!(problems[0].message.contains("Invalid arguments"));
//! }
//! # Ok::<(), toolset::stream::StreamError>(())
//! ```
//!
//! # Broken streams
//!
//! A stream that is cut or malformed gives a [`StreamError`] naming the call (id, name,
//! position, the argument text so far), never a panic and never a shortened call: a
//! fragment for an index or item that was never started, a second start for one, a
//! fragment after a call was complete, arguments that do not form JSON (for Anthropic, a
//! JSON object), a stream that ends in the middle of a call or without the provider's stop
//! event, a response that stopped at its token limit in the middle of a call, or an API
//! error event. [`StreamError::completed`] keeps the calls that were complete before;
//! after an error, every further `feed_*` and `finish` returns the same error.
//!
//! Unlike the non-streamed parsers, which keep malformed argument text for the gate to
//! report, a stream treats arguments that are not JSON when their call closes as a broken
//! stream: fragments lost or cut short look exactly like that, and a call must never run
//! on a guess. The error names the call, so the host can still answer its id.

pub(crate) mod assemble;
mod error;
mod sse;

// Each provider's assembler lives in its consumer folder, beside its non-streamed parser.
pub use crate::consumer::anthropic::stream::Anthropic;
pub use crate::consumer::gemini::stream::Gemini;
pub use crate::consumer::openai_chat::stream::OpenAiChat;
pub use crate::consumer::openai_responses::stream::OpenAiResponses;
pub use error::{PartialCall, StreamError, StreamErrorKind};

use crate::call::ToolCall;
use crate::consumer::Format;
use assemble::snippet;
use serde_json::Value;
use sse::{SseDecoder, SseEvent};

mod sealed {
    /// Only this crate's providers implement [`Protocol`](super::Protocol).
    pub trait Sealed {}
}
pub(crate) use sealed::Sealed;

/// How one provider streams tool calls: the state of assembling one response.
///
/// Implemented by [`OpenAiChat`], [`OpenAiResponses`], [`Anthropic`] and [`Gemini`];
/// use it through [`CallStream`].
pub trait Protocol: Default + Sealed {
    /// The provider whose stream this reads.
    const PROVIDER: Format;

    /// Reads one decoded event, pushing the calls it completes onto `completed`.
    fn event(&mut self, event: &Value, completed: &mut Vec<ToolCall>) -> Result<(), StreamError>;

    /// The whole program, once the stream has ended: an error if it ended before the
    /// provider's stop event or in the middle of a call.
    fn program(&mut self) -> Result<Vec<ToolCall>, StreamError>;

    /// The hosted tool search results complete so far, in the response's order, each the
    /// item the non-streamed response holds (see [`CallStream::hosted_search`]); none for
    /// a provider without a hosted search.
    fn hosted_search(&self) -> Vec<Value> {
        Vec::new()
    }
}

/// Assembles the tool calls of one streamed response of the provider `P`.
///
/// Feed it the stream as it arrives: [`feed_sse`](Self::feed_sse) for the SSE body's
/// text, [`feed_bytes`](Self::feed_bytes) for its bytes, or
/// [`feed_event`](Self::feed_event) for each event's JSON if something else decodes the
/// SSE. Each returns the calls that became complete. [`finish`](Self::finish) ends the
/// stream and returns the whole program. See the [module docs](self) for when each
/// provider's calls are complete and which broken streams are errors.
#[derive(Debug)]
pub struct CallStream<P: Protocol> {
    protocol: P,
    sse: SseDecoder,
    bytes_fed: usize,
    completed: Vec<ToolCall>,
    /// `[DONE]` was seen: nothing may follow.
    done: bool,
    /// The first error: the stream cannot be trusted after it.
    failure: Option<StreamError>,
}

impl<P: Protocol> Default for CallStream<P> {
    fn default() -> Self {
        CallStream {
            protocol: P::default(),
            sse: SseDecoder::default(),
            bytes_fed: 0,
            completed: Vec::new(),
            done: false,
            failure: None,
        }
    }
}

impl<P: Protocol> CallStream<P> {
    /// A stream at its start.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one event already decoded to JSON (an SSE event's `data`, or a chunk object
    /// an SDK gave you turned into a `serde_json::Value`); returns the calls it completed.
    pub fn feed_event(&mut self, event: &Value) -> Result<Vec<ToolCall>, StreamError> {
        self.check_not_failed()?;
        let before = self.completed.len();
        let result = self.event(event, None);
        self.outcome(before, result)
    }

    /// Feeds a piece of the SSE body (cut anywhere: mid-line, mid-event); returns the
    /// calls completed by the events it finished. `data: [DONE]` ends the stream.
    pub fn feed_sse(&mut self, text: &str) -> Result<Vec<ToolCall>, StreamError> {
        self.check_not_failed()?;
        let mut events = Vec::new();
        self.sse.push_str(text, &mut events);
        self.bytes_fed += text.len();
        self.events(events)
    }

    /// Feeds a piece of the SSE body as bytes, which may be cut inside a UTF-8 character;
    /// returns the calls completed by the events it finished.
    pub fn feed_bytes(&mut self, bytes: &[u8]) -> Result<Vec<ToolCall>, StreamError> {
        self.check_not_failed()?;
        let mut events = Vec::new();
        let decoded = self.sse.push_bytes(bytes, self.bytes_fed, &mut events);
        self.bytes_fed += bytes.len();
        let calls = self.events(events)?;
        match decoded {
            Ok(()) => Ok(calls),
            Err(bad) => {
                let error = StreamError::new(
                    P::PROVIDER,
                    StreamErrorKind::MalformedEvent,
                    format!(
                        "the body is not UTF-8 (a bad byte at offset {}); an SSE body always is",
                        bad.valid_up_to
                    ),
                );
                let before = self.completed.len();
                self.outcome(before, Err(error))
            }
        }
    }

    /// The calls complete so far, in the order they completed.
    pub fn completed(&self) -> &[ToolCall] {
        &self.completed
    }

    /// What the provider's hosted tool search loaded, as far as the stream has shown it:
    /// a JSON array of the very items the non-streamed response holds (Anthropic
    /// `tool_search_tool_result` blocks, OpenAI Responses `tool_search_output` items), in
    /// the response's order, each once it is complete. Empty for providers without a
    /// hosted search.
    ///
    /// Pass it to [`Activations::record_hosted`](crate::request::Activations::record_hosted), which
    /// then records exactly what it records from the non-streamed response. Do it before
    /// gating the program (the model may call a tool in the response whose search found
    /// it), so before [`finish`](Self::finish): every result comes before the provider's
    /// stop event, so a stream that finishes without error has shown them all here. A
    /// call handed out by a `feed_*` is preceded here by every result the response put
    /// before it.
    ///
    /// ```
    /// use toolset::request::Activations;
    /// use toolset::stream::{CallStream, OpenAiResponses};
    ///
    /// let body = concat!(
    ///     "data: {\"type\":\"response.output_item.added\",\"output_index\":0,",
    ///     "\"item\":{\"type\":\"tool_search_output\",\"id\":\"tso_1\",\"execution\":\"server\",\"tools\":[]}}\n\n",
    ///     "data: {\"type\":\"response.output_item.done\",\"output_index\":0,",
    ///     "\"item\":{\"type\":\"tool_search_output\",\"id\":\"tso_1\",\"execution\":\"server\",",
    ///     "\"tools\":[{\"type\":\"function\",\"name\":\"convert\"}],\"status\":\"completed\"}}\n\n",
    ///     "data: {\"type\":\"response.completed\",\"response\":{}}\n\n",
    /// );
    /// let mut stream = CallStream::<OpenAiResponses>::new();
    /// stream.feed_sse(body)?;
    /// let mut activations = Activations::new();
    /// assert_eq!(activations.record_hosted(&stream.hosted_search()), ["convert"]);
    /// let program = stream.finish()?; // gate it under a request built with `activations`
    /// assert!(program.is_empty());
    /// # Ok::<(), toolset::stream::StreamError>(())
    /// ```
    pub fn hosted_search(&self) -> Value {
        Value::Array(self.protocol.hosted_search())
    }

    /// Ends the stream and returns the whole program, in the response's order: what the
    /// non-streamed parser gives for the same response.
    ///
    /// An error when the stream was broken (see the [module docs](self)); the calls
    /// complete before the problem are in [`StreamError::completed`].
    pub fn finish(mut self) -> Result<Vec<ToolCall>, StreamError> {
        self.check_not_failed()?;
        // What the decoder still holds was not closed by a blank line: the body may have
        // been cut there. An event that still reads as JSON counts; one that does not is
        // the cut, and the protocol then names what it left unfinished.
        let mut tail = Vec::new();
        let mut cut = match self.sse.end(&mut tail) {
            Ok(()) => None,
            Err(bytes) => Some(format!(
                "the body ended inside a UTF-8 character ({bytes} byte(s) of it arrived)"
            )),
        };
        for event in tail {
            let whole =
                event.data.trim() == "[DONE]" || serde_json::from_str::<Value>(&event.data).is_ok();
            if whole {
                self.events(vec![event])?;
            } else {
                cut = Some(format!(
                    "the body ended in the middle of an event: {}",
                    snippet(&event.data)
                ));
            }
        }
        self.protocol.program().map_err(|error| {
            let error = match &cut {
                Some(cut) => error.with_note(cut),
                None => error,
            };
            error.with_completed(&self.completed)
        })
    }

    fn check_not_failed(&self) -> Result<(), StreamError> {
        match &self.failure {
            Some(error) => Err(error.clone()),
            None => Ok(()),
        }
    }

    fn events(&mut self, events: Vec<SseEvent>) -> Result<Vec<ToolCall>, StreamError> {
        let before = self.completed.len();
        let mut result = Ok(());
        for event in events {
            result = self.sse_event(&event);
            if result.is_err() {
                break;
            }
        }
        self.outcome(before, result)
    }

    fn sse_event(&mut self, event: &SseEvent) -> Result<(), StreamError> {
        if self.done {
            return Err(StreamError::new(
                P::PROVIDER,
                StreamErrorKind::AfterEnd,
                format!(
                    "an event arrived after `data: [DONE]`: {}",
                    snippet(&event.data)
                ),
            ));
        }
        if event.data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let value: Value = serde_json::from_str(&event.data).map_err(|error| {
            StreamError::new(
                P::PROVIDER,
                StreamErrorKind::MalformedEvent,
                format!(
                    "an event's data is not JSON ({error}), so the stream is cut or corrupt: {}",
                    snippet(&event.data)
                ),
            )
        })?;
        self.event(&value, event.name.as_deref())
    }

    fn event(&mut self, value: &Value, sse_name: Option<&str>) -> Result<(), StreamError> {
        if self.done {
            return Err(StreamError::new(
                P::PROVIDER,
                StreamErrorKind::AfterEnd,
                "an event arrived after `data: [DONE]`",
            ));
        }
        // The SSE event name and the JSON `type` say the same thing where both exist;
        // when they differ, something between the API and here mixed events up.
        if let (Some(name), Some(kind)) = (sse_name, value.get("type").and_then(Value::as_str))
            && name != kind
        {
            return Err(StreamError::new(
                P::PROVIDER,
                StreamErrorKind::MalformedEvent,
                format!("an SSE event named `{name}` holds data of type `{kind}`"),
            ));
        }
        self.protocol.event(value, &mut self.completed)
    }

    /// The calls completed since `before`, or the error (remembered, with the completed
    /// calls attached).
    fn outcome(
        &mut self,
        before: usize,
        result: Result<(), StreamError>,
    ) -> Result<Vec<ToolCall>, StreamError> {
        match result {
            Ok(()) => Ok(self.completed[before..].to_vec()),
            Err(error) => {
                let error = error.with_completed(&self.completed);
                self.failure = Some(error.clone());
                Err(error)
            }
        }
    }
}
