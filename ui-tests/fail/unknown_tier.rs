use toolset::tool;

/// Search the inbox by free text.
#[tool(tier = "readonly")]
pub async fn search(query: String) -> String {
    query
}

fn main() {}
