use toolset::tool;

pub struct Inbox {
    pub items: Vec<String>,
}

impl Inbox {
    /// Count the items in the inbox.
    #[tool(tier = "read_only")]
    pub async fn count(&self) -> String {
        self.items.len().to_string()
    }
}

fn main() {}
