use toolset::tool;

/// Tag an inbox item.
#[tool(tier = "reversible")]
pub async fn tag_item(
    /// The tags: a list, which no one header can carry.
    #[mcp_header("Tags")]
    tags: Vec<String>,
) -> String {
    tags.join(", ")
}

fn main() {}
