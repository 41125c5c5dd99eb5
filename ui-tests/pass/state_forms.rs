#![deny(warnings)]
//! Every state form: `&S`, `&mut S`, none; with and without `&ToolContext`, in any order.

use toolset::prelude::*;
use toolset::{Tier, ToolContext, tool, toolset};

pub struct Inbox {
    pub items: Vec<String>,
}

/// Count the items (shared state).
#[tool(tier = "read_only")]
pub async fn count(state: &Inbox) -> String {
    state.items.len().to_string()
}

/// Add an item (exclusive state).
#[tool(tier = "reversible")]
pub async fn add(state: &mut Inbox, item: String) {
    state.items.push(item);
}

/// Tell the time (no state: fits any set).
#[tool(tier = "read_only")]
pub async fn now() -> &'static str {
    "2026-11-30T00:00:00Z"
}

/// Report progress while looking (context, no state).
#[tool(tier = "read_only")]
pub async fn look(ctx: &ToolContext, query: String) -> String {
    ctx.report_progress(1.0, None, None);
    query
}

/// Context before the state, arguments in between.
#[tool(tier = "reversible")]
pub async fn tag(ctx: &ToolContext, id: u32, state: &mut Inbox, tag: String) -> String {
    let _ = ctx.call_id();
    state.items.push(format!("{id}: {tag}"));
    tag
}

/// A read-only tool with state and context.
#[tool(tier = "read_only")]
pub async fn first(state: &Inbox, ctx: &ToolContext) -> String {
    if ctx.is_cancelled() {
        return String::new();
    }
    state.items.first().cloned().unwrap_or_default()
}

toolset! {
    /// The inbox agent's tools.
    pub InboxTools<Inbox> = [count, add, now, look, tag, first];
}

pub fn main() {
    let names: Vec<&str> = InboxTools::specs().iter().map(|spec| spec.name()).collect();
    assert_eq!(names, ["count", "add", "now", "look", "tag", "first"]);
    assert_eq!(InboxTools::specs()[1].tier(), Tier::Reversible);
}
