//! Models for tests: run an agent's conversation offline, through the
//! [`Driver`](crate::Driver), with no API key.
//!
//! A [`Model`] answers a conversation with the next response, in the driver's format. Two
//! stand-ins are here: [`ScriptedModel`] replays recorded responses in order (what the
//! provider once answered, saved as JSON), and [`FunctionModel`] answers with a closure
//! of the conversation so far and the tools offered. Both give each call id a suffix of
//! their own, new for each model, as a provider's ids are unique: the effect journal
//! refuses a call it saw start before, so a replayed recording with fixed ids would run no
//! write the second time.
//!
//! A user's own test, through the driver:
//!
//! ```
//! use serde_json::{Value, json};
//! use toolset::prelude::*;
//! use toolset::testing::{FunctionModel, Model};
//! use toolset::{Autonomy, Driver, MemoryStore, ToolContext, tool, toolset};
//!
//! /// Add a note.
//! #[tool(tier = "reversible")]
//! async fn add(notes: &mut Vec<String>, /// The note.
//!     text: String) -> String { notes.push(text); "added".into() }
//!
//! toolset! { Notes<Vec<String>> = [add]; }
//!
//! # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
//! // The model adds a note, then answers.
//! let mut model = FunctionModel::new(|conversation: &[Value], _tools: &str| {
//!     if conversation.iter().any(|message| message["role"] == "tool") {
//!         json!({"role": "assistant", "content": "Done."})
//!     } else {
//!         json!({"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
//!             "function": {"name": "add", "arguments": "{\"text\":\"milk\"}"}}]})
//!     }
//! });
//! let driver = Driver::new(Notes::policy(Autonomy::Reversible), MemoryStore::new());
//! let mut conversation = driver.start()?;
//! let (mut notes, ctx) = (Vec::new(), ToolContext::default());
//! let mut transcript = vec![json!({"role": "user", "content": "Remember milk."})];
//! loop {
//!     let next = conversation.next_request()?;
//!     transcript.extend(next.messages);
//!     let response = model.respond(&transcript, &next.tools).expect("the model answers");
//!     transcript.push(response.clone());
//!     let turn = conversation.respond(&response, &mut notes, &ctx).await?;
//!     if !turn.called { break }
//!     for message in turn.messages {
//!         // OpenAI Chat: one `role: "tool"` message a call.
//!         transcript.extend(message.as_array().cloned().unwrap_or_default());
//!     }
//! }
//! assert_eq!(notes, ["milk"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use serde_json::Value;
use std::collections::VecDeque;
use std::hash::{BuildHasher, Hasher};

/// A model as a test sees it: the next response to a conversation.
pub trait Model {
    /// The model's response to `conversation` (the messages so far, in the format the host
    /// speaks) with `tools` offered (the request's tool list, JSON text); `None` once it
    /// has nothing more to say.
    fn respond(&mut self, conversation: &[Value], tools: &str) -> Option<Value>;
}

/// Replays recorded responses in order, whatever the conversation says, each call id
/// given this model's suffix (see the [module](self) docs).
#[derive(Debug, Clone)]
pub struct ScriptedModel {
    responses: VecDeque<Value>,
    suffix: String,
}

impl ScriptedModel {
    /// A model that answers with `responses`, in order (OpenAI Chat messages or
    /// completions, OpenAI Responses, Anthropic messages or Gemini responses).
    pub fn new(responses: impl IntoIterator<Item = Value>) -> Self {
        ScriptedModel {
            responses: responses.into_iter().collect(),
            suffix: random_suffix(),
        }
    }

    /// The suffix this model appends to every call id (`-` and six hex digits).
    pub fn suffix(&self) -> &str {
        &self.suffix
    }

    /// How many responses are left.
    pub fn remaining(&self) -> usize {
        self.responses.len()
    }
}

impl Model for ScriptedModel {
    fn respond(&mut self, _conversation: &[Value], _tools: &str) -> Option<Value> {
        let mut response = self.responses.pop_front()?;
        suffix_call_ids(&mut response, &self.suffix);
        Some(response)
    }
}

/// Answers with a closure of the conversation and the tools offered, each call id given
/// this model's suffix.
pub struct FunctionModel<F> {
    answer: F,
    suffix: String,
}

impl<F> std::fmt::Debug for FunctionModel<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FunctionModel")
            .field("suffix", &self.suffix)
            .finish_non_exhaustive()
    }
}

impl<F: FnMut(&[Value], &str) -> Value> FunctionModel<F> {
    /// A model answering with `answer(conversation, tools)`.
    pub fn new(answer: F) -> Self {
        FunctionModel {
            answer,
            suffix: random_suffix(),
        }
    }
}

impl<F: FnMut(&[Value], &str) -> Value> Model for FunctionModel<F> {
    fn respond(&mut self, conversation: &[Value], tools: &str) -> Option<Value> {
        let mut response = (self.answer)(conversation, tools);
        suffix_call_ids(&mut response, &self.suffix);
        Some(response)
    }
}

/// `-` and six hex digits, new for each process and call.
fn random_suffix() -> String {
    // `RandomState` is seeded randomly: random enough for test ids.
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    format!("-{:06x}", random & 0xff_ffff)
}

/// Appends `suffix` to every call id of `response`, in each format's place for it: OpenAI
/// Chat `tool_calls[].id` (in a message or a completion's first choice), OpenAI Responses
/// `output[].call_id` of function calls, Anthropic `content[].id` of `tool_use` blocks,
/// Gemini `functionCall.id` where the model gave one (a call without one gets a
/// synthesized id, already unique to its run).
pub fn suffix_call_ids(response: &mut Value, suffix: &str) {
    let suffixed = |id: Option<&mut Value>| {
        if let Some(Value::String(id)) = id {
            id.push_str(suffix);
        }
    };
    let message = match response.pointer_mut("/choices/0/message") {
        Some(message) => message,
        None => &mut *response,
    };
    if let Some(Value::Array(calls)) = message.get_mut("tool_calls") {
        calls
            .iter_mut()
            .for_each(|call| suffixed(call.get_mut("id")));
    }
    if let Some(Value::Array(output)) = response.get_mut("output") {
        for item in output
            .iter_mut()
            .filter(|item| item["type"] == "function_call")
        {
            suffixed(item.get_mut("call_id"));
        }
    }
    if let Some(Value::Array(content)) = response.get_mut("content") {
        for block in content
            .iter_mut()
            .filter(|block| block["type"] == "tool_use")
        {
            suffixed(block.get_mut("id"));
        }
    }
    if let Some(Value::Array(candidates)) = response.get_mut("candidates") {
        for candidate in candidates {
            if let Some(Value::Array(parts)) = candidate.pointer_mut("/content/parts") {
                for part in parts {
                    suffixed(part.pointer_mut("/functionCall/id"));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_format_s_call_ids_get_the_suffix_and_nothing_else_changes() {
        let mut chat =
            json!({"choices": [{"message": {"tool_calls": [{"id": "a"}, {"id": "b"}]}}]});
        let mut responses = json!({"output": [{"type": "function_call", "call_id": "a"},
                                              {"type": "message", "call_id": "x"}]});
        let mut anthropic =
            json!({"content": [{"type": "tool_use", "id": "a"}, {"type": "text", "id": "t"}]});
        let mut gemini = json!({"candidates": [{"content": {"parts": [
            {"functionCall": {"id": "a"}}, {"functionCall": {"name": "n"}}]}}]});
        for response in [&mut chat, &mut responses, &mut anthropic, &mut gemini] {
            suffix_call_ids(response, "-1");
        }
        assert_eq!(chat["choices"][0]["message"]["tool_calls"][1]["id"], "b-1");
        assert_eq!(responses["output"][0]["call_id"], "a-1");
        assert_eq!(responses["output"][1]["call_id"], "x");
        assert_eq!(anthropic["content"][0]["id"], "a-1");
        assert_eq!(anthropic["content"][1]["id"], "t");
        assert_eq!(
            gemini["candidates"][0]["content"]["parts"][0]["functionCall"]["id"],
            "a-1"
        );
        assert!(
            gemini["candidates"][0]["content"]["parts"][1]["functionCall"]
                .get("id")
                .is_none()
        );
    }

    #[test]
    fn a_scripted_model_replays_in_order_then_stops() {
        let mut model = ScriptedModel::new([json!({"n": 1}), json!({"n": 2})]);
        assert_eq!(model.respond(&[], "[]"), Some(json!({"n": 1})));
        assert_eq!(model.remaining(), 1);
        assert_eq!(model.respond(&[], "[]"), Some(json!({"n": 2})));
        assert_eq!(model.respond(&[], "[]"), None);
    }
}
