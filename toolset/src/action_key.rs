//! The idempotency key of a call: canonical bytes of what it does, not of how the model
//! spelled it.

use crate::ToolCall;
use serde_json::Value;

impl ToolCall {
    /// Canonical bytes of the call's name and arguments, for idempotency: two calls that
    /// would do the same thing have the same key.
    ///
    /// The key is the name, a `0` byte, then the arguments as canonical JSON: object keys
    /// sorted (by their UTF-8 bytes) at every depth, no insignificant whitespace, strings
    /// escaped and numbers printed as `serde_json` prints them. So key order and
    /// whitespace do not change the key; the call id does not count. Arguments that are
    /// not valid JSON contribute their trimmed raw text (which can never equal a canonical
    /// JSON text, since that is valid JSON).
    ///
    /// ```
    /// use toolset::ToolCall;
    ///
    /// let a = ToolCall::new("call_1", "set_due_date", r#"{"id": 4, "due": "2026-12-01"}"#);
    /// let b = ToolCall::new("call_9", "set_due_date", r#"{"due":"2026-12-01","id":4}"#);
    /// assert_eq!(a.action_key(), b.action_key());
    /// assert_eq!(a.action_key(), b"set_due_date\0{\"due\":\"2026-12-01\",\"id\":4}");
    /// ```
    pub fn action_key(&self) -> Vec<u8> {
        let mut key = Vec::with_capacity(self.name.len() + 1 + self.arguments.len());
        key.extend_from_slice(self.name.as_bytes());
        key.push(0);
        match serde_json::from_str::<Value>(&self.arguments) {
            Ok(arguments) => write_canonical(&arguments, &mut key),
            Err(_) => key.extend_from_slice(self.arguments.trim().as_bytes()),
        }
        key
    }
}

/// Writes `value` as canonical JSON. The recursion is bounded by `serde_json`'s parse
/// depth limit.
pub(crate) fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(number) => out.extend_from_slice(number.to_string().as_bytes()),
        Value::String(text) => write_string(text, out),
        Value::Array(items) => {
            out.push(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_canonical(item, out);
            }
            out.push(b']');
        }
        Value::Object(members) => {
            // Sorted here rather than trusting the map's order: with serde_json's
            // `preserve_order` feature (which any crate in the build may enable) the map
            // keeps the model's order.
            let mut members: Vec<(&String, &Value)> = members.iter().collect();
            members.sort_unstable_by(|(a, _), (b, _)| a.as_bytes().cmp(b.as_bytes()));
            out.push(b'{');
            for (index, (name, member)) in members.into_iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_string(name, out);
                out.push(b':');
                write_canonical(member, out);
            }
            out.push(b'}');
        }
    }
}

/// Writes a JSON string literal, escaped exactly as `serde_json` escapes it.
fn write_string(text: &str, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    for &byte in text.as_bytes() {
        match byte {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            0x00..=0x1f => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 0xf)],
            ]),
            _ => out.push(byte),
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(arguments: &str) -> Vec<u8> {
        ToolCall::new("id", "tool", arguments).action_key()
    }

    #[test]
    fn key_order_and_whitespace_do_not_change_the_key() {
        assert_eq!(
            key(r#"{"b": {"y": 1, "x": [2, {"d": 1, "c": 0}]}, "a": null}"#),
            key("{\n  \"a\":null,\"b\":{\"x\":[2,{\"c\":0,\"d\":1}],\"y\":1}}")
        );
    }

    #[test]
    fn key_is_name_zero_byte_then_canonical_json() {
        assert_eq!(
            key(r#" { "b" : [1, 2.5, true], "a" : "x" } "#),
            b"tool\0{\"a\":\"x\",\"b\":[1,2.5,true]}".to_vec()
        );
    }

    #[test]
    fn strings_are_escaped_like_serde_json() {
        let text = "quote\" back\\ nl\n tab\t bell\u{7} del\u{7f} é 😀 /";
        let mut ours = Vec::new();
        write_string(text, &mut ours);
        assert_eq!(ours, Value::from(text).to_string().into_bytes());
    }

    #[test]
    fn the_call_id_does_not_count() {
        let a = ToolCall::new("call_1", "tool", "{}");
        let b = ToolCall::new("call_2", "tool", "{}");
        assert_eq!(a.action_key(), b.action_key());
    }

    #[test]
    fn different_names_or_arguments_differ() {
        assert_ne!(key(r#"{"a":1}"#), key(r#"{"a":2}"#));
        assert_ne!(key(r#"{"a":1}"#), key(r#"{"a":"1"}"#));
        assert_ne!(
            ToolCall::new("id", "x", "{}").action_key(),
            ToolCall::new("id", "y", "{}").action_key()
        );
        // The 0 byte keeps name and arguments apart.
        assert_ne!(
            ToolCall::new("id", "ab", "1").action_key(),
            ToolCall::new("id", "a", "b1").action_key()
        );
    }

    #[test]
    fn invalid_json_uses_the_trimmed_raw_text() {
        assert_eq!(key("  {query: x} \n"), b"tool\0{query: x}".to_vec());
        assert_eq!(key("{query: x}"), key(" {query: x}"));
    }

    #[test]
    fn nested_values_round_trip_through_serde_json() {
        let value = json!({"z": [{"b": 1, "a": [null, false, -3, 1.5e300]}], "é": "\u{1}"});
        let canonical = key(&value.to_string());
        let text = std::str::from_utf8(&canonical[5..]).expect("canonical JSON is UTF-8");
        let reparsed: Value = serde_json::from_str(text).expect("canonical JSON parses");
        assert_eq!(reparsed, value);
    }
}
