//! Instructions per MCP request of `toolset::mcp::McpServer` and of rmcp's cached server
//! ([`toolset_benches::rmcp_cached`]), for `valgrind --tool=callgrind` (instruction counts
//! do not depend on the load of a shared machine). Run it with two iteration counts: the
//! difference, divided by the extra requests, is one request's cost without the set-up.
//!
//! ```sh
//! cargo build --release -p toolset-benches --bin mcp_cost     # TOOLSET_BENCH_LARGE=1 for n = 1000
//! for iterations in 10 110; do
//!   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/mcp_cost call toolset 100 $iterations 2>&1 | grep 'refs'
//! done   # (refs at 110 - refs at 10) / (100 iterations x 16 calls)
//! ```
//!
//! `mcp_cost <workload> <server> <n> <iterations>`:
//! - `<workload>`: `call` (16 in-process `tools/call`s per iteration, each through the
//!   server's `ServerHandler::call_tool` with a fresh request context carrying a
//!   `progressToken`, as rmcp's client always sends one), `round_trip` (16 `tools/call`s per
//!   iteration through rmcp's client over a `tokio::io::duplex` pipe, both ends on one
//!   current-thread runtime, the server reading lines with rmcp's transport),
//!   `round_trip_lines` (the same, the server reading lines with toolset's
//!   `mcp::LineTransport`, which answers junk), or `list` (one in-process `tools/list` per
//!   iteration);
//! - `<server>`: `toolset` (`McpServer` at `Autonomy::Reversible`) or `rmcp` (the
//!   generated `#[tool_router]` server with its router built once);
//! - `<n>`: 10, 100, or 1000 (built only with `TOOLSET_BENCH_LARGE=1`).

use rmcp::model::CallToolRequestParams;
use rmcp::{ServerHandler, ServiceExt};
use std::hint::black_box;
use std::process::ExitCode;
use toolset::Autonomy;
use toolset::mcp::{LineTransport, McpServer};
use toolset_benches::rmcp_cached::CachedServer;
use toolset_benches::{
    RmcpPeer, rmcp_10, rmcp_100, runtime, spread_requests, toolset_10, toolset_100,
};

#[cfg(large_sets)]
use toolset_benches::rmcp_1000;
#[cfg(large_sets)]
use toolset_benches::toolset_1000;

/// Runs `workload` against `server` for `iterations` iterations; false if a call failed.
fn drive<S: ServerHandler>(workload: &str, server: S, n: usize, iterations: usize) -> bool {
    let rt = runtime();
    let requests = spread_requests(n);
    match workload {
        "call" => rt.block_on(async {
            let peer = RmcpPeer::start(server);
            let mut id = 0;
            for _ in 0..iterations {
                for (name, args) in &requests {
                    id += 1;
                    let params = CallToolRequestParams::new(*name).with_arguments(args.clone());
                    let answer = peer
                        .server()
                        .call_tool(params, peer.client_context(id))
                        .await;
                    if black_box(answer).is_err() {
                        return false;
                    }
                }
            }
            true
        }),
        "list" => rt.block_on(async {
            let peer = RmcpPeer::start(server);
            for id in 0..iterations {
                let answer = peer
                    .server()
                    .list_tools(None, peer.context(id as i64))
                    .await;
                if black_box(answer).is_err() {
                    return false;
                }
            }
            true
        }),
        "round_trip" | "round_trip_lines" => rt.block_on(async {
            let (client_io, server_io) = tokio::io::duplex(64 * 1024);
            let lines = workload == "round_trip_lines";
            tokio::spawn(async move {
                let served = if lines {
                    let (reader, writer) = tokio::io::split(server_io);
                    server.serve(LineTransport::new(reader, writer)).await
                } else {
                    server.serve(server_io).await
                };
                if let Ok(running) = served {
                    let _ = running.waiting().await;
                }
            });
            let Ok(client) = ().serve(client_io).await else {
                return false;
            };
            for _ in 0..iterations {
                for (name, args) in &requests {
                    let params = CallToolRequestParams::new(*name).with_arguments(args.clone());
                    match client.call_tool(params).await {
                        Ok(result) if result.is_error != Some(true) => {
                            black_box(result);
                        }
                        _ => return false,
                    }
                }
            }
            let _ = client.cancel().await;
            true
        }),
        _ => false,
    }
}

macro_rules! by_size {
    ($workload:expr, $server:expr, $n:expr, $iterations:expr, $($size:literal => $toolset:ident, $rmcp:ident;)*) => {
        match ($server, $n) {
            $(
                ("toolset", $size) => Some(drive(
                    $workload,
                    McpServer::<$toolset::Tools>::new($toolset::State::default())
                        .with_autonomy(Autonomy::Reversible),
                    $size,
                    $iterations,
                )),
                ("rmcp", $size) => Some(drive(
                    $workload,
                    CachedServer::new($rmcp::Server::default(), $rmcp::Server::cached_router()),
                    $size,
                    $iterations,
                )),
            )*
            _ => None,
        }
    };
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: mcp_cost <call|round_trip|round_trip_lines|list> <toolset|rmcp> <10|100|1000> <iterations>";
    let (Some(workload), Some(server), Some(Ok(n)), Some(Ok(iterations))) = (
        args.first(),
        args.get(1),
        args.get(2).map(|n| n.parse::<usize>()),
        args.get(3).map(|n| n.parse::<usize>()),
    ) else {
        eprintln!("{usage}");
        return ExitCode::FAILURE;
    };
    #[cfg(not(large_sets))]
    let ran = by_size!(workload.as_str(), server.as_str(), n, iterations,
        10 => toolset_10, rmcp_10;
        100 => toolset_100, rmcp_100;
    );
    #[cfg(large_sets)]
    let ran = by_size!(workload.as_str(), server.as_str(), n, iterations,
        10 => toolset_10, rmcp_10;
        100 => toolset_100, rmcp_100;
        1000 => toolset_1000, rmcp_1000;
    );
    match ran {
        Some(true) => ExitCode::SUCCESS,
        Some(false) => {
            eprintln!("a request failed (or the workload is not call, round_trip or list)");
            ExitCode::FAILURE
        }
        None => {
            eprintln!("{usage} (1000 only when built with TOOLSET_BENCH_LARGE=1)");
            ExitCode::FAILURE
        }
    }
}
