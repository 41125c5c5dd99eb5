use toolset::{tool, toolset};

/// Search the inbox by free text.
#[tool(tier = "read_only")]
pub async fn search(query: String) -> String {
    query
}

toolset! {
    /// The inbox agent's tools.
    #[toolset(crate = toolset)]
    pub InboxTools = [search];
}

fn main() {}
