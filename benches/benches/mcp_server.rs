//! `mcp_server`: the MCP server holding the 10-, 100- (and with `TOOLSET_BENCH_LARGE=1`,
//! 1000-) tool set, in process and over a pipe.
//!
//! `mcp_round_trip`: one MCP `tools/call` round trip through rmcp's own client, over an
//! in-memory pipe (`tokio::io::duplex`), for
//!
//! - `toolset` — `toolset::mcp::McpServer<T>` (gate + apply behind rmcp's service loop),
//!   served with `McpServer::serve` on a `(reader, writer)` pair;
//! - `rmcp_cached` — the generated `#[tool_router]` server with its router built once
//!   ([`toolset_benches::rmcp_cached`]), rmcp's fastest documented server;
//! - `rmcp` — the generated `#[tool_router]` / `#[tool_handler]` server, as rmcp
//!   documents it (it rebuilds its router per request).
//!
//! Both sessions are initialized before timing; each iteration is only
//! `client.call_tool(...)`, with the same tool name and arguments for both: the request is
//! serialized, written to the pipe, read and dispatched by the server, and the response
//! travels back the same way. The runtime is multi-threaded, as a real server's would be.
//!
//! What the server's handler costs without a transport, for `toolset` and `rmcp_cached`:
//!
//! - `mcp_call`: 16 `tools/call`s per iteration, spread over the set, each through
//!   `ServerHandler::call_tool` with a fresh request context carrying the `progressToken`
//!   rmcp's client puts on every request (what rmcp's service loop hands a server);
//! - `mcp_list`: one `tools/list` through `ServerHandler::list_tools`, the list as the
//!   server hands it to rmcp (which serializes it afterwards, for both servers alike).
//!
//! The same work is counted in instructions by `src/bin/mcp_cost.rs`.

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServerHandler, ServiceExt};
use std::hint::black_box;
use toolset::Autonomy;
use toolset::mcp::McpServer;
use toolset_benches::rmcp_cached::CachedServer;
use toolset_benches::{
    CALLS, RmcpPeer, generate, result_text, rmcp_10, rmcp_100, runtime, spread_requests,
    toolset_10, toolset_100,
};

#[cfg(large_sets)]
use toolset_benches::rmcp_1000;
#[cfg(large_sets)]
use toolset_benches::toolset_1000;

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

/// Serves `server` with `McpServer::serve` on a `(reader, writer)` pair (no rmcp types on
/// the host's side) and
/// connects rmcp's client to it.
async fn connect_toolset<T: toolset::prelude::ToolSet>(server: McpServer<T>) -> Client {
    let (client_io, server_io) = tokio::io::duplex(PIPE);
    let (reader, writer) = tokio::io::split(server_io);
    tokio::spawn(server.serve((reader, writer)));
    ().serve(client_io).await.expect("the client connects")
}

/// The request every server answers: the tool in the middle of a set of `n`.
fn request(n: usize) -> CallToolRequestParams {
    let tool = n / 2;
    let args: JsonObject = serde_json::from_str(&generate::tool_args(tool))
        .expect("the fixture's arguments are a JSON object");
    CallToolRequestParams::new(generate::tool_name(tool)).with_arguments(args)
}

/// Times one round trip of each server holding the sets of `$n` tools.
macro_rules! round_trip_at {
    ($group:expr, $rt:expr, $n:literal, $toolset:ident, $rmcp:ident) => {{
        let params = request($n);
        let clients = [
            (
                "toolset",
                $rt.block_on(connect_toolset(
                    McpServer::<$toolset::Tools>::new($toolset::State::default())
                        .with_autonomy(Autonomy::Reversible),
                )),
            ),
            (
                "rmcp_cached",
                $rt.block_on(connect(CachedServer::new(
                    $rmcp::Server::default(),
                    $rmcp::Server::cached_router(),
                ))),
            ),
            ("rmcp", $rt.block_on(connect($rmcp::Server::default()))),
        ];
        // Every server answers the call, with the same text, before anything is timed.
        for (_, client) in &clients {
            let result = $rt
                .block_on(client.call_tool(params.clone()))
                .expect("the call succeeds at the protocol level");
            assert_eq!(result_text(&result), "hello world");
        }
        for (name, client) in &clients {
            $group.bench_function(BenchmarkId::new(*name, $n), |b| {
                b.to_async(&$rt).iter(|| async {
                    let result = client
                        .call_tool(black_box(params.clone()))
                        .await
                        .expect("the call succeeds at the protocol level");
                    black_box(result)
                });
            });
        }
        for (_, client) in clients {
            let _ = $rt.block_on(client.cancel());
        }
    }};
}

fn round_trip(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a multi-thread tokio runtime builds");
    let mut group = c.benchmark_group("mcp_round_trip");
    round_trip_at!(group, rt, 10, toolset_10, rmcp_10);
    round_trip_at!(group, rt, 100, toolset_100, rmcp_100);
    #[cfg(large_sets)]
    round_trip_at!(group, rt, 1000, toolset_1000, rmcp_1000);
    group.finish();
}

/// Benchmarks `tools/call` and `tools/list` of one server as `name` at size `n`.
fn bench_server<S: ServerHandler>(c: &mut Criterion, name: &str, n: usize, server: S) {
    let rt = runtime();
    let requests = spread_requests(n);
    let peer = rt.block_on(async { RmcpPeer::start(server) });
    // Every call must succeed, or the benchmark would time error paths.
    rt.block_on(async {
        for (i, (tool, args)) in requests.iter().enumerate() {
            let params = CallToolRequestParams::new(*tool).with_arguments(args.clone());
            let answer = peer
                .server()
                .call_tool(params, peer.client_context(i as i64))
                .await;
            assert!(answer.is_ok(), "{name}: {tool} answers");
        }
    });

    let mut group = c.benchmark_group("mcp_call");
    group.throughput(Throughput::Elements(CALLS as u64));
    let mut id = 0_i64;
    group.bench_function(BenchmarkId::new(name, n), |b| {
        b.iter_batched(
            || {
                requests
                    .iter()
                    .map(|(tool, args)| {
                        id += 1;
                        let params = CallToolRequestParams::new(*tool).with_arguments(args.clone());
                        (params, peer.client_context(id))
                    })
                    .collect::<Vec<_>>()
            },
            |calls| {
                rt.block_on(async {
                    let mut answers = Vec::with_capacity(CALLS);
                    for (params, context) in calls {
                        answers.push(peer.server().call_tool(params, context).await);
                    }
                    answers
                })
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();

    let mut group = c.benchmark_group("mcp_list");
    group.bench_function(BenchmarkId::new(name, n), |b| {
        b.iter_batched(
            || {
                id += 1;
                peer.context(id)
            },
            |context| rt.block_on(peer.server().list_tools(None, context)),
            BatchSize::SmallInput,
        )
    });
    group.finish();
    black_box(peer);
}

macro_rules! sizes {
    ($c:expr, $($n:literal => $toolset:ident, $rmcp:ident;)*) => {$(
        bench_server(
            $c,
            "toolset",
            $n,
            McpServer::<$toolset::Tools>::new($toolset::State::default())
                .with_autonomy(Autonomy::Reversible),
        );
        bench_server(
            $c,
            "rmcp_cached",
            $n,
            CachedServer::new($rmcp::Server::default(), $rmcp::Server::cached_router()),
        );
    )*};
}

fn in_process(c: &mut Criterion) {
    sizes!(c, 10 => toolset_10, rmcp_10; 100 => toolset_100, rmcp_100;);
    #[cfg(large_sets)]
    sizes!(c, 1000 => toolset_1000, rmcp_1000;);
}

criterion_group! {
    name = benches;
    config = toolset_benches::criterion();
    targets = round_trip, in_process
}
criterion_main!(benches);
