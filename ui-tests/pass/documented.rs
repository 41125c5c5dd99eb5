#![deny(warnings, missing_docs)]
//! Under `#![deny(missing_docs)]`, a crate whose own items are documented compiles: every
//! item the macros generate (argument structs, the set, its call and name enums and their
//! variants) carries a doc comment. A tool described only by `description = "..."` gets it
//! as its doc comment.

use toolset::prelude::*;
use toolset::{tool, toolset};

/// The agent's per-run state.
pub struct Inbox {
    /// The items.
    pub items: Vec<String>,
}

/// Add an item.
///
/// At the end, unless a position is given.
#[tool(tier = "reversible")]
pub async fn add(
    state: &mut Inbox,
    /// The item.
    item: String,
    /// Where to put it.
    position: Option<usize>,
) {
    let at = position.unwrap_or(state.items.len()).min(state.items.len());
    state.items.insert(at, item);
}

#[tool(tier = "read_only", description = "Count the items.")]
pub async fn count(state: &Inbox) -> String {
    state.items.len().to_string()
}

/// The arguments of `rename`, as one object.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Rename {
    /// The old name.
    pub from: String,
    /// The new name.
    pub to: String,
}

/// Rename an item.
#[tool(tier = "reversible")]
pub async fn rename(state: &mut Inbox, #[args] rename: Rename) {
    for item in &mut state.items {
        if *item == rename.from {
            item.clone_from(&rename.to);
        }
    }
}

/// Send the reply. You prepare it; the user sends it.
#[tool(tier = "irreversible", propose_only)]
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct SendReply {
    /// The reply's text.
    pub body: String,
}

toolset! {
    /// The inbox agent's tools.
    pub InboxTools<Inbox> = [add, count, rename, SendReply];

    pub Undocumented<Inbox> = [count];
}

/// Checks what the macros generated.
pub fn main() {
    assert_eq!(InboxTools::specs().len(), 4);
    // A blank `///` line keeps the description's two paragraphs apart.
    assert_eq!(
        InboxTools::specs()[0].description(),
        "Add an item.\n\nAt the end, unless a position is given."
    );
    assert_eq!(Undocumented::specs()[0].description(), "Count the items.");
    let _ = SendReply {
        body: String::new(),
    }
    .body;
}
