use toolset::tool;

/// Search the issue tracker by keywords.
#[tool(tier = "read_only", name = "tool_search_tool_bm25")]
pub async fn find_issues(query: String) -> String {
    query
}

fn main() {}
