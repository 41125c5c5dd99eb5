//! An rmcp server of a host's (`toolset_tests::desk::Desk`: one tool, one prompt, one
//! resource) with the inbox set mounted in it, served on stdio until stdin closes; the
//! TypeScript SDK's client drives it in `tests/tests/mcp_mounted.rs`.

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
    match runtime.block_on(server.serve(toolset::mcp::stdio())) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}
