use toolset::tool;

/// The new item. It derives `JsonSchema` but not `Deserialize`.
#[derive(schemars::JsonSchema)]
pub struct NewItem {
    pub subject: String,
}

/// Create an inbox item.
#[tool(tier = "reversible")]
pub async fn create_item(#[args] item: NewItem) -> String {
    item.subject
}

fn main() {}
