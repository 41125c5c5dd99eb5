use toolset::tool;

/// Search the inbox by free text.
#[tool(description = "Search the inbox by free text.")]
pub async fn search(query: String) -> String {
    query
}

fn main() {}
