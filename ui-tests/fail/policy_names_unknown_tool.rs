// A policy names tools through the set's generated name enum, so a tool the set does not
// contain (here a misspelling) is a compile error, not a rule that silently never applies.
use toolset::prelude::*;
use toolset::{Autonomy, tool, toolset};

/// Search the inbox.
#[tool(tier = "read_only")]
pub async fn search(query: String) -> String {
    query
}

/// Archive an item.
#[tool(tier = "reversible")]
pub async fn archive(id: u32) -> String {
    id.to_string()
}

toolset! {
    /// The inbox agent's tools.
    pub InboxTools = [search, archive];
}

fn main() {
    let _policy = InboxTools::policy(Autonomy::Reversible).deny(InboxToolsName::Archiv);
}
