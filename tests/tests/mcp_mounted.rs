//! A tool set mounted in an rmcp server the host already has (`McpServer::mount_in`),
//! beside the server's own `#[tool_router]` tool, `#[prompt_router]` prompt and resource
//! (`toolset_tests::desk`), driven by the official TypeScript SDK
//! (`@modelcontextprotocol/sdk`, pinned in `tests/mcp/typescript/package-lock.json`) over
//! stdio against the built `mcp_mounted` binary; and the names both sides have, refused
//! when the server is built.
//!
//! Needs `node` and the SDK: `npm ci --prefix tests/mcp/typescript` (scripts/test runs it).

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;
use toolset::Policy;
use toolset::mcp::McpServer;
use toolset_tests::process::run_bounded;
use toolset_tests::{Inbox, InboxTools, desk};

const INSTALL: &str = "install the MCP TypeScript SDK: npm ci --prefix tests/mcp/typescript";

/// The whole script gets this long; each of its requests has its own time limit too.
const LIMIT: Duration = Duration::from_secs(120);

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate is in the workspace")
        .to_path_buf()
}

#[test]
fn the_typescript_sdk_sees_everything_listed_and_only_the_sets_tool_gated_and_approved_once() {
    let root = workspace_root();
    let output = run_bounded(
        Command::new("node")
            .arg(root.join("tests/mcp/typescript/mounted_client.mjs"))
            .arg(env!("CARGO_BIN_EXE_mcp_mounted"))
            .current_dir(&root),
        LIMIT,
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        !stderr.contains("ERR_MODULE_NOT_FOUND"),
        "the TypeScript SDK is not installed; {INSTALL}\n{stderr}"
    );
    assert!(
        output.status.success(),
        "the TypeScript MCP client reported failures ({}):\n{stdout}\n--- stderr ---\n{stderr}",
        output.status
    );
    // Every check ran: a script that stopped early or checked nothing fails here.
    assert!(stdout.contains("14 passed, 0 failed"), "{stdout}");
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
