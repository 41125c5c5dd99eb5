use toolset::tool;

/// Search the inbox by free text.
#[tool(tier = "read_only", crate = "my facade")]
pub async fn search(query: String) -> String {
    query
}

fn main() {}
