use toolset::tool;

/// Search the inbox, by free text if given.
#[tool(tier = "read_only")]
pub async fn search(query: Option<&str>) -> String {
    query.unwrap_or_default().to_owned()
}

fn main() {}
