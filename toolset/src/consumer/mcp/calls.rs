//! Reading the calls of MCP `tools/call` requests: one call per request, its id the
//! JSON-RPC request id.

use crate::call::Arguments;
use crate::call::ToolCall;
use crate::consumer::wire::{Node, Payload};
use crate::consumer::{Format, ProviderError};
use serde_json::{Map, Value};
use std::fmt::Display;

// `ToolCall`'s reader for this consumer lives here, beside the parser, so `call.rs` imports
// no consumer.
impl ToolCall {
    /// The call in the params of an MCP `tools/call` request, its id the JSON-RPC
    /// `request_id` as it displays. See [`mcp::call`](crate::consumer::mcp::call); [`mcp::calls`](crate::consumer::mcp::calls) reads a whole
    /// request, id included.
    pub fn from_mcp(request_id: impl Display, params: &Value) -> Result<ToolCall, ProviderError> {
        call(request_id, params)
    }
}

const PARAMS: Payload = Payload {
    format: Format::Mcp,
    subject: "MCP tools/call params",
};

const REQUEST: Payload = Payload {
    format: Format::Mcp,
    subject: "MCP tools/call request",
};

/// The call in the params of an MCP `tools/call` request: `{"name": …, "arguments":
/// {…}}` ([`ToolCall::from_mcp`] delegates here).
///
/// The id is `request_id` as it displays: pass the JSON-RPC request id (a number or a
/// string; pass a `serde_json::Value` string through `as_str()` first, or it displays
/// with its quotes). Missing or `null` arguments become `{}`; present ones must be an
/// object, kept parsed ([`Arguments::object`]). `_meta` is ignored.
pub fn call(request_id: impl Display, params: &Value) -> Result<ToolCall, ProviderError> {
    call_of(request_id.to_string(), &Node::root(PARAMS, params))
}

/// The calls in a whole JSON-RPC `tools/call` request, `{"jsonrpc": "2.0", "id": …,
/// "method": "tools/call", "params": {…}}`: always one, whose id is the request id (a
/// number as its digits, a string as it is), read from `params` as [`call`] reads it.
///
/// A request for another method is an error, not an empty list, so a request routed
/// here by mistake is not answered as if it had asked for nothing.
pub fn calls(request: &Value) -> Result<Vec<ToolCall>, ProviderError> {
    let root = Node::root(REQUEST, request);
    root.object("a JSON-RPC request object")?;
    let method = root.required("method", "the string \"tools/call\"")?;
    let name = method.str("the string \"tools/call\"")?;
    if name != "tools/call" {
        return Err(method.error(format!(
            "is {name:?}; only a \"tools/call\" request carries a tool call"
        )));
    }
    let id_node = root.required("id", "the request id (a number or a string)")?;
    let id = match id_node.value() {
        Value::String(id) => id.clone(),
        Value::Number(id) => id.to_string(),
        _ => return Err(id_node.wrong_type("the request id (a number or a string)")),
    };
    let params = root.required("params", "an object with `name` and `arguments`")?;
    Ok(vec![call_of(id, &params)?])
}

/// The call of a `tools/call` whose params are already parsed, as rmcp's
/// `CallToolRequestParams` holds them: the tool's `name` and its `arguments` object
/// (missing ones are `{}`), the id `request_id` as it displays. Nothing is left to check:
/// an object is always the arguments' shape.
///
/// The object is kept as it is ([`Arguments`]'s parsed form), and the gate reads it as
/// it is: it is never written out as text to be parsed again.
pub fn parsed_call(
    request_id: impl Display,
    name: &str,
    arguments: Option<Map<String, Value>>,
) -> ToolCall {
    ToolCall::new(
        request_id.to_string(),
        name,
        Arguments::from(arguments.unwrap_or_default()),
    )
}

fn call_of(id: String, params: &Node<'_>) -> Result<ToolCall, ProviderError> {
    params.object("an object with `name` and `arguments`")?;
    let name = params.required_str("name")?;
    let arguments = match params.field("arguments") {
        Some(arguments) => {
            arguments.object("an object holding the tool's arguments")?;
            Arguments::object(arguments.value().clone()).unwrap_or_default()
        }
        None => Arguments::from(Map::new()),
    };
    Ok(ToolCall::new(id, name, arguments))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_name_and_arguments_with_the_request_id() {
        let params = json!({"name": "search", "arguments": {"limit": 3, "query": "x"}});
        let call = call(7, &params).expect("valid params");
        assert_eq!(
            call,
            ToolCall::new("7", "search", r#"{"limit":3,"query":"x"}"#)
        );
    }

    #[test]
    fn missing_or_null_arguments_are_an_empty_object() {
        for params in [
            json!({"name": "now"}),
            json!({"name": "now", "arguments": null}),
        ] {
            let call = call("req-1", &params).expect("valid params");
            assert_eq!(call, ToolCall::new("req-1", "now", "{}"));
        }
    }

    /// Parsed params read as their JSON does.
    #[test]
    fn parsed_params_read_as_their_json() {
        let params = json!({"name": "search", "arguments": {"limit": 3, "query": "x"}});
        assert_eq!(
            parsed_call(7, "search", params["arguments"].as_object().cloned()),
            call(7, &params).expect("valid params")
        );
        assert_eq!(
            parsed_call("req-1", "now", None),
            ToolCall::new("req-1", "now", "{}")
        );
    }

    #[test]
    fn envelope_errors_name_the_path() {
        let cases = [
            (
                json!({"arguments": {}}),
                "MCP tools/call params: name is missing (expected a string)",
            ),
            (
                json!({"name": 3}),
                "MCP tools/call params: name has the wrong type: expected a string, found a number",
            ),
            (
                json!({"name": "a", "arguments": "q=1"}),
                "MCP tools/call params: arguments has the wrong type: expected an object holding the tool's arguments, found a string",
            ),
            (
                json!(null),
                "MCP tools/call params: the top-level value has the wrong type: expected an object with `name` and `arguments`, found null",
            ),
        ];
        for (input, expected) in cases {
            let error = call(1, &input).expect_err("malformed params");
            assert_eq!(error.to_string(), expected);
        }
    }

    #[test]
    fn a_whole_request_gives_one_call_with_the_request_id() {
        let request = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                             "params": {"name": "now", "arguments": {"tz": "UTC"}}});
        assert_eq!(
            calls(&request).expect("a valid request"),
            vec![ToolCall::new("7", "now", r#"{"tz":"UTC"}"#)]
        );
        let request = json!({"jsonrpc": "2.0", "id": "req-1", "method": "tools/call",
                             "params": {"name": "now"}});
        assert_eq!(
            calls(&request).expect("a valid request"),
            vec![call("req-1", &request["params"]).expect("valid params")]
        );
    }

    #[test]
    fn request_errors_name_the_path() {
        let cases = [
            (
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
                "MCP tools/call request: method is \"tools/list\"; only a \"tools/call\" request carries a tool call",
            ),
            (
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"arguments": {}}}),
                "MCP tools/call request: params.name is missing (expected a string)",
            ),
            (
                json!({"jsonrpc": "2.0", "id": [1], "method": "tools/call", "params": {"name": "a"}}),
                "MCP tools/call request: id has the wrong type: expected the request id (a number or a string), found an array",
            ),
            (
                json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "a"}}),
                "MCP tools/call request: id is missing (expected the request id (a number or a string))",
            ),
        ];
        for (input, expected) in cases {
            let error = calls(&input).expect_err("a malformed request");
            assert_eq!(error.to_string(), expected);
        }
    }
}
