//! A stand-in for the model: it replays recorded OpenAI Chat Completions responses, one
//! per turn, so the example runs offline with no API key.

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

/// Replays [`SCRIPT`]; a real agent would call the provider's API here.
pub struct ScriptedModel {
    turn: usize,
}

impl ScriptedModel {
    /// A model at the start of its script.
    pub fn new() -> Self {
        ScriptedModel { turn: 0 }
    }

    /// The next response, given the conversation so far (which a recording ignores).
    /// `None` once the script is over.
    pub fn respond(
        &mut self,
        _conversation: &[Value],
    ) -> Option<Result<(&'static str, Value), String>> {
        let (file, text) = SCRIPT.get(self.turn)?;
        self.turn += 1;
        Some(
            serde_json::from_str(text)
                .map(|response| (*file, response))
                .map_err(|error| format!("script/{file} is not valid JSON: {error}")),
        )
    }
}
