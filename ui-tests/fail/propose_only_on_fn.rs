use toolset::tool;

/// SEND the reply. You prepare it; the user sends it.
#[tool(tier = "irreversible", propose_only)]
pub async fn send_reply(to: String, body: String) {
    let _ = (to, body);
}

fn main() {}
