//! Reading the calls of an OpenAI Responses API response: the `function_call` items of
//! its `output`.

use super::namespace::local_name;
use crate::call::{Caller, ToolCall};
use crate::consumer::wire::{Node, NullCaller, Payload, caller, json_text, reject_api_error};
use crate::consumer::{Format, ProviderError};
use crate::search::SEARCH_TOOL_NAME;
use serde_json::Value;

// `ToolCall`'s reader for this consumer lives here, beside the parser, so `call.rs` imports
// no consumer.
impl ToolCall {
    /// The calls in an OpenAI Responses API response (or its bare `output` array): its
    /// `function_call` items. See [`openai_responses::calls`](crate::consumer::openai_responses::calls).
    pub fn from_openai_responses(response: &Value) -> Result<Vec<ToolCall>, ProviderError> {
        calls(response)
    }
}

const PAYLOAD: Payload = Payload {
    format: Format::OpenAiResponses,
    subject: "OpenAI Responses output",
};

/// The calls in an OpenAI Responses API response
/// ([`ToolCall::from_openai_responses`] delegates here).
///
/// `response` is the response object (its `output` array is read) or the bare `output`
/// array. Items with `"type": "function_call"` become calls, in order, with the item's
/// `call_id` as the id (the id its `function_call_output` must echo), its `name`, and
/// its `arguments` text kept verbatim even when it is not valid JSON. A call carrying a
/// `namespace` (a function the list has inside a `namespace` entry, a toolbox namespace's
/// tool) is named `namespace_name`, the tool's local name: a namespace or name the list
/// does not have gives a name no tool has, which the gate refuses as unknown. Its `caller`
/// says who made the call: absent, `null` (a caller the API's types declare, for a call no
/// program made) or `{"type": "direct"}`, the model; a program
/// (programmatic tool calling, `{"type": "program", "caller_id": …}`), code the model
/// wrote ([`Caller::Code`](crate::call::Caller::Code) with kind `program` and the `caller_id`,
/// which the result's `function_call_output` names again), which the gate permits only
/// where the request lets code call the tool. The `program` item itself, with its
/// `fingerprint`, is no call: the host sends it back unchanged with the rest of the
/// response's output, as for any item.
///
/// A `tool_search_call` with `"execution": "client"` is a search the host must answer:
/// it becomes a call to [`SEARCH_TOOL_NAME`] (its `call_id` as the id, its `arguments`
/// object as compact JSON text), which a [`crate::request::Request`] answers with a
/// `tool_search_output`. Other items (messages, reasoning, the hosted `tool_search_call`
/// and `tool_search_output`, built-in tool calls the API runs itself) are skipped.
pub fn calls(response: &Value) -> Result<Vec<ToolCall>, ProviderError> {
    let root = Node::root(PAYLOAD, response);
    let output = if response.is_array() {
        root
    } else {
        reject_api_error(&root)?;
        root.object("a response object or the response's `output` array")?;
        root.required("output", "the response's array of output items")?
    };
    let mut calls = Vec::new();
    for item in output.items("the response's array of output items")? {
        item.object("an output item object")?;
        let kind = item.required_str("type")?;
        if kind == "tool_search_call" && executed_by_client(item.value()) {
            let id = item.required_str("call_id")?;
            let arguments =
                item.required("arguments", "an object holding the search's arguments")?;
            let arguments = match arguments.value() {
                Value::String(text) => text.clone(),
                other => json_text(other),
            };
            calls.push(ToolCall::new(id, SEARCH_TOOL_NAME, arguments));
            continue;
        }
        if kind != "function_call" {
            continue;
        }
        let id = item.required_str("call_id")?;
        let name = item.required_str("name")?;
        let namespace = match item.field("namespace") {
            Some(namespace) if !namespace.value().is_null() => {
                Some(namespace.str("a string naming the function's namespace")?)
            }
            _ => None,
        };
        let arguments = item
            .required("arguments", "a string holding the arguments as JSON text")?
            .str("a string holding the arguments as JSON text")?;
        let caller = caller(&item, "caller_id", NullCaller::Direct)?;
        calls.push(ToolCall::new(id, local_name(namespace, name), arguments).with_caller(caller));
    }
    Ok(calls)
}

/// Who made the `function_call` item `item` (its `caller`), as [`calls`] reads it: for
/// the stream (`stream.rs`), which must read it the same way.
pub(crate) fn item_caller(item: &Value) -> Result<Caller, ProviderError> {
    caller(&Node::root(PAYLOAD, item), "caller_id", NullCaller::Direct)
}

/// Whether an output item (a `tool_search_call`) says the client executes it: a call the
/// host answers, read here and by the stream (`stream.rs`) alike.
pub(crate) fn executed_by_client(item: &Value) -> bool {
    item.get("execution").and_then(Value::as_str) == Some("client")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn function_call(call_id: &str, name: &str, arguments: &str) -> Value {
        json!({"type": "function_call", "id": format!("fc_{call_id}"), "call_id": call_id,
               "name": name, "arguments": arguments, "status": "completed"})
    }

    #[test]
    fn reads_function_call_items_and_skips_the_rest() {
        let response = json!({
            "object": "response",
            "output": [
                {"type": "reasoning", "id": "rs_1", "summary": []},
                function_call("call_a", "search", r#"{"query":"x"}"#),
                {"type": "message", "id": "msg_1", "role": "assistant", "content": []},
                function_call("call_b", "now", "{}"),
            ]
        });
        let calls = calls(&response).expect("a valid response");
        assert_eq!(
            calls,
            vec![
                ToolCall::new("call_a", "search", r#"{"query":"x"}"#),
                ToolCall::new("call_b", "now", "{}"),
            ]
        );
    }

    #[test]
    fn a_client_tool_search_call_is_a_search_call_and_hosted_search_is_skipped() {
        let output = json!([
            {"type": "tool_search_call", "id": "tsc_1", "call_id": null, "execution": "server",
             "arguments": {"query": "x"}, "status": "completed"},
            {"type": "tool_search_output", "id": "tso_1", "call_id": null, "execution": "server",
             "tools": [], "status": "completed"},
            {"type": "tool_search_call", "id": "tsc_2", "call_id": "call_s", "execution": "client",
             "arguments": {"query": "label"}, "status": "completed"},
        ]);
        let calls = calls(&output).expect("a valid output array");
        assert_eq!(
            calls,
            vec![ToolCall::new(
                "call_s",
                "tool_search",
                r#"{"query":"label"}"#
            )]
        );
    }

    #[test]
    fn a_namespaced_call_is_read_as_the_local_name() {
        let mut namespaced = function_call("call_a", "echo", r#"{"text":"hi"}"#);
        namespaced["namespace"] = json!("fix");
        let mut plain = function_call("call_b", "now", "{}");
        plain["namespace"] = Value::Null;
        let read = calls(&json!([namespaced, plain])).expect("a valid output array");
        assert_eq!(
            read,
            vec![
                ToolCall::new("call_a", "fix_echo", r#"{"text":"hi"}"#),
                ToolCall::new("call_b", "now", "{}"),
            ]
        );
        let mut broken = function_call("call_c", "echo", "{}");
        broken["namespace"] = json!(7);
        let error = calls(&json!([broken])).expect_err("a namespace that is no string");
        assert_eq!(
            error.to_string(),
            "OpenAI Responses output: [0].namespace has the wrong type: expected a string naming the function's namespace, found a number"
        );
    }

    #[test]
    fn a_null_caller_is_the_model_as_the_api_declares_it() {
        let mut item = function_call("call_a", "now", "{}");
        item["caller"] = Value::Null;
        let calls = calls(&json!([item])).expect("a valid output array");
        assert_eq!(calls[0].caller, crate::call::Caller::Direct);
    }

    #[test]
    fn reads_a_bare_output_array() {
        let output = json!([function_call("call_a", "now", "{}")]);
        let calls = calls(&output).expect("a valid output array");
        assert_eq!(calls, vec![ToolCall::new("call_a", "now", "{}")]);
    }

    #[test]
    fn malformed_arguments_are_kept_verbatim() {
        let output = json!([function_call("call_a", "search", "{query: x}")]);
        let calls = calls(&output).expect("the envelope is valid");
        assert_eq!(calls[0].arguments, "{query: x}");
    }

    #[test]
    fn envelope_errors_name_the_path() {
        let cases = [
            (
                json!({"output": [{"type": "function_call", "name": "a", "arguments": "{}"}]}),
                "OpenAI Responses output: output[0].call_id is missing (expected a string)",
            ),
            (
                json!([{"type": "reasoning"}, {"type": "function_call", "call_id": "c", "name": 1, "arguments": "{}"}]),
                "OpenAI Responses output: [1].name has the wrong type: expected a string, found a number",
            ),
            (
                json!({"id": "resp_1"}),
                "OpenAI Responses output: output is missing (expected the response's array of output items)",
            ),
            (
                json!({"output": [{"id": "x"}]}),
                "OpenAI Responses output: output[0].type is missing (expected a string)",
            ),
            (
                json!({"output": [{"type": "function_call", "call_id": "c", "name": "a", "arguments": {"q": 1}}]}),
                "OpenAI Responses output: output[0].arguments has the wrong type: expected a string holding the arguments as JSON text, found an object",
            ),
        ];
        for (input, expected) in cases {
            let error = calls(&input).expect_err("malformed output");
            assert_eq!(error.to_string(), expected);
        }
    }
}
