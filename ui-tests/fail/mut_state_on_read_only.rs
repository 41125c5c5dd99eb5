use toolset::tool;

pub struct Inbox {
    pub searches: u32,
}

/// Search the inbox by free text.
#[tool(tier = "read_only")]
pub async fn search(state: &mut Inbox, query: String) -> String {
    state.searches += 1;
    query
}

fn main() {}
