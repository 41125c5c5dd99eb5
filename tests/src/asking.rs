//! A handler that logs and asks the client everything a handler can ask (`ToolContext::
//! elicit`, `sample`, `roots`), for the MCP tests' clients: rmcp's in process
//! (`tests/tests/mcp_asking.rs`) and the TypeScript and Python SDKs' against the
//! `mcp_asking` binary (`tests/mcp/typescript/asking_client.mjs`, `tests/mcp/asking_client.py`).

use serde_json::json;
use toolset::context::{AskError, Form, LogLevel, Sampling};
use toolset::{ToolContext, tool, toolset};

/// The form the handler shows: one field with a default.
pub fn form() -> Form {
    Form::new(
        "Which folder?",
        json!({
            "type": "object",
            "properties": { "folder": { "type": "string", "default": "inbox" } },
            "required": ["folder"],
        }),
    )
}

/// What each ask came to, one line each, as the handler saw it.
fn line<T>(asked: Result<T, AskError>, ok: impl FnOnce(T) -> String) -> String {
    match asked {
        Ok(answer) => ok(answer),
        Err(error) => format!("error: {error}"),
    }
}

/// Log, then ask the user, the client's model and the client's roots; answer what each
/// came to, a line each.
#[tool(tier = "read_only")]
pub async fn curious(ctx: &ToolContext) -> String {
    ctx.log(LogLevel::Info, "asking the client");
    let user = line(ctx.elicit(form()).await, |answer| {
        format!("user: {} {:?}", answer.action.as_str(), answer.accepted())
    });
    let model = line(
        ctx.sample(Sampling::new("Summarize the inbox", 50)).await,
        |sampled| format!("model: {} {:?}", sampled.model, sampled.text),
    );
    let roots = line(ctx.roots().await, |roots| {
        let uris: Vec<_> = roots.into_iter().map(|root| root.uri).collect();
        format!("roots: {uris:?}")
    });
    [user, model, roots].join("\n")
}

toolset! {
    /// The `curious` handler alone.
    pub CuriousTools = [curious];
}
