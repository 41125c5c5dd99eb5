use toolset::tool;

#[tool(tier = "read_only", description = "  ")]
pub async fn search(query: String) -> String {
    query
}

fn main() {}
