//! `proxy_round_trip`: one MCP `tools/call` round trip through rmcp's own client to a
//! `toolset::mcp::McpServer` holding the 100-tool set, either
//!
//! - `direct` — the client talks to that server over an in-memory pipe; or
//! - `proxied` — the client talks to a hub (`McpServer::with_toolbox`) whose toolbox has
//!   the server's tools as the namespace `down` (`McpTools` over a second in-memory pipe):
//!   the hub gates `down_tool_50` against its JSON Schema and forwards it; the server
//!   gates and runs it.
//!
//! The same tool, arguments and answer for both; sessions are initialized before timing,
//! so each iteration is only `client.call_tool(...)`. The runtime is multi-threaded, as a
//! real server's would be.

use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use std::hint::black_box;
use toolset::mcp::McpServer;
use toolset::prelude::*;
use toolset::toolbox::McpTools;
use toolset::{Autonomy, Tier, tool, toolset};
use toolset_benches::{generate, result_text, toolset_100};

/// The tool every iteration calls: one in the middle of the set.
const TOOL: usize = 50;

/// How much each in-memory pipe buffers in each direction.
const PIPE: usize = 64 * 1024;

/// The hub's own state: nothing.
#[derive(Default)]
pub struct Hub;

/// Say the hub is up.
#[tool(tier = "read_only")]
pub async fn ping() -> String {
    "pong".to_owned()
}

toolset! {
    /// The hub's own tool.
    pub HubTools<Hub> = [ping];
}

type Client = RunningService<RoleClient, ()>;

/// The 100-tool server on one end of an in-memory pipe; the other end is returned.
fn downstream() -> tokio::io::DuplexStream {
    let (client_io, server_io) = tokio::io::duplex(PIPE);
    let server = McpServer::<toolset_100::Tools>::new(toolset_100::State::default())
        .with_autonomy(Autonomy::Reversible);
    tokio::spawn(async move {
        let _ = server.serve(server_io).await;
    });
    client_io
}

/// rmcp's client, initialized, on `io`.
async fn client(io: tokio::io::DuplexStream) -> Client {
    ().serve(io).await.expect("the client connects")
}

/// A hub in front of a fresh 100-tool server, its tools as `down_*` at tier reversible,
/// and a client connected to the hub.
async fn through_hub() -> Client {
    let down = McpTools::connect("down", downstream())
        .await
        .expect("the hub connects to the server")
        .tier(|_| Tier::Reversible);
    let toolbox = HubTools::toolbox()
        .with_namespace(down)
        .expect("the server's tools register");
    let hub = McpServer::<HubTools>::new(Hub)
        .with_toolbox(toolbox)
        .with_autonomy(Autonomy::Reversible);
    let (client_io, server_io) = tokio::io::duplex(PIPE);
    tokio::spawn(async move {
        let _ = hub.serve(server_io).await;
    });
    client(client_io).await
}

/// The request, to the tool as named on the server (`prefix` empty) or through the hub.
fn request(prefix: &str) -> CallToolRequestParams {
    let args: JsonObject = serde_json::from_str(&generate::tool_args(TOOL))
        .expect("the fixture's arguments are a JSON object");
    CallToolRequestParams::new(format!("{prefix}{}", generate::tool_name(TOOL)))
        .with_arguments(args)
}

fn round_trip(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a multi-thread tokio runtime builds");
    let direct = rt.block_on(async { client(downstream()).await });
    let proxied = rt.block_on(through_hub());
    let legs = [
        ("direct", &direct, request("")),
        ("proxied", &proxied, request("down_")),
    ];

    // Both answer the call, with the same text, before anything is timed.
    for (_, client, params) in &legs {
        let result = rt
            .block_on(client.call_tool(params.clone()))
            .expect("the call succeeds at the protocol level");
        assert_eq!(result_text(&result), "hello world");
    }

    let mut group = c.benchmark_group("proxy_round_trip");
    for (name, client, params) in &legs {
        group.bench_function(*name, |b| {
            b.to_async(&rt).iter(|| async {
                let result = client
                    .call_tool(black_box(params.clone()))
                    .await
                    .expect("the call succeeds at the protocol level");
                black_box(result)
            });
        });
    }
    group.finish();

    for client in [direct, proxied] {
        let _ = rt.block_on(client.cancel());
    }
}

criterion_group! {
    name = benches;
    config = toolset_benches::criterion();
    targets = round_trip
}
criterion_main!(benches);
