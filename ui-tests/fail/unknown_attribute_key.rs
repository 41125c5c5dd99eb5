use toolset::tool;

#[tool(tier = "read_only", descripton = "Search the inbox by free text.")]
pub async fn search(query: String) -> String {
    query
}

fn main() {}
