#![deny(warnings)]
//! The handler stays a plain async fn: a test calls it directly, with its own state and
//! arguments, without going through a set. And the set dispatches to the same fn.

use toolset::prelude::ToolSet;
use toolset::set::Access;
use toolset::{Json, ToolContext, ToolError, tool, toolset};

#[derive(Default)]
pub struct Inbox {
    pub items: Vec<String>,
}

/// Add an item; skip it when it is already there.
#[tool(tier = "reversible")]
pub async fn add(state: &mut Inbox, ctx: &ToolContext, item: String) -> Result<String, ToolError> {
    let _ = ctx.call_id();
    if state.items.contains(&item) {
        return Err(ToolError::skipped(format!("{item} is already there")));
    }
    state.items.push(item);
    Ok(format!("{} items", state.items.len()))
}

/// List the items.
#[tool(tier = "read_only")]
pub async fn list(state: &Inbox) -> Json<Vec<String>> {
    Json(state.items.clone())
}

toolset! {
    /// The inbox agent's tools.
    pub InboxTools<Inbox> = [add, list];
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime")
        .block_on(future)
}

fn adding_twice_skips_the_second() {
    let mut inbox = Inbox::default();
    let ctx = ToolContext::default();
    let first = block_on(add(&mut inbox, &ctx, "milk".to_owned()));
    assert_eq!(first.expect("added"), "1 items");
    let second = block_on(add(&mut inbox, &ctx, "milk".to_owned()));
    assert!(second.expect_err("skipped").is_skip());
    let Json(items) = block_on(list(&inbox));
    assert_eq!(items, ["milk"]);
}

fn the_set_dispatches_to_the_same_handler() {
    let mut inbox = Inbox::default();
    let ctx = ToolContext::default();
    let name = <InboxTools as ToolSet>::Name::Add;
    let call = <InboxTools as ToolSet>::parse(name, r#"{"item": "eggs"}"#).expect("valid");
    let output = block_on(InboxTools::dispatch(
        Access::Exclusive(&mut inbox),
        &ctx,
        call,
    ));
    assert_eq!(output.expect("ran").text_content(), "1 items");
    assert_eq!(inbox.items, ["eggs"]);
    let typo = <InboxTools as ToolSet>::parse(name, r#"{"itme": "eggs"}"#);
    assert!(typo.is_err(), "unknown argument keys are rejected");
}

pub fn main() {
    adding_twice_skips_the_second();
    the_set_dispatches_to_the_same_handler();
}
