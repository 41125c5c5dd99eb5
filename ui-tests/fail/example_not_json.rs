use toolset::tool;

/// Search the inbox by free text.
#[tool(tier = "read_only", example = r#"{query: "invoices"}"#)]
pub async fn search(query: String) -> String {
    query
}

fn main() {}
