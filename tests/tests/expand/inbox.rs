//! The four kinds of `#[tool]`: a handler writing state, a read-only handler taking the
//! call's context, a handler taking its arguments as one object, and a propose-only struct.

use toolset::{Json, ToolContext, ToolError, tool};

pub struct Inbox {
    pub items: Vec<String>,
}

/// Set the item's due date — only when the evidence states a real deadline.
#[tool(tier = "reversible", idempotent)]
pub async fn set_due_date(
    state: &mut Inbox,
    /// The item to change.
    id: u32,
    /// The deadline, as an ISO-8601 date.
    due: Option<String>,
) -> Result<(), ToolError> {
    let item = state
        .items
        .get_mut(id as usize)
        .ok_or_else(|| ToolError::failed("no such item"))?;
    item.push_str(due.as_deref().unwrap_or("someday"));
    Ok(())
}

#[tool(tier = "read_only", reads = "private, untrusted", description = "Search the inbox by free text.")]
pub async fn search(state: &Inbox, ctx: &ToolContext, query: String) -> Json<Vec<String>> {
    ctx.report_progress(1.0, None, None);
    Json(
        state
            .items
            .iter()
            .filter(|item| item.contains(&query))
            .cloned()
            .collect(),
    )
}

/// The arguments of `create_item`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct NewItem {
    /// The subject line.
    pub subject: String,
}

/// Create a new inbox item.
#[tool(tier = "reversible", name = "create-item")]
pub async fn create_item(state: &mut Inbox, #[args] new: NewItem) -> String {
    state.items.push(new.subject);
    format!("created item {}", state.items.len())
}

/// SEND the reply. You prepare it; the user sends it.
#[tool(tier = "irreversible", propose_only, sends = "outside")]
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct SendReply {
    /// The recipient's address.
    pub to: String,
}
