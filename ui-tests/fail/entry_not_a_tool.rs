use toolset::{tool, toolset};

/// Search the inbox by free text.
#[tool(tier = "read_only")]
pub async fn search(query: String) -> String {
    query
}

/// Archive an item. Not declared with `#[tool]`.
pub async fn archive(id: u32) -> String {
    format!("archived {id}")
}

toolset! {
    /// The inbox agent's tools.
    pub InboxTools = [search, archive];
}

fn main() {}
