//! Shared fixtures for the integration tests: a representative inbox toolset using every
//! parameter and return form `#[tool]` accepts.

pub mod asking;
pub mod captured;
pub mod console;
pub mod desk;
pub mod exclusions;
pub mod forwarding;
pub mod ledger;
pub mod loopback;
pub mod mcp_result;
pub mod numbers;
pub mod postgres;
pub mod process;
pub mod rng;
pub mod sdk_client;
pub mod serving;
pub mod stateless;
pub mod validators;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolset::{Json, ToolContext, ToolError, ToolOutput, tool, toolset};

/// The inbox agent's per-run state.
#[derive(Debug, Default)]
pub struct Inbox {
    /// The items, by id.
    pub items: Vec<Item>,
    /// A log of what the tools did, in order.
    pub log: Vec<String>,
}

/// One inbox item.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Item {
    /// The item's id.
    pub id: u32,
    /// The subject line.
    pub subject: String,
    /// The due date, if set.
    pub due: Option<String>,
}

/// A search hit.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq)]
pub struct Hit {
    /// The item's id.
    pub id: u32,
    /// The subject line.
    pub subject: String,
}

/// Set the item's due date — only when the evidence states a real deadline.
#[tool(tier = "reversible", idempotent)]
pub async fn set_due_date(
    state: &mut Inbox,
    /// The item to change.
    id: u32,
    /// The deadline, as an ISO-8601 date.
    due: String,
) -> Result<(), ToolError> {
    let item = state
        .items
        .iter_mut()
        .find(|item| item.id == id)
        .ok_or_else(|| ToolError::failed(format!("no item {id}")))?;
    if item.due.as_deref() == Some(due.as_str()) {
        return Err(ToolError::skipped(format!(
            "item {id} is already due {due}"
        )));
    }
    item.due = Some(due.clone());
    state.log.push(format!("set_due_date {id} {due}"));
    Ok(())
}

#[tool(tier = "read_only", description = "Search the inbox by free text.")]
pub async fn search(
    state: &Inbox,
    ctx: &ToolContext,
    /// Words to look for in subjects.
    query: String,
    /// At most this many hits.
    limit: Option<u32>,
) -> Json<Vec<Hit>> {
    ctx.report_progress(1.0, Some(1.0), None);
    let limit = limit.unwrap_or(10) as usize;
    Json(
        state
            .items
            .iter()
            .filter(|item| item.subject.contains(&query))
            .take(limit)
            .map(|item| Hit {
                id: item.id,
                subject: item.subject.clone(),
            })
            .collect(),
    )
}

/// Arguments of `create_item`, taken as one object.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewItem {
    /// The subject line.
    pub subject: String,
}

/// Create a new inbox item.
#[tool(tier = "reversible", name = "create-item", title = "Create item")]
pub async fn create_item(state: &mut Inbox, #[args] new: NewItem) -> String {
    let id = state.items.len() as u32 + 1;
    state.items.push(Item {
        id,
        subject: new.subject,
        due: None,
    });
    state.log.push(format!("create_item {id}"));
    format!("created item {id}")
}

/// Tell the current time (a stateless tool: it fits any set).
#[tool(tier = "read_only", timeout_ms = 1000)]
pub async fn now() -> ToolOutput {
    ToolOutput::text("2026-11-30T00:00:00Z")
}

fn reply_preview(reply: &SendReply) -> String {
    format!("To: {}\n\n{}", reply.to, reply.body)
}

/// SEND the reply. You prepare it; the user sends it.
#[tool(tier = "irreversible", propose_only, preview = reply_preview)]
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SendReply {
    /// The recipient's address.
    pub to: String,
    /// The reply's text.
    pub body: String,
}

toolset! {
    /// The inbox agent's tools.
    pub InboxTools<Inbox> = [set_due_date, search, create_item, now, SendReply];
}

/// The README's example, compiled and run as a doc test so it cannot rot.
#[doc = include_str!("../../README.md")]
mod readme {}

/// The README's `rust,ignore` fragments, each compiled with what it names declared (kept
/// equal to the README's by `tests/tests/readme.rs`). Here, not in `toolset`, because
/// `cargo package` builds `toolset` from its own folder, where `../README.md` is not.
#[cfg(doctest)]
#[doc = include_str!("../readme_snippets.md")]
pub struct ReadmeSnippets;

/// "Coming from rmcp" (`docs/coming-from-rmcp.md`): every code block compiled, and run
/// unless marked `no_run`.
#[cfg(doctest)]
#[doc = include_str!("../../docs/coming-from-rmcp.md")]
pub struct ComingFromRmcp;

/// The README's fragment that needs the `mcp-client` feature.
#[cfg(all(doctest, feature = "mcp-client"))]
#[doc = include_str!("../readme_snippets_mcp_client.md")]
pub struct ReadmeSnippetsMcpClient;
