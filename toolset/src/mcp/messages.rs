//! Every sentence the MCP server itself writes: to the model (in tool results), to the
//! client (in JSON-RPC and HTTP errors) and to the human (in elicitation requests). Kept
//! in one place so their wording can be reviewed, and moved, together.

use std::time::Duration;

/// The message of a withheld call when none is configured; see
/// [`McpServer::with_withheld_message`](super::McpServer::with_withheld_message).
pub const DEFAULT_WITHHELD_MESSAGE: &str = "Needs human approval: \"{tool}\" is a tool of tier \
     {tier}, and this server runs tools only up to tier {autonomy} without a human. The call \
     was not run; ask the user to carry it out or to approve it.";

/// A call whose client went away (session closed, connection gone, request cancelled)
/// before it started.
pub(crate) const GONE_BEFORE_START: &str =
    "Cancelled: the client went away before the call started; it was not run";

/// A call that waited for the state longer than the server's time limit, and did not run.
pub(crate) fn waited_too_long(limit: Duration) -> String {
    format!(
        "Timed out: the call waited {} ms for other calls to finish and was not started; \
         nothing changed. Try again later.",
        limit.as_millis()
    )
}

/// `tools/call` (or another known method) whose params do not have the method's shape.
pub(crate) fn malformed_params(method: &str, error: &str) -> String {
    let shape = match method {
        "tools/call" => " tools/call takes {\"name\": string, \"arguments\": object}.",
        _ => "",
    };
    format!("Invalid params for {method}: {error}.{shape}")
}

/// A method the server does not implement.
pub(crate) fn unknown_method(method: &str) -> String {
    format!("Method not found: {method}")
}

/// The arguments of a `tools/call` could not be re-serialized (never expected).
pub(crate) fn unreadable_arguments(error: &str) -> String {
    format!("unreadable arguments: {error}")
}

/// A tool output could not be turned into a `CallToolResult` (a bug of the renderer).
pub(crate) fn unbuildable_result(error: &str) -> String {
    format!("could not build the tool result: {error}")
}

/// The MCP rendering of the set did not parse as MCP tools (a bug of the renderer).
pub(crate) fn unlisted_tools(set: &str, error: &str) -> String {
    format!("the MCP rendering of the tool set {set} is not a list of MCP tools: {error}")
}
