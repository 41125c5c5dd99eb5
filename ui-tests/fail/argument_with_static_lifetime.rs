use serde::Deserialize;
use schemars::JsonSchema;
use toolset::tool;

/// A piece of text the model sends.
#[derive(Deserialize, JsonSchema)]
pub struct Text<'a> {
    /// The words.
    pub words: &'a str,
}

/// Search the inbox by free text.
#[tool(tier = "read_only")]
pub async fn search(text: Text<'static>) -> String {
    text.words.to_owned()
}

fn main() {}
