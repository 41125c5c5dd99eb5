use toolset::tool;

/// Searches the inbox.
#[tool(tier = "read_only", timeout_ms = 0)]
pub async fn search(query: String) -> String {
    query
}

fn main() {}
