use toolset::tool;

/// Set an item's due date.
#[tool(tier = "reversible")]
pub async fn set_due_date((id, due): (u32, String)) -> String {
    format!("{id} {due}")
}

fn main() {}
