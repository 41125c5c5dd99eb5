use toolset::tool;

/// The new item.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct NewItem {
    pub subject: String,
}

/// Create an inbox item.
#[tool(tier = "reversible")]
pub async fn create_item(#[args] item: NewItem, urgent: bool) -> String {
    format!("{} {urgent}", item.subject)
}

fn main() {}
