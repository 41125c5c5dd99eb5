//! The approval console's fixtures (`tests/console_http.rs`, `tests/console_browser.rs`):
//! a set whose one tool sends a message and counts each run in its state, a driver over
//! any store that holds `send` for a human, a conversation that proposes calls the way a
//! model's response does, and a console served on loopback.

use serde_json::json;
use std::net::SocketAddr;
use std::sync::Arc;
use toolset::console::Console;
use toolset::consumer::Format;
use toolset::prelude::*;
use toolset::store::{CallStart, Store};
use toolset::{Autonomy, Driver, Escalation, Proposal, Tier, ToolCall, ToolContext, tool, toolset};

/// What `send` did: every message it sent, in order (one entry per run).
#[derive(Debug, Default)]
pub struct Outbox {
    /// `"{to}: {body}"` for each run.
    pub sent: Vec<String>,
}

/// A message outside the company is sent for good: one the tool cannot take back.
fn outside(args: &send) -> Option<Escalation> {
    (!args.to.ends_with("@example.com")).then(|| {
        Escalation::to(
            Tier::Irreversible,
            format!("{} is outside example.com", args.to),
        )
    })
}

/// What the human reads before approving a message.
fn message_preview(args: &send) -> String {
    format!("To: {}\n\n{}", args.to, args.body)
}

/// Send a message; one inside the company can be recalled. Each run is counted in the
/// outbox.
#[tool(tier = "external_reversible", escalate = outside, preview = message_preview)]
pub async fn send(
    outbox: &mut Outbox,
    /// Who receives it.
    to: String,
    /// What it says.
    body: String,
) -> String {
    outbox.sent.push(format!("{to}: {body}"));
    format!("sent to {to} (message {})", outbox.sent.len())
}

toolset! {
    /// The console tests' tools.
    pub ConsoleTools<Outbox> = [send];
}

/// The host's state the console lends an approved call.
pub type SharedOutbox = Arc<tokio::sync::Mutex<Outbox>>;

/// A driver over `store` that may only read alone: every `send` waits for a human.
pub fn driver<S: Store>(store: S) -> Driver<ConsoleTools, S> {
    Driver::new(ConsoleTools::policy(Autonomy::ReadOnly), store).format(Format::OpenAiChat)
}

/// A conversation whose model calls `send(to, body)` once per pair, in one response: the
/// proposals it made, in order.
pub async fn propose<S: Store>(
    driver: &Driver<ConsoleTools, S>,
    calls: &[(&str, &str)],
) -> Vec<Proposal> {
    let mut conversation = driver.start().expect("a conversation starts");
    conversation.next_request().expect("the first request");
    let tool_calls: Vec<_> = calls
        .iter()
        .enumerate()
        .map(|(index, (to, body))| {
            json!({"id": format!("call_{index}"), "type": "function", "function": {
                "name": "send",
                "arguments": json!({"to": to, "body": body}).to_string(),
            }})
        })
        .collect();
    let response = json!({"role": "assistant", "tool_calls": tool_calls});
    let turn = conversation
        .respond(&response, &mut Outbox::default(), &ToolContext::default())
        .await
        .expect("the response is answered");
    assert_eq!(turn.proposals.len(), calls.len(), "every send is held");
    turn.proposals
}

/// [`propose`] of one `send(to, body)`: its proposal.
pub async fn propose_one<S: Store>(
    driver: &Driver<ConsoleTools, S>,
    to: &str,
    body: &str,
) -> Proposal {
    propose(driver, &[(to, body)]).await.remove(0)
}

/// A `send` cut off by a crash: started in the journal under `key`, never ended.
pub fn in_doubt<S: Store>(driver: &Driver<ConsoleTools, S>, key: &str, to: &str) {
    let call = ToolCall::new(
        format!("call_{key}"),
        "send",
        json!({"to": to, "body": "cut off"}).to_string(),
    );
    let start = CallStart::under(key.to_owned(), &call, Tier::Irreversible, 1_700_000_000_000);
    driver
        .store()
        .start(&start)
        .expect("the start is journaled");
}

/// Serves `console` on a fresh loopback port; its address.
pub async fn serve<S: Store + Send + Sync + 'static>(
    console: Console<ConsoleTools, S, SharedOutbox>,
) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let address = listener.local_addr().expect("bound");
    tokio::spawn(console.serve(listener));
    address
}
