use toolset::tool;

/// The inbox.
pub struct Inbox;

/// Count the inbox's items.
#[tool(tier = "read_only")]
pub async fn count(#[mcp_header("Inbox")] inbox: &Inbox) -> u32 {
    let _ = inbox;
    0
}

fn main() {}
