//! Anthropic Messages streams: `content_block_start` opens a `tool_use` block,
//! `input_json_delta` fragments write its input, `content_block_stop` closes it, and
//! `message_stop` ends the message.

use crate::stream::assemble::*;
use serde_json::json;
use std::collections::BTreeMap;

const PROVIDER: Format = Format::Anthropic;

/// The Anthropic Messages stream (`"stream": true`): use it as
/// [`CallStream<Anthropic>`](crate::stream::CallStream).
///
/// Every content block is tracked by its `index`; `tool_use` blocks become calls with
/// their `id`, `name` and `caller` (who made the call: the model, or its code), as in
/// [`ToolCall::from_anthropic`]. A call is complete at its
/// `content_block_stop`: the `partial_json` fragments, joined, must form a JSON object,
/// which becomes the arguments in the same compact serialization the non-streamed parser
/// gives; no fragments (or only empty ones) means the block's initial `input`, `{}`. The
/// stop event is `message_stop`; an `error` event is an [`Api`](StreamErrorKind::Api)
/// error. Other blocks (text, thinking, server tools) are tracked, not turned into
/// calls, as the non-streamed parser skips them; unknown event types are skipped, as
/// Anthropic asks. The hosted tool search's `tool_search_tool_result` blocks (whole in
/// their `content_block_start`) are kept, once stopped, for
/// [`CallStream::hosted_search`](crate::stream::CallStream::hosted_search).
#[derive(Debug, Default)]
pub struct Anthropic {
    blocks: BTreeMap<usize, Block>,
    /// The stopped `tool_search_tool_result` blocks, by index.
    hosted: BTreeMap<usize, Value>,
    stop_reason: Option<String>,
    stopped: bool,
}

impl Sealed for Anthropic {}

#[derive(Debug)]
struct Block {
    /// The `tool_use` call, or `None` for another kind of block.
    call: Option<Call>,
    kind: String,
    /// A hosted tool search result block as it started: it arrives whole.
    search_result: Option<Value>,
    stopped: bool,
}

#[derive(Debug)]
struct Call {
    id: String,
    name: String,
    /// The `input` of `content_block_start`: the arguments when no fragment follows.
    initial: Value,
    json: String,
    /// The block's `caller` as `content_block_start` gave it (who made the call), read by
    /// the non-streamed parser when the block closes.
    caller: Option<Value>,
}

impl Call {
    fn partial(&self, index: usize) -> PartialCall {
        PartialCall {
            position: index,
            id: Some(self.id.clone()),
            name: Some(self.name.clone()),
            arguments: self.json.clone(),
        }
    }
}

impl Protocol for Anthropic {
    const PROVIDER: Format = PROVIDER;

    fn event(&mut self, event: &Value, completed: &mut Vec<ToolCall>) -> Result<(), StreamError> {
        let kind = event_type(PROVIDER, event)?;
        if self.stopped && kind != "ping" {
            return Err(after_stop(PROVIDER, kind, "message_stop"));
        }
        match kind {
            "content_block_start" => self.block_start(event),
            "content_block_delta" => self.block_delta(event),
            "content_block_stop" => self.block_stop(event, completed),
            "message_delta" => {
                if let Some(reason) = event.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(reason.to_owned());
                }
                Ok(())
            }
            "message_stop" => self.message_stop(),
            // message_start, ping, and event types added later.
            _ => Ok(()),
        }
    }

    fn program(&mut self) -> Result<Vec<ToolCall>, StreamError> {
        if !self.stopped {
            return Err(ended_early(
                PROVIDER,
                self.open_calls(),
                "the stream ended without `message_stop`, so more blocks may have been on their way; retry the request",
                "the stream ended before the block's `content_block_stop`, in the middle of the call; retry the request",
            ));
        }
        let mut calls = Vec::new();
        for (index, block) in &self.blocks {
            if let Some(call) = &block.call {
                calls.push(tool_call(*index, call)?);
            }
        }
        Ok(calls)
    }

    fn hosted_search(&self) -> Vec<Value> {
        self.hosted.values().cloned().collect()
    }
}

impl Anthropic {
    fn open_calls(&self) -> Vec<PartialCall> {
        self.blocks
            .iter()
            .filter(|(_, block)| !block.stopped)
            .filter_map(|(index, block)| block.call.as_ref().map(|call| call.partial(*index)))
            .collect()
    }

    fn block_start(&mut self, event: &Value) -> Result<(), StreamError> {
        const KIND: &str = "content_block_start";
        let index = required_index(PROVIDER, KIND, event, "index")?;
        let block = required_object(PROVIDER, KIND, event, "content_block")?;
        let block_kind = required_str(PROVIDER, KIND, block, "type")?;
        let call = if block_kind == "tool_use" {
            let initial = match block.get("input") {
                None | Some(Value::Null) => json!({}),
                Some(input @ Value::Object(_)) => input.clone(),
                Some(_) => {
                    return Err(malformed(
                        PROVIDER,
                        KIND,
                        "has a tool_use `input` that is not an object",
                    ));
                }
            };
            Some(Call {
                id: required_str(PROVIDER, KIND, block, "id")?.to_owned(),
                name: required_str(PROVIDER, KIND, block, "name")?.to_owned(),
                initial,
                json: String::new(),
                caller: block.get("caller").cloned(),
            })
        } else {
            None
        };
        if let Some(existing) = self.blocks.get(&index) {
            return Err(StreamError::about(
                PROVIDER,
                StreamErrorKind::DuplicateStart,
                existing
                    .call
                    .iter()
                    .map(|call| call.partial(index))
                    .collect(),
                format!(
                    "a second content block (a `{block_kind}`) was started at index {index}, where a `{}` block already is",
                    existing.kind
                ),
            ));
        }
        self.blocks.insert(
            index,
            Block {
                call,
                kind: block_kind.to_owned(),
                // What record_hosted reads in a non-streamed message.
                search_result: (block_kind == "tool_search_tool_result").then(|| block.clone()),
                stopped: false,
            },
        );
        Ok(())
    }

    /// The started block an event is for.
    fn block_for(&mut self, event: &Value, kind: &str) -> Result<(usize, &mut Block), StreamError> {
        let index = required_index(PROVIDER, kind, event, "index")?;
        match self.blocks.get_mut(&index) {
            Some(block) => Ok((index, block)),
            None => Err(StreamError::about(
                PROVIDER,
                StreamErrorKind::UnknownCall,
                vec![PartialCall::seen(index, None, None, "")],
                format!("a `{kind}` event arrived for a content block that was never started"),
            )),
        }
    }

    fn block_delta(&mut self, event: &Value) -> Result<(), StreamError> {
        const KIND: &str = "content_block_delta";
        let (index, block) = self.block_for(event, KIND)?;
        let delta = event
            .get("delta")
            .filter(|delta| delta.is_object())
            .ok_or_else(|| malformed(PROVIDER, KIND, "has no `delta` object"))?;
        let delta_kind = delta
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("untyped");
        let Some(call) = &mut block.call else {
            return Ok(());
        };
        if block.stopped {
            return Err(StreamError::about(
                PROVIDER,
                StreamErrorKind::AfterComplete,
                vec![call.partial(index)],
                "a delta arrived after the block's `content_block_stop`",
            ));
        }
        if delta_kind != "input_json_delta" {
            return Err(StreamError::about(
                PROVIDER,
                StreamErrorKind::MalformedEvent,
                vec![call.partial(index)],
                format!(
                    "a `{delta_kind}` delta arrived for a tool_use block (expected `input_json_delta`)"
                ),
            ));
        }
        let fragment = match delta.get("partial_json") {
            None | Some(Value::Null) => "",
            Some(Value::String(fragment)) => fragment,
            Some(_) => {
                return Err(StreamError::about(
                    PROVIDER,
                    StreamErrorKind::MalformedEvent,
                    vec![call.partial(index)],
                    "an `input_json_delta` has a `partial_json` that is not a string",
                ));
            }
        };
        call.json.push_str(fragment);
        Ok(())
    }

    fn block_stop(
        &mut self,
        event: &Value,
        completed: &mut Vec<ToolCall>,
    ) -> Result<(), StreamError> {
        const KIND: &str = "content_block_stop";
        let (index, block) = self.block_for(event, KIND)?;
        if block.stopped {
            return Err(StreamError::about(
                PROVIDER,
                StreamErrorKind::AfterComplete,
                block.call.iter().map(|call| call.partial(index)).collect(),
                "a second `content_block_stop` arrived for the block",
            ));
        }
        block.stopped = true;
        let search_result = block.search_result.take();
        let call = match &block.call {
            Some(call) => Some(tool_call(index, call)?),
            None => None,
        };
        if let Some(result) = search_result {
            self.hosted.insert(index, result);
        }
        completed.extend(call);
        Ok(())
    }

    fn message_stop(&mut self) -> Result<(), StreamError> {
        self.stopped = true;
        let open = self.open_calls();
        if open.is_empty() {
            return Ok(());
        }
        let problem = match &self.stop_reason {
            Some(reason) if reason == "max_tokens" => {
                "the message stopped at `max_tokens` before the block's `content_block_stop`; raise `max_tokens` and retry".to_owned()
            }
            Some(reason) => format!("the message stopped (`{reason}`) before the block's `content_block_stop`"),
            None => "`message_stop` arrived before the block's `content_block_stop`".to_owned(),
        };
        Err(StreamError::about(
            PROVIDER,
            StreamErrorKind::Truncated,
            open,
            problem,
        ))
    }
}

/// The call of a closed `tool_use` block. Its input goes through the non-streamed
/// parser, so the two can never disagree on how arguments are serialized.
fn tool_call(index: usize, call: &Call) -> Result<ToolCall, StreamError> {
    let input = if call.json.trim().is_empty() {
        call.initial.clone()
    } else {
        match serde_json::from_str::<Value>(&call.json) {
            Ok(input @ Value::Object(_)) => input,
            Ok(other) => {
                return Err(StreamError::about(
                    PROVIDER,
                    StreamErrorKind::MalformedArguments,
                    vec![call.partial(index)],
                    format!(
                        "the input is {}, not a JSON object: {}",
                        json_kind(&other),
                        snippet(&call.json)
                    ),
                ));
            }
            Err(error) => {
                return Err(StreamError::about(
                    PROVIDER,
                    StreamErrorKind::MalformedArguments,
                    vec![call.partial(index)],
                    format!(
                        "the input fragments do not form JSON ({error}); if the message stopped at `max_tokens`, raise it and retry: {}",
                        snippet(&call.json)
                    ),
                ));
            }
        }
    };
    let mut block = json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input});
    if let (Some(caller), Some(fields)) = (&call.caller, block.as_object_mut()) {
        fields.insert("caller".to_owned(), caller.clone());
    }
    let message = json!({ "content": [block] });
    let mut calls = ToolCall::from_anthropic(&message).map_err(|error| {
        StreamError::about(
            PROVIDER,
            StreamErrorKind::MalformedEvent,
            vec![call.partial(index)],
            error.to_string(),
        )
    })?;
    calls.pop().ok_or_else(|| {
        StreamError::about(
            PROVIDER,
            StreamErrorKind::MalformedEvent,
            vec![call.partial(index)],
            "the block did not read as a tool_use call",
        )
    })
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
