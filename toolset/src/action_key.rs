//! The idempotency key of a call: canonical bytes of what it does, not of how the model
//! spelled it. The arguments are canonicalized as RFC 8785 (the JSON Canonicalization
//! Scheme, JCS) does, with one documented exception for large integers.

use crate::call::ToolCall;
use serde_json::{Number, Value};

impl ToolCall {
    /// Canonical bytes of the call's name and arguments, for idempotency: two calls that
    /// would do the same thing have the same key.
    ///
    /// The key is the name, a `0` byte, then the arguments as RFC 8785 (JCS) canonical
    /// JSON: object members sorted by the UTF-16 code units of their names at every
    /// depth, no insignificant whitespace, strings escaped as JCS says, and numbers in
    /// their ECMAScript form, so `100`, `100.0` and `1e2` are one number and `-0` is `0`.
    /// Key order, whitespace and the call id do not change the key. Empty arguments (`""`
    /// or whitespace, which models send for a tool without arguments) are keyed as `{}`,
    /// the way the gate reads them.
    ///
    /// One deliberate difference from JCS: JCS reads every number as an IEEE 754 double,
    /// so two integer ids above 2^53 that round to one double would share a key, and the
    /// second of two different actions would pass for a repeat of the first. An integer
    /// written without fraction or exponent keeps its exact digits instead (below 2^53
    /// these are its JCS form too). Integers beyond the 64-bit range reach the key through
    /// `serde_json`'s double, as in JCS.
    ///
    /// Arguments that are not valid JSON contribute their trimmed raw text, which can
    /// never equal a canonical JSON text (that is valid JSON).
    ///
    /// ```
    /// use toolset::ToolCall;
    ///
    /// let a = ToolCall::new("call_1", "set_due_date", r#"{"id": 4, "due": "2026-12-01"}"#);
    /// let b = ToolCall::new("call_9", "set_due_date", r#"{"due":"2026-12-01","id":4.0}"#);
    /// assert_eq!(a.action_key(), b.action_key());
    /// assert_eq!(a.action_key(), b"set_due_date\0{\"due\":\"2026-12-01\",\"id\":4}");
    /// ```
    pub fn action_key(&self) -> Vec<u8> {
        let mut key = Vec::with_capacity(self.name.len() + 64);
        key.extend_from_slice(self.name.as_bytes());
        key.push(0);
        if let Some(object) = self.arguments.as_value() {
            write_canonical(object, &mut key);
            return key;
        }
        let arguments = self.arguments.text();
        let arguments = arguments.trim();
        if arguments.is_empty() {
            key.extend_from_slice(b"{}");
            return key;
        }
        match serde_json::from_str::<Value>(arguments) {
            Ok(arguments) => write_canonical(&arguments, &mut key),
            Err(_) => key.extend_from_slice(arguments.as_bytes()),
        }
        key
    }
}

/// Writes `value` as JCS canonical JSON. The recursion is bounded by `serde_json`'s
/// parse depth limit.
pub(crate) fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(number) => write_number(number, out),
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
            // `preserve_order` feature the map keeps the model's order. JCS sorts by
            // UTF-16 code units, which differs from UTF-8 byte order above U+FFFF.
            let mut members: Vec<(&String, &Value)> = members.iter().collect();
            members.sort_unstable_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
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

/// Writes a number: an integer literal as its exact digits (see [`ToolCall::action_key`]
/// for why), any other number in the ECMAScript form JCS prescribes.
fn write_number(number: &Number, out: &mut Vec<u8>) {
    if let Some(integer) = number.as_u64() {
        out.extend_from_slice(integer.to_string().as_bytes());
    } else if let Some(integer) = number.as_i64() {
        out.extend_from_slice(integer.to_string().as_bytes());
    } else if let Some(double) = number.as_f64() {
        write_ecmascript_number(double, out);
    }
}

/// Writes a finite double as ECMAScript's `Number.prototype.toString` does (ECMA-262,
/// Number::toString), the number form of RFC 8785: `ryu-js` implements exactly that
/// (shortest round-trip digits, ties to even, ECMAScript's layout; `-0` as `0`).
fn write_ecmascript_number(value: f64, out: &mut Vec<u8>) {
    out.extend_from_slice(ryu_js::Buffer::new().format_finite(value).as_bytes());
}

/// Writes a JSON string literal escaped as JCS says: `"` and `\` escaped, the control
/// characters U+0000 to U+001F as `\b \t \n \f \r` or `\u00xx` (lowercase hex), every
/// other character as itself.
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
    use proptest::prelude::*;
    use serde_json::json;

    fn key(arguments: &str) -> Vec<u8> {
        ToolCall::new("id", "tool", arguments).action_key()
    }

    fn canonical(arguments: &str) -> String {
        let key = key(arguments);
        String::from_utf8(key[5..].to_vec()).expect("canonical JSON is UTF-8")
    }

    fn ecmascript(value: f64) -> String {
        let mut out = Vec::new();
        write_ecmascript_number(value, &mut out);
        String::from_utf8(out).expect("a number is ASCII")
    }

    /// RFC 8785, Appendix B: IEEE 754 doubles and their canonical form.
    #[test]
    fn numbers_match_the_rfc_8785_samples() {
        for (bits, expected) in [
            (0x0000000000000000_u64, "0"),
            (0x8000000000000000, "0"),
            (0x0000000000000001, "5e-324"),
            (0x8000000000000001, "-5e-324"),
            (0x7fefffffffffffff, "1.7976931348623157e+308"),
            (0xffefffffffffffff, "-1.7976931348623157e+308"),
            (0x4340000000000000, "9007199254740992"),
            (0xc340000000000000, "-9007199254740992"),
            (0x4430000000000000, "295147905179352830000"),
            (0x44b52d02c7e14af5, "9.999999999999997e+22"),
            (0x44b52d02c7e14af6, "1e+23"),
            (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
            (0x444b1ae4d6e2ef4e, "999999999999999700000"),
            (0x444b1ae4d6e2ef4f, "999999999999999900000"),
            (0x444b1ae4d6e2ef50, "1e+21"),
            (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
            (0x3eb0c6f7a0b5ed8d, "0.000001"),
            (0x41b3de4355555553, "333333333.3333332"),
            (0x41b3de4355555554, "333333333.33333325"),
            (0x41b3de4355555555, "333333333.3333333"),
            (0x41b3de4355555556, "333333333.3333334"),
            (0x41b3de4355555557, "333333333.33333343"),
            (0xbecbf647612f3696, "-0.0000033333333333333333"),
            (0x43143ff3c1cb0959, "1424953923781206.2"),
        ] {
            assert_eq!(ecmascript(f64::from_bits(bits)), expected, "{bits:016x}");
        }
    }

    /// RFC 8785, section 3.2.2: the example of a canonicalized object.
    #[test]
    fn the_rfc_8785_example_object_canonicalizes_as_the_rfc_shows() {
        let input = r#"{
            "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
            "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
            "literals": [null, true, false]
        }"#;
        assert_eq!(
            canonical(input),
            r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#
        );
    }

    /// RFC 8785, section 3.2.3: members sorted by UTF-16 code units, so an emoji (a
    /// surrogate pair, D83D...) sorts before U+FB33 although its UTF-8 bytes sort after.
    #[test]
    fn members_sort_by_utf16_code_units_as_in_rfc_8785() {
        let input = r#"{
            "\u20ac": "Euro Sign",
            "\r": "Carriage Return",
            "\ufb33": "Hebrew Letter Dalet With Dagesh",
            "1": "One",
            "\ud83d\ude00": "Emoji: Grinning Face",
            "\u0080": "Control",
            "\u00f6": "Latin Small Letter O With Diaeresis"
        }"#;
        let order = canonical(input);
        let positions: Vec<usize> = [
            "Carriage Return",
            "One",
            "Control",
            "Latin Small Letter O",
            "Euro Sign",
            "Emoji",
            "Hebrew Letter",
        ]
        .iter()
        .map(|name| order.find(name).expect("every member is kept"))
        .collect();
        assert!(positions.is_sorted(), "{order}");
    }

    #[test]
    fn one_number_spelled_three_ways_is_one_key() {
        assert_eq!(key(r#"{"n":100}"#), key(r#"{"n":100.0}"#));
        assert_eq!(key(r#"{"n":100}"#), key(r#"{"n":1e2}"#));
        assert_eq!(key(r#"{"n":100}"#), key(r#"{"n":1.00E+2}"#));
        assert_eq!(key(r#"{"n":0}"#), key(r#"{"n":-0}"#));
        assert_eq!(key(r#"{"n":0}"#), key(r#"{"n":-0.0}"#));
        assert_eq!(canonical(r#"{"n":-0.0}"#), r#"{"n":0}"#);
    }

    #[test]
    fn empty_arguments_are_keyed_as_an_empty_object() {
        assert_eq!(key(""), key("{}"));
        assert_eq!(key(" \n\t"), key("{ }"));
    }

    #[test]
    fn large_integer_ids_keep_their_exact_digits() {
        // Two ids that one double cannot tell apart (JCS would key both as
        // 1234567890123456800).
        assert_ne!(
            key(r#"{"id":1234567890123456789}"#),
            key(r#"{"id":1234567890123456788}"#)
        );
        assert_eq!(
            canonical(r#"{"id":18446744073709551615}"#),
            r#"{"id":18446744073709551615}"#
        );
        assert_eq!(
            canonical(r#"{"id":-9223372036854775808}"#),
            r#"{"id":-9223372036854775808}"#
        );
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
    fn strings_are_escaped_as_jcs_says() {
        let text = "quote\" back\\ nl\n tab\t bs\u{8} ff\u{c} bell\u{7} us\u{1f} del\u{7f} é 😀 /";
        let mut ours = Vec::new();
        write_string(text, &mut ours);
        assert_eq!(
            String::from_utf8(ours).expect("UTF-8"),
            "\"quote\\\" back\\\\ nl\\n tab\\t bs\\b ff\\f bell\\u0007 us\\u001f del\u{7f} é 😀 /\""
        );
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
        assert_ne!(key(r#"{"a":1}"#), key(r#"{"a":1.5}"#));
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
        let reparsed: Value =
            serde_json::from_str(&canonical(&value.to_string())).expect("canonical JSON parses");
        assert_eq!(reparsed, value);
    }

    /// A JSON value, with numbers of every kind serde_json reads.
    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<u64>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            (-1_000_000_i64..1_000_000).prop_map(Value::from),
            any::<f64>()
                .prop_filter("JSON numbers are finite", |x| x.is_finite())
                .prop_map(Value::from),
            "[a-z\\x00-\\x1f\"\\\\é😀\u{fb33}]{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::btree_map("[a-z\u{80}😀\u{fb33}]{0,3}", inner, 0..5)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    /// `value` written another way: members in reverse order, whitespace around every
    /// token, integers with a fraction or an exponent when a double holds them exactly,
    /// doubles in exponent form.
    fn respelled(value: &Value, flip: bool) -> String {
        match value {
            Value::Number(number) => match (number.as_i64(), number.as_f64()) {
                (Some(small), _) if small.unsigned_abs() < (1 << 53) && flip => {
                    format!("{small}.0")
                }
                (Some(small), _) if small.unsigned_abs() < (1 << 53) => format!("{small}e0"),
                (None, Some(double)) if !number.is_u64() => format!("{double:e}"),
                _ => number.to_string(),
            },
            Value::Array(items) => {
                let items: Vec<String> = items.iter().map(|item| respelled(item, !flip)).collect();
                format!("[ {} ]", items.join(" ,\n "))
            }
            Value::Object(members) => {
                let mut members: Vec<String> = members
                    .iter()
                    .map(|(name, member)| {
                        format!(
                            "{} :\t{}",
                            Value::from(name.as_str()),
                            respelled(member, !flip)
                        )
                    })
                    .collect();
                members.reverse();
                format!("{{ {} }}", members.join(" , "))
            }
            other => other.to_string(),
        }
    }

    proptest! {
        /// Equal JSON values give equal keys, however they are spelled.
        #[test]
        fn equal_json_values_give_equal_keys(value in json_value(), flip in any::<bool>()) {
            let plain = value.to_string();
            let other = respelled(&value, flip);
            let reread: Value = serde_json::from_str(&other)
                .map_err(|error| TestCaseError::fail(error.to_string()))?;
            prop_assert!(same_value(&reread, &value), "the respelling is the same value");
            prop_assert_eq!(key(&plain), key(&other), "{} vs {}", plain, other);
        }

        /// The key determines the value: canonical JSON reads back as the same value, so
        /// two different values never share a key.
        #[test]
        fn the_key_reads_back_as_the_value(value in json_value()) {
            let reparsed: Value = serde_json::from_str(&canonical(&value.to_string()))
                .map_err(|error| TestCaseError::fail(error.to_string()))?;
            prop_assert!(same_value(&reparsed, &value), "{} read back as {}", value, reparsed);
        }
    }

    /// JSON value equality where numbers compare by value: an integer literal equals
    /// another integer of the same digits, any other number the double it reads as.
    fn same_value(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) => match (x.as_i128(), y.as_i128()) {
                (Some(x), Some(y)) if !x_is_float(a) && !x_is_float(b) => x == y,
                _ => x.as_f64() == y.as_f64(),
            },
            (Value::Array(x), Value::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_value(x, y))
            }
            (Value::Object(x), Value::Object(y)) => {
                x.len() == y.len()
                    && x.iter().all(|(name, member)| {
                        y.get(name).is_some_and(|other| same_value(member, other))
                    })
            }
            _ => a == b,
        }
    }

    fn x_is_float(value: &Value) -> bool {
        value.as_number().is_some_and(Number::is_f64)
    }
}
