use toolset::tool;

pub struct Inbox {
    pub items: Vec<String>,
}

pub struct Settings {
    pub max_items: usize,
}

/// Add an item to the inbox.
#[tool(tier = "reversible")]
pub async fn add_item(state: &mut Inbox, settings: &Settings, item: String) {
    if state.items.len() < settings.max_items {
        state.items.push(item);
    }
}

fn main() {}
