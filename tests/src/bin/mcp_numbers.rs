//! An MCP server of the tool set `toolset_tests::numbers::NumberTools` on stdio, for the
//! tests of junk on the wire (`tests/mcp_junk.rs`): they write to it as an attacker would.
//! Serves until stdin closes.

use std::process::ExitCode;
use toolset::mcp::McpServer;
use toolset_tests::numbers::{Nothing, NumberTools};

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let server = McpServer::<NumberTools>::new(Nothing);
    match server.serve(toolset::mcp::stdio()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp_numbers: {error}");
            ExitCode::FAILURE
        }
    }
}
