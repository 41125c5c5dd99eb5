use toolset::tool;

fn archive_preview(id: u32) -> String {
    format!("archive item {id}")
}

/// Archive an item.
#[tool(tier = "reversible", preview = archive_preview)]
pub async fn archive(id: u32) -> String {
    format!("archived {id}")
}

fn main() {}
