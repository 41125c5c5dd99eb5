//! `tools/list` carries the caching hints of MCP 2026-07-28 (SEP-2549, required there):
//! `ttlMs` and `cacheScope`, `0` and `private` unless the host sets them
//! (`McpServer::with_list_caching`); an older client is sent neither.

use rmcp::model::{ListToolsResult, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use rmcp::{RoleClient, ServiceExt};
use std::time::Duration;
use toolset::mcp::{CacheScope, McpServer};
use toolset::{tool, toolset};

/// Say hello.
#[tool(tier = "read_only")]
pub async fn hello() -> &'static str {
    "hello"
}

toolset! { pub Greetings = [hello]; }

/// One `tools/list` of a client on `protocol` of `server`.
async fn listed(server: McpServer<Greetings>, protocol: ProtocolVersion) -> ListToolsResult {
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(server.serve(server_io));
    let client: rmcp::service::RunningService<RoleClient, ()> =
        if protocol == ProtocolVersion::V_2026_07_28 {
            let lifecycle = ClientLifecycleMode::Discover {
                preferred_versions: vec![protocol],
            };
            ().serve_with_lifecycle(client_io, lifecycle).await
        } else {
            ().serve(client_io).await
        }
        .expect("the client connects");
    client.list_tools(None).await.expect("tools/list answers")
}

#[tokio::test]
async fn a_2026_07_28_list_is_private_and_fresh_unless_the_host_says_otherwise() {
    let list = listed(McpServer::new(()), ProtocolVersion::V_2026_07_28).await;
    assert_eq!(list.tools.len(), 1);
    assert_eq!(list.ttl_ms, Some(0));
    assert_eq!(list.cache_scope, Some(CacheScope::Private));

    let server = McpServer::new(()).with_list_caching(Duration::from_secs(300), CacheScope::Public);
    let list = listed(server, ProtocolVersion::V_2026_07_28).await;
    assert_eq!(list.ttl_ms, Some(300_000));
    assert_eq!(list.cache_scope, Some(CacheScope::Public));
}

#[tokio::test]
async fn an_older_client_is_sent_no_caching_hints() {
    let server = McpServer::new(()).with_list_caching(Duration::from_secs(300), CacheScope::Public);
    let list = listed(server, ProtocolVersion::V_2025_06_18).await;
    assert_eq!(list.tools.len(), 1);
    assert_eq!((list.ttl_ms, list.cache_scope), (None, None));
}
