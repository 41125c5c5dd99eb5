//! Reading the calls of a Gemini `generateContent` response: its `functionCall` parts,
//! with ids synthesized where Gemini leaves them out.

use crate::ToolCall;
use crate::consumer::wire::{Node, Payload, json_text, reject_api_error};
use crate::consumer::{Format, ProviderError};
use serde_json::Value;
use std::collections::HashSet;

const PAYLOAD: Payload = Payload {
    format: Format::Gemini,
    subject: "Gemini response",
};

/// The calls in a Gemini `generateContent` response ([`ToolCall::from_gemini`] delegates
/// here).
///
/// `response` is a `GenerateContentResponse` (the parts of `candidates[0].content` are
/// read) or a bare `Content` (`{"role": "model", "parts": [...]}`). Each `functionCall`
/// part becomes a call, in order: its `name`, its `args` object serialized as compact
/// JSON text (`"{}"` when absent), and its `id`. Gemini often omits ids; a missing one
/// is synthesized as `call_<n>`, `n` counting the function calls of this message from
/// 0, so the same message always yields the same ids (and never one the message
/// already uses).
///
/// A response without candidates (a blocked prompt: check its `promptFeedback`) or a
/// candidate without content or parts (e.g. stopped for safety or length) has no
/// calls.
pub fn calls(response: &Value) -> Result<Vec<ToolCall>, ProviderError> {
    let root = Node::root(PAYLOAD, response);
    reject_api_error(&root)?;
    root.object("a GenerateContentResponse object or a Content object")?;
    let content = if let Some(candidates) = root.field("candidates") {
        let candidates = candidates.items("an array of candidates")?;
        let Some(candidate) = candidates.first() else {
            return Ok(Vec::new());
        };
        candidate.object("a candidate object")?;
        match candidate.field("content") {
            Some(content) => content,
            None => return Ok(Vec::new()),
        }
    } else if root.field("parts").is_some() || root.field("role").is_some() {
        root
    } else if root.field("promptFeedback").is_some() {
        // A blocked prompt: the response has no candidates at all.
        return Ok(Vec::new());
    } else {
        return Err(root.error(
            "has neither `candidates` (a GenerateContentResponse) nor `parts` (a Content)",
        ));
    };
    content.object("a Content object with `parts`")?;
    let Some(parts) = content.field("parts") else {
        return Ok(Vec::new());
    };

    let mut found = Vec::new();
    for part in parts.items("an array of parts")? {
        part.object("a part object")?;
        let Some(call) = part.field("functionCall") else {
            continue;
        };
        call.object("a FunctionCall object with `name` and `args`")?;
        let name = call.required_str("name")?;
        let id = match call.field("id") {
            Some(id) => Some(id.str("a string")?),
            None => None,
        };
        let arguments = match call.field("args") {
            Some(args) => {
                args.object("an object holding the function's arguments")?;
                json_text(args.value())
            }
            None => "{}".to_owned(),
        };
        found.push((id, name, arguments));
    }

    let taken: HashSet<&str> = found.iter().filter_map(|(id, _, _)| *id).collect();
    let mut calls = Vec::with_capacity(found.len());
    for (index, (id, name, arguments)) in found.into_iter().enumerate() {
        let id = match id {
            Some(id) => id.to_owned(),
            None => synthesized_id(index, &taken),
        };
        calls.push(ToolCall::new(id, name, arguments));
    }
    Ok(calls)
}

/// `call_<index>`, or, if the message already uses that id, `call_<index>_<k>` for the
/// first free `k`.
fn synthesized_id(index: usize, taken: &HashSet<&str>) -> String {
    let id = format!("call_{index}");
    if !taken.contains(id.as_str()) {
        return id;
    }
    (1..)
        .map(|k| format!("call_{index}_{k}"))
        .find(|id| !taken.contains(id.as_str()))
        .unwrap_or(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_function_calls_of_the_first_candidate() {
        let response = json!({
            "candidates": [{
                "content": {"role": "model", "parts": [
                    {"text": "Looking."},
                    {"functionCall": {"name": "search", "args": {"limit": 3, "query": "x"}}},
                    {"functionCall": {"name": "now"}},
                ]},
                "finishReason": "STOP", "index": 0
            }]
        });
        let calls = calls(&response).expect("a valid response");
        assert_eq!(
            calls,
            vec![
                ToolCall::new("call_0", "search", r#"{"limit":3,"query":"x"}"#),
                ToolCall::new("call_1", "now", "{}"),
            ]
        );
    }

    #[test]
    fn reads_a_bare_content_and_keeps_given_ids() {
        let content = json!({"role": "model", "parts": [
            {"functionCall": {"id": "abc", "name": "now", "args": {}}},
        ]});
        let calls = calls(&content).expect("a valid content");
        assert_eq!(calls, vec![ToolCall::new("abc", "now", "{}")]);
    }

    #[test]
    fn synthesized_ids_are_stable_and_never_collide_with_given_ones() {
        let content = json!({"role": "model", "parts": [
            {"functionCall": {"name": "a"}},
            {"functionCall": {"id": "call_0", "name": "b"}},
        ]});
        let first = calls(&content).expect("a valid content");
        let again = calls(&content).expect("a valid content");
        assert_eq!(first, again);
        assert_eq!(first[0].id, "call_0_1");
        assert_eq!(first[1].id, "call_0");
    }

    #[test]
    fn responses_without_content_have_no_calls() {
        for response in [
            json!({"candidates": []}),
            json!({"candidates": [{"finishReason": "SAFETY"}]}),
            json!({"candidates": [{"content": {"role": "model"}, "finishReason": "MAX_TOKENS"}]}),
            json!({"promptFeedback": {"blockReason": "SAFETY"}}),
        ] {
            let calls = calls(&response).expect("a valid response");
            assert!(calls.is_empty(), "{response}");
        }
    }

    #[test]
    fn envelope_errors_name_the_path() {
        let cases = [
            (
                json!({"candidates": [{"content": {"parts": [{"functionCall": {"name": "a", "args": [1]}}]}}]}),
                "Gemini response: candidates[0].content.parts[0].functionCall.args has the wrong type: expected an object holding the function's arguments, found an array",
            ),
            (
                json!({"parts": [{"text": "x"}, {"functionCall": {"args": {}}}]}),
                "Gemini response: parts[1].functionCall.name is missing (expected a string)",
            ),
            (
                json!({"usageMetadata": {}}),
                "Gemini response: the top-level value has neither `candidates` (a GenerateContentResponse) nor `parts` (a Content)",
            ),
            (
                json!({"parts": [{"functionCall": {"name": "a", "id": 3}}]}),
                "Gemini response: parts[0].functionCall.id has the wrong type: expected a string, found a number",
            ),
        ];
        for (input, expected) in cases {
            let error = calls(&input).expect_err("a malformed response");
            assert_eq!(error.to_string(), expected);
        }
    }
}
