//! An rmcp server of a host's (`toolset_tests::desk::Desk`: one tool, one prompt, one
//! resource) with the inbox set mounted in it; the TypeScript SDK's client drives it in
//! `tests/tests/mcp_mounted.rs`.
//!
//! `mcp_mounted`: serves on stdio until stdin closes. `mcp_mounted --http`: serves
//! streamable HTTP on a free loopback port, first printing `listening on <url>` on stdout,
//! until killed.

use std::process::ExitCode;
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
    let served = match std::env::args().nth(1).as_deref() {
        None => runtime.block_on(server.serve(toolset::mcp::stdio())),
        Some("--http") => runtime.block_on(serve_http(server)),
        Some(other) => {
            eprintln!("usage: mcp_mounted [--http], not {other}");
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

/// Serves `server` over streamable HTTP on a free loopback port, saying where first.
async fn serve_http(server: desk::MountedDesk) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!(
        "listening on http://{}{}",
        listener.local_addr()?,
        toolset::mcp::DEFAULT_HTTP_PATH
    );
    server
        .serve_http(listener, toolset::mcp::HttpConfig::new())
        .await
}
