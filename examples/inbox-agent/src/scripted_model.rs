//! A stand-in for the model: it replays recorded OpenAI Chat Completions responses, one
//! per turn, so the example runs offline with no API key. With `--stream` it replays the
//! turns that call tools as the SSE bodies a streamed request receives.
//!
//! A provider gives every call an id of its own (`call_` and random letters); the
//! recording has fixed ones (`call_1a`, ...). The replay appends a suffix drawn once per
//! run (`call_1a-3f9c2e`), so two runs of the recording are two conversations with
//! distinct calls, as two real ones would be: the effect journal keys a call by its id
//! and arguments, and refuses a call it has seen start before (a model resending a call
//! it already made). Without the suffix a second run against the same database would
//! find every write already started and run none of them.

use serde_json::Value;
use toolset::testing::{self, Model};

/// The recorded responses, in the order the model "sends" them.
const SCRIPT: [(&str, &str); 5] = [
    (
        "1-bad-program.json",
        include_str!("../script/1-bad-program.json"),
    ),
    (
        "2-corrected-program.json",
        include_str!("../script/2-corrected-program.json"),
    ),
    (
        "3-tool-search.json",
        include_str!("../script/3-tool-search.json"),
    ),
    (
        "4-label-items.json",
        include_str!("../script/4-label-items.json"),
    ),
    (
        "5-final-answer.json",
        include_str!("../script/5-final-answer.json"),
    ),
];

/// The same turns as recorded streams (`"stream": true`), where they call tools. The
/// final answer has no calls to assemble and is replayed from its JSON.
const STREAMED: [Option<(&str, &str)>; 3] = [
    Some((
        "1-bad-program.sse",
        include_str!("../script/1-bad-program.sse"),
    )),
    Some((
        "2-corrected-program.sse",
        include_str!("../script/2-corrected-program.sse"),
    )),
    None,
];

/// One turn of the model.
pub enum Reply {
    /// A whole `chat.completion` response.
    Completion(Value),
    /// The SSE body of a streamed response.
    Stream(String),
}

/// Replays [`SCRIPT`] (or [`STREAMED`]) through toolset's own
/// [`testing::ScriptedModel`](toolset::testing::ScriptedModel), which gives every call id
/// this run's suffix; a real agent would call the provider's API here.
pub struct ScriptedModel {
    turn: usize,
    streaming: bool,
    recorded: Result<testing::ScriptedModel, String>,
}

impl ScriptedModel {
    /// A model at the start of its script; `streaming` replays the recorded streams.
    pub fn new(streaming: bool) -> Self {
        let recorded = SCRIPT
            .iter()
            .map(|(file, text)| {
                serde_json::from_str(text)
                    .map_err(|error| format!("script/{file} is not valid JSON: {error}"))
            })
            .collect::<Result<Vec<Value>, String>>()
            .map(testing::ScriptedModel::new);
        ScriptedModel {
            turn: 0,
            streaming,
            recorded,
        }
    }

    /// The next response, given the conversation so far (which a recording ignores).
    /// `None` once the script is over.
    pub fn respond(
        &mut self,
        conversation: &[Value],
    ) -> Option<Result<(&'static str, Reply), String>> {
        let turn = self.turn;
        let (file, _) = SCRIPT.get(turn)?;
        self.turn += 1;
        let recorded = match &mut self.recorded {
            Ok(recorded) => recorded,
            Err(error) => return Some(Err(error.clone())),
        };
        let suffix = recorded.suffix().to_owned();
        let response = recorded.respond(conversation, "")?;
        if self.streaming
            && let Some(Some((file, body))) = STREAMED.get(turn)
        {
            // The same calls, streamed: their ids get the same suffix.
            let mut body = (*body).to_owned();
            let calls = response
                .pointer("/choices/0/message/tool_calls")
                .and_then(Value::as_array);
            for call in calls.into_iter().flatten() {
                if let Some(id) = call["id"].as_str().and_then(|id| id.strip_suffix(&suffix)) {
                    body = body.replace(
                        &format!("\"id\":\"{id}\""),
                        &format!("\"id\":\"{id}{suffix}\""),
                    );
                }
            }
            return Some(Ok((*file, Reply::Stream(body))));
        }
        Some(Ok((*file, Reply::Completion(response))))
    }
}
