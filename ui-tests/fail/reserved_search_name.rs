use toolset::tool;

/// Search the issue tracker by free text.
#[tool(tier = "read_only")]
pub async fn tool_search(query: String) -> String {
    query
}

fn main() {}
