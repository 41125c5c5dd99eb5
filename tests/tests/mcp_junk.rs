//! Junk on the wire gets an answer (issue 38, item 4), from outside: the MCP server runs as
//! a child process on stdio (`src/bin/mcp_numbers.rs`) and, over streamable HTTP, on
//! loopback, and the test writes raw bytes to it as an attacker would. Every junk line and
//! body is answered within a time limit (`-32700 Parse error`, `-32600 Invalid Request`,
//! with the request's id when one can be read), a number no reader can hold in a
//! `tools/call`'s arguments is the gate's invalid arguments naming the field, and the
//! ordinary call written after each still works.

use serde_json::{Value, json};
use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};
use toolset::mcp::{HttpConfig, McpServer};
use toolset_tests::numbers::{Nothing, NumberTools};

/// How long an answer may take before the test calls it silence.
const LIMIT: Duration = Duration::from_secs(10);

/// What a junk line or body must be answered with.
#[derive(Debug)]
enum Expected {
    /// A JSON-RPC error of this code, for the request `id` (`null` when none can be read).
    Error { code: i64, id: Value },
    /// The `tools/call` result of the request `id`, an error naming the field `field`.
    InvalidArguments { id: Value, field: &'static str },
}

/// The ordinary call written after every junk line, and what it is answered with.
fn ordinary_call(id: u64) -> Vec<u8> {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "record", "arguments": {"count": 1, "byte": 2, "ratio": 0.5}}});
    call.to_string().into_bytes()
}

/// Asserts that `answer` is the ordinary call's result.
fn assert_ordinary(answer: &Value, after: &str) {
    assert_eq!(
        answer["result"]["content"][0]["text"], "recorded 1 2 0.5",
        "the call after {after}: {answer}"
    );
    assert_ne!(answer["result"]["isError"], true, "after {after}: {answer}");
}

/// Asserts that `answer` is what `expected` says, for the junk `case`.
fn assert_answers(answer: &Value, expected: &Expected, case: &str) {
    match expected {
        Expected::Error { code, id } => {
            assert_eq!(answer["error"]["code"], *code, "{case}: {answer}");
            assert_eq!(answer.get("id"), Some(id), "{case}: {answer}");
            let message = answer["error"]["message"].as_str().unwrap_or_default();
            let named = match code {
                -32700 => "Parse error",
                _ => "Invalid Request",
            };
            assert!(message.starts_with(named), "{case}: {message}");
        }
        Expected::InvalidArguments { id, field } => {
            assert_eq!(answer.get("id"), Some(id), "{case}: {answer}");
            assert_eq!(answer["result"]["isError"], true, "{case}: {answer}");
            let text = answer["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default();
            assert!(text.contains(field), "{case}: {text}");
            assert!(!text.contains("not valid JSON"), "{case}: {text}");
        }
    }
}

/// A `tools/call` line of `name` with `arguments` written as they are (any text).
fn call_with(id: &str, name: &str, arguments: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"name":"{name}","arguments":{arguments}}}}}"#
    )
    .into_bytes()
}

/// Arrays nested `depth` deep.
fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

/// The junk lines that are not JSON-RPC messages, and their answers.
fn unparsable() -> Vec<(&'static str, Vec<u8>, Expected)> {
    let parse_error = |id: Value| Expected::Error { code: -32700, id };
    let invalid_request = |id: Value| Expected::Error { code: -32600, id };
    let mut invalid_utf8_inside = call_with("utf8", "record", r#"{"note":"?"}"#);
    let question = invalid_utf8_inside
        .iter()
        .rposition(|byte| *byte == b'?')
        .unwrap_or_default();
    invalid_utf8_inside.splice(question..=question, [0xff, 0xfe]);
    vec![
        (
            "a line that is not JSON",
            b"this is not json".to_vec(),
            parse_error(Value::Null),
        ),
        (
            "a request cut off",
            br#"{"jsonrpc":"2.0","id":"cut","method":"tools/call","params":{"name":"rec"#.to_vec(),
            parse_error(json!("cut")),
        ),
        (
            "bytes that are not UTF-8",
            b"\xff\xfe\xfd".to_vec(),
            parse_error(Value::Null),
        ),
        (
            "a request holding bytes that are not UTF-8",
            invalid_utf8_inside,
            parse_error(json!("utf8")),
        ),
        (
            "arrays nested 10,000 deep",
            nested(10_000).into_bytes(),
            parse_error(Value::Null),
        ),
        (
            "a request whose arguments nest 10,000 deep",
            call_with("deep", "record", &format!(r#"{{"count":{}}}"#, nested(10_000))),
            parse_error(json!("deep")),
        ),
        (
            "a number no reader can hold outside the arguments",
            br#"{"jsonrpc":"2.0","id":"meta","method":"tools/call","params":{"name":"record","arguments":{},"_meta":{"x":1e400}}}"#.to_vec(),
            parse_error(json!("meta")),
        ),
        (
            "a JSON-RPC request whose params are a string",
            br#"{"jsonrpc":"2.0","id":"shape","method":"tools/call","params":"record"}"#.to_vec(),
            invalid_request(json!("shape")),
        ),
        (
            "a request of JSON-RPC 1.0",
            br#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#.to_vec(),
            invalid_request(json!(7)),
        ),
        (
            "JSON that is no message at all",
            br#"{"hello":"world"}"#.to_vec(),
            invalid_request(Value::Null),
        ),
        (
            "a batch",
            br#"[{"jsonrpc":"2.0","id":8,"method":"ping"}]"#.to_vec(),
            invalid_request(Value::Null),
        ),
    ]
}

/// `tools/call`s whose arguments hold a number no reader can hold, and the field each
/// answer must name.
fn unreadable_numbers() -> Vec<(&'static str, Vec<u8>, Expected)> {
    vec![
        (
            "1e400 for a byte",
            call_with("byte", "record", r#"{"count":0,"byte":1e400,"ratio":0}"#),
            Expected::InvalidArguments {
                id: json!("byte"),
                field: "/byte",
            },
        ),
        (
            "-1e400 for a ratio",
            call_with("ratio", "record", r#"{"count":0,"byte":0,"ratio":-1e400}"#),
            Expected::InvalidArguments {
                id: json!("ratio"),
                field: "/ratio",
            },
        ),
        (
            "1e400 nested in an object",
            call_with("nested", "scale", r#"{"by":{"factor":1e400}}"#),
            Expected::InvalidArguments {
                id: json!("nested"),
                field: "/by/factor",
            },
        ),
    ]
}

/// The server as a child process on stdio, initialized, with the answers read and not
/// yet claimed.
struct StdioServer {
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    unclaimed: Vec<Value>,
}

impl StdioServer {
    async fn start() -> StdioServer {
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp_numbers"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the server starts");
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            panic!("the server's stdio is piped");
        };
        let mut server = StdioServer {
            _child: child,
            stdin,
            stdout: BufReader::new(stdout),
            unclaimed: Vec::new(),
        };
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "attacker", "version": "1"}}});
        server.write(initialize.to_string().as_bytes()).await;
        server.answer(&json!(0), "initialize").await;
        server
            .write(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        server
    }

    /// Writes `line` and its newline.
    async fn write(&mut self, line: &[u8]) {
        self.stdin.write_all(line).await.expect("the server reads");
        self.stdin.write_all(b"\n").await.expect("the server reads");
        self.stdin.flush().await.expect("the server reads");
    }

    /// The answer to the request `id` (`null`: an answer for no id), read within
    /// [`LIMIT`]; the others read meanwhile are kept for later.
    async fn answer(&mut self, id: &Value, case: &str) -> Value {
        if let Some(at) = self
            .unclaimed
            .iter()
            .position(|answer| answer.get("id") == Some(id))
        {
            return self.unclaimed.remove(at);
        }
        let deadline = tokio::time::Instant::now() + LIMIT;
        loop {
            let mut line = String::new();
            let read = tokio::time::timeout_at(deadline, self.stdout.read_line(&mut line)).await;
            match read {
                Err(_) => panic!("no answer for id {id} within {LIMIT:?} to {case}"),
                Ok(Ok(0)) => panic!("the server closed stdout before answering {case}"),
                Ok(Ok(_)) => {}
                Ok(Err(error)) => panic!("reading the answer to {case}: {error}"),
            }
            let answer: Value = serde_json::from_str(&line)
                .unwrap_or_else(|error| panic!("{case}: the server wrote {line:?}: {error}"));
            if answer.get("id") == Some(id) {
                return answer;
            }
            self.unclaimed.push(answer);
        }
    }

    /// Writes the ordinary call `id` and checks its answer.
    async fn still_works(&mut self, id: u64, after: &str) {
        self.write(&ordinary_call(id)).await;
        let answer = self.answer(&json!(id), after).await;
        assert_ordinary(&answer, after);
    }

    /// Checks that nothing was answered that no test claimed: a last `ping` is answered
    /// after everything written before it.
    async fn answered_nothing_else(&mut self) {
        self.write(br#"{"jsonrpc":"2.0","id":"last","method":"ping"}"#)
            .await;
        self.answer(&json!("last"), "the last ping").await;
        assert!(
            self.unclaimed.is_empty(),
            "stray answers: {:?}",
            self.unclaimed
        );
    }
}

/// Writes each junk line of `cases` to a fresh server, then an ordinary call, and checks
/// both answers.
async fn each_answered_over_stdio(cases: Vec<(&'static str, Vec<u8>, Expected)>) {
    let mut server = StdioServer::start().await;
    for (n, (case, line, expected)) in cases.into_iter().enumerate() {
        server.write(&line).await;
        let id = match &expected {
            Expected::Error { id, .. } | Expected::InvalidArguments { id, .. } => id.clone(),
        };
        let answer = server.answer(&id, case).await;
        assert_answers(&answer, &expected, case);
        server.still_works(1000 + n as u64, case).await;
    }
    server.answered_nothing_else().await;
}

#[tokio::test]
async fn every_junk_line_on_stdio_is_answered_and_the_next_call_works() {
    each_answered_over_stdio(unparsable()).await;
}

#[tokio::test]
async fn a_number_no_reader_holds_on_stdio_is_the_gates_invalid_arguments_naming_the_field() {
    each_answered_over_stdio(unreadable_numbers()).await;
}

#[tokio::test]
async fn a_line_longer_than_16_mib_is_answered_with_its_id_and_reading_resumes_at_its_end() {
    let mut long = call_with(
        "long",
        "record",
        &format!(r#"{{"note":"{}"}}"#, "x".repeat(17 * 1024 * 1024)),
    );
    let mut server = StdioServer::start().await;
    server.write(&long).await;
    let answer = server.answer(&json!("long"), "a 17 MiB request").await;
    assert_answers(
        &answer,
        &Expected::Error {
            code: -32600,
            id: json!("long"),
        },
        "a 17 MiB request",
    );
    server.still_works(1, "a 17 MiB request").await;
    // No id in the first bytes: answered for no id.
    long.drain(
        ..long
            .iter()
            .position(|byte| *byte == b'x')
            .unwrap_or_default(),
    );
    server.write(&long).await;
    let answer = server.answer(&Value::Null, "a 17 MiB line").await;
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    server.still_works(2, "a 17 MiB line").await;
    server.answered_nothing_else().await;
}

#[tokio::test]
async fn blank_lines_on_stdio_are_not_answered() {
    let mut server = StdioServer::start().await;
    server.write(b"").await;
    server.write(b"   \t").await;
    server.write(b"\r").await;
    server.still_works(1, "blank lines").await;
    server.answered_nothing_else().await;
}

/// What the server answered one raw HTTP request.
struct Reply {
    status: u16,
    /// The header lines, lowercase.
    head: String,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            (key.trim() == name).then_some(value.trim())
        })
    }

    /// The JSON-RPC message of the body: the body itself, or the last `data:` of an event
    /// stream that holds JSON.
    fn message(&self) -> Value {
        let text = String::from_utf8_lossy(&self.body);
        if let Ok(message) = serde_json::from_str::<Value>(&text) {
            return message;
        }
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .next_back()
            .unwrap_or_else(|| panic!("no JSON-RPC message in {text:?}"))
    }
}

/// Posts `body` to `/mcp` at `addr` as one raw HTTP/1.1 request on a connection of its
/// own, and reads the whole reply within [`LIMIT`].
async fn post(addr: SocketAddr, session: Option<&str>, content_type: &str, body: &[u8]) -> Reply {
    post_to("/mcp", addr, session, content_type, body).await
}

/// Posts `body` to `path` at `addr`, as [`post`] does.
async fn post_to(
    path: &str,
    addr: SocketAddr,
    session: Option<&str>,
    content_type: &str,
    body: &[u8],
) -> Reply {
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {content_type}\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n",
        body.len()
    );
    if let Some(session) = session {
        request.push_str(&format!(
            "Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-06-18\r\n"
        ));
    }
    request.push_str("\r\n");
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(addr).await?;
        stream.write_all(request.as_bytes()).await?;
        stream.write_all(body).await?;
        let mut reply = Vec::new();
        stream.read_to_end(&mut reply).await?;
        std::io::Result::Ok(reply)
    };
    let reply = tokio::time::timeout(LIMIT, exchange)
        .await
        .unwrap_or_else(|_| panic!("no HTTP reply within {LIMIT:?}"))
        .expect("the exchange");
    let split = reply
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .expect("a reply head");
    let head = String::from_utf8_lossy(&reply[..split]).to_ascii_lowercase();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|status| status.parse().ok())
        .expect("a status");
    let mut reply = Reply {
        status,
        head,
        body: reply[split + 4..].to_vec(),
    };
    if reply.header("transfer-encoding") == Some("chunked") {
        reply.body = unchunked(&reply.body);
    }
    reply
}

/// The body of a chunked transfer, its chunks joined.
fn unchunked(mut chunked: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    while let Some(end) = chunked.windows(2).position(|window| window == b"\r\n") {
        let size = std::str::from_utf8(&chunked[..end])
            .ok()
            .and_then(|size| usize::from_str_radix(size.split(';').next()?.trim(), 16).ok())
            .expect("a chunk size");
        if size == 0 {
            break;
        }
        let start = end + 2;
        body.extend_from_slice(&chunked[start..start + size]);
        chunked = &chunked[start + size + 2..];
    }
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_junk_body_over_http_is_answered_and_the_next_call_works() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("its address");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(McpServer::<NumberTools>::new(Nothing).serve_http(
        listener,
        HttpConfig::new().with_shutdown(async {
            let _ = stopped.await;
        }),
    ));
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "attacker", "version": "1"}}});
    let opened = post(
        addr,
        None,
        "application/json",
        initialize.to_string().as_bytes(),
    )
    .await;
    assert_eq!(
        opened.status,
        200,
        "{}",
        String::from_utf8_lossy(&opened.body)
    );
    let session = opened
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    let session = Some(session.as_str());
    let initialized = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let accepted = post(addr, session, "application/json", initialized).await;
    assert_eq!(accepted.status, 202);

    let cases = unparsable().into_iter().chain(unreadable_numbers());
    for (n, (case, body, expected)) in cases.enumerate() {
        let reply = post(addr, session, "application/json", &body).await;
        let text = String::from_utf8_lossy(&reply.body).into_owned();
        match &expected {
            Expected::Error { .. } => {
                assert_eq!(reply.status, 400, "{case}: {text}");
                assert_eq!(
                    reply.header("content-type"),
                    Some("application/json"),
                    "{case}"
                );
            }
            Expected::InvalidArguments { .. } => {
                assert_eq!(reply.status, 200, "{case}: {text}");
            }
        }
        assert_answers(&reply.message(), &expected, case);
        let call = post(addr, session, "application/json", &ordinary_call(n as u64)).await;
        assert_eq!(call.status, 200, "after {case}");
        assert_ordinary(&call.message(), case);
    }

    // A body that is not JSON under another content type is still refused by its type, and
    // junk sent to another path is not found there.
    let typed = post(addr, session, "text/plain", b"this is not json").await;
    assert_eq!(typed.status, 415);
    let elsewhere = post_to("/other", addr, session, "application/json", b"not json").await;
    assert_eq!(elsewhere.status, 404);

    let _ = stop.send(());
    let _ = tokio::time::timeout(LIMIT, served).await;
}
