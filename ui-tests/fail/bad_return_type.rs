use toolset::tool;

/// Count the items in the inbox.
#[tool(tier = "read_only")]
pub async fn count() -> usize {
    3
}

fn main() {}
