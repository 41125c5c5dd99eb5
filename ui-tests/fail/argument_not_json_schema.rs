use toolset::tool;

/// A date range. It derives `Deserialize` but not `JsonSchema`.
#[derive(serde::Deserialize)]
pub struct Range {
    pub from: String,
    pub to: String,
}

/// List the items due within a range of dates.
#[tool(tier = "read_only")]
pub async fn due_within(range: Range) -> String {
    format!("{} to {}", range.from, range.to)
}

fn main() {}
