use toolset::tool;

/// SEND the reply. You prepare it; the user sends it.
#[tool(tier = "reversible", propose_only)]
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct SendReply {
    /// The recipient's address.
    pub to: String,
    /// The reply's text.
    pub body: String,
}

fn main() {}
