use toolset::tool;

/// Search the inbox by free text.
#[tool]
pub async fn search(query: String) -> String {
    query
}

fn main() {}
