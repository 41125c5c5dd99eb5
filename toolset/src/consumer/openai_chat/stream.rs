//! OpenAI Chat Completions streams: `chat.completion.chunk` objects whose
//! `choices[0].delta.tool_calls[]` fragments build each call by `index`, until the
//! choice's `finish_reason`.

use crate::stream::assemble::*;
use std::collections::{BTreeMap, BTreeSet};

const PROVIDER: Format = Format::OpenAiChat;
const CHUNK: &str = "chat.completion.chunk";

/// The OpenAI Chat Completions stream (`"stream": true`): use it as
/// [`CallStream<OpenAiChat>`](crate::stream::CallStream).
///
/// Reads the first choice (`index` 0) of each chunk; other choices (`n` > 1) are not
/// the message [`ToolCall::from_openai_chat`] reads, and are skipped. The first fragment
/// of a call carries its `id`, `type` and `function.name`; later ones carry `index` and a
/// piece of `function.arguments`. A call is complete when its arguments form a JSON
/// object and a fragment of another call arrives, or at the `finish_reason` (then empty
/// arguments count as none, as the gate reads them). Whether the arguments are a whole
/// object is followed fragment by fragment, so a fragment costs work in proportion to its
/// own length, however long its call or the others have grown.
/// The stop event is `finish_reason`; `data: [DONE]` may follow it. A `finish_reason` of
/// `length` or `content_filter` in the middle of a call is a
/// [`Truncated`](StreamErrorKind::Truncated) error.
#[derive(Debug, Default)]
pub struct OpenAiChat {
    calls: BTreeMap<usize, Call>,
    /// The calls not yet complete whose arguments are a whole object and whose name is
    /// known: complete as soon as a fragment of another call arrives.
    whole: BTreeSet<usize>,
    finish_reason: Option<String>,
    /// How many bytes of argument text were parsed at the finish, to test that the work
    /// stays proportional to what was fed.
    #[cfg(test)]
    examined: usize,
}

impl Sealed for OpenAiChat {}

#[derive(Debug)]
struct Call {
    id: String,
    name: String,
    arguments: String,
    /// Whether `arguments` is a whole JSON object so far.
    scan: ObjectScan,
    complete: bool,
}

impl Call {
    fn partial(&self, index: usize) -> PartialCall {
        PartialCall {
            position: index,
            id: Some(self.id.clone()),
            name: (!self.name.is_empty()).then(|| self.name.clone()),
            arguments: self.arguments.clone(),
        }
    }
}

impl Protocol for OpenAiChat {
    const PROVIDER: Format = PROVIDER;

    fn event(&mut self, event: &Value, completed: &mut Vec<ToolCall>) -> Result<(), StreamError> {
        if let Some(error) = api_error(PROVIDER, event) {
            return Err(error);
        }
        let choices = event
            .get("choices")
            .and_then(Value::as_array)
            .ok_or_else(|| malformed(PROVIDER, CHUNK, "has no `choices` array"))?;
        for choice in choices {
            let index = choice.get("index").and_then(Value::as_u64).unwrap_or(0);
            if index == 0 {
                self.choice(choice, completed)?;
            }
        }
        Ok(())
    }

    fn program(&mut self) -> Result<Vec<ToolCall>, StreamError> {
        if self.finish_reason.is_none() {
            let open: Vec<PartialCall> = self
                .calls
                .iter()
                .filter(|(_, call)| !call.complete)
                .map(|(index, call)| call.partial(*index))
                .collect();
            if open.is_empty() {
                return Err(StreamError::new(
                    PROVIDER,
                    StreamErrorKind::MissingStop,
                    "the stream ended without a `finish_reason`, so more calls may have been on their way; retry the request",
                ));
            }
            return Err(StreamError::about(
                PROVIDER,
                StreamErrorKind::Truncated,
                open,
                "the stream ended before `finish_reason`, in the middle of the call; retry the request",
            ));
        }
        Ok(self
            .calls
            .values()
            .map(|call| ToolCall::new(&call.id, &call.name, &call.arguments))
            .collect())
    }
}

impl OpenAiChat {
    /// How many bytes of argument text the stream has examined.
    #[cfg(test)]
    fn examined(&self) -> usize {
        self.examined
            + self
                .calls
                .values()
                .map(|call| call.scan.examined)
                .sum::<usize>()
    }

    fn choice(&mut self, choice: &Value, completed: &mut Vec<ToolCall>) -> Result<(), StreamError> {
        let delta = choice.get("delta").filter(|delta| !delta.is_null());
        if let Some(delta) = delta {
            if !delta.is_object() {
                return Err(malformed(
                    PROVIDER,
                    CHUNK,
                    "has a `delta` that is not an object",
                ));
            }
            if delta
                .get("function_call")
                .is_some_and(|legacy| !legacy.is_null())
            {
                return Err(StreamError::new(
                    PROVIDER,
                    StreamErrorKind::MalformedEvent,
                    "the delta uses the deprecated `function_call` field, which has no call ids; send `tools` in the request instead",
                ));
            }
            match delta.get("tool_calls") {
                None | Some(Value::Null) => {}
                Some(Value::Array(fragments)) => {
                    for fragment in fragments {
                        self.fragment(fragment, completed)?;
                    }
                }
                Some(_) => {
                    return Err(malformed(
                        PROVIDER,
                        CHUNK,
                        "has `tool_calls` that is not an array",
                    ));
                }
            }
        }
        match choice.get("finish_reason") {
            None | Some(Value::Null) => Ok(()),
            Some(Value::String(reason)) => self.finished(reason, completed),
            Some(_) => Err(malformed(
                PROVIDER,
                CHUNK,
                "has a `finish_reason` that is not a string",
            )),
        }
    }

    fn fragment(
        &mut self,
        fragment: &Value,
        completed: &mut Vec<ToolCall>,
    ) -> Result<(), StreamError> {
        let index = required_index(PROVIDER, CHUNK, fragment, "index").map_err(|_| {
            malformed(
                PROVIDER,
                CHUNK,
                "has a tool call fragment without an integer `index`",
            )
        })?;
        let id = optional_str(fragment, "id", index)?;
        let function = fragment
            .get("function")
            .filter(|function| !function.is_null());
        if function.is_some_and(|function| !function.is_object()) {
            return Err(malformed(
                PROVIDER,
                CHUNK,
                &format!("has a `function` that is not an object at tool call index {index}"),
            ));
        }
        let name = match function {
            Some(function) => optional_str(function, "name", index)?,
            None => None,
        };
        let arguments = match function {
            Some(function) => optional_str(function, "arguments", index)?,
            None => None,
        };
        if let Some(kind) = optional_str(fragment, "type", index)?
            && kind != "function"
        {
            return Err(StreamError::about(
                PROVIDER,
                StreamErrorKind::MalformedEvent,
                vec![PartialCall::seen(index, id, name, "")],
                format!(
                    "the call's type is {kind:?}; only \"function\" tool calls can be run as tools"
                ),
            ));
        }
        if let Some(reason) = &self.finish_reason {
            return Err(StreamError::about(
                PROVIDER,
                StreamErrorKind::AfterEnd,
                vec![PartialCall::seen(
                    index,
                    id,
                    name,
                    arguments.unwrap_or_default(),
                )],
                format!("a fragment arrived after the choice's finish_reason `{reason}`"),
            ));
        }

        // The stream moved on to this call: the others whose arguments are whole are done.
        self.complete_others(index, completed);

        match self.calls.get_mut(&index) {
            None => {
                let Some(id) = id else {
                    return Err(StreamError::about(
                        PROVIDER,
                        StreamErrorKind::UnknownCall,
                        vec![PartialCall::seen(
                            index,
                            None,
                            name,
                            arguments.unwrap_or_default(),
                        )],
                        "a fragment arrived for an index no call was started at (a call's first fragment carries its `id`)",
                    ));
                };
                let mut call = Call {
                    id: id.to_owned(),
                    name: name.unwrap_or_default().to_owned(),
                    arguments: String::new(),
                    scan: ObjectScan::default(),
                    complete: false,
                };
                call.scan
                    .push(&mut call.arguments, arguments.unwrap_or_default());
                if call.scan.is_whole() && !call.name.is_empty() {
                    self.whole.insert(index);
                }
                self.calls.insert(index, call);
            }
            Some(call) => {
                if call.complete {
                    return Err(StreamError::about(
                        PROVIDER,
                        StreamErrorKind::AfterComplete,
                        vec![call.partial(index)],
                        format!(
                            "more arguments ({}) arrived after the call was complete and handed out",
                            snippet(arguments.unwrap_or_default())
                        ),
                    ));
                }
                // Some servers repeat the id or name on every fragment; a different one is
                // another call claiming the same index.
                let other_id = id.filter(|id| *id != call.id);
                let other_name = name
                    .filter(|name| !name.is_empty() && !call.name.is_empty() && *name != call.name);
                if other_id.is_some() || other_name.is_some() {
                    let what = match (other_id, other_name) {
                        (Some(id), _) => format!("id {id}"),
                        (None, Some(name)) => format!("name {name}"),
                        (None, None) => String::new(),
                    };
                    return Err(StreamError::about(
                        PROVIDER,
                        StreamErrorKind::DuplicateStart,
                        vec![call.partial(index)],
                        format!("a second call ({what}) was started at the same index"),
                    ));
                }
                if call.name.is_empty()
                    && let Some(name) = name
                {
                    call.name = name.to_owned();
                }
                call.scan
                    .push(&mut call.arguments, arguments.unwrap_or_default());
                if call.scan.is_whole() && !call.name.is_empty() {
                    self.whole.insert(index);
                } else {
                    self.whole.remove(&index);
                }
            }
        }
        Ok(())
    }

    /// The stream moved on to the call at `current`: every other call whose arguments are
    /// a whole object is complete, in index order. Only those calls are looked at, so the
    /// cost grows neither with the number of calls nor with their text.
    fn complete_others(&mut self, current: usize, completed: &mut Vec<ToolCall>) {
        // Empty arguments are whole only at finish_reason: here they may be about to
        // begin (interleaved calls), and `whole` never holds them.
        let current_is_whole = self.whole.remove(&current);
        for index in std::mem::take(&mut self.whole) {
            if let Some(call) = self.calls.get_mut(&index) {
                call.complete = true;
                completed.push(ToolCall::new(&call.id, &call.name, &call.arguments));
            }
        }
        if current_is_whole {
            self.whole.insert(current);
        }
    }

    fn finished(&mut self, reason: &str, completed: &mut Vec<ToolCall>) -> Result<(), StreamError> {
        if let Some(earlier) = &self.finish_reason {
            return Err(StreamError::new(
                PROVIDER,
                StreamErrorKind::AfterEnd,
                format!("a second finish_reason `{reason}` arrived after `{earlier}`"),
            ));
        }
        self.finish_reason = Some(reason.to_owned());
        self.whole.clear();
        for (index, call) in self.calls.iter_mut() {
            if call.complete {
                continue;
            }
            #[cfg(test)]
            {
                self.examined += call.arguments.len();
            }
            if call.name.is_empty() {
                return Err(StreamError::about(
                    PROVIDER,
                    StreamErrorKind::MalformedEvent,
                    vec![call.partial(*index)],
                    "the call never received its `function.name`",
                ));
            }
            // Cut off by a limit, only a whole object is sure to be all the model meant.
            let cut_off = matches!(reason, "length" | "content_filter");
            if cut_off && !call.scan.is_whole() {
                let why = if reason == "length" {
                    "the response hit its token limit (finish_reason `length`) in the middle of the call's arguments; raise `max_completion_tokens` and retry"
                } else {
                    "the content filter stopped the response (finish_reason `content_filter`) in the middle of the call's arguments"
                };
                return Err(StreamError::about(
                    PROVIDER,
                    StreamErrorKind::Truncated,
                    vec![call.partial(*index)],
                    why,
                ));
            }
            if !call.arguments.trim().is_empty()
                && serde_json::from_str::<Value>(&call.arguments).is_err()
            {
                return Err(StreamError::about(
                    PROVIDER,
                    StreamErrorKind::MalformedArguments,
                    vec![call.partial(*index)],
                    format!(
                        "at finish_reason `{reason}` the arguments are not JSON: {}",
                        snippet(&call.arguments)
                    ),
                ));
            }
            call.complete = true;
            completed.push(ToolCall::new(&call.id, &call.name, &call.arguments));
        }
        Ok(())
    }
}

/// The string member `key`, if present and not null; another type is an error naming the
/// tool call index.
fn optional_str<'a>(
    value: &'a Value,
    key: &str,
    index: usize,
) -> Result<Option<&'a str>, StreamError> {
    match value.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(_) => Err(malformed(
            PROVIDER,
            CHUNK,
            &format!("has a `{key}` that is not a string at tool call index {index}"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn start(index: usize, id: &str, name: &str) -> Value {
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}
        ]}}]})
    }

    fn arguments(index: usize, fragment: &str) -> Value {
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": index, "function": {"arguments": fragment}}
        ]}}]})
    }

    /// 20,000 fragments of 50 bytes, alternating between two calls whose arguments grow to
    /// 500 kB each: every fragment makes the stream look again at the other call, so the
    /// work must not depend on how long that call has grown.
    #[test]
    fn interleaved_fragments_cost_work_proportional_to_the_bytes_fed_not_to_their_square() {
        const FRAGMENTS: usize = 20_000;
        let mut stream = OpenAiChat::default();
        let mut completed = Vec::new();
        for (index, id) in [(0, "call_a"), (1, "call_b")] {
            stream
                .event(&start(index, id, "search"), &mut completed)
                .expect("a start");
        }
        // Each call: `{"query":"` then 50-byte pieces of text, then `"}`.
        let piece = "x".repeat(50);
        let mut fed = 0;
        for index in [0, 1] {
            stream
                .event(&arguments(index, r#"{"query":""#), &mut completed)
                .expect("a fragment");
            fed += 10;
        }
        for fragment in 0..FRAGMENTS {
            stream
                .event(&arguments(fragment % 2, &piece), &mut completed)
                .expect("a fragment");
            fed += piece.len();
        }
        for index in [0, 1] {
            stream
                .event(&arguments(index, r#""}"#), &mut completed)
                .expect("a fragment");
            fed += 2;
        }
        assert_eq!(completed.len(), 1, "call_a is whole and call_b moved on");
        stream
            .event(
                &json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
                &mut completed,
            )
            .expect("the finish");
        let program = stream.program().expect("a whole program");
        assert_eq!(program.len(), 2);
        assert_eq!(
            program[1].arguments.text().len(),
            10 + 50 * FRAGMENTS / 2 + 2
        );
        assert!(
            stream.examined() <= 4 * fed,
            "{} bytes examined for {fed} bytes fed",
            stream.examined()
        );
    }
}
