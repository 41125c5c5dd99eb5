//! A stand-in for the model: it replays recorded OpenAI Chat Completions responses, one
//! per turn, so the example runs offline with no API key. With `--stream` it replays the
//! turns that call tools as the SSE bodies a streamed request receives.

use serde_json::Value;

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
    Stream(&'static str),
}

/// Replays [`SCRIPT`] (or [`STREAMED`]); a real agent would call the provider's API here.
pub struct ScriptedModel {
    turn: usize,
    streaming: bool,
}

impl ScriptedModel {
    /// A model at the start of its script; `streaming` replays the recorded streams.
    pub fn new(streaming: bool) -> Self {
        ScriptedModel { turn: 0, streaming }
    }

    /// The next response, given the conversation so far (which a recording ignores).
    /// `None` once the script is over.
    pub fn respond(
        &mut self,
        _conversation: &[Value],
    ) -> Option<Result<(&'static str, Reply), String>> {
        let turn = self.turn;
        let (file, text) = SCRIPT.get(turn)?;
        self.turn += 1;
        if self.streaming
            && let Some(Some((file, body))) = STREAMED.get(turn)
        {
            return Some(Ok((*file, Reply::Stream(body))));
        }
        Some(
            serde_json::from_str(text)
                .map(|response| (*file, Reply::Completion(response)))
                .map_err(|error| format!("script/{file} is not valid JSON: {error}")),
        )
    }
}
