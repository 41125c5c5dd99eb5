//! What a client sent, read from one line on stdio ([`LineTransport`](super::LineTransport))
//! or one HTTP request body (`http/junk.rs`): a JSON-RPC message for rmcp, or the answer
//! JSON-RPC gives what is not one, so that junk is answered instead of met with silence
//! (stdio) or a bare HTTP status.
//!
//! A message is parsed exactly as rmcp parses it; only what fails is looked at again, to
//! say what was wrong: bytes that are not UTF-8, text that is not JSON or nests deeper
//! than serde_json reads (`-32700 Parse error`), JSON that is not a JSON-RPC message
//! (`-32600 Invalid Request`), each with the request's `id` when one can be read.
//!
//! One failure is no junk: a `tools/call` whose arguments hold a number JSON can write and
//! no reader can hold (`1e400`, beyond every double). serde_json refuses the whole request
//! for it, although the arguments are the tool's to judge; the gate reads them as text and
//! names the field, as it does for any text arguments. So the request is read again with
//! its arguments kept as raw text, and passed on without them, the text beside it
//! ([`ArgumentsText`]) for the server's gate.

use super::messages::{self, Unit};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ErrorCode, JsonRpcMessage, RequestId};
use serde::de::{self, Deserializer as _, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

/// The deepest serde_json reads arrays and objects nested (its recursion limit): one
/// level more fails the parse.
const DEEPEST: usize = 127;

/// The raw text of a `tools/call`'s arguments that hold a number no reader can hold, carried
/// beside the request (which has no `arguments` then) for the gate to read as text: on the
/// request's extensions over stdio, on the HTTP request's over HTTP. Only this module makes
/// one.
#[derive(Clone, Debug)]
pub(crate) struct ArgumentsText(pub(crate) Arc<str>);

/// What one line or body is.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A JSON-RPC message, as rmcp parses it.
    Message(ClientJsonRpcMessage),
    /// A `tools/call` whose arguments hold a number no reader can hold: the request
    /// without its arguments, and their text.
    CallWithArgumentsText(ClientJsonRpcMessage, ArgumentsText),
    /// Not a message: what to answer.
    Refused(Refusal),
}

/// The JSON-RPC error answering what is not a message.
#[derive(Debug)]
pub(crate) struct Refusal {
    /// The request's id, when one could be read.
    pub(crate) id: Option<RequestId>,
    pub(crate) code: ErrorCode,
    pub(crate) message: String,
    /// Valid JSON shaped as a notification (a `method` and no `id`): JSON-RPC answers no
    /// notification, so stdio does not (HTTP must answer the request somehow).
    pub(crate) notification: bool,
}

impl Refusal {
    /// The error as JSON-RPC writes it: `{"jsonrpc":"2.0","id":…,"error":{…}}`, the id
    /// `null` when it could not be read (JSON-RPC 2.0 asks for `null` there; rmcp's own
    /// error type would leave it out).
    pub(crate) fn to_json(&self) -> Vec<u8> {
        let id = match &self.id {
            Some(RequestId::Number(number)) => Value::from(*number),
            Some(RequestId::String(text)) => Value::from(&**text),
            None => Value::Null,
        };
        let error = serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": self.code.0, "message": self.message},
        });
        error.to_string().into_bytes()
    }
}

/// Reads one line or body: a message, or the answer to what is not one.
pub(crate) fn read(bytes: &[u8], unit: Unit) -> Incoming {
    // A UTF-8 byte order mark may open JSON text (RFC 8259 §8.1); rmcp drops it too.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match serde_json::from_slice::<ClientJsonRpcMessage>(bytes) {
        Ok(message) => Incoming::Message(message),
        Err(error) => not_a_message(bytes, unit, &error),
    }
}

/// The answer to a line longer than `max` bytes, of which `head` are the first: read for
/// its id, never parsed.
pub(crate) fn oversized(head: &[u8], max: usize) -> Refusal {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    Refusal {
        id: id_in(head),
        code: ErrorCode::INVALID_REQUEST,
        message: messages::line_too_long(max),
        notification: false,
    }
}

/// Whether `value` is shaped as a JSON-RPC notification: an object of version 2.0 with a
/// string `method` and no `id`.
pub(crate) fn is_notification(value: &Value) -> bool {
    value.as_object().is_some_and(|message| {
        message.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
            && message.get("method").is_some_and(Value::is_string)
            && !message.contains_key("id")
    })
}

/// What `bytes`, which rmcp's parse refused with `error`, are: a `tools/call` whose
/// arguments the gate should read as text, or junk, and what to answer.
#[cold]
fn not_a_message(bytes: &[u8], unit: Unit, error: &serde_json::Error) -> Incoming {
    let parse_error = |message: String| {
        Incoming::Refused(Refusal {
            id: id_in(bytes),
            code: ErrorCode::PARSE_ERROR,
            message,
            notification: false,
        })
    };
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => return parse_error(messages::not_utf8(unit, error.valid_up_to())),
    };
    let json_error = match serde_json::from_str::<Value>(text) {
        Ok(value) => return Incoming::Refused(not_json_rpc(&value, unit, error)),
        Err(json_error) => json_error,
    };
    let scan = Scan::of(bytes);
    if scan.deepest > DEEPEST {
        return parse_error(messages::too_deep(unit, DEEPEST));
    }
    if scan.unholdable_number {
        if let Some((message, arguments)) = with_arguments_text(text) {
            return Incoming::CallWithArgumentsText(message, arguments);
        }
        return parse_error(messages::unholdable_number(unit, &json_error));
    }
    parse_error(messages::not_json(unit, &json_error))
}

/// The answer to `value`, valid JSON that is not a JSON-RPC message (rmcp's parse refused
/// it with `error`): what is wrong with it, first of what JSON-RPC asks.
fn not_json_rpc(value: &Value, unit: Unit, error: &serde_json::Error) -> Refusal {
    let id = match value.get("id") {
        Some(Value::String(id)) => Some(RequestId::String(Arc::from(id.as_str()))),
        Some(Value::Number(id)) => id.as_i64().map(RequestId::Number),
        _ => None,
    };
    let wrong = match value {
        Value::Array(_) => "it is an array (a batch); send one message at a time".to_owned(),
        Value::Object(message) => {
            let wrong_type = |key: &str, expected: fn(&Value) -> bool| {
                message.get(key).is_some_and(|value| !expected(value))
            };
            if !message.contains_key("jsonrpc") {
                "it has no \"jsonrpc\":\"2.0\"".to_owned()
            } else if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
                "its \"jsonrpc\" is not \"2.0\"".to_owned()
            } else if wrong_type("id", |id| id.is_string() || id.is_i64() || id.is_u64()) {
                "its \"id\" is neither a string nor an integer".to_owned()
            } else if wrong_type("method", Value::is_string) {
                "its \"method\" is not a string".to_owned()
            } else if wrong_type("params", |params| params.is_object() || params.is_array()) {
                "its \"params\" are neither an object nor an array".to_owned()
            } else if !["method", "result", "error"]
                .iter()
                .any(|key| message.contains_key(*key))
            {
                "it has no \"method\"".to_owned()
            } else {
                crate::describe::without_position(&error.to_string()).to_owned()
            }
        }
        _ => "it is not an object".to_owned(),
    };
    Refusal {
        id,
        code: ErrorCode::INVALID_REQUEST,
        message: messages::not_json_rpc(unit, &wrong),
        notification: is_notification(value),
    }
}

/// The `tools/call` of `text`, which failed to parse only for what its `arguments` hold,
/// without them, and their text; `None` when `text` is no such request (what else it holds
/// does not parse either, it is another method, a key is written twice).
fn with_arguments_text(text: &str) -> Option<(ClientJsonRpcMessage, ArgumentsText)> {
    let mut request = Map::new();
    let mut arguments = None;
    for (key, raw) in serde_json::from_str::<Members>(text).ok()?.0 {
        let value = if key == "params" {
            let mut params = Map::new();
            for (key, raw) in serde_json::from_str::<Members>(raw.get()).ok()?.0 {
                if key == "arguments" {
                    arguments = Some(raw);
                } else {
                    params.insert(key, serde_json::from_str(raw.get()).ok()?);
                }
            }
            Value::Object(params)
        } else {
            serde_json::from_str(raw.get()).ok()?
        };
        request.insert(key, value);
    }
    let arguments = arguments?;
    if request.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    let message = serde_json::from_value::<ClientJsonRpcMessage>(Value::Object(request)).ok()?;
    match &message {
        JsonRpcMessage::Request(call)
            if matches!(call.request, ClientRequest::CallToolRequest(_)) =>
        {
            Some((message, ArgumentsText(Arc::from(arguments.get()))))
        }
        _ => None,
    }
}

/// The members of a JSON object, their values as raw text (read without converting a
/// number or following a nesting limit); a key written twice is refused, as rmcp's parse
/// refuses it.
struct Members(Vec<(String, Box<RawValue>)>);

impl<'de> de::Deserialize<'de> for Members {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut seen = HashSet::new();
                let mut members = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    if !seen.insert(key.clone()) {
                        return Err(de::Error::custom(format_args!("duplicate key {key}")));
                    }
                    members.push((key, map.next_value::<Box<RawValue>>()?));
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(MembersVisitor)
    }
}

/// The `id` of the object `bytes` open, read as far as they parse: before anything wrong
/// that comes after it, inside a line cut off, or past bytes that are not UTF-8 inside
/// another member's string. `None` when no string or integer `id` comes before the first
/// error.
fn id_in(bytes: &[u8]) -> Option<RequestId> {
    let mut id = None;
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    // The object is read only up to its `id`: what the error after it is does not matter.
    let _ = deserializer.deserialize_map(IdVisitor(&mut id));
    id
}

/// Reads an object's members up to its `id`, skipping the values before it unconverted.
struct IdVisitor<'a>(&'a mut Option<RequestId>);

impl<'de> Visitor<'de> for IdVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key != "id" {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            *self.0 = match map.next_value::<Value>()? {
                Value::String(id) => Some(RequestId::String(Arc::from(id))),
                Value::Number(id) => id.as_i64().map(RequestId::Number),
                _ => None,
            };
            // Found: the rest is not read.
            return Err(de::Error::custom("the id is read"));
        }
        Ok(())
    }
}

/// What a scan of JSON text finds outside its strings, whatever else is wrong with it.
#[derive(Debug, Default)]
struct Scan {
    /// How deep arrays and objects nest at most.
    deepest: usize,
    /// Whether a number is beyond every double (`1e400`, `-1e400`, 400 digits).
    unholdable_number: bool,
}

impl Scan {
    fn of(text: &[u8]) -> Scan {
        let mut scan = Scan::default();
        let mut depth = 0_usize;
        let mut at = 0;
        while let Some(&byte) = text.get(at) {
            match byte {
                b'"' => {
                    // To the closing quote, over escaped characters.
                    at += 1;
                    while let Some(&byte) = text.get(at) {
                        match byte {
                            b'\\' => at += 2,
                            b'"' => break,
                            _ => at += 1,
                        }
                    }
                }
                b'[' | b'{' => {
                    depth += 1;
                    scan.deepest = scan.deepest.max(depth);
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                b'-' | b'0'..=b'9' => {
                    let start = at;
                    while text.get(at).is_some_and(|byte| {
                        matches!(byte, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                    }) {
                        at += 1;
                    }
                    let number = std::str::from_utf8(&text[start..at]).ok();
                    // Rust reads every number JSON can write, an infinite one as infinity.
                    if number
                        .and_then(|number| number.parse::<f64>().ok())
                        .is_some_and(f64::is_infinite)
                    {
                        scan.unholdable_number = true;
                    }
                    continue;
                }
                _ => {}
            }
            at += 1;
        }
        scan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(bytes: &[u8]) -> Refusal {
        match read(bytes, Unit::Line) {
            Incoming::Refused(refusal) => refusal,
            other => panic!("{:?} was read as {other:?}", String::from_utf8_lossy(bytes)),
        }
    }

    #[test]
    fn a_message_is_read_as_rmcp_reads_it() {
        let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        assert!(matches!(read(ping, Unit::Line), Incoming::Message(_)));
        let with_mark = [b"\xEF\xBB\xBF".as_slice(), ping].concat();
        assert!(matches!(read(&with_mark, Unit::Line), Incoming::Message(_)));
    }

    #[test]
    fn junk_is_a_parse_error_carrying_the_id_when_one_comes_first() {
        for (junk, id) in [
            (b"not json".as_slice(), None),
            (
                br#"{"jsonrpc":"2.0","id":3,"method":"ping""#,
                Some(RequestId::Number(3)),
            ),
            (
                b"{\"id\":\"a\",\"x\":\"\xff\"}",
                Some(RequestId::String(Arc::from("a"))),
            ),
            (b"\xff{}", None),
            (br#"{"x":[1,,2],"id":4}"#, None),
            (br#"{"id":4,"x":1e400}"#, Some(RequestId::Number(4))),
            (br#"{"x":1e400,"id":4}"#, Some(RequestId::Number(4))),
        ] {
            let refusal = refused(junk);
            assert_eq!(refusal.code, ErrorCode::PARSE_ERROR, "{refusal:?}");
            assert_eq!(refusal.id, id, "{refusal:?}");
            assert!(refusal.message.starts_with("Parse error: "), "{refusal:?}");
        }
    }

    #[test]
    fn nesting_deeper_than_serde_json_reads_is_said_so() {
        let deep = format!("{}{}", "[".repeat(128), "]".repeat(128));
        let refusal = refused(deep.as_bytes());
        assert!(refusal.message.contains("127"), "{refusal:?}");
        let ten_thousand = format!(r#"{{"id":5,"params":{}}}"#, "[".repeat(10_000));
        let refusal = refused(ten_thousand.as_bytes());
        assert_eq!(refusal.id, Some(RequestId::Number(5)));
        assert!(refusal.message.contains("deep"), "{refusal:?}");
    }

    #[test]
    fn json_that_is_no_message_says_what_is_wrong_with_the_id_it_has() {
        let refusal = refused(br#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":"a"}"#);
        assert_eq!(refusal.code, ErrorCode::INVALID_REQUEST);
        assert_eq!(refusal.id, Some(RequestId::String(Arc::from("x"))));
        assert!(refusal.message.contains("\"params\""), "{refusal:?}");
        assert!(!refusal.notification);
        let refusal = refused(br#"{"jsonrpc":"2.0","method":"x","params":1}"#);
        assert!(refusal.notification, "{refusal:?}");
        assert_eq!(refused(b"[]").id, None);
        assert!(refused(b"[]").message.contains("batch"));
    }

    #[test]
    fn the_json_of_a_refusal_names_a_null_id() {
        let refusal = refused(b"not json");
        let json: Value = serde_json::from_slice(&refusal.to_json()).expect("JSON");
        assert_eq!(json["id"], Value::Null);
        assert_eq!(json["error"]["code"], -32700);
        assert!(json.as_object().is_some_and(|json| json.contains_key("id")));
    }

    #[test]
    fn a_call_whose_arguments_hold_1e400_keeps_their_text() {
        let call = br#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"t","arguments":{"a":{"b":-1e400}},"_meta":{"k":1}}}"#;
        let Incoming::CallWithArgumentsText(message, text) = read(call, Unit::Line) else {
            panic!("not kept as text");
        };
        assert_eq!(&*text.0, r#"{"a":{"b":-1e400}}"#);
        let JsonRpcMessage::Request(request) = message else {
            panic!("a request");
        };
        let ClientRequest::CallToolRequest(call) = request.request else {
            panic!("a tools/call");
        };
        assert_eq!(call.params.name, "t");
        assert_eq!(call.params.arguments, None);
    }

    #[test]
    fn only_a_call_with_nothing_else_wrong_keeps_its_arguments_text() {
        for junk in [
            // The number outside the arguments.
            br#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":{"k":1e400}}}"#.as_slice(),
            // Another method.
            br#"{"jsonrpc":"2.0","id":9,"method":"ping","params":{"arguments":{"k":1e400}}}"#,
            // A key twice.
            br#"{"jsonrpc":"2.0","id":9,"id":10,"method":"tools/call","params":{"name":"t","arguments":{"k":1e400}}}"#,
        ] {
            assert_eq!(refused(junk).code, ErrorCode::PARSE_ERROR);
        }
    }

    #[test]
    fn the_scan_skips_strings_and_finds_numbers_beyond_doubles() {
        let scan = Scan::of(br#"{"a":"[[[1e400\"[","b":[[1e308]]}"#);
        assert_eq!(scan.deepest, 3);
        assert!(!scan.unholdable_number);
        assert!(Scan::of(b"[-1e400]").unholdable_number);
        assert!(Scan::of(format!("[1{}]", "0".repeat(400)).as_bytes()).unholdable_number);
        assert!(!Scan::of(b"[1e-400]").unholdable_number);
    }

    #[test]
    fn an_oversized_line_is_answered_with_the_id_of_its_head() {
        let refusal = oversized(
            br#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"#,
            16,
        );
        assert_eq!(refusal.id, Some(RequestId::Number(12)));
        assert_eq!(refusal.code, ErrorCode::INVALID_REQUEST);
        assert!(refusal.message.contains("16 bytes"), "{}", refusal.message);
    }
}
