use toolset::tool;

/// Search the inbox by free text.
#[tool(tier = "read_only")]
pub async fn search(query: &str) -> String {
    query.to_owned()
}

fn main() {}
