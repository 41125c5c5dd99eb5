use toolset::{tool, toolset};

/// Search the inbox by free text.
#[tool(tier = "read_only")]
pub async fn search(query: String) -> String {
    query
}

/// The reply to send. Not declared with `#[tool]`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct SendReply {
    pub to: String,
    pub body: String,
}

toolset! {
    /// The inbox agent's tools.
    pub InboxTools = [search, SendReply];
}

fn main() {}
