//! Deferred tools over MCP, through rmcp's own client: `tools/list` offers the search tool
//! instead of them, a call to one before it is found is an unknown tool, a search
//! activates what it found for its session only and announces it with
//! `notifications/tools/list_changed`; and, for many policies, what a session is listed
//! is exactly what its gate lets through.

#[path = "support/client.rs"]
mod client;

use client::{call, text};
use inbox_agent::{Inbox, InboxTools, InboxToolsName};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientHandler, RoleClient};
use serde_json::json;
use std::time::Duration;
use tokio::sync::mpsc;
use toolset::mcp::McpServer;
use toolset::set::ToolName;
use toolset::{Autonomy, Policy};

/// A client that tells the test each `notifications/tools/list_changed`.
#[derive(Clone)]
struct ListWatcher(mpsc::UnboundedSender<()>);

impl ClientHandler for ListWatcher {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.0.send(());
    }
}

type Client = RunningService<RoleClient, ListWatcher>;

/// A new session with `server` and its list-changed signals.
async fn connect(server: McpServer<InboxTools>) -> (Client, mpsc::UnboundedReceiver<()>) {
    let (sender, receiver) = mpsc::unbounded_channel();
    (client::connect(server, ListWatcher(sender)).await, receiver)
}

async fn listed(client: &Client) -> Vec<String> {
    let tools = client.list_all_tools().await.expect("tools/list answers");
    tools.iter().map(|tool| tool.name.to_string()).collect()
}

/// Whether a `notifications/tools/list_changed` arrived. rmcp's client handles each
/// notification in a task of its own, so one sent before a result may be seen after it:
/// wait a little for it.
async fn announced(changes: &mut mpsc::UnboundedReceiver<()>) -> bool {
    tokio::time::timeout(Duration::from_millis(300), changes.recv())
        .await
        .is_ok_and(|change| change.is_some())
}

/// The names the unknown-tool message offers instead (`The available tools are: a, b.`).
fn offered_in(message: &str) -> Vec<String> {
    let Some((_, rest)) = message.split_once("The available tools are: ") else {
        return Vec::new();
    };
    let list = rest.split_once('.').map_or(rest, |(list, _)| list);
    list.split(", ").map(str::to_owned).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_deferred_tool_is_unknown_until_a_search_finds_it_then_listed_and_callable() {
    let server = McpServer::<InboxTools>::new(Inbox::sample()).with_autonomy(Autonomy::Reversible);
    let (client, mut changes) = connect(server.clone()).await;
    let capabilities = client.peer_info().map(|info| info.capabilities.clone());
    assert_eq!(
        capabilities
            .and_then(|caps| caps.tools)
            .and_then(|tools| tools.list_changed),
        Some(true),
        "the server must advertise tools.listChanged"
    );

    let before = listed(&client).await;
    assert_eq!(
        before,
        [
            "search",
            "read_item",
            "set_due_date",
            "archive",
            "forward",
            "send_reply",
            "tool_search"
        ]
    );

    let early = call(&client, "add_label", json!({"id": 1, "label": "finance"})).await;
    assert_eq!(early.is_error, Some(true));
    let message = text(&early);
    assert!(
        message.starts_with("There is no tool named \"add_label\""),
        "{message}"
    );
    assert_eq!(offered_in(&message), before, "{message}");
    assert!(changes.try_recv().is_err(), "nothing was activated yet");

    let search = call(&client, "tool_search", json!({"query": "label items"})).await;
    assert_eq!(search.is_error, Some(false), "{}", text(&search));
    assert!(text(&search).contains("add_label"), "{}", text(&search));
    // The notification is sent before the search's result.
    tokio::time::timeout(Duration::from_secs(5), changes.recv())
        .await
        .expect("notifications/tools/list_changed arrives")
        .expect("the client is still connected");

    let after = listed(&client).await;
    assert_eq!(after[..before.len()], before[..], "activating only appends");
    assert_eq!(after[before.len()..], ["add_label"]);
    let labelled = call(&client, "add_label", json!({"id": 1, "label": "finance"})).await;
    assert_eq!(labelled.is_error, Some(false), "{}", text(&labelled));
    assert_eq!(text(&labelled), "labelled item 1 finance");

    // Searching again for what is already active changes nothing, and says so to nobody.
    let again = call(&client, "tool_search", json!({"query": "label"})).await;
    assert_eq!(again.is_error, Some(false), "{}", text(&again));
    assert_eq!(listed(&client).await, after);
    assert!(!announced(&mut changes).await, "no second list_changed");

    // Another session of the same server has activated nothing.
    let (other, _other_changes) = connect(server).await;
    assert_eq!(listed(&other).await, before);
    let unknown = call(&other, "add_label", json!({"id": 1, "label": "x"})).await;
    assert!(
        text(&unknown).starts_with("There is no tool named"),
        "{}",
        text(&unknown)
    );
    let _ = other.cancel().await;
    let _ = client.cancel().await;
}

/// A small deterministic generator, so a failure names its seed.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// The names whose calls the session's gate lets through: a call with an argument no
/// tool has passes the name check (and is then refused for its arguments, so nothing
/// runs) exactly when the name is permitted.
async fn permitted(client: &Client, candidates: &[&str]) -> Vec<String> {
    let mut permitted = Vec::new();
    for &name in candidates {
        let result = call(client, name, json!({"__probe": true})).await;
        assert_eq!(result.is_error, Some(true), "{name} ran: {}", text(&result));
        let message = text(&result);
        if message.starts_with("Invalid arguments for") {
            permitted.push(name.to_owned());
        } else {
            assert!(
                message.starts_with("There is no tool named")
                    || message.contains("is not available in this conversation"),
                "{name}: {message}"
            );
        }
    }
    permitted
}

#[tokio::test(flavor = "multi_thread")]
async fn for_random_policies_a_session_lists_exactly_what_its_gate_permits() {
    let mut candidates: Vec<&str> = InboxToolsName::ALL
        .iter()
        .map(|tool| tool.as_str())
        .collect();
    candidates.extend(["tool_search", "delete_everything"]);
    let queries = ["label", "archive item", "due date", "reply", "search inbox"];
    let mut grown = 0;
    for seed in 0..24 {
        let mut random = Lcg(seed);
        let mut policy = Policy::<InboxTools>::new(Autonomy::Reversible);
        for &tool in InboxToolsName::ALL {
            policy = match random.below(5) {
                0 => policy.hide(tool),
                1 => policy.deny(tool),
                2 => policy.defer(tool),
                _ => policy,
            };
        }
        let server = McpServer::<InboxTools>::new(Inbox::sample()).with_policy(policy);
        let (client, mut changes) = connect(server).await;
        let sorted = |mut names: Vec<String>| {
            names.sort();
            names
        };
        let before = listed(&client).await;
        assert_eq!(
            sorted(before.clone()),
            sorted(permitted(&client, &candidates).await),
            "seed {seed}: listed {before:?}"
        );
        if !before.iter().any(|name| name == "tool_search") {
            let _ = client.cancel().await;
            continue;
        }
        let query = queries[random.below(queries.len() as u64) as usize];
        let search = call(&client, "tool_search", json!({ "query": query })).await;
        assert_eq!(
            search.is_error,
            Some(false),
            "seed {seed}: {}",
            text(&search)
        );
        let after = listed(&client).await;
        assert_eq!(
            after[..before.len()],
            before[..],
            "seed {seed}: activating only appends"
        );
        grown += usize::from(after.len() > before.len());
        assert_eq!(
            announced(&mut changes).await,
            after.len() > before.len(),
            "seed {seed}: list_changed exactly when the list grew"
        );
        assert_eq!(
            sorted(after.clone()),
            sorted(permitted(&client, &candidates).await),
            "seed {seed} after searching {query:?}: listed {after:?}"
        );
        let _ = client.cancel().await;
    } // The seeds are chosen so that searches activate something, or the check above
    // would only ever see unchanged lists.
    assert!(grown >= 3, "only {grown} searches activated a tool");
}
