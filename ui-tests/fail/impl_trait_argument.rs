use toolset::tool;

/// Search the inbox by free text.
#[tool(tier = "read_only")]
pub async fn search(query: impl Into<String>) -> String {
    query.into()
}

fn main() {}
