//! The streamable HTTP server under attack, over loopback: slow and trickled headers,
//! trickled bodies, too many connections and sessions, foreign `Origin` and `Host`, missing credentials,
//! unauthenticated remote binding, and a write whose session was deleted before it ran.

mod support;

use serde_json::json;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use support::raw_http::{POST_HEADERS, call_tool, initialize_body, open_session, request};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use toolset::mcp::{HttpConfig, McpServer};
use toolset::{Autonomy, Json, tool, toolset};

/// The shared state.
#[derive(Default)]
pub struct Ledger {
    lines: Vec<String>,
}

/// Append a line.
#[tool(tier = "reversible")]
pub async fn append(ledger: &mut Ledger, line: String) -> String {
    ledger.lines.push(line);
    ledger.lines.len().to_string()
}

/// The lines.
#[tool(tier = "read_only")]
pub async fn lines(ledger: &Ledger) -> Json<Vec<String>> {
    Json(ledger.lines.clone())
}

toolset! {
    /// The ledger's tools.
    pub LedgerTools<Ledger> = [append, lines];
}

/// A loopback port, its address, and the ledger's server (`Autonomy::Reversible`) to
/// serve on it.
async fn ledger_on_loopback() -> (TcpListener, SocketAddr, McpServer<LedgerTools>) {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("a bound address");
    let server =
        McpServer::<LedgerTools>::new(Ledger::default()).with_autonomy(Autonomy::Reversible);
    (listener, addr, server)
}

/// A server under `config` on a loopback port; its address, state and a stopper.
async fn start(
    config: HttpConfig,
) -> (
    SocketAddr,
    McpServer<LedgerTools>,
    tokio::sync::oneshot::Sender<()>,
) {
    let (listener, addr, server) = ledger_on_loopback().await;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = server.clone();
    tokio::spawn(async move {
        let _ = serving
            .serve_http(
                listener,
                config.with_shutdown(async {
                    let _ = stopped.await;
                }),
            )
            .await;
    });
    (addr, server, stop)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_slow_to_send_its_headers_is_closed() {
    let (addr, _server, _stop) =
        start(HttpConfig::new().with_header_read_timeout(Duration::from_millis(300))).await;
    let mut slow = TcpStream::connect(addr).await.expect("the server accepts");
    slow.write_all(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n")
        .await
        .expect("the first bytes are written");
    let started = Instant::now();
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(5), slow.read_to_end(&mut rest)).await;
    assert!(
        closed.is_ok(),
        "the slow connection was still open after 5 s"
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

/// Writes `bytes` one at a time, `every` apart, until they are all sent or the server
/// closes the connection; how many were sent.
/// A POST's request line and headers for `body_len` bytes of body, without the blank line
/// that ends them.
fn post_head(addr: SocketAddr, body_len: usize) -> String {
    let mut head = format!("POST /mcp HTTP/1.1\r\nhost: {addr}\r\n");
    for (name, value) in POST_HEADERS {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("content-length: {body_len}\r\n"));
    head
}

async fn trickle(
    mut to: tokio::net::tcp::OwnedWriteHalf,
    bytes: Vec<u8>,
    every: Duration,
) -> usize {
    let mut sent = 0;
    for byte in bytes {
        tokio::time::sleep(every).await;
        if to.write_all(&[byte]).await.is_err() {
            break;
        }
        sent += 1;
    }
    sent
}

/// Reads until the server closes the connection (or resets it), at most `limit`; what it
/// wrote, or `None` if the connection was still open after `limit`.
async fn read_until_closed(
    from: &mut tokio::net::tcp::OwnedReadHalf,
    limit: Duration,
) -> Option<String> {
    let mut answer = Vec::new();
    let read = tokio::time::timeout(limit, async {
        let mut buffer = [0_u8; 1024];
        loop {
            match from.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(read) => answer.extend_from_slice(&buffer[..read]),
            }
        }
    })
    .await;
    read.ok()
        .map(|()| String::from_utf8_lossy(&answer).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trickled_body_is_cut_off_at_the_whole_body_deadline_and_its_slot_freed() {
    // One connection slot: the trickler holds it until the server lets it go.
    let limit = Duration::from_millis(600);
    let (addr, _server, _stop) = start(
        HttpConfig::new()
            .with_max_connections(1)
            .with_body_read_timeout(limit),
    )
    .await;
    let body = initialize_body();
    let head = format!("{}\r\n", post_head(addr, body.len()));
    let stream = TcpStream::connect(addr).await.expect("the server accepts");
    let (mut from, mut to) = stream.into_split();
    to.write_all(head.as_bytes())
        .await
        .expect("the headers are written");
    let started = Instant::now();
    // A byte every 150 ms: each gap is well under the limit, the whole body (about 150
    // bytes, 20 s) far over it.
    let trickler = tokio::spawn(trickle(to, body.into_bytes(), Duration::from_millis(150)));
    let answer = read_until_closed(&mut from, Duration::from_secs(5)).await;
    let elapsed = started.elapsed();
    let answer = answer.expect("the trickling connection was still open after 5 s");
    assert!(
        elapsed < Duration::from_secs(3),
        "closed only after {elapsed:?}, for a {limit:?} body deadline"
    );
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("600 ms"), "{answer}");
    trickler.abort();
    // The one slot is free again: a well-behaved client gets in.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(open_session(addr, &[]).await.is_ok(), "the slot was freed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trickled_headers_are_cut_off_at_the_whole_header_deadline() {
    let limit = Duration::from_millis(600);
    let (addr, _server, _stop) = start(
        HttpConfig::new()
            .with_max_connections(1)
            .with_header_read_timeout(limit),
    )
    .await;
    let stream = TcpStream::connect(addr).await.expect("the server accepts");
    let (mut from, mut to) = stream.into_split();
    to.write_all(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n")
        .await
        .expect("the first bytes are written");
    let started = Instant::now();
    // A header of 200 bytes, a byte every 100 ms: never a gap near the limit.
    let padding = format!("x-padding: {}\r\n", "a".repeat(200));
    let trickler = tokio::spawn(trickle(
        to,
        padding.into_bytes(),
        Duration::from_millis(100),
    ));
    let closed = read_until_closed(&mut from, Duration::from_secs(5)).await;
    let elapsed = started.elapsed();
    assert!(
        closed.is_some(),
        "the connection trickling its headers was still open after 5 s"
    );
    assert!(
        elapsed < Duration::from_secs(3),
        "closed only after {elapsed:?}, for a {limit:?} header deadline"
    );
    trickler.abort();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(open_session(addr, &[]).await.is_ok(), "the slot was freed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_trickled_from_its_first_header_to_its_body_is_read_within_both_deadlines() {
    // Headers just inside their deadline, then the body: the whole request is bounded by
    // the sum of the two, however it is paced.
    let limit = Duration::from_millis(600);
    let (addr, _server, _stop) = start(
        HttpConfig::new()
            .with_header_read_timeout(limit)
            .with_body_read_timeout(limit),
    )
    .await;
    let body = initialize_body();
    let head = post_head(addr, body.len());
    let stream = TcpStream::connect(addr).await.expect("the server accepts");
    let (mut from, mut to) = stream.into_split();
    to.write_all(head.as_bytes())
        .await
        .expect("the first headers are written");
    let started = Instant::now();
    // The last header and the blank line in 480 ms, then the body at the same pace.
    let rest = format!("x: 1\r\n\r\n{body}");
    let trickler = tokio::spawn(trickle(to, rest.into_bytes(), Duration::from_millis(60)));
    let answer = read_until_closed(&mut from, Duration::from_secs(5)).await;
    let elapsed = started.elapsed();
    let answer = answer.expect("the trickling connection was still open after 5 s");
    assert!(
        elapsed < Duration::from_secs(3),
        "closed only after {elapsed:?}, for {limit:?} + {limit:?} deadlines"
    );
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    trickler.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_sent_at_once_within_the_deadline_is_served() {
    // The deadline bounds slow bodies only: a normal request under a short one passes.
    let (addr, _server, _stop) =
        start(HttpConfig::new().with_body_read_timeout(Duration::from_millis(300))).await;
    let reply = request(addr, "POST", &POST_HEADERS, &initialize_body()).await;
    assert_eq!(reply.status, 200, "{reply:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_cap_is_answered_413() {
    let (addr, _server, _stop) = start(HttpConfig::new().with_max_body_bytes(64)).await;
    let reply = request(addr, "POST", &POST_HEADERS, &initialize_body()).await;
    assert_eq!(reply.status, 413, "{reply:?}");
    assert!(reply.body.contains("at most 64 bytes"), "{}", reply.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_over_the_cap_is_answered_503_and_closed() {
    let (addr, _server, _stop) = start(HttpConfig::new().with_max_connections(2)).await;
    let _first = TcpStream::connect(addr).await.expect("the server accepts");
    let _second = TcpStream::connect(addr).await.expect("the server accepts");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let reply = request(addr, "POST", &POST_HEADERS, &initialize_body()).await;
    assert_eq!(reply.status, 503, "{reply:?}");
    assert!(reply.body.contains("at most 2"), "{}", reply.body);
    drop((_first, _second));
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(open_session(addr, &[]).await.is_ok(), "a slot freed up");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_capped_and_a_deleted_or_idle_session_frees_its_slot() {
    let idle = Duration::from_millis(400);
    let (addr, _server, _stop) = start(
        HttpConfig::new()
            .with_max_sessions(1)
            .with_session_idle_timeout(idle),
    )
    .await;
    let first = open_session(addr, &[])
        .await
        .expect("the first session opens");
    let refused = open_session(addr, &[])
        .await
        .expect_err("the cap is reached");
    assert_eq!(refused.status, 503, "{refused:?}");
    assert!(
        refused.body.contains("at most 1 MCP sessions"),
        "{}",
        refused.body
    );
    assert_eq!(refused.messages()[0]["id"], 0);

    let deleted = request(addr, "DELETE", &[("mcp-session-id", &first)], "").await;
    // Closed by then: 204, which every SDK client takes for success.
    assert_eq!(deleted.status, 204, "{deleted:?}");
    let second = open_session(addr, &[])
        .await
        .expect("the deleted session freed its slot");
    let _ = second;
    // Left idle, the second session expires and its slot frees up.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        tokio::time::sleep(idle).await;
        match open_session(addr, &[]).await {
            Ok(_) => break,
            Err(reply) if Instant::now() < deadline => assert_eq!(reply.status, 503),
            Err(reply) => panic!("the idle session never expired: {reply:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_origin_is_refused_and_the_servers_own_passes() {
    let (addr, _server, _stop) = start(HttpConfig::new()).await;
    let refused = open_session(addr, &[("origin", "http://evil.example")])
        .await
        .expect_err("a foreign origin is refused");
    assert_eq!(refused.status, 403, "{refused:?}");
    assert!(refused.body.contains("evil.example"), "{}", refused.body);
    let own = format!("http://{addr}");
    assert!(open_session(addr, &[("origin", &own)]).await.is_ok());
    // No Origin at all: a non-browser client.
    assert!(open_session(addr, &[]).await.is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_host_is_refused() {
    let (addr, _server, _stop) = start(HttpConfig::new()).await;
    let refused = open_session(addr, &[("host", "evil.example")])
        .await
        .expect_err("a foreign host is refused");
    assert_eq!(refused.status, 403, "{refused:?}");
    let port = addr.port().to_string();
    let localhost = format!("localhost:{port}");
    assert!(open_session(addr, &[("host", &localhost)]).await.is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_bearer_token_requests_are_refused() {
    let (addr, _server, _stop) = start(HttpConfig::new().with_bearer_token("s3cret-t0ken")).await;
    let missing = open_session(addr, &[]).await.expect_err("no token");
    assert_eq!(missing.status, 401, "{missing:?}");
    assert!(
        missing
            .header("www-authenticate")
            .is_some_and(|value| value.starts_with("Bearer"))
    );
    let wrong = open_session(addr, &[("authorization", "Bearer s3cret-t0kem")])
        .await
        .expect_err("a wrong token");
    assert_eq!(wrong.status, 401);
    let session = open_session(addr, &[("authorization", "Bearer s3cret-t0ken")])
        .await
        .expect("the right token opens a session");
    // Every request needs it, not just the first.
    let call = call_tool(addr, &session, 1, "lines", json!({})).await;
    assert_eq!(call.status, 401, "{call:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serving_a_wildcard_address_without_authentication_is_refused() {
    let listener = TcpListener::bind("0.0.0.0:0").await.expect("a port");
    let refused = McpServer::<LedgerTools>::new(Ledger::default())
        .serve_http(listener, HttpConfig::new().with_shutdown(async {}))
        .await
        .expect_err("no authentication on a wildcard address");
    assert_eq!(refused.kind(), std::io::ErrorKind::PermissionDenied);
    assert!(
        refused.to_string().contains("with_bearer_token"),
        "{refused}"
    );
    // With a token it serves (and stops at once here).
    let listener = TcpListener::bind("0.0.0.0:0").await.expect("a port");
    McpServer::<LedgerTools>::new(Ledger::default())
        .serve_http(
            listener,
            HttpConfig::new()
                .with_bearer_token("t")
                .with_shutdown(async {}),
        )
        .await
        .expect("an authenticated server may bind a wildcard address");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_whose_session_was_deleted_before_it_started_never_runs() {
    let (addr, server, _stop) = start(HttpConfig::new()).await;
    let session = open_session(addr, &[]).await.expect("a session");
    let busy = server.state().write().await;
    let queued = tokio::spawn({
        let session = session.clone();
        async move { call_tool(addr, &session, 1, "append", json!({"line": "stale"})).await }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let deleted = request(addr, "DELETE", &[("mcp-session-id", &session)], "").await;
    assert!(deleted.status < 300, "{deleted:?}");
    tokio::time::sleep(Duration::from_millis(100)).await;
    drop(busy);
    let _ = tokio::time::timeout(Duration::from_secs(10), queued).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        server.state().read().await.lines.is_empty(),
        "the stale write ran: {:?}",
        server.state().read().await.lines
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_answer_over_http() {
    let (addr, server, _stop) = start(HttpConfig::new()).await;
    let session = open_session(addr, &[]).await.expect("a session");
    let reply = call_tool(addr, &session, 7, "append", json!({"line": "one"})).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let answer = reply
        .messages()
        .into_iter()
        .find(|message| message["id"] == 7);
    assert_eq!(
        answer
            .as_ref()
            .map(|answer| answer["result"]["content"][0]["text"].clone()),
        Some(json!("1")),
        "{reply:?}"
    );
    assert_eq!(server.state().read().await.lines, ["one"]);
}

/// `McpServer::http_service` mounted at `/mcp` in a router of the host's own, served by
/// axum on a loopback port, with or without axum's connect info (the client's address,
/// which the `Host` check needs).
async fn mount(with_connect_info: bool) -> (SocketAddr, McpServer<LedgerTools>) {
    let (listener, addr, server) = ledger_on_loopback().await;
    let router =
        axum::Router::new().nest_service("/mcp", server.clone().http_service(HttpConfig::new()));
    tokio::spawn(async move {
        let _ = if with_connect_info {
            axum::serve(
                listener,
                router.into_make_service_with_connect_info::<SocketAddr>(),
            )
            .await
        } else {
            axum::serve(listener, router).await
        };
    });
    (addr, server)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_mounted_in_a_router_of_ones_own_answers_calls_behind_the_same_checks() {
    let (addr, server) = mount(true).await;
    let session = open_session(addr, &[]).await.expect("a session");
    let reply = call_tool(addr, &session, 7, "append", json!({"line": "one"})).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(server.state().read().await.lines, ["one"]);
    let refused = open_session(addr, &[("host", "evil.example")])
        .await
        .expect_err("a foreign host is refused by the mounted service too");
    assert_eq!(refused.status, 403, "{refused:?}");
    let refused = open_session(addr, &[("origin", "http://evil.example")])
        .await
        .expect_err("a foreign origin is refused by the mounted service too");
    assert_eq!(refused.status, 403, "{refused:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_mounted_without_connect_info_refuses_every_request_and_says_how_to_mount_it() {
    let (addr, server) = mount(false).await;
    let refused = open_session(addr, &[])
        .await
        .expect_err("without the client's address the Host cannot be checked: refused");
    assert_eq!(refused.status, 500, "{refused:?}");
    assert!(
        refused
            .body
            .contains("into_make_service_with_connect_info::<SocketAddr>()"),
        "{}",
        refused.body
    );
    assert!(server.state().read().await.lines.is_empty());
}

/// A 2026-07-28 request without a session keeps nothing for the next: its `tool_search`
/// finds the deferred `add_label` but does not make it available, says so to the model
/// (never "available from your next message on" alone), and the next request's call to
/// it is refused as unknown, as that request's list does not offer it. Over a session,
/// the same search activates it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_without_a_session_says_it_activates_nothing_and_activates_nothing() {
    use inbox_agent::{Inbox, InboxTools};
    use support::raw_http::call;
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("a bound address");
    let server = McpServer::<InboxTools>::new(Inbox::sample()).with_autonomy(Autonomy::Reversible);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(server.serve_http(
        listener,
        HttpConfig::new().with_shutdown(async {
            let _ = stopped.await;
        }),
    ));

    let found = call(
        addr,
        "tool_search",
        json!({"arguments": {"query": "label"}}),
    )
    .await;
    let said = found["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|part| part["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(said.contains("add_label"), "{said}");
    assert!(said.contains("keeps no session"), "{said}");
    let label = json!({"arguments": {"id": 1, "label": "finance"}});
    let refused = call(addr, "add_label", label.clone()).await;
    assert_eq!(refused["isError"], json!(true), "{refused}");
    let text = refused["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("There is no tool named \"add_label\""),
        "{text}"
    );

    // In a session the search activates it, and the call runs.
    let session = open_session(addr, &[]).await.expect("a session");
    let search = json!({"query": "label"});
    let found = call_tool(addr, &session, 1, "tool_search", search).await;
    assert!(!found.body.contains("keeps no session"), "{found:?}");
    let ran = call_tool(addr, &session, 2, "add_label", label["arguments"].clone()).await;
    assert!(ran.body.contains("labelled item 1 finance"), "{ran:?}");
    let _ = stop.send(());
}
