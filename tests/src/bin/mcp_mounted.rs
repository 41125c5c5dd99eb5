//! An rmcp server of a host's (`toolset_tests::desk::Desk`: one tool, one prompt, one
//! resource) with the inbox set mounted in it; the TypeScript SDK's client drives it in
//! `tests/tests/mcp_mounted.rs`.
//!
//! `mcp_mounted`: serves on stdio until stdin closes. `mcp_mounted --http`: serves
//! streamable HTTP on a free loopback port, first printing `listening on <url>` on stdout,
//! until killed.

use std::process::ExitCode;
use toolset_tests::serving::stdio_or_http;
use toolset_tests::{Inbox, Item, desk};

fn main() -> ExitCode {
    let inbox = Inbox {
        items: vec![Item {
            id: 1,
            subject: "Invoice 88 overdue".to_owned(),
            due: None,
        }],
        log: Vec::new(),
    };
    let server = match desk::mounted(inbox) {
        Ok(server) => server,
        Err(collision) => {
            eprintln!("{collision}");
            return ExitCode::FAILURE;
        }
    };
    stdio_or_http(
        "mcp_mounted",
        server,
        |server| server.serve(toolset::mcp::stdio()),
        |server, listener| server.serve_http(listener, toolset::mcp::HttpConfig::new()),
    )
}
