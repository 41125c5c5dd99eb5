use toolset::tool;

/// Search the inbox by free text.
#[tool(example = {"query": "invoices"}, tier = "read_only")]
pub async fn search(query: String) -> String {
    query
}

fn main() {}
