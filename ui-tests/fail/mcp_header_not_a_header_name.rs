use toolset::tool;

/// Say the weather of a region.
#[tool(tier = "read_only")]
pub async fn weather(#[mcp_header("My Region")] region: String) -> String {
    region
}

fn main() {}
