//! `McpServer` under many sessions at once, driven by rmcp's own client over in-memory
//! pipes: read-only calls run together, a stuck call holds nobody past the time limit,
//! a call whose client has gone never starts, progress stays bounded for a client that
//! does not read, and malformed params get -32602.

#[path = "support/client.rs"]
mod client;

use client::{call, params, text};
use rmcp::RoleClient;
use rmcp::model::{CallToolRequest, ClientRequest};
use rmcp::service::{PeerRequestOptions, RunningService};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::Notify;
use toolset::mcp::McpServer;
use toolset::{Autonomy, Json, ToolContext, tool, toolset};

/// The shared state: notes written by `add_note`.
#[derive(Default)]
pub struct Board {
    notes: Vec<String>,
}

/// Read for `ms` milliseconds.
#[tool(tier = "read_only")]
pub async fn slow_read(_board: &Board, ms: u64) -> &'static str {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    "read"
}

/// Read forever.
#[tool(tier = "read_only")]
pub async fn hang(_board: &Board) -> &'static str {
    std::future::pending::<()>().await;
    "never"
}

/// Write forever.
#[tool(tier = "reversible")]
pub async fn hang_write(board: &mut Board) -> &'static str {
    std::future::pending::<()>().await;
    board.notes.push("never".into());
    "never"
}

/// Add a note; answers how many there are.
#[tool(tier = "reversible")]
pub async fn add_note(board: &mut Board, text: String) -> String {
    board.notes.push(text);
    board.notes.len().to_string()
}

/// The notes.
#[tool(tier = "read_only")]
pub async fn notes(board: &Board) -> Json<Vec<String>> {
    Json(board.notes.clone())
}

/// Told when `chatty` has made all its reports.
#[derive(Clone)]
pub struct Reported(Arc<Notify>);

/// Report progress `times` times, as fast as possible.
#[tool(tier = "read_only")]
pub async fn chatty(_board: &Board, ctx: &ToolContext, times: u32) -> &'static str {
    for step in 1..=times {
        ctx.report_progress(f64::from(step), Some(f64::from(times)), None);
    }
    if let Some(reported) = ctx.extension::<Reported>() {
        reported.0.notify_one();
    }
    "reported"
}

toolset! {
    /// Tools of the shared board.
    pub BoardTools<Board> = [slow_read, hang, hang_write, add_note, notes, chatty];
}

type Client = RunningService<RoleClient, ()>;

/// A new session with `server` (a clone sharing its state).
async fn connect(server: &McpServer<BoardTools>) -> Client {
    client::connect(server.clone(), ()).await
}

fn board_server() -> McpServer<BoardTools> {
    McpServer::<BoardTools>::new(Board::default()).with_autonomy(Autonomy::Reversible)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_read_only_calls_from_twenty_sessions_take_less_than_twice_one() {
    let server = board_server();
    let mut clients = Vec::new();
    for _ in 0..20 {
        clients.push(connect(&server).await);
    }
    let started = Instant::now();
    let one = call(&clients[0], "slow_read", json!({"ms": 200})).await;
    let alone = started.elapsed();
    assert_eq!(text(&one), "read");

    let started = Instant::now();
    let all = futures_util::future::join_all(
        clients
            .iter()
            .map(|client| call(client, "slow_read", json!({"ms": 200}))),
    )
    .await;
    let together = started.elapsed();
    assert!(all.iter().all(|result| text(result) == "read"));
    assert!(
        together < alone * 2,
        "20 concurrent read-only calls took {together:?}, one alone {alone:?}"
    );
    for client in clients {
        let _ = client.cancel().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_never_ending_read_delays_another_sessions_write_no_longer_than_the_time_limit() {
    let limit = Duration::from_millis(600);
    let server = board_server().with_call_timeout(limit);
    let stuck = connect(&server).await;
    let writer = connect(&server).await;
    let reader = connect(&server).await;

    let hung = tokio::spawn({
        let peer = stuck.peer().clone();
        async move { peer.call_tool(params("hang", json!({}))).await }
    });
    // Let the never-ending read take the state.
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Reads run alongside it.
    let started = Instant::now();
    assert_eq!(text(&call(&reader, "notes", json!({})).await), "[]");
    assert!(started.elapsed() < limit / 2, "{:?}", started.elapsed());
    // A write waits for it, but not past the limit, and then runs.
    let started = Instant::now();
    let written = call(&writer, "add_note", json!({"text": "a"})).await;
    let waited = started.elapsed();
    assert_eq!(text(&written), "1");
    assert!(waited < limit + Duration::from_millis(400), "{waited:?}");
    // The stuck call itself was stopped and answered as timed out.
    let hung = hung
        .await
        .expect("the task ends")
        .expect("the call answers");
    assert_eq!(hung.is_error, Some(true));
    assert!(
        text(&hung).contains("did not finish within 600 ms"),
        "{}",
        text(&hung)
    );
    for client in [stuck, writer, reader] {
        let _ = client.cancel().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_never_ending_write_delays_another_sessions_read_no_longer_than_the_time_limit() {
    let limit = Duration::from_millis(600);
    let server = board_server().with_call_timeout(limit);
    let stuck = connect(&server).await;
    let reader = connect(&server).await;
    let hung = tokio::spawn({
        let peer = stuck.peer().clone();
        async move { peer.call_tool(params("hang_write", json!({}))).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    let read = call(&reader, "notes", json!({})).await;
    let waited = started.elapsed();
    assert!(waited < limit + Duration::from_millis(400), "{waited:?}");
    // Either it ran once the stuck write was stopped, or it gave up waiting: both say so.
    assert!(
        text(&read) == "[]" || text(&read).contains("was not started"),
        "{}",
        text(&read)
    );
    let hung = hung
        .await
        .expect("the task ends")
        .expect("the call answers");
    assert!(
        text(&hung).contains("did not finish within"),
        "{}",
        text(&hung)
    );
    assert!(server.state().read().await.notes.is_empty());
    for client in [stuck, reader] {
        let _ = client.cancel().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_whose_client_disconnected_before_it_started_never_runs() {
    let server = board_server();
    let client = connect(&server).await;
    // The state is busy (held here), so the write queues.
    let busy = server.state().write().await;
    let queued = tokio::spawn({
        let peer = client.peer().clone();
        async move {
            peer.call_tool(params("add_note", json!({"text": "stale"})))
                .await
        }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    // The client goes away; only then does the state free up.
    let _ = client.cancel().await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    drop(busy);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let _ = queued.await;
    assert!(
        server.state().read().await.notes.is_empty(),
        "the stale write ran: {:?}",
        server.state().read().await.notes
    );
    // A new session's write still runs.
    let fresh = connect(&server).await;
    assert_eq!(
        text(&call(&fresh, "add_note", json!({"text": "fresh"})).await),
        "1"
    );
    let _ = fresh.cancel().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_whose_request_was_cancelled_before_it_started_never_runs() {
    let server = board_server();
    let client = connect(&server).await;
    let busy = server.state().write().await;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params(
        "add_note",
        json!({"text": "stale"}),
    )));
    let handle = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .expect("the request is sent");
    tokio::time::sleep(Duration::from_millis(200)).await;
    handle
        .cancel(Some("the user gave up".into()))
        .await
        .expect("the cancellation is sent");
    tokio::time::sleep(Duration::from_millis(100)).await;
    drop(busy);
    // The same session goes on; its next call sees nothing written.
    assert_eq!(text(&call(&client, "notes", json!({})).await), "[]");
    let _ = client.cancel().await;
}

/// A bare JSON-RPC peer over a pipe: the test decides when (and whether) to read.
struct RawClient {
    reader: BufReader<tokio::io::ReadHalf<DuplexStream>>,
    writer: tokio::io::WriteHalf<DuplexStream>,
}

impl RawClient {
    /// An initialized session with `server`, over a pipe of `buffer` bytes.
    async fn connect(server: McpServer<BoardTools>, buffer: usize) -> RawClient {
        let (client_io, server_io) = tokio::io::duplex(buffer);
        tokio::spawn(async move {
            let _ = server.serve(server_io).await;
        });
        let (reader, writer) = tokio::io::split(client_io);
        let mut client = RawClient {
            reader: BufReader::new(reader),
            writer,
        };
        client
            .send(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"}}}),
            )
            .await;
        let answer = client.answer_to(0).await.0;
        assert!(answer.get("result").is_some(), "{answer}");
        client
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        client
    }

    async fn send(&mut self, message: Value) {
        self.send_line(&message.to_string()).await;
    }

    async fn send_line(&mut self, line: &str) {
        self.writer
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("the server reads");
    }

    /// Reads until the answer to request `id`; returns it and every message before it.
    async fn answer_to(&mut self, id: u64) -> (Value, Vec<Value>) {
        let mut before = Vec::new();
        loop {
            let mut line = String::new();
            let read =
                tokio::time::timeout(Duration::from_secs(20), self.reader.read_line(&mut line))
                    .await
                    .expect("the server answers in time")
                    .expect("the pipe reads");
            assert!(read > 0, "the server closed the pipe before answering {id}");
            let message: Value = serde_json::from_str(&line).expect("the server writes JSON");
            if message.get("id") == Some(&json!(id)) {
                return (message, before);
            }
            before.push(message);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_for_a_client_that_does_not_read_is_coalesced_not_queued() {
    const REPORTS: u32 = 200_000;
    let reported = Reported(Arc::new(Notify::new()));
    let server =
        board_server().with_context(ToolContext::default().with_extension(reported.clone()));
    // A small pipe: the server's writes block as soon as the client stops reading.
    let mut client = RawClient::connect(server, 4096).await;
    client
        .send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "chatty", "arguments": {"times": REPORTS},
            "_meta": {"progressToken": "p"}}}),
        )
        .await;
    // Every report is made while nobody reads: reporting never waits for the client.
    tokio::time::timeout(Duration::from_secs(20), reported.0.notified())
        .await
        .expect("the tool reports without waiting for the client");
    let (answer, before) = client.answer_to(1).await;
    assert_eq!(
        answer["result"]["content"][0]["text"], "reported",
        "{answer}"
    );
    let progress: Vec<f64> = before
        .iter()
        .filter(|message| message["method"] == "notifications/progress")
        .filter_map(|message| message["params"]["progress"].as_f64())
        .collect();
    // What was sent is what fit in the pipe, plus the latest report: not 200,000.
    assert!(
        !progress.is_empty() && progress.len() < 1000,
        "{} progress notifications",
        progress.len()
    );
    assert_eq!(
        progress.last(),
        Some(&f64::from(REPORTS)),
        "the latest report is sent"
    );
    assert!(
        progress.windows(2).all(|pair| pair[0] < pair[1]),
        "in order"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_tools_call_params_answer_invalid_params() {
    let mut client = RawClient::connect(board_server(), 64 * 1024).await;
    for (id, params) in [
        (1, json!({"arguments": {}})),
        (2, json!({"name": 42})),
        (3, json!({"name": "notes", "arguments": [1, 2]})),
    ] {
        client
            .send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}))
            .await;
        let (answer, _) = client.answer_to(id).await;
        assert_eq!(answer["error"]["code"], -32602, "{params} -> {answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with("Invalid params for tools/call"),
            "{message}"
        );
    }
    // An unknown method is still -32601, and the session goes on.
    client
        .send(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/explode", "params": {}}))
        .await;
    assert_eq!(client.answer_to(5).await.0["error"]["code"], -32601);
    client
        .send(
            json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "notes"}}),
        )
        .await;
    assert_eq!(client.answer_to(6).await.0["result"]["isError"], false);
}
