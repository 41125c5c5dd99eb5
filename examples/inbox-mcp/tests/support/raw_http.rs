//! A bare HTTP/1.1 client over TCP for the tests: one request per connection, every
//! header under the test's control, the server's answer as it is.

use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// What the server answered.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    /// The value of header `name`, if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The JSON-RPC messages of the body: the body itself, or its SSE `data:` lines.
    pub fn messages(&self) -> Vec<Value> {
        if let Ok(value) = serde_json::from_str::<Value>(&self.body) {
            return vec![value];
        }
        self.body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect()
    }
}

/// Sends one request and reads the whole answer (the connection is closed after it).
pub async fn request(
    addr: SocketAddr,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Reply {
    match try_request(addr, method, headers, body).await {
        Ok(reply) => reply,
        Err(problem) => panic!("{problem}"),
    }
}

/// [`request`], saying what failed instead of panicking: for a server that may be gone.
pub async fn try_request(
    addr: SocketAddr,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Result<Reply, String> {
    let mut stream = TcpStream::connect(addr)
        .await
        .map_err(|error| format!("the server does not accept: {error}"))?;
    let mut head = format!("{method} /mcp HTTP/1.1\r\nconnection: close\r\n");
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"))
    {
        head.push_str(&format!("host: {addr}\r\n"));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("content-length: {}\r\n\r\n", body.len()));
    stream
        .write_all(format!("{head}{body}").as_bytes())
        .await
        .map_err(|error| format!("the request is not written: {error}"))?;
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut raw))
        .await
        .map_err(|_| "the server does not answer in time".to_owned())?
        .map_err(|error| format!("the answer does not read: {error}"))?;
    Ok(parse(&String::from_utf8_lossy(&raw)))
}

fn parse(raw: &str) -> Reply {
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((raw, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_owned(), value.trim().to_owned()))
        .collect();
    let chunked = headers.iter().any(|(name, value)| {
        name.eq_ignore_ascii_case("transfer-encoding") && value.contains("chunked")
    });
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_owned()
    };
    Reply {
        status,
        headers,
        body,
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}

/// The headers of a JSON-RPC POST.
pub const POST_HEADERS: [(&str, &str); 2] = [
    ("content-type", "application/json"),
    ("accept", "application/json, text/event-stream"),
];

/// An `initialize` request body.
pub fn initialize_body() -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw-http", "version": "0"}}})
    .to_string()
}

/// Opens a session (initialize + initialized) with `extra` headers; its id.
pub async fn open_session(addr: SocketAddr, extra: &[(&str, &str)]) -> Result<String, Reply> {
    let mut headers = POST_HEADERS.to_vec();
    headers.extend_from_slice(extra);
    let reply = request(addr, "POST", &headers, &initialize_body()).await;
    let Some(session) = reply.header("mcp-session-id").map(str::to_owned) else {
        return Err(reply);
    };
    headers.push(("mcp-session-id", &session));
    headers.push(("mcp-protocol-version", "2025-06-18"));
    let initialized = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let reply = request(addr, "POST", &headers, &initialized.to_string()).await;
    assert_eq!(reply.status, 202, "{reply:?}");
    Ok(session)
}

/// Calls `tool` with `arguments` in `session`; the answer's JSON-RPC message.
pub async fn call_tool(
    addr: SocketAddr,
    session: &str,
    id: u64,
    tool: &str,
    arguments: Value,
) -> Reply {
    let mut headers = POST_HEADERS.to_vec();
    headers.push(("mcp-session-id", session));
    headers.push(("mcp-protocol-version", "2025-06-18"));
    let body = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}});
    request(addr, "POST", &headers, &body.to_string()).await
}

/// The `_meta` every 2026-07-28 request carries: its protocol version and what the client
/// can do (show forms).
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    })
}

/// A `tools/call` of MCP 2026-07-28 of `tool` with `params` (its `arguments`, and for a
/// retry its `inputResponses` and `requestState`), standing alone (no session, as a
/// stateless client sends it), and the result.
pub async fn call(addr: SocketAddr, tool: &str, params: Value) -> Value {
    match post(addr, tool, params).await {
        Ok(result) => result,
        Err(problem) => panic!("{problem}"),
    }
}

/// A `tools/call` of `tool` with `params`, standing alone; what went wrong when no result
/// came back (a replica killed mid-request answers nothing).
pub async fn post(addr: SocketAddr, tool: &str, mut params: Value) -> Result<Value, String> {
    params["name"] = json!(tool);
    params["_meta"] = meta();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let mut headers = POST_HEADERS.to_vec();
    headers.extend([
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", tool),
    ]);
    let reply = try_request(addr, "POST", &headers, &body.to_string()).await?;
    if reply.status != 200 {
        return Err(format!("not answered 200: {reply:?}"));
    }
    let answer = reply
        .messages()
        .into_iter()
        .find(|message| message.get("id").is_some())
        .ok_or_else(|| format!("no answer in {reply:?}"))?;
    answer
        .get("result")
        .cloned()
        .ok_or_else(|| format!("not a result: {answer}"))
}
