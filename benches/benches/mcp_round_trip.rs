//! `mcp_round_trip`: one MCP `tools/call` round trip through rmcp's own client, over an
//! in-memory pipe (`tokio::io::duplex`), to a server holding the 100-tool set, for
//!
//! - `toolset` — `toolset::mcp::McpServer<T>` (gate + apply behind rmcp's service loop);
//! - `rmcp` — the generated `#[tool_router]` / `#[tool_handler]` server, as rmcp
//!   documents it.
//!
//! Both sessions are initialized before timing; each iteration is only
//! `client.call_tool(...)`, with the same tool name and arguments for both: the request is
//! serialized, written to the pipe, read and dispatched by the server, and the response
//! travels back the same way. The runtime is multi-threaded, as a real server's would be.

use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use std::hint::black_box;
use std::time::Duration;
use toolset::Autonomy;
use toolset::mcp::McpServer;
use toolset_benches::{fixture, generate};

fixture!(toolset_100);
fixture!(rmcp_100);

/// The tool every iteration calls: one in the middle of the set.
const TOOL: usize = 50;

/// How much the in-memory pipe buffers in each direction.
const PIPE: usize = 64 * 1024;

type Client = RunningService<RoleClient, ()>;

/// Starts `server` on one end of an in-memory pipe and connects rmcp's client (which does
/// the `initialize` handshake) to the other.
async fn connect<S>(server: S) -> Client
where
    S: rmcp::ServerHandler,
{
    let (client_io, server_io) = tokio::io::duplex(PIPE);
    tokio::spawn(async move {
        let running = server
            .serve(server_io)
            .await
            .expect("the server accepts the session");
        let _ = running.waiting().await;
    });
    ().serve(client_io).await.expect("the client connects")
}

/// The request both servers answer.
fn request() -> CallToolRequestParams {
    let args: JsonObject = serde_json::from_str(&generate::tool_args(TOOL))
        .expect("the fixture's arguments are a JSON object");
    CallToolRequestParams::new(generate::tool_name(TOOL)).with_arguments(args)
}

/// The text of a result, which must not be an error.
fn text(result: &CallToolResult) -> String {
    assert_ne!(result.is_error, Some(true), "the call failed: {result:?}");
    result
        .content
        .iter()
        .filter_map(|part| part.as_text().map(|text| text.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn round_trip(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a multi-thread tokio runtime builds");
    let params = request();

    let toolset_client = rt.block_on(connect(
        McpServer::<toolset_100::Tools>::new(toolset_100::State::default())
            .with_autonomy(Autonomy::Reversible),
    ));
    let rmcp_client = rt.block_on(connect(rmcp_100::Server::default()));

    // Both answer the call, with the same text, before anything is timed.
    for client in [&toolset_client, &rmcp_client] {
        let result = rt
            .block_on(client.call_tool(params.clone()))
            .expect("the call succeeds at the protocol level");
        assert_eq!(text(&result), "hello world");
    }

    let mut group = c.benchmark_group("mcp_round_trip");
    for (name, client) in [("toolset", &toolset_client), ("rmcp", &rmcp_client)] {
        group.bench_function(name, |b| {
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

    for client in [toolset_client, rmcp_client] {
        let _ = rt.block_on(client.cancel());
    }
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(30)
}

criterion_group! {
    name = benches;
    config = config();
    targets = round_trip
}
criterion_main!(benches);
