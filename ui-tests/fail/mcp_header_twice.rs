use toolset::tool;

/// Move an item between regions.
#[tool(tier = "reversible")]
pub async fn move_item(
    #[mcp_header("Region")] from: String,
    #[mcp_header("region")] to: String,
) -> String {
    format!("{from} -> {to}")
}

fn main() {}
