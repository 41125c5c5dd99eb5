use toolset::tool;

/// SEND the reply. You prepare it; the user sends it.
#[tool(tier = "irreversible")]
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct SendReply {
    /// The recipient's address.
    pub to: String,
    /// The reply's text.
    pub body: String,
}

fn main() {}
