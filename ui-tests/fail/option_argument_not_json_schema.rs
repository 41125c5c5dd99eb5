use toolset::tool;

/// A date range. It derives `Deserialize` but not `JsonSchema`.
#[derive(serde::Deserialize)]
pub struct Range {
    pub from: String,
    pub to: String,
}

/// List the items due, within a range of dates if one is given.
#[tool(tier = "read_only")]
pub async fn due(range: Option<Range>) -> String {
    range
        .map(|range| format!("{} to {}", range.from, range.to))
        .unwrap_or_default()
}

fn main() {}
