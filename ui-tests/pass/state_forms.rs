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

/// A note the model sends: boxed, and in a set whose state is another type, it is an
/// argument like any other.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Note {
    pub text: String,
}

/// Arguments that are not the state pass `toolset!`'s state check, in every slot, up to
/// the sixteen a handler may take.
#[tool(tier = "reversible")]
#[allow(clippy::too_many_arguments)]
pub async fn annotate(
    state: &mut Inbox,
    note: Box<Note>,
    a2: u8,
    a3: u8,
    a4: u8,
    a5: u8,
    a6: u8,
    a7: u8,
    a8: u8,
    a9: u8,
    a10: u8,
    a11: u8,
    a12: u8,
    a13: u8,
    a14: u8,
    a15: u8,
    items: Vec<String>,
) -> String {
    let sum: u32 = [a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15]
        .iter()
        .map(|&digit| u32::from(digit))
        .sum();
    state.items.extend(items);
    format!("{}: {sum}", note.text)
}

toolset! {
    /// The inbox agent's tools.
    pub InboxTools<Inbox> = [count, add, now, look, tag, first, annotate];
}

pub fn main() {
    let names: Vec<&str> = InboxTools::specs().iter().map(|spec| spec.name()).collect();
    assert_eq!(
        names,
        ["count", "add", "now", "look", "tag", "first", "annotate"]
    );
    assert_eq!(InboxTools::specs()[1].tier(), Tier::Reversible);
}
