//! The `curious` handler (`toolset_tests::asking`) served by `McpServer`, for the
//! TypeScript and Python SDKs' clients in `tests/tests/mcp_asking.rs`.
//!
//! `mcp_asking`: serves on stdio until stdin closes. `mcp_asking --http`: serves streamable
//! HTTP on a free loopback port, first printing `listening on <url>` on stdout, until killed.

use std::process::ExitCode;
use toolset::mcp::{HttpConfig, McpServer};
use toolset_tests::asking::CuriousTools;
use toolset_tests::serving::stdio_or_http;

fn main() -> ExitCode {
    stdio_or_http(
        "mcp_asking",
        McpServer::<CuriousTools>::new(()),
        |server| server.serve(toolset::mcp::stdio()),
        |server, listener| server.serve_http(listener, HttpConfig::new()),
    )
}
