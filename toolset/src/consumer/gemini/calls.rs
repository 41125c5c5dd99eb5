//! Reading the calls of a Gemini `generateContent` response: its `functionCall` parts,
//! with ids synthesized where Gemini leaves them out.

use crate::call::ToolCall;
use crate::consumer::wire::{Node, Payload, json_text, reject_api_error};
use crate::consumer::{Format, ProviderError};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashSet;

// `ToolCall`'s reader for this consumer lives here, beside the parser, so `call.rs` imports
// no consumer.
impl ToolCall {
    /// The calls in a Gemini `generateContent` response (or a bare `Content`): its
    /// `functionCall` parts, with stable ids synthesized where Gemini omits them. See
    /// [`gemini::calls`](crate::consumer::gemini::calls).
    pub fn from_gemini(response: &Value) -> Result<Vec<ToolCall>, ProviderError> {
        calls(response)
    }
}

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
/// is synthesized as `call_<h>_<n>`: `n` counts the function calls of this message from
/// 0, and `h` is 12 hex digits of a SHA-256 over the name and arguments of this call and
/// every call before it. So the same message always yields the same ids (a streamed one
/// too, as it grows), calls of different turns get different ids (unless a turn repeats
/// an earlier one's calls exactly, from its first call on: key what must be unique by
/// [`ProposalId`](crate::approval::ProposalId)), and an id the message already uses is never
/// given again.
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
    let mut ids = CallIds::default();
    for (id, name, arguments) in found {
        let id = ids.next(id, name, &arguments, |id| taken.contains(id));
        calls.push(ToolCall::new(id, name, arguments));
    }
    Ok(calls)
}

/// The ids of a message's function calls, one call at a time in order, by the rule of
/// [`calls`]: the id the call gives, or one synthesized from the calls so far. The
/// stream (`gemini/stream.rs`) follows a growing message with it, at a cost per call
/// that does not grow with the calls before.
#[derive(Clone, Default)]
pub(crate) struct CallIds {
    /// What the calls so far say: their names and arguments.
    so_far: Sha256,
    count: usize,
}

impl std::fmt::Debug for CallIds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallIds")
            .field("count", &self.count)
            .finish_non_exhaustive()
    }
}

impl CallIds {
    /// The id of the next call (`given`, or synthesized); `taken` says whether an id is
    /// one the message gives a call.
    pub(crate) fn next(
        &mut self,
        given: Option<&str>,
        name: &str,
        arguments: &str,
        taken: impl Fn(&str) -> bool,
    ) -> String {
        self.so_far.update(name.as_bytes());
        self.so_far.update([0]);
        self.so_far.update(arguments.as_bytes());
        self.so_far.update([0]);
        let index = self.count;
        self.count += 1;
        match given {
            Some(id) => id.to_owned(),
            None => synthesized_id(&self.so_far, index, taken),
        }
    }
}

/// `call_<h>_<index>` with `h` from the hash of the calls so far, or, if the message
/// already uses that id, that id and `_<k>` for the first free `k`.
fn synthesized_id(so_far: &Sha256, index: usize, taken: impl Fn(&str) -> bool) -> String {
    let digest = so_far.clone().finalize();
    let hex = crate::digest::hex(&digest[..6]);
    let id = format!("call_{hex}_{index}");
    if !taken(&id) {
        return id;
    }
    (1..)
        .map(|k| format!("{id}_{k}"))
        .find(|id| !taken(id))
        .unwrap_or(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::borrow::Cow;

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
        let read: Vec<(&str, Cow<'_, str>)> = calls
            .iter()
            .map(|call| (call.name.as_str(), call.arguments.text()))
            .collect();
        assert_eq!(
            read,
            [
                ("search", Cow::Borrowed(r#"{"limit":3,"query":"x"}"#)),
                ("now", Cow::Borrowed("{}"))
            ]
        );
        assert!(calls[0].id.starts_with("call_") && calls[0].id.ends_with("_0"));
        assert!(calls[1].id.ends_with("_1"));
    }

    #[test]
    fn synthesized_ids_differ_across_turns_and_keep_their_prefix_as_a_message_grows() {
        let turn = |query: &str| {
            json!({"role": "model", "parts": [
                {"functionCall": {"name": "search", "args": {"query": query}}},
                {"functionCall": {"name": "now"}},
            ]})
        };
        let first = calls(&turn("a")).expect("valid");
        let second = calls(&turn("b")).expect("valid");
        assert_ne!(first[0].id, second[0].id, "two turns, two ids");
        assert_ne!(first[1].id, second[1].id);
        let shorter = json!({"role": "model", "parts": [
            {"functionCall": {"name": "search", "args": {"query": "a"}}},
        ]});
        assert_eq!(calls(&shorter).expect("valid")[0].id, first[0].id);
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
        let alone = json!({"role": "model", "parts": [{"functionCall": {"name": "a"}}]});
        let synthesized = calls(&alone).expect("valid")[0].id.clone();
        let content = json!({"role": "model", "parts": [
            {"functionCall": {"name": "a"}},
            {"functionCall": {"id": synthesized, "name": "b"}},
        ]});
        let first = calls(&content).expect("a valid content");
        let again = calls(&content).expect("a valid content");
        assert_eq!(first, again);
        assert_eq!(first[0].id, format!("{synthesized}_1"));
        assert_eq!(first[1].id, synthesized);
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
