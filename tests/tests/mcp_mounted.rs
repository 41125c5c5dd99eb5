//! A tool set mounted in an rmcp server the host already has (`McpServer::mount_in`),
//! beside the server's own `#[tool_router]` tool, `#[prompt_router]` prompt and resource
//! (`toolset_tests::desk`), driven by the official TypeScript SDK
//! (`@modelcontextprotocol/sdk`, pinned in `tests/mcp/typescript/package-lock.json`) over
//! stdio against the built `mcp_mounted` binary; and the names both sides have, refused
//! when the server is built. Over stdio and streamable HTTP; and, with rmcp's own
//! 2026-07-28 client in process, approval by `input_required`, the effect journal and the
//! request spans of the set's calls, as `McpServer` has them.
//!
//! Needs `node` and the SDK: `npm ci --prefix tests/mcp/typescript` (scripts/test runs it).

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    JsonObject, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext};
use rmcp::{
    ClientHandler, ErrorData, RoleClient, ServerHandler, ServiceExt, tool, tool_handler,
    tool_router,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::Notify;
use toolset::mcp::{LineTransport, McpServer};
use toolset::store::Store;
use toolset::{MemoryStore, Policy, SealKey};
use toolset_tests::captured::Captured;
use toolset_tests::mcp_result::text;
use toolset_tests::{Inbox, InboxTools, desk};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;

/// Runs the TypeScript client against `server` (the binary, over stdio, or a URL).
fn typescript_client_passes(server: &std::ffi::OsStr) {
    toolset_tests::sdk_client::typescript_passes("mounted_client.mjs", server, 14);
}

#[test]
fn the_typescript_sdk_sees_everything_listed_and_only_the_sets_tool_gated_and_approved_once() {
    typescript_client_passes(env!("CARGO_BIN_EXE_mcp_mounted").as_ref());
}

#[test]
fn over_streamable_http_too() {
    toolset_tests::sdk_client::over_http(env!("CARGO_BIN_EXE_mcp_mounted"), |url| {
        typescript_client_passes(url.as_ref())
    });
}

/// A host's server with a tool named as one of the inbox set's.
#[derive(Clone)]
struct Searching {
    tool_router: ToolRouter<Self>,
}

#[derive(Deserialize, JsonSchema)]
struct Query {
    /// What to look for.
    query: String,
}

#[tool_router]
impl Searching {
    #[tool(description = "Search the web.")]
    async fn search(&self, Parameters(Query { query }): Parameters<Query>) -> String {
        query
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Searching {}

fn searching() -> Searching {
    Searching {
        tool_router: Searching::tool_router(),
    }
}

#[test]
fn a_tool_name_both_servers_have_is_refused_when_the_server_is_built() {
    let refused = McpServer::<InboxTools>::new(Inbox::default())
        .mount_in(searching())
        .expect_err("both have `search`");
    assert_eq!(refused.names(), ["search"]);
    let message = refused.to_string();
    assert!(
        message.contains("`InboxTools` both have a tool named `search`")
            && message.contains("rename one side"),
        "{message}"
    );
}

#[test]
fn a_set_tool_the_policy_hides_is_no_collision_and_the_hosts_tool_keeps_the_name() {
    let mounted = McpServer::<InboxTools>::new(Inbox::default())
        .with_policy(Policy::new(toolset::Autonomy::ReadOnly).hide("search"))
        .mount_in(searching())
        .expect("the set's `search` is never listed");
    let tool = mounted.get_tool("search").expect("the host's search");
    assert_eq!(tool.description.as_deref(), Some("Search the web."));
}

#[test]
fn the_desk_mounts_the_inbox_set_without_a_collision() {
    let mounted = desk::mounted(Inbox::default()).expect("no name in common");
    assert!(mounted.get_tool("echo").is_some() && mounted.get_tool("create-item").is_some());
}

/// The payments a mounted set makes, and the gate its one slow tool waits at.
#[derive(Default)]
pub struct Payments {
    paid: Vec<String>,
    open: Arc<Notify>,
}

/// Pay a bill, once the gate opens.
#[toolset::tool(tier = "reversible")]
pub async fn pay(
    payments: &mut Payments,
    /// What the bill is for.
    bill: String,
) -> String {
    let open = Arc::clone(&payments.open);
    open.notified().await;
    payments.paid.push(bill.clone());
    format!("paid {bill}")
}

toolset::toolset! {
    /// The payments' tools.
    pub PaymentTools<Payments> = [pay];
}

/// A host's server with one tool of its own.
#[derive(Clone)]
struct Teller {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Teller {
    #[tool(description = "Say hello.")]
    async fn hello(&self) -> String {
        "hello".to_owned()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Teller {}

/// A 2026-07-28 client whose human approves every form, counting the forms.
#[derive(Clone, Default)]
struct Approving {
    asked: Arc<AtomicUsize>,
}

impl ClientHandler for Approving {
    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2026-07-28",
            "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": "mounted-test", "version": "0.1.0"},
        }))
        .expect("a client config")
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"approve": true})))
    }
}

#[test]
fn a_mounted_sets_call_is_approved_by_input_required_journaled_and_traced_as_mcp_servers_are() {
    let captured = Captured::default();
    let subscriber = tracing_subscriber::registry().with(
        captured
            .clone()
            .with_filter("toolset=info".parse::<Targets>().expect("a directive")),
    );
    // One thread: the server's tasks run on it, under this thread's subscriber.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let store = Arc::new(MemoryStore::new());
    let open = Arc::new(Notify::new());
    let payments = Payments {
        paid: Vec::new(),
        open: Arc::clone(&open),
    };
    let mounted = McpServer::<PaymentTools>::new(payments)
        .with_autonomy(toolset::Autonomy::ReadOnly)
        .with_proposal_store(Arc::clone(&store), SealKey::new([5; 32]).expect("a key"))
        .mount_in(Teller {
            tool_router: Teller::tool_router(),
        })
        .expect("no name in common");
    let state = Arc::clone(mounted.toolset().state());
    let client = Approving::default();
    let asked = Arc::clone(&client.asked);
    tracing::subscriber::with_default(subscriber, || {
        runtime.block_on(async move {
            let (server_end, client_end) = tokio::io::duplex(64 * 1024);
            let (reader, writer) = tokio::io::split(server_end);
            tokio::spawn(mounted.serve(LineTransport::new(reader, writer)));
            let lifecycle = ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            };
            let client = client
                .serve_with_lifecycle(client_end, lifecycle)
                .await
                .expect("the client connects");

            let hello = client
                .call_tool(CallToolRequestParams::new("hello"))
                .await
                .expect("answered");
            assert_eq!(text(&hello), "hello", "{hello:?}");
            assert_eq!(
                asked.load(Ordering::SeqCst),
                0,
                "the host's tool asks nobody"
            );

            let mut arguments = JsonObject::new();
            arguments.insert("bill".to_owned(), json!("rent"));
            let paying = tokio::time::timeout(
                Duration::from_secs(10),
                client.call_tool(CallToolRequestParams::new("pay").with_arguments(arguments)),
            );
            // While the approved call's handler waits, the journal holds it in doubt.
            let journaled = tokio::time::timeout(Duration::from_secs(10), async {
                loop {
                    let in_doubt = store.in_doubt().expect("the journal reads");
                    if !in_doubt.is_empty() {
                        open.notify_one();
                        return in_doubt;
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            });
            let (paid, in_doubt) = tokio::join!(paying, journaled);
            let in_doubt = in_doubt.expect("the approved call is journaled before it ends");
            assert_eq!(
                asked.load(Ordering::SeqCst),
                1,
                "asked once, by input_required"
            );
            assert_eq!(in_doubt.len(), 1);
            assert_eq!(in_doubt[0].call.name, "pay");
            let paid = paid.expect("answered in time").expect("answered");
            assert_eq!(text(&paid), "paid rent", "{paid:?}");
            assert_eq!(state.read().await.paid, ["rent"], "ran once");
            assert_eq!(store.in_doubt().expect("reads"), []);
            assert_eq!(
                store.undelivered().expect("reads"),
                [],
                "delivered by its answer"
            );
            let _ = client.cancel().await;
        });
    });
    let spans = captured.text();
    let calls: Vec<&str> = spans
        .lines()
        .filter(|line| line.contains("mcp.method.name=\"tools/call\""))
        .collect();
    assert!(
        calls
            .iter()
            .any(|line| line.contains("gen_ai.tool.name=\"pay\"")),
        "the set's call has toolset's request span:\n{spans}"
    );
    assert!(
        !spans.contains("\"hello\""),
        "the host's tool is not toolset's to trace:\n{spans}"
    );
}

/// A host's server with prompts or resources but no tools of its own.
#[derive(Clone)]
struct Toolless;

impl ServerHandler for Toolless {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        rmcp::model::ServerConfig::new(
            rmcp::model::ServerCapabilities::builder()
                .enable_prompts()
                .build(),
        )
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_without_tools_of_its_own_declares_and_lists_the_sets() {
    let mounted = McpServer::<InboxTools>::new(Inbox::default())
        .mount_in(Toolless)
        .expect("nothing to collide with");
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(mounted.serve(server_io));
    let client = ().serve(client_io).await.expect("the client connects");
    let capabilities = client
        .peer_info()
        .expect("initialized")
        .capabilities
        .clone();
    assert!(
        capabilities.prompts.is_some(),
        "the host's: {capabilities:?}"
    );
    assert_eq!(
        capabilities.tools.and_then(|tools| tools.list_changed),
        Some(true),
        "the set's"
    );
    // The set's handlers log: logging is declared, and its level kept by the set's side
    // when the host does not log.
    assert!(capabilities.logging.is_some(), "the set's");
    #[allow(
        deprecated,
        reason = "MCP logging is deprecated from 2026-07-28 on, still served"
    )]
    let answered = client
        .set_level(rmcp::model::SetLevelRequestParams::new(
            rmcp::model::LoggingLevel::Warning,
        ))
        .await;
    answered.expect("logging/setLevel is answered");
    let listed: Vec<String> = client
        .list_all_tools()
        .await
        .expect("tools/list answers")
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect();
    assert_eq!(
        listed,
        ["set_due_date", "search", "create-item", "now", "send_reply"]
    );
    let _ = client.cancel().await;
}

/// The shelf the deferred tool reads.
#[derive(Default)]
pub struct Shelf;

/// Look a word up (deferred: found by the tool search).
#[toolset::tool(tier = "read_only", deferred)]
pub async fn lookup(_shelf: &Shelf, word: String) -> String {
    word
}

/// Tell the time.
#[toolset::tool(tier = "read_only")]
pub async fn clock(_shelf: &Shelf) -> String {
    "noon".to_owned()
}

toolset::toolset! {
    /// The shelf's tools, one deferred.
    pub ShelfTools<Shelf> = [lookup, clock];
}

/// A host's server with a tool search and a lookup of its own.
#[derive(Clone)]
struct Finder {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Finder {
    #[tool(description = "Search the tools.")]
    async fn tool_search(&self) -> String {
        String::new()
    }

    #[tool(description = "Look a word up.")]
    async fn lookup(&self) -> String {
        String::new()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Finder {}

#[test]
fn a_deferred_tool_and_the_tool_search_it_brings_collide_too() {
    let refused = McpServer::<ShelfTools>::new(Shelf)
        .mount_in(Finder {
            tool_router: Finder::tool_router(),
        })
        .expect_err("the set lists `tool_search` now and `lookup` once found");
    assert_eq!(refused.names(), ["lookup", "tool_search"]);
    assert!(
        refused
            .to_string()
            .contains("both have tools named `lookup`, `tool_search`"),
        "{refused}"
    );
}

/// A host's server answering `tools/list` and `tools/call` by hand, without `get_tool`:
/// its `search` cannot be seen by `mount_in`.
#[derive(Clone)]
struct ByHand;

impl ServerHandler for ByHand {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        rmcp::model::ServerConfig::new(
            rmcp::model::ServerCapabilities::builder()
                .enable_tools()
                .build(),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListToolsResult, ErrorData> {
        let tool = |name: &'static str| {
            rmcp::model::Tool::new(name, "By hand.", Arc::new(JsonObject::new()))
        };
        Ok(rmcp::model::ListToolsResult::with_all_items(vec![
            tool("search"),
            tool("weather"),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        let answer = format!("by hand: {}", request.name);
        Ok(
            rmcp::model::CallToolResult::success(vec![rmcp::model::ContentBlock::text(answer)])
                .into(),
        )
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_name_mount_in_could_not_see_is_listed_once_and_answered_by_the_set() {
    let inbox = Inbox {
        items: vec![toolset_tests::Item {
            id: 1,
            subject: "Invoice".to_owned(),
            due: None,
        }],
        log: Vec::new(),
    };
    let mounted = McpServer::<InboxTools>::new(inbox)
        .mount_in(ByHand)
        .expect("ByHand has no get_tool: nothing seen to collide");
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(mounted.serve(server_io));
    let client = ().serve(client_io).await.expect("the client connects");
    let listed: Vec<String> = client
        .list_all_tools()
        .await
        .expect("tools/list answers")
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect();
    assert_eq!(
        listed,
        [
            "weather",
            "set_due_date",
            "search",
            "create-item",
            "now",
            "send_reply"
        ],
        "the host's `search` is left out: the set answers that name"
    );
    let mut arguments = JsonObject::new();
    arguments.insert("query".to_owned(), json!("Invoice"));
    let found = client
        .call_tool(CallToolRequestParams::new("search").with_arguments(arguments))
        .await
        .expect("answered");
    assert!(text(&found).contains("Invoice"), "{found:?}");
    let weather = client
        .call_tool(CallToolRequestParams::new("weather"))
        .await
        .expect("answered");
    assert_eq!(text(&weather), "by hand: weather");
    let _ = client.cancel().await;
}
