//! An MCP server with a store journals its calls as the conversation driver does (issue
//! 37, item 7): every call that is not read-only is started in the store's journal before
//! its handler runs and ended with its result, marked delivered as it is sent, under a key
//! scoped to its session, so two sessions numbering their requests alike never share a
//! key; a call whose handler has not ended is in doubt in the journal the host reads.

use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;
use toolset::mcp::{LineTransport, McpServer};
use toolset::store::Store;
use toolset::{Autonomy, MemoryStore, SealKey, ToolError, tool, toolset};

/// The outbox: what was sent, and a gate the slow send waits at.
#[derive(Default)]
pub struct Outbox {
    sent: Vec<String>,
    open: Arc<Notify>,
}

/// Send a note.
#[tool(tier = "reversible")]
pub async fn send(
    outbox: &mut Outbox,
    /// The note.
    note: String,
) -> String {
    outbox.sent.push(note.clone());
    format!("sent {note}")
}

/// Send a note once the gate opens.
#[tool(tier = "reversible")]
pub async fn send_later(
    outbox: &mut Outbox,
    /// The note.
    note: String,
) -> Result<String, ToolError> {
    let open = Arc::clone(&outbox.open);
    open.notified().await;
    outbox.sent.push(note.clone());
    Ok(format!("sent {note} later"))
}

/// Count what was sent.
#[tool(tier = "read_only")]
pub async fn count(outbox: &Outbox) -> String {
    outbox.sent.len().to_string()
}

toolset! {
    /// The outbox's tools.
    pub OutboxTools<Outbox> = [send, send_later, count];
}

/// A client connected to a server over `store`, running every tool without a human.
async fn client(store: &Arc<MemoryStore>, open: &Arc<Notify>) -> RunningService<RoleClient, ()> {
    let outbox = Outbox {
        sent: Vec::new(),
        open: Arc::clone(open),
    };
    let server = McpServer::<OutboxTools>::new(outbox)
        .with_autonomy(Autonomy::Reversible)
        .with_proposal_store(Arc::clone(store), SealKey::new([3; 32]).expect("a key"));
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    let (reader, writer) = tokio::io::split(server_end);
    tokio::spawn(server.serve(LineTransport::new(reader, writer)));
    ().serve(client_end).await.expect("connects")
}

fn params(name: &'static str, note: &str) -> CallToolRequestParams {
    let mut arguments = JsonObject::new();
    arguments.insert("note".to_owned(), json!(note));
    CallToolRequestParams::new(name).with_arguments(arguments)
}

#[tokio::test(flavor = "multi_thread")]
async fn every_effectful_call_is_journaled_per_session_and_in_doubt_while_it_runs() {
    let store = Arc::new(MemoryStore::new());
    let open = Arc::new(Notify::new());
    let first = client(&store, &open).await;
    let second = client(&store, &open).await;

    // The same request id (each session's first call) and the same call, in two sessions:
    // both run, under two keys.
    for client in [&first, &second] {
        let result = client
            .call_tool(params("send", "hello"))
            .await
            .expect("answered");
        assert_ne!(result.is_error, Some(true), "{result:?}");
    }
    assert!(store.in_doubt().expect("reads").is_empty());
    assert!(
        store.undelivered().expect("reads").is_empty(),
        "each result was marked delivered as it was sent"
    );

    // A call whose handler has not ended is in doubt, with its tool and arguments.
    let waiting = {
        let peer = first.peer().clone();
        tokio::spawn(async move { peer.call_tool(params("send_later", "wait")).await })
    };
    let in_doubt = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let in_doubt = store.in_doubt().expect("reads");
            if !in_doubt.is_empty() {
                return in_doubt;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the call is journaled before its handler runs");
    assert_eq!(in_doubt.len(), 1);
    assert_eq!(in_doubt[0].call.name, "send_later");
    assert!(in_doubt[0].call.arguments.to_string().contains("wait"));
    open.notify_one();
    let result = waiting.await.expect("joins").expect("answered");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert!(store.in_doubt().expect("reads").is_empty(), "it ended");
    assert!(store.undelivered().expect("reads").is_empty());

    // A read-only call is not journaled: nothing of it is in doubt or undelivered, ever.
    let counted = first
        .call_tool(CallToolRequestParams::new("count"))
        .await
        .expect("answered");
    assert_ne!(counted.is_error, Some(true));
    let _ = first.cancel().await;
    let _ = second.cancel().await;
}
