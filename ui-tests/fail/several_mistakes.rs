use toolset::tool;

#[tool(tier = "read-only", titel = "Search")]
pub async fn search(query: String) -> String {
    query
}

fn main() {}
