//! OpenAI Responses streams: typed events per output item; a `function_call` item is
//! announced by `response.output_item.added`, filled by
//! `response.function_call_arguments.delta`, closed by `.done` and
//! `response.output_item.done`, and the response ends with `response.completed`. Items
//! without events of their own (a `tool_search_call`, a `tool_search_output`) come
//! whole in their `response.output_item.done`.

use super::calls::{executed_by_client, item_caller};
use super::namespace::local_name;
use crate::call::Caller;
use crate::search::SEARCH_TOOL_NAME;
use crate::stream::assemble::*;
use std::collections::BTreeMap;

const PROVIDER: Format = Format::OpenAiResponses;

/// The OpenAI Responses stream (`"stream": true`): use it as
/// [`CallStream<OpenAiResponses>`](crate::stream::CallStream).
///
/// Every output item is tracked by its `output_index`; the items
/// [`ToolCall::from_openai_responses`] reads become the same calls: `function_call`
/// items, with the item's `call_id` as the id (and, for one carrying a `namespace`, the
/// local name `namespace_name`) and its `caller` (the model, or its program) as the added
/// item gave it, and client-executed `tool_search_call`
/// items, as calls of the search tool (`tool_search`). A function call is complete at
/// `response.function_call_arguments.done` or `response.output_item.done`, whichever
/// comes first, and the other must agree with it; a tool search call at its
/// `response.output_item.done`, whose item is read by the non-streamed parser itself.
/// The stop event is `response.completed` (or `response.incomplete`: a call it cuts is a
/// [`Truncated`](StreamErrorKind::Truncated) error); `response.failed` and `error`
/// events are [`Api`](StreamErrorKind::Api) errors. Events of other items (text,
/// reasoning, built-in tools, the hosted search) are skipped, as the non-streamed parser
/// skips those items; the hosted search's `tool_search_output` items are kept for
/// [`CallStream::hosted_search`](crate::stream::CallStream::hosted_search).
#[derive(Debug, Default)]
pub struct OpenAiResponses {
    items: BTreeMap<usize, Item>,
    /// The finished `tool_search_output` items, by output index.
    hosted: BTreeMap<usize, Value>,
    stop: Option<String>,
}

impl Sealed for OpenAiResponses {}

#[derive(Debug)]
enum Item {
    Call(Call),
    /// A `tool_search_call`: a call of the search tool when the client executes it.
    Search(Search),
    /// Any other item type; its events are not calls.
    Other {
        kind: String,
    },
}

#[derive(Debug)]
struct Search {
    /// The `call_id` the added item announced, if any.
    call_id: Option<String>,
    /// Whether the added item says the client executes it: a call the host answers.
    client: bool,
    /// The finished item's call (none for a search the API runs itself), once finished.
    done: Option<Option<ToolCall>>,
}

impl Search {
    fn partial(&self, index: usize) -> PartialCall {
        PartialCall::seen(index, self.call_id.as_deref(), Some(SEARCH_TOOL_NAME), "")
    }
}

#[derive(Debug)]
struct Call {
    item_id: Option<String>,
    call_id: String,
    name: String,
    arguments: String,
    complete: bool,
    /// Who made the call, from the added item's `caller`.
    caller: Caller,
}

impl Call {
    fn partial(&self, index: usize) -> PartialCall {
        PartialCall {
            position: index,
            id: Some(self.call_id.clone()),
            name: Some(self.name.clone()),
            arguments: self.arguments.clone(),
        }
    }

    fn call(&self) -> ToolCall {
        ToolCall::new(&self.call_id, &self.name, &self.arguments).with_caller(self.caller.clone())
    }
}

/// The `namespace` a `function_call` item carries (absent or null: none), read as
/// `calls.rs` reads it: the call is named `namespace_name`, the tool's local name.
fn namespace<'a>(kind: &str, item: &'a Value) -> Result<Option<&'a str>, StreamError> {
    match item.get("namespace") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(namespace)) => Ok(Some(namespace)),
        Some(_) => Err(malformed(
            PROVIDER,
            kind,
            "has an item whose `namespace` is not a string (nor null)",
        )),
    }
}

impl Protocol for OpenAiResponses {
    const PROVIDER: Format = PROVIDER;

    fn event(&mut self, event: &Value, completed: &mut Vec<ToolCall>) -> Result<(), StreamError> {
        let kind = event_type(PROVIDER, event)?;
        if kind == "error" {
            return Err(error_event(event));
        }
        if let Some(stop) = &self.stop {
            return Err(after_stop(PROVIDER, kind, stop));
        }
        match kind {
            "response.output_item.added" => self.item_added(event),
            "response.function_call_arguments.delta" => self.arguments_delta(event),
            "response.function_call_arguments.done" => self.arguments_done(event, completed),
            "response.output_item.done" => self.item_done(event, completed),
            "response.completed" | "response.incomplete" => self.stopped(kind, event),
            "response.failed" => Err(failed(event)),
            _ => Ok(()),
        }
    }

    fn program(&mut self) -> Result<Vec<ToolCall>, StreamError> {
        if self.stop.is_none() {
            return Err(ended_early(
                PROVIDER,
                self.open_calls(),
                "the stream ended without `response.completed`, so more calls may have been on their way; retry the request",
                "the stream ended in the middle of the call, before `response.completed`; retry the request",
            ));
        }
        Ok(self
            .items
            .values()
            .filter_map(|item| match item {
                Item::Call(call) => Some(call.call()),
                Item::Search(search) => search.done.clone().flatten(),
                Item::Other { .. } => None,
            })
            .collect())
    }

    fn hosted_search(&self) -> Vec<Value> {
        self.hosted.values().cloned().collect()
    }
}

impl OpenAiResponses {
    fn open_calls(&self) -> Vec<PartialCall> {
        self.items
            .iter()
            .filter_map(|(index, item)| match item {
                Item::Call(call) if !call.complete => Some(call.partial(*index)),
                Item::Search(search) if search.client && search.done.is_none() => {
                    Some(search.partial(*index))
                }
                _ => None,
            })
            .collect()
    }

    fn item_added(&mut self, event: &Value) -> Result<(), StreamError> {
        const KIND: &str = "response.output_item.added";
        let index = required_index(PROVIDER, KIND, event, "output_index")?;
        let item = required_object(PROVIDER, KIND, event, "item")?;
        let item_kind = required_str(PROVIDER, KIND, item, "type")?;
        let new = if item_kind == "function_call" {
            Item::Call(Call {
                item_id: item.get("id").and_then(Value::as_str).map(str::to_owned),
                call_id: required_str(PROVIDER, KIND, item, "call_id")?.to_owned(),
                name: local_name(
                    namespace(KIND, item)?,
                    required_str(PROVIDER, KIND, item, "name")?,
                ),
                arguments: item
                    .get("arguments")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                complete: false,
                caller: item_caller(item).map_err(|error| {
                    malformed(
                        PROVIDER,
                        KIND,
                        &format!("has an item whose caller does not read ({error})"),
                    )
                })?,
            })
        } else if item_kind == "tool_search_call" {
            Item::Search(Search {
                call_id: item
                    .get("call_id")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                client: executed_by_client(item),
                done: None,
            })
        } else {
            Item::Other {
                kind: item_kind.to_owned(),
            }
        };
        if let Some(existing) = self.items.get(&index) {
            let calls = match existing {
                Item::Call(call) => vec![call.partial(index)],
                Item::Search(search) => vec![search.partial(index)],
                Item::Other { .. } => Vec::new(),
            };
            return Err(StreamError::about(
                PROVIDER,
                StreamErrorKind::DuplicateStart,
                calls,
                format!("a second output item (a `{item_kind}`) was added at output_index {index}"),
            ));
        }
        self.items.insert(index, new);
        Ok(())
    }

    /// The open call an arguments event is for.
    fn call_for(&mut self, event: &Value, kind: &str) -> Result<(usize, &mut Call), StreamError> {
        let index = required_index(PROVIDER, kind, event, "output_index")?;
        let item_id = event.get("item_id").and_then(Value::as_str);
        let unknown = |what: String| {
            StreamError::about(
                PROVIDER,
                StreamErrorKind::UnknownCall,
                vec![PartialCall::seen(index, None, None, "")],
                what,
            )
        };
        match self.items.get_mut(&index) {
            None => Err(unknown(format!(
                "a `{kind}` event (item {}) arrived for an output item that was never added",
                item_id.unwrap_or("without id")
            ))),
            Some(Item::Other { kind: item_kind }) => Err(unknown(format!(
                "a `{kind}` event arrived for an output item that is a `{item_kind}`, not a function call"
            ))),
            Some(Item::Search(_)) => Err(unknown(format!(
                "a `{kind}` event arrived for an output item that is a `tool_search_call`, not a function call"
            ))),
            Some(Item::Call(call)) => {
                if let (Some(given), Some(known)) = (item_id, &call.item_id)
                    && given != known
                {
                    return Err(StreamError::about(
                        PROVIDER,
                        StreamErrorKind::UnknownCall,
                        vec![call.partial(index)],
                        format!(
                            "a `{kind}` event names item {given}, but the item at this output_index is {known}"
                        ),
                    ));
                }
                Ok((index, call))
            }
        }
    }

    fn arguments_delta(&mut self, event: &Value) -> Result<(), StreamError> {
        const KIND: &str = "response.function_call_arguments.delta";
        let delta = required_str(PROVIDER, KIND, event, "delta")?;
        let (index, call) = self.call_for(event, KIND)?;
        if call.complete {
            return Err(StreamError::about(
                PROVIDER,
                StreamErrorKind::AfterComplete,
                vec![call.partial(index)],
                format!(
                    "more arguments ({}) arrived after the call was complete",
                    snippet(delta)
                ),
            ));
        }
        call.arguments.push_str(delta);
        Ok(())
    }

    fn arguments_done(
        &mut self,
        event: &Value,
        completed: &mut Vec<ToolCall>,
    ) -> Result<(), StreamError> {
        const KIND: &str = "response.function_call_arguments.done";
        let arguments = required_str(PROVIDER, KIND, event, "arguments")?;
        let (index, call) = self.call_for(event, KIND)?;
        close(index, call, arguments, KIND, completed)
    }

    fn item_done(
        &mut self,
        event: &Value,
        completed: &mut Vec<ToolCall>,
    ) -> Result<(), StreamError> {
        const KIND: &str = "response.output_item.done";
        let index = required_index(PROVIDER, KIND, event, "output_index")?;
        let item = required_object(PROVIDER, KIND, event, "item")?;
        match self.items.get_mut(&index) {
            Some(Item::Other { .. }) => {
                // What record_hosted reads in a non-streamed response, kept whole.
                if item.get("type").and_then(Value::as_str) == Some("tool_search_output") {
                    self.hosted.insert(index, item.clone());
                }
                return Ok(());
            }
            Some(Item::Search(search)) => return search_done(index, search, item, completed),
            _ => {}
        }
        let (index, call) = self.call_for(event, KIND)?;
        let call_id = required_str(PROVIDER, KIND, item, "call_id")?;
        let name = local_name(
            namespace(KIND, item)?,
            required_str(PROVIDER, KIND, item, "name")?,
        );
        // The finished item says who made the call too; a caller it names must be the one
        // the added item named (the call may already be complete, read as that one's).
        let caller = match item.get("caller") {
            None => None,
            Some(_) => Some(item_caller(item).map_err(|error| {
                malformed(
                    PROVIDER,
                    KIND,
                    &format!("has an item whose caller does not read ({error})"),
                )
            })?),
        };
        if caller.is_some_and(|caller| caller != call.caller) {
            return Err(StreamError::about(
                PROVIDER,
                StreamErrorKind::Inconsistent,
                vec![call.partial(index)],
                "the finished item names another caller than the added item did",
            ));
        }
        if call_id != call.call_id || name != call.name {
            return Err(StreamError::about(
                PROVIDER,
                StreamErrorKind::Inconsistent,
                vec![call.partial(index)],
                format!(
                    "the finished item is call {call_id} ({name}), not the call that was added"
                ),
            ));
        }
        if item.get("status").and_then(Value::as_str) == Some("incomplete") {
            return Err(StreamError::about(
                PROVIDER,
                StreamErrorKind::Truncated,
                vec![call.partial(index)],
                "the item finished with status `incomplete`: the response was cut in the middle of the call (raise `max_output_tokens` and retry)",
            ));
        }
        let arguments = required_str(PROVIDER, KIND, item, "arguments")?;
        close(index, call, arguments, KIND, completed)
    }

    fn stopped(&mut self, kind: &str, event: &Value) -> Result<(), StreamError> {
        self.stop = Some(kind.to_owned());
        let open = self.open_calls();
        if open.is_empty() {
            return Ok(());
        }
        let reason = event
            .pointer("/response/incomplete_details/reason")
            .and_then(Value::as_str);
        let problem = match reason {
            Some(reason) => format!(
                "the response stopped (`{kind}`, reason `{reason}`) in the middle of the call; raise the limit and retry"
            ),
            None => format!(
                "the response stopped (`{kind}`) in the middle of the call; retry the request"
            ),
        };
        Err(StreamError::about(
            PROVIDER,
            StreamErrorKind::Truncated,
            open,
            problem,
        ))
    }
}

/// Finishes a `tool_search_call` with its done `item`, read by the non-streamed parser
/// itself: a client-executed search is a call of the search tool, in its place.
fn search_done(
    index: usize,
    search: &mut Search,
    item: &Value,
    completed: &mut Vec<ToolCall>,
) -> Result<(), StreamError> {
    const KIND: &str = "response.output_item.done";
    if search.done.is_some() {
        return Err(StreamError::about(
            PROVIDER,
            StreamErrorKind::AfterComplete,
            vec![search.partial(index)],
            "a second `response.output_item.done` arrived for the tool search call",
        ));
    }
    let kind = required_str(PROVIDER, KIND, item, "type")?;
    let call_id = item.get("call_id").and_then(Value::as_str);
    if kind != "tool_search_call"
        || (search.call_id.is_some() && call_id != search.call_id.as_deref())
    {
        return Err(StreamError::about(
            PROVIDER,
            StreamErrorKind::Inconsistent,
            vec![search.partial(index)],
            format!(
                "the finished item is a `{kind}` ({}), not the tool search call that was added",
                call_id.unwrap_or("without call_id")
            ),
        ));
    }
    let client = executed_by_client(item);
    if (client || search.client) && item.get("status").and_then(Value::as_str) == Some("incomplete")
    {
        return Err(StreamError::about(
            PROVIDER,
            StreamErrorKind::Truncated,
            vec![search.partial(index)],
            "the tool search call finished with status `incomplete`: the response was cut in the middle of it (raise `max_output_tokens` and retry)",
        ));
    }
    let mut calls =
        ToolCall::from_openai_responses(&Value::Array(vec![item.clone()])).map_err(|error| {
            StreamError::about(
                PROVIDER,
                StreamErrorKind::MalformedEvent,
                vec![search.partial(index)],
                format!("the finished tool search call does not read as one ({error})"),
            )
        })?;
    let call = calls.pop();
    if let Some(call) = &call {
        completed.push(call.clone());
    }
    search.done = Some(call);
    Ok(())
}

/// Completes `call` with the full `arguments` a done event carries, which must be what
/// the deltas built (when there were any). Either done event may come first: when the
/// call is complete already, the second must agree with the first.
fn close(
    index: usize,
    call: &mut Call,
    arguments: &str,
    kind: &str,
    completed: &mut Vec<ToolCall>,
) -> Result<(), StreamError> {
    let built = !call.arguments.is_empty() || call.complete;
    if built && call.arguments != arguments {
        return Err(inconsistent(index, call, arguments, kind));
    }
    if call.complete {
        return Ok(());
    }
    call.arguments = arguments.to_owned();
    if !arguments.trim().is_empty() && serde_json::from_str::<Value>(arguments).is_err() {
        return Err(StreamError::about(
            PROVIDER,
            StreamErrorKind::MalformedArguments,
            vec![call.partial(index)],
            format!(
                "the finished arguments are not JSON: {}",
                snippet(arguments)
            ),
        ));
    }
    call.complete = true;
    completed.push(call.call());
    Ok(())
}

fn inconsistent(index: usize, call: &Call, arguments: &str, kind: &str) -> StreamError {
    StreamError::about(
        PROVIDER,
        StreamErrorKind::Inconsistent,
        vec![call.partial(index)],
        format!(
            "`{kind}` says the arguments are {}, but the deltas built {}",
            snippet(arguments),
            snippet(&call.arguments)
        ),
    )
}

/// The error of a `response.failed` event, with the API's message.
fn failed(event: &Value) -> StreamError {
    let (code, message) = code_and_message(event, "/response/error");
    StreamError::new(
        PROVIDER,
        StreamErrorKind::Api,
        format!("the response failed{code}: {message}; retry the request"),
    )
}

/// The error of an `error` event: `{"type": "error", "code", "message", "param"}`.
fn error_event(event: &Value) -> StreamError {
    let (code, message) = code_and_message(event, "");
    StreamError::new(
        PROVIDER,
        StreamErrorKind::Api,
        format!(
            "the API sent an error{code}: {message}; the response is incomplete, retry the request"
        ),
    )
}

/// The ` (code)` and message of the error object at the JSON pointer `at` of `event`.
fn code_and_message<'a>(event: &'a Value, at: &str) -> (String, &'a str) {
    let message = event
        .pointer(&format!("{at}/message"))
        .and_then(Value::as_str)
        .unwrap_or("no message");
    let code = event
        .pointer(&format!("{at}/code"))
        .and_then(Value::as_str)
        .map(|code| format!(" ({code})"))
        .unwrap_or_default();
    (code, message)
}
