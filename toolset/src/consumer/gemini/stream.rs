//! Google Gemini streams (`streamGenerateContent?alt=sse`): each event is a whole
//! `GenerateContentResponse` chunk whose candidate carries whole `functionCall` parts,
//! until a chunk carries the candidate's `finishReason`.

use super::calls::CallIds;
use crate::stream::assemble::*;
use serde_json::json;
use std::collections::{HashMap, HashSet};

const PROVIDER: Format = Format::Gemini;
const CHUNK: &str = "GenerateContentResponse";

/// The Gemini stream (`streamGenerateContent?alt=sse`): use it as
/// [`CallStream<Gemini>`](crate::stream::CallStream).
///
/// Reads the first candidate (`index` 0) of each chunk, as [`ToolCall::from_gemini`]
/// reads `candidates[0]`. Every `functionCall` part arrives whole, so each is a complete
/// call at once, with its arguments serialized as the non-streamed parser does and its id
/// given or synthesized by the same rule (`call_<h>_<n>`, `h` from the calls so far),
/// followed call by call, so a call costs the same however many came before. The stop
/// event is the candidate's `finishReason` (a blocked prompt, `promptFeedback.blockReason`,
/// ends the stream with no calls, as it has none non-streamed). Arguments streamed in pieces (`partialArgs`, a
/// Vertex AI option) are refused rather than read as a shorter call.
#[derive(Debug, Default)]
pub struct Gemini {
    /// The ids of the calls so far, by the non-streamed parser's rule.
    ids: CallIds,
    /// The ids the response gave its calls so far.
    given: HashSet<String>,
    /// The ids this stream synthesized, with the name of the call each went to: a later
    /// call giving one of them would make the non-streamed parser re-number that call.
    synthesized: HashMap<String, String>,
    /// The calls handed out, in order.
    handed_out: Vec<ToolCall>,
    finish_reason: Option<String>,
    chunks: usize,
}

impl Sealed for Gemini {}

impl Protocol for Gemini {
    const PROVIDER: Format = PROVIDER;

    fn event(&mut self, event: &Value, completed: &mut Vec<ToolCall>) -> Result<(), StreamError> {
        if let Some(error) = api_error(PROVIDER, event) {
            return Err(error);
        }
        if !event.is_object() {
            return Err(malformed(PROVIDER, CHUNK, "chunk is not an object"));
        }
        self.chunks += 1;
        let chunk = self.chunks;
        let candidates = match event.get("candidates") {
            None | Some(Value::Null) => {
                if let Some(reason) = event
                    .pointer("/promptFeedback/blockReason")
                    .and_then(Value::as_str)
                {
                    self.finish_reason = Some(format!("blocked prompt ({reason})"));
                }
                return Ok(());
            }
            Some(Value::Array(candidates)) => candidates,
            Some(_) => {
                return Err(malformed(
                    PROVIDER,
                    CHUNK,
                    "has `candidates` that is not an array",
                ));
            }
        };
        let Some(candidate) = candidates
            .iter()
            .find(|candidate| candidate.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
        else {
            return Ok(());
        };
        let parts = match candidate.pointer("/content/parts") {
            None | Some(Value::Null) => &[][..],
            Some(Value::Array(parts)) => parts.as_slice(),
            Some(_) => {
                return Err(malformed(
                    PROVIDER,
                    CHUNK,
                    "has `content.parts` that is not an array",
                ));
            }
        };
        for (part_index, part) in parts.iter().enumerate() {
            if part.get("functionCall").is_some_and(|call| !call.is_null()) {
                self.function_call(part, chunk, part_index, completed)?;
            }
        }
        match candidate.get("finishReason") {
            None | Some(Value::Null) => {}
            Some(Value::String(reason)) => self.finish_reason = Some(reason.clone()),
            Some(_) => {
                return Err(malformed(
                    PROVIDER,
                    CHUNK,
                    "has a `finishReason` that is not a string",
                ));
            }
        }
        Ok(())
    }

    fn program(&mut self) -> Result<Vec<ToolCall>, StreamError> {
        if self.finish_reason.is_none() {
            return Err(StreamError::new(
                PROVIDER,
                StreamErrorKind::MissingStop,
                format!(
                    "the stream ended without the candidate's `finishReason` after {} call(s), so more calls may have been on their way; retry the request",
                    self.handed_out.len()
                ),
            ));
        }
        Ok(self.handed_out.clone())
    }
}

impl Gemini {
    fn function_call(
        &mut self,
        part: &Value,
        chunk: usize,
        part_index: usize,
        completed: &mut Vec<ToolCall>,
    ) -> Result<(), StreamError> {
        let position = self.handed_out.len();
        let call = &part["functionCall"];
        let partial = || PartialCall {
            position,
            id: call.get("id").and_then(Value::as_str).map(str::to_owned),
            name: call.get("name").and_then(Value::as_str).map(str::to_owned),
            arguments: call.get("args").map(Value::to_string).unwrap_or_default(),
        };
        if let Some(reason) = &self.finish_reason {
            return Err(StreamError::about(
                PROVIDER,
                StreamErrorKind::AfterEnd,
                vec![partial()],
                format!("a function call arrived after the candidate's finishReason `{reason}`"),
            ));
        }
        if call.get("partialArgs").is_some()
            || call.get("willContinue").is_some_and(|more| more == true)
        {
            return Err(StreamError::about(
                PROVIDER,
                StreamErrorKind::MalformedEvent,
                vec![partial()],
                "the call's arguments are streamed in pieces (`partialArgs`), which this stream does not assemble; turn off `streamFunctionCallArguments`",
            ));
        }
        // The part alone must read as a call: the non-streamed parser's checks, with its
        // message, placed at the chunk and part it came from.
        let mut alone =
            ToolCall::from_gemini(&json!({"role": "model", "parts": [part]})).map_err(|error| {
                StreamError::about(
                    PROVIDER,
                    StreamErrorKind::MalformedEvent,
                    vec![partial()],
                    format!(
                        "chunk {chunk}, candidate part {part_index}: {} {}",
                        error.path().replacen("parts[0].", "", 1),
                        error.problem()
                    ),
                )
            })?;
        let Some(alone) = alone.pop() else {
            return Err(StreamError::about(
                PROVIDER,
                StreamErrorKind::MalformedEvent,
                vec![partial()],
                format!("chunk {chunk}, candidate part {part_index} did not read as a call"),
            ));
        };
        let given = call.get("id").and_then(Value::as_str);
        if let Some(id) = given {
            if let Some(earlier) = self.synthesized.get(id) {
                return Err(StreamError::about(
                    PROVIDER,
                    StreamErrorKind::Inconsistent,
                    vec![partial()],
                    format!(
                        "the call carries the id {id}, which this stream had already given to the id-less call {earlier} before it; two calls cannot share an id"
                    ),
                ));
            }
            self.given.insert(id.to_owned());
        }
        let given_ids = &self.given;
        let id = self
            .ids
            .next(given, &alone.name, &alone.arguments.text(), |id| {
                given_ids.contains(id)
            });
        if given.is_none() {
            self.synthesized.insert(id.clone(), alone.name.clone());
        }
        let new = ToolCall::new(id, alone.name, alone.arguments);
        self.handed_out.push(new.clone());
        completed.push(new);
        Ok(())
    }
}
