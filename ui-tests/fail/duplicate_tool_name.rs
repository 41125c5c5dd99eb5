use toolset::{tool, toolset};

/// Search the inbox by free text.
#[tool(tier = "read_only")]
pub async fn search(query: String) -> String {
    query
}

/// Search the archive by free text.
#[tool(tier = "read_only", name = "search")]
pub async fn search_archive(query: String) -> String {
    query
}

toolset! {
    /// The inbox agent's tools.
    pub InboxTools = [search, search_archive];
}

fn main() {}
