//! SSE polling (SEP-1699) over raw HTTP: with `HttpConfig::with_sse_polling`, a call's
//! stream that has not answered within the hold is closed (an event id and a `retry`
//! last), the call runs on, and a GET with `Last-Event-ID` gets its result, even one that
//! arrived while nobody listened; the handler runs once. A made-up event id replays
//! nothing. Without polling the stream stays open until the result. The conformance
//! suite's `server-sse-polling` checks the same from outside (`tests/mcp/conformance.sh`).

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use toolset::mcp::{HttpConfig, McpServer};
use toolset::{tool, toolset};
use toolset_tests::loopback::{Loopback, serve_http};

/// How often the slow tool ran.
#[derive(Default)]
pub struct Runs(Arc<AtomicUsize>);

/// Answer after 400 ms.
#[tool(tier = "read_only")]
pub async fn slow(runs: &Runs) -> &'static str {
    tokio::time::sleep(Duration::from_millis(400)).await;
    runs.0.fetch_add(1, Ordering::SeqCst);
    "done"
}

toolset! { pub Slow<Runs> = [slow]; }

/// The server on a loopback port until dropped, and its handler's run count.
struct Served {
    loopback: Loopback,
    runs: Arc<AtomicUsize>,
}

async fn serve(config: HttpConfig) -> Served {
    let runs = Runs::default();
    let counted = Arc::clone(&runs.0);
    let server = McpServer::<Slow>::new(runs);
    Served {
        loopback: serve_http(config, |listener, config| {
            server.serve_http(listener, config)
        })
        .await,
        runs: counted,
    }
}

/// One SSE event: its id, its `retry`, and its data as JSON (none for a priming event).
#[derive(Debug, Default)]
struct Event {
    id: Option<String>,
    retry: Option<u64>,
    data: Option<Value>,
}

fn events(text: &str) -> Vec<Event> {
    text.split("\n\n")
        .filter(|block| !block.trim().is_empty())
        .map(|block| {
            let mut event = Event::default();
            for line in block.lines() {
                if let Some(id) = line.strip_prefix("id:") {
                    event.id = Some(id.trim().to_owned());
                } else if let Some(retry) = line.strip_prefix("retry:") {
                    event.retry = retry.trim().parse().ok();
                } else if let Some(data) = line.strip_prefix("data:") {
                    event.data = serde_json::from_str(data.trim()).ok();
                }
            }
            event
        })
        .collect()
}

fn has_result(events: &[Event]) -> bool {
    events.iter().any(|event| {
        event
            .data
            .as_ref()
            .is_some_and(|data| data["id"] == 2 && data["result"]["content"][0]["text"] == "done")
    })
}

/// The events of `response`'s stream, read to its end.
async fn read_to_end(response: reqwest::Response) -> Vec<Event> {
    let text = tokio::time::timeout(Duration::from_secs(10), response.text())
        .await
        .expect("the stream ends")
        .expect("reads");
    events(&text)
}

/// A 2025-11-25 session: its id.
async fn session(client: &reqwest::Client, url: &str) -> String {
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "polling-test", "version": "1"},
        },
    });
    let response = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(initialize.to_string())
        .send()
        .await
        .expect("initialized");
    let id = response
        .headers()
        .get("mcp-session-id")
        .and_then(|id| id.to_str().ok())
        .expect("a session id")
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &id)
        .header("mcp-protocol-version", "2025-11-25")
        .body(initialized.to_string())
        .send()
        .await
        .expect("acknowledged");
    id
}

/// The events of the stream answering a call of `slow`, read to its end.
async fn call(client: &reqwest::Client, url: &str, session: &str) -> Vec<Event> {
    let call = json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "slow", "arguments": {}},
    });
    let response = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(call.to_string())
        .send()
        .await
        .expect("answered");
    read_to_end(response).await
}

/// The events of a GET resuming after `last`.
async fn resume(client: &reqwest::Client, url: &str, session: &str, last: &str) -> Vec<Event> {
    let response = client
        .get(url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .header("last-event-id", last)
        .send()
        .await
        .expect("answered");
    read_to_end(response).await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_closed_calls_stream_is_resumed_with_its_result_even_after_the_call_ended() {
    let served = serve(HttpConfig::new().with_sse_polling(Duration::from_millis(100))).await;
    let client = reqwest::Client::new();
    let session = session(&client, &served.loopback.url()).await;

    let posted = call(&client, &served.loopback.url(), &session).await;
    assert!(!has_result(&posted), "closed before the result: {posted:?}");
    let last = posted.last().expect("events");
    assert!(
        last.data.is_none() && last.retry.is_some(),
        "ends with a priming event: {posted:?}"
    );
    let last = last.id.clone().expect("an event id");

    // Come back after the call ended: its result waited.
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert_eq!(served.runs.load(Ordering::SeqCst), 1, "the call ran on");
    let resumed = resume(&client, &served.loopback.url(), &session, &last).await;
    assert!(has_result(&resumed), "{resumed:?}");

    // A made-up id, or one of another stream's shape: nothing.
    for made_up in ["0123456789abcdef0123456789abcdef-1", "1/0", "junk"] {
        let replayed = resume(&client, &served.loopback.url(), &session, made_up).await;
        assert!(!has_result(&replayed), "{made_up}: {replayed:?}");
    }
    assert_eq!(served.runs.load(Ordering::SeqCst), 1, "it ran once");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_coming_back_mid_call_gets_the_result_when_it_comes() {
    let served = serve(HttpConfig::new().with_sse_polling(Duration::from_millis(150))).await;
    let client = reqwest::Client::new();
    let session = session(&client, &served.loopback.url()).await;
    let posted = call(&client, &served.loopback.url(), &session).await;
    let last = posted
        .last()
        .and_then(|event| event.id.clone())
        .expect("an id");
    // Back at once: the replay waits for the call (up to the hold), then ends; the
    // client comes back until the result is there.
    let mut rounds = 0;
    let resumed = loop {
        rounds += 1;
        let resumed = resume(&client, &served.loopback.url(), &session, &last).await;
        if has_result(&resumed) || rounds == 10 {
            break resumed;
        }
    };
    assert!(has_result(&resumed), "after {rounds} rounds: {resumed:?}");
    assert_eq!(served.runs.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn without_polling_the_stream_stays_open_until_the_result() {
    let served = serve(HttpConfig::new()).await;
    let client = reqwest::Client::new();
    let session = session(&client, &served.loopback.url()).await;
    let posted = call(&client, &served.loopback.url(), &session).await;
    assert!(has_result(&posted), "{posted:?}");
}
