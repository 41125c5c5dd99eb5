//! Who may call a tool, as a format's tool list says it: the `allowed_callers` field of
//! Anthropic's and OpenAI Responses' tool objects (the strings live in each consumer's
//! `tools.rs`). A [`Request`](crate::request::Request) with code execution appends it to each
//! tool's cached fragment, as it appends `defer_loading`: what code may call is the
//! request's policy's, so it is no part of a fragment rendered once per format.

use super::Format;
use serde_json::Value;

/// The `"allowed_callers":[…]` member for a tool the model's code may call
/// (`from_code`) or not, in `format`; `None` for a format whose tools have no such field
/// (OpenAI Chat Completions, Gemini, MCP, prompt text), where no call comes from code.
pub(crate) fn allowed_callers(format: Format, from_code: bool) -> Option<&'static str> {
    match (format, from_code) {
        (Format::Anthropic, false) => Some(super::anthropic::DIRECT_ONLY),
        (Format::Anthropic, true) => Some(super::anthropic::FROM_CODE),
        (Format::OpenAiResponses, false) => Some(super::openai_responses::DIRECT_ONLY),
        (Format::OpenAiResponses, true) => Some(super::openai_responses::FROM_CODE),
        _ => None,
    }
}

/// [`allowed_callers`]'s array as a JSON value: for a tool object built as a value (a
/// definition a local search loads, OpenAI Responses' `tool_search_output`).
pub(crate) fn allowed_callers_value(format: Format, from_code: bool) -> Option<Value> {
    let member = allowed_callers(format, from_code)?;
    let object: Value = serde_json::from_str(&format!("{{{member}}}")).ok()?;
    object.get("allowed_callers").cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_member_is_json_with_direct_first() {
        for format in Format::ALL {
            for from_code in [false, true] {
                let Some(callers) = allowed_callers_value(format, from_code) else {
                    assert!(allowed_callers(format, from_code).is_none());
                    continue;
                };
                let callers = callers.as_array().expect("an array");
                assert_eq!(callers[0], "direct");
                assert_eq!(callers.len() > 1, from_code, "{format:?}");
            }
        }
    }
}
