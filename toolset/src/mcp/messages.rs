//! Every sentence the MCP server writes to the client (in JSON-RPC and HTTP errors) and to
//! the human (in elicitation requests), kept in one place so their wording can be
//! reviewed together. What the model reads in tool results is in `crate::messages`, with
//! every other model-facing sentence.

use std::fmt;

/// Where the bytes came from, for the words of the answer.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Unit {
    /// A line on stdio.
    Line,
    /// An HTTP request body.
    Body,
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Unit::Line => "the line",
            Unit::Body => "the request body",
        })
    }
}

/// `tools/call` (or another known method) whose params do not have the method's shape.
pub(crate) fn malformed_params(method: &str, error: &str) -> String {
    let shape = match method {
        "tools/call" => " tools/call takes {\"name\": string, \"arguments\": object}.",
        "tasks/get" | "tasks/cancel" => " It takes {\"taskId\": string}.",
        "tasks/update" => " It takes {\"taskId\": string, \"inputResponses\": object}.",
        _ => "",
    };
    format!("Invalid params for {method}: {error}.{shape}")
}

/// A method the server does not implement.
pub(crate) fn unknown_method(method: &str) -> String {
    format!("Method not found: {method}")
}

/// The answer to `method`, which MCP 2026-07-28 removed, asked at that revision.
pub(crate) fn removed_method(method: &str) -> String {
    let instead = match method {
        "initialize" => "call server/discover, and send the revision in each request's _meta",
        "logging/setLevel" => "set io.modelcontextprotocol/logLevel in each request's _meta",
        "resources/subscribe" | "resources/unsubscribe" => "use subscriptions/listen",
        _ => "send the request without it",
    };
    format!("Method not found: {method} was removed in MCP 2026-07-28; {instead}")
}

/// What to send instead of junk in `unit`, ending the answers to it.
fn send_instead(unit: Unit) -> &'static str {
    match unit {
        Unit::Line => {
            "Send each JSON-RPC 2.0 message as one JSON object on a line of its own, \
             {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"…\",\"arguments\":{…}}}"
        }
        Unit::Body => {
            "Send one JSON-RPC 2.0 message as a JSON object, \
             {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"…\",\"arguments\":{…}}}"
        }
    }
}

/// Bytes that are not UTF-8 (`-32700`); the first `valid` bytes are.
pub(crate) fn not_utf8(unit: Unit, valid: usize) -> String {
    format!(
        "Parse error: {unit} is not UTF-8 (from byte offset {valid} on). {}, in UTF-8.",
        send_instead(unit)
    )
}

/// Text that is not JSON (`-32700`); `error` is serde_json's reason, with its position.
pub(crate) fn not_json(unit: Unit, error: &serde_json::Error) -> String {
    format!(
        "Parse error: {unit} is not JSON ({error}). {}.",
        send_instead(unit)
    )
}

/// JSON nested deeper than the parser reads (`-32700`).
pub(crate) fn too_deep(unit: Unit, deepest: usize) -> String {
    format!(
        "Parse error: {unit} nests arrays and objects more than {deepest} deep, deeper than \
         this server reads. {}, nested at most {deepest} deep.",
        send_instead(unit)
    )
}

/// JSON holding a number beyond every double where no gate reads it (in a `tools/call`'s
/// arguments, and nothing else wrong, the gate names the field instead): `-32700`.
pub(crate) fn unholdable_number(unit: Unit, error: &serde_json::Error) -> String {
    format!(
        "Parse error: {unit} holds a number beyond the range of a double ({error}). Write \
         every number within ±1.7976931348623157e308, or as a string."
    )
}

/// JSON that is not a JSON-RPC message (`-32600`), and what is `wrong` with it.
pub(crate) fn not_json_rpc(unit: Unit, wrong: &str) -> String {
    format!(
        "Invalid Request: {unit} is JSON but not a JSON-RPC 2.0 message: {wrong}. {}.",
        send_instead(unit)
    )
}

/// A line longer than the longest read (`-32600`).
pub(crate) fn line_too_long(max: usize) -> String {
    format!(
        "Invalid Request: the line is longer than {max} bytes, the longest this server reads; \
         it was skipped to its end, unread. Send each message on a line of at most {max} \
         bytes."
    )
}

/// The MCP rendering of the set did not parse as MCP tools (a bug of the renderer).
pub(crate) fn unlisted_tools(set: &str, error: &str) -> String {
    format!("the MCP rendering of the tool set {set} is not a list of MCP tools: {error}")
}

/// Serving without authentication on an address others can reach.
pub(crate) fn unauthenticated_remote(local: std::net::SocketAddr) -> String {
    format!(
        "refusing to serve MCP on {local} without authentication: anyone who can reach it \
         could call the tools. Set HttpConfig::with_bearer_token or with_auth_layer, bind a \
         loopback address (127.0.0.1), or opt in with \
         HttpConfig::allow_unauthenticated_remote"
    )
}

/// An `initialize` beyond the session cap.
pub(crate) fn too_many_sessions(max: usize) -> String {
    format!(
        "Too many sessions: this server holds at most {max} MCP sessions and all are in use. \
         Close an unused session (HTTP DELETE) or retry later."
    )
}

/// A connection beyond the connection cap.
pub(crate) fn too_many_connections(max: usize) -> String {
    format!("Too many connections: this server accepts at most {max} at once. Retry later.\n")
}

/// A request without a `Host` header.
pub(crate) const MISSING_HOST: &str = "Bad Request: a Host header is required";

/// A request with no connection to check its Host against: neither tagged by the listener
/// nor carrying axum's connect info (a router mounted without it).
pub(crate) const NO_CONNECTION_INFO: &str = "Internal Server Error: the request carries no connection information; a host mounting `McpServer::http_service` must serve its router with `into_make_service_with_connect_info::<SocketAddr>()`";

/// A request body that could not be read (the connection broke, or its framing is wrong).
pub(crate) const UNREADABLE_BODY: &str = "Bad Request: the request body could not be read (the connection broke or its framing is wrong)";

/// A `tools/call` whose arguments were kept as text could not be written out again without
/// them (serde_json failed to write rmcp's own message: a bug).
pub(crate) const UNWRITABLE_CALL: &str =
    "Internal Server Error: the tools/call could not be passed on without its arguments";

/// A request body that did not arrive whole within the body read timeout.
pub(crate) fn body_too_slow(limit: std::time::Duration) -> String {
    format!(
        "Request Timeout: the whole request body must arrive within {} ms of the headers; \
         send it at once",
        limit.as_millis()
    )
}

/// A request body larger than the cap.
pub(crate) fn body_too_large(max: usize) -> String {
    format!("Payload Too Large: this server accepts request bodies of at most {max} bytes")
}

/// A request without the configured bearer token.
pub(crate) const UNAUTHENTICATED: &str =
    "Unauthorized: send the server's token as `Authorization: Bearer <token>`";

/// A `Host` that is not this server's (DNS rebinding protection).
pub(crate) fn foreign_host(host: &str) -> String {
    format!(
        "Forbidden: Host {host:?} is not this server's. Connect to the address it listens on, \
         or add the name with HttpConfig::with_allowed_hosts"
    )
}

/// A browser `Origin` that is neither the server's own nor allowed.
pub(crate) fn foreign_origin(origin: &str) -> String {
    format!(
        "Forbidden: requests from the origin {origin:?} are not allowed; add it with \
         HttpConfig::with_allowed_origins"
    )
}

/// What the human is asked when a withheld call could run with their approval; `why` is
/// what held it back (`crate::messages::why_withheld`, the words the model reads too).
pub(crate) fn approval_request(
    tool: &str,
    why: &str,
    title: Option<&str>,
    preview: Option<&str>,
    arguments: &str,
) -> String {
    let mut text = format!("The assistant asks to run the tool \"{tool}\"");
    if let Some(title) = title {
        text.push_str(&format!(" ({title})"));
    }
    text.push_str(&format!(
        ", which this server does not run without your approval: {why}."
    ));
    if let Some(preview) = preview {
        text.push_str(&format!("\n\nWhat it would do: {preview}"));
    }
    text.push_str(&format!(
        "\n\nWith exactly these arguments:\n{arguments}\n\nTick the box and accept to run \
         it once, as shown; decline or cancel and it does not run."
    ));
    text
}

/// The title of the approval box.
pub(crate) const APPROVE_TITLE: &str = "Run this call";

/// The description of the approval box.
pub(crate) const APPROVE_DESCRIPTION: &str =
    "Run the call exactly as shown above, once. Leave unticked to refuse.";

/// A `tasks/get`, `tasks/cancel` or `tasks/update` naming a task the server does not hold.
pub(crate) fn unknown_task(
    id: &str,
    ttl: std::time::Duration,
    max_tasks: usize,
    max_bytes: usize,
) -> String {
    format!(
        "Unknown task {id:?}: no task has this id, or its result was released. This server \
         keeps an ended task's result for {} ms, and at most {max_tasks} tasks and {max_bytes} \
         bytes of results, releasing the oldest first. Poll tasks/get sooner, or call the \
         tool again",
        ttl.as_millis()
    )
}

/// A task's result too large to keep.
pub(crate) fn task_result_too_large(bytes: usize, max: usize) -> String {
    format!(
        "The task's result ({bytes} bytes as JSON) is larger than this server keeps for tasks \
         ({max} bytes), so it was not kept. Call the tool again for a smaller result, or raise \
         TaskLimits::with_max_bytes"
    )
}

/// The status message of a task whose call waits for a human's approval.
pub(crate) const TASK_AWAITING_APPROVAL: &str = "Waiting for a human to approve the call: \
     answer the approval request (elicitation) this server sent.";

/// The status message of a task cancelled and not yet ended.
pub(crate) const TASK_CANCELLING: &str = "Cancelling: the call was told to stop.";

/// The last log message of a call whose client read its messages slower than the tool
/// wrote them: how many were dropped.
pub(crate) fn logs_dropped(dropped: usize, queued: usize) -> String {
    format!(
        "{dropped} log message(s) of this call were dropped: the client read them slower than \
         the tool wrote them (at most {queued} wait); ask for a more severe level \
         (logging/setLevel) to receive fewer"
    )
}

/// The error of a request (2026-07-28 on) whose `_meta` asks for a log level that is none
/// of MCP's: the levels it may name.
pub(crate) fn invalid_log_level(value: &serde_json::Value) -> String {
    let levels: Vec<&str> = crate::context::LogLevel::ALL
        .iter()
        .map(|level| level.as_str())
        .collect();
    format!(
        "Invalid params: _meta \"io.modelcontextprotocol/logLevel\" is {value}, which is not a \
         log level; send one of {}, or leave it out to receive no log messages",
        levels.join(", ")
    )
}
