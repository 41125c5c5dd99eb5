use toolset::tool;

#[tool(tier = "read_only")]
pub async fn search(query: String) -> String {
    query
}

fn main() {}
