//! The `curious` handler (`toolset_tests::asking`) served by `McpServer`, for the
//! TypeScript SDK's client in `tests/tests/mcp_asking.rs`.
//!
//! `mcp_asking`: serves on stdio until stdin closes. `mcp_asking --http`: serves streamable
//! HTTP on a free loopback port, first printing `listening on <url>` on stdout, until killed.

use std::process::ExitCode;
use toolset::mcp::{DEFAULT_HTTP_PATH, HttpConfig, McpServer};
use toolset_tests::asking::CuriousTools;

fn main() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("cannot start a runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let server = McpServer::<CuriousTools>::new(());
    let served = match std::env::args().nth(1).as_deref() {
        None => runtime.block_on(server.serve(toolset::mcp::stdio())),
        Some("--http") => runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
            println!(
                "listening on http://{}{DEFAULT_HTTP_PATH}",
                listener.local_addr()?
            );
            server.serve_http(listener, HttpConfig::new()).await
        }),
        Some(other) => {
            eprintln!("usage: mcp_asking [--http], not {other}");
            return ExitCode::from(2);
        }
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}
