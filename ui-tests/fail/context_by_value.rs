use toolset::{tool, ToolContext};

/// Report progress while counting.
#[tool(tier = "read_only")]
pub async fn count(ctx: ToolContext, limit: u32) -> String {
    let _ = ctx;
    limit.to_string()
}

fn main() {}
